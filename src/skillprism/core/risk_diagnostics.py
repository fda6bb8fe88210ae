"""The security pass's findings as a catalog reports them: each risk as a diagnostic under a
profile's policy, the findings about the set as a whole (names that imitate each other), and one
skill's risks from the cache or a scan."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from skillprism.core.catalog import Catalog, merge_counts
from skillprism.core.codes import CODES, RULES
from skillprism.core.diagnostics import Diagnostic
from skillprism.core.document import Finding
from skillprism.core.policy import Policy

if TYPE_CHECKING:  # the security pass is imported when it first runs: `check` starts faster
    from skillprism.core.security import RiskFinding

log = logging.getLogger(__name__)


SECURITY_CODES = frozenset(c for c, info in CODES.items() if info.category == "security")
# Findings about the set (names that imitate each other), not about one skill's files.
CROSS_SKILL_CODES = frozenset({RULES["confusable-name"].code, RULES["mixed-script-name"].code})


def risk_diagnostics(
    policy: Policy, risks: Sequence[RiskFinding], owner: str = ""
) -> list[Diagnostic]:
    """The security pass's findings as the policy reports them (each keeps its own severity
    unless the profile sets its rule); `owner`: the skill file they belong to."""
    out = []
    for r in risks:
        d = policy.diagnostic(
            Finding(r.rule, r.message, r.line, r.column, r.hint),
            r.path,
            effect=r.effect,
            severity=r.severity,
            evidence=r.evidence,
            owner=owner,
        )
        if d is not None:
            out.append(d)
    return out


def with_cross_skill_risks(catalog: Catalog) -> Catalog:
    """`catalog` with the findings about its names as a set (look-alikes of another skill's name,
    names that mix scripts) made afresh: a fresh build and a live refresh end the same."""
    from skillprism.core.security import cross_skill_findings

    triples = [
        (s.path, s.name, s.description or "")
        for s in catalog.skills
        if s.name and s.status not in ("not-discovered", "skipped")
    ]
    found: dict[str, list[Diagnostic]] = {}
    policy = catalog.reporting()
    with policy.counting() as held:
        for d in risk_diagnostics(policy, cross_skill_findings(triples)):
            found.setdefault(d.path, []).append(d)
    skills = []
    changed = False
    for s in catalog.skills:
        old = tuple(d for d in s.diagnostics if d.code in CROSS_SKILL_CODES)
        new = tuple(found.get(s.path, ()))
        old_held = tuple((c, n) for c, n in s.suppressed if c in CROSS_SKILL_CODES)
        new_held = held.take(s.path)
        if old == new and old_held == new_held:
            skills.append(s)
            continue
        changed = True
        kept = tuple(d for d in s.diagnostics if d.code not in CROSS_SKILL_CODES)
        kept_held = tuple((c, n) for c, n in s.suppressed if c not in CROSS_SKILL_CODES)
        skills.append(
            replace(s, diagnostics=kept + new, suppressed=merge_counts(kept_held, new_held))
        )
    return replace(catalog, skills=tuple(skills)) if changed else catalog
