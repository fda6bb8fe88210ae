"""The budget advisor in the window: What Would It Take… shows both plans as the changes they
write; Shorten writes the description cuts (and only then), after which every listed skill keeps
its full description; Turn Off writes the runtime's own setting; Edit → Undo takes either back
byte for byte."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

pytest.importorskip("PySide6.QtWidgets")

from PySide6.QtCore import QSettings

from skillprism.gui.main_window import MainWindow

LONG = (
    "Builds quarterly finance reports from ledger exports. It reconciles accounts, flags "
    "anomalies and drafts the commentary a controller signs off. Use it when a ledger export "
    "arrives or someone asks for the quarter's numbers. "
)


@pytest.fixture
def window(qtbot, tmp_path):  # type: ignore[no-untyped-def]
    root = tmp_path / "skills"
    for i in range(12):
        d = root / f"report-{i:02d}"
        d.mkdir(parents=True)
        (d / "SKILL.md").write_text(
            f"---\nname: report-{i:02d}\ndescription: {LONG * 3}\n---\n# Report {i}\n",
            encoding="utf-8",
        )
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    w = MainWindow(
        roots=[str(root)], profile="codex", project=str(tmp_path), dark=False, settings=settings
    )
    qtbot.addWidget(w)
    w.resize(1300, 900)
    w.show()
    with qtbot.waitSignal(w.sig_catalog_applied, timeout=20000):
        w.reload()
    w.budget_dock.raise_()
    w.budget.fixed.setValue(4500)  # every entry, and a little of each description
    qtbot.waitUntil(lambda: not w.engine.pending("tier1"), timeout=20000)
    yield w, root
    w.shutdown()


def advice(w, qtbot):  # type: ignore[no-untyped-def]
    old = w.changes.advice_dialog
    w.budget.advise_button.click()
    qtbot.waitUntil(lambda: w.changes.advice_dialog not in (None, old), timeout=20000)
    return w.changes.advice_dialog


def test_shorten_writes_the_cuts_then_undo(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    w, root = window
    before = {p: p.read_bytes() for p in root.glob("*/SKILL.md")}
    dialog = advice(w, qtbot)
    view = dialog.view
    assert not view.already_full and view.shorten_ids and dialog.shorten.isEnabled()
    assert "either shorten" in view.text and "-description:" in view.shorten_diff
    assert "a//" not in view.shorten_diff  # paths as git shows them
    assert {p: p.read_bytes() for p in before} == before  # shown, nothing written
    with qtbot.waitSignals([w.sig_fixes_done, w.sig_catalog_applied], timeout=20000):
        dialog.shorten.click()  # written, then rescanned
    after = {p: p.read_bytes() for p in before}
    assert all(len(after[p]) < len(before[p]) for p in before)
    again = advice(w, qtbot)
    assert again.view.already_full  # every listed skill keeps its full description now
    again.close()
    with qtbot.waitSignal(w.sig_fixes_done, timeout=20000):
        w.undo()
    assert {p: p.read_bytes() for p in before} == before


def test_turn_off_writes_the_runtimes_setting_then_undo(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    w, _root = window
    config = Path(os.environ["HOME"]) / ".codex" / "config.toml"
    dialog = advice(w, qtbot)
    assert dialog.view.disable is not None and dialog.disable.isEnabled()
    assert "enabled = false" in dialog.view.disable.diff
    assert not config.exists()
    with qtbot.waitSignal(w.sig_fixes_done, timeout=20000):
        dialog.disable.click()
    text = config.read_text(encoding="utf-8")
    assert text.count("enabled = false") == dialog.view.disable_count
    with qtbot.waitSignal(w.sig_fixes_done, timeout=20000):
        w.undo()
    assert not config.exists() or "enabled = false" not in config.read_text(encoding="utf-8")
