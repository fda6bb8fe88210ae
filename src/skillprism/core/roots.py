"""Where a profile looks for skills: its root templates expanded for a project and a home (with
their conditions), the repository a folder is in, and the verdict on a file's place in a root's
layout."""

from __future__ import annotations

import functools
import glob
import logging
import os
import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from skillprism.core.catalog import RootInfo
from skillprism.core.plugin_registry import plugin_roots
from skillprism.core.profiles import Profile, RootTemplate

if TYPE_CHECKING:  # the security pass is imported when it first runs: `check` starts faster
    pass

log = logging.getLogger(__name__)


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
            registry: Mapping[str, str] = {}
            if template.registry is not None:  # a plugin cache: its records decide
                expand = functools.partial(expand_template, project=proj, home=home, env=env)
                registry, served = plugin_roots(template.registry, paths, expand)
                paths += served  # enabled plugins a directory marketplace serves itself
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
                        enabled_by=root_condition(template, env) or registry.get(path, ""),
                        link_scope=_link_scope(template.links_within, path, repo or project),
                    )
                )
    roots.sort(key=lambda r: r.rank)
    return roots


def _link_scope(within: str, root: str, project: str) -> str:
    """The real folder `[[roots]] links_within` names for this root: the project's repository
    (its folder outside one), the root itself, or "" for anywhere."""
    if within == "project":
        return os.path.realpath(project)
    if within == "root":
        return os.path.realpath(root)
    return ""


# --- layout --------------------------------------------------------------------------------------


def suggested_root(roots: Sequence[RootInfo], project: str, home: str) -> str:
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
    md_files: str = "",
    skip_hidden: bool | None = None,
) -> str:
    """Why `profile` would not discover a skill file at `parts` below a root ('' = it would).
    `md_files`: the root also reads other `*.md` files directly in it, or below it
    (`[[roots]] md_files`: "in-root", "below");
    `skip_hidden`: the root's own setting (`[[roots]] skip_hidden`; None: the profile's)."""
    file_name = parts[-1]
    if md_files == "in-root" and len(parts) == 1 and file_name.endswith(".md"):
        return ""
    if (
        md_files == "below"
        and file_name.endswith(".md")
        and file_name.lower() not in {f.lower() for f in profile.file_names}
    ):
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
