"""A one-line label that never makes the window wider, however long its text.

A plain `QLabel` asks for the whole width of its text as its minimum, so a long line (a prompt
from an eval set, an error) set into it widens its dock and with it the whole window, and each
new text lays the window out again. `LineLabel` takes the width it is given and ends what does
not fit with "…"; the whole text is its tooltip.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QPainter
from PySide6.QtWidgets import QLabel, QSizePolicy, QWidget


class LineLabel(QLabel):
    """See the module doc."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)

    def setText(self, text: str) -> None:
        super().setText(text)
        self.setToolTip(text)

    def minimumSizeHint(self) -> QSize:
        return QSize(0, super().minimumSizeHint().height())

    def paintEvent(self, event: Any) -> None:
        rect = self.contentsRect()
        text = self.fontMetrics().elidedText(self.text(), Qt.TextElideMode.ElideRight, rect.width())
        painter = QPainter(self)
        painter.drawText(rect, int(self.alignment()), text)
        painter.end()
