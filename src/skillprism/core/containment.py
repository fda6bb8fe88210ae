"""Containment: resolving a path below a skill folder's real path without ever leaving it, and
the one rule for whether a walk may follow a symlink at all (`link_refusal`).

Every symlink on the way is followed by hand; one whose target leaves the folder (even if a further
link comes back) is refused, so nothing outside the folder is ever stat'ed through, listed or opened.
Tier 3 (reading a resource) and the folder listing (the Files tab, `resource NAME DIR`) both resolve
through here.

Walks that do follow links out of a tree (the discovery search: a skill installed as a link to a
folder elsewhere is normal) still never follow one into /proc, /sys or /dev (through /proc a walk
reaches every other process's working folder), nor one back to a folder the walk is in or above
it (the walk would go round again, or up and out of the tree).
"""

from __future__ import annotations

import functools
import os
import re
import stat
from collections.abc import Sequence

MAX_SYMLINK_HOPS = 40
_DRIVE = re.compile(r"^[A-Za-z]:")


class Refused(Exception):
    """A path that cannot be resolved inside the skill folder: the rule, what and how to fix it."""

    def __init__(self, rule_name: str, message: str, hint: str = "", effect: str = "") -> None:
        super().__init__(message)
        self.rule_name, self.message, self.hint = rule_name, message, hint
        self.effect = effect or "the runtime refuses it; nothing is opened"


def inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def walk_inside(skill_dir: str, segments: tuple[str, ...]) -> tuple[str, os.stat_result]:
    """Resolve `segments` below the skill folder; the real path and its lstat, or Refused.
    Only paths inside the folder are ever lstat'ed or read as links."""
    real_root = os.path.realpath(skill_dir)
    given_root = os.path.abspath(skill_dir)
    try:
        st = os.lstat(real_root)
    except OSError as err:
        raise Refused(
            "reference-missing",
            f"File not found: the skill folder does not exist ({err.strerror or err})",
            "check the skill folder",
        ) from None
    current = real_root
    pending = list(segments)
    shown = "/".join(segments)
    hops = 0
    while pending:
        seg = pending.pop(0)
        if seg in ("", "."):
            continue
        if seg == "..":  # only ever from a symlink's target: the request itself has none
            if current == real_root:
                raise Refused(
                    "reference-escapes",
                    f"'{shown}' goes through a symlink whose target leaves the skill folder",
                    "replace the symlink with the file itself",
                )
            current = os.path.dirname(current)
            continue
        candidate = os.path.join(current, seg)
        try:
            st = os.lstat(candidate)
        except (FileNotFoundError, NotADirectoryError):
            raise Refused(
                "reference-missing",
                f"File not found: '{shown}'",
                "create the file or fix the reference",
            ) from None
        except OSError as err:
            raise Refused(
                "resource-unreadable",
                f"cannot reach '{shown}': {err.strerror or err}",
                "fix the permissions",
            ) from None
        if not stat.S_ISLNK(st.st_mode):
            current = candidate
            continue
        hops += 1
        if hops > MAX_SYMLINK_HOPS:
            raise Refused(
                "resource-unreadable",
                f"'{shown}' goes through a symlink loop",
                "break the symlink loop",
            )
        try:
            target = os.readlink(candidate)
        except OSError as err:
            raise Refused(
                "resource-unreadable",
                f"cannot read the symlink on the way to '{shown}': {err.strerror or err}",
            ) from None
        if os.path.isabs(target) or target.startswith(("/", "\\")) or _DRIVE.match(target):
            for base in (real_root, given_root):
                if inside(target, base):
                    rest = target[len(base) :]
                    break
            else:
                raise Refused(
                    "reference-escapes",
                    f"'{shown}' goes through a symlink to '{target}', outside the skill folder",
                    "replace the symlink with the file itself",
                )
            current = real_root
            pending = rest.split(os.sep) + pending
        else:
            pending = target.split(os.sep) + pending
    return current, st


# The machine's pseudo-file systems: what lies below them describes the system and its other
# processes (/proc/<pid>/cwd leads into another project), never a skill set.
SYSTEM_FOLDERS = ("/proc", "/sys", "/dev")
_BELOW_SYSTEM_FOLDERS = tuple(folder + os.sep for folder in SYSTEM_FOLDERS)


@functools.cache
def _system_devices() -> frozenset[int]:
    """The devices of the system folders mounted as file systems of their own, so that one
    mounted elsewhere is known too (a folder of the root file system is not counted)."""
    try:
        root = os.stat("/").st_dev
    except OSError:
        return frozenset()
    out = set()
    for folder in SYSTEM_FOLDERS:
        try:
            dev = os.stat(folder).st_dev
        except OSError:
            continue
        if dev != root:
            out.add(dev)
    return frozenset(out)


def absolute(path: str) -> str:
    """`os.path.abspath(path)`, without its work when `path` is absolute and normal already, as
    every path the discovery search gives is (asked of each skill a check looks up)."""
    if (
        os.sep == "/"
        and path[:1] == "/"
        and "//" not in path
        and "/./" not in path
        and "/../" not in path
        and not path.endswith(("/", "/.", "/.."))
    ):
        return path
    return os.path.abspath(path)


def system_folder(real: str, st: os.stat_result | None = None) -> str:
    """The system folder (/proc, /sys, /dev) the real path `real` lies in, or on the same file
    system as (`st`: its stat, if taken); "" when it lies in none."""
    if real in SYSTEM_FOLDERS or real.startswith(_BELOW_SYSTEM_FOLDERS):  # (asked of every path)
        for folder in SYSTEM_FOLDERS:
            if inside(real, folder):
                return folder
    if st is None or st.st_dev not in _system_devices():
        return ""
    for folder in SYSTEM_FOLDERS:
        try:
            if os.stat(folder).st_dev == st.st_dev:
                return folder
        except OSError:
            continue
    return ""


def link_refusal(real_target: str, walked: Sequence[str] = ()) -> str:
    """Why a walk must not follow a symlink whose target resolves to the real path `real_target`
    ("" when it may), in words that finish "symlink 'NAME' ...": the target lies in /proc, /sys
    or /dev (or on one of their file systems mounted elsewhere), or it is one of the folders
    `walked` (the real paths of the folders the walk is in, the start first) or above one.
    The one rule for every walk that follows links (the discovery search, the security pass's
    file walk). Costs one stat, of the target."""
    try:
        st: os.stat_result | None = os.stat(real_target)
    except OSError:
        st = None
    system = system_folder(real_target, st)
    if system:
        return (
            f"leads into {system}, a system folder (other processes' and the machine's files); "
            "not followed"
        )
    if points_back(real_target, walked):
        return "points back into its own parent folders; not followed"
    return ""


def points_back(real_target: str, walked: Sequence[str]) -> bool:
    """Whether a link to `real_target` closes a loop: the target is one of the folders `walked`
    (real paths, the start first) or above one."""
    below = real_target.rstrip(os.sep) + os.sep
    return any(folder == real_target or folder.startswith(below) for folder in walked)
