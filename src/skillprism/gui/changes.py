"""The window's writes and their one undo stack.

Everything the window writes happens on the user's action, in three steps: the engine plans the
change (the fixes of a skill with their diffs, the line of a runtime's settings that turns a skill
off, where an install puts each skill and what it would clash with), the user sees it and
confirms, the engine writes it (one writer: atomic, refused when the
file changed since it was read). Each write, and the removal of a folder from the set (which
writes nothing), goes onto one undo stack that Edit → Undo takes back, newest first.

`Changes` owns the dialogs of those steps and the stack; the window routes the engine's answers of
the kinds in `KINDS` here and asks it to start a change.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QMessageBox, QWidget

from skillprism.gui.engine_client import EngineClient

FIX_KINDS = ("fixes", "apply_fixes", "undo_fixes", "advise")
TOGGLE_KINDS = ("plan_toggle", "apply_toggle")
INSTALL_KINDS = ("plan_install", "plan_update", "apply_install", "undo_install")
KINDS = FIX_KINDS + TOGGLE_KINDS + INSTALL_KINDS


class Changes(QObject):
    """See the module doc."""

    sig_fixes_shown = Signal(object)
    """The quick-fix dialog is open on these fixes (a FixesView)."""
    sig_done = Signal(object)
    """Fixes or a runtime setting were written or undone (a FixesDone)."""
    sig_toggle_planned = Signal(object)
    """The user is asked to confirm a change of a runtime's settings (a TogglePlan)."""
    sig_undo_changed = Signal(str)
    """What Edit → Undo would take back now ("" when nothing)."""
    sig_listing_changed = Signal()
    """A runtime's settings changed: its listing (budget, trigger estimate) is computed again."""
    sig_files_changed = Signal(list)
    """These files were written: rescan them now rather than when the watch sees them."""
    sig_restore_roots = Signal(list)
    """Undo of a folder's removal: show these root folders again."""
    sig_status = Signal(str, int)
    """A message for the status bar (text, milliseconds)."""

    def __init__(self, window: QWidget, engine: EngineClient, *, dark: bool) -> None:
        super().__init__(window)
        self.window = window
        self.engine = engine
        self.dark = dark
        self.fix_dialog: Any = None  # the open quick-fix dialog (a FixDialog), if any
        self.confirm_box: QMessageBox | None = None  # the open question before a settings write
        self._stack: list[tuple[str, Any, str]] = []  # (kind, what undoes it, label)
        self._preferred = ""  # the code checked first in the next fix dialog
        self._toggle_pending: Any = None  # a confirmed change of a runtime's settings, written
        self.install_dialog: Any = None  # the open install dialog (an InstallDialog), if any
        self.update_dialog: Any = None  # the open dialog of installed copies, if any
        self.advice_dialog: Any = None  # the open budget advisor, if any

    # --- the undo stack ---------------------------------------------------------------------------

    def push_undo(self, kind: str, what: Any, label: str) -> None:
        """Put a change on the stack: `kind` "roots" (`what`: the roots before), "fixes" or
        "toggle" (`what`: the change written)."""
        self._stack.append((kind, what, label))
        self.sig_undo_changed.emit(label)

    def undo(self) -> None:
        """Take back the newest change on the stack."""
        if not self._stack:
            return
        kind, what, _label = self._stack.pop()
        self.sig_undo_changed.emit(self._stack[-1][2] if self._stack else "")
        if kind == "roots":
            self.sig_restore_roots.emit(what)
        elif kind == "toggle":
            self.engine.request("apply_toggle", what, True)
        elif kind == "install":
            self.engine.request("undo_install")
        else:
            self.engine.request("undo_fixes")

    # --- quick fixes ------------------------------------------------------------------------------

    def quick_fix(self, key: str, code: str = "") -> None:
        """Ask for the fixes of skill `key`; `code` is checked first in the dialog."""
        if key:
            self._preferred = code
            self.engine.request("fixes", key, "")

    def fix_everywhere(self, code: str) -> None:
        """Ask for the fixes of `code` in every skill shown."""
        if code:
            self._preferred = code
            self.engine.request("fixes", "", code)

    def _show_fixes(self, view: Any) -> None:
        from skillprism.gui.fix_dialog import FixDialog

        if self.fix_dialog is not None:
            self.fix_dialog.close()
        dialog = FixDialog(view, self._preferred, self.dark, self.window)
        dialog.sig_apply.connect(lambda ids: self.engine.request("apply_fixes", tuple(ids)))
        dialog.setWindowModality(Qt.WindowModality.WindowModal)
        self.fix_dialog = dialog
        dialog.open()  # (not exec: the window's event loop keeps running)
        self.sig_fixes_shown.emit(view)

    def _fixes_done(self, kind: str, done: Any) -> None:
        """Fixes were written (or undone): say what, show a refusal with what differs, and
        have the files rescanned."""
        if kind == "apply_fixes" and done.paths:
            self.push_undo("fixes", done.paths, f"Fixes ({len(done.paths)} file(s))")
        self.sig_status.emit(done.summary, 12000)
        if done.refused:
            details = "\n\n".join(f"{path}\n{diff}" for path, diff in done.refused)
            box = QMessageBox(
                QMessageBox.Icon.Warning,
                "Some Files Changed",
                f"{done.summary}\n\nA refused file changed on disk after its fixes were "
                "offered; nothing was written to it. Ask for its fixes again.",
                QMessageBox.StandardButton.Ok,
                self.window,
            )
            box.setDetailedText(details)
            box.open()
        if done.paths:
            self.sig_files_changed.emit(list(done.paths))
        self.sig_done.emit(done)

    # --- the budget advisor ----------------------------------------------------------------------

    def advise(self, profile: str, inputs: Any) -> None:
        """Ask what it takes for every skill `profile` lists under `inputs` (the budget view's)
        to keep its full description; the dialog shows both plans."""
        self.engine.request("advise", profile, inputs)

    def _show_advice(self, view: Any) -> None:
        from skillprism.gui.advice_dialog import AdviceDialog

        if self.advice_dialog is not None:
            self.advice_dialog.close()
        dialog = AdviceDialog(view, self.dark, self.window)
        dialog.sig_shorten.connect(lambda ids: self.engine.request("apply_fixes", tuple(ids)))

        def disable() -> None:
            self._toggle_pending = view.disable
            self.engine.request("apply_toggle", view.disable.change, False)

        dialog.sig_disable.connect(disable)
        dialog.setWindowModality(Qt.WindowModality.WindowModal)
        self.advice_dialog = dialog
        dialog.open()  # (not exec: the window's event loop keeps running)

    # --- turning a skill off or on through the runtime's own setting ------------------------------

    def toggle_skill(self, key: str, enable: bool) -> None:
        """Plan the change of the runtime's settings that turns skill `key` off (or on); the
        user sees it and confirms before anything is written."""
        if key:
            self.engine.request("plan_toggle", key, enable)

    def _confirm_toggle(self, plan: Any) -> None:
        verb = "turn on" if plan.enable else "turn off"
        box = QMessageBox(
            QMessageBox.Icon.Question,
            f"{'Turn On' if plan.enable else 'Turn Off'} {plan.name}",
            f"To {verb} {plan.name} for {plan.title}, Skill Prism writes {plan.entry} to "
            f"{plan.path}. The rest of the file is kept as it is; Edit → Undo puts it back.",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel,
            self.window,
        )
        box.setDetailedText(plan.diff)
        button = box.button(QMessageBox.StandardButton.Yes)
        assert button is not None
        button.setText("Write It")

        def answered(result: int) -> None:
            if result == QMessageBox.StandardButton.Yes:
                self._toggle_pending = plan
                self.engine.request("apply_toggle", plan.change, False)

        box.finished.connect(answered)
        self.confirm_box = box
        box.open()  # (not exec: the window's event loop keeps running)
        self.sig_toggle_planned.emit(plan)

    def _toggle_done(self, done: Any) -> None:
        plan, self._toggle_pending = self._toggle_pending, None
        if plan is not None:
            label = f"Turn {'On' if plan.enable else 'Off'} {plan.name}"
            self.push_undo("toggle", plan.change, label)
        self.sig_status.emit(done.summary, 10000)
        self.sig_listing_changed.emit()  # the runtime's settings decide its listing
        self.sig_done.emit(done)

    # --- installing skills where runtimes find them ------------------------------------------------

    def install(
        self, source: str, runtimes: Sequence[Any], chosen: Sequence[str], project: str
    ) -> None:
        """Open the install dialog on `source` (a skill folder or a repository), `chosen`
        runtimes checked; it plans as the user chooses and writes only on Install."""
        from skillprism.gui.install_dialog import InstallDialog

        if self.install_dialog is not None:
            self.install_dialog.close()
        dialog = InstallDialog(source, runtimes, chosen, project, self.window)
        dialog.sig_plan.connect(
            lambda src, profiles, scope, mode, replace: self.engine.request(
                "plan_install", src, tuple(profiles), scope, mode, replace
            )
        )
        dialog.sig_install.connect(lambda plan_id: self.engine.request("apply_install", plan_id))
        dialog.setWindowModality(Qt.WindowModality.WindowModal)
        self.install_dialog = dialog
        dialog.open()  # (not exec: the window's event loop keeps running)

    def update_installed(self) -> None:
        """Show every copy Skill Prism installed and how it stands against its source; the
        stale ones are copied again only on Update."""
        from skillprism.gui.install_dialog import UpdateDialog

        if self.update_dialog is not None:
            self.update_dialog.close()
        dialog = UpdateDialog(self.window)
        dialog.sig_update.connect(lambda plan_id: self.engine.request("apply_install", plan_id))
        dialog.setWindowModality(Qt.WindowModality.WindowModal)
        self.update_dialog = dialog
        dialog.open()  # (not exec: the window's event loop keeps running)
        self.engine.request("plan_update", ())

    def _installed(self, kind: str, done: Any) -> None:
        if kind == "apply_install" and done.paths:
            self.push_undo("install", None, f"Install ({len(done.paths)} folder(s))")
        self.sig_status.emit(done.summary, 12000)
        if done.paths:
            self.sig_files_changed.emit(list(done.paths))
        self.sig_listing_changed.emit()  # what the runtimes' roots hold changed
        self.sig_done.emit(done)

    # --- the engine's answers ---------------------------------------------------------------------

    def answered(self, kind: str, result: Any) -> None:
        """The engine answered a request of one of `KINDS`."""
        if kind == "fixes":
            self._show_fixes(result)
        elif kind == "advise":
            self._show_advice(result)
        elif kind in ("apply_fixes", "undo_fixes"):
            self._fixes_done(kind, result)
        elif kind == "plan_toggle":
            self._confirm_toggle(result)
        elif kind == "apply_toggle":
            self._toggle_done(result)
        elif kind == "plan_install":
            if self.install_dialog is not None:
                self.install_dialog.show_plan(result)
        elif kind == "plan_update":
            if self.update_dialog is not None:
                self.update_dialog.show_plan(result)
        elif kind in ("apply_install", "undo_install"):
            self._installed(kind, result)

    def failed(self, kind: str, message: str) -> None:
        """A request of one of `KINDS` failed: nothing was written; say why."""
        if kind == "apply_toggle":
            self._toggle_pending = None
        if kind == "plan_install" and self.install_dialog is not None:
            self.install_dialog.show_failure(message)
            return
        if kind == "plan_update" and self.update_dialog is not None:
            self.update_dialog.show_failure(message)
            return
        title = dict.fromkeys(INSTALL_KINDS, "Install")
        box = QMessageBox(
            QMessageBox.Icon.Warning,
            title.get(kind, "Quick Fixes" if kind in FIX_KINDS else "Turning a Skill Off or On"),
            message,
            QMessageBox.StandardButton.Ok,
            self.window,
        )
        box.open()  # (not exec: the window's event loop keeps running)
