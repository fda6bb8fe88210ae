"""A table view that says why it is empty instead of showing a blank grid."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QPainter, QPalette
from PySide6.QtWidgets import QTableView, QWidget


class PlaceholderTableView(QTableView):
    """`placeholder()` is drawn centred in the viewport while the model has no rows."""

    def __init__(self, placeholder: Callable[[], str], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._placeholder = placeholder

    def paintEvent(self, event: Any) -> None:
        super().paintEvent(event)
        model = self.model()
        if model is None or model.rowCount() > 0:
            return
        text = self._placeholder()
        if not text:
            return
        painter = QPainter(self.viewport())
        painter.setPen(self.palette().color(QPalette.ColorRole.PlaceholderText))
        painter.drawText(
            self.viewport().rect().adjusted(12, 12, -12, -12),
            Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap,
            text,
        )
        painter.end()
