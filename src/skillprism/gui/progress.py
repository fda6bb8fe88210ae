"""A status-bar progress bar whose updates are painted with the next frame.

`QProgressBar.setValue` repaints at once whenever the drawn text or bar changes (always, with a
"%v" format), and a synchronous repaint also paints whatever else in the window is waiting to
be painted. Progress arrives many times a second while the engine scans, so each update would
cost the GUI thread a whole window's paint. `StatusProgress.show_progress` changes the value
with updates held and lets Qt paint it in its own time.
"""

from __future__ import annotations

from PySide6.QtWidgets import QProgressBar


class StatusProgress(QProgressBar):
    """See the module doc."""

    def show_progress(self, done: int, total: int) -> None:
        """Show `done` of `total`; painted with the next frame, not now."""
        self.setUpdatesEnabled(False)
        try:
            self.setRange(0, max(total, 1))
            self.setValue(done)
        finally:
            self.setUpdatesEnabled(True)  # which asks for a paint (update), not a repaint
