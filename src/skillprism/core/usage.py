"""The skill usage a runtime records locally, read the way that runtime weighs it.

Where the record lives and how it is weighed is profile data (`[usage]`, core/local_state_spec.py):
for Claude Code 2.1.330, `skillUsage` in `~/.claude.json`, each skill `{usageCount, lastUsedAt}`
(milliseconds), priority `usageCount x max(0.5 ** (days since last use / 7), 0.1)` (function `deo`
in the binary). The file is only read, never written and never sent anywhere. The clock is an
argument, so "today" is the caller's choice (and a test's).

A missing file means no usage (every priority 0, as for a fresh install); an unreadable, damaged
or oversized file, or records of the wrong shape, give one-line problems and no priorities from
what could not be read.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from skillprism.core.local_state_spec import UsageSpec
from skillprism.core.roots import expand_template
from skillprism.core.structured import StructuredError, read_structured

# A real ~/.claude.json keeps per-project history beside the usage map and grows to a few MiB;
# past this it is not read (a clear problem, no priorities) rather than held in memory whole.
MAX_USAGE_BYTES = 32 * 1024 * 1024
DAY_MS = 86_400_000


@dataclass(frozen=True, slots=True)
class UsageRecord:
    """One skill's record: how often it was used, when last (milliseconds since the epoch, as
    the runtime stores it) and the priority the runtime gives it at the caller's `now`."""

    name: str
    count: float
    last_used_ms: float
    days_since: float
    priority: float

    def to_json(self) -> dict[str, Any]:
        return {
            "count": self.count,
            "last_used_ms": self.last_used_ms,
            "days_since_use": round(self.days_since, 3),
            "priority": self.priority,
        }


@dataclass(frozen=True, slots=True)
class LocalUsage:
    """What was read: `path` (empty when the profile names none), `state` ("none": the runtime
    records no usage; "missing": no file; "read"; "unreadable"), the records by skill name and
    problems, each a sentence naming the file."""

    path: str = ""
    state: str = "none"
    records: Mapping[str, UsageRecord] = field(default_factory=dict)
    problems: tuple[str, ...] = ()

    def priorities(self) -> dict[str, float]:
        return {name: r.priority for name, r in self.records.items()}

    def summary(self) -> str:
        """One line for a 'settings applied' list."""
        if self.state == "read":
            return f"{self.path}: usage of {len(self.records)} skill(s) (read only)"
        if self.state == "unreadable":
            return f"{self.path}: usage not read (see the warning)"
        return ""


def priority(count: float, last_used_ms: float, now_ms: float, spec: UsageSpec) -> float:
    """`count x max(0.5 ** (days / half_life), floor)`, days as a fraction (not rounded), as the
    runtime computes it; a last use in the future weighs more than 1 there too."""
    days = (now_ms - last_used_ms) / DAY_MS
    try:
        decay = math.pow(0.5, days / spec.half_life_days)
    except OverflowError:  # a last use far in the future: JavaScript's Math.pow gives Infinity
        decay = math.inf
    return count * max(decay, spec.floor)


def _lookup(data: Any, dotted: str) -> Any:
    for part in dotted.split("."):
        if not isinstance(data, dict) or part not in data:
            return None
        data = data[part]
    return data


def _finite(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _signature(path: str) -> tuple[int, int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_mtime_ns, st.st_size, st.st_ino


def _load(path: str, spec: UsageSpec) -> tuple[str, Mapping[str, Any], tuple[str, ...]]:
    """The file's usage map as stored: (state, the map, problems)."""
    try:
        data = read_structured(path, spec.format, cap=MAX_USAGE_BYTES)
    except StructuredError as err:
        return (
            "unreadable",
            {},
            (
                f"{path}: {err}; skill usage not read, so every priority counts as 0 "
                "(the runtime itself may fail to start or reset the file)",
            ),
        )
    table = _lookup(data, spec.key)
    if table is None:
        return "read", {}, ()
    if not isinstance(table, dict):
        return (
            "unreadable",
            {},
            (f"{path}: {spec.key} is not a map of skill name to record; ignored",),
        )
    return "read", table, ()


def read_usage(
    spec: UsageSpec,
    *,
    project: str,
    home: str,
    env: Mapping[str, str],
    now: float,
    memo: dict[tuple[str, str], Any] | None = None,
) -> LocalUsage:
    """The usage `spec` describes, weighed at `now` (seconds since the epoch). `memo` (a dict
    the caller keeps) holds what was read until the file changes, so a budget recomputed for
    every move of a slider does not parse a large file again: only the weighing is redone."""
    if not spec.present:
        return LocalUsage()
    path = expand_template(spec.file, project, home, env)
    if not os.path.lexists(path):
        return LocalUsage(path, "missing")
    sig = _signature(path)
    hit = memo.get((path, spec.key)) if memo is not None else None
    if hit is not None and sig is not None and hit[0] == sig:
        state, table, problems = hit[1]
    else:
        state, table, problems = _load(path, spec)
        if memo is not None:
            memo[(path, spec.key)] = (sig, (state, table, problems))
    if state != "read":
        return LocalUsage(path, state, problems=problems)
    unit = 1000.0 if spec.time_unit == "s" else 1.0
    now_ms = now * 1000.0
    records: dict[str, UsageRecord] = {}
    bad: list[str] = []
    for name, raw in table.items():
        count = raw.get(spec.count_field) if isinstance(raw, dict) else None
        last = raw.get(spec.time_field) if isinstance(raw, dict) else None
        if not (_finite(count) and _finite(last)):
            bad.append(str(name))
            continue
        last_ms = float(last) * unit
        records[str(name)] = UsageRecord(
            str(name),
            float(count),
            last_ms,
            (now_ms - last_ms) / DAY_MS,
            priority(float(count), last_ms, now_ms, spec),
        )
    problems = ()
    if bad:
        shown = ", ".join(repr(n) for n in bad[:5]) + (
            f" and {len(bad) - 5} more" if len(bad) > 5 else ""
        )
        problems = (
            f"{path}: {spec.key}: {len(bad)} record(s) without a numeric {spec.count_field} and "
            f"{spec.time_field} ({shown}); counted as never used",
        )
    return LocalUsage(path, "read", records, problems)
