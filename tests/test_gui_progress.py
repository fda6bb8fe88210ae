"""The status bar's progress is painted with the next frame, never inside the call that sets it."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QProgressBar

from skillprism.gui.progress import StatusProgress


class PaintCounter(QObject):
    def __init__(self) -> None:
        super().__init__()
        self.paints = 0

    def eventFilter(self, _obj: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint:
            self.paints += 1
        return False


def shown(qtbot, bar: QProgressBar) -> PaintCounter:
    bar.setFormat("Risks %v/%m")
    qtbot.addWidget(bar)
    bar.show()
    qtbot.waitExposed(bar)
    qtbot.wait(20)
    counter = PaintCounter()
    bar.installEventFilter(counter)
    return counter


def test_a_plain_progress_bar_paints_inside_set_value(qtbot) -> None:
    """Why StatusProgress exists: with "%v" in its format, QProgressBar repaints at once."""
    bar = QProgressBar()
    counter = shown(qtbot, bar)
    bar.setRange(0, 10)
    bar.setValue(3)
    assert counter.paints >= 1


def test_progress_is_shown_and_painted_later(qtbot) -> None:
    bar = StatusProgress()
    counter = shown(qtbot, bar)
    bar.show_progress(3, 10)
    assert counter.paints == 0
    assert (bar.value(), bar.maximum(), bar.text()) == (3, 10, "Risks 3/10")
    qtbot.waitUntil(lambda: counter.paints >= 1, timeout=2000)
    bar.show_progress(0, 0)  # nothing to count yet: the range stays valid
    assert (bar.value(), bar.maximum()) == (0, 1)
