"""Bounded, typed YAML reading of frontmatter.

PyYAML composes the text into nodes (its C parser when libyaml is present); this module then builds
plain Python values from the nodes itself, so that:
- nothing but str/int/float/bool/None/list/dict is ever constructed (`!!python/...` tags are refused);
- alias expansion, nesting depth and node count are bounded (a "billion laughs" costs nothing);
- every key keeps its 1-based position in the file, for diagnostics;
- scalars are typed the way the profile's runtime types them (`string`, `core` or `yaml11`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import yaml

_CLoader = getattr(yaml, "CSafeLoader", None)
LOADER: type = _CLoader or yaml.SafeLoader
HAS_LIBYAML = _CLoader is not None

# Plain scalars are left untagged: typing them is the profile's business (see _Builder.scalar),
# and PyYAML's YAML 1.1 guess for every scalar would cost time on every file for nothing.
_PLAIN = "tag:skillprism,2026:plain"


class _TypingFreeResolver(yaml.resolver.BaseResolver):
    def resolve(self, kind: type, value: str, implicit: tuple[bool, bool]) -> str:
        if kind is yaml.ScalarNode and implicit[0]:
            return _PLAIN
        return super().resolve(kind, value, implicit)


if _CLoader is not None:

    class _ComposeLoader(yaml.cyaml.CParser, yaml.constructor.SafeConstructor, _TypingFreeResolver):  # type: ignore[misc]
        def __init__(self, stream: str) -> None:
            yaml.cyaml.CParser.__init__(self, stream)
            yaml.constructor.SafeConstructor.__init__(self)
            _TypingFreeResolver.__init__(self)

else:

    class _ComposeLoader(  # type: ignore[no-redef]
        yaml.reader.Reader,
        yaml.scanner.Scanner,
        yaml.parser.Parser,
        yaml.composer.Composer,
        yaml.constructor.SafeConstructor,
        _TypingFreeResolver,
    ):
        def __init__(self, stream: str) -> None:
            yaml.reader.Reader.__init__(self, stream)
            yaml.scanner.Scanner.__init__(self)
            yaml.parser.Parser.__init__(self)
            yaml.composer.Composer.__init__(self)
            yaml.constructor.SafeConstructor.__init__(self)
            _TypingFreeResolver.__init__(self)


_YAML11_RESOLVER = yaml.resolver.Resolver()

MAX_DEPTH = 40
MAX_NODES = 20_000
MAX_TOKENS = 100_000
# Below this size the text cannot nest deep enough to hurt the composer, so the token pre-scan is
# skipped (it would only cost time on the 99.9 % of small, ordinary frontmatter blocks).
PRESCAN_ABOVE = 2048

TYPINGS = ("string", "core", "yaml11")

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


class _Builder:
    def __init__(self, typing: str, first_line: int) -> None:
        self.typing = typing
        self.first_line = first_line
        self.nodes = 0
        self.result = YamlResult()
        self._yaml11 = yaml.constructor.SafeConstructor() if typing == "yaml11" else None

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
            if not isinstance(key, str):
                result.issues.append(
                    YamlIssue(
                        "non-string-key",
                        f"key {key!r} is a {type(key).__name__}, not a string",
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
            else:
                out[key] = self.build(value_node, key_path, depth + 1)
        return out

    def scalar(self, node: yaml.ScalarNode) -> Any:
        value: str = node.value
        if self.typing == "string":
            return value
        # Quoted and block scalars are strings in every schema (the C loader marks plain style with
        # '' and the pure-Python one with None, hence the truthiness test).
        if node.style or node.tag == _STR_TAG:
            return value
        if self.typing == "core":
            if _CORE_NULL.match(value):
                return None
            if value in _CORE_BOOL:
                return _CORE_BOOL[value]
            if _CORE_INT.match(value):
                return int(value, 0) if value[:2] in ("0o", "0x") else int(value)
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
            if node.tag == _PLAIN:
                node.tag = _YAML11_RESOLVER.resolve(yaml.ScalarNode, value, (True, False))
            return self._yaml11.construct_object(node, deep=False)  # type: ignore[union-attr]
        except (yaml.YAMLError, ValueError, OverflowError):
            return value


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
                return YamlIssue(
                    "yaml-too-complex",
                    f"frontmatter nests deeper than {MAX_DEPTH} levels; it is not read",
                    first_line + m.line,
                    m.column + 1,
                    "flatten the frontmatter; skills need a handful of plain keys",
                )
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


def read_yaml(text: str, first_line: int, typing: str = "core") -> YamlResult:
    """Read frontmatter `text` whose first line is line `first_line` (1-based) of the file."""
    builder = _Builder(typing, first_line)
    result = builder.result
    try:
        if len(text) > PRESCAN_ABOVE:
            issue = _prescan(text, first_line)
            if issue is not None:
                result.issues.append(issue)
                result.failed = True
                return result
        node = yaml.compose(text, Loader=_ComposeLoader)
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


# Trailing blanks are stripped in Python: a lazy `(.*?)[ \t]*$` is quadratic on long blank runs.
_FALLBACK_LINE = re.compile(r"^([A-Za-z_][\w-]*):[ \t]*+(.*)$")


def fallback_fields(text: str, keys: tuple[str, ...] = ("name", "description")) -> dict[str, str]:
    """The line-based recovery some runtimes use when YAML fails: top-level `key: rest of line`,
    surrounding quotes removed. Only `keys` are recovered."""
    out: dict[str, str] = {}
    for line in text.split("\n"):
        m = _FALLBACK_LINE.match(line)
        if m and m.group(1) in keys and m.group(1) not in out:
            value = m.group(2).rstrip(" \t")
            if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
                value = value[1:-1]
            out[m.group(1)] = value
    return out
