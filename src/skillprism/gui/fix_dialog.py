"""The quick-fix dialog: the fixes the engine offers, each with its diff, checked by the user and
applied in one batch (`sig_apply`). Nothing is written until Apply; a batch is undone in one step
(Edit → Undo Last Fixes). Each fix says how sure it is (safe: only how something is written
changes; review: what it says can change) and which runtimes it helps, found by checking the
fixed file under every runtime, not declared."""

from __future__ import annotations

import html
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor, QFontDatabase, QSyntaxHighlighter, QTextCharFormat
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from skillprism.engine.views import FixesView, FixRow
from skillprism.gui.icons import state_icon

ID_ROLE = int(Qt.ItemDataRole.UserRole) + 1


class DiffHighlighter(QSyntaxHighlighter):
    """Added lines green, removed lines red, hunk headers muted (readable on both palettes)."""

    def __init__(self, document: Any, dark: bool) -> None:
        super().__init__(document)
        self._formats: dict[str, QTextCharFormat] = {}
        for mark, light, darkish in (
            ("+", "#1a7f37", "#56d364"),
            ("-", "#c0392b", "#ff7b72"),
            ("@", "#6e7781", "#8b949e"),
        ):
            fmt = QTextCharFormat()
            fmt.setForeground(QColor(darkish if dark else light))
            self._formats[mark] = fmt

    def highlightBlock(self, text: str) -> None:
        if text.startswith(("+++", "---", "diff ")):
            self.setFormat(0, len(text), self._formats["@"])
        elif text[:1] in self._formats:
            self.setFormat(0, len(text), self._formats[text[:1]])


class FixDialog(QDialog):
    """The fixes offered, checked by default when they are safe or remove `preferred`'s code."""

    sig_apply = Signal(list)
    """The ids of the fixes the user checked and applied."""

    def __init__(
        self,
        view: FixesView,
        preferred: str = "",
        dark: bool = False,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.view = view
        self.setWindowTitle(
            f"Quick Fixes for {view.code}" if view.code and not view.key else "Quick Fixes"
        )
        self.resize(980, 640)
        rows = view.rows
        files = len({r.path for r in rows})
        intro = QLabel(
            f"{len(rows)} fix(es) in {files} file(s), offered under {html.escape(view.title)}. "
            "Each was checked: applied, it removes its finding under the runtimes it names. "
            "Nothing is written until you apply; <b>Edit → Undo</b> takes the batch back, and "
            "a backup of each file is kept (<code>skillprism fix --backups</code> says where)."
            if rows
            else "No fix is offered here: nothing found has a mechanical remedy that removes "
            "it under this runtime."
        )
        intro.setWordWrap(True)
        intro.setTextFormat(Qt.TextFormat.RichText)
        self.list = QListWidget()
        self.list.setUniformItemSizes(True)
        for row in rows:
            item = QListWidgetItem(state_icon("fix" if row.confidence == "safe" else "warning"), "")
            item.setText(self._label(row))
            item.setData(ID_ROLE, row.id)
            item.setToolTip(
                f"{row.path}\n{row.title}\nConfidence: {row.confidence}"
                f"{' (the meaning cannot change)' if row.confidence == 'safe' else ' (read it first: what it says can change)'}"
                f"\nHelps: {row.helps or 'the runtime shown'}"
            )
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            wanted = row.confidence == "safe" or (preferred and row.code == preferred)
            item.setCheckState(Qt.CheckState.Checked if wanted else Qt.CheckState.Unchecked)
            self.list.addItem(item)
        self.list.currentRowChanged.connect(self._show_diff)
        self.list.itemChanged.connect(lambda _item: self._count())
        self.details = QLabel()
        self.details.setWordWrap(True)
        self.details.setTextFormat(Qt.TextFormat.RichText)
        self.details.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.diff = QPlainTextEdit(readOnly=True)
        self.diff.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.diff.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self._highlighter = DiffHighlighter(self.diff.document(), dark)
        below = QWidget()
        bl = QVBoxLayout(below)
        bl.setContentsMargins(0, 0, 0, 0)
        bl.addWidget(self.details)
        bl.addWidget(self.diff, 1)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.list)
        split.addWidget(below)
        split.setSizes([220, 420])
        self.buttons = QDialogButtonBox()
        self.apply = self.buttons.addButton("Apply", QDialogButtonBox.ButtonRole.AcceptRole)
        self.buttons.addButton(QDialogButtonBox.StandardButton.Cancel)
        self.check_safe = QPushButton("Check Only Safe Fixes")
        self.check_safe.clicked.connect(self._only_safe)
        self.buttons.addButton(self.check_safe, QDialogButtonBox.ButtonRole.ResetRole)
        self.buttons.accepted.connect(self._accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(split, 1)
        layout.addWidget(self.buttons)
        if rows:
            self.list.setCurrentRow(0)
        self._count()

    @staticmethod
    def _label(row: FixRow) -> str:
        where = row.path.rsplit("/", 2)
        short = "/".join(where[-2:]) if len(where) > 1 else row.path
        line = f":{row.line}" if row.line else ""
        title = row.title.split(" (", 1)[0]  # (the whole title is in the details below)
        return f"{row.code}  {title}  [{row.confidence}]  {short}{line}"

    def checked(self) -> list[int]:
        return [
            int(self.list.item(i).data(ID_ROLE))
            for i in range(self.list.count())
            if self.list.item(i).checkState() == Qt.CheckState.Checked
        ]

    def _count(self) -> None:
        n = len(self.checked())
        self.apply.setText(f"Apply {n} Fix{'es' if n != 1 else ''}")
        self.apply.setEnabled(n > 0)

    def _only_safe(self) -> None:
        for i in range(self.list.count()):
            item = self.list.item(i)
            safe = self.view.rows[i].confidence == "safe"
            item.setCheckState(Qt.CheckState.Checked if safe else Qt.CheckState.Unchecked)

    def _show_diff(self, at: int) -> None:
        if 0 <= at < len(self.view.rows):
            row = self.view.rows[at]
            sure = (
                "safe: only how it is written changes"
                if row.confidence == "safe"
                else "review: what it says can change"
            )
            self.details.setText(
                f"<b>{html.escape(row.code)}</b> {html.escape(row.title)}<br>"
                f"{html.escape(row.path)}{f':{row.line}' if row.line else ''} · {sure} · "
                f"helps {html.escape(row.helps or 'the runtime shown')}"
            )
            self.diff.setPlainText(row.diff)

    def _accept(self) -> None:
        ids = self.checked()
        if ids:
            self.sig_apply.emit(ids)
            self.accept()
