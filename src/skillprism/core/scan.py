"""The generic, bounded search for skill files below one folder.

It finds every file whose name is `SKILL.md` in any letter case (so a runtime that reads only
`SKILL.md` can be reported as missing `skill.md`), skips `.git`, `node_modules` and the profile's
ignored names, follows symlinked folders without looping, and never stats or opens files it does
not need: a skill folder holding 20,000 resources costs one directory listing. Which links it
follows is core/containment.py's rule (`link_refusal`): never into /proc, /sys or /dev, never back
up to a folder it is in, unless the profile says the runtime goes round such a loop
(`follow_loops`, `[discovery] link_loops = "follow"`): then the search goes round it too, and the
system itself ends each loop where it refuses the path (ELOOP, too many links) just as it does for
the runtime, or the depth bound does.

Bounds (depth, folders) keep a hostile tree cheap; a search they cut short says so
(`scan-truncated`), and `stopped_empty` tells a search the folder bound stopped before it found
any skill file: then nothing was checked at all.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from operator import itemgetter

from skillprism.core.cancel import checkpoint
from skillprism.core.containment import link_refusal, points_back, system_folder
from skillprism.core.document import Finding

SKILL_FILE_LOWER = "skill.md"
ARCHIVE_SUFFIXES = (".zip", ".skill")
DEFAULT_MAX_DEPTH = 10
DEFAULT_MAX_DIRS = 50_000
_first = itemgetter(0)
# A folder with more entries than this is left for the skill's reader to list: handing its
# listing over would cost more than listing it again.
TREE_LISTING_MAX = 1000

TreeListing = dict[str, str]
"""Listings of a skill folder ('') and of folders below it ('scripts', 'a/b'): each entry as its
kind and name, kind being 'l' (symlink), 'd' (folder), 'f' (regular file) or 'o' (anything
else), the entries joined by NUL (which no file name holds): one string per folder, which costs
little to hand to another process."""


def entry_kind(entry: os.DirEntry[str]) -> str:
    """An entry's kind as `TreeListing` writes it, from the listing's own file types (no stat
    that follows a link). Raises OSError when the listing gave no type and it cannot be had."""
    if entry.is_symlink():
        return "l"
    if entry.is_dir(follow_symlinks=False):
        return "d"
    return "f" if entry.is_file(follow_symlinks=False) else "o"


@dataclass(frozen=True, slots=True)
class FoundFile:
    """A skill file found below `start`; `parts` are the path components from `start` to it."""

    path: str
    start: str
    parts: tuple[str, ...]
    # The real path, joined from the folder's known real path without a syscall; "" when the file
    # itself is a symlink and `os.path.realpath` must decide.
    real: str = ""
    # The listing (d_type) showed a regular file, not a symlink: reading may skip its stat.
    regular: bool = False


@dataclass(slots=True)
class ScanResult:
    files: list[FoundFile] = field(default_factory=list)
    notes: list[tuple[str, Finding]] = field(default_factory=list)
    dirs_visited: int = 0
    # A bound (folders or depth) cut the search short before it found any skill file: nothing
    # was checked, which must never pass for a clean result (its `scan-truncated` is an error).
    stopped_empty: bool = False


def unreadable_folder(err: OSError) -> Finding:
    """The finding for a folder that cannot be listed, naming the OS error."""
    return Finding(
        "folder-unreadable",
        f"cannot list the folder: {err.strerror or err}",
        hint="make the folder readable and searchable (chmod u+rx), or remove it",
    )


def path_problem(path: str) -> str:
    """Why a PATH named by the user cannot be used ('' when it can): it does not exist, or it
    cannot be listed (a folder) or opened (a file). Never blocks: a FIFO is opened non-blocking."""
    if not os.path.lexists(path):
        return f"{path}: no such file or folder"
    try:
        if os.path.isdir(path):
            with os.scandir(path):
                pass
        else:
            os.close(os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)))
    except OSError as err:
        return f"{path}: cannot read: {err.strerror or err}"
    return ""


def _refused_link(name: str, refusal: str) -> Finding:
    """The finding for a symlink the search does not follow (`refusal`: why, from
    `link_refusal`)."""
    return Finding(
        "symlink-problem",
        f"symlink '{name}' {refusal}",
        hint="remove the link, or point it at a folder of skills",
    )


def _looping_link(name: str) -> Finding:
    """The finding for a symlink back into its own parent folders that the runtime follows."""
    return Finding(
        "symlink-problem",
        f"symlink '{name}' points back into its own parent folders; the runtime follows it round "
        "the loop until the system refuses the path (too many links) and reads the skills below "
        "it again under each longer path",
        hint="remove the link, or point it at a folder that is not above it",
    )


def _dir_id(path: str) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino) if stat.S_ISDIR(st.st_mode) else None


def search(
    start: str,
    *,
    max_depth: int = DEFAULT_MAX_DEPTH,
    max_dirs: int = DEFAULT_MAX_DIRS,
    ignore_dirs: Iterable[str] = (".git", "node_modules"),
    follow_symlinks: bool = True,
    follow_loops: bool = False,
    on_file: Callable[[FoundFile], None] | None = None,
    on_tree: Callable[[FoundFile, TreeListing], None] | None = None,
) -> ScanResult:
    """Search `start` (a folder) down to `max_depth` folder levels for skill files. `on_file` is
    called with each file as soon as it is found (so parsing can start while the search goes on).
    `on_tree` is called with each file once the search has left its folder, with the listings of
    that folder and of the folders below it that the search listed (see `TreeListing`), so that
    whoever reads the skill's files next need not list them again. With `follow_loops` a symlink
    back into the folders the search is in is followed like any folder (and reported once): each
    path round the loop is searched until the system refuses it (ELOOP) or the depth bound cuts
    it, silently, as the runtime's own walk ends there."""
    result = ScanResult()
    # Skill folders whose subtree the search is in, innermost last: (folder + sep, file, listings).
    open_trees: list[tuple[str, FoundFile, TreeListing]] = []
    ignored = set(ignore_dirs)
    if _dir_id(start) is None:
        return result
    # Depth-first with an explicit stack; each entry carries its folder's real path and those of
    # the folders above it on this path. Only a symlink can close a loop (Linux has no hard links
    # to folders), so only symlinked folders are resolved, and one pointing at a folder on the path
    # (or above one) is not followed; two aliases of one folder both show. Plain folders cost no
    # syscall beyond their listing.
    real_start = os.path.realpath(start)
    start_below = real_start.rstrip(os.sep) + os.sep
    system = system_folder(real_start)
    if system:
        result.notes.append(
            (
                start,
                Finding(
                    "symlink-problem",
                    f"'{start}' is in {system}, a system folder (other processes' and the "
                    "machine's files); not searched",
                    hint="point the search at a folder of skills",
                ),
            )
        )
        return result
    stack: list[tuple[str, tuple[str, ...], str, tuple[str, ...], bool]] = [
        (start, (), real_start, (real_start,), False)
    ]
    depth_cut: list[str] = []
    loops_noted: set[str] = set()  # real paths of the looping links already reported
    while stack:
        folder, parts, real_folder, chain, looped = stack.pop()
        while open_trees and not folder.startswith(open_trees[-1][0]):
            _, found_file, listings = open_trees.pop()
            on_tree(found_file, listings)  # type: ignore[misc]
        if result.dirs_visited >= max_dirs:
            result.stopped_empty = not result.files
            message = f"search stopped after {max_dirs:,} folders" + (
                " before it found any skill file: nothing below this folder was checked"
                if result.stopped_empty
                else "; skills beyond are not seen"
            )
            result.notes.append(
                (
                    start,
                    Finding("scan-truncated", message, hint="point the search at a smaller folder"),
                )
            )
            break
        result.dirs_visited += 1
        if not result.dirs_visited & 255:
            checkpoint()  # a newer request may have made this search pointless
        try:
            with os.scandir(folder) as it:
                # Unsorted: a resource folder of 20,000 files is not worth sorting; subfolders
                # (the walk order) and the results are sorted instead.
                entries = list(it)
        except OSError as err:
            if not looped:  # round a loop: said on the way in already, or the loop's end
                result.notes.append((folder, unreadable_folder(err)))
            continue
        subdirs: list[tuple[str, tuple[str, ...], str, tuple[str, ...], bool]] = []
        archives: list[str] = []
        in_skill = False
        # Kinds are kept only where a skill's tree is being listed for `on_tree`.
        kinds: list[str] | None = (
            [] if on_tree is not None and len(entries) <= TREE_LISTING_MAX else None
        )
        # Per folder, not per entry: what os.path.join(real_folder, name) would add, whether
        # subfolders are still within the depth bound, whether archives are looked for here.
        real_prefix = real_folder if real_folder.endswith(os.sep) else real_folder + os.sep
        too_deep = len(parts) + 1 > max_depth
        shallow = len(parts) <= 1
        for entry in entries:
            name = entry.name
            typed = False
            try:
                is_link = entry.is_symlink()
                is_dir = (
                    entry.is_dir(follow_symlinks=follow_symlinks) if is_link else entry.is_dir()
                )
                typed = True
            except OSError:  # e.g. a symlink loop (ELOOP): not a folder; a SKILL.md is reported
                is_link, is_dir = True, False
            if kinds is not None:
                # the kind `entry_kind` gives, from what was asked above where it was answered
                try:
                    if not typed:
                        kinds.append(entry_kind(entry) + name)
                    elif is_link or is_dir:
                        kinds.append(("l" if is_link else "d") + name)
                    else:
                        kinds.append(("f" if entry.is_file(follow_symlinks=False) else "o") + name)
                except OSError:
                    pass
            if is_dir:
                if name in ignored:
                    continue
                if too_deep:
                    if not looped:  # a path round a loop ends at the bound, as the runtime's does
                        depth_cut.append(entry.path)
                    continue
                loops = False
                if is_link:
                    # resolved from the folder's real path: the same answer as resolving
                    # entry.path, without resolving every link above it again (a path round a
                    # loop holds hundreds)
                    real_child = os.path.realpath(real_prefix + name)
                    # only a loop inside the searched folder: one to a folder above it would
                    # take the walk out of the tree (to /, and so to /proc), which it never leaves
                    loops = (
                        follow_loops
                        and (real_child == real_start or real_child.startswith(start_below))
                        and points_back(real_child, chain)
                    )
                    refusal = link_refusal(real_child, () if loops else chain)
                else:
                    real_child, refusal = real_prefix + name, ""
                if refusal:
                    if not looped:  # each way round a loop would say it again
                        result.notes.append((entry.path, _refused_link(name, refusal)))
                    continue
                if loops and real_prefix + name not in loops_noted:
                    loops_noted.add(real_prefix + name)
                    result.notes.append((entry.path, _looping_link(name)))
                subdirs.append(
                    (
                        entry.path,
                        (*parts, name),
                        real_child,
                        (*chain, real_child),
                        looped or loops,
                    )
                )
            elif len(name) == 8 and name.lower() == SKILL_FILE_LOWER:
                if is_link:
                    refusal = link_refusal(os.path.realpath(real_prefix + name))
                    if refusal:
                        if not looped:
                            result.notes.append((entry.path, _refused_link(name, refusal)))
                        continue
                in_skill = True
                real = "" if is_link else real_prefix + name
                try:
                    regular = not is_link and entry.is_file(follow_symlinks=False)
                except OSError:
                    regular = False
                found = FoundFile(entry.path, start, (*parts, name), real, regular)
                result.files.append(found)
                if on_file is not None:
                    on_file(found)
                if on_tree is not None:
                    open_trees.append((os.path.join(folder, ""), found, {}))
            elif shallow and name.lower().endswith(ARCHIVE_SUFFIXES):
                archives.append(entry.path)
        # An archive beside a SKILL.md is one of that skill's resources, not a skill left packed.
        if archives and not in_skill and not looped:
            for path in archives:
                result.notes.append(
                    (
                        path,
                        Finding(
                            "archive-beside-skills",
                            f"archive '{os.path.basename(path)}' is not unpacked; runtimes only "
                            "load skill folders",
                            hint="unzip it into its own folder if it is meant to be a skill",
                        ),
                    )
                )
        if kinds is not None and open_trees:
            listed = "\0".join(kinds)
            for tree_dir, _found, listings in open_trees:
                listings[folder[len(tree_dir) :].replace(os.sep, "/")] = listed
        subdirs.sort(key=_first)
        stack.extend(reversed(subdirs))
    while open_trees:
        _, found_file, listings = open_trees.pop()
        on_tree(found_file, listings)  # type: ignore[misc]
    if depth_cut:
        result.stopped_empty = result.stopped_empty or not result.files
        result.notes.append(
            (
                start,
                Finding(
                    "scan-truncated",
                    f"search stopped at depth {max_depth} in {len(depth_cut)} folder(s), e.g. "
                    f"{depth_cut[0]}"
                    + (
                        "; no skill file was found above it: nothing was checked"
                        if not result.files
                        else ""
                    ),
                    hint="raise --max-depth to look deeper",
                ),
            )
        )
    result.files.sort(key=lambda f: f.parts)
    result.notes.sort(key=lambda note: (note[0], note[1].rule))
    return result
