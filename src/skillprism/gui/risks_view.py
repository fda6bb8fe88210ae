"""The Risks view: what the skills could do to the person who installs them, from the static
security pass (codes in the security range, core/security).

Across the set, sorted by severity (errors first), or only the selected skill's; a severity choice
and a text filter; counts per severity above the table. Activating one asks the window to show the evidence
(`sig_evidence_requested`): the skill file in Source at the line and column, another file in
Files. Nothing is executed: the pass is static, and the view says so. The rows are the engine's
(engine/prepare.py marks the security pass's findings).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import QModelIndex, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QVBoxLayout,
    QWidget,
)

from skillprism.engine.rows import plain_rows
from skillprism.engine.views import PLAIN_KEY, PLAIN_SEVERITY, ProblemRow
from skillprism.gui.problems_model import (
    SEVERITY_CHOICES,
    SKILL_KEY_ROLE,
    ProblemsFilter,
    ProblemsModel,
)
from skillprism.gui.table_view import PlaceholderTableView


class RisksView(QWidget):
    sig_evidence_requested = Signal(str, str, int, int)
    """Show a finding's evidence: (skill key, file path, line, column)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = ProblemsModel(self)
        self.proxy = ProblemsFilter(self)
        self.proxy.setSourceModel(self.model)
        self._selected = ""
        self._loaded = False
        self._scanning: tuple[int, int] | None = None  # (done, total) while risks come in
        self._counts: Counter[str] = Counter()  # rows shown per severity
        self._skills: set[str] = set()  # skills with a row shown
        self.table = PlaceholderTableView(self._placeholder)
        self.table.setModel(self.proxy)
        self.table.setSortingEnabled(True)
        self.table.sortByColumn(0, Qt.SortOrder.AscendingOrder)  # most severe first
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setAlternatingRowColors(True)
        self.table.verticalHeader().hide()
        self.table.setWordWrap(False)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(False)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        for column, width in ((0, 90), (1, 70), (3, 180), (4, 300)):
            self.table.setColumnWidth(column, width)
        self.table.activated.connect(self._on_activated)
        self.table.doubleClicked.connect(self._on_activated)
        self.counts = QLabel()
        self.counts.setTextFormat(Qt.TextFormat.RichText)
        self.only_selected = QCheckBox("Only the selected skill")
        self.only_selected.toggled.connect(self._apply_scope)
        self.severity = QComboBox()
        for label, severities in SEVERITY_CHOICES:
            self.severity.addItem(label, severities)
        self.severity.currentIndexChanged.connect(
            lambda _i: self.proxy.set_severities(frozenset(self.severity.currentData()))
        )
        self.text = QLineEdit(placeholderText="Filter risks (code, message, skill)")
        self.text.setClearButtonEnabled(True)
        self.text.textChanged.connect(self.proxy.set_text)
        row = QHBoxLayout()
        row.addWidget(self.counts, 1)
        row.addWidget(self.only_selected)
        row.addWidget(self.severity)
        row.addWidget(self.text, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 2, 4, 4)
        layout.addLayout(row)
        layout.addWidget(self.table, 1)
        self._show_counts()

    def _placeholder(self) -> str:
        if not self._loaded:
            return "Scanning…"
        if self._scanning is not None and self.model.rowCount() == 0:
            done, total = self._scanning
            return f"Looking for risks: {done} of {total} skills scanned, none found so far…"
        if self.model.rowCount() == 0:
            return (
                "No risks found by the static pass (nothing in the skills was run, imported or "
                "fetched; a clean result is not a proof of safety)."
            )
        if self.only_selected.isChecked() and self._selected:
            return "No risks found in the selected skill."
        return "No risks match the filter."

    def set_rows(self, rows: Sequence[ProblemRow], scanning: tuple[int, int] | None = None) -> None:
        """The risks of a new view; `scanning` (done, total) while its risks are still being
        scanned (more come through `add_rows`)."""
        self._loaded = True
        self._scanning = scanning
        self.model.set_rows(rows)
        plain = plain_rows(ProblemRow, rows)
        self._counts = Counter(t[PLAIN_SEVERITY] for t in plain)
        self._skills = {t[PLAIN_KEY] for t in plain}
        self._show_counts()

    def add_rows(self, rows: Sequence[ProblemRow], scanning: tuple[int, int]) -> None:
        """Risks scanned since: shown in their place, the progress beside the counts."""
        self._scanning = scanning
        self.model.add_rows(rows)
        plain = plain_rows(ProblemRow, rows)
        self._counts.update(t[PLAIN_SEVERITY] for t in plain)
        self._skills.update(t[PLAIN_KEY] for t in plain)
        self._show_counts()
        self.table.viewport().update()  # the placeholder says how far the scan is

    def set_selected(self, key: str) -> None:
        self._selected = key
        self._apply_scope()

    def _apply_scope(self, *_args: Any) -> None:
        self.proxy.set_skill(self._selected if self.only_selected.isChecked() else "")

    def _show_counts(self) -> None:
        counts, skills = self._counts, len(self._skills)
        scanning = ""
        if self._scanning is not None:
            done, total = self._scanning
            scanning = f" — scanning: {done} of {total} skills"
        if not counts:
            if self._scanning is not None:
                done, total = self._scanning
                text = f"Static security pass: looking for risks, {done} of {total} skills scanned"
            else:
                text = "Static security pass: no risks"
            self.counts.setText(f"<span style='color:gray'>{text}</span>")
            return
        # the same words as the table's Severity column
        parts = [
            f"<b style='color:#d23b3b'>{counts['error']} error(s)</b>",
            f"<b style='color:#b7791f'>{counts['warning']} warning(s)</b>",
            f"{counts['info']} note(s)",
        ]
        self.counts.setText(
            " · ".join(parts) + f" in {skills} skill(s) — static pass only{scanning}"
        )

    def _on_activated(self, index: QModelIndex) -> None:
        src = self.proxy.mapToSource(index)
        if not src.isValid():
            return
        row = self.model.row(src.row())
        d = row.diagnostic
        self.sig_evidence_requested.emit(
            src.data(SKILL_KEY_ROLE) or "", row.file, d.line or 0, d.column or 0
        )
