"""Stopping long work early when its answer is no longer wanted.

The engine process answers the window's newest request of each kind; an older one still running
is superseded. Long loops in core (the folder search, evaluating skill files) call `checkpoint()`,
which raises `Cancelled` when the work running in this context was asked to stop. Outside a
`cancellable` block it costs one context-variable lookup and never raises, so the CLI runs the
same code unchanged. What raises leaves no half-built result behind: callers build new values and
only replace the old ones at the end.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Callable, Iterator


class Cancelled(Exception):
    """The work was stopped at a checkpoint because its answer is no longer wanted."""


_stop_wanted: contextvars.ContextVar[Callable[[], bool] | None] = contextvars.ContextVar(
    "skillprism_stop_wanted", default=None
)


def checkpoint() -> None:
    """Raise `Cancelled` if the work running in this context should stop."""
    wanted = _stop_wanted.get()
    if wanted is not None and wanted():
        raise Cancelled


def stop_wanted() -> bool:
    """Whether the work running in this context should stop (for work that stops by itself
    when asked, instead of at a checkpoint)."""
    wanted = _stop_wanted.get()
    return wanted is not None and wanted()


def stop_check() -> Callable[[], bool]:
    """This context's `stop_wanted`, as a function any thread may call at any time (a copied
    context can be entered by one thread at a time, so it cannot be shared for that)."""
    wanted = _stop_wanted.get()
    return wanted if wanted is not None else _never


def _never() -> bool:
    return False


@contextlib.contextmanager
def cancellable(stop_wanted: Callable[[], bool]) -> Iterator[None]:
    """Run the block so that its checkpoints raise `Cancelled` once `stop_wanted()` is true."""
    token = _stop_wanted.set(stop_wanted)
    try:
        yield
    finally:
        _stop_wanted.reset(token)
