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
    # (profile name, skills folder) chosen for several runtimes at once (`shared_targets`); a
    # runtime not named gets its own strongest root.
    folders: tuple[tuple[str, str], ...] = ()
    # The same for a plugin's skills, for the runtimes without a plugin folder of `kind` (those
    # with one get the plugin there, and read none of these).
    plugin_folders: tuple[tuple[str, str], ...] = ()


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


def candidate_roots(
    profile: Profile,
    roots: Sequence[RootInfo],
    kind: str,
    plugin: str,
    project: str,
    home: str,
    env: Mapping[str, str],
    strict: bool = False,
) -> list[tuple[RootInfo, bool]]:
    """Every root an installer could copy into, strongest first, each with whether the runtime
    calls it legacy: the runtime's roots of `kind`, or for a plugin (`plugin` = its name) its
    plugin roots with the plugin's folder in place of `*` (`strict`: only those of `kind` too)."""
    n = len(profile.roots)
    out: list[tuple[RootInfo, bool]] = []
    for index, template in enumerate(profile.roots):
        if root_condition(template, env) or (template.namespace == "plugin") != bool(plugin):
            continue
        if template.builtin or not template.install:  # never where a user's skill goes
            continue
        path = expand_template(template.path.replace("*", plugin or "*"), project, home, env)
        if "*" in path or any(r.path == path for r, _l in out):
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
        base_rank = index if profile.tie_rule != "last-wins" else n - 1 - index
        root = known or RootInfo(
            path=path,
            scope=template.scope,
            layout=template.layout,
            rank=base_rank * 1000,
            namespace=template.namespace,
            exists=os.path.isdir(path),
            template=index,
        )
        out.append((root, template.legacy))
    return out


def target_root(
    profile: Profile,
    roots: Sequence[RootInfo],
    kind: str,
    plugin: str,
    project: str,
    home: str,
    env: Mapping[str, str],
    strict: bool = False,
    prefer: str = "",
) -> RootInfo | None:
    """The root an installer would copy into: `prefer` when it is one of the candidates
    (`candidate_roots`; chosen for several runtimes at once by `shared_targets`), else the
    runtime's strongest root that it does not call legacy. None when it has no such root."""
    found = candidate_roots(profile, roots, kind, plugin, project, home, env, strict)
    chosen = next((r for r, _legacy in found if prefer and r.path == prefer), None)
    return chosen or next((r for r, legacy in found if not legacy), None)


def plugin_root_of(
    profile: Profile, kind: str, project: str, home: str, env: Mapping[str, str]
) -> bool:
    """Whether the runtime has a plugin folder of `kind` an install puts a plugin in."""
    return bool(candidate_roots(profile, [], kind, "plugin", project, home, env, strict=True))


def read_paths(profile: Profile, project: str, home: str, env: Mapping[str, str]) -> set[str]:
    """Every folder the runtime reads skills from in this project and home (existing or not,
    plugin and built-in roots left out): a copy placed in one is a copy the runtime sees."""
    out = set()
    for template in profile.roots:
        if root_condition(template, env) or template.builtin or template.namespace == "plugin":
            continue
        path = expand_template(template.path, project, home, env)
        if "*" not in path:
            out.add(os.path.normpath(path))
    return out


@dataclass(frozen=True)
class SharedTarget:
    """The folder a runtime's skills go to in a multi-runtime install, and why."""

    path: str
    legacy: bool = False  # a folder the runtime calls legacy: every other one is read twice
    twice: tuple[str, ...] = ()  # runtimes that then read two copies (no exact choice exists)


def shared_targets(
    profiles: Sequence[Profile],
    kind: str,
    project: str,
    home: str,
    env: Mapping[str, str],
    taken: Sequence[Profile] = (),
) -> dict[str, SharedTarget]:
    """One skills folder per runtime of `profiles` for a `kind` install, chosen for all of them at
    once so that each runtime reads exactly one copy of each skill: a folder several runtimes
    read (~/.agents/skills for Codex, Gemini CLI and Copilot CLI) gets one copy for all of them,
    and no runtime is given a folder another chosen runtime also reads unless that one reads
    nothing else. Greedy, most constrained runtime first, never leaving another runtime without
    a folder of its own; a runtime's legacy folder only when nothing else is exact; a runtime
    without a folder of `kind` is left out (the planner names it). `taken`: runtimes that get
    the skills elsewhere (a plugin in their plugin folder): the folders they read are for none
    of the others."""
    cands: dict[str, list[tuple[str, bool]]] = {}
    reads: dict[str, set[str]] = {}
    for p in profiles:
        found = candidate_roots(p, [], kind, "", project, home, env)
        if found:
            cands[p.name] = [(os.path.normpath(r.path), legacy) for r, legacy in found]
            reads[p.name] = read_paths(p, project, home, env) | {c for c, _l in cands[p.name]}
    for p in taken:
        reads[p.name] = read_paths(p, project, home, env)
    held = [p.name for p in taken]
    out: dict[str, SharedTarget] = {}
    order = list(cands)

    def readers(path: str, among: Collection[str]) -> list[str]:
        return [n for n in among if path in reads[n]]

    def admissible(name: str, covered: Collection[str]) -> list[tuple[str, bool]]:
        return [(c, lg) for c, lg in cands[name] if not readers(c, covered)]

    while len(out) < len(cands):
        open_ = [n for n in order if n not in out]
        options = {n: admissible(n, [*out, *held]) for n in open_}
        stuck = [n for n in open_ if not options[n]]
        if stuck:  # every folder it could have is read by a runtime already placed
            name = stuck[0]
            path, legacy = next(((c, lg) for c, lg in cands[name] if not lg), cands[name][0])
            twice = tuple(n for n in readers(path, [*out, *held]) if n != name)
            for n in readers(path, open_):
                out[n] = SharedTarget(path, legacy and n == name, twice)
            continue
        name = min(open_, key=lambda n: (sum(not lg for _c, lg in options[n]), order.index(n)))

        def cost(
            option: tuple[str, bool], name: str = name, open_: list[str] = open_
        ) -> tuple[int, int, int, int]:
            path, legacy = option
            served = readers(path, open_)
            after = [*out, *held, *served]
            dead = sum(1 for n in open_ if n not in served and not admissible(n, after))
            return (dead, legacy, -len(served), cands[name].index(option))

        path, legacy = min(options[name], key=cost)
        for n in readers(path, open_):
            out[n] = SharedTarget(path, legacy and n == name)
    return out


def install_plan(
    profile: Profile,
    install: Install,
    roots: list[RootInfo],
    project: str,
    home: str,
    env: Mapping[str, str],
    prefer: str = "",
) -> tuple[list[tuple[FoundFile, RootInfo, str]], list[Unit]]:
    """(found file, root, plugin name) for every skill of the units installed into the runtime's
    root of `install.kind` (`prefer`: the one chosen for several runtimes, `shared_targets`),
    and the units it has no root for. A root that does not exist yet is added to `roots` (an
    installer creates it)."""
    out: list[tuple[FoundFile, RootInfo, str]] = []
    homeless: list[Unit] = []
    prefer = prefer or dict(install.folders).get(profile.name, "")
    plugin_prefer = dict(install.plugin_folders).get(profile.name, prefer)
    for unit in install.units:
        root = None
        plugin = unit.name if unit.kind == "plugin" else ""
        if plugin:
            root = target_root(
                profile, roots, install.kind, plugin, project, home, env, install.strict
            )
            plugin = plugin if root is not None else ""
        root = root or target_root(
            profile,
            roots,
            install.kind,
            "",
            project,
            home,
            env,
            prefer=plugin_prefer if unit.kind == "plugin" else prefer,
        )
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
