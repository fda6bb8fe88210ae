"""A throwaway project in which the runtime sees exactly the skill set under review.

Each skill's folder is copied into the runtime's first project root (`.claude/skills`,
`.agents/skills`, ...: the root an installer would use, core/installed.py), in a new temporary
folder that is also an (empty) git repository, since some runtimes find the project root by
`.git`. The runtime then runs with that folder as its working folder. The user's own
configuration, personal skills and credentials stay where they are, used by the runtime as it
always does: nothing of them is read or copied here. The folder is removed afterwards.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

from skillprism.core.installed import PROJECT, target_root
from skillprism.core.profiles import Profile


class WorkspaceError(RuntimeError):
    """The throwaway project cannot be laid out (no project root, a copy failed)."""


@dataclass(frozen=True)
class Skill:
    name: str  # the name the runtime uses for it
    folder: str  # the skill's folder (holding SKILL.md)


@dataclass(frozen=True)
class LiveWorkspace:
    project: str  # the working folder of every run
    root: str  # the project root the skills were copied into
    skills: Mapping[str, str]  # name -> folder name inside `root`
    fingerprint: str  # sha256 of the copied files (relative path and bytes)


def fingerprint(folders: Sequence[str]) -> str:
    """One hash of the skill folders' files: names relative to each folder's parent, and bytes.
    Two results with the same fingerprint were measured on the same skill set."""
    digest = hashlib.sha256()
    for folder in sorted(folders):
        base = os.path.dirname(folder.rstrip(os.sep))
        for current, dirs, files in os.walk(folder):
            dirs.sort()
            for name in sorted(files):
                path = os.path.join(current, name)
                if os.path.islink(path) or not os.path.isfile(path):
                    continue
                digest.update(os.path.relpath(path, base).encode("utf-8", "surrogateescape"))
                digest.update(b"\0")
                with open(path, "rb") as f:
                    digest.update(hashlib.sha256(f.read()).digest())
    return digest.hexdigest()


def _git_init(project: str) -> None:
    """An empty repository, written by hand: no git is run, no hook can exist."""
    git = os.path.join(project, ".git")
    for sub in ("objects", "refs/heads", "refs/tags"):
        os.makedirs(os.path.join(git, sub), exist_ok=True)
    with open(os.path.join(git, "HEAD"), "w", encoding="utf-8") as f:
        f.write("ref: refs/heads/main\n")
    with open(os.path.join(git, "config"), "w", encoding="utf-8") as f:
        f.write("[core]\n\trepositoryformatversion = 0\n\tbare = false\n")


def lay_out(profile: Profile, skills: Sequence[Skill], base: str) -> LiveWorkspace:
    """Copy `skills` into a new project below `base` (see the module)."""
    project = os.path.join(base, "project")
    os.makedirs(project)
    home = os.path.expanduser("~")
    root = target_root(profile, [], PROJECT, "", project, home, dict(os.environ))
    if root is None:
        raise WorkspaceError(f"{profile.title} has no project skill folder to copy skills into")
    _git_init(project)
    placed: dict[str, str] = {}
    used: set[str] = set()
    for skill in skills:
        folder = os.path.basename(skill.folder.rstrip(os.sep)) or skill.name
        if folder in used:  # two copies of one folder name: the first is the one installed
            continue
        used.add(folder)
        try:
            shutil.copytree(skill.folder, os.path.join(root.path, folder), symlinks=True)
        except OSError as err:
            raise WorkspaceError(f"{skill.folder}: cannot copy the skill: {err}") from None
        placed[skill.name] = folder
    return LiveWorkspace(project, root.path, placed, fingerprint([s.folder for s in skills]))


@contextmanager
def live_workspace(profile: Profile, skills: Sequence[Skill]) -> Iterator[LiveWorkspace]:
    """`lay_out` in a new temporary folder, removed when the block ends (even on error)."""
    base = tempfile.mkdtemp(prefix="skillprism-live-")
    try:
        yield lay_out(profile, skills, base)
    finally:
        shutil.rmtree(base, ignore_errors=True)
