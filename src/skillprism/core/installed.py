"""Reviewing a repository of skills as it would be once installed.

A repository is rarely laid out the way a runtime reads skills: skills sit under `skills/`, in
plugin folders, in category folders, or at the top. Searched as laid out, most of them are "not
discovered". A reviewer wants the runtime's verdicts after installing them, so:

* `find_units(folder)` finds what can be installed: plugins (a folder with a plugin manifest and
  a `skills/` folder), collections (a folder named `skills`, such as `.claude/skills`, or holding
  category folders of skills), and bare skill folders. A skill inside another skill's folder is
  one of that skill's resources, not a unit of its own.
* `install_plan(profile, units, kind, roots)` places every skill of every unit where an installer
  would copy it: `<root>/<folder>/SKILL.md` in the runtime's first personal or project root (a
  plugin's skills in its plugin root, named `plugin:name`, where the runtime has one). The files
  stay where they are: only the runtime's view of them changes, nothing is copied or written.

`build_catalog(..., install=...)` resolves the planned skills together with what the runtime's
roots already hold, so clashes with installed skills and the listing budget are those the runtime
would give.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from skillprism.core.catalog import RootInfo
from skillprism.core.profiles import Profile
from skillprism.core.roots import expand_template, root_condition
from skillprism.core.scan import DEFAULT_MAX_DIRS, SKILL_FILE_LOWER, FoundFile, search
from skillprism.core.structured import MANIFEST_MAX_BYTES, StructuredError, read_structured

PERSONAL, PROJECT = "personal", "project"
KINDS = (PERSONAL, PROJECT)
PLUGIN_MARKERS = (".claude-plugin/plugin.json", ".codex-plugin/plugin.json", "plugin.json")
MAX_DEPTH = 8
# The search's notes that mean skills may have gone unseen (others, such as an archive left
# packed, say something about what was seen).
CUT_SHORT = ("scan-truncated", "folder-unreadable")


@dataclass(frozen=True)
class Unit:
    """Something installable found in a repository."""

    kind: str  # "plugin", "collection" or "skill"
    path: str  # its folder
    name: str  # the plugin's name, or the folder's
    skills: tuple[str, ...]  # skill files (SKILL.md) it installs


@dataclass(frozen=True)
class Install:
    """What `install` means for one build: the units and where they go."""

    units: tuple[Unit, ...]
    kind: str  # PERSONAL or PROJECT
    # A plugin goes to the runtime's plugin root only when that root is of `kind` too (an install
    # into the project never writes below the home); the review places it there either way.
    strict: bool = False


def _plugin_name(folder: str) -> str:
    for marker in PLUGIN_MARKERS:
        path = os.path.join(folder, marker)
        if not os.path.lexists(path):
            continue
        try:  # never blocks on a FIFO, never recurses past its bound (core/structured.py)
            data = read_structured(path, "json", cap=MANIFEST_MAX_BYTES)
        except StructuredError:
            continue
        if isinstance(data, dict) and isinstance(data.get("name"), str) and data["name"]:
            return data["name"]
        return os.path.basename(folder)
    return ""


def find_units(
    folder: str,
    *,
    max_depth: int = MAX_DEPTH,
    max_dirs: int = DEFAULT_MAX_DIRS,
    notes: list[str] | None = None,
) -> list[Unit]:
    """The installable units below `folder` (plugins, collections, bare skills), sorted by path;
    `max_dirs` bounds the search (a quick look for a hint takes a small bound). `notes`, when
    given, receives what cut the search short (a bound, an unreadable folder)."""
    folder = os.path.abspath(folder)
    found = search(
        folder, max_depth=max_depth, max_dirs=max_dirs, ignore_dirs=(".git", "node_modules")
    )
    if notes is not None:
        notes.extend(
            f"{where}: {finding.message}"
            for where, finding in found.notes
            if finding.rule in CUT_SHORT
        )
    files = sorted(
        os.path.join(folder, *f.parts)
        for f in found.files
        if f.parts[-1].lower() == SKILL_FILE_LOWER
    )
    skill_dirs = {os.path.dirname(p) for p in files}
    units: dict[str, dict] = {}  # unit folder -> kind, name, skills
    for path in files:
        skill_dir = os.path.dirname(path)
        parent = os.path.dirname(skill_dir)
        # Inside another skill's folder: that skill's resource, installed with it.
        cur, inner = parent, False
        while cur.startswith(folder) and cur != folder:
            if cur in skill_dirs:
                inner = True
                break
            cur = os.path.dirname(cur)
        if inner:
            continue
        unit_dir, kind, name = skill_dir, "skill", os.path.basename(skill_dir)
        cur = parent
        while cur.startswith(folder):
            if os.path.basename(cur) == "skills":
                plugin = _plugin_name(os.path.dirname(cur))
                if plugin:
                    unit_dir, kind, name = os.path.dirname(cur), "plugin", plugin
                else:
                    unit_dir, kind, name = cur, "collection", os.path.basename(cur)
                break
            if cur == folder:
                break
            cur = os.path.dirname(cur)
        unit = units.setdefault(unit_dir, {"kind": kind, "name": name, "skills": []})
        unit["skills"].append(path)
    return [
        Unit(u["kind"], path, u["name"], tuple(u["skills"])) for path, u in sorted(units.items())
    ]


def installable_units(
    folder: str, root_tails: Collection[tuple[str, ...]], max_dirs: int = DEFAULT_MAX_DIRS
) -> list[Unit]:
    """The units an installer would place from `folder`, when it is a repository of skills or
    plugins; [] when it is not one: a skills folder as it is (skills directly in it), or a
    project or home laid out with runtimes' own skill folders (units found only at paths that end
    in one of `root_tails`, e.g. ('.claude', 'skills'), besides skills directly in `folder`)."""
    if os.path.isfile(os.path.join(folder, "SKILL.md")):
        return []
    units = find_units(folder, max_dirs=max_dirs)

    def laid_out(unit: Unit) -> bool:
        parts = tuple(os.path.normpath(unit.path).split(os.sep))
        return any(tail and parts[-len(tail) :] == tail for tail in root_tails)

    rest = [u for u in units if not laid_out(u)]
    plain = all(
        (u.kind == "skill" and os.path.dirname(u.path) == folder)
        or (u.kind == "collection" and os.path.normpath(u.path) == os.path.normpath(folder))
        for u in rest
    )
    return [] if plain else units


def target_root(
    profile: Profile,
    roots: Sequence[RootInfo],
    kind: str,
    plugin: str,
    project: str,
    home: str,
    env: Mapping[str, str],
    strict: bool = False,
) -> RootInfo | None:
    """The root an installer would copy into: the runtime's strongest root of `kind`, or for a
    plugin (`plugin` = its name) the runtime's plugin root with the plugin's folder in place of
    `*` (`strict`: only when that root is of `kind` too). None when the runtime has no such
    root."""
    n = len(profile.roots)
    for index, template in enumerate(profile.roots):
        if root_condition(template, env) or (template.namespace == "plugin") != bool(plugin):
            continue
        if template.builtin:  # the runtime's own skills: never where a user's skill goes
            continue
        path = expand_template(template.path.replace("*", plugin or "*"), project, home, env)
        if "*" in path:
            continue
        root_kind = (
            PROJECT
            if "{project}" in template.path
            else PERSONAL
            if path.startswith(home.rstrip(os.sep) + os.sep)
            else ""  # a managed or system folder: not where a user installs
        )
        if root_kind != kind and (strict or not plugin):
            continue
        known = next((r for r in roots if r.path == path), None)
        if known is not None:
            return known
        base_rank = index if profile.tie_rule != "last-wins" else n - 1 - index
        return RootInfo(
            path=path,
            scope=template.scope,
            layout=template.layout,
            rank=base_rank * 1000,
            namespace=template.namespace,
            exists=os.path.isdir(path),
            template=index,
        )
    return None


def install_plan(
    profile: Profile,
    install: Install,
    roots: list[RootInfo],
    project: str,
    home: str,
    env: Mapping[str, str],
) -> tuple[list[tuple[FoundFile, RootInfo, str]], list[Unit]]:
    """(found file, root, plugin name) for every skill of the units installed into the runtime's
    root of `install.kind`, and the units it has no root for. A root that does not exist yet is
    added to `roots` (an installer creates it)."""
    out: list[tuple[FoundFile, RootInfo, str]] = []
    homeless: list[Unit] = []
    for unit in install.units:
        root = None
        plugin = unit.name if unit.kind == "plugin" else ""
        if plugin:
            root = target_root(
                profile, roots, install.kind, plugin, project, home, env, install.strict
            )
            plugin = plugin if root is not None else ""
        root = root or target_root(profile, roots, install.kind, "", project, home, env)
        if root is None:
            homeless.append(unit)
            continue
        if root not in roots:
            roots.append(root)
        for path in unit.skills:
            folder = os.path.basename(os.path.dirname(path))
            parts = (folder, os.path.basename(path))
            found = FoundFile(path, root.path, parts)
            out.append((found, root, plugin))
    return out, homeless


def layout_runtime(
    folders: Sequence[str],
    reads: Mapping[str, frozenset[tuple[str, ...]]],
    max_depth: int = 4,
    max_dirs: int = 2000,
) -> tuple[str, str]:
    """The runtime whose own skill folders `folders` are laid out with, and a folder that says
    so. `reads` maps each runtime to the trailing folders of the skill folders it reads in a
    project or home (e.g. claude-code: {('.claude', 'skills')}). Of the runtimes that read every
    kind of folder found, the one that reads the fewest other kinds wins (a set of
    `.claude/skills` folders is Claude Code's, though other runtimes read them too); ("", "")
    when none is found, none reads them all, or two are as close."""
    tails = {tail for found in reads.values() for tail in found}
    found: dict[tuple[str, ...], str] = {}
    visited = 0
    for folder in folders:
        if not os.path.isdir(folder):
            continue
        base = folder.rstrip(os.sep).count(os.sep)
        for current, dirs, _files in os.walk(folder):
            visited += 1
            if visited > max_dirs:  # a quick look, not a search: a huge tree is not walked
                break
            if current.count(os.sep) - base >= max_depth:
                dirs[:] = []
            parts = tuple(current.split(os.sep))
            for tail in tails:
                if parts[-len(tail) :] == tail:
                    found.setdefault(tail, current)
            dirs[:] = [d for d in dirs if d not in (".git", "node_modules")]
    if not found:
        return "", ""
    kinds = set(found)
    ranked = sorted((len(read - kinds), name) for name, read in reads.items() if kinds <= read)
    if not ranked or (len(ranked) > 1 and ranked[0][0] == ranked[1][0]):
        return "", ""
    return ranked[0][1], next(iter(found.values()))
