"""A guard for the test run against CPython 3.11's trace-installation race (python/cpython#98257).

Under coverage every new thread installs a trace function as it starts (`threading.settrace`), and
`sys.settrace` in 3.11 refuses with "RuntimeError: Cannot install a trace function while another
trace function is being installed" when another thread is inside the same call at that moment (a
process-wide flag, held across a reference drop that can switch threads). The thread that loses
dies before it runs anything: in CI a watch's inotify thread and a worker pool's task thread died
so, and the test waited for them. The program itself never installs a trace function; only the
measured test run does. So here, and only here, `sys.settrace` tries again after the other thread
is done. Python 3.12 and later (coverage uses sys.monitoring there) need none of it."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Any

RACE_MESSAGE = "another trace function is being installed"
ATTEMPTS = 500


def retrying(settrace: Callable[[Any], None]) -> Callable[[Any], None]:
    """`settrace` made to wait out another thread's installation instead of failing."""

    def settrace_retrying(func: Any) -> None:
        for attempt in range(ATTEMPTS):
            try:
                return settrace(func)
            except RuntimeError as err:
                if RACE_MESSAGE not in str(err) or attempt == ATTEMPTS - 1:
                    raise
                time.sleep(0.001)  # the other thread finishes its call meanwhile

    settrace_retrying.__wrapped__ = settrace  # type: ignore[attr-defined]
    return settrace_retrying


def install() -> None:
    """Put the retrying `sys.settrace` in place (threading's bootstrap and coverage both look it
    up on `sys` when they call it) on the interpreters that have the race."""
    if sys.version_info < (3, 12) and not hasattr(sys.settrace, "__wrapped__"):
        sys.settrace = retrying(sys.settrace)
