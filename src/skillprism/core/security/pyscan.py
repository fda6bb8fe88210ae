"""Python scripts: what a script would run, load or weaken, read from its syntax tree, and a
small constant folder that undoes the usual disguises (string splitting, base64/hex/rot13,
reversing, chr lists) so the command rules see the commands a script would run.

Nothing is imported or run: the source is parsed with `ast.parse` (which only builds a tree) and
walked once. Only scripts that can run, load or fetch something are parsed (`worth_parsing`).
Both parts are bounded: the folder stops after a fixed number of nodes and a fixed output size,
and any exception from a hostile tree (deep nesting, odd nodes) ends the analysis of that source
only. (bandit once did the risky-construct part; its node visitor cost more than every other
rule together and most of what it reports is no risk to the user of a skill.)
"""

from __future__ import annotations

import ast
import base64
import binascii
import codecs
import warnings
import zlib
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field

from skillprism.core.diagnostics import Severity
from skillprism.core.security.patterns import compile_bytes

MAX_NODES = 200_000
MAX_FOLDED_CHARS = 100_000
E, W, INFO = Severity.ERROR, Severity.WARNING, Severity.INFO

# What a script must name for its tree to hold anything reported here: a risky construct; a
# decoder or character trick (what hides a command) or a computed import; a network read, or
# text spliced together, together with a way to run or send it; the environment with a way to
# send it.
_RISKY = compile_bytes(
    rb"\b(?:pickle|cPickle|dill|marshal|shelve|read_pickle|allow_pickle|unsafe_load|"
    rb"_create_unverified_context|CERT_NONE|check_hostname|AutoAddPolicy|WarningPolicy|execfile|"
    rb"run_path|run_code)\b|joblib\.load|yaml\.load|torch\.load|verify\s*=\s*False|"
    rb"shell\s*=\s*True|os\.(?:system|popen|chmod)\b|\b(?:exec|eval)\s*\(|extractall\(\s*[\"']/|"
    rb"getattr\([^)\n]{0,80}[\"'](?:system|popen|exec|eval|spawn\w*)[\"']"
)
_HIDES = compile_bytes(
    rb"\b(?:b64decode|b32decode|b16decode|a85decode|b85decode|decodebytes|fromhex|unhexlify|"
    rb"a2b_hex|a2b_base64|decompress|rot13|chr|bytearray)\b|\[::-1\]|bytes\(\s*\["
)
# Written text spliced from pieces ("cu" + "rl", "".join(["c", "u"])): what hides a command.
_SPLICED = compile_bytes(rb"[\"']\s*\+\s*[\"']|[\"']\.join\(\s*[\[(]")
_NET = compile_bytes(rb"\b(?:urlopen|urlretrieve|requests|httpx|aiohttp|socket|http\.client)\b")
_RUN = compile_bytes(rb"\b(?:subprocess|system|popen|Popen|spawn\w*|pty|check_output)\b")
_SEND = compile_bytes(rb"\b(?:post|put|patch|urlopen|send|sendall|request)\s*\(")


def worth_parsing(source: bytes) -> bool:
    """Whether the script names anything its syntax tree could show to be a risk (see above)."""
    if _RISKY.search(source) is not None or _HIDES.search(source) is not None:
        return True
    spliced = _SPLICED.search(source) is not None
    if spliced and (b"__import__" in source or b"import_module" in source):
        return True
    runs = _RUN.search(source) is not None
    if runs and (spliced or _NET.search(source) is not None):
        return True
    return b"environ" in source and _SEND.search(source) is not None


@dataclass(frozen=True, slots=True)
class Folded:
    """A string a script builds at run time, computed without running it."""

    line: int
    column: int
    text: str
    how: str  # e.g. "built at run time"


@dataclass(frozen=True, slots=True)
class ExecFlow:
    """Code run from text: `kind` is download | decode | dynamic."""

    line: int
    column: int
    kind: str
    call: str
    source: str


@dataclass(frozen=True, slots=True)
class PyRisk:
    line: int
    column: int
    message: str
    severity: Severity
    rule: str = "python-risk"


# --- folding ---------------------------------------------------------------------------------------

_NET_CALLS = {
    "urlopen", "urlretrieve", "get", "post", "request", "recv", "read", "download",
    "fetch", "Request", "build_opener", "open_url", "stream",
}  # fmt: skip
_NET_MODULES = {"urllib", "request", "requests", "httpx", "http", "urllib3", "aiohttp", "socket"}
_DECODE_CALLS = {
    "b64decode", "b32decode", "b16decode", "a85decode", "b85decode", "urlsafe_b64decode",
    "decodebytes", "decodestring", "fromhex", "unhexlify", "a2b_base64", "a2b_hex",
    "decompress", "loads", "decode", "rot13",
}  # fmt: skip
# `compile` only makes a code object (a syntax check, say): what runs it is exec or eval.
_EXEC_CALLS = {"exec", "eval", "execfile", "runpy", "run_code", "run_path"}
# Modules whose name, computed rather than written, hides a way to run commands or code.
_RUNNERS = {"os", "subprocess", "pty", "socket", "ctypes", "builtins", "importlib", "shutil",
            "sys", "posix", "nt", "commands", "popen2", "pickle", "marshal"}  # fmt: skip


def _dotted(node: ast.AST) -> str:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
    elif isinstance(node, ast.Call):
        parts.append(_dotted(node.func) + "()")
    return ".".join(reversed(parts))


class _Folder:
    def __init__(self) -> None:
        self.names: dict[str, str | bytes] = {}
        self.plain: set[str] = set()  # names bound to a literal as written
        self.seqs: dict[str, list[str | bytes | int]] = {}  # names bound to a list it computed
        self.taint: dict[str, set[str]] = {}
        self.budget = MAX_FOLDED_CHARS * 10

    def transforms(self, node: ast.AST) -> bool:
        """Whether the value of `node` is computed (joined, decoded, reversed, ...), not a
        literal written out (directly, through a name, or as an f-string without fields)."""
        if isinstance(node, ast.Name):
            return node.id not in self.plain
        if isinstance(node, ast.JoinedStr):
            return any(isinstance(v, ast.FormattedValue) for v in node.values)
        return not isinstance(node, ast.Constant)

    def value(self, node: ast.AST, depth: int = 0) -> str | bytes | None:
        """The constant value of `node` when it is a string computed from constants."""
        if depth > 40 or self.budget <= 0:
            return None
        v = self._value(node, depth)
        if isinstance(v, (str, bytes)):
            if len(v) > MAX_FOLDED_CHARS:
                return None
            self.budget -= len(v)
        return v

    def _value(self, node: ast.AST, depth: int) -> str | bytes | None:
        d = depth + 1
        if isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes)):
            return node.value
        if isinstance(node, ast.Name):
            return self.names.get(node.id)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            a, b = self.value(node.left, d), self.value(node.right, d)
            if (isinstance(a, str) and isinstance(b, str)) or (
                isinstance(a, bytes) and isinstance(b, bytes)
            ):
                return a + b  # type: ignore[operator]
            return None
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
            a = self.value(node.left, d)
            if isinstance(a, (str, bytes)) and isinstance(node.right, ast.Constant):
                n = node.right.value
                if isinstance(n, int) and n >= 0 and len(a) * n <= MAX_FOLDED_CHARS:
                    return a * n
            return None
        if isinstance(node, ast.JoinedStr):
            parts = []
            for v in node.values:
                if isinstance(v, ast.Constant):
                    parts.append(str(v.value))
                elif isinstance(v, ast.FormattedValue):
                    inner = self.value(v.value, d)
                    if not isinstance(inner, str):
                        return None
                    parts.append(inner)
            return "".join(parts)
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice):
            s = node.slice
            if (
                s.lower is None
                and s.upper is None
                and isinstance(s.step, ast.UnaryOp)
                and isinstance(s.step.op, ast.USub)
                and isinstance(s.step.operand, ast.Constant)
                and s.step.operand.value == 1
            ):
                v = self.value(node.value, d)
                return v[::-1] if isinstance(v, (str, bytes)) else None
            return None
        if isinstance(node, ast.Call):
            return self._call(node, d)
        return None

    def _seq(self, node: ast.AST, depth: int) -> list[str | bytes | int] | None:
        if isinstance(node, ast.Name):
            return self.seqs.get(node.id)
        if isinstance(node, (ast.List, ast.Tuple)):
            out: list[str | bytes | int] = []
            for el in node.elts[:10_000]:
                if isinstance(el, ast.Constant) and isinstance(el.value, int):
                    out.append(el.value)
                    continue
                v = self.value(el, depth)
                if v is None:
                    return None
                out.append(v)
            return out
        if isinstance(node, (ast.ListComp, ast.GeneratorExp)) and isinstance(node.elt, ast.Call):
            # [chr(c) for c in [99, 117, ...]]
            gen = node.generators[0] if node.generators else None
            f = node.elt.func
            if gen is not None and isinstance(f, ast.Name) and f.id == "chr":
                nums = self._seq(gen.iter, depth)
                if nums and all(isinstance(n, int) for n in nums):
                    return [chr(n) for n in nums if isinstance(n, int) and 0 <= n < 0x110000]
        return None

    def _call(self, node: ast.Call, depth: int) -> str | bytes | None:
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        args = node.args
        if name == "join" and isinstance(func, ast.Attribute) and len(args) == 1:
            sep = self.value(func.value, depth)
            items = self._seq(args[0], depth)
            if isinstance(sep, (str, bytes)) and items is not None:
                try:
                    return sep.join(items)  # type: ignore[arg-type]
                except TypeError:
                    return None
            return None
        if name == "chr" and len(args) == 1 and isinstance(args[0], ast.Constant):
            n = args[0].value
            return chr(n) if isinstance(n, int) and 0 <= n < 0x110000 else None
        if name in ("bytes", "bytearray") and len(args) == 1:
            items = self._seq(args[0], depth)
            if items is not None and all(isinstance(n, int) and 0 <= n < 256 for n in items):
                return bytes(items)  # type: ignore[arg-type]
            return None
        if not args:
            if name in ("decode", "strip", "lower", "upper") and isinstance(func, ast.Attribute):
                v = self.value(func.value, depth)
                if isinstance(v, bytes) and name == "decode":
                    return v.decode("utf-8", "replace")
                if isinstance(v, str) and name != "decode":
                    return getattr(v, name)()
            return None
        arg = self.value(args[0], depth)
        codecs_call = isinstance(func, ast.Attribute) and _dotted(func.value) == "codecs"
        if name == "decode" and isinstance(func, ast.Attribute) and not codecs_call:
            v = self.value(func.value, depth)
            if isinstance(v, bytes):
                return v.decode("utf-8", "replace")
            return None
        if arg is None:
            return None
        try:
            if name in ("b64decode", "decodebytes", "a2b_base64", "standard_b64decode"):
                return base64.b64decode(arg + (b"=" if isinstance(arg, bytes) else "=") * 2)
            if name == "urlsafe_b64decode":
                return base64.urlsafe_b64decode(arg + (b"=" if isinstance(arg, bytes) else "=") * 2)
            if name == "b32decode":
                return base64.b32decode(arg)
            if name == "b16decode":
                return base64.b16decode(arg, casefold=True)
            if name in ("a85decode", "b85decode"):
                return getattr(base64, name)(arg)
            if name in ("fromhex", "unhexlify", "a2b_hex"):
                return bytes.fromhex(arg if isinstance(arg, str) else arg.decode("ascii"))
            if name == "decompress":
                d = zlib.decompressobj(zlib.MAX_WBITS | 32)
                return d.decompress(
                    arg if isinstance(arg, bytes) else arg.encode(), MAX_FOLDED_CHARS
                )
            if name == "decode" or (name == "encode" and len(args) == 2):
                codec = self.value(args[1], depth) if len(args) > 1 else None
                if isinstance(codec, str) and codec.replace("_", "").lower() in ("rot13",):
                    return codecs.decode(arg if isinstance(arg, str) else arg.decode(), "rot13")
                if isinstance(codec, str) and codec.lower() in ("hex", "hex_codec", "base64"):
                    raw = arg.encode() if isinstance(arg, str) else arg
                    return codecs.decode(raw, codec)
        except (ValueError, TypeError, binascii.Error, zlib.error, LookupError, UnicodeError):
            return None
        if name in ("str",) and isinstance(arg, str):
            return arg
        return None

    def sources(self, node: ast.AST, budget: list[int]) -> set[str]:
        """What kinds of text flow into `node`: 'download' (a network read), 'decode'."""
        kinds: set[str] = set()
        for sub in _everything_in(node):
            budget[0] -= 1
            if budget[0] <= 0:
                break
            if isinstance(sub, ast.Name) and sub.id in self.taint:
                kinds |= self.taint[sub.id]
            if isinstance(sub, ast.Call):
                dotted = _dotted(sub.func)
                last = dotted.rsplit(".", 1)[-1]
                head = set(dotted.split("."))
                if (last in _NET_CALLS and head & _NET_MODULES) or last in (
                    "urlopen",
                    "urlretrieve",
                ):
                    kinds.add("download")
                if (last in _DECODE_CALLS and last not in ("decode", "loads")) or dotted in (
                    "marshal.loads",
                    "pickle.loads",
                    "codecs.decode",
                ):
                    kinds.add("decode")
        return kinds


@dataclass(slots=True)
class Analysis:
    folded: list[Folded] = field(default_factory=list)
    flows: list[ExecFlow] = field(default_factory=list)
    risks: list[PyRisk] = field(default_factory=list)
    why: str = ""  # why the analysis stopped early ('' when it did not)


def analyse(source: bytes) -> Analysis:
    """Folded strings, code-from-text flows and risky constructs of a Python source."""
    out = Analysis()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # invalid escapes and the like in the script
            tree = ast.parse(source)
    except (SyntaxError, ValueError, MemoryError, RecursionError) as err:
        out.why = f"not parsable as Python ({type(err).__name__})"
        return out
    folder = _Folder()
    budget = [MAX_NODES]
    try:
        nodes = list(_walk(tree, budget))
        if budget[0] <= 0:
            out.why = f"more than {MAX_NODES:,} syntax nodes"
        for node in nodes:
            if isinstance(node, ast.Assign) and len(node.targets) == 1:
                target = node.targets[0]
                if isinstance(target, ast.Name):
                    v = folder.value(node.value)
                    if v is not None:
                        folder.names[target.id] = v
                    if isinstance(node.value, ast.Constant):
                        folder.plain.add(target.id)
                    else:
                        folder.plain.discard(target.id)
                    if isinstance(node.value, (ast.List, ast.Tuple, ast.ListComp)):
                        seq = folder._seq(node.value, 0)
                        if seq is not None and len(seq) <= 10_000:
                            folder.seqs[target.id] = seq
                    kinds = folder.sources(node.value, budget)
                    if kinds:
                        folder.taint.setdefault(target.id, set()).update(kinds)
                _assign_risk(node, out.risks)
            elif isinstance(node, ast.Call):
                _call_flow(node, folder, out.folded, out.flows, budget)
                _call_risk(node, folder, out.risks)
    except (RecursionError, MemoryError):
        out.why = "syntax tree too deep"
    return out


def _walk(tree: ast.AST, budget: list[int]):  # type: ignore[no-untyped-def]
    """Nodes in source order, iteratively (a hostile tree cannot exhaust the stack)."""
    stack = [tree]
    while stack:
        node = stack.pop()
        budget[0] -= 1
        if budget[0] <= 0:
            return
        yield node
        children = _children(node)
        children.reverse()
        stack += children


def _everything_in(node: ast.AST) -> Iterator[ast.AST]:
    """`node` and every node below it, as `ast.walk` gives them (breadth first, one at a time:
    a caller that stops early, at its budget or its answer, pays only for what it saw)."""
    todo = deque([node])
    while todo:
        current = todo.popleft()
        todo.extend(_children(current))
        yield current


def _children(node: ast.AST) -> list[ast.AST]:
    """`ast.iter_child_nodes(node)` as a list: a generator per node costs more than the walk."""
    out = []
    for name in node._fields:
        value = getattr(node, name, None)
        if isinstance(value, ast.AST):
            out.append(value)
        elif isinstance(value, list):
            for item in value:
                if isinstance(item, ast.AST):
                    out.append(item)
    return out


def _is_plain_literal(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant)


def _call_flow(
    node: ast.Call, folder: _Folder, folded: list[Folded], flows: list[ExecFlow], budget: list[int]
) -> None:
    dotted = _dotted(node.func)
    last = dotted.rsplit(".", 1)[-1]
    line, col = getattr(node, "lineno", 0), getattr(node, "col_offset", 0) + 1
    if isinstance(node.func, ast.Call):
        inner = _dotted(node.func.func).rsplit(".", 1)[-1]
        if inner == "getattr" and node.func.args:
            name = folder.value(node.func.args[-1])
            if isinstance(name, str):
                last = name
    if isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Call):
        inner = _dotted(node.func.value.func).rsplit(".", 1)[-1]
        if inner == "__import__" and node.func.value.args:
            module = folder.value(node.func.value.args[0])
            if isinstance(module, str):
                dotted = f"{module}.{node.func.attr}"
    if last == "getattr" and len(node.args) >= 2:
        name = folder.value(node.args[1])
        if isinstance(name, str) and name in _EXEC_CALLS | {"system", "popen", "compile"}:
            flows.append(ExecFlow(line, col, "dynamic", f"getattr(..., {name!r})", "a hidden name"))
    if last in ("__import__", "import_module") and node.args and folder.transforms(node.args[0]):
        # A module named at run time is ordinary (a dependency check in a loop); one whose name
        # is spelled in pieces to hide it is not.
        name = folder.value(node.args[0])
        if isinstance(name, str) and name.split(".")[0] in _RUNNERS:
            flows.append(ExecFlow(line, col, "dynamic", last, f"an import of {name!r}, hidden"))
    for arg in list(node.args) + [kw.value for kw in node.keywords]:
        if _is_plain_literal(arg) or not folder.transforms(arg):
            continue
        v = folder.value(arg)
        if v is None:
            continue
        text = v.decode("utf-8", "replace") if isinstance(v, bytes) else v
        if text.strip():
            folded.append(Folded(line, col, text, "built at run time"))
    is_exec = (
        (isinstance(node.func, ast.Name) and node.func.id in _EXEC_CALLS)
        or (dotted.startswith(("builtins.", "runpy.")) and last in _EXEC_CALLS)
        or (last in _EXEC_CALLS and not isinstance(node.func, ast.Attribute))
    )
    if is_exec or last in ("system", "popen", "Popen", "run", "call", "check_output", "spawn"):
        if not node.args:
            return
        kinds = folder.sources(node.args[0], budget)
        if is_exec or dotted.startswith(("os.", "subprocess.", "pty.")):
            if "download" in kinds:
                flows.append(ExecFlow(line, col, "download", dotted, "text read from the network"))
            elif "decode" in kinds:
                flows.append(ExecFlow(line, col, "decode", dotted, "decoded text"))
            elif (
                is_exec
                and last in ("exec", "eval", "compile")
                and not _is_plain_literal(node.args[0])
                and folder.value(node.args[0]) is None
            ):
                flows.append(ExecFlow(line, col, "dynamic", dotted, "text computed at run time"))


# --- risky constructs ------------------------------------------------------------------------------

_DESERIALISE = {
    ("pickle", "load"), ("pickle", "loads"), ("cPickle", "load"), ("cPickle", "loads"),
    ("dill", "load"), ("dill", "loads"), ("joblib", "load"), ("marshal", "load"),
    ("marshal", "loads"), ("shelve", "open"), ("pandas", "read_pickle"), ("pd", "read_pickle"),
    ("numpy", "load"), ("np", "load"),
}  # fmt: skip
_SHELL_CALLS = {
    "run",
    "call",
    "Popen",
    "check_output",
    "check_call",
    "getoutput",
    "getstatusoutput",
}
_SYSTEM_PATHS = ("/", "/etc", "/usr", "/bin", "/home", "/root", "~", "C:\\")


_SEND_CALLS = {"post", "put", "patch", "request", "urlopen", "Request", "send", "sendall"}
_NET_OWNERS = {"requests", "httpx", "session", "client", "request", "urllib", "s", "sock", "socket"}


def _sends_environment(node: ast.Call) -> bool:
    """A call one of whose arguments holds the whole environment (`os.environ`, `dict(os.environ)`,
    `os.environ.copy()`)."""
    for arg in list(node.args) + [kw.value for kw in node.keywords]:
        for sub in _everything_in(arg):
            if isinstance(sub, ast.Attribute) and sub.attr == "environ":
                return True
            if isinstance(sub, ast.Name) and sub.id == "environ":
                return True
    return False


def _spliced(node: ast.expr) -> bool:
    """A command string made of written text and values (`'convert ' + path`, f'git log {x}',
    `'ls %s' % d`, `'x {}'.format(y)`), where a value can break out of its place; not a command
    passed in whole (a variable, an argument)."""
    if isinstance(node, ast.JoinedStr):
        return any(isinstance(v, ast.FormattedValue) for v in node.values)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Mod)):
        return any(isinstance(n, (ast.Constant, ast.JoinedStr)) for n in _everything_in(node))
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        return node.func.attr == "format" and isinstance(node.func.value, ast.Constant)
    return False


def _keyword(node: ast.Call, name: str) -> ast.expr | None:
    for kw in node.keywords:
        if kw.arg == name:
            return kw.value
    return None


def _is_true(node: ast.expr | None) -> bool:
    return isinstance(node, ast.Constant) and node.value is True


def _is_false(node: ast.expr | None) -> bool:
    return isinstance(node, ast.Constant) and node.value is False


def _call_risk(node: ast.Call, folder: _Folder, risks: list[PyRisk]) -> None:
    """Constructs a reviewer should look at: code run from data, TLS checks turned off, archives
    unpacked anywhere, shell commands built from values."""
    dotted = _dotted(node.func)
    parts = dotted.split(".")
    last = parts[-1]
    owner = parts[-2] if len(parts) > 1 else ""
    line, col = getattr(node, "lineno", 0), getattr(node, "col_offset", 0) + 1

    def add(message: str, severity: Severity) -> None:
        risks.append(PyRisk(line, col, message, severity))

    if (owner, last) in _DESERIALISE:
        numpy = (owner, last) in (("numpy", "load"), ("np", "load"))
        if not numpy or _is_true(_keyword(node, "allow_pickle")):
            add(f"{dotted}() runs code hidden in the data it loads (pickle)", W)
        return
    if owner == "torch" and last == "load" and not _is_true(_keyword(node, "weights_only")):
        add("torch.load() unpickles the file: a model file can run code", W)
        return
    if owner == "yaml" and last in ("load", "load_all", "unsafe_load", "unsafe_load_all"):
        loader = _keyword(node, "Loader") or (node.args[1] if len(node.args) > 1 else None)
        name = _dotted(loader) if loader is not None else ""
        if (
            last.startswith("unsafe")
            or loader is None  # PyYAML before 5.1 loaded unsafely by default
            or name.endswith(("UnsafeLoader", "FullLoader"))
            or name in ("Loader", "yaml.Loader")
        ):
            add(f"yaml.{last}() with {name or 'the default loader'} can build any object", W)
        return
    if last in _SEND_CALLS and owner in _NET_OWNERS and _sends_environment(node):
        risks.append(
            PyRisk(
                line,
                col,
                f"{dotted}() sends the environment (every secret in it) to another host",
                E,
                "data-upload",
            )
        )
        return
    verify = _keyword(node, "verify")
    if _is_false(verify) and owner in ("requests", "httpx", "session", "client", "s", "http"):
        add(f"{dotted}(verify=False) turns off TLS certificate checks", W)
        return
    if last == "_create_unverified_context":
        add("ssl._create_unverified_context() turns off TLS certificate checks", W)
        return
    if last == "extractall" and not _keyword(node, "filter") and not _keyword(node, "members"):
        target = folder.value(node.args[0]) if node.args else None
        if isinstance(target, str) and target.rstrip("/\\") in ("", *_SYSTEM_PATHS):
            add(f"extractall('{target}') unpacks an archive over system folders", W)
        else:
            add("extractall() unpacks an archive without checking member paths", INFO)
        return
    if last == "chmod" and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant):
        mode = node.args[1].value
        if isinstance(mode, int) and mode & 0o002:
            add(f"os.chmod(..., {oct(mode)}) makes the file writable by every user", W)
        elif isinstance(mode, int) and mode & 0o4000:
            add(f"os.chmod(..., {oct(mode)}) makes the file setuid", W)
        return
    if last == "set_missing_host_key_policy" and node.args:
        policy = _dotted(node.args[0].func if isinstance(node.args[0], ast.Call) else node.args[0])
        if policy.endswith(("AutoAddPolicy", "WarningPolicy")):
            add("SSH host keys are accepted without checking (AutoAddPolicy)", W)
        return
    if last in _SHELL_CALLS and _is_true(_keyword(node, "shell")) and node.args:
        if _spliced(node.args[0]) and folder.value(node.args[0]) is None:
            add(
                "a shell runs a command with values spliced into it (shell=True): a value "
                "holding ; or $( ) runs more",
                W,
            )
        else:
            add("a shell runs a command given whole (shell=True)", INFO)
        return
    if owner == "os" and last in ("system", "popen") and node.args:
        if _spliced(node.args[0]) and folder.value(node.args[0]) is None:
            add(f"os.{last}() runs a shell command with values spliced into it", W)
        return
    if last == "mktemp" and owner == "tempfile":
        add("tempfile.mktemp() names a file another program can take first", INFO)


def _assign_risk(node: ast.Assign, risks: list[PyRisk]) -> None:
    """`ctx.verify_mode = ssl.CERT_NONE`, `ctx.check_hostname = False`."""
    target = node.targets[0]
    if not isinstance(target, ast.Attribute):
        return
    value = _dotted(node.value) if not isinstance(node.value, ast.Constant) else ""
    if (target.attr == "verify_mode" and value.endswith("CERT_NONE")) or (
        target.attr == "check_hostname" and _is_false(node.value)
    ):
        risks.append(
            PyRisk(
                node.lineno,
                node.col_offset + 1,
                f"{target.attr} set so TLS certificates are not checked",
                W,
            )
        )
