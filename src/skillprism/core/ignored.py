"""What Skill Prism never reads inside a skill folder, in one place: the security pass's file walk
skips these folders, and the file watcher drops changes below them (its only filter).

Only version-control metadata is left out. Everything else a skill folder holds is read by the
security pass, including package trees (`node_modules/`), byte code (`__pycache__/`) and editor
temporaries (`.#name`, `name~`, `.name.swp`): an attacker can hide a payload under any of those
names, so the watcher reports changes there too and a live catalog never misses what `check` sees.
Whoever changes what the security pass reads changes it here, and the watcher follows.
"""

from __future__ import annotations

import os

IGNORED_DIR_NAMES = frozenset({".git", ".hg", ".svn"})


def in_ignored_dir(path: str, base: str = "") -> bool:
    """True when a folder between `base` (exclusive) and `path` (inclusive) has an ignored name;
    only the part below `base` counts, so a tree that itself lives in such a folder still works."""
    rel = path[len(base) :] if base and path.startswith(base) else path
    return any(part in IGNORED_DIR_NAMES for part in rel.split(os.sep))
