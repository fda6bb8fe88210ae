"""The runtime profiles as the window lists them: grouped by how well each is known (verified by
the conformance lab, partly verified, documented, modelled from a specification), each with its
release and provenance for a tooltip, so the level is visible wherever a runtime is named."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

LEVEL_ORDER = ("verified", "partial", "documented", "specified")
LEVEL_GROUPS = {
    "verified": "Verified against the runtime's code",
    "partial": "Partly verified (known differences listed)",
    "documented": "Documented only (code not run)",
    "specified": "Modelled from a specification",
}
LEVEL_BADGES = {
    "verified": "verified",
    "partial": "partly verified",
    "documented": "documented",
    "specified": "specified",
}


@dataclass(frozen=True)
class RuntimeEntry:
    name: str
    title: str
    level: str
    release: str
    provenance: str
    broken: str = ""  # why the profile does not load ("" when it does)


@lru_cache(maxsize=1)
def runtime_entries() -> tuple[RuntimeEntry, ...]:
    """Every shipped profile, grouped by level (LEVEL_ORDER), by title within a level."""
    from skillprism.core.profiles import ProfileError, available_profiles, load_profile

    out = []
    for name in available_profiles():
        try:
            p = load_profile(name)
        except ProfileError as err:
            out.append(RuntimeEntry(name, name, "specified", "", "", str(err)))
            continue
        out.append(RuntimeEntry(name, p.title, p.runtime.level, p.runtime.release, p.provenance))
    rank = {level: i for i, level in enumerate(LEVEL_ORDER)}
    return tuple(sorted(out, key=lambda e: (rank.get(e.level, len(rank)), e.title.lower())))
