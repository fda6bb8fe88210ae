"""Discovery rules that go beyond the generic search (`scan.search`), each a profile key
(docs/profiles.md): other `*.md` files directly in a root, or anywhere below it outside skill
folders, are skills (`[[roots]] md_files`),
the search stops below a folder holding a skill file (`[discovery] stop_at_skill`), ignore files
inside a root hide what they match (`[discovery] ignore_files`), and roots the runtime reads only
when a setting enables them (`[[roots]] enabled_by`).

Each check answers with a reason ("" = the runtime discovers the file), which `resolve` turns
into the `not-discovered` state like a layout mismatch.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import replace
from functools import lru_cache
from typing import TYPE_CHECKING

from skillprism.core.containment import link_refusal
from skillprism.core.document import Finding
from skillprism.core.profiles import Profile
from skillprism.core.scan import FoundFile

if TYPE_CHECKING:
    from skillprism.core.validate import Evaluation

# The checks of a name that `[discovery] md_strict = false` leaves out for `*.md` skills.
NAME_CHECKS = frozenset(
    {
        "name-directory-mismatch",
        "name-characters",
        "name-length",
        "name-lowercase",
        "name-hyphen-edge",
        "name-double-hyphen",
    }
)


def root_md_files(
    root: str,
    file_names: Sequence[str],
    mode: str = "in-root",
    max_depth: int = 64,
    max_dirs: int = 2000,
) -> list[FoundFile]:
    """The `*.md` files directly in `root` other than its skill files (sorted); never a link
    the search would not follow (core/containment.py, `link_refusal`). `mode = "below"`: those
    anywhere below it (`md_below`)."""
    if mode == "below":
        return md_below(root, max_depth, max_dirs)
    try:
        with os.scandir(root) as it:
            names = sorted(
                e.name
                for e in it
                if e.name.endswith(".md")
                and e.name not in file_names
                and not e.name.startswith(".")
                and e.is_file()
                and not (e.is_symlink() and link_refusal(os.path.realpath(e.path)))
            )
    except OSError:
        return []
    return [
        FoundFile(os.path.join(root, n), root, (n,), os.path.join(os.path.realpath(root), n))
        for n in names
    ]


def md_below(root: str, max_depth: int = 64, max_dirs: int = 2000) -> list[FoundFile]:
    """Every `*.md` file below `root` that is not a README.md or a skill file (any case) and is
    not inside a skill folder (a folder of the root holding one), in path order: OpenHands'
    find_regular_md_files (Path.rglob, which does not enter linked folders and sees hidden ones).
    Like the search, it stops `max_depth` folders down and after `max_dirs` folders."""
    out: list[tuple[str, ...]] = []
    stack: list[tuple[str, tuple[str, ...]]] = [(root, ())]
    visited = 0
    while stack and visited < max_dirs:
        folder, parts = stack.pop()
        visited += 1
        try:
            with os.scandir(folder) as it:
                entries = list(it)
        except OSError:
            continue
        for e in entries:
            try:
                is_dir = e.is_dir(follow_symlinks=False)
            except OSError:
                continue
            if is_dir:
                if len(parts) < max_depth and not (not parts and _holds_skill_md(e.path)):
                    stack.append((e.path, (*parts, e.name)))
                continue
            name = e.name
            if not name.endswith(".md") or name == "README.md" or name.lower() == "skill.md":
                continue
            if e.is_symlink() and link_refusal(os.path.realpath(e.path)):
                continue  # never a link the search would not follow
            out.append((*parts, name))
    # The real path is left to os.path.realpath (""): a file may be a link.
    return [
        FoundFile(os.path.join(root, *p), root, p, "")
        for p in sorted(out, key=lambda p: "/".join(p))
    ]


def md_file_evaluation(profile: Profile, ev: Evaluation, parts: Sequence[str]) -> Evaluation:
    """`ev` of an `*.md` skill (`[[roots]] md_files`) as the runtime names and checks it: with
    `md_name = "path"` a skill without a frontmatter name is named by its path inside the root
    without '.md'; with `md_strict = false` the name checks are left out."""
    findings = ev.findings
    name = ev.name
    if not profile.md_strict:
        findings = [f for f in findings if f.rule not in NAME_CHECKS]
    if profile.md_name == "path" and "name" not in ev.frontmatter:
        name = "/".join(parts)[: -len(".md")]
        findings = [
            f
            if f.rule != "name-defaulted"
            else Finding(
                f.rule, f"no name: the runtime names it by its path, '{name}'", f.line, f.column
            )
            for f in findings
        ]
    if name == ev.name and findings is ev.findings:
        return ev
    return replace(ev, name=name, findings=list(findings))


def is_md_skill(profile: Profile, root_template: int, path: str) -> bool:
    """Whether `path` was found as an `*.md` skill of its root (`[[roots]] md_files`), not as a
    skill file."""
    if not 0 <= root_template < len(profile.roots) or not profile.roots[root_template].md_files:
        return False
    return os.path.basename(path).lower() not in {f.lower() for f in profile.file_names}


def _holds_skill_md(folder: str) -> bool:
    try:
        with os.scandir(folder) as it:
            return any(e.name.lower() == "skill.md" and e.is_file() for e in it)
    except OSError:
        return False


def stop_reason(
    profile: Profile, root: str, parts: Sequence[str], skill_dirs: frozenset[str]
) -> str:
    """Why the runtime never reaches this file when it stops below a folder holding a skill file
    (`skill_dirs`: every folder, as found, that holds one of the profile's skill files)."""
    if not profile.stop_at_skill:
        return ""
    folder = root
    for part in parts[:-1]:
        if folder in skill_dirs:
            return (
                f"below {folder}, which holds {profile.file_names[0]}: {profile.title} does not "
                "search below a skill folder"
            )
        folder = os.path.join(folder, part)
    if len(parts) == 1 and parts[0] not in profile.file_names and root in skill_dirs:
        return f"{root} holds {profile.file_names[0]} itself: {profile.title} reads only that file there"
    return ""


# --- ignore files ---------------------------------------------------------------------------


def _pattern_regex(pattern: str) -> re.Pattern[str]:
    """One gitignore pattern (without '!' and the trailing '/') as a regex over a '/'-joined path
    relative to the ignore file's folder."""
    anchored = pattern.startswith("/") or "/" in pattern.rstrip("/")
    pattern = pattern.lstrip("/")
    out = []
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c == "*":
            if pattern.startswith("**", i):
                i += 2
                if pattern.startswith("/", i):
                    out.append("(?:.*/)?")
                    i += 1
                else:
                    out.append(".*")
                continue
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "\\" and i + 1 < len(pattern):
            i += 1
            out.append(re.escape(pattern[i]))
        else:
            out.append(re.escape(c))
        i += 1
    body = "".join(out)
    return re.compile(("" if anchored else "(?:.*/)?") + body + "(?:/.*)?")


@lru_cache(maxsize=256)
def _rules(path: str, mtime_ns: int) -> tuple[tuple[re.Pattern[str], bool, bool], ...]:
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            lines = fh.read(1 << 20).splitlines()
    except OSError:
        return ()
    rules = []
    for raw in lines:
        line = raw.rstrip()
        if not line or line.startswith("#"):
            continue
        negate = line.startswith("!")
        if negate or line.startswith("\\!") or line.startswith("\\#"):
            line = line[1:]
        dir_only = line.endswith("/")
        line = line.rstrip("/")
        if line:
            rules.append((_pattern_regex(line), negate, dir_only))
    return tuple(rules)


def _file_rules(folder: str, names: Sequence[str]) -> list[tuple[re.Pattern[str], bool, bool]]:
    out: list[tuple[re.Pattern[str], bool, bool]] = []
    for name in names:
        path = os.path.join(folder, name)
        try:
            st = os.stat(path)
        except OSError:
            continue
        out.extend(_rules(path, st.st_mtime_ns))
    return out


def ignored_reason(profile: Profile, root: str, parts: Sequence[str]) -> str:
    """Why an ignore file inside the root hides this file ('' when none does). Rules of a folder's
    ignore files apply below it; the last matching rule wins; an ignored folder hides all below."""
    names = profile.ignore_files
    if not names:
        return ""
    scoped: list[tuple[str, list[tuple[re.Pattern[str], bool, bool]]]] = []
    folder = root
    for depth, part in enumerate(parts):
        rules = _file_rules(folder, names)
        if rules:
            scoped.append(("/".join(parts[:depth]), rules))
        is_dir = depth < len(parts) - 1
        rel_all = "/".join(parts[: depth + 1])
        verdict = False
        for base, rules in scoped:
            rel = rel_all[len(base) + 1 :] if base else rel_all
            for regex, negate, dir_only in rules:
                if dir_only and not is_dir:
                    continue
                if regex.fullmatch(rel):
                    verdict = not negate
        if verdict:
            kind = "folder" if is_dir else "file"
            return (
                f"the {kind} '{rel_all}' is listed in an ignore file ({', '.join(names)}) inside "
                f"the root: {profile.title} skips it"
            )
        folder = os.path.join(folder, part)
    return ""
