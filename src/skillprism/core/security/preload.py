"""Importing this module readies the security pass: its rules load and their word set compiles
once. A fork server preloads it, so each worker it starts does not load them again. (A forked
pool's workers load the rules when a file first needs them; a check whose every file the cache
knows never loads them.)"""

from __future__ import annotations


def warm_up() -> None:
    """Load what the first scan of a file would otherwise load."""
    from skillprism.core.security import analysis  # noqa: F401


warm_up()
