"""One policy builds every finding: the profile's rule table and the project's settings apply to
every code, wherever it is found (discovery, precedence, the tier-1 budget, activation, tier 3)."""

from __future__ import annotations

import ast
from pathlib import Path

from skillprism.core.activate import activate
from skillprism.core.disclose import BudgetSettings, Tier1Model
from skillprism.core.policy import Policy
from skillprism.core.profiles import load_profile, parse_profile
from skillprism.core.resolve import build_catalog
from skillprism.core.tier3 import resolve_reference

SRC = Path(__file__).parent.parent / "src" / "skillprism"


def skill(
    root: Path, folder: str, name: str, description: str = "Does it. Use when testing."
) -> Path:
    d = root / folder
    d.mkdir(parents=True, exist_ok=True)
    (d / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: {description}\n---\n# {name}\n\n[x](references/none.md)\n",
        encoding="utf-8",
    )
    return d


def test_only_the_policy_constructs_diagnostics() -> None:
    offenders = []
    for path in SRC.rglob("*.py"):
        if path.name in ("policy.py", "diagnostics.py"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id == "Diagnostic"
            ):
                offenders.append(f"{path.relative_to(SRC)}:{node.lineno}")
    assert offenders == []


def _clash(tmp_path: Path) -> list[str]:
    skill(tmp_path / "a", "x", "x")
    skill(tmp_path / "b", "x", "x")
    return [str(tmp_path / "a"), str(tmp_path / "b")]


def test_a_profile_that_ignores_shadowing_reports_no_sp301(tmp_path: Path) -> None:
    paths = _clash(tmp_path)
    base = load_profile("agentskills")
    assert "SP301" in {d.code for d in build_catalog(base, paths).all_diagnostics()}
    quiet = parse_profile(
        {
            "schema": 1,
            "name": "quiet",
            "rules": {
                "shadowed": "ignore",
                "unknown-field": "ignore",
                "reference-missing": "ignore",
            },
        },
        "quiet.toml",
    )
    catalog = build_catalog(quiet, paths)
    assert "SP301" not in {d.code for d in catalog.all_diagnostics()}
    # The fact stays: the second copy is still shadowed, only the finding is not reported.
    assert [s.status for s in catalog.skills] == ["ok", "shadowed"]


def test_ignore_codes_drop_sp301_and_the_state_follows(tmp_path: Path) -> None:
    paths = _clash(tmp_path)
    profile = load_profile("agentskills")
    catalog = build_catalog(profile, paths, policy=Policy(profile, frozenset({"SP301"})))
    assert "SP301" not in {d.code for d in catalog.all_diagnostics()}


def test_budget_activation_and_resource_findings_follow_the_settings(tmp_path: Path) -> None:
    folder = skill(tmp_path, "x", "x", "word " * 300)
    profile = load_profile("claude-code")
    loud = build_catalog(profile, [str(tmp_path)])
    quiet_policy = Policy(profile, frozenset({"SP402", "SP401", "SP406", "SP407", "SP509"}))
    quiet = build_catalog(profile, [str(tmp_path)], policy=quiet_policy)
    small = BudgetSettings(context_window=0, budget_chars=200)
    assert {d.code for d in Tier1Model(loud).compute(small).diagnostics} & {"SP401", "SP402"}
    assert not {d.code for d in Tier1Model(quiet).compute(small).diagnostics} & {
        "SP401",
        "SP402",
        "SP406",
    }
    # A refusal is always explained, whatever the settings: it is the result, not a finding.
    refused = resolve_reference(str(folder), "../../etc/passwd", policy=quiet_policy)
    assert not refused.ok and refused.refusal is not None
    entry = quiet.skills[0]
    assert all(d.code != "SP407" for d in activate(quiet, entry).diagnostics)


def test_ignore_paths_drop_findings_about_those_paths(tmp_path: Path) -> None:
    skill(tmp_path / "vendor", "v", "v")
    skill(tmp_path / "mine", "m", "m")
    profile = load_profile("agentskills")
    policy = Policy(profile, ignore_paths=("vendor/**",), base=str(tmp_path))
    catalog = build_catalog(
        profile, [str(tmp_path / "vendor"), str(tmp_path / "mine")], policy=policy
    )
    assert [s.name for s in catalog.skills] == ["m"]
