"""The budget advisor (core/advisor.py, `skillprism advise`): its plans, checked with the
runtime's own budget model; applying the description cuts to the files makes every listed
description full in a fresh check, and disabling the skills it names does too."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from skillprism import cli
from skillprism.app.workspace import BudgetInputs, Workspace
from skillprism.core.advisor import all_full

SENTENCE = "Handles {n} documents end to end with care. "


def _set(root: Path, count: int = 12, length: int = 6) -> Path:
    skills = root / ".claude" / "skills"
    for i in range(count):
        d = skills / f"skill-{i:02d}"
        d.mkdir(parents=True)
        desc = (SENTENCE.format(n=i) * length).strip()
        (d / "SKILL.md").write_text(
            f"---\nname: skill-{i:02d}\ndescription: {desc}\n---\n\nBody.\n"
        )
    return skills


# Codex lists its built-in skills too (their descriptions cannot be cut): a larger budget.
@pytest.mark.parametrize(("profile", "budget"), [("claude-code", 2_400), ("codex", 4_000)])
def test_applying_the_cuts_makes_every_listed_description_full(
    tmp_path: Path, profile: str, budget: int
) -> None:
    skills = _set(tmp_path)
    inputs = BudgetInputs(context_window=200_000, budget_chars=budget)
    ws = Workspace(str(tmp_path), [str(skills)], [profile], security=False)
    assert not all_full(ws.tier1(profile, inputs))  # the budget drops some now
    plan = ws.advise(profile, inputs)
    assert plan.shorten and plan.cap is not None and plan.verified
    assert all(len(s.keep) <= plan.cap and s.by > 0 for s in plan.shorten)
    outcome = ws.apply_fixes(ws.plan_fixes(plan))
    assert len(outcome.applied) == len(plan.shorten) and not outcome.refused
    fresh = Workspace(str(tmp_path), [str(skills)], [profile], security=False)
    result = fresh.tier1(profile, inputs)
    assert all_full(result)
    assert {e.outcome for e in result.entries} <= {"full", "excluded"}
    # the largest cap: one character more and the model no longer lists every entry in full
    assert fresh.advise(profile, inputs).already_full
    Workspace.undo_fixes()
    assert not all_full(
        Workspace(str(tmp_path), [str(skills)], [profile], security=False).tier1(profile, inputs)
    )


def test_disable_plan_least_used_first(tmp_path: Path) -> None:
    skills = _set(tmp_path)
    inputs = BudgetInputs(
        context_window=200_000, budget_chars=1_500, usage={"skill-00": 9.0, "skill-01": 5.0}
    )
    ws = Workspace(str(tmp_path), [str(skills)], ["claude-code"], security=False)
    plan = ws.advise("claude-code", inputs)
    names = [d.name for d in plan.disable or ()]
    assert names and "skill-00" not in names and "skill-01" not in names
    settings, _ = ws.budget_settings("claude-code", inputs)
    model = ws.tier1_model("claude-code")
    gone = frozenset(d.path for d in plan.disable or ())
    assert all_full(model.compute(replace(settings, disabled=gone)))
    # one fewer is not enough: the plan is the smallest of its order
    fewer = frozenset(d.path for d in (plan.disable or ())[:-1])
    assert not all_full(model.compute(replace(settings, disabled=fewer)))


def test_advise_cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:  # type: ignore[no-untyped-def]
    skills = _set(tmp_path, count=3, length=1)
    monkeypatch.chdir(tmp_path)
    base = ["advise", "--profile", "claude-code", str(skills)]
    assert cli.main(base) == 0
    assert "nothing to do" in capsys.readouterr().out
    _set(tmp_path / "more", count=12)
    more = str(tmp_path / "more" / ".claude" / "skills")
    args = ["advise", "--profile", "claude-code", "--budget-chars", "2400", more]
    assert cli.main(args) == 1
    out = capsys.readouterr().out
    assert "either shorten 12 description(s)" in out and "or disable" in out
    assert cli.main([*args, "--format", "json"]) == 1
    assert '"verified": true' in capsys.readouterr().out
    assert cli.main([*args, "--apply"]) == 0
    assert "skillprism fix --undo" in capsys.readouterr().out
    assert cli.main(args) == 0
