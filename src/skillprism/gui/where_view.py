"""The Where tab: for the selected skill, every runtime's answer to "where would you find it?"
(core/placement.py, through the engine): whether it finds the skill where it is now, and the
exact folders it reads skills from, strongest first, with a link to copy the path or a symlink
command. The engine prepares one block per runtime; this view shows them and filters them by a
runtime's name or level as the user types."""

from __future__ import annotations

import html

from PySide6.QtCore import QUrl, Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QPushButton, QVBoxLayout, QWidget

from skillprism.engine.views import COPY_SCHEME, WherePage
from skillprism.gui.browser import SafeBrowser


class WhereView(QWidget):
    """Shows a prepared WherePage (see the module doc)."""

    sig_copied = Signal(str)
    """Something was copied to the clipboard (what)."""
    sig_install_requested = Signal(str)
    """The user wants the skill shown installed where runtimes find it (its key)."""

    def __init__(self, parent: QWidget | None = None, *, dark: bool = False) -> None:
        super().__init__(parent)
        self.dark = dark
        self.page: WherePage | None = None
        self.key = ""
        self.filter = QLineEdit(placeholderText="Filter runtimes (name or level)")
        self.filter.setClearButtonEnabled(True)
        self.filter.textChanged.connect(lambda _t: self._render())
        self.install = QPushButton("Install for Other Runtimes…")
        self.install.setToolTip(
            "Copy or link this skill into the folders the runtimes you choose read skills from; "
            "you see where each copy goes and what it would clash with before anything is written"
        )
        self.install.setEnabled(False)
        self.install.clicked.connect(lambda: self.sig_install_requested.emit(self.key))
        self.browser = SafeBrowser()
        self.browser.anchorClicked.connect(self._on_link)
        self.status = QLabel("")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 4, 0, 0)
        top = QHBoxLayout()
        top.addWidget(self.filter, 1)
        top.addWidget(self.install)
        layout.addLayout(top)
        layout.addWidget(self.browser, 1)
        layout.addWidget(self.status)
        self.show_pending()

    def show_pending(self, text: str = "") -> None:
        self.page = None
        self.install.setEnabled(False)
        self.browser.setHtml(
            "<p style='color:gray; margin:24px'>"
            + html.escape(text or "Select a skill to see where each runtime would find it.")
            + "</p>"
        )

    def show_report(self, page: WherePage) -> None:
        self.key = page.key
        self.install.setEnabled(not page.error)
        if page.error:
            self.page = None
            self.browser.setHtml(f"<p style='color:#b3261e'>{html.escape(page.error)}</p>")
            return
        self.page = page
        self._render()

    def _render(self) -> None:
        page = self.page
        if page is None:
            return
        fg = "#e6edf3" if self.dark else "#1f2328"
        terms = self.filter.text().lower().split()
        blocks = [block for hay, block in page.blocks if all(t in hay for t in terms)]
        if not blocks:
            blocks.append("<p>No runtime matches the filter.</p>")
        self.browser.setHtml(f"<div style='color:{fg}'>{page.head}{''.join(blocks)}</div>")

    def _on_link(self, url: QUrl) -> None:
        if url.scheme() == COPY_SCHEME:
            text = url.path()
            QGuiApplication.clipboard().setText(text)
            self.status.setText(f"Copied: {text}")
            self.sig_copied.emit(text)
