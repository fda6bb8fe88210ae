"""The immutable result of resolving a skill set under one profile."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from skillprism.core.diagnostics import Diagnostic, Severity
from skillprism.core.profiles import Profile
from skillprism.core.vocabulary import STATES, VALID_STATES

if TYPE_CHECKING:
    from skillprism.core.policy import Policy

__all__ = ["STATES", "VALID_STATES", "Catalog", "RootInfo", "SkillEntry", "skill_changes"]


@dataclass(frozen=True, slots=True)
class RootInfo:
    """One folder the runtime (or the user) looks in for skills."""

    path: str
    scope: str
    layout: str
    rank: int  # 0 wins a name clash over 1, and so on
    explicit: bool = False
    namespace: str = ""
    exists: bool = True
    template: int = -1  # index of the profile's [[roots]] table it comes from (-1: a PATH)
    enabled_by: str = ""  # read only when this runtime setting is on (profile key enabled_by)


@dataclass(frozen=True, slots=True)
class SkillEntry:
    """One skill file and its fate under the catalog's profile.

    `key` is the path as found: stable across profiles and rescans, used to keep selections."""

    key: str
    path: str
    real_path: str
    directory: str
    root: RootInfo
    name: str
    qualified_name: str
    description: str | None
    status: str
    reason: str
    diagnostics: tuple[Diagnostic, ...]
    frontmatter: dict[str, Any] = field(compare=False, repr=False)
    shadowed_by: str = ""

    @property
    def valid(self) -> bool:
        return self.status in VALID_STATES

    @property
    def active(self) -> bool:
        """In use and clean enough to be valid: ok or warning (docs/architecture.md: "active")."""
        return self.status in ("ok", "warning")

    @property
    def loaded(self) -> bool:
        """The runtime loads this copy and it wins its name: ok, warning, or error (an error breaks
        a rule but the runtime still loads it; a refusal to load is `skipped`)."""
        return self.status in ("ok", "warning", "error")


@dataclass(frozen=True, slots=True)
class Catalog:
    profile: Profile
    roots: tuple[RootInfo, ...]
    skills: tuple[SkillEntry, ...]
    diagnostics: tuple[Diagnostic, ...]
    # How findings are reported for this skill set (the profile's rules and the project's
    # settings); tier-1, activation and resource findings about it go through it too.
    policy: Policy | None = field(default=None, compare=False, repr=False)
    # Whether the security pass looked at these skills (its findings are in the diagnostics).
    security: bool = field(default=False, compare=False)
    # The home folder the runtime's personal roots were expanded with ("" = not known).
    home: str = field(default="", compare=False)

    def reporting(self) -> Policy:
        """This catalog's policy (the profile's defaults when it was built without one)."""
        from skillprism.core.policy import Policy

        return self.policy if self.policy is not None else Policy(self.profile)

    def by_key(self) -> dict[str, SkillEntry]:
        return {s.key: s for s in self.skills}

    def winners(self) -> list[SkillEntry]:
        return [s for s in self.skills if s.active]

    def summary(self) -> dict[str, Any]:
        status = Counter({s: 0 for s in STATES})
        status.update(s.status for s in self.skills)
        severity = Counter({s.value: 0 for s in Severity})
        for d in self.all_diagnostics():
            severity[d.severity.value] += 1
        return {"skills": len(self.skills), "status": dict(status), "severity": dict(severity)}

    def all_diagnostics(self) -> list[Diagnostic]:
        out = list(self.diagnostics)
        for s in self.skills:
            out.extend(s.diagnostics)
        return out


def skill_changes(old: Catalog | None, new: Catalog) -> tuple[list[SkillEntry], list[str]]:
    """What a refresh changed: the skills of `new` that are new or differ from their entry in
    `old` in any way (state, name, findings, ...), in `new`'s order, and the keys of the skills of
    `old` that `new` no longer has. Without `old`, every skill of `new` counts as changed."""
    before = old.by_key() if old is not None else {}
    changed = [s for s in new.skills if before.get(s.key) != s]
    now = {s.key for s in new.skills}
    removed = [key for key in before if key not in now]
    return changed, removed
