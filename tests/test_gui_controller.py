"""The window's controller lets its worker go on only once the window has settled after an answer:
applying posts layout and repaint work that runs in later passes of the event loop, and a worker
busy with the next request would make each of those passes wait for the interpreter lock."""

from __future__ import annotations

import time

import pytest

pytest.importorskip("PySide6.QtWidgets")

from skillprism.gui import controller as controller_module
from skillprism.gui.controller import SETTLE_CPU_S, Controller


def _burn(seconds: float) -> None:
    """Use `seconds` of this thread's processor time."""
    end = time.thread_time() + seconds
    while time.thread_time() < end:
        pass


@pytest.fixture
def controller(qtbot):  # type: ignore[no-untyped-def]
    made = Controller()
    yield made
    made.shutdown()


def test_the_worker_waits_while_the_window_is_busy_after_an_answer(controller) -> None:  # type: ignore[no-untyped-def]
    applied = controller._worker.applied
    applied.clear()
    controller._on_answer("filter", 0, None)  # an answer nobody waits for still settles
    assert not applied.is_set()
    _burn(SETTLE_CPU_S * 3)  # the window lays out and repaints
    controller._check_settled()
    assert not applied.is_set()
    controller._check_settled()  # a tick with the GUI thread idle
    assert applied.is_set()
    assert not controller._settle_timer.isActive()


def test_the_settle_tick_lets_the_worker_go_on_by_itself(controller, qtbot) -> None:  # type: ignore[no-untyped-def]
    applied = controller._worker.applied
    applied.clear()
    controller._on_answer("filter", 0, None)
    qtbot.waitUntil(applied.is_set, timeout=5000)


def test_a_window_that_never_settles_still_lets_the_worker_go_on(controller, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(controller_module, "APPLY_WAIT_S", 0.0)
    applied = controller._worker.applied
    applied.clear()
    controller._on_answer("filter", 0, None)
    _burn(SETTLE_CPU_S * 3)
    controller._check_settled()  # busy, but past the longest wait
    assert applied.is_set()
