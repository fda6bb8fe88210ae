"""What Skill Prism never reads inside a skill folder, in one place: the security pass's file walk
skips these, and the file watcher drops changes below them (its only filter).

Only version-control metadata is left out, and of a `.git` folder only what cannot run anything:
its `hooks/` and `config` (where a command can be set, e.g. core.fsmonitor) are read by the
security pass, so the watcher reports changes there too. Everything else a skill folder holds is
read, including package trees (`node_modules/`), byte code (`__pycache__/`) and editor temporaries
(`.#name`, `name~`, `.name.swp`): an attacker can hide a payload under any of those names, so a
live catalog never misses what `check` sees. Whoever changes what the security pass reads changes
it here, and the watcher follows.
"""

from __future__ import annotations

import os

IGNORED_DIR_NAMES = frozenset({".hg", ".svn"})
GIT_DIR = ".git"
GIT_READ = frozenset({"config", "hooks"})  # what of a .git folder is read: what can run commands


def in_ignored_dir(path: str, base: str = "") -> bool:
    """True when `path` lies in a folder that is never read: one with an ignored name between
    `base` (exclusive) and `path` (inclusive), or a part of a `.git` folder other than GIT_READ.
    Only the part below `base` counts, so a tree that itself lives in such a folder still works."""
    rel = path[len(base) :] if base and path.startswith(base) else path
    parts = rel.split(os.sep)
    for i, part in enumerate(parts):
        if part in IGNORED_DIR_NAMES:
            return True
        if part == GIT_DIR and i + 1 < len(parts) and parts[i + 1] not in GIT_READ:
            return True
    return False
