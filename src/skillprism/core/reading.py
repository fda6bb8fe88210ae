"""Reading the frontmatter's values the way one runtime does: its YAML reader's treatment of
repeated keys and merge keys, the repairs it tries on broken YAML, and the line-by-line fallback
it uses instead (with that fallback's variants). All of it is profile data (`[frontmatter]` keys
`duplicate_keys`, `merge_keys`, `yaml_repair`, `yaml_errors`, `fallback_*`; docs/profiles.md).

`frontmatter_data` returns the mapping the runtime ends up with and appends the findings that
explain how it got there (`yaml-error`, `yaml-fallback`, `yaml-repaired`, ...).
"""

from __future__ import annotations

import json
import re
from typing import Any

from skillprism.core.document import Finding, SkillDocument, line_ended
from skillprism.core.profiles import Profile
from skillprism.core.yamlread import (
    YamlResult,
    fallback_fields,
    line_start_keys,
    read_yaml,
    type_name,
)

# A plain `key: value` line whose value holds ': ' (oh-my-pi's PLAIN_SCALAR_KEY_VALUE; OpenCode's
# retry turns the same values into block scalars, which reads the same text).
_PLAIN_KEY_VALUE = re.compile(r"^(\s*+[A-Za-z_][\w-]*:\s++)(\S.*)$")
_EXPLICIT_START = frozenset("\"'[{|>!&*#")


def quote_colon_values(text: str, any_colon: bool = False) -> str | None:
    """`text` with every plain value that holds ': ' (with `any_colon`, any ':') written as a
    quoted string (None when no line changes)."""
    changed = False
    out = []
    for line in text.split("\n"):
        m = _PLAIN_KEY_VALUE.match(line)
        if m:
            value = m.group(2).rstrip()
            tail = m.group(2)[len(value) :]
            has = ":" in value if any_colon else ": " in value
            if has and value[0] not in _EXPLICIT_START:
                line = f"{m.group(1)}{json.dumps(value, ensure_ascii=False)}{tail}"
                changed = True
        out.append(line)
    return "\n".join(out) if changed else None


# Claude Code 2.1.330's retry (`tu`): a top-level `key: value` line, the key of letters, `_` and
# `-`, the value up to a line terminator (JavaScript's `.`, so a line ending in CR never matches).
_SPECIAL_KEY_VALUE = re.compile(r"([a-zA-Z_-]+):\s+(\S[^\n\r\u2028\u2029]*)\Z")
_YAML_SPECIAL = re.compile(r"[{}\[\]*&#!|>%@`]|: ")
_LEADING_TABS = re.compile(r"^\t+", re.M)


def quote_special_values(text: str) -> str:
    """`text` as Claude Code's YAML retry rewrites it: every top-level plain value holding one of
    YAML's special characters (`{}[]*&#!|>%@` and the backquote) or ': ' written in double quotes
    (backslashes and quotes escaped), unless it already starts and ends with a quote or is a
    flow list that reads as one. A block scalar's `>` or `|` is quoted too."""
    out = []
    for line in text.split("\n"):
        m = _SPECIAL_KEY_VALUE.match(line)
        if m:
            key, value = m.groups()
            quoted = (value.startswith('"') and value.endswith('"')) or (
                value.startswith("'") and value.endswith("'")
            )
            if not quoted and not _flow_list(value) and _YAML_SPECIAL.search(value):
                escaped = value.replace("\\", "\\\\").replace('"', '\\"')
                line = f'{key}: "{escaped}"'
        out.append(line)
    return "\n".join(out)


def _flow_list(value: str) -> bool:
    """Whether `value` is `[...]` that YAML reads as a list."""
    if not (value.startswith("[") and value.endswith("]")):
        return False
    data = read_yaml(f"v: {value}\n", 1, "core").data
    return isinstance(data, dict) and isinstance(data.get("v"), list)


def leading_tabs_to_spaces(text: str) -> str:
    """Each tab at the start of a line as two spaces (Claude Code's retry)."""
    return _LEADING_TABS.sub(lambda m: "  " * len(m.group()), text)


# JavaScript's \s (and what String.prototype.trim removes): white space, line terminators, BOM.
_JS_SPACE = (
    " \t\n\v\f\r\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009"
    "\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
)
# OpenClaw's normalizeFreeformFieldAtError: the line a YAML error is on, read as `key: value`
# (JavaScript's \w, \s and `.`, which stops at any line terminator).
_ERROR_LINE = re.compile(
    rf"""^(?:([\w-]+)|"([\w-]+)"|'([\w-]+)'):[{_JS_SPACE}]*([^\n\r\u2028\u2029]*)$""", re.ASCII
)
_BLOCK_INDICATOR = re.compile(r"[|>](?:[1-9][+-]?|[+-][1-9]?)?")
# Fields OpenClaw re-quotes at an error: the description always, these two only when the error
# is a mapping value inside a plain value (PyYAML's 'mapping values are not allowed here', the
# yaml package's BLOCK_AS_IMPLICIT_KEY) and the value holds ': '.
_FREEFORM_ON_COLON = frozenset({"read_when", "summary"})


def requote_line_at_error(text: str, line: int, message: str) -> str | None:
    """`text` with its 0-based `line` (where the YAML error `message` is) rewritten as OpenClaw
    rewrites it, `key: <JSON string of the value, matching outer quotes removed>`; None when
    OpenClaw leaves the block as it is: the line is not a top-level `description:` (or, after a
    mapping-value error with ': ' in the value, `read_when:` / `summary:`), its value is empty or
    a block scalar's indicator."""
    lines = text.split("\n")
    # An error at the end of the block (a quote never closed) is marked on the line after it
    # (the reader reads the block with a final line break); OpenClaw's is on the last line.
    line = min(line, len(lines) - 1)
    if line < 0:
        return None
    m = _ERROR_LINE.match(lines[line])
    if m is None:
        return None
    key = m.group(1) or m.group(2) or m.group(3)
    value = m.group(4).strip(_JS_SPACE)
    colon = "mapping values are not allowed" in message and ": " in value
    if not value or (key != "description" and not (key in _FREEFORM_ON_COLON and colon)):
        return None
    if _BLOCK_INDICATOR.fullmatch(value) or line_start_keys(text).get(line) != key:
        return None
    if value[0] in "\"'" and value[-1] == value[0]:
        value = value[1:-1]  # stripQuotes (a lone quote leaves nothing, as slice(1, -1) does)
    lines[line] = f"{key}: {json.dumps(value, ensure_ascii=False)}"
    return "\n".join(lines)


def _fallback(profile: Profile, text: str) -> dict[str, Any]:
    r = profile.reading
    return fallback_fields(
        text,
        None if r.fallback_values in ("yaml-scalar", "js-lines") else ("name", "description"),
        any_indent=r.fallback_keys == "any-indent",
        keep_quotes=r.fallback_quotes == "keep",
        continuation=r.fallback_continuation,
        repeat=r.fallback_repeat,
        values=r.fallback_values,
        typing=profile.typing,
    )


def _nulls_as_line_text(profile: Profile, text: str, data: dict[str, Any]) -> dict[str, Any]:
    """`data` with each null name or description replaced by the text the line reader finds for
    it ('~', 'null'): OpenClaw fills the keys its YAML leaves empty from parseLineFrontmatter."""
    nulls = [k for k in ("name", "description") if k in data and data[k] is None]
    if not nulls:
        return data
    lines = _fallback(profile, text)
    filled = {k: lines[k] for k in nulls if isinstance(lines.get(k), str) and lines[k]}
    return {**data, **filled} if filled else data


def _strip_clipped(data: dict[str, Any], yml: YamlResult) -> dict[str, Any]:
    """`data` with the one final line break of each top-level clip-chomped block scalar removed
    (`clip_chomping = "strip"`); the cached reading itself is left as it is."""
    out = dict(data)
    for path in yml.clipped:
        if len(path) == 1 and isinstance(out.get(path[0]), str) and out[path[0]].endswith("\n"):
            out[path[0]] = out[path[0]][:-1]
    return out


_NUL_STAND_IN = "\ue000"


def _read(profile: Profile, doc: SkillDocument, text: str) -> YamlResult:
    pure = profile.reading.yaml_reader == "pyyaml-pure"
    if text == doc.frontmatter_text:
        yml = doc.yaml(profile.typing, profile.reading.merge_keys, pure)
        assert yml is not None
        return yml
    return read_yaml(
        line_ended(text),
        doc.frontmatter_first_line,
        profile.typing,
        profile.reading.merge_keys,
        pure,
    )


def _restore_nul(value: Any) -> Any:
    if isinstance(value, str):
        return value.replace(_NUL_STAND_IN, "\x00")
    if isinstance(value, list):
        return [_restore_nul(v) for v in value]
    if isinstance(value, dict):
        return {_restore_nul(k): _restore_nul(v) for k, v in value.items()}
    return value


def js_yaml3_tab_indents(text: str) -> str:
    """`text` as js-yaml 3 (gray-matter's reader) indents it: a line's indentation is the spaces
    before its first tab, and the rest of its leading white space is skipped. So a tab-indented
    line lands at that column (usually 0) instead of failing as YAML says it must. The first line
    with content keeps its tab (there js-yaml 3 places the block after it and fails on the next
    line, as libyaml fails on the tab)."""
    out = []
    first = True
    for line in text.split("\n"):
        stripped = line.lstrip(" \t")
        if first:
            out.append(line)
            first = not stripped or stripped.startswith("#")
            continue
        lead = line[: len(line) - len(stripped)]
        if "\t" in lead:
            line = " " * (len(lead) - len(lead.lstrip(" "))) + stripped
        out.append(line)
    return "\n".join(out)


def _refused_duplicates(yml: YamlResult) -> bool:
    return any(i.rule == "duplicate-key" for i in yml.issues)


def _requote_at_errors(
    profile: Profile, doc: SkillDocument, text: str, yml: YamlResult
) -> YamlResult | None:
    """OpenClaw's retry (`requote-description-at-error`): up to three times, the line the YAML
    error is on is re-quoted (`requote_line_at_error`) and the block read again; the reading that
    succeeds, or None when OpenClaw's rewrite changes nothing or the block still fails."""
    r = profile.reading
    first_line = doc.frontmatter_first_line
    for _ in range(3):
        error = next((i for i in yml.issues if i.rule == "yaml-error"), None)
        if error is None:
            return None
        text_next = requote_line_at_error(text, error.line - first_line, error.message)
        if text_next is None or text_next == text:
            return None
        text = text_next
        yml = read_yaml(
            line_ended(text),
            first_line,
            profile.typing,
            r.merge_keys,
            r.yaml_reader == "pyyaml-pure",
        )
        if not yml.failed and not (r.duplicate_keys == "error" and _refused_duplicates(yml)):
            return yml
    return None


def frontmatter_data(
    doc: SkillDocument, profile: Profile, findings: list[Finding]
) -> tuple[Any, YamlResult | None]:
    """The frontmatter value the runtime works with (None without frontmatter; {} when nothing is
    left of it) and the YAML reading it came from, appending the findings on the way."""
    r = profile.reading
    if not doc.has_frontmatter:
        return None, None
    text = doc.frontmatter_text
    if "tabs-to-spaces" in r.repair and "\t" in text:
        text = text.replace("\t", "  ")
    if "tab-indents-js-yaml3" in r.repair and "\t" in text:
        text = js_yaml3_tab_indents(text)
    nul = profile.framing.nul_bytes == "text" and "\x00" in text and _NUL_STAND_IN not in text
    if nul:
        # A runtime that reads NUL as text gets it through its YAML reader; PyYAML refuses the
        # character, so it stands in as a private-use one and comes back in the values.
        text = text.replace("\x00", _NUL_STAND_IN)
    yml = _read(profile, doc, text)
    failed = yml.failed or (r.duplicate_keys == "error" and _refused_duplicates(yml))
    repaired: YamlResult | None = None
    quoting = {"quote-colon-values", "quote-any-colon-values"} & set(r.repair)
    retry = {"quote-special-values", "retry-leading-tabs"} & set(r.repair)
    if failed and (quoting or retry):
        quoted: str | None
        if retry:
            retried = quote_special_values(text) if "quote-special-values" in retry else text
            if "retry-leading-tabs" in retry:
                retried = leading_tabs_to_spaces(retried)
            quoted = retried
        else:
            quoted = quote_colon_values(text, "quote-any-colon-values" in quoting)
        if quoted is not None and quoted != text:
            attempt = read_yaml(
                line_ended(quoted),
                doc.frontmatter_first_line,
                profile.typing,
                r.merge_keys,
                r.yaml_reader == "pyyaml-pure",
            )
            if not attempt.failed and not (
                r.duplicate_keys == "error" and _refused_duplicates(attempt)
            ):
                repaired = attempt
    requoted = failed and repaired is None and "requote-description-at-error" in r.repair
    if requoted:
        repaired = _requote_at_errors(profile, doc, text, yml)
    fallback = profile.yaml_errors == "fallback-lines"
    if repaired is not None:
        first = next((i for i in yml.issues if i.rule == "yaml-error"), None)
        findings.append(
            Finding(
                "yaml-repaired",
                (
                    "the runtime rewrites the description line the YAML error is on as a quoted "
                    "string and reads the frontmatter again"
                    if requoted
                    else "the runtime quotes values that hold ': ' or YAML's special characters, "
                    "turns leading tabs into spaces and reads the frontmatter again"
                    if retry
                    else "the runtime quotes values that hold ': ' and reads the frontmatter again"
                )
                + (f" ({first.message})" if first else ""),
                first.line if first else doc.frontmatter_first_line,
                first.column if first else 1,
                'close the quote, or write the description in quotes (description: "...")'
                if requoted
                else "quote values that contain ': ' (for example description: \"Use when: ...\")",
            )
        )
        yml, failed = repaired, False
    for issue in yml.issues:
        rule = issue.rule
        message = issue.message
        if rule == "duplicate-key" and r.duplicate_keys == "error":
            rule = "yaml-error"
            message = message.split(";")[0] + ": the runtime's YAML reader refuses repeated keys"
        if rule == "yaml-error" and fallback:
            rule = "yaml-fallback"
        findings.append(Finding(rule, message, issue.line, issue.column, issue.hint))
    if failed:
        data = _fallback(profile, text) if fallback else {}
        return (_restore_nul(data) if nul else data), yml
    data = yml.data
    if r.clip_chomping == "strip" and yml.clipped and isinstance(data, dict):
        data = _strip_clipped(data, yml)
    if r.null_values == "line-text" and isinstance(data, dict):
        data = _nulls_as_line_text(profile, text, data)  # before NULs are put back, as for YAML
    data = _restore_nul(data) if nul else data
    if fallback and r.fallback_when == "not-strings":
        fm = data if isinstance(data, dict) else {}
        odd = [
            f"'{k}' is {type_name(fm[k]) if k in fm else 'missing'}"
            for k in ("name", "description")
            if not isinstance(fm.get(k), str)
        ]
        if odd:
            findings.append(
                Finding(
                    "yaml-fallback",
                    f"{', '.join(odd)}: the runtime reads name and description again line by "
                    "line, as text",
                    doc.frontmatter_first_line,
                    1,
                    "write name and description as plain strings",
                )
            )
            data = _fallback(profile, text)
            return (_restore_nul(data) if nul else data), yml
    return data, yml


def skip_field(profile: Profile, fm: dict[str, Any]) -> str:
    """The frontmatter key whose value turns the skill off for this runtime ('' = none)."""
    for key, value in profile.reading.skip_fields.items():
        if key in fm and fm[key] == value and type(fm[key]) is type(value):
            return key
    return ""
