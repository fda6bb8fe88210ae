"""The budget view follows its controls exactly as the engine computes. The view asks for each
listing (`sig_inputs_changed`); here the engine answers at once, in-process."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("PySide6.QtWidgets")

from budget_helpers import room
from engine_helpers import answer, open_view

from skillprism.core.disclose import BudgetSettings, Tier1Model
from skillprism.core.profiles import load_profile
from skillprism.core.resolve import build_catalog
from skillprism.engine.prepare import matrix_view, tier1_view
from skillprism.engine.server import Engine
from skillprism.gui.budget_view import BudgetView


def make_skills(root: Path, n: int) -> None:
    for i in range(n):
        d = root / f"skill-{i:03}"
        d.mkdir(parents=True)
        (d / "SKILL.md").write_text(
            f"---\nname: skill-{i:03}\ndescription: {f'Describes skill {i} in some detail. ' * 6}\n---\nBody.\n",
            encoding="utf-8",
        )


def wired(view: BudgetView, tmp_path: Path, root: Path, profile: str) -> Engine:
    """Answer the view's requests through an engine (in-process, at once) and show it the set."""
    engine, _loaded = open_view([str(root)], profile, str(tmp_path))
    view.sig_inputs_changed.connect(
        lambda inputs: view.show_result(answer(engine, "tier1", profile, inputs))
    )
    view.set_loaded(True)
    view.recompute()
    return engine


def test_moving_the_context_window_changes_name_only_skills_as_the_engine_does(
    qtbot, tmp_path
) -> None:  # type: ignore[no-untyped-def]
    root = tmp_path / "skills"
    make_skills(root, 60)
    view = BudgetView()
    qtbot.addWidget(view)
    catalog = wired(view, tmp_path, root, "claude-code").workspace.catalog("claude-code")
    engine = Tier1Model(catalog)
    for label in ("8k", "32k", "200k (Claude)", "1M"):
        view.context.setCurrentIndex(view.context.findText(label))
        shown = {e.name: e.outcome for e in view._result.entries}
        window = view.context.currentData()
        expected = {
            e.name: e.outcome for e in engine.compute(BudgetSettings(context_window=window)).entries
        }
        assert shown == expected, label
    view.context.setCurrentIndex(view.context.findText("8k"))
    assert any(o == "name-only" for o in {e.outcome for e in view._result.entries})
    view.context.setCurrentIndex(view.context.findText("1M"))
    assert all(e.outcome == "full" for e in view._result.entries)


def test_overrides_usage_and_fixed_budget(qtbot, tmp_path) -> None:  # type: ignore[no-untyped-def]
    root = tmp_path / "skills"
    make_skills(root, 5)
    view = BudgetView()
    qtbot.addWidget(view)
    wired(view, tmp_path, root, "claude-code")
    view.set_override("skill-001", "off")
    view.set_override("skill-002", "name-only")
    got = {e.name: e.outcome for e in view._result.entries}
    assert got["skill-001"] == "excluded" and got["skill-002"] == "name-only"
    # every name (the bundled skills' with their descriptions), and room for one description
    view.fixed.setValue(room(400))
    assert view._result.limit_chars == room(400)
    view.set_usage("skill-000", 100)
    got = {e.name: e.outcome for e in view._result.entries}
    # Claude Code keeps descriptions most-used first while they fit: the used skill keeps its
    # own while the others lose theirs.
    assert got["skill-000"] == "full"
    assert "name-only" in [v for k, v in got.items() if k != "skill-000"]


def test_recompute_follows_a_moving_control_quickly(qtbot, tmp_path) -> None:  # type: ignore[no-untyped-def]
    root = tmp_path / "skills"
    make_skills(root, 300)
    view = BudgetView()
    qtbot.addWidget(view)
    wired(view, tmp_path, root, "codex")
    limits = []
    for i in range(1, view.context.count() - 1):  # (the first: the runtime's own, else 200k)
        view.context.setCurrentIndex(i)
        limits.append(view._result.limit_chars)  # recomputed at once, not later
    # Each preset gives its own budget (their times are in bench/bench_budget_view.py).
    assert len(set(limits)) == len(limits)


def test_outcome_and_matrix_models_pass_qtmodeltester(qapp, qtmodeltester, tmp_path) -> None:  # type: ignore[no-untyped-def]
    from skillprism.core.compare import build_matrix
    from skillprism.gui.budget_view import OutcomeModel
    from skillprism.gui.matrix_view import MatrixModel

    root = tmp_path / "skills"
    make_skills(root, 12)
    catalogs = [build_catalog(load_profile(n), [str(root)]) for n in ("claude-code", "codex")]
    outcomes = OutcomeModel()
    result = Tier1Model(catalogs[0]).compute(BudgetSettings(context_window=8_000))
    outcomes.set_result(tier1_view(result, "Claude Code", ()))
    qtmodeltester.check(outcomes, force_py=True)
    matrix = MatrixModel()
    matrix.set_matrix(matrix_view(build_matrix(catalogs)))
    assert matrix.rowCount() == 12 and matrix.columnCount() == 3
    qtmodeltester.check(matrix, force_py=True)


def test_overrides_and_usage_are_edited_in_the_table(qtbot, tmp_path) -> None:  # type: ignore[no-untyped-def]
    from PySide6.QtCore import Qt

    root = tmp_path / "skills"
    make_skills(root, 5)
    view = BudgetView()
    qtbot.addWidget(view)
    wired(view, tmp_path, root, "claude-code")
    model = view.outcomes
    row = next(r for r in range(model.rowCount()) if model.entry(r).name == "skill-001")
    assert model.flags(model.index(row, 4)) & Qt.ItemFlag.ItemIsEditable
    assert not model.flags(model.index(row, 0)) & Qt.ItemFlag.ItemIsEditable
    assert model.setData(model.index(row, 4), "off")  # the listing is asked for again
    assert {e.name: e.outcome for e in view._result.entries}["skill-001"] == "excluded"
    row = next(r for r in range(model.rowCount()) if model.entry(r).name == "skill-002")
    assert model.setData(model.index(row, 5), "12")
    assert view.inputs().usage == {"skill-002": 12.0}
    assert not model.setData(model.index(row, 5), "-1")  # not a count
    assert not model.setData(model.index(row, 4), "sometimes")  # not an override


def test_the_usage_column_shows_what_the_runtime_recorded_here(qtbot, tmp_path) -> None:  # type: ignore[no-untyped-def]
    import json
    import os
    import time

    from PySide6.QtCore import Qt

    root = tmp_path / "skills"
    make_skills(root, 3)
    now_ms = time.time() * 1000
    day = 86_400_000
    (Path(os.environ["HOME"]) / ".claude.json").write_text(
        json.dumps(
            {"skillUsage": {"skill-001": {"usageCount": 12, "lastUsedAt": now_ms - 3 * day}}}
        ),
        encoding="utf-8",
    )
    view = BudgetView()
    qtbot.addWidget(view)
    wired(view, tmp_path, root, "claude-code")
    model = view.outcomes
    rows = {model.index(r, 0).data(): r for r in range(model.rowCount())}
    used = model.index(rows["skill-001"], 5)
    # 12 x 0.5^(3/7): Claude Code's own weighing of what it recorded
    assert used.data() == f"{12 * 0.5 ** (3 / 7):.2f}"
    assert "12 uses, last 3 days ago" in used.data(Qt.ItemDataRole.ToolTipRole)
    unused = model.index(rows["skill-000"], 5)
    assert unused.data() == "0" and "records no use" in unused.data(Qt.ItemDataRole.ToolTipRole)
    view.set_usage("skill-000", 5)  # a value set here wins, and says so
    assert model.index(rows["skill-000"], 5).data() == "5"


def test_the_bar_names_the_skill_under_the_pointer_and_counts_each_outcome(qtbot, tmp_path) -> None:  # type: ignore[no-untyped-def]
    from PySide6.QtCore import QPoint, QPointF, Qt
    from PySide6.QtGui import QMouseEvent
    from PySide6.QtWidgets import QApplication, QToolTip

    from skillprism.gui.budget_view import BudgetBar

    root = tmp_path / "skills"
    make_skills(root, 40)
    engine, _loaded = open_view([str(root)], "claude-code", str(tmp_path))
    from skillprism.core.budget_inputs import BudgetInputs

    # room for the names and some of the descriptions beside the bundled skills' entries
    result = answer(engine, "tier1", "claude-code", BudgetInputs(budget_chars=room(4_000)))
    bar = BudgetBar()
    qtbot.addWidget(bar)
    bar.resize(800, 46)
    bar.show()
    bar.set_result(result)
    bar.grab()  # paints
    counts = {o: len(result.by_outcome(o)) for o in {e.outcome for e in result.entries}}
    for outcome, n in counts.items():
        assert f"{n} {outcome}" in bar._caption
    # the first skill with characters is under the bar's left edge
    first = next(e for e in result.entries if e.chars)
    point = QPointF(6, 20)
    event = QMouseEvent(
        QMouseEvent.Type.MouseMove,
        point,
        QPointF(bar.mapToGlobal(QPoint(6, 20))),
        Qt.MouseButton.NoButton,
        Qt.MouseButton.NoButton,
        Qt.KeyboardModifier.NoModifier,
    )
    QApplication.sendEvent(bar, event)
    assert QToolTip.text().startswith(f"{first.name}: {first.outcome}")
