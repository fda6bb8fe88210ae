"""The trigger view: a prompt ranks the skills the runtime lists, as the engine's estimate
says, seen from the selected skill; an eval set runs for that skill; a skill the runtime does
not list says so. The panel is driven as a user drives it; the engine answers in-process."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("PySide6.QtWidgets")

from budget_helpers import builtin_count
from engine_helpers import answer, open_view

from skillprism.core.budget_inputs import BudgetInputs
from skillprism.core.trigger import TriggerIndex, candidates
from skillprism.gui.trigger_view import TriggerPanel

SKILLS = {
    "pdf-tools": "Merge, split and rotate PDF files; fill PDF forms and add page numbers.",
    "slides": "Build PowerPoint slide decks from an outline, with speaker notes.",
    "sheets": "Create Excel spreadsheets with formulas, pivot tables and charts.",
    "pdf-reader": "Extract text and tables from PDF files for analysis.",
}


def make_set(root: Path, extra: dict[str, str] | None = None) -> None:
    for name, description in {**SKILLS, **(extra or {})}.items():
        folder = root / name
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text(
            f"---\nname: {name}\ndescription: {description}\n---\nBody.\n", encoding="utf-8"
        )


def wired(qtbot, tmp_path: Path, root: Path, profile: str = "claude-code", inputs=None):  # type: ignore[no-untyped-def]
    """A panel whose requests the engine answers at once, as the window asks them."""
    engine, loaded = open_view([str(root)], profile, str(tmp_path))
    panel = TriggerPanel()
    qtbot.addWidget(panel)
    inputs = inputs or BudgetInputs()

    def rank(_prompt: str = "") -> None:
        panel.show_result(
            answer(engine, "trigger", profile, inputs, panel.prompt.text(), panel.key)
        )

    panel.sig_prompt_changed.connect(rank)
    panel.sig_evals_requested.connect(
        lambda path: panel.show_evals(
            answer(engine, "trigger_evals", profile, inputs, panel.key, path)
        )
    )
    keys = {row.name: row.key for row in loaded.skills}
    return engine, panel, keys, rank


def test_a_typed_prompt_ranks_the_listed_skills_as_the_estimate_does(
    qtbot, qtmodeltester, tmp_path
) -> None:  # type: ignore[no-untyped-def]
    root = tmp_path / "skills"
    make_set(root)
    engine, panel, keys, rank = wired(qtbot, tmp_path, root)
    qtmodeltester.check(panel.ranking_model, force_py=True)
    panel.set_skill(keys["pdf-reader"])
    rank()
    assert panel.ranking_model.rowCount() == 0  # no prompt: nothing ranked, the skill's place said
    assert "pdf-reader" in panel.summary.text() and "listed by" in panel.summary.text()
    prompt = "merge two PDF files and add page numbers"
    qtbot.keyClicks(panel.prompt, prompt)
    qtbot.waitUntil(
        lambda: panel.result is not None and panel.result.prompt == prompt, timeout=5000
    )
    # the same ranking as the estimate made directly from the runtime's listing
    ws = engine.workspace
    want = TriggerIndex(candidates(ws.tier1("claude-code", BudgetInputs()))).estimate(prompt)
    shown = [panel.ranking_model.index(r, 1).data() for r in range(panel.ranking_model.rowCount())]
    assert shown == [r.name for r in want.ranking]
    assert shown[0] == "pdf-tools" and want.rank_of(keys["pdf-reader"]) == 2
    text = panel.summary.text()
    # of the four skills here and Claude Code's bundled ones, which the model sees too
    assert (
        f"ranks <b>2</b> of {4 + builtin_count('claude-code')}" in text
        and "picks <b>pdf-tools</b>" in text
    )
    assert "Ranked above it: pdf-tools" in text
    # Claude Code's own skills are told apart from the user's, in the ranking and the summary
    assert f"({builtin_count('claude-code')} of them the runtime's own)" in text
    listed_as = {
        panel.ranking_model.index(r, 1).data(): panel.ranking_model.index(r, 2).data()
        for r in range(panel.ranking_model.rowCount())
    }
    assert listed_as["pdf-reader"] == "full description"
    builtin = [name for name, how in listed_as.items() if how.startswith("built-in, ")]
    assert len(builtin) == builtin_count("claude-code")
    assert "estimate" in panel.note.text() and "not a model" in panel.note.text()
    # the selected skill's row stands out; a skill sharing no word is greyed
    row = panel.ranking_model.row_of(keys["pdf-reader"])
    assert row == 1 and panel.ranking_model.index(row, 1).data(font_role()).bold()


def font_role() -> int:
    """The role a row's font is asked with."""
    from PySide6.QtCore import Qt

    return int(Qt.ItemDataRole.FontRole)


def test_overlapping_entries_are_flagged(qtbot, tmp_path) -> None:  # type: ignore[no-untyped-def]
    root = tmp_path / "skills"
    make_set(
        root,
        {
            "pdf-merge": "Merge, split and rotate PDF files; fill PDF forms and add page numbers fast."
        },
    )
    _engine, panel, keys, rank = wired(qtbot, tmp_path, root)
    panel.set_skill(keys["pdf-tools"])
    rank()
    assert "pdf-merge" in panel.overlaps.text() and "confuse" in panel.overlaps.text()
    panel.set_skill(keys["slides"])
    rank()
    assert "No other listed skill" in panel.overlaps.text()


def test_an_eval_set_runs_for_the_selected_skill(qtbot, tmp_path) -> None:  # type: ignore[no-untyped-def]
    root = tmp_path / "skills"
    make_set(root)
    _engine, panel, keys, rank = wired(qtbot, tmp_path, root)
    evals = tmp_path / "evals.json"
    evals.write_text(
        json.dumps(
            [
                {"query": "build a slide deck for the board", "should_trigger": True},
                {"query": "PowerPoint slides with speaker notes", "should_trigger": True},
                {"query": "a pivot table of sales in Excel", "should_trigger": False},
                {"query": "rotate a PDF", "should_trigger": True},  # the estimate picks pdf-tools
            ]
        ),
        encoding="utf-8",
    )
    panel.set_skill(keys["slides"])
    rank()
    panel.sig_evals_requested.emit(str(evals))
    assert panel.tabs.currentIndex() == 1 and panel.eval_model.rowCount() == 4
    cells = [
        [panel.eval_model.index(r, c).data() for c in range(5)]
        for r in range(panel.eval_model.rowCount())
    ]
    assert cells[0][:4] == ["agrees", "build a slide deck for the board", "yes", "slides"]
    assert cells[2][0] == "agrees" and cells[3][0] == "differs" and cells[3][3] == "pdf-tools"
    assert "agreement <b>75%</b>" in panel.eval_summary.text()
    # another skill: the set was for the one before
    panel.set_skill(keys["sheets"])
    assert panel.eval_model.rowCount() == 0 and "No eval set" in panel.eval_summary.text()


def test_a_broken_eval_set_says_what_is_wrong(qtbot, tmp_path) -> None:  # type: ignore[no-untyped-def]
    root = tmp_path / "skills"
    make_set(root)
    engine, _panel, keys, _rank = wired(qtbot, tmp_path, root)
    bad = tmp_path / "bad.json"
    bad.write_text('[{"query": "x", "should_trigger": "yes"}]', encoding="utf-8")
    from skillprism.app.workspace import WorkspaceError

    with pytest.raises(WorkspaceError, match="should_trigger"):
        answer(engine, "trigger_evals", "claude-code", BudgetInputs(), keys["slides"], str(bad))


def test_a_skill_the_runtime_does_not_list_says_no_model_can_pick_it(qtbot, tmp_path) -> None:  # type: ignore[no-untyped-def]
    root = tmp_path / "skills"
    make_set(root)
    (root / "hidden").mkdir()
    (root / "hidden" / "SKILL.md").write_text(
        "---\nname: hidden\ndescription: Merge PDF files.\ndisable-model-invocation: true\n---\nB.\n",
        encoding="utf-8",
    )
    _engine, panel, keys, rank = wired(qtbot, tmp_path, root)
    panel.set_skill(keys["hidden"])
    panel.prompt.setText("merge PDF files")
    rank()
    text = panel.summary.text()
    assert "is not listed by Claude Code" in text and "no model can pick it" in text
    assert panel.result is not None and panel.result.rank is None


def test_the_window_ranks_for_the_selected_skill_and_follows_the_selection(qtbot, tmp_path) -> None:  # type: ignore[no-untyped-def]
    from PySide6.QtCore import QSettings

    from skillprism.gui.main_window import MainWindow

    root = tmp_path / "skills"
    make_set(root)
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    w = MainWindow(
        roots=[str(root)],
        profile="claude-code",
        project=str(tmp_path),
        dark=False,
        settings=settings,
    )
    qtbot.addWidget(w)
    w.resize(1200, 800)
    w.show()
    try:
        with qtbot.waitSignal(w.sig_catalog_applied, timeout=20000):
            w.reload()
        keys = {row.name: row.key for row in w.skills.values()}
        w.select_skill(keys["sheets"])
        w.trigger_dock.raise_()
        qtbot.keyClicks(w.trigger.prompt, "pivot table in a spreadsheet")
        qtbot.waitUntil(
            lambda: (
                w.trigger.result is not None
                and w.trigger.result.prompt == "pivot table in a spreadsheet"
            ),
            timeout=10000,
        )
        assert "<b>sheets</b> ranks <b>1</b>" in w.trigger.summary.text()
        # another skill selected: the same prompt, seen from it
        w.select_skill(keys["slides"])
        qtbot.waitUntil(
            lambda: w.trigger.result is not None and w.trigger.result.key == keys["slides"],
            timeout=10000,
        )
        assert "picks <b>sheets</b>" in w.trigger.summary.text()
        # double-clicking a ranked skill selects it in the tree
        row = w.trigger.ranking_model.row_of(keys["sheets"])
        w.trigger.ranking.doubleClicked.emit(w.trigger.ranking_model.index(row, 1))
        qtbot.waitUntil(lambda: w.selected_key == keys["sheets"], timeout=5000)
    finally:
        w.shutdown()


def test_an_eval_set_is_edited_saved_and_refused_when_the_file_changed(
    qtbot, tmp_path, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    from PySide6.QtWidgets import QFileDialog, QMessageBox

    root = tmp_path / "skills"
    make_set(root)
    engine, panel, keys, rank = wired(qtbot, tmp_path, root)
    inputs = BudgetInputs()
    panel.sig_evals_run.connect(
        lambda path, items: panel.show_evals(
            answer(engine, "trigger_evals", "claude-code", inputs, panel.key, path, tuple(items))
        )
    )
    from skillprism.app.workspace import WorkspaceError

    def save(path: str, items: list, expected) -> None:  # type: ignore[no-untyped-def]
        # as the window does: a refusal is shown in the panel
        try:
            panel.saved(panel.key, *answer(engine, "save_evals", path, tuple(items), expected))
        except WorkspaceError as err:
            panel.show_failure(str(err))

    panel.sig_evals_save.connect(save)
    panel.set_skill(keys["slides"], str(root / "slides"))
    assert not panel.add_should.isEnabled()  # no prompt typed yet
    panel.prompt.setText("build a slide deck for the board")
    panel.add_should.click()
    panel.prompt.setText("a pivot table of sales in Excel")
    panel.add_should_not.click()
    assert panel.eval_model.rowCount() == 2 and "not saved" in panel.eval_summary.text()
    assert panel.save.isEnabled()
    # Save: a new set, where the user chooses; nothing is written before
    target = tmp_path / "slides.evals.json"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(target), ""))
    assert not target.exists()
    panel.save.click()
    assert json.loads(target.read_text(encoding="utf-8")) == [
        {"query": "build a slide deck for the board", "should_trigger": True},
        {"query": "a pivot table of sales in Excel", "should_trigger": False},
    ]
    assert not panel.save.isEnabled() and "not saved" not in panel.eval_summary.text()
    # another program changes the file; an edit saved over it is refused, the file kept
    target.write_text('[{"query": "theirs", "should_trigger": true}]\n', encoding="utf-8")
    panel.eval_table.selectRow(1)
    panel.remove.click()
    assert panel.eval_model.rowCount() == 1
    panel.save.click()
    assert "changed on disk since it was opened" in panel.summary.text()
    assert "theirs" in target.read_text(encoding="utf-8")
    # saving into the skill's own folder asks first; "No" writes nothing
    inside = root / "slides" / "evals.json"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(inside), ""))
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.No)
    panel.save_as.click()
    assert not inside.exists()
    # the edited set comes back with its skill
    panel.set_skill(keys["sheets"], str(root / "sheets"))
    assert panel.eval_model.rowCount() == 0
    panel.set_skill(keys["slides"], str(root / "slides"))
    assert panel.eval_model.rowCount() == 1 and "not saved" in panel.eval_summary.text()
    del rank
