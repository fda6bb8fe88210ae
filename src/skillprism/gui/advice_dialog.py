"""The budget advisor's dialog: what it takes for every skill the runtime lists to keep its full
description, at the budget view's context window (core/advisor.py, through the engine). Two ways,
each shown as the change it writes before anything is written: shorten the longest descriptions
to one cap (quick fixes, at sentence or word boundaries), or turn the least-used skills off in the
runtime's own settings file. Edit → Undo takes either back."""

from __future__ import annotations

import html
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QPlainTextEdit,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from skillprism.gui.fix_dialog import DiffHighlighter


def _mono(text: str, dark: bool, diff: bool = False) -> QPlainTextEdit:
    view = QPlainTextEdit(readOnly=True)
    view.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
    view.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
    view.setPlainText(text)
    if diff:
        view.highlighter = DiffHighlighter(view.document(), dark)  # type: ignore[attr-defined]
    return view


class AdviceDialog(QDialog):
    """See the module doc. `sig_shorten(ids)` / `sig_disable()` apply a plan."""

    sig_shorten = Signal(list)
    sig_disable = Signal()

    def __init__(self, view: Any, dark: bool = False, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.view = view
        self.setWindowTitle(f"Budget Advisor: {view.title}")
        self.resize(960, 620)
        intro = QLabel()
        intro.setWordWrap(True)
        intro.setTextFormat(Qt.TextFormat.RichText)
        if view.already_full:
            intro.setText(
                f"Every skill {html.escape(view.title)} lists keeps its full description at this "
                "context window: nothing to do."
            )
        else:
            intro.setText(
                f"For every skill {html.escape(view.title)} lists to keep its full description, "
                "computed with its own budget model: shorten the longest descriptions, or turn "
                "the least-used skills off in its own settings. Each way is shown as what it "
                "writes; nothing is written until you choose, and <b>Edit → Undo</b> takes it "
                "back."
            )
        self.tabs = QTabWidget()
        self.tabs.addTab(_mono(view.text, dark), "Plan")
        if view.shorten_ids:
            self.tabs.addTab(_mono(view.shorten_diff, dark, diff=True), "Shorten: the change")
        if view.disable is not None:
            head = f"{view.disable.path}\n\n"
            self.tabs.addTab(
                _mono(head + view.disable.diff, dark, diff=True), "Turn off: the change"
            )
        notes = []
        if not view.already_full and not view.shorten_ids:
            notes.append("Shortening cannot make every entry full here.")
        if view.disable_problem:
            notes.append(html.escape(view.disable_problem))
        self.notes = QLabel("<br>".join(notes))
        self.notes.setWordWrap(True)
        self.notes.setTextFormat(Qt.TextFormat.RichText)
        self.notes.setVisible(bool(notes))

        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        self.shorten = self.buttons.addButton(
            f"Shorten {len(view.shorten_ids)} Description(s)",
            QDialogButtonBox.ButtonRole.ActionRole,
        )
        self.shorten.setEnabled(bool(view.shorten_ids))
        self.shorten.clicked.connect(self._shorten)
        self.disable = self.buttons.addButton(
            f"Turn Off {view.disable_count} Skill(s)", QDialogButtonBox.ButtonRole.ActionRole
        )
        self.disable.setEnabled(view.disable is not None)
        self.disable.clicked.connect(self._disable)
        for button in (self.shorten, self.disable):
            button.setVisible(not view.already_full)
        self.buttons.rejected.connect(self.reject)

        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(self.tabs, 1)
        layout.addWidget(self.notes)
        layout.addWidget(self.buttons)

    def _shorten(self) -> None:
        self.sig_shorten.emit(list(self.view.shorten_ids))
        self.accept()

    def _disable(self) -> None:
        self.sig_disable.emit()
        self.accept()
