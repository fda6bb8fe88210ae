"""Resolve a skill set under one profile: roots -> found files -> parsed -> validated -> precedence
-> an immutable Catalog with every skill's state (docs/architecture.md)."""

from __future__ import annotations

import bisect
import fnmatch
import glob
import logging
import os
import re
import sys
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Protocol

from skillprism.core.cancel import checkpoint
from skillprism.core.catalog import Catalog, RootInfo, SkillEntry, Suppressed, merge_counts
from skillprism.core.codes import CODES, RULES
from skillprism.core.diagnostics import Diagnostic, Severity
from skillprism.core.discovery import ignored_reason, root_md_files, stop_reason
from skillprism.core.document import FileStamp, Finding, SkillDocument, file_stamp, parse_document
from skillprism.core.ordering import locale_key
from skillprism.core.policy import Policy, Tally
from skillprism.core.profiles import Profile, RootTemplate, clash_key
from skillprism.core.scan import (
    DEFAULT_MAX_DEPTH,
    SKILL_FILE_LOWER,
    FoundFile,
    ScanResult,
    TreeListing,
    search,
)
from skillprism.core.structured import MANIFEST_MAX_BYTES, StructuredError, read_structured
from skillprism.core.validate import Evaluation, evaluate

if TYPE_CHECKING:  # the security pass is imported when it first runs: `check` starts faster
    from skillprism.core.installed import Install
    from skillprism.core.security import RiskFinding
    from skillprism.core.workers import Job, WorkerPool

log = logging.getLogger(__name__)


class DocumentCache:
    """Parsed documents, and profile evaluations of them, keyed by path and reused while the file's
    stamp (inode, mtime, ctime, size, mode: see `file_stamp`) is unchanged: a rescan after one file
    changed re-parses and re-evaluates only that file, including when the first scan ran in worker
    processes, and a permission change is seen like an edit."""

    def __init__(self) -> None:
        self._docs: dict[str, tuple[FileStamp, SkillDocument]] = {}
        # path -> profile key -> stored evaluation: forgetting a path is one lookup, however many
        # files and profiles are stored (a reload forgets every file of the set).
        self._evaluations: dict[str, dict[int, tuple[FileStamp, Evaluation]]] = {}
        self._risks: dict[str, tuple[FileStamp, list[RiskFinding]]] = {}

    @staticmethod
    def _stamp(path: str) -> FileStamp | None:
        try:
            return file_stamp(os.stat(path))
        except OSError:
            return None

    def get(self, path: str) -> SkillDocument:
        stamp = self._stamp(path)
        if stamp is not None:
            cached = self._docs.get(path)
            if cached is not None and cached[0] == stamp:
                return cached[1]
        doc = parse_document(path)
        if stamp is not None and doc.stamp == stamp:
            self._docs[path] = (stamp, doc)
        return doc

    def evaluation(self, path: str, profile_key: int) -> Evaluation | None:
        """A stored evaluation of `path` under the profile, if the file is unchanged since. (Not
        its real path: links on the way to an unchanged file may have changed.)"""
        cached = self._evaluations.get(path, {}).get(profile_key)
        if cached is None or self._stamp(path) != cached[0]:
            return None
        return cached[1]

    def risks(self, path: str) -> list[RiskFinding] | None:
        """The security findings of the skill whose file is `path`, if its file is unchanged
        since (a change elsewhere in the skill folder is forgotten by the live catalog)."""
        cached = self._risks.get(path)
        if cached is None or self._stamp(path) != cached[0]:
            return None
        return cached[1]

    def evaluated_stamp(self, path: str) -> FileStamp | None:
        """The stamp of the file `path` as it was when its stored findings were made (None when
        none are stored)."""
        stored = self._evaluations.get(path)
        return next(iter(stored.values()))[0] if stored else None

    def store_risks(self, path: str, stamp: FileStamp | None, risks: list[RiskFinding]) -> None:
        if stamp is not None:
            self._risks[path] = (stamp, risks)

    def store_evaluation(
        self, path: str, profile_key: int, stamp: FileStamp | None, evaluation: Evaluation
    ) -> None:
        if stamp is not None:
            self._evaluations.setdefault(path, {})[profile_key] = (stamp, evaluation)

    def forget(self, paths: Iterable[str]) -> None:
        for p in paths:
            self._docs.pop(p, None)
            self._risks.pop(p, None)
            self._evaluations.pop(p, None)


# --- roots ---------------------------------------------------------------------------------------


def repository_root(start: str) -> str | None:
    """The nearest folder at or above `start` holding `.git` (None outside a repository)."""
    cur = os.path.abspath(start)
    while True:
        if os.path.exists(os.path.join(cur, ".git")):
            return cur
        parent = os.path.dirname(cur)
        if parent == cur:
            return None
        cur = parent


_TEMPLATE_FIELD = re.compile(r"\{env:([^}:]+)(?::([^}]*))?\}|\{(home|project)\}")


def root_condition(template: RootTemplate, env: Mapping[str, str]) -> str:
    """What must hold for the runtime to read this root, when it does not hold now ("" = it
    reads the root): a setting it needs turned on (`enabled_by`), environment variables it needs
    unset (`unless_env`, when one is set)."""
    conditions = [template.enabled_by] if template.enabled_by else []
    if any(env.get(name) for name in template.unless_env):
        names = " and ".join(f"${name}" for name in template.unless_env)
        conditions.append(f"{names} {'is' if len(template.unless_env) == 1 else 'are'} not set")
    return "; ".join(conditions)


def expand_template(template: str, project: str, home: str, env: Mapping[str, str]) -> str:
    """Expand `{env:VAR[:default]}`, `{home}`, `{project}` and a leading `~` in one pass: values
    are never scanned again, so a variable holding `{env:...}` cannot loop."""

    def field(m: re.Match[str]) -> str:
        if m.group(3):
            return home if m.group(3) == "home" else project
        return env.get(m.group(1)) or (m.group(2) or "")

    out = _TEMPLATE_FIELD.sub(field, template)
    if out == "~" or out.startswith("~/"):
        out = home + out[1:]
    return os.path.normpath(out)


def profile_roots(
    profile: Profile, project: str, home: str, env: Mapping[str, str]
) -> list[RootInfo]:
    """The profile's root folders for this project and home, in precedence order (rank 0 first)."""
    project = os.path.abspath(project)
    repo = repository_root(project)
    ancestors = [project]
    if repo:
        cur = project
        while cur != repo and os.path.dirname(cur) != cur:
            cur = os.path.dirname(cur)
            ancestors.append(cur)
    n = len(profile.roots)
    roots: list[RootInfo] = []
    seen: set[str] = set()
    for index, template in enumerate(profile.roots):
        base_rank = index if profile.tie_rule != "last-wins" else n - 1 - index
        dirs = ancestors if template.ancestors and "{project}" in template.path else [project]
        for distance, proj in enumerate(dirs):
            # Position in the runtime's load order of this walk; the tie rule decides who wins.
            loaded = distance if template.walk == "up" else len(dirs) - 1 - distance
            offset = len(dirs) - 1 - loaded if profile.tie_rule == "last-wins" else loaded
            pattern = expand_template(template.path, proj, home, env)
            paths = sorted(glob.glob(pattern)) if "*" in pattern else [pattern]
            for path in paths:
                if path in seen:
                    continue
                seen.add(path)
                roots.append(
                    RootInfo(
                        path=path,
                        scope=template.scope,
                        layout=template.layout,
                        rank=base_rank * 1000 + offset,
                        namespace=template.namespace,
                        exists=os.path.isdir(path),
                        template=index,
                        enabled_by=root_condition(template, env),
                    )
                )
    roots.sort(key=lambda r: r.rank)
    return roots


# --- layout --------------------------------------------------------------------------------------


def _suggested_root(roots: Sequence[RootInfo], project: str, home: str) -> str:
    """The root to suggest creating: the first in the project, else in the home folder."""
    for base in (os.path.abspath(project), home):
        for root in roots:
            if root.path.startswith(base.rstrip(os.sep) + os.sep):
                return root.path
    return roots[0].path


def layout_verdict(
    profile: Profile,
    layout: str,
    parts: Sequence[str],
    md_files: bool = False,
    skip_hidden: bool | None = None,
) -> str:
    """Why `profile` would not discover a skill file at `parts` below a root ('' = it would).
    `md_files`: the root also reads other `*.md` files directly in it (`[[roots]] md_files`);
    `skip_hidden`: the root's own setting (`[[roots]] skip_hidden`; None: the profile's)."""
    file_name = parts[-1]
    if md_files and len(parts) == 1 and file_name.endswith(".md"):
        return ""
    if file_name not in profile.file_names:
        return f"named '{file_name}': {profile.title} only reads {' or '.join(profile.file_names)}"
    levels = len(parts) - 1  # folders between the root and the file
    if profile.skip_hidden if skip_hidden is None else skip_hidden:
        hidden = next((p for p in parts[:-1] if p.startswith(".")), None)
        if hidden:
            return (
                f"inside hidden folder '{hidden}': {profile.title} skips entries starting with '.'"
            )
    ignored = next((p for p in parts[:-1] if p in profile.ignore_dirs), None)
    if ignored:
        return f"inside '{ignored}': {profile.title} does not search it"
    if layout == "one-level":
        if levels == 0:
            return (
                f"directly in a skills root: {profile.title} looks one level down "
                f"(<root>/<name>/{profile.file_names[0]})"
            )
        if levels > 1:
            return (
                f"{_count(levels)} levels below a skills root: {profile.title} looks one level deep "
                f"(<root>/<name>/{profile.file_names[0]})"
            )
    elif layout == "root-or-one-level":
        if levels > 1:
            return (
                f"{_count(levels)} levels below a skills root: {profile.title} reads only "
                f"<root>/{profile.file_names[0]} and <root>/<name>/{profile.file_names[0]}"
            )
    elif levels == 0 and not profile.root_file:
        return (
            f"directly in a skills root: {profile.title} looks for "
            f"{profile.file_names[0]} only in the folders below a root"
        )
    elif levels > profile.max_depth:
        return (
            f"{_count(levels)} levels below a skills root: {profile.title} searches "
            f"{profile.max_depth} levels deep"
        )
    return ""


def _count(n: int) -> str:
    words = {
        2: "two",
        3: "three",
        4: "four",
        5: "five",
        6: "six",
        7: "seven",
        8: "eight",
        9: "nine",
    }
    return words.get(n, str(n))


# --- building ------------------------------------------------------------------------------------


@dataclass(slots=True)
class Located:
    found: FoundFile
    root: RootInfo
    parts: tuple[str, ...]  # from the root to the file
    plugin: str = ""


def plugin_name(root_path: str, marker: str) -> str:
    parent = os.path.dirname(root_path)
    name = os.path.basename(parent)
    if marker:
        manifest = os.path.join(parent, marker)
        try:  # never blocks on a FIFO, never recurses past its bound (core/structured.py)
            data = read_structured(manifest, "json", cap=MANIFEST_MAX_BYTES)
            if isinstance(data, dict) and isinstance(data.get("name"), str) and data["name"]:
                name = data["name"]
        except StructuredError:
            pass
    return name


def _locate_explicit(
    profile: Profile, found: FoundFile, path_index: int, start_root: RootInfo
) -> Located:
    """Pick the root a runtime would see for a file found below a folder named on the command line:
    the nearest parent that looks like one of the profile's roots (e.g. `.claude/skills`), or any
    folder named like a root's last component (`skills`), else the folder given."""
    parts = found.parts
    if len(parts) <= 2:  # directly below the folder given: it is the root (the usual case)
        return Located(found, start_root, parts)
    last_names = {s[-1] for s in profile.root_suffixes}
    for k in range(len(parts) - 2, 0, -1):
        prefix = parts[:k]
        matches = [
            t_index
            for t_index, template in enumerate(profile.roots)
            if template.suffix and prefix[-len(template.suffix) :] == template.suffix
        ]
        if not matches and prefix[-1] not in last_names:
            continue
        root_path = os.path.join(found.start, *prefix)
        has_marker = bool(profile.plugin_marker) and os.path.exists(
            os.path.join(os.path.dirname(root_path), profile.plugin_marker)
        )
        # A plugin root is only a plugin root with its marker: its bare `skills` suffix would
        # otherwise make every folder named `skills` a plugin.
        matches = [i for i in matches if profile.roots[i].namespace != "plugin" or has_marker]
        template_rank = matches[0] if matches else None
        template = profile.roots[template_rank] if template_rank is not None else None
        namespace = "plugin" if has_marker else (template.namespace if template else "")
        # Several scopes end the same way (Claude Code's personal and project `.claude/skills`):
        # a folder given on the command line cannot say which it is, so it is just a path.
        scopes = {profile.roots[i].scope for i in matches}
        root = RootInfo(
            path=root_path,
            scope=template.scope if template and len(scopes) == 1 else "path",
            layout=template.layout if template else profile.layout,
            rank=path_index * 1000 + (template_rank or 0),
            explicit=True,
            namespace=namespace,
        )
        located = Located(found, root, parts[k:])
        if namespace == "plugin":
            located.plugin = plugin_name(root_path, profile.plugin_marker)
        return located
    return Located(found, start_root, parts)


def _has_skill_file(folder: str) -> bool:
    try:
        return any(
            n.lower() == SKILL_FILE_LOWER and not os.path.isdir(os.path.join(folder, n))
            for n in os.listdir(folder)
        )
    except OSError:
        return False


def build_catalog(
    profile: Profile,
    paths: Sequence[str] | None = None,
    *,
    project: str | None = None,
    home: str | None = None,
    env: Mapping[str, str] | None = None,
    max_depth: int = DEFAULT_MAX_DEPTH,
    cache: DocumentCache | None = None,
    policy: Policy | None = None,
    workers: int = 1,
    start_method: str = "fork",
    security: bool = False,
    install: Install | None = None,
) -> Catalog:
    """Resolve the skill set under `profile`: the folders/skills in `paths` (first ranks highest)
    or, without paths, the profile's own roots for `project` and `home`.

    `install` reviews a repository as installed (core/installed.py): its units are placed in the
    runtime's personal or project root and resolved with what the roots already hold; `paths`
    are then ignored. `security` adds the security pass's findings (what each skill could do to the user who
    installs it; category `security`). `policy` reports every finding (the profile's rules and the project's settings: its
    `ignore_codes` drop findings before states are decided, its `ignore_paths` also drop skill
    files before precedence, as if they were not there). `workers` > 1 reads
    and evaluates large sets in that many processes, this one included (headless use; the cache is
    then not filled)."""
    env = os.environ if env is None else env
    home = home or os.path.expanduser("~")
    cache = cache or DocumentCache()
    policy = policy or Policy(profile)
    evaluator = _Evaluator(profile, cache, workers, start_method, security)
    try:
        return _build(
            profile, paths, project, home, env, max_depth, cache, policy, evaluator, install
        )
    finally:
        evaluator.close()  # a build stopped early (cancelled, failed) leaves no worker behind


def _build(
    profile: Profile,
    paths: Sequence[str] | None,
    project: str | None,
    home: str,
    env: Mapping[str, str],
    max_depth: int,
    cache: DocumentCache,
    policy: Policy,
    evaluator: _Evaluator,
    install: Install | None,
) -> Catalog:
    root_diags: list[Diagnostic] = []
    located: list[Located] = []
    roots: list[RootInfo] = []

    held = Tally()  # what the settings hold back about no single skill

    # why a set can be empty, said already (reported or held back): a search a bound stopped, a
    # PATH that is not there or cannot be read, units the runtime cannot install
    explained: list[str] = []

    def note(path: str, finding: Finding, severity: Severity | None = None) -> None:
        if finding.rule in _EMPTY_EXPLAINED:
            explained.append(path)
        with policy.counting() as tally:
            d = policy.diagnostic(finding, path, severity=severity)
        if d is not None:
            root_diags.append(d)
        held.add_all(tally)

    if paths and install is None:
        for index, given in enumerate(paths):
            absolute = os.path.abspath(given)
            if not os.path.lexists(absolute):
                note(
                    absolute,
                    Finding(
                        "path-not-found", f"no such file or folder: {given}", hint="check the path"
                    ),
                )
                continue
            if not os.path.isdir(absolute):
                # A skill file named directly: its folder is the skill, the folder above it the root.
                skill_dir = os.path.dirname(absolute)
                root = RootInfo(
                    os.path.dirname(skill_dir), "path", profile.layout, index * 1000, True
                )
                roots.append(root)
                found = FoundFile(
                    absolute, root.path, (os.path.basename(skill_dir), os.path.basename(absolute))
                )
                located.append(Located(found, root, found.parts))
                continue
            if _has_skill_file(absolute):
                start = os.path.dirname(absolute)
                root = RootInfo(start, "path", profile.layout, index * 1000, True)
                result = search(
                    absolute,
                    max_depth=max_depth,
                    ignore_dirs=profile.ignore_dirs,
                    follow_symlinks=profile.follow_symlinks,
                    **evaluator.search_callbacks(),
                )
                prefix = (os.path.basename(absolute),)
                files = [
                    FoundFile(f.path, start, prefix + f.parts, f.real, f.regular)
                    for f in result.files
                ]
            else:
                root = RootInfo(absolute, "path", profile.layout, index * 1000, True)
                result = search(
                    absolute,
                    max_depth=max_depth,
                    ignore_dirs=profile.ignore_dirs,
                    follow_symlinks=profile.follow_symlinks,
                    **evaluator.search_callbacks(),
                )
                files = result.files
            roots.append(root)
            for where, finding in result.notes:
                note(where, finding, _note_severity(result, finding))
            if (
                not files
                and not result.stopped_empty  # its SP303 says more: the search was cut short
                and not any(f.rule == "folder-unreadable" for _w, f in result.notes)
            ):
                note(
                    absolute,
                    Finding(
                        "no-skill-file",
                        f"no skill file ({' or '.join(profile.file_names)}) below {given}",
                        hint="point at a folder that holds skill folders, or at a SKILL.md",
                    ),
                )
            for f in files:
                located.append(_locate_explicit(profile, f, index, root))
    else:
        roots = profile_roots(profile, project or os.getcwd(), home, env)
        if roots and not any(root.exists for root in roots) and install is None:
            shown = ", ".join(r.path for r in roots[:3]) + (
                f" and {len(roots) - 3} more" if len(roots) > 3 else ""
            )
            note(
                os.path.abspath(project or os.getcwd()),
                Finding(
                    "root-missing",
                    f"none of {profile.title}'s skill folders exists here: {shown}",
                    hint=f"create {_suggested_root(roots, project or os.getcwd(), home)} "
                    "and put a skill folder in it",
                ),
            )
        for root in roots:
            if not root.exists:
                continue
            depth = max(max_depth, profile.max_depth + 1)
            result = search(
                root.path,
                max_depth=depth,
                max_dirs=max(profile.max_dirs, 1),
                ignore_dirs=profile.ignore_dirs,
                follow_symlinks=profile.follow_symlinks,
                **evaluator.search_callbacks(),
            )
            for where, finding in result.notes:
                note(where, finding, _note_severity(result, finding))
            files = result.files
            if 0 <= root.template < len(profile.roots) and profile.roots[root.template].md_files:
                extra = root_md_files(root.path, profile.file_names)
                for f in extra:
                    evaluator.add(f)
                files = [*files, *extra]
            if root.enabled_by:
                note(
                    root.path,
                    Finding(
                        "root-off-by-default",
                        f"{profile.title} reads this root only when {root.enabled_by}",
                        hint=f"to use the skills here, make sure {root.enabled_by}",
                    ),
                )
            for f in files:
                loc = Located(f, root, f.parts)
                if root.namespace == "plugin":
                    loc.plugin = plugin_name(root.path, profile.plugin_marker)
                located.append(loc)
            if result.dirs_visited >= profile.max_dirs and profile.layout == "recursive":
                note(
                    root.path,
                    Finding(
                        "scan-truncated",
                        f"{profile.title} stops scanning a root after {profile.max_dirs:,} "
                        "folders (skills scan truncated)",
                    ),
                )
    if install is not None:
        _install(
            profile, install, roots, located, evaluator, note, project or os.getcwd(), home, env
        )
    found = len(located)
    if policy.ignore_paths:
        with policy.counting() as tally:
            located = [loc for loc in located if not policy.leaves_out(loc.found.path)]
        held.add_all(tally)
    if not located and not explained:
        # Nothing checked is not a pass: a CI gate on an empty or misread folder must fail.
        _nothing_checked(profile, paths if install is None else None, project, found, note)
    catalog = resolve_located(profile, roots, located, root_diags, evaluator, policy, home)
    if held.files or held.findings:
        catalog = replace(catalog, suppressed=Suppressed(held.take_all(), held.files))
    return catalog


def _note_severity(result: ScanResult, finding: Finding) -> Severity | None:
    """A search that a bound stopped before it found any skill file checked nothing: its
    truncation is an error, not the rule's default warning (unless the profile rates it)."""
    if result.stopped_empty and finding.rule == "scan-truncated":
        return Severity.ERROR
    return None


def _install(
    profile: Profile,
    install: Install,
    roots: list[RootInfo],
    located: list[Located],
    evaluator: _Evaluator,
    note: Callable[[str, Finding], None],
    project: str,
    home: str,
    env: Mapping[str, str],
) -> None:
    """Add a repository's units to the build as installed (core/installed.py)."""
    from skillprism.core.installed import install_plan

    plan, homeless = install_plan(profile, install, roots, os.path.abspath(project), home, env)
    for found, root, plugin in plan:
        evaluator.add(found)
        located.append(Located(found, root, found.parts, plugin))
    roots.sort(key=lambda r: r.rank)
    for unit in homeless:
        note(
            unit.path,
            Finding(
                "not-installable",
                f"{profile.title} has no {install.kind} skills folder: the {len(unit.skills)} "
                f"skill(s) of {unit.kind} '{unit.name}' would not be installed there",
                hint="review it as installed into the other scope, or under another runtime",
            ),
        )


def _load_order(loc: Located) -> tuple[int, list[str]]:
    return loc.root.rank, loc.found.path.split(os.sep)


class Evaluations(Protocol):
    """Evaluates skill files on demand: path -> (Evaluation, real path)."""

    def results(self, items: list[_Item]) -> dict[str, tuple[Evaluation, str]]: ...


def resolve_located(
    profile: Profile,
    roots: Sequence[RootInfo],
    located: list[Located],
    root_diags: Sequence[Diagnostic],
    evaluator: Evaluations,
    policy: Policy,
    home: str = "",
) -> Catalog:
    """The Catalog of `located` skill files: evaluate each (through `evaluator`), decide states,
    apply precedence. `build_catalog` calls it for a whole skill set; a live refresh calls it for
    the few skills a change touches and splices the result into the catalog it had. Each skill
    carries the count of its findings the project's settings held back."""
    with policy.counting() as held:
        return _resolve_located(profile, roots, located, root_diags, evaluator, policy, home, held)


def _resolve_located(
    profile: Profile,
    roots: Sequence[RootInfo],
    located: list[Located],
    root_diags: Sequence[Diagnostic],
    evaluator: Evaluations,
    policy: Policy,
    home: str,
    held: Tally,
) -> Catalog:
    # The load order: by rank, then by the path's folders. A total order, so that a name clash is
    # decided the same way whatever order the files arrived in (a fresh scan, or a live refresh
    # re-resolving a few of them).
    located.sort(key=_load_order)

    # One entry per path as found: the same file reached from two overlapping roots counts once.
    # A root that would discover the file beats one that would not (Codex skips `.system` below
    # `$CODEX_HOME/skills` but scans it as a root of its own).
    def verdict(loc: Located) -> str:
        return layout_verdict(
            profile,
            loc.root.layout,
            loc.parts,
            _md_files(profile, loc.root),
            _root_skip_hidden(profile, loc.root),
        )

    unique: dict[str, Located] = {}
    for loc in located:
        kept = unique.get(loc.found.path)
        if kept is None or (verdict(kept) and not verdict(loc)):
            unique[loc.found.path] = loc
    drafts: list[dict] = []
    # Sorted, so the folders below one skill folder are one run found by bisection (not O(n^2)).
    dir_of = {path: os.path.dirname(path) for path in unique}
    skill_dirs = sorted(
        {d for p, d in dir_of.items() if os.path.basename(p).lower() == SKILL_FILE_LOWER}
    )
    holders = (
        frozenset(d for p, d in dir_of.items() if os.path.basename(p) in profile.file_names)
        if profile.stop_at_skill
        else frozenset()
    )
    evaluations = evaluator.results(
        [(loc.found.path, loc.found.real, loc.found.regular) for loc in unique.values()]
    )
    # Roots whose rule settings differ from the profile's get a policy of their own (once).
    by_root: dict[int, Policy] = {}
    for loc in unique.values():
        path = loc.found.path
        skill_dir = dir_of[path]
        ev, real = evaluations[path]
        rp = by_root.get(loc.root.template)
        if rp is None:
            root_profile = profile.for_root(loc.root.template)
            rp = policy if root_profile is profile else policy.for_profile(root_profile)
            by_root[loc.root.template] = rp
        diags = (
            [d for d in (rp.diagnostic(f, path) for f in ev.findings) if d is not None]
            if ev.findings  # most skills have none: skip building the generators
            else []
        )
        if ev.risks:
            diags.extend(risk_diagnostics(policy, ev.risks, owner=path))
        below = skill_dir + os.sep
        nested = []
        i = bisect.bisect_left(skill_dirs, below)
        while i < len(skill_dirs) and skill_dirs[i].startswith(below):
            nested.append(skill_dirs[i])
            i += 1
        if nested and os.path.basename(path).lower() == SKILL_FILE_LOWER:
            d = rp.report(
                "nested-skill",
                f"this skill folder contains {len(nested)} other skill(s), "
                f"e.g. {os.path.relpath(nested[0], skill_dir)}",
                path,
            )
            if d:
                diags.append(d)
        reason = verdict(loc) or _discovery_reason(profile, loc, holders)
        status = ""
        if reason:
            status = "not-discovered"
            d = policy.report(
                "not-discovered",
                reason,
                path,
                effect=f"{profile.title} never loads this skill",
                hint=_layout_hint(profile, loc),
            )
            if d is not None:
                diags.insert(0, d)
        elif diags and any(
            d.severity is Severity.ERROR and rp.skips(CODES[d.code].rule) for d in diags
        ):  # (no security rule ever skips: the runtime loads a risky skill all the same)
            status = "skipped"
            reason = next(d.message for d in diags if rp.skips(CODES[d.code].rule))
        elif ev.name and not _passes_filters(profile, ev.name):
            status = "skipped"
            reason = f"left out by the profile's include/ignore filters ('{ev.name}')"
            d = policy.report(
                "filtered-out", reason, path, effect=f"{profile.title} does not load it"
            )
            if d is not None:
                diags.append(d)
        qualified = f"{loc.plugin}:{ev.name}" if loc.plugin and ev.name else ev.name
        drafts.append(
            dict(
                key=path,
                path=path,
                real_path=real,
                directory=skill_dir,
                root=loc.root,
                name=ev.name,
                qualified_name=qualified,
                description=ev.description,
                status=status,
                reason=reason,
                diagnostics=diags,
                frontmatter=ev.frontmatter,
                shadowed_by="",
            )
        )
    if profile.in_root_order == "name":
        # The runtime orders each root's skills by name (lower-cased, then as written, then the
        # whole path), which decides a clash inside one root.
        drafts.sort(key=lambda d: (d["root"].rank, d["name"].lower(), d["name"], d["path"]))
    elif profile.in_root_order == "path-string":
        drafts.sort(key=lambda d: (d["root"].rank, d["path"]))
    elif profile.in_root_order == "path-desc":
        # a SKILL.md in the root itself first, then the skill folders in descending byte order of
        # their path inside the root (glob 12 on node's sorted readdir: Gemini CLI)
        drafts.sort(key=lambda d: _in_root_parts(d), reverse=True)
        drafts.sort(key=lambda d: (d["root"].rank, bool(_in_root_parts(d))))
    elif profile.in_root_order == "path-locale":
        # by the skill folder's path inside the root, compared as JavaScript's localeCompare does
        drafts.sort(
            key=lambda d: (
                d["root"].rank,
                locale_key(os.path.relpath(os.path.dirname(d["path"]), d["root"].path)),
                d["path"],
            )
        )
    _apply_precedence(profile, drafts, policy)
    skills = []
    for d in drafts:
        if not d["status"]:
            # error outranks shadowed, which outranks warning (docs/architecture.md: the first that
            # applies). What the runtime does decides the state: security findings do not.
            worst = (
                max(
                    (x.severity.rank for x in d["diagnostics"] if x.code not in SECURITY_CODES),
                    default=0,
                )
                if d["diagnostics"]
                else 0
            )
            if worst == 3:
                d["status"] = "error"
            elif d["shadowed_by"]:
                d["status"] = "shadowed"
            else:
                d["status"] = "warning" if worst == 2 else "ok"
        d["diagnostics"] = tuple(d["diagnostics"])
        skills.append(SkillEntry(**d, suppressed=held.take(d["path"])))
    catalog = Catalog(
        profile=profile,
        roots=tuple(roots),
        skills=tuple(skills),
        diagnostics=tuple(root_diags),
        policy=policy,
        security=evaluator_scans(evaluator),
        home=home,
    )
    if not catalog.security:
        return catalog
    from skillprism.core.security import cache as security_cache

    security_cache.flush()  # what this process scanned is kept for the next check
    return with_cross_skill_risks(catalog)


SECURITY_CODES = frozenset(c for c, info in CODES.items() if info.category == "security")
# Findings about the set (names that imitate each other), not about one skill's files.
CROSS_SKILL_CODES = frozenset({RULES["confusable-name"].code, RULES["mixed-script-name"].code})


def evaluator_scans(evaluator: object) -> bool:
    return bool(getattr(evaluator, "security", False))


def risk_diagnostics(
    policy: Policy, risks: Sequence[RiskFinding], owner: str = ""
) -> list[Diagnostic]:
    """The security pass's findings as the policy reports them (each keeps its own severity
    unless the profile sets its rule); `owner`: the skill file they belong to."""
    out = []
    for r in risks:
        d = policy.diagnostic(
            Finding(r.rule, r.message, r.line, r.column, r.hint),
            r.path,
            effect=r.effect,
            severity=r.severity,
            evidence=r.evidence,
            owner=owner,
        )
        if d is not None:
            out.append(d)
    return out


def with_cross_skill_risks(catalog: Catalog) -> Catalog:
    """`catalog` with the findings about its names as a set (look-alikes of another skill's name,
    names that mix scripts) made afresh: a fresh build and a live refresh end the same."""
    from skillprism.core.security import cross_skill_findings

    triples = [
        (s.path, s.name, s.description or "")
        for s in catalog.skills
        if s.name and s.status not in ("not-discovered", "skipped")
    ]
    found: dict[str, list[Diagnostic]] = {}
    policy = catalog.reporting()
    with policy.counting() as held:
        for d in risk_diagnostics(policy, cross_skill_findings(triples)):
            found.setdefault(d.path, []).append(d)
    skills = []
    changed = False
    for s in catalog.skills:
        old = tuple(d for d in s.diagnostics if d.code in CROSS_SKILL_CODES)
        new = tuple(found.get(s.path, ()))
        old_held = tuple((c, n) for c, n in s.suppressed if c in CROSS_SKILL_CODES)
        new_held = held.take(s.path)
        if old == new and old_held == new_held:
            skills.append(s)
            continue
        changed = True
        kept = tuple(d for d in s.diagnostics if d.code not in CROSS_SKILL_CODES)
        kept_held = tuple((c, n) for c, n in s.suppressed if c not in CROSS_SKILL_CODES)
        skills.append(
            replace(s, diagnostics=kept + new, suppressed=merge_counts(kept_held, new_held))
        )
    return replace(catalog, skills=tuple(skills)) if changed else catalog


# A skill file to evaluate: its path, its real path if known ("" if not) and whether the scan saw
# a regular file (see FoundFile).
_Item = tuple[str, str, bool]

# Below this many skills a process pool costs more (fork, pickling) than it saves.
PARALLEL_MIN_SKILLS = 400
# With the security pass a skill costs many times more (every file of it is read and scanned):
# from this many on the workers scan, in jobs of SCAN_BATCH skills (small, so that the skills
# with many files spread over the workers).
PARALLEL_MIN_SKILLS_SECURITY = 10
SCAN_BATCH = 8
_pool_profile: Profile | None = None


def _real_path(path: str, known: str = "") -> str:
    if known:
        return known
    try:
        return os.path.realpath(path)
    except (OSError, ValueError):
        return path


def evaluate_file(
    path: str,
    profile: Profile,
    cache: DocumentCache | None = None,
    *,
    regular: bool = False,
    security: bool = False,
) -> tuple[Evaluation, FileStamp | None]:
    """Parse (through `cache`, if given) and evaluate one skill file, with the stamp of the file
    read; `security`: also scan the skill for risks (once per skill: the result does not depend on
    the profile, and the cache keeps it). An unexpected error in Skill Prism itself stays here: it
    becomes an `internal-error` finding on this one skill, and every other skill is checked as
    usual."""
    try:
        doc = cache.get(path) if cache is not None else parse_document(path, regular=regular)
        evaluation = evaluate(doc, profile, os.path.basename(os.path.dirname(path)))
    except Exception as err:  # one bad skill must never take the whole set down
        return _internal_error(path, err), None
    if security:
        # A scan that fails costs only the risks, as in a worker (`_pool_scan`): the evaluation
        # stands, with the failure reported once.
        try:
            evaluation.risks = skill_risks(path, doc, cache)
        except Exception as err:
            evaluation.findings.extend(_internal_error(path, err).findings)
            evaluation.risks = []
    return evaluation, doc.stamp


def _internal_error(path: str, err: BaseException) -> Evaluation:
    log.warning("evaluating %s failed", path, exc_info=True)
    detail = f"{type(err).__name__}: {err}" if str(err) else type(err).__name__
    return Evaluation(
        findings=[
            Finding(
                "internal-error",
                f"Skill Prism failed while checking this file ({detail[:200]})",
                hint="please report this file to Skill Prism; other skills are unaffected",
            )
        ]
    )


def skill_risks(
    path: str,
    doc: SkillDocument,
    cache: DocumentCache | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> list[RiskFinding]:
    """The security findings of the skill whose file is `path`: kept in `cache` while the skill
    file's stamp holds, and otherwise from the security pass, which keeps per-file results in
    the user's cache folder (core/security/cache.py), so only changed files are read again.
    `cancelled` is asked between files (core.security.engine.ScanCancelled when it says so)."""
    if cache is not None:
        known = cache.risks(path)
        if known is not None:
            return known
    from skillprism.core.security import scan_skill

    risks = scan_skill(os.path.dirname(path), path, cancelled=cancelled)
    if cache is not None:
        cache.store_risks(path, doc.stamp, risks)
    return risks


def _evaluate_one(
    item: _Item, profile: Profile, cache: DocumentCache | None, security: bool = False
) -> tuple[Evaluation, str, FileStamp | None]:
    path, known_real, regular = item[:3]
    # Worker processes parse directly: a cache that dies with the process would only add a stat.
    evaluation, stamp = evaluate_file(path, profile, cache, regular=regular, security=security)
    return evaluation, _real_path(path, known_real), stamp


def _pool_init(profile: Profile, security: bool, cache_on: bool | None = None) -> None:
    global _pool_profile
    _pool_profile = profile
    if security:
        # Loaded here, while the process that started this one walks the folders: that process
        # leaves every scan to its workers, so it never loads the security pass at all. The
        # rules load when a file the cache does not know first needs them: a repeated check
        # never does. A worker from a fork server learns the cache switch here.
        from skillprism.core.security import cache as security_cache

        security_cache.set_enabled(cache_on)
        import skillprism.core.security.engine  # noqa: F401


def _pool_evaluate(batch: list[_Item]) -> list[tuple[Evaluation, str, FileStamp | None]]:
    """Evaluate a batch in a worker (its security scans are jobs of their own)."""
    assert _pool_profile is not None
    return [_evaluate_one(item, _pool_profile, None) for item in batch]


def _pool_scan(
    scans: list[tuple[str, TreeListing | None, str]],
) -> list[list[RiskFinding] | None]:
    """The security scan of the skill of each (skill file, the listings the search made of its
    folders, its real path), in a worker: the cache is asked once for all of them (a skill it
    knows as it is now costs no read), the rest are scanned; None where the scan failed (the
    process that asked scans that skill again itself and reports the failure)."""
    from skillprism.core.security import cache as security_cache
    from skillprism.core.security import scan_skill
    from skillprism.core.security.engine import cached_findings_many

    try:
        known = cached_findings_many(
            [
                (os.path.dirname(path), path, tree, os.path.dirname(real) if real else "")
                for path, tree, real in scans
            ]
        )
    except Exception:  # scanned below, where a failure is reported
        known = [None] * len(scans)
    out: list[list[RiskFinding] | None] = []
    for (path, tree, real), found in zip(scans, known, strict=True):
        if found is not None:
            out.append(found)
            continue
        try:
            real_dir = os.path.dirname(real) if real else ""
            out.append(scan_skill(os.path.dirname(path), path, listing=tree, real_dir=real_dir))
        except Exception:  # one bad skill must never take the whole set down
            out.append(None)
    security_cache.flush()  # a worker may be stopped without running exit handlers
    return out


class _Evaluator:
    """Parses and evaluates skill files. Large sets (`workers` > 1) go to worker processes in
    batches *while the search is still running*, so reading, YAML and body checks overlap the
    folder walk; small sets evaluate in-process. Unchanged files reuse their stored evaluation
    either way. The CLI forks; the GUI, whose process has threads, asks for a fork server (forking
    a threaded process can deadlock the child).

    The workers are never handed more than a few batches ahead: once the search is done this
    process takes the batches still waiting and evaluates them itself, alongside the workers,
    instead of idling until they are through. So the pool has one process fewer than `workers`
    (and than there are cores): the walk, and then this process, keep the last one busy.

    With the security pass, each batch's scans are a job of their own, handed to the pool as soon
    as the batch is complete and ahead of any evaluation: a worker runs scans back to back, not
    interleaved with parsing (each runs faster with the other's data out of the processor's
    caches), and this process, which walks and evaluates, never loads the security pass. While
    scans are outstanding the pool is busy, so this process evaluates the waiting batches."""

    BATCH = 100
    AHEAD = 1  # batches handed to each worker process beyond the one it is on

    def __init__(
        self,
        profile: Profile,
        cache: DocumentCache,
        workers: int,
        start_method: str = "fork",
        security: bool = False,
    ) -> None:
        self.profile = profile
        self.security = security
        self.profile_key = hash(repr(profile))
        self.cache = cache
        self.start_method = start_method
        # Whether processes can be had is asked only when a pool is needed: importing
        # multiprocessing costs more than checking a small set takes.
        self.workers = max(workers, 1)
        self.processes = 0
        self.pending: list[_Item] = []
        self.scan_pending: list[tuple[str, TreeListing | None, str]] = []
        self.waiting: deque[list[_Item]] = deque()  # batches not yet handed to the pool
        self.seen = 0
        self.pool: WorkerPool | None = None
        self.jobs: list[tuple[list[_Item], Job]] = []
        self.scans: list[tuple[list[str], Job]] = []
        self.in_flight: list[Job] = []  # handed to the pool and not done yet

    def search_callbacks(self) -> dict[str, Callable[..., None]]:
        """What `search` should call with each skill file it finds: with the security pass, once
        it has listed the skill's folders, so the scan (in a worker) need not list them again."""
        if self.security and self.workers > 1:
            return {"on_tree": self.add}
        return {"on_file": self.add}

    def add(self, found: FoundFile, tree: TreeListing | None = None) -> None:
        checkpoint()
        if self.workers == 1 or self.cache.evaluation(found.path, self.profile_key) is not None:
            return
        want_risks = self.security and self.cache.risks(found.path) is None
        self.pending.append((found.path, found.real, found.regular, want_risks, tree))  # type: ignore[arg-type]
        if want_risks:
            self.scan_pending.append((found.path, tree, found.real))
        self.seen += 1
        if self.seen < (PARALLEL_MIN_SKILLS_SECURITY if self.security else PARALLEL_MIN_SKILLS):
            return
        if len(self.scan_pending) >= SCAN_BATCH:
            self._submit_scans()
        if len(self.pending) >= self.BATCH:
            self._submit()

    def _submit_scans(self) -> None:
        """Hand the scans found so far to the pool, ahead of any evaluation."""
        if self.pool is None and not self._start_pool():
            return
        scans, self.scan_pending = self.scan_pending, []
        for at in range(0, len(scans), SCAN_BATCH):
            chunk = scans[at : at + SCAN_BATCH]
            job = self._hand(_pool_scan, chunk)
            if job is None:
                return  # no worker left: scanned here (results)
            self.scans.append(([item[0] for item in chunk], job))
            self.in_flight.append(job)

    def _submit(self) -> None:
        if self.scan_pending:
            self._submit_scans()
        if self.pool is None and not self._start_pool():
            return
        batch, self.pending = self.pending, []
        self.waiting.append(batch)
        self._feed()

    def _start_pool(self) -> bool:
        import multiprocessing

        from skillprism.core.workers import WorkerPool

        if not _start_method_available(self.start_method):
            self.workers = 1  # evaluate here instead
            self.pending.clear()
            self.scan_pending.clear()
            return False
        # This process only hands out jobs and evaluates while it waits; with the security pass,
        # the scans (most of the work) keep every core busy.
        cores = min(self.workers, os.cpu_count() or 1)
        self.processes = max(1, cores if self.security else cores - 1)
        try:
            ctx = multiprocessing.get_context(self.start_method)
            if self.start_method == "forkserver":
                # The fork server loads these once for every worker it starts.
                preload = ["skillprism.core.resolve", "skillprism.core.workers"]
                if self.security:
                    preload.append("skillprism.core.security.preload")
                ctx.set_forkserver_preload(preload)
            cache_on = None
            if self.security:
                from skillprism.core.security import cache as security_cache

                cache_on = security_cache.enabled()
            self.pool = WorkerPool(
                ctx, self.processes, _pool_init, (self.profile, self.security, cache_on)
            )
        except (OSError, ValueError):
            self.workers = 1  # no processes to be had: evaluate here instead
            self.pending.clear()
            self.scan_pending.clear()
            return False
        return True

    def _feed(self) -> None:
        """Hand waiting batches to the pool while it has fewer than AHEAD + 1 jobs per process
        (scans included) not done yet."""
        assert self.pool is not None
        self.pool.collect()
        self.in_flight = [job for job in self.in_flight if not job.done]
        while self.waiting and len(self.in_flight) < self.processes * (self.AHEAD + 1):
            job = self._hand(_pool_evaluate, self.waiting[0])
            if job is None:
                return
            self.jobs.append((self.waiting.popleft(), job))
            self.in_flight.append(job)

    def _hand(self, func: Callable[[Any], Any], arg: Any) -> Job | None:
        """The job of `func(arg)` in the pool; None once no worker is left (what the pool does
        not get is evaluated here)."""
        from skillprism.core.workers import WorkerDied

        assert self.pool is not None
        try:
            return self.pool.submit(func, arg)
        except WorkerDied:
            return None

    def results(self, items: list[_Item]) -> dict[str, tuple[Evaluation, str]]:
        done: dict[str, tuple[Evaluation, str]] = {}
        if self.pool is not None:
            stamps: dict[str, FileStamp | None] = {}
            try:
                if self.pending:
                    self._submit()
                # Share the batches the pool has not been handed yet: take the last one here
                # while the workers work through theirs, until none is left.
                while self.waiting:
                    self._feed()
                    if self.waiting:
                        for item in self.waiting.pop():
                            ev, real, stamp = _evaluate_one(item, self.profile, None)
                            done[item[0]] = (ev, real)
                            stamps[item[0]] = stamp
                # A job whose worker died or that failed is evaluated (or scanned) here below;
                # every other job's results are kept.
                for batch, job in self.jobs:
                    try:
                        answers = self.pool.result(job)
                    except Exception:
                        log.warning("a worker's batch failed; evaluating it here", exc_info=True)
                        continue
                    for item, (ev, real, stamp) in zip(batch, answers, strict=True):
                        done[item[0]] = (ev, real)
                        stamps[item[0]] = stamp
                for paths, job in self.scans:
                    try:
                        found = self.pool.result(job)
                    except Exception:
                        log.warning("a worker's scans failed; scanning here", exc_info=True)
                        continue
                    for path, risks in zip(paths, found, strict=True):
                        if path in done:
                            done[path][0].risks = risks
            finally:
                # Every result is in (or a worker failed): stop the workers now rather than
                # waiting for them to wind down.
                self.pool.close()
                self.pool = None
            for path, stamp in stamps.items():
                self._store(path, stamp, done[path][0])
        for item in items:
            path = item[0]
            if path in done:
                continue
            checkpoint()
            stored = self.cache.evaluation(path, self.profile_key)
            if stored is not None:
                done[path] = (stored, _real_path(path, item[1]))
                continue
            ev, real, stamp = _evaluate_one(item, self.profile, self.cache, self.security)
            done[path] = (ev, real)
            self.cache.store_evaluation(path, self.profile_key, stamp, ev)
        if self.security:
            for path, (ev, _real) in done.items():
                if ev.risks is None:  # evaluated without: its scan is in the cache, or made now
                    known = self.cache.risks(path)
                    if known is not None:
                        ev.risks = known  # (without parsing the document here again)
                        continue
                    try:
                        ev.risks = skill_risks(path, self.cache.get(path), self.cache)
                    except Exception as err:  # never the whole set for one skill
                        ev.findings.extend(_internal_error(path, err).findings)
                        ev.risks = []
        return done

    def close(self) -> None:
        """Stop the workers, if any are still running."""
        if self.pool is not None:
            self.pool.close()
            self.pool = None

    def _store(self, path: str, stamp: FileStamp | None, ev: Evaluation) -> None:
        self.cache.store_evaluation(path, self.profile_key, stamp, ev)
        if ev.risks is not None:
            self.cache.store_risks(path, stamp, ev.risks)


_EMPTY_EXPLAINED = frozenset(
    {"scan-truncated", "path-not-found", "folder-unreadable", "not-installable"}
)


def _nothing_checked(
    profile: Profile,
    paths: Sequence[str] | None,
    project: str | None,
    found: int,
    note: Callable[[str, Finding], None],
) -> None:
    """The finding for a set in which no skill file is left to check, with what to try."""
    from skillprism.core.layout import nothing_found_hint

    folders = [os.path.abspath(p) for p in paths] if paths else [os.path.abspath(project or ".")]
    if found:
        message = (
            f"nothing was checked: the project's settings left out every skill file found ({found})"
        )
        hint = "check ignore_paths in the project's settings (--no-project-settings shows them)"
    else:
        message = "nothing was checked: no skill file was found"
        hint = nothing_found_hint(folders, profile.name) or (
            "point at a folder that holds skill folders, or at a SKILL.md"
        )
    note(folders[0], Finding("nothing-checked", message, hint=hint))


def _start_method_available(method: str) -> bool:
    import multiprocessing

    return method in multiprocessing.get_all_start_methods() and sys.platform.startswith("linux")


def _layout_hint(profile: Profile, loc: Located) -> str:
    if loc.parts[-1] not in profile.file_names:
        return f"rename the file to {profile.file_names[0]}"
    if len(loc.parts) > 2:
        if loc.root.explicit:  # a PATH given: most often a repository of skills to install
            return (
                f"move the skill folder directly into {loc.root.path}, or, for a repository of "
                "skills, review it as installed (--install-into project; the window: View → As "
                "Installed)"
            )
        return f"move the skill folder directly into {loc.root.path}"
    return f"move it into its own folder: {loc.root.path}/<name>/{profile.file_names[0]}"


def _passes_filters(profile: Profile, name: str) -> bool:
    if any(fnmatch.fnmatchcase(name, pat) for pat in profile.ignore):
        return False
    return not profile.include or any(fnmatch.fnmatchcase(name, pat) for pat in profile.include)


def _in_root_parts(draft: dict) -> tuple[str, ...]:
    rel = os.path.relpath(os.path.dirname(draft["path"]), draft["root"].path)
    return () if rel == "." else tuple(rel.split(os.sep))


def _apply_precedence(profile: Profile, drafts: list[dict], policy: Policy) -> None:
    loadable = [d for d in drafts if d["status"] not in ("not-discovered", "skipped") and d["name"]]
    if profile.dedup_real_path:
        first_by_real: dict[str, dict] = {}
        for d in loadable:
            first = first_by_real.setdefault(d["real_path"], d)
            if first is not d:
                d["shadowed_by"] = first["path"]
                d["reason"] = f"same file as {first['path']}; it loads once"
                if profile.in_root_order == "file-system" and d["root"].path == first["root"].path:
                    # two paths in one folder: the one the file system gives first is kept
                    d["reason"] += (
                        f"; which path is kept varies (see {RULES['clash-winner-varies'].code})"
                    )
                    _note_varying_winner(profile, policy, d["qualified_name"], first, [first, d])
                _add(
                    d,
                    policy.report(
                        "same-real-path",
                        d["reason"],
                        d["path"],
                        effect=f"{profile.title} loads the file once",
                        hint="no action needed",
                    ),
                )
        loadable = [d for d in loadable if not d["shadowed_by"]]
    groups: dict[str, list[dict]] = {}
    for d in loadable:
        groups.setdefault(clash_key(profile, d["qualified_name"]), []).append(d)
    for group in groups.values():
        if len(group) < 2:
            continue
        name = group[0]["qualified_name"]
        if profile.tie_rule == "keep-both":
            for d in group:
                others = ", ".join(o["path"] for o in group if o is not d)
                _add(
                    d,
                    policy.report(
                        "kept-both",
                        f"{profile.title} keeps every skill named '{name}'; also at {others}",
                        d["path"],
                        effect="the model sees several entries with the same name",
                        hint="give each skill a distinct name",
                    ),
                )
            continue
        winner = group[0]
        same_root = [d for d in group if d["root"].rank == winner["root"].rank]
        if profile.tie_rule == "last-wins":
            # Inside the winning root, too, the copy discovered last is the one kept.
            winner = same_root[-1]
        contenders = _varying_contenders(profile, group, same_root)
        if contenders:
            _note_varying_winner(profile, policy, name, winner, contenders)
        for d in group:
            if d is winner:
                continue
            # The runtime's own wording explains its scopes; for folders named on the command line
            # the order given decides, so say that instead.
            template = profile.shadow_warning
            if not template or winner["root"].explicit:
                template = "skill '{name}' at {loser} is shadowed by {winner}, which ranks higher"
            text = template.format(name=name, winner=winner["path"], loser=d["path"])
            d["shadowed_by"] = winner["path"]
            d["reason"] = f"shadowed by {winner['path']}"
            if any(c is d for c in contenders):
                d["reason"] = (
                    f"probably shadowed by {winner['path']}; which copy wins varies (see "
                    f"{RULES['clash-winner-varies'].code})"
                )
            _add(
                d,
                policy.report(
                    "shadowed",
                    text,
                    d["path"],
                    effect=f"{profile.title} uses the copy at {winner['path']}",
                    hint="rename one of the skills, or remove the copy you do not want",
                ),
            )


def _varying_contenders(profile: Profile, group: list[dict], same_root: list[dict]) -> list[dict]:
    """The copies among which the runtime's pick is not certain: every copy when its clash order
    varies from run to run (`[precedence] winner = "varies"`), the copies in the winning root
    when it lists a root in file-system order (`in_root_order = "file-system"`); [] otherwise."""
    if profile.winner == "varies":
        return group
    if profile.in_root_order == "file-system":
        # copies in the very folder of the winner: their order is the file system's
        winner_root = same_root[-1 if profile.tie_rule == "last-wins" else 0]["root"].path
        in_folder = [d for d in same_root if d["root"].path == winner_root]
        if len(in_folder) > 1:
            return in_folder
    return []


def _note_varying_winner(
    profile: Profile, policy: Policy, name: str, winner: dict, contenders: list[dict]
) -> None:
    why = (
        "in an order that varies from run to run"
        if profile.winner == "varies"
        else "in file-system order inside one root, which varies between file systems"
    )
    for d in contenders:
        others = ", ".join(o["path"] for o in contenders if o is not d)
        guess = "this copy" if d is winner else winner["path"]
        _add(
            d,
            policy.diagnostic(
                Finding(
                    "clash-winner-varies",
                    f"{len(contenders)} skills are named '{name}' and {profile.title} picks one "
                    f"{why}: Skill Prism shows {guess} as the winner, but any of them may load "
                    f"(also {others})",
                    hint="give each skill a distinct name",
                ),
                d["path"],
            ),
        )


def _root_skip_hidden(profile: Profile, root: RootInfo) -> bool | None:
    if 0 <= root.template < len(profile.roots):
        return profile.roots[root.template].skip_hidden
    return None


def _md_files(profile: Profile, root: RootInfo) -> bool:
    return 0 <= root.template < len(profile.roots) and profile.roots[root.template].md_files


def _discovery_reason(profile: Profile, loc: Located, holders: frozenset[str]) -> str:
    """Why the runtime's discovery never reaches a file its layout allows ('' = it does): a root
    read only when a setting is on, a linked skill file it does not read, a skill folder above
    it, an ignore file."""
    if loc.root.enabled_by:
        return f"in a root {profile.title} reads only when {loc.root.enabled_by}"
    if not profile.follow_file_symlinks and os.path.islink(loc.found.path):
        return f"the skill file is a symbolic link: {profile.title} does not read linked files"
    if loc.root.explicit:
        return ""
    return stop_reason(profile, loc.root.path, loc.parts, holders) or ignored_reason(
        profile, loc.root.path, loc.parts
    )


def _add(draft: dict, diagnostic: Diagnostic | None) -> None:
    if diagnostic is not None:
        draft["diagnostics"].append(diagnostic)
