"""What a folder is laid out as, judged against every runtime profile: a repository of skills or
plugins to review as installed, or a project or home laid out with one runtime's own skill
folders. The window asks when a folder is opened; a check that found nothing says what to try."""

from __future__ import annotations

import functools
import os
from collections.abc import Sequence

from skillprism.core import installed
from skillprism.core.installed import Unit
from skillprism.core.profiles import ProfileError, available_profiles, load_profile


@functools.cache
def _dotted_reads() -> dict[str, frozenset[tuple[str, ...]]]:
    """Per shipped profile, the trailing folders of its own dotted skill folders in a project or
    home (.claude/skills, .agents/skills, ...)."""
    reads: dict[str, frozenset[tuple[str, ...]]] = {}
    for name in available_profiles():
        try:
            profile = load_profile(name)
        except ProfileError:
            continue
        reads[name] = frozenset(
            t.suffix for t in profile.roots if t.suffix[:1] and t.suffix[0][:1] == "."
        )
    return reads


def layout_runtime(folders: Sequence[str]) -> tuple[str, str]:
    """The runtime whose own skill folders `folders` are laid out with, and why ("", "" when
    none is clearly theirs)."""
    name, where = installed.layout_runtime(folders, _dotted_reads())
    if not name:
        return "", ""
    title = load_profile(name).title
    return name, f"the set is laid out with {title}'s own skill folders (e.g. {where})"


def installable_units(folder: str) -> list[Unit]:
    """The units an installer would place from `folder` when it is a repository of skills or
    plugins ([] when it is a skills folder, or a project or home laid out with runtimes' own
    skill folders)."""
    tails = {tail for reads in _dotted_reads().values() for tail in reads}
    try:
        return installed.installable_units(folder, tails)
    except OSError:
        return []


HINT_MAX_DIRS = 2000  # folders a hint looks through, at most (a hint is a quick look)


def nothing_found_hint(folders: Sequence[str], profile_name: str) -> str:
    """What to try when a check under `profile_name` found no skill file in `folders` (the
    PATHs given, or the project): another runtime whose folders are there, or the repository
    reviewed as installed ("" when nothing comes to mind)."""
    existing = [f for f in folders if os.path.isdir(f)]
    name, where = installed.layout_runtime(existing, _dotted_reads(), max_dirs=HINT_MAX_DIRS)
    if name and name != profile_name:
        title = load_profile(name).title
        return f"the set is laid out with {title}'s own skill folders (e.g. {where}): try --profile {name}"
    tails = {tail for reads in _dotted_reads().values() for tail in reads}
    units = [
        u for f in existing for u in installed.installable_units(f, tails, max_dirs=HINT_MAX_DIRS)
    ]
    if units:
        return (
            f"{len(units)} installable unit(s) (skills, collections, plugins) are here: review them "
            "as installed with --install-into project (the window: View → As Installed)"
        )
    return ""
