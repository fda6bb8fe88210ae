"""Installing a skill, or a whole repository of plugins and collections, where runtimes find it.

* `plan_install(source, profiles, scope, mode, ...)` says, per runtime, where each skill would go
  (core/installed.py: `<root>/<folder>/SKILL.md` in the runtime's first personal or project
  root, a plugin's skills in its plugin root where the runtime has one of that scope), what the
  runtime would make of it there, and every **clash**: a skill already at the target, or a skill
  of the same name elsewhere in the runtime's roots, shown side by side (both paths, both
  descriptions, the copy the runtime picks after the install). The runtime's verdicts come from
  the resolver run on its roots with the skills placed (`build_catalog(..., install=...)`), so
  they are the ones `check` gives after installing. Writes are `Action`s, one per target folder:
  runtimes that read one folder get one copy. Nothing is written.
* `apply_install(plan)` does the actions the plan allows: a copy is written into a temporary
  folder beside the target (the skill file last) and renamed into place; a link is created under
  a temporary name and renamed into place; a skill replaced (only with `replace`) is moved to the
  backups folder. Everything is checked first: a source or target that changed since the plan is
  refused and nothing is written. One journal entry per apply, so `undo_install()` removes what
  it installed and puts back what it replaced (refused when an installed copy changed since);
  each install is recorded in the manifest (core/install_state.py) for `stale` and `update`.

Nothing from a skill is executed; bounds are core/install_files.py's.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import time
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any

from skillprism.core.install_files import Tree, TreeError, copy_tree, list_tree
from skillprism.core.installed import (
    KINDS,
    Install,
    SharedTarget,
    Unit,
    find_units,
    install_plan,
    plugin_root_of,
    shared_targets,
)
from skillprism.core.placement import within_root
from skillprism.core.policy import Policy
from skillprism.core.profiles import Profile, clash_key
from skillprism.core.resolve import build_catalog
from skillprism.core.roots import profile_roots
from skillprism.core.scan import DEFAULT_MAX_DIRS
from skillprism.core.write_back import backups_dir, new_file_mode, replace_atomically

COPY, LINK = "copy", "link"
MODES = (COPY, LINK)
JOURNAL_NAME = "install-journal.json"
JOURNAL_DEPTH = 50
_STAGE = ".skillprism-install-"
UNIT_SEARCH_DIRS = DEFAULT_MAX_DIRS  # folders searched for skills in a repository


class InstallError(Exception):
    """The install cannot be planned or done as asked; nothing was written. One line for the
    user: what, where and what to do."""


@dataclass(frozen=True)
class Clash:
    """A skill of the same name, or any skill at the target, beside the one installed."""

    name: str
    where: str  # "target" (already in the target folder) or "root" (elsewhere in the roots)
    path: str  # its skill file
    description: str
    scope: str  # its root's scope
    status_after: str  # what the runtime makes of it after the install
    new_path: str  # the installed skill's file at the target
    new_description: str
    picks: str  # the skill file the runtime uses after the install ("" = both are kept)
    note: str = ""


@dataclass(frozen=True)
class Placed:
    """One skill for one runtime: where it goes and what the runtime makes of it there."""

    profile: str
    title: str
    source: str  # the skill folder installed
    target: str  # the folder it becomes
    root: str
    scope: str  # the target root's scope label
    plugin: str  # the plugin it belongs to ("" when none, or not installed as one)
    name: str  # the name the runtime gives it
    description: str
    status: str  # the runtime's verdict after the install (ok, warning, error, skipped, ...)
    reason: str
    installed: bool  # False: blocked (see `blocked`)
    blocked: str = ""
    clashes: tuple[Clash, ...] = ()
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Action:
    """One write: the folder `target` becomes a copy of (or a link to) `source`."""

    source: str
    target: str
    mode: str
    profiles: tuple[str, ...]
    name: str  # the skill folder's name
    scope: str
    replace: bool = False  # something is at the target and is moved to the backups
    blocked: str = ""  # why this is not done ("" = it is)
    source_state: str = ""  # fingerprint of the source's listing when planned (a copy)
    target_state: str = ""  # what was at the target when planned ("" = nothing)
    files: int = 0
    size: int = 0
    left_out: tuple[tuple[str, str], ...] = ()

    @property
    def done(self) -> bool:
        return not self.blocked


@dataclass(frozen=True)
class InstallPlan:
    source: str
    scope: str
    mode: str
    project: str
    home: str
    placed: tuple[Placed, ...] = ()
    actions: tuple[Action, ...] = ()
    homeless: tuple[tuple[str, str], ...] = ()  # (profile, what the runtime has no root for)
    title: str = "install"

    @property
    def todo(self) -> tuple[Action, ...]:
        return tuple(a for a in self.actions if a.done)

    @property
    def blocked(self) -> tuple[Action, ...]:
        return tuple(a for a in self.actions if not a.done)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Applied:
    """What `apply_install` or `undo_install` did: the journal entry's id and its targets."""

    id: str
    installed: tuple[str, ...] = ()
    replaced: tuple[tuple[str, str], ...] = ()  # (target, where its old content is kept)
    restored: tuple[str, ...] = ()


def _skill_units(source: str) -> list[Unit]:
    """The units of `source`: the skill folder itself, or what find_units finds below it;
    InstallError when the search was cut short (an install never leaves skills out unsaid)."""
    for name in os.listdir(source):
        if name.lower() == "skill.md" and os.path.isfile(os.path.join(source, name)):
            return [Unit("skill", source, os.path.basename(source), (os.path.join(source, name),))]
    notes: list[str] = []
    units = find_units(source, max_dirs=UNIT_SEARCH_DIRS, notes=notes)
    if notes:
        raise InstallError(
            f"{notes[0]}; nothing was planned (point at a smaller folder, e.g. its skills/)"
        )
    return units


def target_state(path: str) -> str:
    """What is at `path` now, as a fingerprint: "" nothing, "link:<text>" a link, "tree:<digest>"
    a folder (its listing), "other" anything else."""
    if not os.path.lexists(path):
        return ""
    if os.path.islink(path):
        return "link:" + os.readlink(path)
    if os.path.isdir(path):
        try:
            return "tree:" + list_tree(path).fingerprint()
        except TreeError as err:
            return f"unlisted:{err}"
    return "other"


def _description(value: object) -> str:
    return value if isinstance(value, str) else ""


def plan_install(
    source: str,
    profiles: Sequence[Profile],
    scope: str,
    mode: str = COPY,
    *,
    project: str,
    home: str,
    env: Mapping[str, str],
    replace: bool = False,
) -> InstallPlan:
    """Where each skill of `source` (a skill folder or a repository) would go for each runtime
    of `profiles` in `scope` (personal or project), with `mode` copy or link; see the module doc.
    InstallError when the source holds no skill or the arguments are wrong."""
    if scope not in KINDS:
        raise InstallError(f"scope {scope!r}: expected personal or project")
    if mode not in MODES:
        raise InstallError(f"mode {mode!r}: expected copy or link")
    source = os.path.abspath(source)
    project, home = os.path.abspath(project), os.path.abspath(home)
    if not os.path.isdir(source):
        raise InstallError(f"{source}: not a folder")
    units = _skill_units(source)
    if not units:
        raise InstallError(f"{source}: no skill (a folder with a SKILL.md) below it")
    shared = shared_targets(profiles, scope, project, home, env)
    # A plugin goes to the plugin folder of a runtime that has one; the others share folders
    # those runtimes do not read (Claude Code reads ~/.claude/skills beside its plugins).
    hosts = [p for p in profiles if plugin_root_of(p, scope, project, home, env)]
    plugin_shared = (
        shared_targets([p for p in profiles if p not in hosts], scope, project, home, env, hosts)
        if hosts and any(u.kind == "plugin" for u in units)
        else shared
    )
    install = Install(
        tuple(units),
        scope,
        strict=True,
        folders=tuple((name, t.path) for name, t in shared.items()),
        plugin_folders=tuple((name, t.path) for name, t in plugin_shared.items()),
    )
    trees: dict[str, Tree | TreeError] = {}
    # target folder -> (source folder, profiles, name); the first source of a target keeps it
    targets: dict[str, dict[str, Any]] = {}
    per_profile: list[tuple[Profile, list[tuple[str, str, Any, str]]]] = []
    homeless: list[tuple[str, str]] = []
    for profile in profiles:
        roots = profile_roots(profile, project, home, env)
        placed, no_root = install_plan(profile, install, roots, project, home, env)
        for unit in no_root:
            homeless.append(
                (
                    profile.name,
                    f"{profile.title} has no {scope} skills folder: {unit.kind} '{unit.name}' "
                    f"({len(unit.skills)} skill(s)) is not installed for it",
                )
            )
        rows = []
        for found, root, plugin in placed:
            skill_dir = os.path.dirname(found.path)
            target = os.path.join(root.path, found.parts[0])
            rows.append((skill_dir, target, root, plugin))
            slot = targets.setdefault(
                target, {"source": skill_dir, "profiles": [], "scope": root.scope}
            )
            if slot["source"] == skill_dir and profile.name not in slot["profiles"]:
                slot["profiles"].append(profile.name)
        per_profile.append((profile, rows))
    actions: dict[str, Action] = {}
    for target, slot in targets.items():
        skill_dir = slot["source"]
        state = target_state(target)
        blocked = ""
        tree = trees.get(skill_dir)
        if tree is None and mode == COPY:
            try:
                tree = list_tree(skill_dir)
            except TreeError as err:
                tree = err
            trees[skill_dir] = tree
        if isinstance(tree, TreeError):
            blocked = str(tree)
        elif state and os.path.realpath(target) == os.path.realpath(skill_dir):
            blocked = "already there: the target is the source itself"
        elif state and not replace:
            what = "a link" if state.startswith("link:") else "a skill folder"
            blocked = f"{what} is already at {target}; not replaced (ask for replace to do it)"
        elif state == "other":
            blocked = f"{target} is a file, not a skill folder; remove it first"
        actions[target] = Action(
            source=skill_dir,
            target=target,
            mode=mode,
            profiles=tuple(slot["profiles"]),
            name=os.path.basename(target),
            scope=scope,
            replace=bool(state) and not blocked,
            blocked=blocked,
            source_state=tree.fingerprint() if isinstance(tree, Tree) else "",
            target_state=state,
            files=tree.files if isinstance(tree, Tree) else 0,
            size=tree.size if isinstance(tree, Tree) else 0,
            left_out=tree.left_out if isinstance(tree, Tree) else (),
        )
    all_placed: list[Placed] = []
    for profile, rows in per_profile:
        all_placed.extend(
            _verdicts(profile, install, rows, actions, project, home, env, mode, source)
        )
    return InstallPlan(
        source=source,
        scope=scope,
        mode=mode,
        project=project,
        home=home,
        placed=tuple(_shared_notes(all_placed, shared)),
        actions=tuple(actions.values()),
        homeless=tuple(homeless),
    )


def _shared_notes(placed: list[Placed], shared: Mapping[str, SharedTarget]) -> list[Placed]:
    """Each placed skill with a note when its runtime's folder was chosen against its own
    preference (a legacy folder) or cannot be exact (another runtime reads two copies)."""
    out = []
    for pl in placed:
        choice = shared.get(pl.profile)
        extra: list[str] = []
        if choice is not None and not pl.plugin and choice.path == pl.root:
            if choice.legacy:
                extra.append(
                    f"{choice.path}: {pl.title} calls this folder legacy; it is used because "
                    "every other folder it reads is read by another runtime of this install, "
                    "which would then find two copies"
                )
            if choice.twice:
                extra.append(
                    f"{choice.path}: also read by {', '.join(choice.twice)}, which then finds "
                    "two copies of the skill: install for it separately"
                )
        out.append(replace(pl, notes=pl.notes + tuple(extra)) if extra else pl)
    return out


def _verdicts(
    profile: Profile,
    install: Install,
    rows: list[tuple[str, str, Any, str]],
    actions: Mapping[str, Action],
    project: str,
    home: str,
    env: Mapping[str, str],
    mode: str,
    source: str,
) -> list[Placed]:
    """Each placed skill of one runtime with the runtime's verdict after the install (the
    resolver on its roots with the skills placed and replaced targets gone) and its clashes."""
    replaced = [a.target for a in actions.values() if a.replace]
    policy = Policy(
        profile, ignore_paths=tuple(os.path.relpath(t, "/") + "/*" for t in replaced), base="/"
    )
    after = build_catalog(
        profile, project=project, home=home, env=env, install=install, policy=policy
    )
    by_path = {os.path.abspath(s.path): s for s in after.skills}
    planned_files = {
        os.path.abspath(s.path) for s in after.skills if s.path.startswith(source + os.sep)
    }
    groups: dict[str, list[Any]] = {}
    for s in after.skills:
        if s.name:
            groups.setdefault(clash_key(profile, s.qualified_name or s.name), []).append(s)
    out: list[Placed] = []
    for skill_dir, target, root, plugin in rows:
        action = actions[target]
        skill_file = next(
            (p for p in by_path if os.path.dirname(p) == skill_dir and p in planned_files), ""
        )
        entry = by_path.get(skill_file)
        file_name = os.path.basename(skill_file) or "SKILL.md"
        new_file = os.path.join(target, file_name)
        notes: list[str] = []
        template = profile.roots[root.template] if 0 <= root.template < len(profile.roots) else None
        if template is not None and template.note:
            notes.append(f"{root.path}: {template.note}")
        blocked = action.blocked if action.source == skill_dir else ""
        if action.source != skill_dir:
            blocked = (
                f"another skill of this install goes to {target} ({action.source}); rename one "
                "of the two folders to install both"
            )
        status = entry.status if entry is not None else "not-discovered"
        reason = entry.reason if entry is not None else "the runtime does not read it there"
        if entry is not None and not reason and entry.status in ("error", "warning"):
            first = next((d for d in entry.diagnostics if d.severity == entry.status), None)
            reason = f"{first.code} {first.message}" if first is not None else ""
        if mode == LINK and not profile.follow_symlinks:
            status, reason = (
                "not-discovered",
                f"{profile.title} does not follow a symlinked skill folder: install it as a copy",
            )
        clashes: list[Clash] = []
        home_root = next(
            (
                r
                for r in after.roots
                if r.exists
                and r.path != root.path
                and within_root(skill_dir, r.path, r.layout, profile.max_depth)
            ),
            None,
        )
        if entry is not None and home_root is not None and mode == COPY and not blocked:
            # The source itself sits in a folder this runtime reads: after a copy it reads both
            # (the resolver saw one path, so the pick is the tie rule's between the two roots).
            if profile.tie_rule == "keep-both":
                picks = ""
            else:
                picks = new_file if root.rank < home_root.rank else entry.path
            clashes.append(
                Clash(
                    name=entry.qualified_name or entry.name,
                    where="root",
                    path=entry.path,
                    description=_description(entry.description),
                    scope=home_root.scope,
                    status_after=entry.status if picks != new_file else "shadowed",
                    new_path=new_file,
                    new_description=_description(entry.description),
                    picks=picks,
                    note=f"the source itself is in {profile.title}'s folder {home_root.path}: "
                    "after a copy it reads both",
                )
            )
            if picks == entry.path:
                status, reason = "shadowed", f"{entry.path} wins"
        if entry is not None and entry.name:
            key = clash_key(profile, entry.qualified_name or entry.name)
            winner = next((s for s in groups.get(key, []) if s.loaded), None)
            keep_both = profile.tie_rule == "keep-both"
            for other in groups.get(key, []):
                if other is entry or os.path.abspath(other.path) in planned_files:
                    continue
                at_target = os.path.dirname(os.path.abspath(other.path)) == target
                if blocked and at_target:
                    picks = other.path
                elif keep_both:
                    picks = ""
                else:
                    picks = new_file if winner is entry else (winner.path if winner else "")
                note = ""
                if profile.winner == "varies":
                    note = f"{profile.title}'s pick between copies of one name varies"
                clashes.append(
                    Clash(
                        name=entry.qualified_name or entry.name,
                        where="target" if at_target else "root",
                        path=other.path,
                        description=_description(other.description),
                        scope=other.root.scope,
                        status_after=other.status,
                        new_path=new_file,
                        new_description=_description(entry.description),
                        picks=picks,
                        note=note,
                    )
                )
        if action.source != skill_dir:
            first = next(
                (s for p, s in by_path.items() if os.path.dirname(p) == action.source), None
            )
            clashes.append(
                Clash(
                    name=os.path.basename(target),
                    where="install",
                    path=first.path if first is not None else action.source,
                    description=_description(first.description if first else ""),
                    scope=root.scope,
                    status_after=first.status if first is not None else "",
                    new_path=new_file,
                    new_description=_description(entry.description if entry else ""),
                    picks=os.path.join(target, file_name),
                    note="two skills of this install have the same folder name; the first "
                    "one is installed",
                )
            )
        if (
            action.target_state
            and not any(c.where == "target" for c in clashes)
            and action.target_state.startswith(("tree:", "link:"))
        ):
            there = next((s for p, s in by_path.items() if os.path.dirname(p) == target), None)
            clashes.append(
                Clash(
                    name=(there.qualified_name or there.name)
                    if there
                    else os.path.basename(target),
                    where="target",
                    path=there.path if there is not None else target,
                    description=_description(there.description if there else ""),
                    scope=root.scope,
                    status_after=there.status if there is not None else "",
                    new_path=new_file,
                    new_description=_description(entry.description if entry else ""),
                    picks=new_file if not blocked else target,
                    note="another skill is in the target folder"
                    if there is not None
                    else "something that is not a skill is in the target folder",
                )
            )
        out.append(
            Placed(
                profile=profile.name,
                title=profile.title,
                source=skill_dir,
                target=target,
                root=root.path,
                scope=root.scope,
                plugin=plugin,
                name=(entry.qualified_name or entry.name) if entry is not None else "",
                description=_description(entry.description if entry else ""),
                status=status if not blocked else "not-installed",
                reason=blocked or reason,
                installed=not blocked,
                blocked=blocked,
                clashes=tuple(clashes),
                notes=tuple(notes),
            )
        )
    return out


# --- applying ------------------------------------------------------------------------------------


def _journal_path() -> str:
    return str(backups_dir() / JOURNAL_NAME)


def read_journal() -> list[dict[str, Any]]:
    try:
        with open(_journal_path(), encoding="utf-8") as fh:
            data = json.load(fh)
    except (OSError, ValueError):
        return []
    return [e for e in data if isinstance(e, dict)] if isinstance(data, list) else []


def _write_journal(entries: list[dict[str, Any]]) -> None:
    path = _journal_path()
    os.makedirs(os.path.dirname(path), exist_ok=True)
    data = json.dumps(entries[-JOURNAL_DEPTH:], indent=1).encode("utf-8")
    replace_atomically(path, data, 0o600)


def _check(plan: InstallPlan) -> None:
    """Refuse (InstallError, nothing written) when a source or target changed since the plan."""
    for a in plan.todo:
        now = target_state(a.target)
        if now != a.target_state:
            what = "appeared" if not a.target_state else "changed"
            raise InstallError(
                f"{a.target}: {what} since the install was planned; nothing was written "
                "(look again and retry)"
            )
        if not os.path.isdir(a.source):
            raise InstallError(f"{a.source}: gone since the install was planned; nothing written")
        if a.mode == COPY:
            try:
                state = list_tree(a.source).fingerprint()
            except TreeError as err:
                raise InstallError(str(err)) from None
            if state != a.source_state:
                raise InstallError(
                    f"{a.source}: changed since the install was planned; nothing was written "
                    "(look again and retry)"
                )


def _move(src: str, dst: str) -> None:
    """Move a folder or link, across file systems too (never following a link)."""
    try:
        os.rename(src, dst)
    except OSError:
        if os.path.islink(src) or not os.path.isdir(src):
            shutil.move(src, dst)
        else:
            shutil.copytree(src, dst, symlinks=True)
            shutil.rmtree(src)


def _remove(path: str) -> None:
    if os.path.islink(path) or not os.path.isdir(path):
        os.unlink(path)
    else:
        shutil.rmtree(path)


def _place(a: Action) -> tuple[str, dict[str, str]]:
    """Stage `a.source` beside `a.target` (a copy, the skill file last; or a link): the staged
    entry's path and the hashes of what was written ({rel: hash}; a link: {"": "link:<source>"})."""
    root = os.path.dirname(a.target)
    stage = os.path.join(root, f"{_STAGE}{uuid.uuid4().hex[:12]}")
    if a.mode == LINK:
        os.symlink(a.source, stage, target_is_directory=True)
        return stage, {"": "link:" + a.source}
    os.mkdir(stage, 0o700)
    try:
        hashes = copy_tree(list_tree(a.source), stage)
        # A folder's usual mode here (0777 less the umask, as for a new file plus search bits).
        mode = new_file_mode()
        os.chmod(stage, mode | (mode & 0o444) >> 2)
    except BaseException:
        shutil.rmtree(stage, ignore_errors=True)
        raise
    return stage, hashes


def apply_install(plan: InstallPlan, *, record: bool = True) -> Applied:
    """Do what `plan` allows (see the module doc); InstallError with nothing written when a
    source or target changed since the plan. `record`: keep the installs in the manifest."""
    from skillprism.core import install_state

    _check(plan)
    todo = plan.todo
    if not todo:
        return Applied("")
    entry_id = time.strftime("%Y%m%d-%H%M%S") + "-" + uuid.uuid4().hex[:8]
    backups = backups_dir() / entry_id
    items: list[dict[str, Any]] = []
    installed: list[str] = []
    replaced: list[tuple[str, str]] = []
    manifest_before: dict[str, Any] = {}
    known = install_state.read_manifest()
    try:
        for n, a in enumerate(todo):
            root = os.path.dirname(a.target)
            created = []
            cur = root
            while not os.path.isdir(cur):
                created.append(cur)
                cur = os.path.dirname(cur)
            os.makedirs(root, exist_ok=True)
            stage, stage_hashes = _place(a)
            backup = ""
            if a.replace:
                backups.mkdir(parents=True, exist_ok=True)
                backup = str(backups / f"{n:04d}-{a.name}")
                aside = os.path.join(root, f"{_STAGE}old-{uuid.uuid4().hex[:12]}")
                os.rename(a.target, aside)
                os.rename(stage, a.target)
                _move(aside, backup)
                replaced.append((a.target, backup))
            else:
                os.rename(stage, a.target)
            installed.append(a.target)
            manifest_before[a.target] = known.get(a.target)
            items.append(
                {
                    "target": a.target,
                    "source": a.source,
                    "mode": a.mode,
                    "backup": backup,
                    "after": target_state(a.target),
                    "created": created,
                    "hashes": stage_hashes,
                    "profiles": list(a.profiles),
                    "scope": a.scope,
                }
            )
    except BaseException:
        _roll_back(items, installed)
        raise
    entry = {
        "id": entry_id,
        "title": plan.title,
        "time": time.time(),
        "items": items,
        "manifest_before": manifest_before,
    }
    journal = read_journal()
    journal.append(entry)
    _write_journal(journal)
    if record:
        install_state.record(items)
    return Applied(entry_id, tuple(installed), tuple(replaced))


def _roll_back(items: list[dict[str, Any]], installed: list[str]) -> None:
    """Best effort after a failure part way: take out what this apply installed, put back what
    it replaced."""
    for item in reversed(items):
        with contextlib.suppress(OSError):
            _remove(item["target"])
            if item["backup"]:
                _move(item["backup"], item["target"])


def last_install() -> dict[str, Any] | None:
    journal = read_journal()
    return journal[-1] if journal else None


def undo_install() -> Applied | None:
    """Take back the newest apply: remove what it installed, put back what it replaced, and the
    manifest as it was; None when there is nothing to undo. InstallError (nothing undone) when an
    installed copy changed since, or a backup is gone."""
    from skillprism.core import install_state

    journal = read_journal()
    if not journal:
        return None
    entry = journal[-1]
    items = [i for i in entry.get("items", []) if isinstance(i, dict)]
    for item in items:
        target = str(item["target"])
        if target_state(target) != item.get("after"):
            raise InstallError(
                f"{target}: changed since it was installed; nothing was undone (move your "
                "changes aside first)"
            )
        backup = str(item.get("backup") or "")
        if backup and not os.path.lexists(backup):
            raise InstallError(f"{target}: its backup {backup} is gone; nothing was undone")
    restored: list[str] = []
    for item in reversed(items):
        target = str(item["target"])
        _remove(target)
        backup = str(item.get("backup") or "")
        if backup:
            _move(backup, target)
            restored.append(target)
        for folder in item.get("created", []):
            with contextlib.suppress(OSError):
                os.rmdir(folder)  # only when empty: another skill may have come since
    install_state.restore(entry.get("manifest_before", {}))
    _write_journal(journal[:-1])
    return Applied(
        str(entry.get("id", "")),
        installed=tuple(str(i["target"]) for i in items),
        restored=tuple(restored),
    )


def with_title(plan: InstallPlan, title: str) -> InstallPlan:
    return replace(plan, title=title)


__all__ = [
    "COPY",
    "LINK",
    "MODES",
    "Action",
    "Applied",
    "Clash",
    "InstallError",
    "InstallPlan",
    "Placed",
    "apply_install",
    "last_install",
    "plan_install",
    "undo_install",
]
