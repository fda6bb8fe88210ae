"""The trigger estimate (core/trigger.py, `skillprism trigger`): the listed skills ranked against
a prompt by the words of their entries as the runtime lists them; eval sets in skill-creator's
format; overlapping entries flagged."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from budget_helpers import builtin_count
from hypothesis import given, settings
from hypothesis import strategies as st

from skillprism.app.workspace import Workspace
from skillprism.core.budget_inputs import BudgetInputs
from skillprism.core.eval_sets import EvalItem, EvalSetError, eval_set_text, parse_eval_set
from skillprism.core.profiles import load_profile
from skillprism.core.trigger import Candidate, TriggerIndex, name_match, run_eval_set

SKILLS = {
    "pdf-forms": "Fill in PDF forms and extract their fields. Use when the user has a PDF form.",
    "slides": "Build PowerPoint slide decks from an outline. Use for presentations.",
    "sheets": "Edit Excel spreadsheets: formulas, charts and pivot tables.",
    "mailer": "Send email through the company's SMTP relay. Use when asked to email someone.",
    "mailer-two": "Send email through the company's SMTP relay. Use when asked to email someone.",
}


BUNDLED = len(load_profile("claude-code").disclosure.tier1.builtin)


def _set(root: Path, skills: dict[str, str] = SKILLS) -> Path:
    for name, description in skills.items():
        d = root / name
        d.mkdir(parents=True)
        (d / "SKILL.md").write_text(
            f"---\nname: {name}\ndescription: {description}\n---\n\nBody.\n", encoding="utf-8"
        )
    return root


def _index(tmp_path: Path, inputs: BudgetInputs | None = None) -> tuple[Workspace, TriggerIndex]:
    root = _set(tmp_path / "skills")
    ws = Workspace(str(tmp_path), [str(root)], ["claude-code"], security=False)
    return ws, ws.trigger_index("claude-code", inputs or BudgetInputs())


def _key(tmp_path: Path, name: str) -> str:
    return str(tmp_path / "skills" / name / "SKILL.md")


def test_the_skill_whose_entry_shares_the_prompts_words_ranks_first(tmp_path: Path) -> None:
    _ws, index = _index(tmp_path)
    estimate = index.estimate("please fill in the fields of this PDF form for me")
    assert estimate.ranking[0].key == _key(tmp_path, "pdf-forms")
    assert estimate.picked() is not None
    # every listed skill is ranked, Claude Code's bundled ones too
    assert [r.rank for r in estimate.ranking] == list(range(1, len(SKILLS) + BUNDLED + 1))
    assert estimate.above(_key(tmp_path, "slides"))  # something competes with it here
    nothing = index.estimate("zzz qqq")
    assert nothing.picked() is None and {r.score for r in nothing.ranking} == {0.0}


def test_a_skill_the_runtime_does_not_list_cannot_be_picked(tmp_path: Path) -> None:
    """The estimate reads the listing as the runtime renders it: at a tiny budget the entries
    lose their descriptions, and an omitted skill is not in the ranking at all."""
    _ws, full = _index(tmp_path)
    _ws2, tight = _index(tmp_path / "b", BudgetInputs(budget_chars=60))
    outcomes = {c.outcome for c in tight.candidates}
    assert outcomes - {"full", "shortened"}, outcomes  # the budget cut something
    for c in tight.candidates:
        if c.outcome in ("omitted", "excluded"):
            assert tight.estimate("email someone").rank_of(c.key) is None
    assert len(full.listed) == len(SKILLS) + BUNDLED


def test_entries_that_say_the_same_are_flagged(tmp_path: Path) -> None:
    _ws, index = _index(tmp_path)
    pairs = {(Path(o.first).parent.name, Path(o.second).parent.name) for o in index.overlaps()}
    assert pairs == {("mailer", "mailer-two")}
    assert index.overlaps(key=_key(tmp_path, "slides")) == []


def test_an_eval_set_is_scored_as_skill_creator_writes_it(tmp_path: Path) -> None:
    _ws, index = _index(tmp_path)
    items = parse_eval_set(
        json.dumps(
            [
                {"query": "turn my outline into a PowerPoint deck", "should_trigger": True},
                {"query": "add a pivot table to this Excel sheet", "should_trigger": False},
                {"query": "what time is it", "should_trigger": True, "extra": 1},
            ]
        )
    )
    report = run_eval_set(index, _key(tmp_path, "slides"), items)
    assert [o.correct for o in report.outcomes] == [True, True, False]
    assert report.accuracy == pytest.approx(2 / 3)
    assert report.precision == 1.0 and report.recall == 0.5
    assert report.top(1) == (1, 2)
    assert report.outcomes[1].instead == "sheets"


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("{", "not JSON"),
        ('{"a": 1}', "expected a JSON array"),
        ("[1]", "item 1 is not an object"),
        ('[{"query": "", "should_trigger": true}]', "no text"),
        ('[{"query": "x", "should_trigger": "yes"}]', "must be true or false"),
    ],
)
def test_a_broken_eval_set_says_what_and_where(text: str, words: str) -> None:
    with pytest.raises(EvalSetError, match=words):
        parse_eval_set(text, "evals.json")


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.text(min_size=1).filter(str.strip), st.booleans()), max_size=8))
def test_an_eval_set_reads_back_as_written(rows: list[tuple[str, bool]]) -> None:
    items = tuple(EvalItem(q, b) for q, b in rows)
    assert parse_eval_set(eval_set_text(items)) == items


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=200))
def test_any_prompt_ranks_every_listed_skill_once(prompt: str) -> None:
    candidates = [
        Candidate(f"k{i}", n, "full", f"{n}: {d}") for i, (n, d) in enumerate(SKILLS.items())
    ]
    estimate = TriggerIndex(candidates).estimate(prompt)
    assert sorted(r.key for r in estimate.ranking) == sorted(c.key for c in candidates)
    assert all(
        a.score >= b.score for a, b in zip(estimate.ranking, estimate.ranking[1:], strict=False)
    )
    assert len(name_match(candidates, prompt)) == len(candidates)


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "skillprism", "trigger", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={**os.environ, "HOME": str(cwd)},
    )


def test_the_cli_ranks_a_prompt_and_fails_under_a_rate(tmp_path: Path) -> None:
    root = _set(tmp_path / "skills")
    run = _cli(
        str(root),
        "--profile",
        "claude-code",
        "--skill",
        "slides",
        "--prompt",
        "make a PowerPoint presentation",
        cwd=tmp_path,
    )
    assert run.returncode == 0, run.stderr
    assert "slides: listed with its description" in run.stdout and "<- this skill" in run.stdout
    assert "not a model's choice" in run.stdout
    # Claude Code's bundled skills are listed too, and said to be its own
    assert (
        f"skill(s) listed ({builtin_count('claude-code')} of them the runtime's own)" in run.stdout
    )
    evals = tmp_path / "evals.json"
    evals.write_text(
        json.dumps(
            [
                {"query": "make a PowerPoint presentation", "should_trigger": True},
                {"query": "email the team the minutes", "should_trigger": True},
            ]
        )
    )
    run = _cli(
        str(root),
        "--profile",
        "claude-code",
        "--skill",
        "slides",
        "--evals",
        str(evals),
        "--format",
        "json",
        "--fail-under",
        "0.9",
        cwd=tmp_path,
    )
    assert run.returncode == 1, run.stderr  # 1 of 2 right is under 0.9
    doc = json.loads(run.stdout)
    assert doc["accuracy"] == 0.5 and doc["prompts"][1]["instead"] in ("mailer", "mailer-two")
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    run = _cli(str(root), "--skill", "slides", "--evals", str(bad), cwd=tmp_path)
    assert run.returncode == 2 and "not JSON" in run.stderr and run.stderr.count("\n") == 1


def test_the_committed_prompt_set_is_well_formed() -> None:
    """bench/trigger_prompts: every skill of the manifest has 5 prompts that should and 5 that
    should not trigger it, in skill-creator's format."""
    from skillprism.core.eval_sets import read_eval_set

    base = Path(__file__).resolve().parents[1] / "bench" / "trigger_prompts"
    manifest = json.loads((base / "manifest.json").read_text(encoding="utf-8"))
    assert len(manifest) >= 71 and len({e["collection"] for e in manifest}) == 7
    for entry in manifest:
        items = read_eval_set(str(base / entry["prompts"]))
        assert [i.should_trigger for i in items] == [True] * 5 + [False] * 5, entry
