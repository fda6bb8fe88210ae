"""Reading a skill's files for the security scan: regular files only, never through a symlink.

The walk uses the directory listing's own file types (no stat that follows a link), opens files
with O_NOFOLLOW and O_NONBLOCK and re-checks the open descriptor, so a symlink, FIFO, socket or
device is never opened and nothing outside the skill folder is ever read. A symlink is reported
with where it points, resolved lexically (readlink only, hop by hop while it stays inside the
skill), so its target outside is never touched. Sizes, counts and depth are bounded by
`SecurityLimits`; what a bound leaves out is recorded in `SkillFiles.limited`.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from operator import itemgetter
from stat import S_ISREG

from skillprism.core.ignored import IGNORED_DIR_NAMES
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
class FileItem:
    """One entry of the skill folder. `data` holds the bytes read (at most the cap; None for a
    symlink, a special file, or a file past the total budget, of which only `head` was read).
    `size` is the size on disk, `truncated` says `data` is only the start of the file."""

    rel_path: str
    path: str
    kind: str  # file | symlink | special
    size: int = 0
    mode: int = 0
    data: bytes | None = None
    head: bytes = b""
    truncated: bool = False
    link_target: str = ""
    link_outside: bool = False
    error: str = ""


@dataclass(slots=True)
class SkillFiles:
    skill_dir: str
    items: list[FileItem] = field(default_factory=list)
    limited: list[tuple[str, str]] = field(default_factory=list)  # (rel_path, why)


def _read(rel: str, path: str, cap: int, sniff: int, budget_left: int) -> FileItem | str:
    """Open `path` without following a link and read up to `cap` bytes (or only `sniff` bytes when
    the skill's byte budget is spent). A string says why nothing was read."""
    try:
        fd = os.open(path, _OPEN_FLAGS)
    except OSError as err:
        return err.strerror or str(err)
    try:
        st = os.fstat(fd)
        if not S_ISREG(st.st_mode):
            return "not a regular file"
        size = st.st_size
        want = min(size, cap, budget_left)
        if want < min(size, cap):
            head = os.read(fd, min(sniff, size)) if size else b""
            return FileItem(rel, path, "file", size, st.st_mode, None, head, True)
        # One read of one byte more than wanted: a regular file returns it whole, and the extra
        # byte shows a file that grew since fstat. `head` stays empty: the data holds it.
        data = os.read(fd, want + 1) if want else b""
        if len(data) > want:
            return FileItem(rel, path, "file", size, st.st_mode, data[:want], b"", True)
        return FileItem(rel, path, "file", size, st.st_mode, data, b"", size > cap)
    except OSError as err:
        return err.strerror or str(err)
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
    skill_dir: str, limits: SecurityLimits, listing: Listing | None = None
) -> SkillFiles:
    """Every entry below `skill_dir` (sorted, depth-first) within the limits. `listing` holds
    listings of the skill's folders made already (by the search that found the skill); any other
    folder is listed here."""
    out = SkillFiles(skill_dir)
    budget = limits.max_total_bytes
    cap, sniff = limits.max_file_bytes, limits.sniff_bytes
    stack: list[tuple[str, str, int]] = [(skill_dir, "", 0)]
    count = 0
    while stack:
        folder, prefix, depth = stack.pop()
        known = listing.get(prefix[:-1]) if listing is not None else None
        if known is not None:
            entries = sorted(known.split("\0"), key=_BY_NAME) if known else []
        else:
            try:
                entries = sorted(list_folder(folder), key=_BY_NAME)
            except OSError as err:
                out.limited.append((prefix.rstrip("/"), f"folder cannot be listed: {err.strerror}"))
                continue
        at = folder if folder.endswith(os.sep) else folder + os.sep
        subdirs = []
        for entry in entries:
            kind, name = entry[0], entry[1:]
            rel = prefix + name
            path = at + name
            if kind == "l":
                target, outside = _resolve_link(skill_dir, rel)
                out.items.append(
                    FileItem(rel, path, "symlink", link_target=target, link_outside=outside)
                )
                continue
            if kind == "d":
                if name in SKIPPED_DIRS:
                    continue
                if depth + 1 > limits.max_depth:
                    out.limited.append((rel, f"deeper than {limits.max_depth} folder levels"))
                    continue
                subdirs.append((path, rel + "/", depth + 1))
                continue
            count += 1
            if count > limits.max_files:
                out.limited.append((prefix.rstrip("/"), f"more than {limits.max_files:,} files"))
                return out
            if kind != "f":
                out.items.append(FileItem(rel, path, "special", error="not a regular file"))
                continue
            got = _read(rel, path, cap, sniff, budget)
            if isinstance(got, str):
                out.items.append(FileItem(rel, path, "special", error=got))
                continue
            if got.data is not None:
                budget -= len(got.data)
            out.items.append(got)
        stack.extend(reversed(subdirs))
    return out
