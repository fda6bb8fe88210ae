"""Where will this skill be found: for one skill folder, every folder each runtime would need it
in, and whether the runtime finds it where it is now.

For each profile and each of its `[[roots]]` (in the runtime's load order) a `Placement` gives the
concrete `SKILL.md` path for the given project and home, the same as a pattern
(`<project>/.claude/skills/<name>/SKILL.md`), the scope (project or personal) and whether the
skill already sits in that root. The folder name is the one the runtime needs: the frontmatter
`name` where the runtime refuses a folder that differs, the folder's own name otherwise.
`found_here` runs the profile on the project and home exactly as `skillprism check` does and says
what the runtime makes of the skill where it is now (ok, warning, error, skipped, shadowed, or not
discovered). Qt-free; `skillprism where` prints it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from skillprism.core.document_cache import DocumentCache
from skillprism.core.profiles import Profile
from skillprism.core.resolve import build_catalog
from skillprism.core.roots import expand_template, repository_root
from skillprism.core.vocabulary import LEVEL_ORDER

PROJECT, PERSONAL = "project", "personal"


@dataclass(frozen=True)
class Placement:
    """One folder a runtime reads skills from, and where this skill's file would have to be."""

    scope: str  # the root's own scope label ("project", "user", "global", ...)
    kind: str  # PROJECT (depends on the project folder) or PERSONAL (home, environment)
    template: str  # the root template as in the profile, e.g. "{project}/.claude/skills"
    root: str  # the root folder for this project and home ('*' kept for globbed roots)
    path: str  # where the skill file would have to be: <root>/<folder>/SKILL.md
    pattern: (
        str  # the same with <project>, ~ and <name>: "<project>/.claude/skills/<name>/SKILL.md"
    )
    layout: str  # the root's layout: one-level, root-or-one-level, recursive
    here: bool  # the skill sits in this root now (at a depth the layout reaches)
    notes: tuple[str, ...] = ()
    rank: int = 0  # 1 = the copy here wins a name clash over every other root's


@dataclass(frozen=True)
class ProfilePlacement:
    """One runtime's answer for the skill."""

    profile: str
    title: str
    provenance: str
    name: str  # the name this runtime gives the skill
    folder: str  # the folder name the skill needs for this runtime
    folder_rule: str  # why that folder name
    file_name: str  # the skill file's name this runtime reads
    found_here: str  # the runtime's verdict where the skill is now; "not-discovered" if unseen
    found_reason: str
    placements: tuple[Placement, ...]  # strongest first (the copy that wins a clash)
    tie_rule: str = "first-wins"
    notes: tuple[str, ...] = ()

    @property
    def found(self) -> bool:
        return self.found_here in ("ok", "warning", "error")


@dataclass(frozen=True)
class WhereReport:
    skill_dir: str
    skill_file: str
    project: str
    home: str
    profiles: tuple[ProfilePlacement, ...] = field(default_factory=tuple)

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        for p, d in zip(self.profiles, out["profiles"], strict=True):
            d["found"] = p.found
        return out


class PlacementError(ValueError):
    """The folder given is not a skill folder (no skill file in it)."""


def skill_file_in(skill_dir: str, names: Sequence[str] = ("SKILL.md", "skill.md")) -> str:
    """The skill file of `skill_dir` (a folder, or the skill file itself)."""
    path = os.path.abspath(skill_dir)
    if os.path.isfile(path):
        return path
    if not os.path.isdir(path):
        raise PlacementError(f"{skill_dir}: no such folder")
    for name in names:
        candidate = os.path.join(path, name)
        if os.path.isfile(candidate):
            return candidate
    raise PlacementError(f"{skill_dir}: not a skill folder (no SKILL.md in it)")


def _display(path: str, project: str, home: str) -> str:
    """`path` with the project folder written <project> and the home folder ~."""
    for base, label in ((project, "<project>"), (home, "~")):
        if base and (path == base or path.startswith(base.rstrip(os.sep) + os.sep)):
            return label + path[len(base.rstrip(os.sep)) :]
    return path


def within_root(path: str, root: str, layout: str, max_depth: int) -> bool:
    """The skill folder `path` is in `root` at a depth the layout reaches."""
    root = os.path.realpath(root) if "*" not in root else root
    rel = os.path.relpath(path, root) if "*" not in root else ""
    if "*" in root:
        import fnmatch

        parent = os.path.dirname(path)
        return fnmatch.fnmatch(parent, root) or (
            layout == "root-or-one-level" and fnmatch.fnmatch(path, root)
        )
    if rel.startswith(os.pardir) or os.path.isabs(rel):
        return False
    depth = 0 if rel == os.curdir else len(rel.split(os.sep))
    if layout == "one-level":
        return depth == 1
    if layout == "root-or-one-level":
        return depth in (0, 1)
    return 0 <= depth <= max_depth


def _folder_rule(profile: Profile, fm_name: str, folder: str) -> tuple[str, str]:
    """The folder name this runtime needs, and why."""
    mismatch = profile.action("name-directory-mismatch").action
    if profile.name_source == "directory":
        return folder, f"{profile.title} names the skill after its folder"
    if fm_name and mismatch in ("skip", "error"):
        verb = "does not load" if mismatch == "skip" else "reports an error for"
        return fm_name, f"{profile.title} {verb} a skill whose folder differs from its name"
    if fm_name:
        return folder, f"{profile.title} takes the name from the frontmatter; any folder name works"
    if profile.name_default == "directory":
        return folder, f"without a frontmatter name {profile.title} uses the folder name"
    return folder, "the folder name is not checked"


def _placements(
    profile: Profile,
    folder: str,
    skill_dir: str,
    project: str,
    home: str,
    env: Mapping[str, str],
) -> list[Placement]:
    repo = repository_root(project)
    file_name = profile.file_names[0]
    out: list[Placement] = []
    for template in profile.roots:
        kind = PROJECT if "{project}" in template.path else PERSONAL
        root = expand_template(template.path, project, home, env)
        notes: list[str] = []
        ancestors = [project]
        if template.ancestors and kind == PROJECT:
            cur = project
            while repo and cur != repo and os.path.dirname(cur) != cur:
                cur = os.path.dirname(cur)
                ancestors.append(cur)
            notes.append(
                "also read in every parent folder up to the repository root"
                + (" (the project folder's copy wins)" if template.walk == "up" else "")
                if profile.tie_rule != "last-wins"
                else "also read in every parent folder up to the repository root"
            )
        if template.layout == "root-or-one-level":
            notes.append(f"a {file_name} directly in the root also counts")
        if template.layout == "recursive":
            notes.append(f"or deeper, up to {profile.max_depth} folder levels below the root")
        if "*" in template.path:
            notes.append("'*' is any one folder name (for example an extension or plugin)")
        if template.namespace == "plugin":
            notes.append("skills here are named plugin:name")
        if template.note:
            notes.append(template.note)
        here = any(
            within_root(
                skill_dir,
                expand_template(template.path, p, home, env),
                template.layout,
                profile.max_depth,
            )
            for p in ancestors
        )
        path = os.path.join(root, folder, file_name)
        pattern = os.path.join(_display(root, project, home), "<name>", file_name)
        out.append(
            Placement(
                scope=template.scope,
                kind=kind,
                template=template.path,
                root=root,
                path=path,
                pattern=pattern,
                layout=template.layout,
                here=here,
                notes=tuple(notes),
            )
        )
    return out


def _strongest_first(profile: Profile, placed: list[Placement]) -> list[Placement]:
    """Roots in the order their copies win a name clash (a last-wins runtime loads the weakest
    first)."""
    from dataclasses import replace

    ordered = list(reversed(placed)) if profile.tie_rule == "last-wins" else placed
    return [replace(p, rank=i + 1) for i, p in enumerate(ordered)]


class _SharedDocuments(DocumentCache):
    """The file read, and its YAML read per typing, once for every profile (a frontmatter of
    10,000 keys is not read again for each of 30 runtimes); each profile's evaluation is its own
    and is not kept (40,000 findings under 30 profiles would be)."""

    def store_evaluation(self, *args: object, **kwargs: object) -> None:
        return None


def where(
    skill_dir: str,
    profiles: Sequence[Profile],
    *,
    project: str,
    home: str | None = None,
    env: Mapping[str, str] | None = None,
) -> WhereReport:
    """Where each runtime in `profiles` would find the skill in `skill_dir` (a folder holding
    SKILL.md, or the file), for `project` and `home`, and what it makes of it where it is now."""
    cache = _SharedDocuments()
    env = os.environ if env is None else env
    home = os.path.abspath(home or os.path.expanduser("~"))
    project = os.path.abspath(project)
    skill_file = skill_file_in(skill_dir)
    folder_path = os.path.dirname(skill_file)
    folder = os.path.basename(folder_path)
    real_file = os.path.realpath(skill_file)
    results: list[ProfilePlacement] = []
    for profile in profiles:
        # What the runtime makes of the file itself (the skill alone, as a PATH).
        alone = build_catalog(
            profile, [folder_path], project=project, home=home, env=env, cache=cache
        )
        entry = next((s for s in alone.skills if os.path.realpath(s.path) == real_file), None)
        fm_name = ""
        if entry is not None and isinstance(entry.frontmatter.get("name"), str):
            fm_name = entry.frontmatter["name"].strip()
        name = (entry.qualified_name or entry.name) if entry is not None else ""
        need, rule = _folder_rule(profile, fm_name, folder)
        notes: list[str] = []
        base = os.path.basename(skill_file)
        file_name = profile.file_names[0]
        if base not in profile.file_names:
            notes.append(f"{profile.title} reads {', '.join(profile.file_names)}, not {base}")
        if entry is not None and entry.status == "skipped":
            notes.append(f"wherever it is, {profile.title} does not load it: {entry.reason}")
        # What the runtime does with it where it is now (its own roots, this project and home).
        catalog = build_catalog(profile, None, project=project, home=home, env=env, cache=cache)
        now = next(
            (s for s in catalog.skills if os.path.realpath(s.path) == real_file),
            None,
        )
        if now is None:
            found, reason = "not-discovered", "not in any folder this runtime reads"
        else:
            found = now.status
            reason = now.reason or f"found in {now.root.path} ({now.root.scope})"
            if now.shadowed_by:
                reason = f"{reason}; {now.shadowed_by} wins" if now.reason else reason
        placed = _placements(profile, need, folder_path, project, home, env)
        results.append(
            ProfilePlacement(
                profile=profile.name,
                title=profile.title,
                provenance=profile.provenance,
                name=name or fm_name or folder,
                folder=need,
                folder_rule=rule,
                file_name=file_name,
                found_here=found,
                found_reason=reason,
                tie_rule=profile.tie_rule,
                placements=tuple(_strongest_first(profile, placed)),
                notes=tuple(notes),
            )
        )
    return WhereReport(
        skill_dir=folder_path,
        skill_file=skill_file,
        project=project,
        home=home,
        profiles=tuple(results),
    )


def ordered(report: WhereReport, levels: Mapping[str, str]) -> WhereReport:
    """The report with real runtimes first, best known first (`levels`: profile -> level, in
    core/vocabulary.py LEVEL_ORDER), the systems modelled from a specification last."""
    rank = {level: i for i, level in enumerate(LEVEL_ORDER)}
    profiles = sorted(
        report.profiles,
        key=lambda p: (rank.get(levels.get(p.profile, ""), len(rank)), p.title.lower()),
    )
    return replace(report, profiles=tuple(profiles))


def render_summary(report: WhereReport) -> str:
    """One line per runtime: whether it finds the skill here, else the folder of the project
    it would need it in (or of the home, for a runtime without project folders; `where
    --details` lists every folder)."""
    lines = [f"skill:   {report.skill_file}"]
    found = [p for p in report.profiles if p.found]
    lines.append(
        f"{len(found)} of {len(report.profiles)} runtimes find it where it is now "
        "(--details lists every folder each one reads)"
    )
    lines.append("")
    width = max((len(p.title) for p in report.profiles), default=0)
    for p in report.profiles:
        if p.found:
            where = f"finds it here ({p.found_here})"
        elif p.placements:
            first = next((pl for pl in p.placements if pl.kind == PROJECT), p.placements[0])
            where = f"not here; put it in {os.path.dirname(first.path)}"
        else:
            where = f"not here ({p.found_reason})"
        lines.append(f"  {'ok ' if p.found else '-- '}{p.title:<{width}}  {where}")
    return "\n".join(lines) + "\n"


def render_text(report: WhereReport) -> str:
    """The report as text: per runtime, its verdict here and every folder it reads."""
    lines = [
        f"skill:   {report.skill_file}",
        f"project: {report.project}",
        f"home:    {report.home}",
    ]
    for p in report.profiles:
        lines.append("")
        verdict = "found here" if p.found else "NOT found here"
        lines.append(f"{p.title} [{p.profile}]: {verdict} ({p.found_here}: {p.found_reason})")
        lines.append(f"  {p.provenance}")
        lines.append(f"  folder name: {p.folder} ({p.folder_rule}); file: {p.file_name}")
        for kind, label in ((PROJECT, "project scope"), (PERSONAL, "personal scope")):
            group = [pl for pl in p.placements if pl.kind == kind]
            if not group:
                lines.append(f"  {label}: none (this runtime reads no {kind} folder)")
                continue
            order = "every copy is kept" if p.tie_rule == "keep-both" else "#1 wins a name clash"
            lines.append(f"  {label} ({order}):")
            for pl in group:
                mark = "  <- here" if pl.here else ""
                lines.append(f"    #{pl.rank} {pl.path}{mark}")
                lines.append(f"      {pl.pattern}  [{pl.scope}, {pl.layout}]")
                for note in pl.notes:
                    lines.append(f"      - {note}")
        for note in p.notes:
            lines.append(f"  note: {note}")
    return "\n".join(lines) + "\n"
