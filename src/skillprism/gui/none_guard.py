"""Immunity against Qt bindings that over-release `None`.

PySide6 6.12.0 on Python 3.11 drops one reference to `None` on every call of a method that returns
nothing (`setText`, `setFormat`, `setCurrentBlockState`, ...). `None` starts with a few thousand
references, so after a few thousand such calls (one long SKILL.md highlighted, fifty skills
selected, or just quitting after a while) the interpreter aborts with `Fatal Python error:
none_dealloc`. Python 3.12 and later make `None` immortal, which is why the bug only bites older
interpreters.

pyproject.toml excludes the release known to be broken. Because a later release of the same line
could bring the bug back, the app also checks, before its first window, whether void calls leak
`None`; if they do on an interpreter where `None` is mortal, it gives `None` so many references
that no session could ever use them up (what Python 3.12 does for every interpreter) and logs
that it did. Nothing changes on a sound binding or a newer Python.
"""

from __future__ import annotations

import logging
import os
import platform
import sys

log = logging.getLogger(__name__)

PROBE_CALLS = 400
# References given to None when the bug is found: more than any session could drop.
_RESERVE = 1 << 48
# Set to 1 to leave a leaking binding unguarded (tests use it to show the guard is what saves us).
DISABLE_ENV = "SKILLPRISM_NO_NONE_GUARD"


def none_is_mortal() -> bool:
    """True where `None`'s reference count can reach zero (CPython before 3.12)."""
    return platform.python_implementation() == "CPython" and sys.version_info < (3, 12)


def void_calls_leak_none(calls: int = PROBE_CALLS) -> bool:
    """Whether calling a void Qt method drops references to `None` (one per call on a broken
    binding; a sound one leaves the count alone, give or take other threads' noise)."""
    from PySide6.QtCore import QObject

    probe = QObject()
    before = sys.getrefcount(None)
    for _ in range(calls):
        probe.setObjectName("skillprism-probe")
    return before - sys.getrefcount(None) >= calls // 2


def reserve_none_references() -> None:
    """Give `None` references enough for any session (CPython's object header starts with the
    reference count, a Py_ssize_t)."""
    import ctypes

    count = ctypes.c_ssize_t.from_address(id(None))
    count.value += _RESERVE


def guard_none() -> bool:
    """Check the binding and protect `None` if it leaks; True when protection was applied."""
    if not none_is_mortal() or os.environ.get(DISABLE_ENV) == "1":
        return False
    if not void_calls_leak_none():
        return False
    reserve_none_references()
    from PySide6 import __version__ as pyside_version

    log.warning(
        "PySide6 %s drops a reference to None on every void call on Python %s; None was given "
        "a reserve of references so the app cannot abort. Install another PySide6 release.",
        pyside_version,
        platform.python_version(),
    )
    return True
