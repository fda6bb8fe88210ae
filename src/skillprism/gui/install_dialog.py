"""The install dialog: place a skill, or every skill of a repository of plugins and collections,
where the runtimes the user picks will find it.

The user chooses the runtimes, the scope (personal: under the home folder; project: under the
project folder) and whether each skill is copied or linked. The engine plans the install at once
and again after every change of a choice (core/install.py): per runtime each skill's target, what
the runtime would make of it there, and every skill of the same name it already has, side by
side; a skill is never put over another one unless the user ticks Replace. Nothing is written
until Install; Edit → Undo takes the install back (a replaced skill comes back from the backups).
"""

from __future__ import annotations

import html
import os
from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    QRadioButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

NAME_ROLE = int(Qt.ItemDataRole.UserRole) + 1
PLAN_DELAY_MS = 150  # a choice changed: plan again once the user pauses


class InstallDialog(QDialog):
    """See the module doc. `sig_plan(source, profiles, scope, mode, replace)` asks the engine
    for a plan; `show_plan` shows its answer; `sig_install(plan_id)` asks for the write."""

    sig_plan = Signal(str, list, str, str, bool)
    sig_install = Signal(int)

    def __init__(
        self,
        source: str,
        runtimes: Sequence[Any],
        chosen: Sequence[str],
        project: str,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Install Skills")
        self.resize(980, 680)
        self.source = source
        self.plan: Any = None  # the plan shown (an InstallPlanView), if it is for the choices
        self._asked = False  # a plan was asked for and has not come back yet
        self._timer = QTimer(self, singleShot=True, interval=PLAN_DELAY_MS)
        self._timer.timeout.connect(self._ask)

        self.source_label = QLabel()
        self.source_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.source_label.setWordWrap(True)
        choose = QPushButton("Choose…")
        choose.clicked.connect(self._choose_source)
        source_row = QHBoxLayout()
        source_row.addWidget(self.source_label, 1)
        source_row.addWidget(choose)

        self.runtime_list = QListWidget()
        self.runtime_list.setMaximumHeight(150)
        for entry in runtimes:
            if getattr(entry, "broken", ""):
                continue
            item = QListWidgetItem(f"{entry.title}  ({entry.name})")
            item.setData(NAME_ROLE, entry.name)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(
                Qt.CheckState.Checked if entry.name in chosen else Qt.CheckState.Unchecked
            )
            self.runtime_list.addItem(item)
        self.runtime_list.itemChanged.connect(lambda _item: self._changed())

        self.personal = QRadioButton("Personal: for every project, under your home folder")
        self.project = QRadioButton(f"This project: {project or '(no project folder chosen)'}")
        self.project.setEnabled(bool(project))
        self.personal.setChecked(True)
        self.copy = QRadioButton("Copy the skill's folder")
        self.link = QRadioButton("Link to it (a symbolic link: edits show at once)")
        self.copy.setChecked(True)
        for group_buttons in ((self.personal, self.project), (self.copy, self.link)):
            group = QButtonGroup(self)
            for button in group_buttons:
                group.addButton(button)
                button.toggled.connect(lambda on: on and self._changed())
        self.replace = QCheckBox(
            "Replace a skill of the same name at the target (it goes to the backups)"
        )
        self.replace.toggled.connect(lambda _on: self._changed())

        form = QFormLayout()
        form.addRow("Source:", source_row)
        form.addRow("Runtimes:", self.runtime_list)
        scope = QVBoxLayout()
        scope.addWidget(self.personal)
        scope.addWidget(self.project)
        form.addRow("Where:", scope)
        mode = QVBoxLayout()
        mode.addWidget(self.copy)
        mode.addWidget(self.link)
        form.addRow("How:", mode)
        form.addRow("", self.replace)
        top = QWidget()
        top.setLayout(form)

        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.summary.setTextFormat(Qt.TextFormat.RichText)
        self.plan_text = QPlainTextEdit(readOnly=True)
        self.plan_text.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.plan_text.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.plan_text.setPlaceholderText(
            "The plan appears here: nothing is written until Install."
        )
        bottom = QWidget()
        lower = QVBoxLayout(bottom)
        lower.setContentsMargins(0, 0, 0, 0)
        lower.addWidget(self.summary)
        lower.addWidget(self.plan_text, 1)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(top)
        split.addWidget(bottom)
        split.setStretchFactor(1, 1)

        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.install_button = self.buttons.addButton(
            "Install", QDialogButtonBox.ButtonRole.AcceptRole
        )
        self.install_button.setEnabled(False)
        self.buttons.accepted.connect(self._install)
        self.buttons.rejected.connect(self.reject)

        layout = QVBoxLayout(self)
        layout.addWidget(split, 1)
        layout.addWidget(self.buttons)
        self._show_source()
        self._changed()

    # --- the choices ------------------------------------------------------------------------------

    def profiles(self) -> list[str]:
        """The runtimes checked, in the list's order."""
        out = []
        for row in range(self.runtime_list.count()):
            item = self.runtime_list.item(row)
            if item.checkState() == Qt.CheckState.Checked:
                out.append(item.data(NAME_ROLE))
        return out

    def scope(self) -> str:
        return "project" if self.project.isChecked() else "personal"

    def mode(self) -> str:
        return "link" if self.link.isChecked() else "copy"

    def _show_source(self) -> None:
        name = os.path.basename(self.source.rstrip(os.sep)) or self.source
        self.source_label.setText(
            f"<b>{html.escape(name)}</b><br><small>{html.escape(self.source)}</small>"
        )

    def _choose_source(self) -> None:
        folder = QFileDialog.getExistingDirectory(
            self, "Install From (a skill folder or a repository)", self.source
        )
        if folder:
            self.source = folder
            self._show_source()
            self._changed()

    def _changed(self) -> None:
        """A choice changed: the plan shown is no longer the one Install would write."""
        self.plan = None
        self.install_button.setEnabled(False)
        if not self.profiles():
            self._timer.stop()
            self.summary.setText("Check at least one runtime.")
            self.plan_text.clear()
            return
        self.summary.setText("Planning…")
        self._timer.start()

    def _ask(self) -> None:
        self._asked = True
        self.sig_plan.emit(
            self.source, self.profiles(), self.scope(), self.mode(), self.replace.isChecked()
        )

    # --- the engine's answers ---------------------------------------------------------------------

    def show_plan(self, plan: Any) -> None:
        """The engine's plan for the choices (an InstallPlanView). The engine answers only the
        newest request; one that comes while a changed choice waits to be planned is not shown
        (its successor is on its way)."""
        self._asked = False
        if self._timer.isActive():
            return
        self.plan = plan
        self.plan_text.setPlainText(plan.text)
        parts = [f"<b>{plan.todo}</b> folder(s) to write"]
        if plan.blocked:
            parts.append(f"<b>{plan.blocked}</b> not written (see “not done” below)")
        if plan.clashes:
            parts.append(
                f"{plan.clashes} skill(s) of the same name shown side by side; "
                "none is put over another unless you tick Replace"
            )
        self.summary.setText(
            "; ".join(parts) + ". Nothing is written until Install; Edit → Undo takes it back."
        )
        self.install_button.setEnabled(plan.todo > 0)

    def show_failure(self, message: str) -> None:
        self._asked = False
        self.plan = None
        self.install_button.setEnabled(False)
        self.summary.setText(f"<span style='color:#b3261e'>{html.escape(message)}</span>")
        self.plan_text.clear()

    def _install(self) -> None:
        if self.plan is None or not self.plan.todo:
            return
        self.install_button.setEnabled(False)
        self.sig_install.emit(self.plan.plan_id)
        self.accept()


class UpdateDialog(QDialog):
    """Installed copies and their state against their source (up to date, stale, changed here,
    source gone); Update copies the stale ones again (a copy edited where it is installed is
    never overwritten). Nothing is written until Update; Edit → Undo takes it back."""

    sig_update = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Installed Copies")
        self.resize(900, 520)
        self.plan: Any = None
        self.summary = QLabel("Looking at every copy Skill Prism installed…")
        self.summary.setWordWrap(True)
        self.summary.setTextFormat(Qt.TextFormat.RichText)
        self.text = QPlainTextEdit(readOnly=True)
        self.text.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.text.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        self.update_button = self.buttons.addButton(
            "Update", QDialogButtonBox.ButtonRole.AcceptRole
        )
        self.update_button.setEnabled(False)
        self.buttons.accepted.connect(self._update)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.summary)
        layout.addWidget(self.text, 1)
        layout.addWidget(self.buttons)

    def show_plan(self, plan: Any) -> None:
        """The installed copies and the update of the stale ones (an InstallPlanView)."""
        self.plan = plan
        self.text.setPlainText(plan.text)
        if plan.todo:
            self.summary.setText(
                f"<b>{plan.todo}</b> installed cop(ies) are stale: Update copies them again from "
                "their source. A copy edited where it is installed is not touched. Nothing is "
                "written until Update; Edit → Undo takes it back."
            )
            self.update_button.setText(f"Update {plan.todo}")
        else:
            self.summary.setText("Nothing to update: every installed copy is as its source.")
        self.update_button.setEnabled(plan.todo > 0)

    def show_failure(self, message: str) -> None:
        self.plan = None
        self.update_button.setEnabled(False)
        self.summary.setText(f"<span style='color:#b3261e'>{html.escape(message)}</span>")

    def _update(self) -> None:
        if self.plan is not None and self.plan.todo:
            self.update_button.setEnabled(False)
            self.sig_update.emit(self.plan.plan_id)
            self.accept()
