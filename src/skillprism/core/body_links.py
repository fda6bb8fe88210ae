"""The files a skill body points at: Markdown links and reference definitions (with positions),
a quick pass that finds the same targets without positions, and whether each resolves inside
the skill folder; and the skill folders' files named in inline code."""

from __future__ import annotations

import functools
import os
import posixpath
import re
import stat
from urllib.parse import unquote

# Link text and target stop at the next '[' (possessively), so a line of 10^6 '[' is linear time.
_LINK = re.compile(
    r"!?\[(?:[^\[\]\\]|\\[^\[])*+\]\(\s*<?([^)\s>\[]++)>?(?:\s+[\"'][^\"']*[\"'])?\s*\)"
)
_REF_DEF = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)")
_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]+:")
_WINDOWS_ABS = re.compile(r"^(?:[a-zA-Z]:[\\/]|\\\\|//)")


_QUICK_LINK = re.compile(r"\]\(\s*<?([^)\s>\[]+)")
_QUICK_REF_DEF = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)", re.M)
_FENCE_LINE = re.compile(r"\n[^\S\n]*(?:```|~~~)")
_LINK_MARK = re.compile(r"\][(:]")


def body_references(body: str) -> list[tuple[str, int, int]]:
    """Relative file targets of Markdown links/images in `body`, outside code, with 0-based line and
    column within the body."""
    out: list[tuple[str, int, int]] = []
    if "](" not in body and "]:" not in body:
        return out
    # Visit only fence lines and lines holding '](' or ']:', found by two regex scans that start
    # at a literal (fast), instead of a Python loop over every line of every body.
    fences = {m.start() for m in _FENCE_LINE.finditer("\n" + body)}  # their offsets in body
    starts = set(fences)
    # The start of each mark's line, found moving forward: a search back from each mark to the
    # line start would be quadratic on one long line of links.
    line_start, next_nl = 0, body.find("\n")
    for m in _LINK_MARK.finditer(body):
        pos = m.start()
        if 0 <= next_nl < pos:
            line_start = body.rfind("\n", next_nl, pos) + 1
            next_nl = body.find("\n", pos)
        starts.add(line_start)
    in_fence = False
    i = last = 0
    for start in sorted(starts):
        i += body.count("\n", last, start)
        last = start
        if start in fences:  # the line's lstrip() starts with ``` or ~~~
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        end = body.find("\n", start)
        line = body[start:] if end < 0 else body[start:end]
        stripped = (
            re.sub(r"`[^`]*`", lambda m: " " * len(m.group(0)), line) if "`" in line else line
        )
        for m in _LINK.finditer(stripped):
            out.append((m.group(1), i, m.start(1)))
        m = _REF_DEF.match(stripped)
        if m:
            out.append((m.group(1), i, m.start(1)))
    return out


# A reference's form is judged from its text alone, and the same targets ("references/api.md")
# recur in skill after skill: judge each distinct text once per process (bounded).
_Problem = tuple[str, str, str]
_Form = tuple[_Problem | None, tuple[str, ...], str, _Problem | None]


@functools.lru_cache(maxsize=4096)
def _reference_form(target: str) -> _Form | None:
    """None when `target` is fine or not a file reference; else (problem, parts, shown, deep):
    a problem found from the text alone, or the path segments below the skill folder, the target
    as shown in messages and the verdict should the file exist (too deep, or None)."""
    if (
        not target
        or target.startswith("#")
        or (_SCHEME.match(target) and not _WINDOWS_ABS.match(target))
    ):
        return None
    target = target.split("#", 1)[0].split("?", 1)[0]
    if not target:
        return None
    # The same form checks `skillprism resource` applies ('..' segments, encoded escapes, drive
    # and UNC forms, look-alikes), so check and tier 3 never disagree about one link.
    from skillprism.core.tier3 import reference_form_problem  # imported on first use: startup

    problem = reference_form_problem(target)
    if problem is not None:
        return problem, (), target, None
    target = unquote(target)
    if target.startswith("/") or _WINDOWS_ABS.match(target) or target.startswith("\\"):
        return (
            (
                "reference-absolute",
                f"absolute reference '{target}'",
                "refer to files relative to the skill folder, e.g. references/guide.md",
            ),
            (),
            target,
            None,
        )
    norm = posixpath.normpath(target.replace("\\", "/"))
    if norm == ".." or norm.startswith("../"):
        return (
            (
                "reference-escapes",
                f"reference '{target}' leaves the skill folder",
                "copy the file into the skill folder and link it relatively",
            ),
            (),
            target,
            None,
        )
    deep = None
    if norm.count("/") > 1:
        deep = (
            "reference-deep",
            f"reference '{target}' is {norm.count('/')} folders deep",
            "keep references one level deep, e.g. references/file.md",
        )
    return None, tuple(norm.split("/")), target, deep


def check_reference(
    skill_dir: str, target: str, links: dict[str, bool] | None = None
) -> tuple[str, str, str] | None:
    """Classify one link target: None when fine or not a file reference, else (rule, message, hint).

    `links`, when given, remembers which folders below `skill_dir` are symlinks, for the other
    links of the same skill (its `references/` folder is on the way to most of them)."""
    form = _reference_form(target)
    if form is None:
        return None
    problem, parts, target, deep = form
    if problem is not None:
        return problem
    full = os.path.join(skill_dir, os.sep.join(parts))  # no part is absolute or empty
    try:
        last = os.lstat(full)
    except (OSError, ValueError):
        return (
            "reference-missing",
            f"referenced file '{target}' does not exist",
            "create the file or fix the link",
        )
    # Only a symlink below the skill folder can lead out of it: resolve real paths only then.
    # The file's own lstat is already in hand; the folders on the way cost one lstat each.
    linked = stat.S_ISLNK(last.st_mode)
    cur = skill_dir
    for part in parts[:-1]:
        if linked:
            break
        cur = os.path.join(cur, part)
        if links is None:
            linked = os.path.islink(cur)
        else:
            known = links.get(cur)
            if known is None:
                known = links[cur] = os.path.islink(cur)
            linked = known
    if linked:
        real_dir = os.path.realpath(skill_dir)
        real = os.path.realpath(full)
        if real != real_dir and not real.startswith(real_dir + os.sep):
            return (
                "reference-escapes",
                f"reference '{target}' resolves outside the skill folder (symlink)",
                "replace the symlink with the file itself",
            )
    return deep


# Beyond this many ']' in a body, _quick_targets lets the regexes scan it instead.
_QUICK_BRACKETS = 64


def quick_targets(body: str) -> set[str]:
    """`set(_QUICK_LINK.findall(body))`, plus `_QUICK_REF_DEF.findall(body)` when the body holds
    ']:'. A body has a few ']' at most, and str.find jumps to each (memchr) several times faster
    than the regex engine and `in` walk the whole text; so the link pattern is matched only where
    ']' is, skipping what the previous match consumed, exactly as findall would. A body full of
    ']' goes to the regexes."""
    quick: set[str] = set()
    has_ref_mark = False
    end = 0  # where findall would resume after the last match
    seen = 0
    find = body.find
    i = find("]")
    while i >= 0:
        seen += 1
        if seen > _QUICK_BRACKETS:
            quick = set(_QUICK_LINK.findall(body))
            has_ref_mark = "]:" in body
            break
        after = body[i + 1 : i + 2]
        if after == "(":
            if i >= end:
                m = _QUICK_LINK.match(body, i)
                if m is not None:
                    quick.add(m.group(1))
                    end = m.end()
        elif after == ":":
            has_ref_mark = True
        i = find("]", i + 1)
    if has_ref_mark:
        quick.update(_QUICK_REF_DEF.findall(body))
    return quick


# A file of the skill named in inline code or in allowed-tools: a relative path into one of the
# folders skills keep their files in, with an extension (`scripts/fill.py`, `python
# references/x.md`). Links are checked apart (body_references); this is for the files an agent is
# told to run or read without a link. `./scripts/x.sh` is a path in the project the agent works
# in (commands run there), not in the skill, and is left alone.
_SKILL_FOLDERS = ("scripts", "references", "assets", "templates", "examples", "resources")
_MENTION = re.compile(
    r"(?<![\w./~$-])((?:" + "|".join(_SKILL_FOLDERS) + r")/[\w./-]*?\.[A-Za-z0-9]{1,8})(?![\w/-])"
)
INLINE_CODE = re.compile(r"(?<!`)`([^`\n]{1,300})`(?!`)")


def mentioned_files(text: str) -> list[tuple[str, int]]:
    """Paths of skill files `text` names (see _MENTION), with their offset in it."""
    out = []
    for m in _MENTION.finditer(text):
        path = m.group(1)
        if "*" in path or path.endswith("/"):
            continue
        out.append((path, m.start(1)))
    return out
