"""Listing a skill's resource files, lazily and within bounds.

Discovery never calls this: a skill folder holding 20,000 files costs nothing until someone asks
for its files (the Files tab, tier 3). The listing stops at `limit` entries and says so.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass

from skillprism.core.containment import Refused, walk_inside

GROUPS = ("scripts", "references", "assets")
DEFAULT_LIMIT = 2000
DEFAULT_DEPTH = 8


@dataclass(frozen=True, slots=True)
class Resource:
    """One file inside a skill folder. `rel_path` uses '/' whatever the platform."""

    rel_path: str
    size: int
    group: str  # scripts | references | assets | other
    is_symlink: bool = False
    escapes: bool = False  # a symlink whose real path leaves the skill folder


@dataclass(frozen=True, slots=True)
class ResourceListing:
    skill_dir: str
    items: tuple[Resource, ...]
    truncated: bool

    def grouped(self) -> dict[str, list[Resource]]:
        out: dict[str, list[Resource]] = {g: [] for g in (*GROUPS, "other")}
        for item in self.items:
            out[item.group].append(item)
        return out


def _group_of(rel_path: str) -> str:
    head = rel_path.split("/", 1)[0]
    return head if head in GROUPS and "/" in rel_path else "other"


def list_resources(
    skill_dir: str, *, limit: int = DEFAULT_LIMIT, max_depth: int = DEFAULT_DEPTH
) -> ResourceListing:
    """Files below `skill_dir` except its skill file, sorted, at most `limit` of them. Symlinked
    folders are not entered (their target may be anywhere); symlinked files are listed and marked
    when their target leaves the skill folder."""
    items: list[Resource] = []
    truncated = False
    stack: list[tuple[str, str, int]] = [(skill_dir, "", 0)]
    while stack and not truncated:
        folder, prefix, depth = stack.pop()
        try:
            with os.scandir(folder) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError:
            continue
        subdirs = []
        for entry in entries:
            rel = f"{prefix}{entry.name}"
            try:
                is_link = entry.is_symlink()
                if entry.is_dir(follow_symlinks=False):
                    if entry.name != ".git" and depth < max_depth:
                        subdirs.append((entry.path, rel + "/", depth + 1))
                    continue
            except OSError:
                continue
            if not prefix and entry.name.lower() == "skill.md":
                continue
            size, escapes = 0, False
            try:
                if is_link:
                    # Resolved by hand below the skill folder: a link leading outside is shown as
                    # such and its target is never stat'ed (its size is nobody's business here).
                    st = walk_inside(skill_dir, tuple(rel.split("/")))[1]
                else:
                    st = entry.stat(follow_symlinks=False)
                size = st.st_size if stat.S_ISREG(st.st_mode) else 0
            except Refused as refused:
                escapes = refused.rule_name == "reference-escapes"
            except OSError:
                pass
            items.append(Resource(rel, size, _group_of(rel), is_link, escapes))
            if len(items) >= limit:
                truncated = True
                break
        stack.extend(reversed(subdirs))
    items.sort(key=lambda r: r.rel_path)
    return ResourceListing(skill_dir, tuple(items), truncated)
