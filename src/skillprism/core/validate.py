"""Frontmatter and body rules, applied as one profile states them.

Produces profile-independent `Finding`s (rule + message + position); `resolve` turns each into a
Diagnostic with the profile's action, effect and hint. Also decides the skill's effective name and
description the way the runtime does (defaults, sanitising, collapsing).
"""

from __future__ import annotations

import functools
import os
import re
import unicodedata
from dataclasses import dataclass, field, replace
from typing import Any

from skillprism.core.body_links import (
    INLINE_CODE,
    body_references,
    check_reference,
    mentioned_files,
    quick_targets,
)
from skillprism.core.document import Finding, SkillDocument
from skillprism.core.framing import frame
from skillprism.core.js_values import non_string_text
from skillprism.core.profiles import Profile
from skillprism.core.reading import frontmatter_data, skip_field
from skillprism.core.reference_validator import reference_validator_notes
from skillprism.core.yamlread import YamlResult, type_name

_ASCII_NAME_CHARS = re.compile(r"^[a-z0-9-]+$")
_ASCII_NAME = re.compile(r"[a-z0-9-]*")
_HEADING = re.compile(r"^\s{0,3}#")


@dataclass(slots=True)
class Evaluation:
    """What a runtime makes of one skill file's content."""

    name: str = ""
    description: str | None = None
    frontmatter: dict[str, Any] = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)
    # What the skill (its SKILL.md, scripts and resources) could do to the user who installs it:
    # the security pass, the same under every profile (core/security).
    risks: list[Any] | None = None  # None: not scanned
    # Where the listing stands in for a missing or empty description with the body's first line
    # (`[tier1] description_fallback`): that line and how many body characters follow it.
    body_line: tuple[str, int] | None = None


def first_paragraph(body: str) -> str:
    """The body's first paragraph of prose (headings, code fences and blank lines skipped)."""
    para: list[str] = []
    in_fence = False
    for line in body.split("\n"):
        stripped = line.strip()
        if stripped.startswith(("```", "~~~")):
            in_fence = not in_fence
            if para:
                break
            continue
        if in_fence:
            continue
        if not stripped:
            if para:
                break
            continue
        if _HEADING.match(line) and not para:
            continue
        para.append(stripped)
    return " ".join(para)


def first_body_line(body: str) -> tuple[str, int]:
    """The body's first line that is not blank or a '#' heading, stripped, and how many characters
    of the (stripped) body follow it: what a listing shows for a skill with no description
    (OpenHands' to_prompt). ("", 0) when there is none."""
    text = body.strip()
    before = 0
    for line in text.split("\n"):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            before += len(line) + 1
            continue
        return stripped, max(0, len(text) - before - len(line))
    return "", 0


def _content(doc: SkillDocument, profile: Profile) -> str:
    """The text the runtime keeps as the skill's content: the body, or the whole text (with a
    byte-order mark the framing keeps) when the runtime finds no frontmatter, an unclosed one
    included (python-frontmatter then returns the text it was given)."""
    if doc.has_frontmatter:
        return doc.body
    mark = "\ufeff" if profile.framing.bom == "text" and doc.bom else ""
    return mark + (doc.text or "")


def clip_middle(text: str, limit: int, notice: str) -> str:
    """`text` cut to `limit` characters by keeping its head and tail around `notice` (the head gets
    the odd character); the notice alone, cut, when it does not fit. OpenHands' maybe_truncate."""
    if len(text) <= limit:
        return text
    if len(notice) >= limit:
        return notice[:limit]
    room = limit - len(notice)
    head = room // 2 + room % 2
    tail = room - head
    return text[:head] + notice + (text[-tail:] if tail > 0 else "")


_HEADING_TEXT = re.compile(r"^#+\s+(\S.*)$")
FIRST_LINE_MAX = 100
FIRST_LINE_EMPTY = "Skill"


def first_line(body: str) -> str:
    """The body's first non-blank line, trimmed (a heading's text without its '#' marks), over
    100 characters cut to 97 and '...'; "Skill" when the body has no such line (Claude Code)."""
    for line in body.split("\n"):
        text = line.strip()
        if text:
            m = _HEADING_TEXT.match(text)
            text = m.group(1) if m else text
            return text[: FIRST_LINE_MAX - 3] + "..." if len(text) > FIRST_LINE_MAX else text
    return FIRST_LINE_EMPTY


@functools.cache
def _all_profiles() -> tuple[tuple[str, Profile], ...]:
    """Every loadable profile, read once per process (not once per unknown field name)."""
    from skillprism.core.profiles import ProfileError, load_profile_file, profile_files

    out = []
    for name, path in sorted(profile_files().items()):
        try:
            out.append((name, load_profile_file(path)))
        except ProfileError:
            continue
    return tuple(out)


@functools.cache
def _profiles_accepting(field_name: str) -> tuple[str, ...]:
    return tuple(
        name
        for name, prof in _all_profiles()
        if field_name in prof.fields or prof.action("unknown-field").action in ("ignore", "info")
    )


def evaluate(doc: SkillDocument, profile: Profile, dir_name: str) -> Evaluation:
    """Apply `profile`'s frontmatter and body rules to `doc`, whose skill folder is `dir_name`."""
    ev = Evaluation()
    doc = frame(doc, profile.framing)
    ev.findings.extend(doc.findings)
    data, yml = frontmatter_data(doc, profile, ev.findings)
    if yml is not None and data is not None and not isinstance(data, dict):
        kind = "a list" if isinstance(data, list) else f"the scalar {str(data)[:40]!r}"
        ev.findings.append(
            Finding(
                "frontmatter-not-mapping",
                f"frontmatter is {kind}, not key: value pairs",
                doc.frontmatter_first_line,
                1,
                "write the frontmatter as lines of 'key: value'",
            )
        )
    fm: dict[str, Any] = data if isinstance(data, dict) else {}
    ev.frontmatter = fm
    off = skip_field(profile, fm)
    if off:
        line, col = yml.key_positions.get((off,), (1, 1)) if yml else (1, 1)
        ev.findings.append(
            Finding(
                "disabled-in-frontmatter",
                f"'{off}: {str(fm[off]).lower()}' turns the skill off for {profile.title}",
                line,
                col,
                f"remove '{off}:' to load the skill",
            )
        )
    # A runtime that loads files without frontmatter (Claude Code) still names and describes them.
    loads_bare = profile.action("no-frontmatter").action not in ("skip", "error")
    if doc.readable and (doc.has_frontmatter or not _blocking(doc) or loads_bare):
        fm_pos = yml.key_positions if yml else {}
        _name(ev, profile, fm, fm_pos, dir_name, doc)
        _description(ev, profile, fm, fm_pos, doc)
        _fields(ev, profile, fm, yml, doc)
        _body(ev, profile, doc)
        if profile.disclosure.tier1.description_fallback == "first-body-line":
            ev.body_line = first_body_line(_content(doc, profile))
        _mentioned_files(ev, fm, yml, doc)
    if profile.reference_validator and doc.readable:
        ev.findings.extend(reference_validator_notes(doc, yml))
    elif profile.reference_validator and any(f.rule == "binary-content" for f in doc.findings):
        ev.findings.append(
            Finding(
                "refval-rejects-file",
                "the reference validator reads NUL bytes as text: it judges the file on its "
                "frontmatter alone, and crashes (ReaderError) when the NUL is inside it",
                1,
                1,
            )
        )
    _mark_yaml_consequences(ev)
    return ev


# What a frontmatter that does not parse leaves missing: reported, as the runtime acts on it, but
# marked as the YAML error's consequence so the author fixes the one thing that caused them.
_YAML_CONSEQUENCES = frozenset({"name-missing", "description-missing"})


def _mark_yaml_consequences(ev: Evaluation) -> None:
    error = next((f for f in ev.findings if f.rule == "yaml-error"), None)
    if error is None:
        return
    at = f"line {error.line}" if error.line else "the frontmatter"
    marked = []
    for f in ev.findings:
        if f.rule in _YAML_CONSEQUENCES:
            f = replace(
                f,
                message=f"{f.message}: a consequence of the YAML error on {at}",
                hint=f"fix the YAML error on {at} first",
            )
        marked.append(f)
    # the cause first, its consequences after it
    marked.sort(key=lambda f: f.rule != "yaml-error")
    ev.findings[:] = marked


def _blocking(doc: SkillDocument) -> bool:
    return any(
        f.rule in ("no-frontmatter", "frontmatter-unclosed", "frontmatter-too-large")
        for f in doc.findings
    )


def _pos(
    positions: dict[tuple[str, ...], tuple[int, int]], key: str, doc: SkillDocument
) -> tuple[int, int]:
    return positions.get((key,), (doc.frontmatter_first_line or 1, 1))


def _collapse(value: str) -> str:
    return " ".join(value.split())


def _not_string_rule(field_name: str, mode: str, read_as: str | None) -> str:
    """The rule for a non-string name/description: `<field>-not-text` when the profile's runtime
    turns such values into text (`non_strings`) and cannot turn this one (a mapping for String()),
    so a profile can act on the two apart (Qwen Code loads a number but skips a mapping)."""
    if read_as is None and mode != "refuse":
        return f"{field_name}-not-text"
    return f"{field_name}-not-string"


def _read_as(mode: str, read_as: str | None) -> str:
    if read_as is None:
        return ""
    if mode == "js-keep":
        return f": the runtime keeps the value itself, whose text is '{read_as}'"
    return f": the runtime reads it as '{read_as}'"


def _unconvertible(mode: str, read_as: str | None) -> str:
    return "; the runtime cannot turn it into text" if read_as is None and mode != "refuse" else ""


def _name(
    ev: Evaluation, p: Profile, fm: dict[str, Any], pos: dict, dir_name: str, doc: SkillDocument
) -> None:
    line, col = _pos(pos, "name", doc)
    raw = fm.get("name")
    if raw is None and "name" in fm and p.reading.null_values == "wrong-type":
        ev.findings.append(
            Finding(
                "name-not-string",
                "'name' is null, not a string",
                line,
                col,
                f"write name: {dir_name}",
            )
        )
        ev.name = ""
        return
    if "name" not in fm:
        if p.name_default == "directory" or p.name_source == "directory":
            ev.findings.append(
                Finding(
                    "name-defaulted",
                    f"no name: the runtime uses the directory name '{dir_name}'",
                    line,
                    col,
                )
            )
        else:
            ev.findings.append(
                Finding(
                    "name-missing",
                    "missing required field 'name'",
                    line,
                    col,
                    f"add 'name: {dir_name}' to the frontmatter",
                )
            )
        ev.name = (
            dir_name if (p.name_default == "directory" or p.name_source == "directory") else ""
        )
        return
    trims = "name" in p.reading.trim
    if raw is None or (isinstance(raw, str) and not (raw.strip() if trims else raw)):
        what = "null" if raw is None else ("empty" if raw == "" else "blank")
        default = p.name_default == "directory"
        ev.findings.append(
            Finding(
                "name-empty",
                f"'name' is {what}"
                + (f": the runtime uses the directory name '{dir_name}'" if default else ""),
                line,
                col,
                f"write name: {dir_name}",
            )
        )
        ev.name = dir_name if default else ""
        return
    if not isinstance(raw, str):
        read_as = non_string_text(raw, p.reading.non_strings)
        ev.findings.append(
            Finding(
                _not_string_rule("name", p.reading.non_strings, read_as),
                f"'name' is {type_name(raw)}, not a string"
                + _read_as(p.reading.non_strings, read_as)
                + _unconvertible(p.reading.non_strings, read_as),
                line,
                col,
                f"write name: {dir_name}",
            )
        )
        if read_as is None:
            ev.name = dir_name if p.name_default == "directory" else ""
            return
        raw = read_as
    name = raw.strip() if trims else raw
    if p.collapse_whitespace and _collapse(name) != name:
        ev.findings.append(
            Finding("field-collapsed", "the runtime collapses 'name' to one line", line, col)
        )
        name = _collapse(name)
    name_nfkc = unicodedata.normalize("NFKC", name)
    if p.name_max and len(name_nfkc) > p.name_max:
        ev.findings.append(
            Finding(
                "name-length",
                f"name is {len(name_nfkc)} characters; the limit is {p.name_max}",
                line,
                col,
                f"shorten the name to {p.name_max} characters or fewer",
            )
        )
    if p.name_charset != "any":
        _name_charset(ev, p, name_nfkc, line, col)
    if p.sanitize_name_chars:
        clean = "".join("-" if c in p.sanitize_name_chars else c for c in name)
        if clean != name:
            ev.findings.append(
                Finding(
                    "name-sanitized",
                    f"the runtime lists this skill as '{clean}'",
                    line,
                    col,
                    "use only letters, digits and '-' in names",
                )
            )
            name = clean
    # The runtime checks its pattern on the name it lists (after replacing characters).
    if p.name_pattern and not _pattern(p.name_pattern).fullmatch(name):
        ev.findings.append(
            Finding(
                "name-characters",
                f"name '{name}' does not match the runtime's name pattern {p.name_pattern}",
                line,
                col,
                f"use '{_suggest(name)}'",
            )
        )
    dir_nfkc = unicodedata.normalize("NFKC", dir_name)
    if dir_nfkc != name_nfkc:
        ev.findings.append(
            Finding(
                "name-directory-mismatch",
                f"name '{name}' does not match its directory '{dir_name}'",
                line,
                col,
                _rename_hint(name, dir_name),
            )
        )
    ev.name = dir_name if p.name_source == "directory" else name


def _name_charset(ev: Evaluation, p: Profile, name: str, line: int, col: int) -> None:
    if name != name.lower():
        ev.findings.append(
            Finding(
                "name-lowercase",
                f"name '{name}' must be lowercase",
                line,
                col,
                f"use '{_suggest(name)}'",
            )
        )
    if name.startswith("-") or name.endswith("-"):
        ev.findings.append(
            Finding(
                "name-hyphen-edge",
                "name cannot start or end with a hyphen",
                line,
                col,
                f"use '{_suggest(name)}'",
            )
        )
    if "--" in name:
        ev.findings.append(
            Finding(
                "name-double-hyphen",
                "name cannot contain consecutive hyphens",
                line,
                col,
                f"use '{_suggest(name)}'",
            )
        )
    lowered = name.lower()
    if p.name_charset == "ascii-lower":
        # The usual all-good name is settled by one match instead of one per character.
        bad = (
            []
            if _ASCII_NAME.fullmatch(lowered)
            else sorted({c for c in lowered if not _ASCII_NAME_CHARS.match(c)})
        )
    else:
        bad = sorted({c for c in lowered if not (c.isalnum() or c == "-")})
    if bad:
        shown = " ".join(repr(c) for c in bad[:8])
        allowed = (
            "a-z, 0-9 and '-'" if p.name_charset == "ascii-lower" else "letters, digits and '-'"
        )
        ev.findings.append(
            Finding(
                "name-characters",
                f"name '{name}' has characters outside {allowed}: {shown}",
                line,
                col,
                f"use '{_suggest(name)}'",
            )
        )
        if p.reference_validator and all(c.isalnum() or c == "-" for c in lowered):
            ev.findings.append(
                Finding(
                    "refval-accepts-name",
                    "the reference validator (skills-ref) accepts Unicode letters in names; the "
                    "specification allows only a-z, 0-9 and '-'",
                    line,
                    col,
                )
            )


@functools.lru_cache(maxsize=32)
def _pattern(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


def _rename_hint(name: str, dir_name: str) -> str:
    """How to make name and folder agree with a name the rules accept (never a hint that
    breaks another rule, such as renaming the folder to a name with spaces)."""
    options = []
    if _suggest(name) == name:
        options.append(f"rename the folder to '{name}'")
    if _suggest(dir_name) == dir_name:
        options.append(f"set name: {dir_name}")
    if options:
        return " or ".join(options)
    both = _suggest(name)
    return f"rename the folder to '{both}' and set name: {both}"


def _suggest(name: str) -> str:
    s = re.sub(r"[^a-z0-9]+", "-", name.lower())
    return re.sub(r"-{2,}", "-", s).strip("-") or "my-skill"


def _description(
    ev: Evaluation, p: Profile, fm: dict[str, Any], pos: dict, doc: SkillDocument
) -> None:
    line, col = _pos(pos, "description", doc)
    raw = fm.get("description")
    if p.description_default == "first-line":
        _description_or_first_line(ev, p, raw, line, col, doc)
        return
    if raw is None and "description" in fm and p.reading.null_values == "wrong-type":
        ev.findings.append(
            Finding(
                "description-not-string",
                "'description' is null, not a string",
                line,
                col,
                "write one or two sentences: what it does and when to use it",
            )
        )
        return
    if "description" not in fm or raw is None:
        if p.description_default == "first-paragraph":
            para = first_paragraph(doc.body)
            if para:
                ev.description = para
                ev.findings.append(
                    Finding(
                        "description-defaulted",
                        "no description: the runtime uses the body's first paragraph",
                        line,
                        col,
                        "write a description that says what the skill does and when to use it",
                    )
                )
                return
        ev.findings.append(
            Finding(
                "description-missing",
                "missing required field 'description'",
                line,
                col,
                "add 'description: <what it does and when to use it>'",
            )
        )
        return
    trims = "description" in p.reading.trim
    blank_counts = trims or p.reading.blank_is_empty
    if isinstance(raw, str) and (raw == "" or (blank_counts and not raw.strip())):
        ev.findings.append(
            Finding(
                "description-empty",
                "'description' is " + ("empty" if raw == "" else "blank"),
                line,
                col,
                "write one or two sentences: what it does and when to use it",
            )
        )
        if not trims:
            ev.description = raw  # present, and empty: some runtimes list it so
        return
    if not isinstance(raw, str):
        read_as = non_string_text(raw, p.reading.non_strings)
        ev.findings.append(
            Finding(
                _not_string_rule("description", p.reading.non_strings, read_as),
                f"'description' is {type_name(raw)}, not a string"
                + _read_as(p.reading.non_strings, read_as)
                + _unconvertible(p.reading.non_strings, read_as),
                line,
                col,
                "write one or two sentences: what it does and when to use it",
            )
        )
        if read_as is None:
            return
        raw = read_as
    desc = raw
    if p.collapse_whitespace and _collapse(desc) != desc.strip():
        ev.findings.append(
            Finding("field-collapsed", "the runtime collapses 'description' to one line", line, col)
        )
        desc = _collapse(desc)
    _check_length(ev, p, desc, line, col)
    desc = desc.strip() if trims else desc
    if p.reading.description_cut == "middle" and p.description_max:
        notice = p.reading.description_cut_notice.format(path=doc.path)
        desc = clip_middle(desc, p.description_max, notice)
    ev.description = rewrite_description(desc, p.description_rewrite)


def _check_length(ev: Evaluation, p: Profile, desc: str, line: int, col: int) -> None:
    """Report a description longer than the profile's limit (`description-length`)."""
    if p.description_max and len(desc) > p.description_max:
        ev.findings.append(
            Finding(
                "description-length",
                f"description is {len(desc):,} characters; the limit is {p.description_max:,}",
                line,
                col,
                "shorten it; move detail into the body",
            )
        )


_LINE_BREAKS = re.compile(r"[\r\n]+")


def rewrite_description(text: str, rewrites: tuple[str, ...]) -> str:
    """The description as the runtime keeps it after reading (`[frontmatter] description_rewrite`):
    `spaces`: every run of line breaks (CR, LF) one space, every tab one space, other runs of
    white space kept; `angle-entities`: `<`
    and `>` written as `&lt;` and `&gt;` (Claude Code 2.1.330)."""
    if "spaces" in rewrites:
        text = _LINE_BREAKS.sub(" ", text).replace("\t", " ")
    if "angle-entities" in rewrites:
        text = text.replace("<", "&lt;").replace(">", "&gt;")
    return text


def _description_or_first_line(
    ev: Evaluation, p: Profile, raw: Any, line: int, col: int, doc: SkillDocument
) -> None:
    """`description_default = "first-line"` (Claude Code's `yRe`, then `qgt`): a string is
    trimmed, a number or boolean is read as JavaScript's String() writes it, and anything else
    (missing, null, empty, blank, a list or mapping) gives way to the body's first line."""
    why = ""
    desc: str | None = None
    if isinstance(raw, str):
        desc = raw.strip() or None
        why = "" if desc else ("'description' is empty" if raw == "" else "'description' is blank")
    elif isinstance(raw, (bool, int, float)):
        desc = non_string_text(raw, "js-string")
        ev.findings.append(
            Finding(
                "description-not-string",
                f"'description' is {type_name(raw)}, not a string: the runtime reads it as "
                f"'{desc}'",
                line,
                col,
                "write one or two sentences: what it does and when to use it",
            )
        )
    elif raw is not None:
        why = f"'description' is {type_name(raw)}, not text"
    else:
        why = "no description"
    if desc is None:
        desc = first_line(doc.body)
        ev.findings.append(
            Finding(
                "description-defaulted",
                f"{why}: the runtime uses the body's first line ('{desc[:60]}')",
                line,
                col,
                "write a description that says what the skill does and when to use it",
            )
        )
    _check_length(ev, p, desc, line, col)
    ev.description = rewrite_description(desc, p.description_rewrite)


def _fields(
    ev: Evaluation, p: Profile, fm: dict[str, Any], yml: YamlResult | None, doc: SkillDocument
) -> None:
    pos = yml.key_positions if yml else {}
    for key, value in fm.items():
        line, col = _pos(pos, key, doc)
        kind = p.fields.get(key)
        if kind is None:
            accepting = [n for n in _profiles_accepting(key) if n != p.name]
            hint = f"profiles that accept it: {', '.join(accepting)}" if accepting else "remove it"
            setting = p.action("unknown-field")
            if setting.hint:
                hint = f"{setting.hint}; {hint}"
            ev.findings.append(
                Finding(
                    "unknown-field",
                    f"unknown field '{key}' (not defined by {p.title})",
                    line,
                    col,
                    hint,
                )
            )
            continue
        if key in ("name", "description"):
            continue
        _field_type(ev, p, key, kind, value, line, col, pos)
    if p.compatibility_max and isinstance(fm.get("compatibility"), str):
        comp = fm["compatibility"]
        if not comp.strip() or len(comp) > p.compatibility_max:
            line, col = _pos(pos, "compatibility", doc)
            ev.findings.append(
                Finding(
                    "compatibility-invalid",
                    f"compatibility is {len(comp)} characters; allowed 1-{p.compatibility_max}",
                    line,
                    col,
                    "state requirements briefly",
                )
            )
    for key in p.required_metadata:
        meta = fm.get("metadata")
        if not isinstance(meta, dict) or key not in meta:
            line, col = _pos(pos, "metadata", doc)
            ev.findings.append(
                Finding(
                    "required-metadata",
                    f"metadata.{key} is required by {p.title}",
                    line,
                    col,
                    f"add '{key}:' under metadata:",
                )
            )


_TYPE_CHECKS: dict[str, tuple[str, Any]] = {
    "string": ("a string", lambda v: isinstance(v, str)),
    "bool": ("true or false", lambda v: isinstance(v, bool) or v in ("true", "false")),
    "strict-bool": ("true or false, not a string", lambda v: isinstance(v, bool)),
    "map": ("a mapping", lambda v: isinstance(v, dict)),
    "list": ("a list", lambda v: isinstance(v, list)),
    "string-list": (
        "a list of strings",
        lambda v: isinstance(v, list) and all(isinstance(x, str) for x in v),
    ),
    "string-or-list": (
        "a string or a list of strings",
        lambda v: (
            isinstance(v, str) or (isinstance(v, list) and all(isinstance(x, str) for x in v))
        ),
    ),
    "any": ("anything", lambda v: True),
}


def _field_type(
    ev: Evaluation, p: Profile, key: str, kind: str, value: Any, line: int, col: int, pos: dict
) -> None:
    if kind == "enum":
        allowed = p.enums[key]
        if str(value) not in allowed:
            ev.findings.append(
                Finding(
                    "field-value",
                    f"'{key}' is {value!r}; allowed: {', '.join(allowed)}",
                    line,
                    col,
                    f"use one of: {', '.join(allowed)}",
                )
            )
        return
    if kind == "string-map":
        if not isinstance(value, dict):
            ev.findings.append(
                Finding(
                    "metadata-shape",
                    f"'{key}' must be a mapping of strings to strings",
                    line,
                    col,
                    f"write '{key}:' then indented 'key: value' lines",
                )
            )
            return
        for sub, sub_value in value.items():
            if not isinstance(sub_value, str):
                sl, sc = pos.get((key, sub), (line, col))
                ev.findings.append(
                    Finding(
                        "metadata-shape",
                        f"{key}.{sub} is {type_name(sub_value)}, not a string",
                        sl,
                        sc,
                        "quote the value, or join a list into one string",
                    )
                )
        return
    if kind in ("space-list", "comma-list"):
        if isinstance(value, list):
            sep = " " if kind == "space-list" else ", "
            ev.findings.append(
                Finding(
                    "allowed-tools-form" if key == "allowed-tools" else "field-type",
                    f"'{key}' is a YAML list; {p.title} expects one "
                    f"{'space' if kind == 'space-list' else 'comma'}-separated string",
                    line,
                    col,
                    f"write {key}: {sep.join(str(v) for v in value)}",
                )
            )
        elif not isinstance(value, str):
            ev.findings.append(Finding("field-type", f"'{key}' must be a string", line, col))
        elif kind == "space-list" and "," in value and key == "allowed-tools":
            ev.findings.append(
                Finding(
                    "allowed-tools-form",
                    f"'{key}' uses commas; {p.title} separates tools with spaces",
                    line,
                    col,
                    f"write {key}: {' '.join(v.strip() for v in value.split(','))}",
                )
            )
        elif (
            kind == "comma-list" and "," not in value and " " in value.strip() and "(" not in value
        ):
            ev.findings.append(
                Finding(
                    "allowed-tools-form",
                    f"'{key}' uses spaces; {p.title} separates tools with commas",
                    line,
                    col,
                    f"write {key}: {', '.join(value.split())}",
                )
            )
        return
    label, check = _TYPE_CHECKS[kind]
    if not check(value):
        ev.findings.append(
            Finding(
                "field-type",
                f"'{key}' must be {label}, not {type_name(value)} {value!r}"[:200],
                line,
                col,
                f"write '{key}:' as {label}",
            )
        )


def _body(ev: Evaluation, p: Profile, doc: SkillDocument) -> None:
    body = doc.body
    # Same test as `not body.strip()` without copying the body: isspace stops at the first letter.
    if not body or body.isspace():
        if doc.has_frontmatter:
            ev.findings.append(
                Finding(
                    "body-empty",
                    "the skill has no instructions below the frontmatter",
                    doc.body_first_line,
                    1,
                    "write the instructions the model should follow",
                )
            )
        return
    lines = body.count("\n") + 1
    total_lines = doc.body_first_line - 1 + lines
    if p.body_max_lines and total_lines > p.body_max_lines:
        ev.findings.append(
            Finding(
                "body-lines",
                f"SKILL.md has {total_lines:,} lines; guidance: under {p.body_max_lines}",
                doc.body_first_line + p.body_max_lines,
                1,
                "move detail into references/ and link it",
            )
        )
    tokens = (len(body) + 3) // 4
    if p.body_max_tokens and tokens > p.body_max_tokens:
        ev.findings.append(
            Finding(
                "body-tokens",
                f"body is about {tokens:,} tokens (chars / 4); guidance: under {p.body_max_tokens:,}",
                doc.body_first_line,
                1,
                "move detail into references/ and link it",
            )
        )
    skill_dir = os.path.dirname(doc.path)
    # Almost every link is fine, and only a broken one needs a line number. So check the targets
    # of a cheap superset scan first (same capture as _LINK / _REF_DEF, anchored at "](" and "]:")
    # and run the exact, position-tracking body_references only when one of them is a problem.
    quick = quick_targets(body)
    links: dict[str, bool] = {}
    seen = {t: check_reference(skill_dir, t, links) for t in quick}
    # A backtick inside a target means inline code may cut it differently: take the exact path.
    if not any(seen.values()) and not any("`" in t for t in quick):
        return
    for target, i, col in body_references(body):
        if target not in seen:
            seen[target] = check_reference(skill_dir, target, links)
        problem = seen[target]
        if problem:
            rule, message, hint = problem
            ev.findings.append(Finding(rule, message, doc.body_first_line + i, col + 1, hint))


def _mentioned_files(
    ev: Evaluation, fm: dict[str, Any], yml: YamlResult | None, doc: SkillDocument
) -> None:
    """A file of the skill that inline code or allowed-tools names and that is not there."""
    skill_dir = os.path.dirname(doc.path)
    seen: dict[str, bool] = {}

    def missing(path: str) -> bool:
        if path not in seen:
            seen[path] = not os.path.lexists(os.path.join(skill_dir, *path.split("/")))
        return seen[path]

    tools = fm.get("allowed-tools")
    texts = tools if isinstance(tools, list) else [tools] if isinstance(tools, str) else []
    line, col = yml.key_positions.get(("allowed-tools",), (1, 1)) if yml else (1, 1)
    for text in texts:
        for path, _at in mentioned_files(str(text)):
            if missing(path):
                ev.findings.append(
                    Finding(
                        "mentioned-file-missing",
                        f"allowed-tools names '{path}', which is not in the skill folder",
                        line,
                        col,
                        "add the file, or fix the path in allowed-tools",
                    )
                )
    if "`" not in doc.body:
        return
    first: dict[str, tuple[int, int]] = {}  # a missing path: where it is first named
    times: dict[str, int] = {}
    for i, body_line in enumerate(doc.body.split("\n")):
        if "`" not in body_line:
            continue
        for code in INLINE_CODE.finditer(body_line):
            for path, at in mentioned_files(code.group(1)):
                if missing(path):
                    first.setdefault(path, (doc.body_first_line + i, code.start(1) + at + 1))
                    times[path] = times.get(path, 0) + 1
    for path, (line, col) in first.items():
        again = f" (named {times[path]} times)" if times[path] > 1 else ""
        ev.findings.append(
            Finding(
                "mentioned-file-missing",
                f"'{path}' is named in the instructions but is not in the skill folder{again}",
                line,
                col,
                "add the file, or fix the path",
            )
        )
