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


# Both list their built-in skills too, whose descriptions cannot be cut: Claude Code's 13 bundled
# skills keep theirs whatever the budget (about 6,200 characters), so its budget is larger.
@pytest.mark.parametrize(("profile", "budget"), [("claude-code", 8_600), ("codex", 4_000)])
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
    args = ["advise", "--profile", "claude-code", "--budget-chars", "8600", more]
    assert cli.main(args) == 1
    out = capsys.readouterr().out
    assert "either shorten 12 description(s)" in out and "or disable" in out
    assert cli.main([*args, "--format", "json"]) == 1
    assert '"verified": true' in capsys.readouterr().out
    assert cli.main([*args, "--apply"]) == 0
    assert "skillprism fix --undo" in capsys.readouterr().out
    assert cli.main(args) == 0


def test_advise_apply_disable_through_the_runtimes_setting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:  # type: ignore[no-untyped-def]
    """`advise --plan disable`: --dry-run prints the settings file's diff and writes nothing;
    --apply writes every skill of the plan as one change of the runtime's own setting, after
    which the listing is full; --undo puts the file back byte for byte."""
    home = tmp_path / "home"
    project = tmp_path / "proj"
    project.mkdir()
    _set(home)
    settings = home / ".claude" / "settings.json"
    settings.write_text('{\n  "theme": "dark",\n  "model": "opus"\n}\n')
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(project)
    args = ["advise", "--profile", "claude-code", "--budget-chars", "1500", "--no-usage"]
    assert cli.main([*args, "--format", "json"]) == 1
    import json

    plan = json.loads(capsys.readouterr().out)
    names = [d["name"] for d in plan["disable"]]
    assert names
    assert cli.main([*args, "--plan", "disable", "--dry-run"]) == 1
    diff = capsys.readouterr().out
    assert all(f'"{n}": "off"' in diff for n in names) and diff.count("\n+ ") == 2, diff
    assert settings.read_text() == '{\n  "theme": "dark",\n  "model": "opus"\n}\n'
    assert cli.main([*args, "--plan", "disable", "--apply"]) == 0
    assert f"turned {len(names)} skill(s) off" in capsys.readouterr().out
    text = settings.read_text()
    assert text.startswith('{\n  "theme": "dark",\n  "model": "opus",\n  "skillOverrides": {')
    assert cli.main(args) == 0  # every listed description full now
    assert "nothing to do" in capsys.readouterr().out
    assert cli.main([*args, "--undo", "--plan", "disable"]) == 0
    assert settings.read_text() == '{\n  "theme": "dark",\n  "model": "opus"\n}\n'
    assert cli.main(args) == 1


def test_advise_dry_run_shorten_writes_nothing_and_undo(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:  # type: ignore[no-untyped-def]
    skills = _set(tmp_path)
    monkeypatch.chdir(tmp_path)
    before = {p: p.read_bytes() for p in skills.rglob("SKILL.md")}
    args = ["advise", "--profile", "claude-code", "--budget-chars", "8600", str(skills)]
    assert cli.main([*args, "--dry-run"]) == 1
    diff = capsys.readouterr().out
    assert diff.count("+++ ") == 12 and "-description: Handles 0 documents" in diff
    assert {p: p.read_bytes() for p in before} == before
    assert cli.main([*args, "--apply"]) == 0
    assert {p: p.read_bytes() for p in before} != before
    assert cli.main([*args, "--undo"]) == 0
    assert {p: p.read_bytes() for p in before} == before


def test_codex_reads_its_context_window_from_its_config(tmp_path: Path) -> None:
    """Codex takes its 2% of `model_context_window` in config.toml when set (the lab:
    conformance/advisor_lab.py); the profile reads it as the window."""
    home = tmp_path / "home"
    skills = home / ".codex" / "skills"
    for i in range(30):
        d = skills / f"skill-{i:02d}"
        d.mkdir(parents=True)
        (d / "SKILL.md").write_text(
            f"---\nname: skill-{i:02d}\ndescription: {(SENTENCE.format(n=i) * 6).strip()}\n---\n"
        )
    (tmp_path / "proj").mkdir()
    env = {"HOME": str(home)}

    def listing(inputs: BudgetInputs) -> object:
        ws = Workspace(str(tmp_path / "proj"), [], ["codex"], home=str(home), env=env)
        return ws.budget_settings("codex", inputs)[0], ws.tier1("codex", inputs)

    settings, wide = listing(BudgetInputs())
    assert settings.context_window == 272_000 and all_full(wide)  # the default model's window
    (home / ".codex" / "config.toml").write_text("model_context_window = 32000\n")
    settings, narrow = listing(BudgetInputs())
    assert settings.context_window == 32_000 and not all_full(narrow)
    assert any("model_context_window = 32,000" in a for a in settings.applied)
    # a window the user sets here wins over the runtime's own setting, and says so
    settings, asked = listing(BudgetInputs(context_window=200_000))
    assert settings.context_window == 200_000 and all_full(asked)
    assert "context window set here: 200,000 tokens" in settings.applied
