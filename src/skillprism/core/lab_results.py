"""The conformance lab's recorded results, and the level each runtime profile earns from them.

`conformance/run.py --record` writes what the lab found for every runtime it ran (the release,
how many files and texts agreed, and every difference grouped under the reason
`conformance/known-divergences.toml` gives for it, with that reason's kind) to
`resources/lab-results.json`. A shipped profile's `[runtime] level` is not written by hand: it
is derived here from that file (docs/profiles.md, "[runtime]"):

- `verified`: the lab ran this release's loader on every case and every difference left is
  inherent nondeterminism of the runtime or a named limit of its interface;
- `partial`: the lab ran it and something else is left (a gap in the profile schema, a profile
  assumption, a lab limitation, a difference not yet explained), or only facts could be read;
- a profile the lab does not run keeps the level its file states (`documented` or `specified`).

Each level comes with what keeps the profile from the next one, shown wherever the level is.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from skillprism.paths import resources_dir

RESULTS_FILE = "lab-results.json"
SCHEMA = 1
# Kinds of a known difference (conformance/known-divergences.toml `kind`). The first two do not
# keep a profile from `verified`: the runtime itself varies, or the lab cannot ask it.
KINDS = {
    "nondeterminism": "the runtime's own result varies from run to run or machine to machine",
    "interface": "a named limit of the runtime's interface (what the lab cannot set or observe)",
    "schema-gap": "behaviour the profile schema cannot express yet",
    "assumption": "a choice the profile makes where it differs from the runtime",
    "lab": "a limitation of the lab's fixtures or drivers",
    "unlisted": "a difference known-divergences.toml does not explain",
}
INHERENT = frozenset({"nondeterminism", "interface"})
KIND_WORDS = {
    "schema-gap": ("schema gap", "schema gaps"),
    "assumption": ("profile assumption", "profile assumptions"),
    "lab": ("lab limitation", "lab limitations"),
    "unlisted": ("unexplained difference", "unexplained differences"),
}


@dataclass(frozen=True, slots=True)
class DivergenceGroup:
    """Every difference one known-divergences entry explains (or the ones none explains)."""

    kind: str
    field: str
    reason: str
    cases: tuple[str, ...]
    count: int


@dataclass(frozen=True, slots=True)
class LabRecord:
    """One runtime's run in the lab, as `run.py --record` wrote it."""

    runtime: str
    release: str
    profile: str
    ran_on: str
    cases: int
    files: int
    facts_only: bool
    agree: dict[str, int]
    total: dict[str, int]
    tier1_not_obtainable: int
    groups: tuple[DivergenceGroup, ...]
    error: str = ""
    # Why the lab cannot run part of the runtime (facts-only runtimes: the loader).
    limit: str = ""

    @property
    def blocking(self) -> tuple[DivergenceGroup, ...]:
        return tuple(g for g in self.groups if g.kind not in INHERENT)


@dataclass(frozen=True, slots=True)
class DerivedLevel:
    level: str
    held_back: tuple[str, ...]  # what keeps the profile from the next level ("" at the top)
    summary: str  # a short form of held_back for one-line displays ("" when nothing)


def results_path() -> Path:
    return resources_dir() / RESULTS_FILE


def parse_results(data: Any, where: str = RESULTS_FILE) -> dict[str, LabRecord]:
    """Profile name -> its lab record; ValueError naming the problem when `data` is malformed."""
    if not isinstance(data, dict) or data.get("schema") != SCHEMA:
        raise ValueError(f"{where}: expected a JSON object with schema {SCHEMA}")
    out: dict[str, LabRecord] = {}
    for i, raw in enumerate(data.get("runtimes", [])):
        try:
            groups = tuple(
                DivergenceGroup(
                    kind=str(g["kind"]),
                    field=str(g["field"]),
                    reason=str(g["reason"]),
                    cases=tuple(str(c) for c in g["cases"]),
                    count=int(g["count"]),
                )
                for g in raw.get("divergences", [])
            )
            record = LabRecord(
                runtime=str(raw["runtime"]),
                release=str(raw["release"]),
                profile=str(raw["profile"]),
                ran_on=str(raw["ran_on"]),
                cases=int(raw["cases"]),
                files=int(raw.get("files", 0)),
                facts_only=bool(raw.get("facts_only", False)),
                agree={str(k): int(v) for k, v in raw.get("agree", {}).items()},
                total={str(k): int(v) for k, v in raw.get("total", {}).items()},
                tier1_not_obtainable=int(raw.get("tier1_not_obtainable", 0)),
                groups=groups,
                error=str(raw.get("error") or ""),
                limit=str(raw.get("limit") or ""),
            )
        except (KeyError, TypeError, ValueError) as err:
            raise ValueError(f"{where}: runtimes[{i}]: {err!r}") from None
        for g in groups:
            if g.kind not in KINDS:
                raise ValueError(f"{where}: runtimes[{i}]: unknown kind {g.kind!r}")
        out[record.profile] = record
    return out


@lru_cache(maxsize=1)
def lab_records() -> dict[str, LabRecord]:
    """The shipped results file, read once; empty when it is missing or unreadable (every profile
    then keeps the level its own file states, which can only be documented or specified)."""
    try:
        return parse_results(json.loads(results_path().read_text(encoding="utf-8")))
    except (OSError, ValueError):
        return {}


def _count_words(groups: tuple[DivergenceGroup, ...]) -> str:
    by_kind: Counter[str] = Counter()
    for g in groups:
        by_kind[g.kind] += 1
    parts = []
    for kind in ("unlisted", "schema-gap", "assumption", "lab"):
        n = by_kind.get(kind, 0)
        if n:
            one, many = KIND_WORDS[kind]
            parts.append(f"{n} {one if n == 1 else many}")
    return ", ".join(parts)


def release_matches(modelled: str, ran: str) -> bool:
    """The profile's release names the one the lab ran: equal, or the lab's release as a word of
    it ("2026-08 (reference validator skills-ref 0.1.1)" names 0.1.1)."""
    return modelled == ran or bool(
        ran and re.search(rf"(?<![\w.-]){re.escape(ran)}(?![\w-]|\.\w)", modelled)
    )


def derive_level(record: LabRecord, release: str) -> DerivedLevel:
    """The level a profile modelling `release` earns from `record` (docs/profiles.md)."""
    if not release_matches(release, record.release):
        why = (
            f"the lab last ran release {record.release}, the profile models {release or 'none'}: "
            "run the lab on the modelled release (make conformance)"
        )
        return DerivedLevel("documented", (why,), "lab results are for another release")
    if record.error:
        why = f"the lab's driver failed: {record.error}"
        return DerivedLevel("documented", (why,), "the lab's driver failed")
    held: list[str] = []
    if record.facts_only:
        held.append(
            record.limit
            or "the lab reads facts from the runtime but cannot run its loader on the fixtures"
        )
    for g in record.blocking:
        cases = ", ".join(g.cases[:6]) + (
            f" and {len(g.cases) - 6} more" if len(g.cases) > 6 else ""
        )
        what = KIND_WORDS[g.kind][0]
        held.append(
            f"{what} ({g.field}; {cases}): {g.reason}"
            if g.reason
            else f"{what} ({g.field}; {cases})"
        )
    if not held:
        return DerivedLevel("verified", (), "")
    short = []
    if record.facts_only:
        short.append("its loader cannot be run")
    words = _count_words(record.blocking)
    if words:
        short.append(words)
    return DerivedLevel("partial", tuple(held), "; ".join(short))


def level_for(profile_name: str, release: str) -> tuple[LabRecord, DerivedLevel] | None:
    """The lab's record and derived level for a shipped profile, or None if the lab does not run
    it."""
    record = lab_records().get(profile_name)
    if record is None:
        return None
    return record, derive_level(record, release)
