"""The immutable result of resolving a skill set under one profile.

A skill's `status` is the runtime's view of it: whether it loads, wins its name and keeps the
runtime's rules. What the skill could do to the user who installs it (the security pass) is a
second, separate verdict, `risk`: the worst severity among its security findings. A runtime loads
a risky skill all the same, so a risk never changes the state, the listing or the budget; both
are reported side by side (docs/check-json.md, "States and risks")."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from skillprism.core.codes import CODES
from skillprism.core.diagnostics import Diagnostic, Severity
from skillprism.core.profiles import Profile
from skillprism.core.vocabulary import RISKS, STATES, VALID_STATES, state_and_risk

if TYPE_CHECKING:
    from skillprism.core.policy import Policy

__all__ = [
    "RISKS",
    "STATES",
    "VALID_STATES",
    "Catalog",
    "RootInfo",
    "SkillEntry",
    "skill_changes",
    "state_and_risk",
]

_RISK_OF_RANK = {0: "none", 1: "info", 2: "warning", 3: "error"}

# Counts per code, sorted by code: what the project's settings held back (core/policy.py).
Counts = tuple[tuple[str, int], ...]


def merge_counts(*groups: Counts) -> Counts:
    """Counts per code added up, sorted by code."""
    total: Counter[str] = Counter()
    for group in groups:
        for code, n in group:
            total[code] += n
    return tuple(sorted(total.items()))


def is_security(d: Diagnostic) -> bool:
    """Whether `d` is a security finding (category `security`): it judges what the skill could
    do to its user, not how the runtime loads it."""
    info = CODES.get(d.code)
    return info is not None and info.category == "security"


def risk_of(diagnostics: tuple[Diagnostic, ...] | list[Diagnostic]) -> str:
    """The risk `diagnostics` make: the worst severity of the security findings among them, or
    "none"."""
    worst = max((d.severity.rank for d in diagnostics if is_security(d)), default=0)
    return _RISK_OF_RANK[worst]


@dataclass(frozen=True, slots=True)
class Suppressed:
    """What the project's settings held back from a catalog beyond its skills' own counts:
    findings about no single skill, per code, and skill files left out by `ignore_paths`."""

    codes: Counts = ()
    files: int = 0


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
    # The real folder a skill file's real path must stay inside, or the runtime refuses it
    # (`[[roots]] links_within`; "" = anywhere).
    link_scope: str = ""


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
    # Findings about this skill the project's settings dropped (ignore_codes, ignore_paths).
    suppressed: Counts = ()
    # The body's first line and the characters after it, where the listing shows that line for a
    # missing description (`[tier1] description_fallback`); None otherwise.
    body_line: tuple[str, int] | None = field(default=None, compare=False, repr=False)

    @property
    def valid(self) -> bool:
        return self.status in VALID_STATES

    @property
    def active(self) -> bool:
        """In use and clean enough to be valid: ok or warning (docs/architecture.md: "active")."""
        return self.status in ("ok", "warning")

    @property
    def risk(self) -> str:
        """The worst severity of this skill's security findings: none, info, warning, error.
        Independent of `status` (see the module doc)."""
        return risk_of(self.diagnostics)

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
    # What the project's settings held back besides each skill's own `suppressed`.
    suppressed: Suppressed = Suppressed()

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
        risk = Counter({r: 0 for r in RISKS})
        risk.update(s.risk for s in self.skills)
        return {
            "skills": len(self.skills),
            "status": dict(status),
            "severity": dict(severity),
            "risk": dict(risk),
        }

    def suppression(self) -> tuple[Counts, int]:
        """Everything the project's settings held back from this catalog: findings per code
        (sorted), and skill files left out."""
        counts = merge_counts(self.suppressed.codes, *(s.suppressed for s in self.skills))
        return counts, self.suppressed.files

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
