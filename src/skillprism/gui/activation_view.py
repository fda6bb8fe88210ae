"""The activation test bench: what activating the selected skill with these arguments delivers
under the selected runtime. The engine activates it through the Workspace, as
`skillprism activate` does (the same token counter and findings); this view asks
(`sig_wanted`) and shows the page it answers with."""

from __future__ import annotations

from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QVBoxLayout,
    QWidget,
)

from skillprism.engine.views import Page
from skillprism.gui.browser import SafeBrowser


class ActivationView(QWidget):
    sig_wanted = Signal(str, str, bool)
    """The activation is wanted again: (arguments, invoker "model" | "user", first activation)."""

    def __init__(self, parent: QWidget | None = None, dark: bool = False) -> None:
        super().__init__(parent)
        self.dark = dark
        self.key = ""
        self.args = QLineEdit(
            placeholderText='Arguments, as typed after /name (e.g. 1.4.0 "release managers")'
        )
        self.args.setClearButtonEnabled(True)
        self.invoker = QComboBox()
        self.invoker.addItem("Model tool call", "model")
        self.invoker.addItem("User slash command", "user")
        self.repeat = QCheckBox("Repeat activation")
        self.repeat.setToolTip("Activated before in this session (consent already given)")
        self.view = SafeBrowser()
        self._timer = QTimer(self, singleShot=True, interval=120)
        self._timer.timeout.connect(self.refresh)
        self.args.textChanged.connect(lambda _t: self._timer.start())
        self.invoker.currentIndexChanged.connect(self.refresh)
        self.repeat.toggled.connect(self.refresh)
        row = QHBoxLayout()
        row.addWidget(QLabel("Arguments:"))
        row.addWidget(self.args, 1)
        row.addWidget(self.invoker)
        row.addWidget(self.repeat)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(row)
        layout.addWidget(self.view, 1)
        self.show_skill("", "")

    def show_skill(self, key: str, directory: str) -> None:
        """The skill to activate ("" for none); its page is asked for at once."""
        self.key = key
        if directory:
            self.view.set_allowed_root(directory)
        self.refresh()

    def refresh(self) -> None:
        if not self.key:
            self.view.setHtml("<p style='color:gray'>Select a skill to try activating it.</p>")
            return
        self.sig_wanted.emit(
            self.args.text(), self.invoker.currentData(), not self.repeat.isChecked()
        )

    def show_page(self, page: Page) -> None:
        if page.key == self.key:
            self.view.setHtml(page.html)
