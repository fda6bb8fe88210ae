"""Turning one skill off or on through a runtime's own setting, as a planned text change.

Which setting, in which file and of which shape, is profile data (`[toggle]`,
core/local_state_spec.py). This module only computes the new text of that file from its current
text, changing as little as it can: TOML through tomlkit (comments, order and formatting kept),
JSON by inserting or replacing one member in place (comments, order and indentation of the rest
kept), YAML through ruamel.yaml's round trip (comments, order and quoting kept). Nothing is written here: the app layer writes a `ToggleChange` (and undoes it), refusing
when the file changed after it was read.
"""

from __future__ import annotations

import difflib
import itertools
import json
import os
import re
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from skillprism.core.document import read_bytes_safely
from skillprism.core.local_state_spec import ToggleSpec
from skillprism.core.roots import expand_template

MAX_CONFIG_BYTES = 4 * 1024 * 1024


class ToggleError(ValueError):
    """The change cannot be planned; the message says what, where and what to do."""


@dataclass(frozen=True, slots=True)
class ToggleChange:
    """The planned change of one settings file: its text `before` (None: the file does not
    exist) and `after`. `entry` says what was set, for a message."""

    path: str
    before: str | None
    after: str | None
    entry: str

    @property
    def changed(self) -> bool:
        return self.before != self.after

    def diff(self) -> str:
        return "".join(
            difflib.unified_diff(
                (self.before or "").splitlines(keepends=True),
                (self.after or "").splitlines(keepends=True),
                fromfile=self.path if self.before is not None else "/dev/null",
                tofile=self.path,
            )
        )


def read_text(path: str) -> str | None:
    """The file's text (None when there is none); ToggleError when it cannot be read."""
    if not os.path.lexists(path):
        return None
    raw, _st, problem = read_bytes_safely(path, MAX_CONFIG_BYTES)
    if problem is not None or raw is None:
        raise ToggleError(f"{path}: {problem.message if problem else 'cannot read the file'}")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ToggleError(f"{path}: not UTF-8 text; fix or remove it first") from None


def plan_toggle(
    spec: ToggleSpec,
    *,
    name: str,
    skill_file: str,
    enable: bool,
    project: str,
    home: str,
    env: Mapping[str, str],
    profile_title: str = "",
) -> ToggleChange:
    """The change that turns the skill `name` (its SKILL.md at `skill_file`) off, or back on, in
    the runtime's own settings file."""
    return plan_toggles(
        spec,
        [(name, skill_file)],
        enable=enable,
        project=project,
        home=home,
        env=env,
        profile_title=profile_title,
    )


def plan_toggles(
    spec: ToggleSpec,
    skills: Sequence[tuple[str, str]],
    *,
    enable: bool,
    project: str,
    home: str,
    env: Mapping[str, str],
    profile_title: str = "",
) -> ToggleChange:
    """The one change of the runtime's own settings file that turns every skill of `skills`
    ((name, SKILL.md path) pairs) off, or back on: the budget advisor's disable plan is written
    (and undone) as one change."""
    who = profile_title or "this runtime"
    if not spec.present:
        raise ToggleError(f"Skill Prism cannot turn one skill off for {who}: {spec.note}")
    if not skills:
        raise ToggleError("no skill to turn " + ("on" if enable else "off"))
    path = expand_template(_file_for(spec, skills, project), project, home, env)
    before = read_text(path)
    after = before
    if spec.form == "path-entries":
        targets = [os.path.realpath(f) for _n, f in skills]
        after = _toml_path_entries(before or "", spec.key, targets, enable, path)
        entries = [
            f"{spec.key}: path = {t}, enabled = {'true' if enable else 'false'}" for t in targets
        ]
    elif spec.form == "name-list":
        values = [_entry(spec.entry, n, f) for n, f in skills]
        fold = spec.fold_case and spec.entry == "{name}"  # a path is matched exactly
        if spec.format == "toml":
            after = _toml_name_list(before, spec.key, values, not enable, path, fold)
        elif spec.format == "yaml":
            after = _yaml_name_list(before, spec.key, values, not enable, path, fold)
        else:
            for value in values:
                after = _json_name_list(after, spec.key, value, not enable, path, fold)
        entries = [f"{spec.key}: {v} " + ("removed" if enable else "added") for v in values]
    elif spec.form == "name-flag":
        for name, _f in skills:
            after = _json_name_flag(after, spec.key, name, spec.flag, not enable, path)
        entries = [
            f"{spec.key}.{n}.{spec.flag} " + ("removed" if enable else "= false")
            for n, _f in skills
        ]
    else:
        for name, _f in skills:
            after = _json_name_map(after, spec.key, name, None if enable else spec.off_value, path)
        entries = [
            f"{spec.key}.{n} removed" if enable else f"{spec.key}.{n} = {spec.off_value!r}"
            for n, _f in skills
        ]
    if before is None and enable:
        after = None  # nothing to turn back on: the file stays absent
    entry = entries[0] if len(entries) == 1 else f"{len(entries)} skills: " + "; ".join(entries)
    return ToggleChange(path, before, after, entry)


def _entry(template: str, name: str, skill_file: str) -> str:
    """What a name-list holds for one skill: its name, or its folder's path in a template."""
    return template.replace("{dir}", os.path.dirname(os.path.abspath(skill_file))).replace(
        "{name}", name
    )


def _file_for(spec: ToggleSpec, skills: Sequence[tuple[str, str]], project: str) -> str:
    """The settings file to write: the project's own for skills inside the project when the
    runtime reads the user's file for user skills only (pi), else the one file."""
    if not spec.project_file:
        return spec.file
    inside = [_within(f, project) for _n, f in skills]
    if all(inside):
        return spec.project_file
    if any(inside):
        raise ToggleError(
            "the runtime reads the user's settings for user skills and the project's for the "
            "project's skills: turn the project's skills off separately"
        )
    return spec.file


def _within(path: str, folder: str) -> bool:
    path, folder = os.path.abspath(path), os.path.abspath(folder)
    return os.path.commonpath([path, folder]) == folder


# --- TOML: an array of tables with path and enabled (Codex's [[skills.config]]) --------------


def _toml_path_entries(
    text: str, key: str, targets: Sequence[str], enable: bool, where: str
) -> str:
    import tomlkit
    from tomlkit.exceptions import TOMLKitError
    from tomlkit.items import AoT, InlineTable

    try:
        doc = tomlkit.parse(text)
    except (TOMLKitError, ValueError, RecursionError) as err:
        why = " ".join(str(err).split())
        raise ToggleError(f"{where}: not valid TOML ({why}); fix it first") from None
    *parents, last = key.split(".")
    table: Any = doc
    for part in parents:
        if part not in table:
            if enable:
                return text
            table.append(part, tomlkit.table(is_super_table=True))
        table = table[part]
        if not isinstance(table, dict):
            raise ToggleError(f"{where}: {part} is not a table; cannot add {key} entries")
        if isinstance(table, InlineTable):
            raise ToggleError(
                f"{where}: {part} is an inline table ({part} = {{...}}); write it as [{part}] "
                "to let Skill Prism add entries, or edit the file by hand"
            )
    entries = table.get(last)
    if entries is not None and not isinstance(entries, AoT):
        raise ToggleError(
            f"{where}: {key} is not an array of tables ([[{key}]] blocks); edit the file by hand"
        )
    wanted = set(targets)
    found = [
        i
        for i, e in enumerate(entries or [])
        if isinstance(e.get("path"), str) and os.path.realpath(e["path"]) in wanted
    ]
    if enable:
        for i in reversed(found):
            if set(entries[i]) <= {"path", "enabled"}:
                del entries[i]
            else:
                entries[i]["enabled"] = True
        if entries is not None and not entries:
            del table[last]
            if len(parents) == 1 and not table:
                del doc[parents[0]]
    else:
        have = set()
        for i in found:
            entries[i]["enabled"] = False
            have.add(os.path.realpath(entries[i]["path"]))
        for target in dict.fromkeys(targets):
            if target in have:
                continue
            new = tomlkit.table()
            new.add("path", target)
            new.add("enabled", False)
            if entries is None:
                entries = tomlkit.aot()
                entries.append(new)
                table.append(last, entries)
                entries = table[last]
            else:
                entries.append(new)
    out = tomlkit.dumps(doc)
    out = out if out.endswith("\n") or not out else out + "\n"
    try:
        tomllib.loads(out)  # never write what the runtime could not read
    except (tomllib.TOMLDecodeError, RecursionError):
        raise ToggleError(f"{where}: cannot add the entry without breaking the file") from None
    return out


def _toml_name_list(
    text: str | None, key: str, names: Sequence[str], add: bool, where: str, fold: bool = True
) -> str | None:
    """`text` with `names` added to (or every case-insensitive spelling of them removed from) the
    array at dotted `key` of a TOML file (Mistral Vibe's disabled_skills), created as needed;
    comments, order and formatting of the rest kept (tomlkit)."""
    import tomlkit
    from tomlkit.exceptions import TOMLKitError
    from tomlkit.items import Array

    if text is None and not add:
        return None
    try:
        doc = tomlkit.parse(text or "")
    except (TOMLKitError, ValueError, RecursionError) as err:
        why = " ".join(str(err).split())
        raise ToggleError(f"{where}: not valid TOML ({why}); fix it first") from None
    *parents, last = key.split(".")
    table: Any = doc
    for part in parents:
        if part not in table:
            if not add:
                return text
            table.append(part, tomlkit.table())
        table = table[part]
        if not isinstance(table, dict):
            raise ToggleError(f"{where}: {part} is not a table; cannot set {key}")
    items = table.get(last)
    if items is not None and not isinstance(items, Array):
        raise ToggleError(f"{where}: {key} is not a list of skill names; edit the file by hand")

    def norm(value: str) -> str:
        return value.lower() if fold else value

    lowered = {norm(n) for n in names}
    if add:
        have = {norm(str(v)) for v in items or [] if isinstance(v, str)}
        new = [n for n in dict.fromkeys(names) if norm(n) not in have]
        if not new:
            return text
        if items is None:
            table[last] = tomlkit.array()
            items = table[last]
        for name in new:
            items.append(name)
    else:
        if items is None:
            return text
        for i in reversed(range(len(items))):
            if isinstance(items[i], str) and norm(str(items[i])) in lowered:
                del items[i]
    out = tomlkit.dumps(doc)
    out = out if out.endswith("\n") or not out else out + "\n"
    try:
        tomllib.loads(out)  # never write what the runtime could not read
    except (tomllib.TOMLDecodeError, RecursionError):
        raise ToggleError(f"{where}: cannot change {key} without breaking the file") from None
    return out


# --- JSON: one member of an object keyed by skill name (Claude Code's skillOverrides) ---------

_WS = re.compile(r"(?:\s+|//[^\n]*|/\*.*?\*/)*", re.S)
_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"')


class _Scanner:
    """Finds the text span of each member of a JSON (with comments) object, without changing a
    byte of what it does not touch."""

    def __init__(self, text: str, where: str) -> None:
        self.text, self.where = text, where

    def fail(self, at: int, what: str) -> ToggleError:
        line = self.text.count("\n", 0, at) + 1
        return ToggleError(f"{self.where}: line {line}: {what}; fix the file first")

    def string(self, quoted: str, at: int) -> str:
        try:
            return json.loads(quoted)
        except ValueError:
            raise self.fail(at, "a string with a broken escape") from None

    def ws(self, i: int) -> int:
        m = _WS.match(self.text, i)
        return m.end() if m else i

    def value_end(self, i: int, depth: int = 0) -> int:
        if depth > 200:
            raise self.fail(i, "nested too deeply")
        t = self.text
        if i >= len(t):
            raise self.fail(i, "unexpected end")
        c = t[i]
        if c == '"':
            m = _STRING.match(t, i)
            if not m:
                raise self.fail(i, "unterminated string")
            return m.end()
        if c in "{[":
            close = "}" if c == "{" else "]"
            j = self.ws(i + 1)
            if j < len(t) and t[j] == close:
                return j + 1
            while True:
                if c == "{":
                    m = _STRING.match(t, j)
                    if not m:
                        raise self.fail(j, "expected a quoted key")
                    j = self.ws(m.end())
                    if j >= len(t) or t[j] != ":":
                        raise self.fail(j, "expected ':'")
                    j = self.ws(j + 1)
                j = self.ws(self.value_end(j, depth + 1))
                if j < len(t) and t[j] == ",":
                    j = self.ws(j + 1)
                    if j < len(t) and t[j] == close:  # a trailing comma (JSONC)
                        return j + 1
                    continue
                if j < len(t) and t[j] == close:
                    return j + 1
                raise self.fail(j, f"expected ',' or '{close}'")
        m = re.compile(r"-?[0-9.eE+\-]+|true|false|null").match(t, i)
        if not m:
            raise self.fail(i, "not a JSON value")
        return m.end()

    def members(self, start: int) -> tuple[list[tuple[str, int, int, int, int]], int]:
        """The members of the object at `start`: (key, key start, value start, value end,
        end incl. a following comma) and the index of its closing brace."""
        t = self.text
        out = []
        j = self.ws(start + 1)
        while j < len(t) and t[j] != "}":
            m = _STRING.match(t, j)
            if not m:
                raise self.fail(j, "expected a quoted key")
            key = self.string(m.group(0), j)
            v = self.ws(self.ws(m.end()) + 1)
            end = self.value_end(v)
            k = self.ws(end)
            after = k + 1 if k < len(t) and t[k] == "," else end
            out.append((key, j, v, end, after))
            j = self.ws(after) if after != end else k
        if j >= len(t):
            raise self.fail(j, "unterminated object")
        return out, j


def _elements(scan: _Scanner, start: int) -> tuple[list[tuple[int, int, int]], int]:
    """The elements of the array at `start`: (start, end, end incl. a following comma) and the
    index of its closing bracket."""
    t = scan.text
    out = []
    j = scan.ws(start + 1)
    while j < len(t) and t[j] != "]":
        end = scan.value_end(j)
        k = scan.ws(end)
        after = k + 1 if k < len(t) and t[k] == "," else end
        out.append((j, end, after))
        j = scan.ws(after) if after != end else k
    if j >= len(t):
        raise scan.fail(j, "unterminated array")
    return out, j


def _object_at(scan: _Scanner, parts: list[str]) -> tuple[int, list[str]]:
    """The deepest existing object along `parts` from the root (its start) and the parts left
    to create below it; ToggleError when a part exists but is not an object."""
    text = scan.text
    root = scan.ws(0)
    if root >= len(text) or text[root] != "{":
        raise scan.fail(root, "the settings are not a JSON object")
    end = scan.ws(scan.value_end(root))
    if end != len(text):
        raise scan.fail(end, "text after the settings object")
    obj = root
    for i, part in enumerate(parts):
        members, _close = scan.members(obj)
        hit = next((m for m in members if m[0] == part), None)
        if hit is None:
            return obj, parts[i:]
        if text[hit[2]] != "{":
            raise scan.fail(hit[2], f"{'.'.join(parts[: i + 1])} is not an object")
        obj = hit[2]
    return obj, []


def _nested(parts: list[str], leaf: str) -> str:
    """`{"a": {"b": leaf}}` for parts [a, b] (leaf is JSON text)."""
    out = leaf
    for part in reversed(parts[1:]):
        out = "{" + json.dumps(part) + ": " + out + "}"
    return out


def _indent_of(text: str, at: int) -> str:
    line_start = text.rfind("\n", 0, at) + 1
    return re.match(r"[ \t]*", text[line_start:]).group(0)


def _insert_member(text: str, scan: _Scanner, obj: int, key: str, value: str) -> str:
    """`text` with `"key": value` added as the last member of the object at `obj`, laid out like
    its siblings (one per line, same indent) or, in an empty object, on its own line."""
    members, close = scan.members(obj)
    item = f"{json.dumps(key)}: {value}"
    if not members:
        outer = _indent_of(text, obj)
        return text[: obj + 1] + "\n" + outer + "  " + item + "\n" + outer + text[close:]
    last = members[-1]
    lead = "\n" + _indent_of(text, last[1]) if "\n" in text[obj : last[1]] else " "
    if last[4] != last[3]:  # the last member already ends in a comma (JSONC)
        return text[: last[4]] + lead + item + "," + text[last[4] :]
    return text[: last[3]] + "," + lead + item + text[last[3] :]


def _remove_member(text: str, members: list, index: int, close: int, obj: int) -> str:
    """`text` without member `index` of the object at `obj` (closing brace at `close`)."""
    _key, start, _v, end, after = members[index]
    if len(members) == 1:
        return text[: obj + 1] + text[close:]
    if after != end:  # followed by a comma: remove its line (or just it, when inline)
        line = text.rfind("\n", 0, start) + 1
        if text[line:start].strip() == "":
            start = line
            stop = re.compile(r"[ \t]*\n?").match(text, after).end()
        else:
            stop = re.compile(r"[ \t]*").match(text, after).end()
        return text[:start] + text[stop:]
    prev = members[index - 1]  # the last member: the comma before it goes
    return text[: prev[3]] + text[end:]


def _json_name_map(
    before: str | None, key: str, name: str, value: object, where: str
) -> str | None:
    """`before` with `name` set to `value` in the object at dotted `key` (None: the member
    removed), objects created as needed."""
    parts = key.split(".")
    if before is None or not before.strip():
        if value is None:
            return before
        return json.dumps(_build(parts, {name: value}), indent=2) + "\n"
    scan = _Scanner(before, where)
    obj, missing = _object_at(scan, parts)
    if missing:
        if value is None:
            return before
        leaf = _nested(missing, json.dumps({name: value}))
        return _insert_member(before, scan, obj, missing[0], leaf)
    inner, close = scan.members(obj)
    mine = next((m for m in inner if m[0] == name), None)
    if value is None:
        if mine is None:
            return before
        return _remove_member(before, inner, inner.index(mine), close, obj)
    if mine is not None:
        return before[: mine[2]] + json.dumps(value) + before[mine[3] :]
    return _insert_member(before, scan, obj, name, json.dumps(value))


# --- JSON: a false flag in an object per skill (OpenClaw's skills.entries.<name>.enabled) ------


def _json_name_flag(
    before: str | None, key: str, name: str, flag: str, off: bool, where: str
) -> str | None:
    """`before` with `flag` = false in the object at `key`.<name> (created as needed), or
    without that member (and without the object when nothing else is in it)."""
    if "." in name:
        raise ToggleError(f"{where}: cannot address a skill named {name!r} (it holds a '.')")
    entry = f"{key}.{name}"
    if off:
        return _json_name_map(before, entry, flag, False, where)
    if before is None or not before.strip():
        return before
    scan = _Scanner(before, where)
    obj, missing = _object_at(scan, entry.split("."))
    if missing:
        return before
    members, _close = scan.members(obj)
    if not any(m[0] == flag for m in members):
        return before
    if len(members) == 1:  # only the flag: the entry goes
        return _json_name_map(before, key, name, None, where)
    return _json_name_map(before, entry, flag, None, where)


# --- JSON: a list of skill names at a dotted key (Qwen Code's skills.disabled) ----------------


def _json_name_list(
    before: str | None, key: str, name: str, add: bool, where: str, fold: bool = True
) -> str | None:
    """`before` with `name` added to (or every case-insensitive spelling of it, `fold`, removed
    from) the array at dotted `key`, created as needed."""
    parts = key.split(".")
    if before is None or not before.strip():
        if not add:
            return before
        return json.dumps(_build(parts, [name]), indent=2) + "\n"
    scan = _Scanner(before, where)
    *parents, last = parts
    obj, missing = _object_at(scan, parents)
    if missing:
        if not add:
            return before
        leaf = _nested([*missing, last], json.dumps([name]))
        return _insert_member(before, scan, obj, missing[0], leaf)
    members, _close = scan.members(obj)
    hit = next((m for m in members if m[0] == last), None)
    if hit is None:
        return _insert_member(before, scan, obj, last, json.dumps([name])) if add else before
    if before[hit[2]] != "[":
        raise scan.fail(hit[2], f"{key} is not a list of skill names")
    elements, close = _elements(scan, hit[2])
    values = [
        scan.string(before[a:b], a) if _STRING.fullmatch(before[a:b]) else None
        for a, b, _ in elements
    ]
    same = [
        i
        for i, v in enumerate(values)
        if isinstance(v, str) and (v.lower() == name.lower() if fold else v == name)
    ]
    if add:
        if same:
            return before
        item = json.dumps(name)
        if not elements:
            return before[: hit[2] + 1] + item + before[close:]
        a, b, after = elements[-1]
        if after != b:
            return before[:after] + " " + item + "," + before[after:]
        return before[:b] + ", " + item + before[b:]
    text = before
    for i in reversed(same):
        elements, close = _elements(_Scanner(text, where), hit[2])
        a, b, after = elements[i]
        if len(elements) == 1:
            text = text[: hit[2] + 1] + text[close:]
        elif after != b:
            text = text[:a] + text[re.compile(r"\s*").match(text, after).end() :]
        else:
            text = text[: elements[i - 1][1]] + text[b:]
    return text


def _build(parts: list[str], leaf: object) -> dict:
    out: object = leaf
    for part in reversed(parts):
        out = {part: out}
    return out  # type: ignore[return-value]


# --- YAML: a list of skill names at a dotted key (Hermes Agent's skills.disabled) ------------


def _yaml_name_list(
    text: str | None, key: str, names: Sequence[str], add: bool, where: str, fold: bool = True
) -> str | None:
    """`text` with `names` added to (or every case-insensitive spelling of them, `fold`, removed
    from) the sequence at dotted `key` of a YAML mapping, created as needed; comments, order,
    quoting and the indentation found in the file kept (ruamel.yaml's round trip)."""
    import io

    import yaml as pyyaml
    from ruamel.yaml import YAML
    from ruamel.yaml.comments import CommentedMap, CommentedSeq
    from ruamel.yaml.error import YAMLError

    if text is None and not add:
        return None
    rt = YAML(typ="rt")
    rt.preserve_quotes = True
    rt.width = 1 << 16  # never re-wrap the user's long lines
    rt.indent(**_yaml_indent(text or ""))
    try:
        doc = rt.load(text or "")
    except (YAMLError, ValueError, RecursionError) as err:
        why = " ".join(str(err).split())[:300]
        raise ToggleError(f"{where}: not valid YAML ({why}); fix it first") from None
    if doc is None:
        if not add:
            return text
        doc = CommentedMap()
    if not isinstance(doc, dict):
        raise ToggleError(f"{where}: the settings are not a YAML mapping; fix the file first")
    *parents, last = key.split(".")
    table: Any = doc
    for part in parents:
        if table.get(part) is None:
            if not add:
                return text
            table[part] = CommentedMap()
        table = table[part]
        if not isinstance(table, dict):
            raise ToggleError(f"{where}: {part} is not a mapping; cannot set {key}")
    items = table.get(last)
    if items is not None and not isinstance(items, list):
        raise ToggleError(f"{where}: {key} is not a list of skill names; edit the file by hand")

    def norm(value: str) -> str:
        return value.lower() if fold else value

    wanted = {norm(n) for n in names}
    if add:
        have = {norm(v) for v in items or [] if isinstance(v, str)}
        new = [n for n in dict.fromkeys(names) if norm(n) not in have]
        if not new:
            return text
        if items is None:
            table[last] = items = CommentedSeq()
        items.extend(new)
    else:
        gone = [i for i, v in enumerate(items or []) if isinstance(v, str) and norm(v) in wanted]
        if not gone:
            return text
        for i in reversed(gone):
            del items[i]
    buf = io.StringIO()
    try:
        rt.dump(doc, buf)
    except (YAMLError, ValueError, RecursionError) as err:
        why = " ".join(str(err).split())[:300]
        raise ToggleError(f"{where}: cannot change {key} ({why}); edit the file by hand") from None
    out = buf.getvalue()
    try:  # never write what the runtime could not read, nor a list it reads otherwise
        check: Any = pyyaml.safe_load(out)
        for part in key.split("."):
            check = check[part]
        got = {norm(v) for v in check if isinstance(v, str)}
    except (pyyaml.YAMLError, TypeError, KeyError, RecursionError):
        got = None
    if got is None or (wanted <= got) != add or (not add and wanted & got):
        raise ToggleError(f"{where}: cannot change {key} without breaking the file") from None
    return out


def _yaml_indent(text: str) -> dict[str, int]:
    """The block indentation the file uses (the first nested key's step; the first list item's
    dash offset under its key), so the round trip re-emits it as it was."""
    mapping = offset = None
    lines = [ln for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    for prev, line in itertools.pairwise(lines):
        key = re.match(r"( *)(?:- )?[^\s#-][^#]*:[ \t]*(?:#.*)?$", prev)
        item = re.match(r"( *)(- )?", line)
        if not key or not item:
            continue
        step = len(item.group(1)) - len(key.group(1)) - (2 if prev.lstrip().startswith("- ") else 0)
        if item.group(2) and offset is None and step >= 0:
            offset = step
        elif not item.group(2) and mapping is None and step > 0:
            mapping = step
    mapping = mapping or 2
    offset = offset or 0
    return {"mapping": mapping, "sequence": offset + 2, "offset": offset}
