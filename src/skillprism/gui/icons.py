"""State icons drawn in code: a distinct shape *and* glyph per state, so state never rests on
colour alone (the tree also shows the state as text)."""

from __future__ import annotations

from functools import cache

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QIcon, QPainter, QPainterPath, QPen, QPixmap, QPolygonF

# state -> (colour, shape, glyph)
_STYLE = {
    "ok": ("#2e9d4f", "circle", "✓"),
    "warning": ("#d08a00", "triangle", "!"),
    "error": ("#d23b3b", "square", "×"),
    "shadowed": ("#7d8590", "ring", "≡"),
    "skipped": ("#b0571f", "square", "–"),
    "not-discovered": ("#8a8f98", "ring", "?"),
    "info": ("#2f7fd6", "circle", "i"),
    "root": ("#5b6ee1", "folder", ""),
    "file": ("#8a8f98", "page", ""),
    "fix": ("#e0a800", "bulb", ""),  # a quick fix is offered
}
STATE_TEXT = {
    "ok": "ok",
    "warning": "warning",
    "error": "error",
    "shadowed": "shadowed",
    "skipped": "skipped",
    "not-discovered": "not discovered",
}


def _paint(kind: str, size: int, dpr: float) -> QPixmap:
    color, shape, glyph = _STYLE[kind]
    pm = QPixmap(int(size * dpr), int(size * dpr))
    pm.setDevicePixelRatio(dpr)
    pm.fill(Qt.GlobalColor.transparent)
    p = QPainter(pm)
    p.setRenderHint(QPainter.RenderHint.Antialiasing)
    c = QColor(color)
    r = QRectF(1.5, 1.5, size - 3, size - 3)
    p.setPen(QPen(c.darker(130), 1.2))
    p.setBrush(c)
    if shape == "circle":
        p.drawEllipse(r)
    elif shape == "square":
        p.drawRoundedRect(r, 2.5, 2.5)
    elif shape == "triangle":
        p.drawPolygon(
            QPolygonF(
                [QPointF(size / 2, 1.5), QPointF(size - 1.5, size - 2), QPointF(1.5, size - 2)]
            )
        )
    elif shape == "ring":
        p.setBrush(Qt.BrushStyle.NoBrush)
        p.setPen(QPen(c, 2.0))
        p.drawEllipse(r.adjusted(1, 1, -1, -1))
    elif shape == "folder":
        path = QPainterPath()
        path.addRoundedRect(QRectF(1.5, size * 0.3, size - 3, size * 0.6), 2, 2)
        path.addRoundedRect(QRectF(1.5, size * 0.18, size * 0.45, size * 0.25), 1.5, 1.5)
        p.drawPath(path.simplified())
    elif shape == "bulb":
        p.drawEllipse(QRectF(size * 0.2, 1.5, size * 0.6, size * 0.6))
        p.setBrush(QColor("#7d8590"))
        p.setPen(Qt.PenStyle.NoPen)
        p.drawRoundedRect(QRectF(size * 0.35, size * 0.62, size * 0.3, size * 0.3), 1.2, 1.2)
    elif shape == "page":
        p.setBrush(QColor("#f4f5f7"))
        p.drawRoundedRect(QRectF(size * 0.2, 1.5, size * 0.6, size - 3), 1.5, 1.5)
    if glyph:
        font = QFont()
        font.setBold(True)
        font.setPixelSize(int(size * 0.62))
        p.setFont(font)
        p.setPen(QColor("white") if shape not in ("ring",) else c)
        p.drawText(
            QRectF(0, 0 if shape != "triangle" else size * 0.12, size, size),
            Qt.AlignmentFlag.AlignCenter,
            glyph,
        )
    p.end()
    return pm


@cache
def state_icon(kind: str, dpr: float = 2.0) -> QIcon:
    """The icon for a skill state (or 'root', 'file', 'info', 'fix'), crisp on HiDPI screens."""
    icon = QIcon()
    for size in (16, 20, 24, 32):
        icon.addPixmap(_paint(kind if kind in _STYLE else "info", size, dpr))
    return icon


def app_icon() -> QIcon:
    """The application icon, drawn from the SVG master that the packaged icons are made from
    (a null icon if the file is missing: the window still opens)."""
    from skillprism.paths import app_icon_path

    path = app_icon_path()
    return QIcon(str(path)) if path.is_file() else QIcon()
