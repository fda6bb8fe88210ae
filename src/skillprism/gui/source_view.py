"""SKILL.md as text: line numbers, YAML/Markdown highlighting, diagnostics marked in the gutter
(by icon) and underlined on their line; `go_to_line` is how a problem jumps to its place."""

from __future__ import annotations

import re
from typing import ClassVar

from PySide6.QtCore import QEvent, QPoint, QRect, QSize, Qt, Signal
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontDatabase,
    QPainter,
    QPalette,
    QSyntaxHighlighter,
    QTextBlock,
    QTextCharFormat,
    QTextCursor,
    QTextFormat,
)
from PySide6.QtWidgets import QPlainTextEdit, QTextEdit, QToolTip, QWidget

from skillprism.core.diagnostics import Diagnostic
from skillprism.core.vocabulary import FIXABLE_CODES
from skillprism.gui.icons import state_icon

_KEY = re.compile(r"^(\s*-?\s*)([A-Za-z_][\w-]*)(:)(\s|$)")
_HEADING = re.compile(r"^#{1,6}\s")
_FENCE = re.compile(r"^\s*(```|~~~)")
_LINK = re.compile(r"!?\[[^\]]*\]\([^)]*\)")
_INLINE = re.compile(r"`[^`]+`")


class SkillHighlighter(QSyntaxHighlighter):
    """YAML keys in the frontmatter; headings, links, inline code and fences in the body.
    Block state: 1 = inside frontmatter, 2 = inside a fenced code block, 3 = body."""

    def __init__(self, document, dark: bool) -> None:  # type: ignore[no-untyped-def]
        super().__init__(document)
        self.set_dark(dark)

    def set_dark(self, dark: bool) -> None:
        def fmt(color: str, bold: bool = False) -> QTextCharFormat:
            f = QTextCharFormat()
            f.setForeground(QColor(color))
            if bold:
                f.setFontWeight(QFont.Weight.Bold)
            return f

        if dark:
            self.key, self.delim = fmt("#7cc4fa", True), fmt("#c586c0", True)
            self.heading, self.link, self.code = (
                fmt("#e5c07b", True),
                fmt("#61afef"),
                fmt("#98c379"),
            )
        else:
            self.key, self.delim = fmt("#0b5cad", True), fmt("#8a2be2", True)
            self.heading, self.link, self.code = (
                fmt("#8a5a00", True),
                fmt("#1a56c4"),
                fmt("#2e7d32"),
            )
        self.rehighlight()

    def highlightBlock(self, text: str) -> None:
        prev = self.previousBlockState()
        first = self.currentBlock().blockNumber() == 0
        if first and text.rstrip() == "---":
            self.setFormat(0, len(text), self.delim)
            self.setCurrentBlockState(1)
            return
        if prev == 1:
            if text.rstrip() == "---":
                self.setFormat(0, len(text), self.delim)
                self.setCurrentBlockState(3)
                return
            m = _KEY.match(text)
            if m:
                self.setFormat(m.start(2), len(m.group(2)), self.key)
            self.setCurrentBlockState(1)
            return
        if _FENCE.match(text):
            self.setFormat(0, len(text), self.code)
            self.setCurrentBlockState(3 if prev == 2 else 2)
            return
        if prev == 2:
            self.setFormat(0, len(text), self.code)
            self.setCurrentBlockState(2)
            return
        self.setCurrentBlockState(3)
        if _HEADING.match(text):
            self.setFormat(0, len(text), self.heading)
        for m in _LINK.finditer(text):
            self.setFormat(m.start(), m.end() - m.start(), self.link)
        for m in _INLINE.finditer(text):
            self.setFormat(m.start(), m.end() - m.start(), self.code)


def _tooltip(found: list[Diagnostic]) -> str:
    """Findings as a tooltip: code, severity and message, what the runtime does, how to fix."""
    parts = []
    for d in found:
        lines = [f"{d.code} ({d.severity.value}) {d.message}"]
        if d.effect:
            lines.append(f"Effect: {d.effect}")
        if d.hint:
            lines.append(f"Fix: {d.hint}")
        parts.append("\n".join(lines))
    return "\n\n".join(parts)


def _show_tooltip(widget: QWidget, event, tip: str) -> bool:  # type: ignore[no-untyped-def]
    """Answer a tooltip event with `tip` (none: hide any tooltip and let the event go on)."""
    if tip:
        QToolTip.showText(event.globalPos(), tip, widget)
    else:
        QToolTip.hideText()
        event.ignore()
    return True


def _word_end(text: str, start: int) -> int:
    """Where the word (or run of non-space characters) at `start` ends; at least one character."""
    end = start
    while end < len(text) and not text[end].isspace():
        end += 1
    return max(end, start + 1)


class _Gutter(QWidget):
    def __init__(self, editor: SourceView) -> None:
        super().__init__(editor)
        self.editor = editor

    def event(self, event) -> bool:  # type: ignore[no-untyped-def]
        if event.type() == QEvent.Type.ToolTip:
            return _show_tooltip(
                self, event, self.editor.mark_at(self.editor.line_at_y(event.pos().y()))
            )
        return super().event(event)

    def sizeHint(self) -> QSize:
        return QSize(self.editor.gutter_width(), 0)

    def mousePressEvent(self, event) -> None:  # type: ignore[no-untyped-def]
        code = self.editor.fixable_at(self.editor.line_at_y(event.position().toPoint().y()))
        if code and event.button() == Qt.MouseButton.LeftButton:
            self.editor.sig_fix_requested.emit(code)
            return
        super().mousePressEvent(event)

    def paintEvent(self, event) -> None:  # type: ignore[no-untyped-def]
        self.editor.paint_gutter(event)


class SourceView(QPlainTextEdit):
    _SEVERITY_ORDER: ClassVar[dict[str, int]] = {"error": 0, "warning": 1, "info": 2}

    sig_fix_requested = Signal(str)
    """The light bulb of a line was clicked: the quick fixes for this code (of this skill)."""

    def __init__(self, parent: QWidget | None = None, dark: bool = False) -> None:
        super().__init__(parent)
        self.setReadOnly(True)
        # long lines (a description, a table row) wrap at the view's edge, nothing hides sideways
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self._gutter = _Gutter(self)
        self._marks: dict[int, tuple[str, str]] = {}  # line -> (severity, tooltip)
        self._fixable: dict[int, str] = {}  # line -> the code of a finding some fix handles
        self.highlighter = SkillHighlighter(self.document(), dark)
        self.blockCountChanged.connect(self._update_margins)
        self.updateRequest.connect(self._on_update_request)
        self._update_margins()

    def set_source(self, text: str, diagnostics: list[Diagnostic]) -> None:
        # One mark per line (the most severe finding's icon); its tooltip lists every finding
        # on the line, with what the runtime does and how to fix it.
        self._marks = {}
        by_line: dict[int, list[Diagnostic]] = {}
        ordered = sorted(
            diagnostics, key=lambda d: (self._SEVERITY_ORDER[d.severity.value], d.column)
        )
        for d in ordered:
            if d.line:
                by_line.setdefault(d.line, []).append(d)
        self._fixable = {}
        for line, found in by_line.items():
            tip = _tooltip(found)
            fixable = next((d.code for d in found if d.code in FIXABLE_CODES), "")
            if fixable:
                self._fixable[line] = fixable
                tip += "\n\nClick the light bulb for a quick fix (with a diff; nothing is written before)."
            self._marks[line] = (found[0].severity.value, tip)
        # Drop the old underlines first: each holds a text cursor that the document would
        # otherwise update on every block it removes and inserts (quadratic on long files).
        self._diag_selections = []
        self._spans: list[tuple[int, int, int, str]] = []  # (line, start, end, tooltip)
        self.setExtraSelections([])
        self.setPlainText(text)
        selections = []
        colors = {"error": "#d23b3b", "warning": "#d08a00", "info": "#2f7fd6"}
        for line, found in by_line.items():
            block = self.document().findBlockByNumber(line - 1)
            if not block.isValid():
                continue
            length = max(block.length() - 1, 0)
            for d in found:
                # the reported column to the end of its word; the whole line without a column
                if d.column and d.column - 1 < length:
                    start = d.column - 1
                    end = _word_end(block.text(), start)
                else:
                    start, end = 0, length
                sel = QTextEdit.ExtraSelection()
                fmt = QTextCharFormat()
                fmt.setUnderlineStyle(QTextCharFormat.UnderlineStyle.WaveUnderline)
                fmt.setUnderlineColor(QColor(colors[d.severity.value]))
                fmt.setToolTip(_tooltip([d]))
                sel.format = fmt
                cursor = QTextCursor(block)
                cursor.setPosition(block.position() + start)
                cursor.setPosition(block.position() + end, QTextCursor.MoveMode.KeepAnchor)
                sel.cursor = cursor
                selections.append(sel)
                self._spans.append((line, start, end, _tooltip([d])))
        self._diag_selections = selections
        self.setExtraSelections(selections)
        if self._gutter.width() != self.gutter_width():  # (a column for light bulbs, or none)
            # only then: new margins lay the whole text out again
            self._update_margins()
            cr = self.contentsRect()
            self._gutter.setGeometry(QRect(cr.left(), cr.top(), self.gutter_width(), cr.height()))
        self._gutter.update()

    def tooltip_at(self, line: int, column: int) -> str:
        """What the Source view says on hover at 1-based `line`, 0-based `column`: the findings
        underlined there ("" if none)."""
        tips = [tip for ln, start, end, tip in self._spans if ln == line and start <= column < end]
        return "\n\n".join(tips)

    def event(self, event) -> bool:  # type: ignore[no-untyped-def]
        if event.type() == QEvent.Type.ToolTip:
            pos = event.pos() - self.viewport().pos()
            cursor = self.cursorForPosition(pos)
            tip = self.tooltip_at(cursor.blockNumber() + 1, cursor.positionInBlock())
            return _show_tooltip(self, event, tip)
        return super().event(event)

    def go_to_line(self, line: int) -> None:
        block = self.document().findBlockByNumber(max(line - 1, 0))
        if not block.isValid():
            return
        cursor = QTextCursor(block)
        self.setTextCursor(cursor)
        self.centerCursor()
        current = QTextEdit.ExtraSelection()
        fmt = QTextCharFormat()
        fmt.setBackground(
            self.palette().color(QPalette.ColorRole.Highlight).lighter(170)
            if self.palette().color(QPalette.ColorRole.Base).lightness() > 128
            else QColor("#264f78")
        )
        fmt.setProperty(QTextFormat.Property.FullWidthSelection, True)
        current.format = fmt
        current.cursor = QTextCursor(block)
        self.setExtraSelections([current, *getattr(self, "_diag_selections", [])])

    # --- gutter -----------------------------------------------------------------------------------

    def gutter_width(self) -> int:
        digits = max(3, len(str(self.blockCount())))
        bulbs = 16 if self._fixable else 0  # a column for the light bulbs of fixable lines
        return 22 + bulbs + self.fontMetrics().horizontalAdvance("9") * digits + 8

    def fixable_at(self, line: int) -> str:
        """The code of a finding on `line` that a quick fix may remove ("" when none)."""
        return self._fixable.get(line, "")

    def _update_margins(self) -> None:
        self.setViewportMargins(self.gutter_width(), 0, 0, 0)

    def _on_update_request(self, rect: QRect, dy: int) -> None:
        if dy:
            self._gutter.scroll(0, dy)
        else:
            self._gutter.update(0, rect.y(), self._gutter.width(), rect.height())
        if rect.contains(self.viewport().rect()):
            self._update_margins()

    def resizeEvent(self, event) -> None:  # type: ignore[no-untyped-def]
        super().resizeEvent(event)
        cr = self.contentsRect()
        self._gutter.setGeometry(QRect(cr.left(), cr.top(), self.gutter_width(), cr.height()))

    def paint_gutter(self, event) -> None:  # type: ignore[no-untyped-def]
        painter = QPainter(self._gutter)
        pal = self.palette()
        painter.fillRect(event.rect(), pal.color(QPalette.ColorRole.AlternateBase))
        block: QTextBlock = self.firstVisibleBlock()
        number = block.blockNumber()
        top = round(self.blockBoundingGeometry(block).translated(self.contentOffset()).top())
        bottom = top + round(self.blockBoundingRect(block).height())
        fm_height = self.fontMetrics().height()
        painter.setPen(pal.color(QPalette.ColorGroup.Disabled, QPalette.ColorRole.Text))
        while block.isValid() and top <= event.rect().bottom():
            if block.isVisible() and bottom >= event.rect().top():
                line = number + 1
                painter.drawText(
                    0,
                    top,
                    self._gutter.width() - 6,
                    fm_height,
                    Qt.AlignmentFlag.AlignRight,
                    str(line),
                )
                mark = self._marks.get(line)
                if mark:
                    icon = state_icon(mark[0])
                    icon.paint(painter, QRect(3, top + (fm_height - 14) // 2, 14, 14))
                if line in self._fixable:
                    bulb = state_icon("fix")
                    bulb.paint(painter, QRect(19, top + (fm_height - 14) // 2, 14, 14))
            block = block.next()
            top = bottom
            bottom = top + round(self.blockBoundingRect(block).height())
            number += 1
        painter.end()

    def line_at_y(self, y: int) -> int:
        """The 1-based line drawn at height `y` of the view (0 below the last)."""
        cursor = self.cursorForPosition(QPoint(0, y))
        return cursor.blockNumber() + 1 if cursor.block().isValid() else 0

    def mark_at(self, line: int) -> str:
        """The tooltip of the diagnostic marked on `line` ('' if none)."""
        return self._marks.get(line, ("", ""))[1]
