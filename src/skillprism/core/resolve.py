"""Resolve a skill set under one profile: roots -> found files -> parsed -> validated -> precedence
-> an immutable Catalog with every skill's state (docs/architecture.md)."""

from __future__ import annotations

import bisect
import fnmatch
import logging
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Protocol

from skillprism.core.catalog import Catalog, RootInfo, SkillEntry, Suppressed
from skillprism.core.codes import CODES
from skillprism.core.diagnostics import Diagnostic, Severity
from skillprism.core.discovery import (
    ignored_reason,
    is_md_skill,
    md_file_evaluation,
    root_md_files,
    stop_reason,
)
from skillprism.core.document import Finding
from skillprism.core.document_cache import DocumentCache
from skillprism.core.evaluator import EvalItem, Evaluator, evaluator_scans
from skillprism.core.ordering import locale_key
from skillprism.core.policy import Policy, Tally
from skillprism.core.precedence import apply_precedence, in_root_parts
from skillprism.core.profiles import Profile
from skillprism.core.risk_diagnostics import (
    SECURITY_CODES,
    risk_diagnostics,
    with_cross_skill_risks,
)
from skillprism.core.roots import layout_verdict, profile_roots, suggested_root
from skillprism.core.scan import (
    DEFAULT_MAX_DEPTH,
    SKILL_FILE_LOWER,
    FoundFile,
    ScanResult,
    search,
)
from skillprism.core.structured import MANIFEST_MAX_BYTES, StructuredError, read_structured
from skillprism.core.validate import Evaluation

if TYPE_CHECKING:  # the security pass is imported when it first runs: `check` starts faster
    from skillprism.core.installed import Install

log = logging.getLogger(__name__)


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
        # Every template's suffix ends with one of `last_names`: any other folder matches none
        # (and a deep path is not sliced at each level).
        if parts[k - 1] not in last_names:
            continue
        prefix = parts[:k]
        matches = [
            t_index
            for t_index, template in enumerate(profile.roots)
            if template.suffix and prefix[-len(template.suffix) :] == template.suffix
        ]
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
    evaluator = Evaluator(profile, cache, workers, start_method, security)
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
    evaluator: Evaluator,
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
                    follow_loops=profile.link_loops == "follow",
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
                    follow_loops=profile.link_loops == "follow",
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
                    hint=f"create {suggested_root(roots, project or os.getcwd(), home)} "
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
                follow_loops=profile.link_loops == "follow",
                **evaluator.search_callbacks(),
            )
            for where, finding in result.notes:
                note(where, finding, _note_severity(result, finding))
            files = result.files
            if 0 <= root.template < len(profile.roots) and profile.roots[root.template].md_files:
                extra = root_md_files(
                    root.path,
                    profile.file_names,
                    profile.roots[root.template].md_files,
                    depth,
                    max(profile.max_dirs, 1),
                )
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
    evaluator: Evaluator,
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


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def _load_order(loc: Located) -> tuple[int, list[str]]:
    return loc.root.rank, loc.found.path.split(os.sep)


class Evaluations(Protocol):
    """Evaluates skill files on demand: path -> (Evaluation, real path)."""

    def results(self, items: list[EvalItem]) -> dict[str, tuple[Evaluation, str]]: ...


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
        if (profile.md_name != "folder" or not profile.md_strict) and is_md_skill(
            profile, loc.root.template, path
        ):
            ev = md_file_evaluation(profile, ev, loc.parts)
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
        scope = loc.root.link_scope
        if scope and not _inside(real, scope):
            d = rp.report(
                "link-outside-scope",
                f"the skill file's real path {real} leaves {scope}, and {profile.title} refuses "
                "a skill file linked in from outside it",
                path,
                effect=f"{profile.title} does not load this skill",
                hint="copy the skill into the folder instead of linking it",
            )
            if d is not None:
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
                body_line=ev.body_line,
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
        drafts.sort(key=lambda d: in_root_parts(d), reverse=True)
        drafts.sort(key=lambda d: (d["root"].rank, bool(in_root_parts(d))))
    elif profile.in_root_order == "path-locale":
        # by the skill folder's path inside the root, compared as JavaScript's localeCompare does
        drafts.sort(
            key=lambda d: (
                d["root"].rank,
                locale_key(os.path.relpath(os.path.dirname(d["path"]), d["root"].path)),
                d["path"],
            )
        )
    if profile.max_loaded_per_root:
        _limit_per_root(profile, drafts, policy)
    apply_precedence(profile, drafts, policy)
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


def _limit_per_root(profile: Profile, drafts: list[dict], policy: Policy) -> None:
    """Skip every skill of a root after its first `max_loaded_per_root` loaded ones, in the
    drafts' (the root's own) order: the runtime stops reading the root there."""
    limit = profile.max_loaded_per_root
    loaded: dict[tuple[int, str], int] = {}
    for d in drafts:
        if d["status"] == "not-discovered":
            continue  # not a candidate of the runtime's
        root = (d["root"].rank, d["root"].path)
        seen = loaded.get(root, 0)
        if seen < limit:
            if not d["status"]:
                loaded[root] = seen + 1
            continue
        d["status"] = "skipped"
        d["reason"] = (
            f"{profile.title} loads at most {limit:,} skills from one root and stops reading "
            "this one before this skill"
        )
        diag = policy.report(
            "root-limit",
            d["reason"],
            d["path"],
            effect=f"{profile.title} does not load this skill",
            hint="move some skills to another skill folder it reads, or remove unused ones",
        )
        if diag is not None:
            d["diagnostics"].insert(0, diag)


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


def _root_skip_hidden(profile: Profile, root: RootInfo) -> bool | None:
    if 0 <= root.template < len(profile.roots):
        return profile.roots[root.template].skip_hidden
    return None


def _md_files(profile: Profile, root: RootInfo) -> str:
    """The root's `[[roots]] md_files` mode ("" = none)."""
    return profile.roots[root.template].md_files if 0 <= root.template < len(profile.roots) else ""


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
