"""Reading a skill's files for the security scan: regular files only, never through a symlink,
never out of the reviewed tree.

The walk uses the directory listing's own file types (no stat that follows a link), never enters
a symlinked folder, a folder on another file system (a mount point: `/proc` bound into a tree,
say) or a skill folder reached through `/proc`, `/sys`, `/dev` or a link to a folder above it
(`walk_stays_inside`). Files are opened with O_NOFOLLOW and O_NONBLOCK and the open descriptor
is checked, so a symlink, FIFO, socket or device is never opened. A symlink is reported with
where it points, resolved lexically (readlink only, hop by hop while it stays inside the skill),
so its target outside is never touched.

`.git` is git's storage, not the skill's content, except what runs or configures commands: its
`hooks/` and its `config` are read like any other file.

Sizes, counts and depth are bounded by `SecurityLimits`; what a bound leaves out is recorded in
`SkillFiles.limited`, naming it.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from operator import itemgetter
from stat import S_ISDIR, S_ISLNK, S_ISREG

from skillprism.core.containment import absolute, link_refusal, system_folder
from skillprism.core.ignored import GIT_DIR, GIT_READ, IGNORED_DIR_NAMES
from skillprism.core.scan import entry_kind
from skillprism.core.security.model import SecurityLimits

_OPEN_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_NOCTTY", 0)
    | getattr(os, "O_BINARY", 0)
    | getattr(os, "O_NOFOLLOW", 0)
)
_MAX_LINK_HOPS = 40
SKIPPED_DIRS = IGNORED_DIR_NAMES  # shared with the file watcher (core/ignored.py)


@dataclass(slots=True)
class Entry:
    """One entry of the skill folder, from the walk (nothing read yet). Stat fields come from
    lstat: a symlink's own, never its target's."""

    rel_path: str
    path: str
    kind: str  # file | symlink | special
    size: int = 0
    mode: int = 0
    ino: int = 0
    mtime_ns: int = 0
    ctime_ns: int = 0
    link_target: str = ""
    link_outside: bool = False
    error: str = ""

    @property
    def stamp(self) -> tuple[int, int, int, int, int]:
        return (self.ino, self.size, self.mtime_ns, self.ctime_ns, self.mode)


@dataclass(slots=True)
class SkillFiles:
    skill_dir: str
    entries: list[Entry] = field(default_factory=list)
    limited: list[tuple[str, str]] = field(default_factory=list)  # (rel_path, what was not read)
    dirs: list[str] = field(default_factory=list)  # the subfolders entered (rel_path)
    # A folder was listed here (not taken from the listing given), or one listed as a folder was
    # not one when its stat was taken: the listing alone does not say what was walked.
    irregular: bool = False


def walk_stays_inside(skill_dir: str, real: str = "") -> str:
    """Why walking `skill_dir` would leave the reviewed tree ('' when it would not): a skill
    folder that is, or is reached through, /proc, /sys or /dev, or a link to a folder above the
    place it is found at (walking it would walk its own parent). `real`: its real path, when
    the caller knows it. The rule is core/containment.py's, as for the discovery search."""
    folder = absolute(skill_dir)
    try:
        real = real or os.path.realpath(folder)
    except (OSError, ValueError):
        return "its real path cannot be resolved"
    system = system_folder(folder)
    if system:
        return f"it is inside {system}, a system folder (other processes' and the machine's files)"
    if real == folder:
        return ""  # no link on the way: a folder cannot hold its own parent
    refusal = link_refusal(real, [os.path.realpath(os.path.dirname(folder))])
    return f"it is a link to {real}, which {refusal}" if refusal else ""


def read_head(path: str, size: int) -> tuple[bytes, tuple[int, int, int, int, int] | None] | str:
    """The first `size` bytes of the regular file `path` (opened without following a link),
    with its stamp as the open descriptor sees it; a string says why nothing was read."""
    try:
        fd = os.open(path, _OPEN_FLAGS)
    except OSError as err:
        return err.strerror or str(err)
    try:
        st = os.fstat(fd)
        if not S_ISREG(st.st_mode):
            return "not a regular file"
        # One read of one byte more than wanted shows a file that grew since its stat.
        data = os.read(fd, size) if size else b""
        return data, (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_mode)
    except OSError as err:
        return err.strerror or str(err)
    finally:
        os.close(fd)


def read_windows(
    path: str, start: int, stop: int, window: int, overlap: int
) -> Iterator[tuple[int, bytes]]:
    """(byte offset, bytes) of successive windows of `path` from `start` to `stop`, each
    starting `overlap` bytes before the previous one ended, at a line start where one is near
    (so a line split by a window is whole in the next). Opened like `read_head`. Each window
    moves on by at least `window - overlap` bytes (`overlap` must be below `window`)."""
    overlap = min(overlap, window // 2)
    try:
        fd = os.open(path, _OPEN_FLAGS)
    except OSError:
        return
    try:
        if not S_ISREG(os.fstat(fd).st_mode):
            return
        pos = start
        while pos < stop:
            os.lseek(fd, pos, os.SEEK_SET)
            data = os.read(fd, min(window, stop - pos))
            if not data:
                return
            yield pos, data
            if pos + len(data) >= stop:
                return
            nxt = pos + len(data) - overlap
            cut = data.find(b"\n", len(data) - overlap)
            if 0 <= cut < len(data) - 1:
                nxt = pos + cut + 1
            pos = max(nxt, pos + len(data) // 2)
    except OSError:
        return
    finally:
        os.close(fd)


def _resolve_link(skill_dir: str, rel_path: str) -> tuple[str, bool]:
    """(target as written, whether it leaves the skill folder), by reading links only: a relative
    target is joined lexically; a link reached inside the skill is read on, up to 40 hops."""
    current = rel_path
    first = ""
    for _ in range(_MAX_LINK_HOPS):
        try:
            target = os.readlink(os.path.join(skill_dir, *current.split("/")))
        except OSError:
            return first, False  # not a link any more (or gone): it stays where it is
        first = first or target
        if (
            os.path.isabs(target)
            or target.startswith(("\\", "~"))
            or (len(target) > 1 and target[1] == ":")
        ):
            return first, True
        parts: list[str] = current.split("/")[:-1]
        for seg in target.replace("\\", "/").split("/"):
            if seg in ("", "."):
                continue
            if seg == "..":
                if not parts:
                    return first, True
                parts.pop()
            else:
                parts.append(seg)
        current = "/".join(parts)
        if not current:
            return first, False  # the skill folder itself
        if not os.path.islink(os.path.join(skill_dir, *parts)):
            return first, False
    return first, True  # a loop: treat as leaving, it cannot be read safely


Listing = Mapping[str, str]
"""Folder listings known already: relative folder path ('' for the skill folder) -> its entries,
each as kind and name, joined by NUL; kinds as in `list_folder` (core.scan.TreeListing)."""


def list_folder(folder: str) -> list[str]:
    """Each entry of `folder` as its kind and name ('f' + name, ...; kinds as in `Listing`), from
    the listing's own file types (no stat that follows a link). Raises OSError when the folder
    cannot be listed."""
    out = []
    with os.scandir(folder) as it:
        for entry in it:
            with contextlib.suppress(OSError):
                out.append(entry_kind(entry) + entry.name)
    return out


_BY_NAME = itemgetter(slice(1, None))  # an entry's name, after its kind


def walk_skill(
    skill_dir: str, limits: SecurityLimits, listing: Listing | None = None, real_dir: str = ""
) -> SkillFiles:
    """Every entry below `skill_dir` (sorted, depth-first) within the limits, with its lstat.
    `listing` holds listings of the skill's folders made already (by the search that found the
    skill); any other folder is listed here. `real_dir`: the folder's real path, when known.
    Nothing is read."""
    out = SkillFiles(skill_dir)
    why = walk_stays_inside(skill_dir, real_dir)
    if why:
        out.limited.append(("", f"the skill folder was not walked: {why}"))
        return out
    try:
        root_dev = os.stat(skill_dir).st_dev
    except OSError as err:
        out.limited.append(("", f"the skill folder cannot be read: {err.strerror}"))
        return out
    stack: list[tuple[str, str, int]] = [(skill_dir, "", 0)]
    count = 0
    while stack:
        folder, prefix, depth = stack.pop()
        known = listing.get(prefix[:-1]) if listing is not None else None
        if known is not None:
            entries = sorted(known.split("\0"), key=_BY_NAME) if known else []
        else:
            out.irregular = True
            try:
                entries = sorted(list_folder(folder), key=_BY_NAME)
            except OSError as err:
                out.limited.append((prefix.rstrip("/"), f"folder cannot be listed: {err.strerror}"))
                continue
        in_git = prefix == GIT_DIR + "/" or prefix.endswith("/" + GIT_DIR + "/")
        at = folder if folder.endswith(os.sep) else folder + os.sep
        subdirs = []
        for entry in entries:
            kind, name = entry[0], entry[1:]
            if in_git and name not in GIT_READ:
                continue
            rel = prefix + name
            path = at + name
            if kind == "l":
                target, outside = _resolve_link(skill_dir, rel)
                out.entries.append(
                    Entry(rel, path, "symlink", link_target=target, link_outside=outside)
                )
                continue
            if kind == "d":
                if name in SKIPPED_DIRS:
                    continue
                if depth + 1 > limits.max_depth:
                    out.limited.append(
                        (rel, f"folder '{rel}' is deeper than {limits.max_depth} levels: not read")
                    )
                    continue
                try:
                    st = os.lstat(path)
                except OSError as err:
                    out.limited.append((rel, f"folder '{rel}' cannot be read: {err.strerror}"))
                    continue
                if S_ISLNK(st.st_mode) or not S_ISDIR(st.st_mode):
                    out.irregular = True
                    continue  # replaced since it was listed: never followed
                if st.st_dev != root_dev:
                    out.limited.append(
                        (rel, f"folder '{rel}' is another file system mounted here: not entered")
                    )
                    continue
                subdirs.append((path, rel + "/", depth + 1))
                out.dirs.append(rel)
                continue
            count += 1
            if count > limits.max_files:
                left = sum(1 for e in entries[entries.index(entry) :] if e[0] != "d")
                out.limited.append(
                    (
                        prefix.rstrip("/"),
                        f"more than {limits.max_files:,} files: '{rel}', {left - 1:,} more in "
                        f"'{prefix or './'}' and every folder after it in sorted order were not "
                        "read",
                    )
                )
                return out
            if kind != "f":
                out.entries.append(Entry(rel, path, "special", error="not a regular file"))
                continue
            try:
                st = os.lstat(path)
            except OSError as err:
                out.entries.append(Entry(rel, path, "special", error=err.strerror or str(err)))
                continue
            if not S_ISREG(st.st_mode):
                out.entries.append(Entry(rel, path, "special", error="not a regular file"))
                continue
            out.entries.append(
                Entry(
                    rel,
                    path,
                    "file",
                    st.st_size,
                    st.st_mode,
                    st.st_ino,
                    st.st_mtime_ns,
                    st.st_ctime_ns,
                )
            )
        stack.extend(reversed(subdirs))
    return out
