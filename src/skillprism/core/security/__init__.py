"""Static security analysis of skills: what a skill could do to the user who installs it.

Public API (the rest of the package is internal):

- `scan_skill(skill_dir, skill_file, *, limits=DEFAULT_LIMITS, listing=None)` -> findings of
  one skill, reading its files itself, safely (regular files only, never through a symlink,
  bounded), never executing, importing or fetching anything;
- `cross_skill_findings(skills)` -> look-alike and mixed-script names across a set, from
  (path, name, description) triples;
- `RiskFinding`, `SecurityLimits`, `DEFAULT_LIMITS`.

Every finding's rule is registered in `core/codes.py` (SP7xx, category "security", with a
`security_severity` score).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from skillprism.core.security.confusables import cross_skill_findings
from skillprism.core.security.model import DEFAULT_LIMITS, RiskFinding, SecurityLimits

if TYPE_CHECKING:
    from skillprism.core.security.engine import scan_skill, scan_text


def __getattr__(name: str) -> object:
    # The engine (its rules compiled into one RE2 set) loads on first use: a process that only
    # asks about names across a set, or only hands scans to workers, never loads it.
    if name in ("scan_skill", "scan_text"):
        from skillprism.core.security import engine

        return getattr(engine, name)
    raise AttributeError(name)


__all__ = [
    "DEFAULT_LIMITS",
    "RiskFinding",
    "SecurityLimits",
    "cross_skill_findings",
    "scan_skill",
    "scan_text",
]
