"""How the window shows that something went wrong behind it: a banner when the engine process
stopped (with Restart), and the details of an unexpected error (its traceback, also in the log
file) in a dialog the user can copy for a bug report."""

from __future__ import annotations

import html

from PySide6.QtCore import Signal
from PySide6.QtGui import QFontDatabase, QGuiApplication
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from skillprism import APP_NAME, __version__
from skillprism.engine.views import Failure


class EngineBanner(QFrame):
    """A strip above the panes: the engine stopped; what is shown stays; Restart."""

    sig_restart = Signal()
    """The user asked for a new engine."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("engine-banner")
        self.setStyleSheet(
            "#engine-banner { background: #fde7e9; border-bottom: 1px solid #d23b3b; }"
            "#engine-banner QLabel { color: #5c1017; }"
        )
        self.label = QLabel()
        self.label.setWordWrap(True)
        self.restart = QPushButton("Restart Engine")
        self.restart.clicked.connect(self.sig_restart.emit)
        row = QHBoxLayout(self)
        row.setContentsMargins(10, 6, 10, 6)
        row.addWidget(self.label, 1)
        row.addWidget(self.restart)
        self.hide()

    def show_message(self, why: str) -> None:
        self.label.setText(
            f"<b>{html.escape(why)}</b> What you see is kept as it was; it is not updated until "
            "the engine runs again."
        )
        self.show()

    def hide_message(self) -> None:
        self.hide()


class FailureDetails:
    """A status-bar button that shows the last unexpected error's details."""

    def __init__(self, parent: QWidget) -> None:
        self.parent = parent
        self.failure: Failure | None = None
        self.log_path = ""
        self.button = QToolButton()
        self.button.setText("Error details…")
        self.button.setToolTip("An unexpected error happened: show what to report")
        self.button.clicked.connect(self.open)
        self.button.hide()

    def show_failure(self, failure: Failure) -> None:
        self.failure = failure
        self.button.show()

    def report_text(self) -> str:
        failure = self.failure
        if failure is None:
            return ""
        return f"{APP_NAME} {__version__}\n{failure.message}\n\n{failure.details}".rstrip() + "\n"

    def open(self) -> None:
        if self.failure is None:
            return
        dialog = QDialog(self.parent)
        dialog.setWindowTitle(f"Error Details — {APP_NAME}")
        dialog.resize(760, 460)
        text = QPlainTextEdit(readOnly=True)
        text.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        text.setPlainText(self.report_text())
        where = self.failure.log_path or self.log_path
        note = QLabel(
            f"{html.escape(self.failure.message)}<br><span style='color:gray'>Also kept in "
            f"{html.escape(where)}</span>"
            if where
            else html.escape(self.failure.message)
        )
        note.setWordWrap(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        copy = buttons.addButton("Copy for a Bug Report", QDialogButtonBox.ButtonRole.ActionRole)
        copy.clicked.connect(lambda: QGuiApplication.clipboard().setText(self.report_text()))
        buttons.rejected.connect(dialog.reject)
        layout = QVBoxLayout(dialog)
        layout.addWidget(note)
        layout.addWidget(text, 1)
        layout.addWidget(buttons)
        dialog.show()
        self.button.hide()
