"""A skill folder's files for installing: listed within bounds, copied, hashed.

* `list_tree(folder)` lists a skill folder without following a link or opening a file: folders,
  regular files (size, mtime, mode) and symlinks (their text). The bounds are the discovery
  search's (core/scan.py: DEFAULT_MAX_DIRS entries, DEFAULT_MAX_DEPTH levels) and a byte total;
  a tree past them is refused with what was too much, so a 12,000-file skill costs one listing
  per folder and a hostile one stops early. Version-control metadata (`.git`, `.hg`, `.svn`) is
  left out, as installers do; a link whose target leaves the skill folder, and anything that is
  neither a file, a folder nor a link (a FIFO, a device), is not copied and is named.
* `copy_tree(tree, dest)` writes the listed files below `dest` (a folder that exists), the skill
  file last, so a runtime that looks into a half-written folder finds no skill in it; each file
  is opened without following links and without blocking, checked to be the regular file
  listed, and hashed as it is copied.
* `hash_tree(tree)` hashes the files of a listed tree (SHA-256 per file; a link by its text).

Nothing here executes or imports anything from a skill, and nothing is written but below `dest`.
"""

from __future__ import annotations

import hashlib
import os
import stat
from dataclasses import dataclass, field

from skillprism.core.ignored import GIT_DIR, IGNORED_DIR_NAMES
from skillprism.core.scan import DEFAULT_MAX_DEPTH, DEFAULT_MAX_DIRS, SKILL_FILE_LOWER

MAX_ENTRIES = DEFAULT_MAX_DIRS  # files, folders and links per skill
MAX_DEPTH = DEFAULT_MAX_DEPTH  # folder levels below the skill folder
MAX_BYTES = 512 * 1024 * 1024  # bytes per skill
_CHUNK = 1024 * 1024
_OPEN_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_NOCTTY", 0)
)
_SKIP = IGNORED_DIR_NAMES | {GIT_DIR}


class TreeError(ValueError):
    """A skill folder that cannot be installed as it is: what, where and what to do."""


@dataclass(frozen=True, slots=True)
class Item:
    """One entry of a skill folder: `rel` with '/' separators, kind 'd', 'f' or 'l'."""

    rel: str
    kind: str
    size: int = 0
    mtime_ns: int = 0
    mode: int = 0
    link: str = ""


@dataclass(frozen=True)
class Tree:
    """A skill folder as listed: its entries (folders before what is in them), what was left
    out (rel, why) and its total size."""

    folder: str
    items: tuple[Item, ...]
    left_out: tuple[tuple[str, str], ...] = ()
    size: int = 0
    files: int = field(default=0)

    def fingerprint(self) -> str:
        """A digest of what the listing saw (names, kinds, sizes, times, link texts): it changes
        when a file is added, removed, resized, touched or relinked."""
        h = hashlib.sha256()
        for it in self.items:
            h.update(f"{it.rel}\0{it.kind}\0{it.size}\0{it.mtime_ns}\0{it.link}\n".encode())
        return h.hexdigest()


def _link_stays_inside(rel: str, target: str) -> bool:
    """A relative link at `rel` whose text `target` resolves, by its text alone, inside the
    skill folder (never read through: its target is not touched)."""
    if os.path.isabs(target):
        return False
    parts = rel.split("/")[:-1]
    for part in target.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if not parts:
                return False
            parts.pop()
        else:
            parts.append(part)
    return True


def list_tree(
    folder: str,
    *,
    max_entries: int = MAX_ENTRIES,
    max_depth: int = MAX_DEPTH,
    max_bytes: int = MAX_BYTES,
) -> Tree:
    """The skill folder `folder` as listed (see the module doc); TreeError past a bound or when
    the folder cannot be read."""
    folder = os.path.abspath(folder)
    try:
        st = os.stat(folder)
    except OSError as err:
        raise TreeError(f"{folder}: cannot be read ({err.strerror or err})") from None
    if not stat.S_ISDIR(st.st_mode):
        raise TreeError(f"{folder}: not a folder")
    items: list[Item] = []
    left_out: list[tuple[str, str]] = []
    total = files = 0
    stack: list[tuple[str, str, int]] = [(folder, "", 0)]
    while stack:
        path, rel, depth = stack.pop()
        try:
            with os.scandir(path) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as err:
            raise TreeError(
                f"{path}: cannot be listed ({err.strerror or err}); nothing was installed"
            ) from None
        subdirs: list[tuple[str, str, int]] = []
        for entry in entries:
            name_rel = f"{rel}/{entry.name}" if rel else entry.name
            if len(items) >= max_entries:
                raise TreeError(
                    f"{folder}: more than {max_entries:,} files and folders; not copied "
                    "(install it with --link, or remove what the skill does not need)"
                )
            try:
                if entry.is_symlink():
                    target = os.readlink(entry.path)
                    if _link_stays_inside(name_rel, target):
                        items.append(Item(name_rel, "l", link=target))
                    else:
                        left_out.append((name_rel, f"a link leading out of the skill ({target})"))
                    continue
                est = entry.stat(follow_symlinks=False)
            except OSError as err:
                raise TreeError(
                    f"{entry.path}: cannot be read ({err.strerror or err}); nothing was installed"
                ) from None
            if stat.S_ISDIR(est.st_mode):
                if entry.name in _SKIP:
                    left_out.append((name_rel, "version-control metadata"))
                    continue
                if depth + 1 > max_depth:
                    raise TreeError(
                        f"{entry.path}: more than {max_depth} folder levels below the skill; "
                        "not copied (install it with --link)"
                    )
                items.append(Item(name_rel, "d", mode=stat.S_IMODE(est.st_mode)))
                subdirs.append((entry.path, name_rel, depth + 1))
            elif stat.S_ISREG(est.st_mode):
                total += est.st_size
                files += 1
                if total > max_bytes:
                    raise TreeError(
                        f"{folder}: more than {max_bytes // (1024 * 1024):,} MiB; not copied "
                        "(install it with --link)"
                    )
                items.append(
                    Item(name_rel, "f", est.st_size, est.st_mtime_ns, stat.S_IMODE(est.st_mode))
                )
            else:
                left_out.append((name_rel, "not a file, folder or link"))
        stack.extend(reversed(subdirs))
    return Tree(folder, tuple(items), tuple(left_out), total, files)


def _is_skill_file(rel: str) -> bool:
    return "/" not in rel and rel.lower() == SKILL_FILE_LOWER


def _copy_file(src: str, dest: str, item: Item) -> str:
    """Copy one listed regular file; its SHA-256. TreeError when it is no longer that file."""
    try:
        fd = os.open(src, _OPEN_FLAGS)
    except OSError as err:
        raise TreeError(f"{src}: cannot be read ({err.strerror or err})") from None
    h = hashlib.sha256()
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size != item.size:
            raise TreeError(f"{src}: changed while it was being installed; nothing was installed")
        # Permissions as the source has them, without set-id bits; never wider than rw for all.
        mode = item.mode & 0o777
        out = os.open(dest, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        try:
            while True:
                chunk = os.read(fd, _CHUNK)
                if not chunk:
                    break
                h.update(chunk)
                os.write(out, chunk)
            os.fchmod(out, mode)
        finally:
            os.close(out)
    finally:
        os.close(fd)
    return h.hexdigest()


def copy_tree(tree: Tree, dest: str) -> dict[str, str]:
    """Copy `tree` below the existing folder `dest`, the skill file last; {rel: hash} of what was
    copied (see `hash_tree`)."""
    hashes: dict[str, str] = {}
    last = [it for it in tree.items if it.kind == "f" and _is_skill_file(it.rel)]
    for item in [it for it in tree.items if it not in last] + last:
        src = os.path.join(tree.folder, *item.rel.split("/"))
        out = os.path.join(dest, *item.rel.split("/"))
        if item.kind == "d":
            os.mkdir(out, 0o700)
            os.chmod(out, (item.mode & 0o777) | 0o700)
        elif item.kind == "l":
            os.symlink(item.link, out)
            hashes[item.rel] = "link:" + item.link
        else:
            hashes[item.rel] = _copy_file(src, out, item)
    return hashes


def hash_tree(tree: Tree) -> dict[str, str]:
    """{rel: SHA-256} of the files of `tree`, {rel: "link:" + text} of its links."""
    out: dict[str, str] = {}
    for item in tree.items:
        if item.kind == "l":
            out[item.rel] = "link:" + item.link
        elif item.kind == "f":
            path = os.path.join(tree.folder, *item.rel.split("/"))
            h = hashlib.sha256()
            try:
                fd = os.open(path, _OPEN_FLAGS)
            except OSError:
                out[item.rel] = ""
                continue
            try:
                if not stat.S_ISREG(os.fstat(fd).st_mode):
                    out[item.rel] = ""
                    continue
                while chunk := os.read(fd, _CHUNK):
                    h.update(chunk)
            finally:
                os.close(fd)
            out[item.rel] = h.hexdigest()
    return out
