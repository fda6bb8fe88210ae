"""Bounded, typed YAML reading of frontmatter.

PyYAML composes the text into nodes (its C parser when libyaml is present); this module then builds
plain Python values from the nodes itself, so that:
- nothing but str/int/float/bool/None/list/dict is ever constructed (`!!python/...` tags are refused);
- alias expansion, nesting depth and node count are bounded (a "billion laughs" costs nothing);
- every key keeps its 1-based position in the file, for diagnostics;
- scalars are typed the way the profile's runtime types them (`string`, `core` or `yaml11`).

Ordinary frontmatter (`key: scalar` lines, one nested map) is read by a strict line grammar
instead, with exactly the same result (`read_simple`); PyYAML is imported only when something
else needs it.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any

# Plain scalars are left untagged: typing them is the profile's business (see _Builder.scalar),
# and PyYAML's YAML 1.1 guess for every scalar would cost time on every file for nothing.
_PLAIN = "tag:skillprism,2026:plain"

# PyYAML is imported on first use (`_load_pyyaml`), not with this module: the fast path below
# reads ordinary frontmatter without it, and importing it (its reader compiles a large Unicode
# regex) is a tenth of a check's start-up. Until then these names are unset; `LOADER` and
# `HAS_LIBYAML` load it when asked for (module __getattr__).
yaml: Any = None
LOADER: type
HAS_LIBYAML: bool
_ComposeLoader: type
_PureComposeLoader: type  # PyYAML's pure-Python reader, for `yaml_reader = "pyyaml-pure"`
_YAML11_RESOLVER: Any


def __getattr__(name: str) -> Any:
    if name in ("LOADER", "HAS_LIBYAML"):
        _load_pyyaml()
        return globals()[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _load_pyyaml() -> None:
    """Import PyYAML and make the loaders built on it (once)."""
    global yaml, LOADER, HAS_LIBYAML, _ComposeLoader, _PureComposeLoader, _YAML11_RESOLVER
    if yaml is not None:
        return
    import yaml as pyyaml

    c_loader = getattr(pyyaml, "CSafeLoader", None)

    class _TypingFreeResolver(pyyaml.resolver.BaseResolver):  # type: ignore[misc]
        def resolve(self, kind: type, value: str, implicit: tuple[bool, bool]) -> str:
            if kind is pyyaml.ScalarNode and implicit[0]:
                return _PLAIN
            return super().resolve(kind, value, implicit)  # type: ignore[no-any-return]

    class _PureCompose(
        pyyaml.reader.Reader,
        pyyaml.scanner.Scanner,
        pyyaml.parser.Parser,
        pyyaml.composer.Composer,
        pyyaml.constructor.SafeConstructor,
        _TypingFreeResolver,
    ):  # type: ignore[misc]
        def __init__(self, stream: str) -> None:
            pyyaml.reader.Reader.__init__(self, stream)
            pyyaml.scanner.Scanner.__init__(self)
            pyyaml.parser.Parser.__init__(self)
            pyyaml.composer.Composer.__init__(self)
            pyyaml.constructor.SafeConstructor.__init__(self)
            _TypingFreeResolver.__init__(self)

    _Compose: type = _PureCompose
    if c_loader is not None:

        class _CCompose(
            pyyaml.cyaml.CParser, pyyaml.constructor.SafeConstructor, _TypingFreeResolver
        ):  # type: ignore[misc]
            def __init__(self, stream: str) -> None:
                pyyaml.cyaml.CParser.__init__(self, stream)
                pyyaml.constructor.SafeConstructor.__init__(self)
                _TypingFreeResolver.__init__(self)

        _Compose = _CCompose

    LOADER = c_loader or pyyaml.SafeLoader
    HAS_LIBYAML = c_loader is not None
    _ComposeLoader = _Compose
    _PureComposeLoader = _PureCompose
    _YAML11_RESOLVER = pyyaml.resolver.Resolver()
    yaml = pyyaml  # last: it marks the others as set


MAX_DEPTH = 40
MAX_NODES = 20_000
MAX_TOKENS = 100_000
# Below this size the text cannot nest deep enough to hurt the composer, so the token pre-scan is
# skipped (it would only cost time on the 99.9 % of small, ordinary frontmatter blocks).
PRESCAN_ABOVE = 2048

TYPINGS = ("string", "string-null", "core", "core-timestamps", "yaml11")

_STD = "tag:yaml.org,2002:"
_KNOWN_TAGS = {_PLAIN} | {
    _STD + t for t in ("str", "int", "float", "bool", "null", "timestamp", "seq", "map", "merge")
}

# YAML 1.2 core schema (what js-yaml and serde_yaml use for plain scalars).
_STR_TAG = _STD + "str"
# A plain scalar that could type as something other than a string in the core or YAML 1.1 schemas
# (null, bool, number, date, yes/no/on/off); everything else is a string in all of them.
_MAY_TYPE = re.compile(
    r"^(?:[-+.~0-9]|(?:null|Null|NULL|true|True|TRUE|false|False|FALSE|yes|Yes|YES|no|No|NO|on|On|ON|off|Off|OFF|y|Y|n|N)$)"
)
_CORE_NULL = re.compile(r"^(?:~|null|Null|NULL|)$")
_CORE_BOOL = {
    "true": True,
    "True": True,
    "TRUE": True,
    "false": False,
    "False": False,
    "FALSE": False,
}
_CORE_INT = re.compile(r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$")
_CORE_FLOAT = re.compile(
    r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|"
    r"\.nan|\.NaN|\.NAN)$"
)


# Integers whose decimal form Python refuses to build or print (its int max-str-digits guard,
# 4,300 digits by default) are typed as an infinite float instead: every message, JSON document and
# view can print that, and it is what a JavaScript runtime's YAML reader makes of them (a Number
# that overflows to Infinity). Hex and octal scalars are not guarded by Python, hence the bit bound.
_MAX_INT_DIGITS = 4000
_MAX_INT_BITS = int(_MAX_INT_DIGITS * 3.32)


_TIMESTAMP = re.compile(
    r"^\d{4}-\d\d-\d\d$|^\d{4}-\d\d?-\d\d?(?:[Tt]|[ \t]+)\d\d?:\d\d:\d\d(?:\.\d*)?"
    r"(?:[ \t]*(?:Z|[-+]\d\d?(?::\d\d)?))?$"
)


def _parse_timestamp(value: str) -> Any:
    import datetime

    if len(value) == 10:
        return datetime.date.fromisoformat(value)
    text = re.sub(r"[ \t]+(?=[Zz+-]|\d\d?:)", "T", value, count=1).replace("t", "T")
    return datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))


class HugeInteger(float):
    """A YAML integer too long for Python to build or print in decimal (its int max-str-digits
    guard): kept as an infinite float, which every message, JSON document and view can print and
    which is what a JavaScript runtime's YAML reader makes of it (a Number that overflows to
    Infinity), while still saying that it was an integer and how long."""

    digits: int

    def __new__(cls, negative: bool, digits: int) -> HugeInteger:
        obj = super().__new__(cls, -math.inf if negative else math.inf)
        obj.digits = digits
        return obj

    def __getnewargs__(self) -> tuple[bool, int]:
        # What pickle passes to __new__: the value reaches the process that checks in parallel.
        return (self < 0, self.digits)

    def __repr__(self) -> str:
        return f"<integer of about {self.digits:,} digits>"

    __str__ = __repr__


def _huge(text: str) -> HugeInteger:
    return HugeInteger(text.startswith("-"), len(text.lstrip("+-")))


def _bounded_int(value: int) -> int | float:
    if value.bit_length() <= _MAX_INT_BITS:
        return value
    return HugeInteger(value < 0, int(value.bit_length() * 0.30103) + 1)


_TYPE_NAMES = {
    bool: "a boolean",
    int: "an integer",
    HugeInteger: "an integer",
    float: "a float",
    str: "a string",
    type(None): "null",
    list: "a list",
    dict: "a mapping",
}


def type_name(value: Any) -> str:
    """What a typed YAML value is, in words with its article ("an integer", "a date", "null")."""
    kind = type(value)
    name = _TYPE_NAMES.get(kind)
    if name is None:
        name = kind.__name__
        name = ("an " if name[:1] in "aeiou" else "a ") + name
    return name


@dataclass(slots=True)
class YamlIssue:
    """A problem found while reading; `rule` names a code in the registry."""

    rule: str
    message: str
    line: int
    column: int
    hint: str = ""


@dataclass(slots=True)
class YamlResult:
    """Outcome of reading one frontmatter block. `data` is None when the block could not be read."""

    data: Any = None
    key_positions: dict[tuple[str, ...], tuple[int, int]] = field(default_factory=dict)
    value_positions: dict[tuple[str, ...], tuple[int, int]] = field(default_factory=dict)
    issues: list[YamlIssue] = field(default_factory=list)
    flow_style: bool = False
    flow_style_at: tuple[int, int] = (0, 0)  # 1-based line/column of the first flow node
    failed: bool = False
    # Key paths whose value is a block scalar with clip chomping ('|' or '>' with no '+' or '-'):
    # its one final line break is YAML's; some runtimes' readers drop it (`clip_chomping`).
    clipped: set[tuple[str, ...]] = field(default_factory=set)


class _Refused(Exception):
    def __init__(self, message: str, mark: Any) -> None:
        super().__init__(message)
        self.message = message
        self.mark = mark


def yaml_error_hint(problem: str) -> str:
    """A fix-it hint for the commonest YAML mistakes in frontmatter."""
    p = problem.lower()
    if "mapping values are not allowed" in p:
        return "quote values that contain ': ' (for example description: \"Use when: ...\")"
    if "found character '\\t'" in p or "tab" in p:
        return "YAML forbids tabs for indentation; indent with spaces"
    if "could not find expected ':'" in p:
        return "each line needs 'key: value'; quote multi-line values or use a block scalar (|)"
    if "found undefined alias" in p:
        return "'*' starts an alias in YAML; quote values that begin with '*'"
    if "expected <block end>" in p:
        return "check the indentation; quote values that start with '[', '{', '&', '!', '@' or '`'"
    return "fix the YAML at this line; quote values that contain ': ' or start with a special character"


_BLOCK_HEADER = re.compile(r"[|>]([1-9][+-]?|[+-][1-9]?)?")


def _clip_chomped(lines: list[str], mark: Any) -> bool:
    """Whether the block scalar starting at `mark` (at its indicator, or at a tag or anchor before
    it on that line) has clip chomping: no '+' or '-' in its header."""
    line = lines[mark.line] if 0 <= mark.line < len(lines) else ""
    rest = line[mark.column :]
    at = min((i for i in (rest.find("|"), rest.find(">")) if i >= 0), default=-1)
    header = _BLOCK_HEADER.match(rest, at) if at >= 0 else None
    return header is not None and not ({"+", "-"} & set(header.group()))


class _Builder:
    def __init__(
        self,
        typing: str,
        first_line: int,
        merge_keys: bool = False,
        lines: list[str] | None = None,
    ) -> None:
        self.typing = typing
        self.lines = lines  # the text's lines, to read a block scalar's header (None: not kept)
        self.merge_keys = merge_keys
        self.first_line = first_line
        self.nodes = 0
        self.result = YamlResult()
        self._yaml11 = None
        if typing == "yaml11":
            _load_pyyaml()
            self._yaml11 = yaml.constructor.SafeConstructor()

    def pos(self, mark: Any) -> tuple[int, int]:
        return (self.first_line + mark.line, mark.column + 1)

    def flow(self, node: yaml.Node) -> None:
        if not self.result.flow_style:
            self.result.flow_style = True
            self.result.flow_style_at = self.pos(node.start_mark)

    def build(self, node: yaml.Node, path: tuple[str, ...], depth: int) -> Any:
        self.nodes += 1
        if self.nodes > MAX_NODES:
            raise _Refused(
                f"more than {MAX_NODES:,} YAML nodes (alias expansion?)", node.start_mark
            )
        if depth > MAX_DEPTH:
            raise _Refused(f"nested deeper than {MAX_DEPTH} levels", node.start_mark)
        if node.tag not in _KNOWN_TAGS:
            line, col = self.pos(node.start_mark)
            self.result.issues.append(
                YamlIssue(
                    "yaml-unsupported-tag",
                    f"tag '{node.tag}' is not supported; the value is ignored",
                    line,
                    col,
                    "remove the tag; frontmatter holds plain strings, lists and mappings",
                )
            )
            return None
        if isinstance(node, yaml.ScalarNode):
            return self.scalar(node)
        if isinstance(node, yaml.SequenceNode):
            if node.flow_style:
                self.flow(node)
            return [self.build(child, path, depth + 1) for child in node.value]
        if isinstance(node, yaml.MappingNode):
            return self.mapping(node, path, depth)
        raise _Refused(
            "unknown YAML node", node.start_mark
        )  # pragma: no cover - PyYAML has 3 kinds

    def mapping(self, node: yaml.MappingNode, path: tuple[str, ...], depth: int) -> dict[Any, Any]:
        if node.flow_style:
            self.flow(node)
        out: dict[Any, Any] = {}
        result = self.result
        first_line = self.first_line
        string_keys = self.typing == "string"
        for key_node, value_node in node.value:
            # Fast path for the usual plain-string key; anything else goes through build().
            if (
                type(key_node) is yaml.ScalarNode
                and (key_node.tag is _PLAIN or key_node.tag == _STR_TAG)
                and (string_keys or key_node.style or not _MAY_TYPE.match(key_node.value))
            ):
                self.nodes += 1
                key: Any = key_node.value
            else:
                key = self.build(key_node, path, depth + 1)
            mark = key_node.start_mark
            line, col = first_line + mark.line, mark.column + 1
            if key == "<<" and self.merge_keys and not getattr(key_node, "style", None):
                # A YAML merge key (js-yaml, Bun): the mapping(s) it names fill in keys that are
                # not set yet; keys written later still override them.
                merged = self.build(value_node, path, depth + 1)
                for part in merged if isinstance(merged, list) else [merged]:
                    if isinstance(part, dict):
                        for k, v in part.items():
                            out.setdefault(k, v)
                continue
            if not isinstance(key, str):
                result.issues.append(
                    YamlIssue(
                        "non-string-key",
                        f"key {key!r} is {type_name(key)}, not a string",
                        line,
                        col,
                        "write keys as plain words, e.g. name:",
                    )
                )
                if isinstance(key, (list, dict)) or key is None:
                    continue
                key = str(key)
            key_path = (*path, key)
            if key in out:
                first = result.key_positions.get(key_path, (0, 0))
                result.issues.append(
                    YamlIssue(
                        "duplicate-key",
                        f"duplicate key '{key}' (first at line {first[0]}); the last value wins "
                        "in PyYAML, js-yaml and strictyaml refuse the file",
                        line,
                        col,
                        f"keep one '{key}:' line",
                    )
                )
            result.key_positions[key_path] = (line, col)
            vmark = value_node.start_mark
            result.value_positions[key_path] = (first_line + vmark.line, vmark.column + 1)
            if type(value_node) is yaml.ScalarNode and value_node.tag in _KNOWN_TAGS:
                self.nodes += 1
                if self.nodes > MAX_NODES:
                    raise _Refused(f"more than {MAX_NODES:,} YAML nodes", vmark)
                out[key] = self.scalar(value_node)
                if (
                    value_node.style in ("|", ">")
                    and self.lines is not None
                    and _clip_chomped(self.lines, vmark)
                ):
                    result.clipped.add(key_path)
            else:
                out[key] = self.build(value_node, key_path, depth + 1)
        return out

    def scalar(self, node: yaml.ScalarNode) -> Any:
        value: str = node.value
        if self.typing == "string":
            return value
        if self.typing == "string-null":
            plain = not node.style and node.tag != _STR_TAG
            return None if plain and _CORE_NULL.match(value) else value
        # Quoted and block scalars are strings in every schema (the C loader marks plain style with
        # '' and the pure-Python one with None, hence the truthiness test).
        if node.style or node.tag == _STR_TAG:
            return value
        return self.plain(value, node)

    def plain(self, value: str, node: Any = None) -> Any:
        """A plain scalar typed the profile's way; `node` is its composed node, if there is one
        (the fast path has none: its plain scalars are untagged)."""
        if self.typing == "string":
            return value
        if self.typing == "string-null":
            return None if _CORE_NULL.match(value) else value
        if self.typing == "core-timestamps" and _TIMESTAMP.match(value):
            try:  # js-yaml's default schema: YAML 1.2 core plus timestamps
                return _parse_timestamp(value)
            except ValueError:
                return value
        if self.typing in ("core", "core-timestamps"):
            if _CORE_NULL.match(value):
                return None
            if value in _CORE_BOOL:
                return _CORE_BOOL[value]
            if _CORE_INT.match(value):
                if value[:2] in ("0o", "0x"):
                    return _bounded_int(int(value, 0))
                if len(value) > _MAX_INT_DIGITS:  # int() would refuse it (and cost quadratic time)
                    return _huge(value)
                return int(value)
            if _CORE_FLOAT.match(value):
                return float(
                    value.replace("inf", "Inf")
                    .replace("INF", "Inf")
                    .lower()
                    .replace("+.inf", "inf")
                    .replace("-.inf", "-inf")
                    .replace(".inf", "inf")
                    .replace(".nan", "nan")
                )
            return value
        try:  # yaml11: PyYAML's own safe typing of one scalar (bool yes/no, dates, sexagesimal ...)
            if node is None:
                node = yaml.ScalarNode(_PLAIN, value, style=None)
            if node.tag == _PLAIN:
                node.tag = _YAML11_RESOLVER.resolve(yaml.ScalarNode, value, (True, False))
            if node.tag == _STD + "int" and len(value) > _MAX_INT_DIGITS:
                return _huge(value.replace("_", ""))  # too long to be worth building
            typed = self._yaml11.construct_object(node, deep=False)  # type: ignore[union-attr]
        except (yaml.YAMLError, ValueError, OverflowError):
            return value
        return _bounded_int(typed) if type(typed) is int else typed


def _too_deep(line: int, column: int) -> YamlIssue:
    return YamlIssue(
        "yaml-too-complex",
        f"frontmatter nests deeper than {MAX_DEPTH} levels; it is not read",
        line,
        column,
        "flatten the frontmatter; skills need a handful of plain keys",
    )


def _prescan(text: str, first_line: int) -> YamlIssue | None:
    """Walk the token stream (iterative, in C when available) and refuse pathological nesting before
    the recursive composer sees it."""
    depth = 0
    opening = (
        yaml.BlockMappingStartToken,
        yaml.BlockSequenceStartToken,
        yaml.FlowMappingStartToken,
        yaml.FlowSequenceStartToken,
    )
    closing = (yaml.BlockEndToken, yaml.FlowMappingEndToken, yaml.FlowSequenceEndToken)
    for count, token in enumerate(yaml.scan(text, Loader=LOADER)):
        if isinstance(token, opening):
            depth += 1
            if depth > MAX_DEPTH:
                m = token.start_mark
                return _too_deep(first_line + m.line, m.column + 1)
        elif isinstance(token, closing):
            depth -= 1
        if count > MAX_TOKENS:
            m = token.start_mark
            return YamlIssue(
                "yaml-too-complex",
                f"frontmatter has more than {MAX_TOKENS:,} YAML tokens; it is not read",
                first_line + m.line,
                m.column + 1,
                "keep frontmatter short; move detail into the body or references/",
            )
    return None


def line_start_keys(text: str) -> dict[int, str]:
    """The keys that start a line at its first column (0-based line -> key), as far as the YAML
    scanner reads `text` before its first error: the top-level keys of a block mapping, and not a
    `key:` line that is really part of a value (inside a quoted string that runs on)."""
    _load_pyyaml()
    out: dict[int, str] = {}
    after_key = False
    try:
        for token in yaml.scan(text, Loader=LOADER):
            if after_key and isinstance(token, yaml.ScalarToken):
                mark = token.start_mark
                if mark.column == 0:
                    out[mark.line] = token.value
            after_key = isinstance(token, yaml.KeyToken)
    except (yaml.YAMLError, RecursionError, ValueError):
        pass
    return out


def read_yaml(
    text: str,
    first_line: int,
    typing: str = "core",
    merge_keys: bool = False,
    pure: bool = False,
) -> YamlResult:
    """Read frontmatter `text` whose first line is line `first_line` (1-based) of the file;
    `merge_keys` applies YAML merge keys (`<<: *anchor`) as js-yaml does; `pure` reads with
    PyYAML's pure-Python reader instead of libyaml (it refuses a tab after 'key:', which libyaml
    accepts; the fast path's grammar holds no tab, so both readers agree on it)."""
    simple = read_simple(text, first_line, typing)  # never holds a `<<` key
    if simple is not None:
        return simple
    return read_composed(text, first_line, typing, merge_keys, pure)


def read_composed(
    text: str,
    first_line: int,
    typing: str = "core",
    merge_keys: bool = False,
    pure: bool = False,
) -> YamlResult:
    """`read_yaml` by the general route: PyYAML composes the nodes, `_Builder` types them."""
    _load_pyyaml()
    builder = _Builder(typing, first_line, merge_keys, text.split("\n"))
    result = builder.result
    try:
        if len(text) > PRESCAN_ABOVE:
            issue = _prescan(text, first_line)
            if issue is not None:
                result.issues.append(issue)
                result.failed = True
                return result
        node = yaml.compose(text, Loader=_PureComposeLoader if pure else _ComposeLoader)
        result.data = {} if node is None else builder.build(node, (), 0)
    except _Refused as refused:
        line, col = builder.pos(refused.mark)
        result.issues.append(
            YamlIssue(
                "yaml-too-complex",
                f"YAML refused: {refused.message}; it is not expanded",
                line,
                col,
                "remove anchors/aliases and deep nesting; frontmatter needs plain keys",
            )
        )
        result.failed = True
        result.data = None
    except yaml.MarkedYAMLError as err:
        mark = err.problem_mark or err.context_mark
        line, col = (first_line + mark.line, mark.column + 1) if mark else (first_line, 1)
        problem = err.problem or str(err)
        if "maximum nesting depth" in problem:
            # libyaml 0.2.6 and later stop at 1,000 levels by themselves, while scanning ahead
            # of the first token the prescan would refuse.
            result.issues.append(_too_deep(line, col))
            result.failed = True
            return result
        message = f"invalid YAML: {problem}"
        if err.context:
            message += f" ({err.context})"
        result.issues.append(YamlIssue("yaml-error", message, line, col, yaml_error_hint(problem)))
        result.failed = True
    except (yaml.YAMLError, RecursionError, ValueError) as err:
        result.issues.append(
            YamlIssue(
                "yaml-error", f"invalid YAML: {err}", first_line, 1, yaml_error_hint(str(err))
            )
        )
        result.failed = True
    return result


# --- the fast path for simple frontmatter ---------------------------------------------------------
#
# Almost every SKILL.md frontmatter is a handful of `key: value` lines, perhaps with one nested
# `metadata:` map. Composing that with libyaml costs more than reading and checking the rest of the
# file, so such text is read here by a strict line grammar instead. The grammar is a subset of YAML
# on which both readers agree exactly (values, types, key and value positions, duplicate-key
# issues); tests/test_perf_yaml_fast.py checks that on generated input. Anything outside it (flow
# collections, block scalars, multi-line values, anchors, tags, tabs, uncommon escapes, line
# breaks other than LF, deeper nesting, ...) returns None and takes the general route.

# Characters YAML reads as plain printable text on one line. Everything else (tabs, CR, NEL,
# U+2028/9, a BOM, control characters, non-characters) means: take the general route.
# Spelled as the (short) list of what is not allowed: the equivalent negated class of allowed
# ranges up to U+10FFFF takes milliseconds to compile, on every start.
_NOT_SIMPLE_CHAR = re.compile(
    "[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff\ufeff\ufffe\uffff]"
)
# One `key: value` line. Groups: 1 indent, 2 key, 3 double-quoted body, 4 single-quoted body,
# 5 plain scalar; none of 3-5 means an empty value (null, or a nested map on the lines below).
# A plain scalar may not start with an indicator, and ends before ' #' (a comment) or ': '.
_SIMPLE_LINE = re.compile(
    r"( *)([A-Za-z_][A-Za-z0-9_-]*):"
    r"(?: +\"([^\"\\]*+(?:\\[0abtnvfre \"/\\N_LP][^\"\\]*+)*+)\""
    r"| +'([^']*+(?:''[^']*+)*+)'"
    r"| +([^ \-?:,\[\]{}#&*!|>'\"%@`](?:[^ :#]++|:(?! |$)| ++(?=[^ #])|#)*+)"
    r"|)"
    r"(?: +#.*| *)"
)
_DQ_ESCAPE = re.compile(r"\\(.)")
_DQ_ESCAPES = {
    "0": "\0",
    "a": "\a",
    "b": "\b",
    "t": "\t",
    "n": "\n",
    "v": "\v",
    "f": "\f",
    "r": "\r",
    "e": "\x1b",
    " ": " ",
    '"': '"',
    "/": "/",
    "\\": "\\",
    "N": "\x85",
    "_": "\xa0",
    "L": "\u2028",
    "P": "\u2029",
}
# Beyond this many lines the general route's node bound could apply: let it decide.
SIMPLE_MAX_LINES = 2000


def _unescape(m: re.Match[str]) -> str:
    return _DQ_ESCAPES[m.group(1)]


def read_simple(text: str, first_line: int, typing: str = "core") -> YamlResult | None:
    """`read_yaml` for frontmatter of top-level `key: scalar` lines and one level of nested
    `key: scalar` maps under an empty `key:`; None for anything else. Scalars are plain (one line),
    single-quoted or double-quoted (one line, single-character escapes); comments and blank lines
    may appear anywhere."""
    if text.isascii():  # the usual case: cheaper than the regex (isascii is a flag lookup)
        if not text.replace("\n", " ").isprintable():
            return None
    elif _NOT_SIMPLE_CHAR.search(text) is not None:
        return None
    lines = text.split("\n")
    if len(lines) > SIMPLE_MAX_LINES:
        return None
    string_typing = typing == "string"
    result = YamlResult()
    key_positions = result.key_positions
    value_positions = result.value_positions
    issues = result.issues
    builder: _Builder | None = None
    top: dict[Any, Any] = {}
    out = top  # the map the next line belongs to
    parent: tuple[str, ...] = ()
    open_key = ""  # a top-level key with an empty value, whose nested map may follow
    open_at = (0, 0)
    child_indent = 0
    for index, line in enumerate(lines):
        if not line or line[0] == "#" or (line[0] == " " and line.lstrip(" ")[:1] in ("", "#")):
            continue  # blank or comment
        m = _SIMPLE_LINE.fullmatch(line)
        if m is None:
            return None
        indent, key, dq, sq, plain = m.groups()
        if not string_typing and _MAY_TYPE.match(key):
            return None  # a key such as `on:` or `null:` that a schema types
        line_no = first_line + index
        if indent:
            if open_key:  # the first line of the nested map under `open_key`
                child_indent = len(indent)
                parent = (open_key,)
                out = {}
                top[open_key] = out
                value_positions[parent] = (line_no, child_indent + 1)
                open_key = ""
            elif not parent or len(indent) != child_indent:
                return None  # a continuation line, or deeper nesting
        else:
            if open_key:  # the previous key's value was empty: null (or '' as a string)
                top[open_key] = _typed_plain("", typing, builder)
                value_positions[(open_key,)] = open_at
                open_key = ""
            out, parent = top, ()
        key_path = (*parent, key)
        if key in out:
            first = key_positions.get(key_path, (0, 0))
            issues.append(
                YamlIssue(
                    "duplicate-key",
                    f"duplicate key '{key}' (first at line {first[0]}); the last value wins "
                    "in PyYAML, js-yaml and strictyaml refuse the file",
                    line_no,
                    len(indent) + 1,
                    f"keep one '{key}:' line",
                )
            )
        key_positions[key_path] = (line_no, len(indent) + 1)
        if dq is not None:
            out[key] = _DQ_ESCAPE.sub(_unescape, dq) if "\\" in dq else dq
            value_positions[key_path] = (line_no, m.start(3))
        elif sq is not None:
            out[key] = sq.replace("''", "'")
            value_positions[key_path] = (line_no, m.start(4))
        elif plain is not None:
            if string_typing or (_MAY_TYPE.match(plain) is None and plain[0] not in "<="):
                out[key] = plain
            else:
                if builder is None:
                    builder = _Builder(typing, first_line)
                out[key] = _typed_plain(plain, typing, builder)
            value_positions[key_path] = (line_no, m.start(5) + 1)
        elif parent:
            return None  # an empty value inside the nested map: leave it to the general route
        else:
            # Null, unless indented lines follow: then it is the nested map they hold. Either way
            # the key keeps its place in the map now, as it does in the composed node.
            out[key] = None
            open_key, open_at = key, (line_no, m.end(2) + 2)
    if open_key:
        top[open_key] = _typed_plain("", typing, builder)
        value_positions[(open_key,)] = open_at
    if not top:
        return None  # no keys at all: empty or comment-only text reads as {} the general way
    result.data = top
    return result


def _typed_plain(value: str, typing: str, builder: _Builder | None) -> Any:
    """An untagged plain scalar typed exactly as `_Builder.scalar` types it."""
    if typing == "string":
        return value
    return (builder or _Builder(typing, 1)).plain(value)


# Trailing blanks are stripped in Python: a lazy `(.*?)[ \t]*$` is quadratic on long blank runs.
_FALLBACK_LINE = re.compile(r"^([A-Za-z_][\w-]*):[ \t]*+(.*)$")


_FALLBACK_ANY_INDENT = re.compile(r"^\s*+([A-Za-z_][\w-]*):\s*+(.*)$")
_CONTINUATION = re.compile(r"^[ \t]++\S")


def fallback_fields(
    text: str,
    keys: tuple[str, ...] | None = ("name", "description"),
    *,
    any_indent: bool = False,
    keep_quotes: bool = False,
    continuation: bool = False,
    repeat: str = "first",
    values: str = "text",
    typing: str = "core",
) -> dict[str, Any]:
    """The line-based recovery some runtimes use when YAML fails: `key: rest of line`. Only
    `keys` are recovered (None = every key). The variants are profile data (docs/profiles.md,
    `fallback_*`): keys at any indent, quotes kept, indented continuation lines joined with
    spaces (description only), the first or the last of a repeated key, and each value read as
    one YAML scalar (`yaml-scalar`: numbers and booleans typed, a list kept, anything else the
    raw text) or as a JavaScript line parser reads it (`js-lines`: JSON lists and maps, true and
    false, the rest as text)."""
    out: dict[str, Any] = {}
    lines = text.split("\n")
    pattern = _FALLBACK_ANY_INDENT if any_indent else _FALLBACK_LINE
    i = 0
    while i < len(lines):
        m = pattern.match(lines[i])
        i += 1
        if not m or (keys is not None and m.group(1) not in keys):
            continue
        key = m.group(1)
        value = m.group(2).strip(" \t") if any_indent else m.group(2).rstrip(" \t")
        if continuation and key == "description":
            parts = [value]
            while i < len(lines) and _CONTINUATION.match(lines[i]):
                parts.append(lines[i].strip())
                i += 1
            value = " ".join(p for p in parts if p)
        if not keep_quotes and len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
            value = value[1:-1]
        if key in out and repeat == "first":
            continue
        if values == "yaml-scalar":
            out[key] = _scalar_value(value, typing)
        elif values == "js-lines":
            out[key] = _js_line_value(value)
        else:
            out[key] = value
    return out


def _js_line_value(raw: str) -> Any:
    """One value as Factory Droid's line parser reads it: `[...]` / `{...}` as JSON when that
    parses, `true` / `false` as booleans, anything else the text."""
    if raw.startswith(("[", "{")):
        import json

        try:
            return json.loads(raw)
        except (
            ValueError,
            RecursionError,
        ):  # deep nesting: JavaScript would parse it, we keep text
            pass
    return {"true": True, "false": False}.get(raw, raw)


def _scalar_value(raw: str, typing: str) -> Any:
    """One value read as YAML on its own: a scalar typed, a list kept; a mapping, null or a YAML
    error gives the raw text back."""
    if not raw:
        return raw
    try:
        parsed = read_composed("v: " + raw, 1, typing)
    except Exception:  # pragma: no cover - read_composed reports, it does not raise
        return raw
    if parsed.failed or not isinstance(parsed.data, dict):
        return raw
    value = parsed.data.get("v")
    if value is None or isinstance(value, dict):
        return raw
    return value
