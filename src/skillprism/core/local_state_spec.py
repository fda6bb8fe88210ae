"""The user's own runtime state a profile describes, as data: where a runtime records how often each
skill was used and how it weighs that (`[usage]`), and the setting that turns one skill off
(`[toggle]`). Parsed from the profile (docs/profiles.md); `disclosure_spec.parse_disclosure` calls
`parse_local_state`. Reading lives in core/usage.py, writing in core/toggle.py.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Protocol

USAGE_FORMATS = ("json",)
TIME_UNITS = ("ms", "s")
# How a runtime's disable setting is shaped (each a small writer in core/toggle.py):
#   path-entries: a TOML array of tables, one per skill file, `{ path = ..., enabled = false }`
#   name-map: a JSON object keyed by skill name whose value turns the skill off
#   name-list: a JSON array of the names of skills turned off
#   none: the runtime has no such setting (the profile's note says what to do instead)
TOGGLE_FORMS = ("path-entries", "name-map", "name-flag", "name-list", "none")
TOGGLE_FORMATS = ("toml", "json", "yaml")
EVIDENCE = ("lab", "code", "docs", "none")


class _Table(Protocol):
    data: Any

    def get(self, k: str, kind: Any, default: Any = ..., choices: tuple = ()) -> Any: ...
    def table(self, k: str) -> _Table: ...
    def fail(self, k: str, msg: str) -> Exception: ...
    def check_unknown(self) -> None: ...


@dataclass(frozen=True, slots=True)
class UsageSpec:
    """Where the runtime keeps per-skill usage and how it turns it into a priority:
    `count x max(0.5 ** (days since last use / half_life_days), floor)`; a skill without a record
    scores 0. `file` is a path template (core/roots.expand_template); `key` a dotted key in it
    holding a map of skill name to a record with `count_field` and `time_field`."""

    file: str = ""
    format: str = "json"
    key: str = ""
    count_field: str = "usageCount"
    time_field: str = "lastUsedAt"
    time_unit: str = "ms"
    half_life_days: float = 7.0
    floor: float = 0.1
    source: str = ""

    @property
    def present(self) -> bool:
        return bool(self.file)


@dataclass(frozen=True, slots=True)
class ToggleSpec:
    """The runtime's own setting that keeps one skill out of its listing without deleting it.
    `form` says how the entry is shaped (TOGGLE_FORMS); `key` is the dotted key of the array or
    map in `file`; `off_value` what a name-map entry is set to. `entry` is what a name-list holds
    for one skill: `{name}` (matched case-insensitively) or a template with `{dir}`, the skill's
    folder (matched exactly, pi's `-<path>`); `fold_case` false when the runtime matches names
    exactly (Hermes Agent). A name-flag sets `flag` to false in an object per skill at `key`
    (OpenClaw's skills.entries.<name>.enabled). `project_file`, when given, is the file written for a
    skill inside the project (a runtime whose user file applies to user skills only). `evidence`:
    where it was checked (lab: the runtime's own loader in the conformance lab; code: read in its
    source; docs)."""

    form: str = "none"
    file: str = ""
    project_file: str = ""
    entry: str = "{name}"
    fold_case: bool = True
    flag: str = ""
    format: str = "toml"
    key: str = ""
    off_value: str = ""
    evidence: str = "none"
    source: str = ""
    note: str = ""

    @property
    def present(self) -> bool:
        return self.form != "none"


def _number(t: _Table, key: str, default: float, *, low: float, high: float) -> float:
    value = t.get(key, (int, float), default)
    if isinstance(value, bool) or not low <= float(value) <= high:
        raise t.fail(key, f"expected a number from {low} to {high}")
    return float(value)


def parse_usage(t: _Table) -> UsageSpec:
    if not t.data:
        return UsageSpec()
    spec = UsageSpec(
        file=t.get("file", str),
        format=t.get("format", str, "json", USAGE_FORMATS),
        key=t.get("key", str),
        count_field=t.get("count_field", str, "usageCount"),
        time_field=t.get("time_field", str, "lastUsedAt"),
        time_unit=t.get("time_unit", str, "ms", TIME_UNITS),
        half_life_days=_number(t, "half_life_days", 7.0, low=0.001, high=3650),
        floor=_number(t, "floor", 0.1, low=0, high=1),
        source=t.get("source", str),
    )
    t.check_unknown()
    if not spec.file or not spec.key:
        raise t.fail("file" if not spec.file else "key", "must not be empty")
    return spec


def parse_toggle(t: _Table) -> ToggleSpec:
    if not t.data:
        return ToggleSpec()
    form = t.get("form", str, "none", TOGGLE_FORMS)
    spec = ToggleSpec(
        form=form,
        file=t.get("file", str, ""),
        project_file=t.get("project_file", str, ""),
        entry=t.get("entry", str, "{name}"),
        fold_case=t.get("fold_case", bool, True),
        flag=t.get("flag", str, ""),
        format=t.get("format", str, "toml", TOGGLE_FORMATS),
        key=t.get("key", str, ""),
        off_value=t.get("off_value", str, ""),
        evidence=t.get("evidence", str, "none", EVIDENCE),
        source=t.get("source", str, ""),
        note=t.get("note", str, ""),
    )
    t.check_unknown()
    if spec.present:
        for key in ("file", "key", "source"):
            if not getattr(spec, key):
                raise t.fail(key, f"is required when form = {form!r}")
        if spec.format == "yaml" and form != "name-list":
            raise t.fail("format", "only a name-list is written to a YAML file")
        if form == "path-entries" and spec.format != "toml":
            raise t.fail("format", "path-entries are written to a TOML file")
        if form == "name-flag" and (spec.format != "json" or not spec.flag):
            raise t.fail("flag", "a name-flag is a JSON object per skill and needs the flag")
        if form == "name-map" and (spec.format != "json" or not spec.off_value):
            raise t.fail("off_value", "a name-map is a JSON object and needs the value to set")
        if spec.entry != "{name}" and (
            form != "name-list" or re.sub(r"\{name\}|\{dir\}", "", spec.entry).count("{")
        ):
            raise t.fail("entry", "a name-list entry template with {name} or {dir} only")
    elif not spec.note:
        raise t.fail("note", "say why the runtime has no setting and what to do instead")
    return spec
