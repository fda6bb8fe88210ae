"""The security corpus (tests/fixtures/security): running the engine on a case and reading what
a case expects. Shared by tests/test_security.py and bench/bench_security.py."""

from __future__ import annotations

import os
import re
import tomllib
from pathlib import Path

from skillprism.core.security import RiskFinding, cross_skill_findings, scan_skill

CORPUS = Path(__file__).resolve().parent / "fixtures" / "security"
_FM = re.compile(r"^---\n(.*?)\n---", re.S)


def cases(group: str) -> list[Path]:
    return sorted(p for p in (CORPUS / group).iterdir() if p.is_dir())


def skills_in(case: Path) -> list[Path]:
    """Skill folders of a case: its sub-folders holding a SKILL.md."""
    return sorted(p.parent for p in case.glob("*/SKILL.md"))


def frontmatter_field(text: str, key: str) -> str:
    m = _FM.match(text)
    if not m:
        return ""
    f = re.search(rf"^{key}:\s*(.*)$", m.group(1), re.M)
    return f.group(1).strip() if f else ""


def scan_case(case: Path) -> list[tuple[str, RiskFinding]]:
    """(path relative to the case, finding) of every finding in the case, cross-skill ones too."""
    out: list[tuple[str, RiskFinding]] = []
    triples = []
    for skill in skills_in(case):
        for f in scan_skill(str(skill), str(skill / "SKILL.md")):
            rel = skill.name + ("/" + f.rel_path if f.rel_path else "")
            out.append((rel, f))
        text = (skill / "SKILL.md").read_text(encoding="utf-8")
        triples.append(
            (str(skill), frontmatter_field(text, "name"), frontmatter_field(text, "description"))
        )
    for f in cross_skill_findings(triples):
        out.append((os.path.relpath(f.path, case).replace(os.sep, "/"), f))
    return out


def expected(case: Path) -> list[tuple[str, str, int]]:
    return [(rule, file, line) for rule, file, line, _sev in expected_with_severity(case)]


def expected_with_severity(case: Path) -> list[tuple[str, str, int, str]]:
    """(rule, file, line, least severity) of each finding a case expects: a planted risk is a
    warning at least, unless the case says otherwise (`severity = "info"` where information is
    the deliberate verdict, `"error"` where a reviewer should block the skill)."""
    data = tomllib.loads((case / "expected.toml").read_text(encoding="utf-8"))
    return [
        (e["rule"], e["file"], int(e["line"]), e.get("severity", "warning"))
        for e in data.get("finding", [])
    ]


_RANK = {"info": 1, "warning": 2, "error": 3}


def missing(case: Path, found: list[tuple[str, RiskFinding]]) -> list[tuple[str, str, int]]:
    got = {(f.rule, rel, f.line) for rel, f in found}
    return [e for e in expected(case) if e not in got]


def too_quiet(case: Path, found: list[tuple[str, RiskFinding]]) -> list[tuple[str, str, int, str]]:
    """Expected findings reported below the severity the case asks for."""
    best: dict[tuple[str, str, int], int] = {}
    for rel, f in found:
        key = (f.rule, rel, f.line)
        best[key] = max(best.get(key, 0), _RANK[f.severity.value])
    return [
        (rule, file, line, sev)
        for rule, file, line, sev in expected_with_severity(case)
        if best.get((rule, file, line), 0) < _RANK[sev]
    ]
