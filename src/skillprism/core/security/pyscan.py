"""Python sources: bandit, run as a library on the source text, and a small constant folder that
undoes the usual disguises (string splitting, base64/hex/rot13, reversing, chr lists) so the
command rules see the commands a script would run.

Nothing is imported or run: the source is parsed with `ast.parse` (which only builds a tree) and
bandit walks that tree. Both are bounded: sources over `max_python_bytes` are skipped (with an
info finding), the folder stops after a fixed number of nodes and a fixed output size, and any
exception from a hostile tree (deep nesting, odd nodes) ends the analysis of that source only.
"""

from __future__ import annotations

import ast
import base64
import binascii
import codecs
import io
import logging
import warnings
import zlib
from dataclasses import dataclass

from skillprism.core.diagnostics import Severity
from skillprism.core.security.lean_import import standing_in

MAX_NODES = 200_000
MAX_FOLDED_CHARS = 100_000


@dataclass(frozen=True, slots=True)
class PyIssue:
    line: int
    column: int
    test_id: str
    test_name: str
    text: str
    severity: str  # bandit: LOW | MEDIUM | HIGH
    confidence: str


@dataclass(frozen=True, slots=True)
class Folded:
    """A string a script builds at run time, computed without running it."""

    line: int
    column: int
    text: str
    how: str  # e.g. "base64-decoded", "joined from pieces"


@dataclass(frozen=True, slots=True)
class ExecFlow:
    """Code run from text: `kind` is download | decode | dynamic."""

    line: int
    column: int
    kind: str
    call: str
    source: str


_BANDIT: tuple[object, object] | None = None


def _bandit() -> tuple[object, object]:
    global _BANDIT
    if _BANDIT is None:
        logging.getLogger("bandit").setLevel(logging.CRITICAL)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # stevedore's deprecation notes while loading plugins
            with standing_in("rich:progress"):  # bandit's progress bar; its command line only
                from bandit.core import config as b_config
                from bandit.core import test_set as b_test_set

            conf = b_config.BanditConfig()
            _BANDIT = (conf, b_test_set.BanditTestSet(conf, {}))
    return _BANDIT


def bandit_issues(source: bytes, fname: str) -> list[PyIssue]:
    """bandit's findings on `source` (its `# nosec` comments are not honoured: a skill's author
    must not be able to silence the scan)."""
    # bandit's plugin loading warns about deprecations, and the script's own SyntaxWarnings are
    # not ours to show either.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _conf, tests = _bandit()  # first: it imports bandit
        from bandit.core import meta_ast, metrics, node_visitor

        visitor = node_visitor.BanditNodeVisitor(
            fname,
            io.BytesIO(source),
            meta_ast.BanditMetaAst(),
            tests,
            False,
            {},
            metrics.Metrics(),
        )
        visitor.process(source)
    out = []
    for issue in visitor.tester.results:
        out.append(
            PyIssue(
                int(issue.lineno or 0),
                int(issue.col_offset or 0) + 1,
                str(issue.test_id),
                str(issue.test),
                str(issue.text),
                str(issue.severity),
                str(issue.confidence),
            )
        )
    return out


def bandit_severity(issue: PyIssue) -> Severity:
    if issue.severity == "HIGH" and issue.confidence != "LOW":
        return Severity.ERROR
    if issue.severity in ("HIGH", "MEDIUM") and issue.confidence != "LOW":
        return Severity.WARNING
    return Severity.INFO


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
_EXEC_CALLS = {"exec", "eval", "compile", "execfile", "runpy", "run_code", "run_path"}


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
        self.taint: dict[str, set[str]] = {}
        self.budget = MAX_FOLDED_CHARS * 10

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
        for sub in ast.walk(node):
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


def analyse(source: bytes) -> tuple[list[Folded], list[ExecFlow], str]:
    """Folded strings and code-from-text flows of a Python source; the third item says why the
    analysis stopped early ('' when it did not)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # invalid escapes and the like in the script
            tree = ast.parse(source)
    except (SyntaxError, ValueError, MemoryError, RecursionError) as err:
        return [], [], f"not parsable as Python ({type(err).__name__})"
    folder = _Folder()
    folded: list[Folded] = []
    flows: list[ExecFlow] = []
    budget = [MAX_NODES]
    why = ""
    try:
        nodes = list(_walk(tree, budget))
        if budget[0] <= 0:
            why = f"more than {MAX_NODES:,} syntax nodes"
        for node in nodes:
            if isinstance(node, ast.Assign) and len(node.targets) == 1:
                target = node.targets[0]
                if isinstance(target, ast.Name):
                    v = folder.value(node.value)
                    if v is not None:
                        folder.names[target.id] = v
                    kinds = folder.sources(node.value, budget)
                    if kinds:
                        folder.taint.setdefault(target.id, set()).update(kinds)
            if isinstance(node, ast.Call):
                _call_flow(node, folder, folded, flows, budget)
    except (RecursionError, MemoryError):
        why = "syntax tree too deep"
    return folded, flows, why


def _walk(tree: ast.AST, budget: list[int]):  # type: ignore[no-untyped-def]
    """Nodes in source order, iteratively (a hostile tree cannot exhaust the stack)."""
    stack = [tree]
    while stack:
        node = stack.pop()
        budget[0] -= 1
        if budget[0] <= 0:
            return
        yield node
        children = list(ast.iter_child_nodes(node))
        stack.extend(reversed(children))


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
        if isinstance(name, str) and name in _EXEC_CALLS | {"system", "popen"}:
            flows.append(ExecFlow(line, col, "dynamic", f"getattr(..., {name!r})", "a hidden name"))
    if last == "__import__" and node.args and not _is_plain_literal(node.args[0]):
        name = folder.value(node.args[0])
        shown = repr(name) if isinstance(name, str) else "a computed name"
        flows.append(ExecFlow(line, col, "dynamic", "__import__", f"an import of {shown}"))
    for arg in list(node.args) + [kw.value for kw in node.keywords]:
        if _is_plain_literal(arg):
            continue
        v = folder.value(arg)
        if v is None:
            continue
        text = v.decode("utf-8", "replace") if isinstance(v, bytes) else v
        if text.strip():
            folded.append(Folded(line, col, text, "built at run time"))
    if last in _EXEC_CALLS or last in (
        "system",
        "popen",
        "Popen",
        "run",
        "call",
        "check_output",
        "spawn",
    ):
        if not node.args:
            return
        kinds = folder.sources(node.args[0], budget)
        if last in _EXEC_CALLS or dotted.startswith(("os.", "subprocess.", "pty.")):
            if "download" in kinds:
                flows.append(ExecFlow(line, col, "download", dotted, "text read from the network"))
            elif "decode" in kinds:
                flows.append(ExecFlow(line, col, "decode", dotted, "decoded text"))
            elif (
                last in ("exec", "eval", "compile")
                and not _is_plain_literal(node.args[0])
                and folder.value(node.args[0]) is None
            ):
                flows.append(ExecFlow(line, col, "dynamic", dotted, "text computed at run time"))
