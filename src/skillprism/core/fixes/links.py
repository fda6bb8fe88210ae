"""Link fix: a relative link to a file that is not there, pointed at the file it most likely
meant: the one file of the skill with the same name (then the same name in another case, the same
name without its extension, a close spelling), found only when it is the only best match. No fix
when two files match equally well."""

from __future__ import annotations

import difflib
import os
from collections.abc import Iterator

from skillprism.core.body_links import body_references
from skillprism.core.fixes import Candidate, FixContext
from skillprism.core.fixes.frontmatter_lines import line_starts
from skillprism.core.write_back import TextEdit

CODE = "SP501"
MAX_FILES = 2000  # a skill with more files than this gets no guesses
MAX_DEPTH = 4


def skill_files(skill_dir: str) -> list[str]:
    """The skill's files (relative, '/'-separated), hidden folders and files skipped; [] past
    MAX_FILES."""
    out: list[str] = []
    for root, dirs, files in os.walk(skill_dir):
        rel = os.path.relpath(root, skill_dir)
        depth = 0 if rel == "." else rel.count(os.sep) + 1
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and depth < MAX_DEPTH)
        for f in sorted(files):
            if f.startswith("."):
                continue
            out.append(f if rel == "." else f"{rel.replace(os.sep, '/')}/{f}")
            if len(out) > MAX_FILES:
                return []
    return out


def best_match(target: str, files: list[str]) -> str | None:
    """The one file `target` most likely meant, or None (no match, or a tie)."""
    base = target.rsplit("/", 1)[-1]
    names = {f: f.rsplit("/", 1)[-1] for f in files}
    stem = base.rsplit(".", 1)[0]
    tests = (
        lambda n: n == base,
        lambda n: n.lower() == base.lower(),
        lambda n: n.rsplit(".", 1)[0].lower() == stem.lower(),
    )
    for test in tests:
        hits = [f for f, n in names.items() if test(n)]
        if len(hits) == 1:
            return hits[0]
        if hits:
            return None
    scored = sorted(
        (
            (difflib.SequenceMatcher(None, base.lower(), n.lower()).ratio(), f)
            for f, n in names.items()
        ),
        reverse=True,
    )
    if scored and scored[0][0] >= 0.85 and (len(scored) == 1 or scored[1][0] < scored[0][0]):
        return scored[0][1]
    return None


def candidates(ctx: FixContext) -> Iterator[Candidate]:
    if CODE not in ctx.codes():
        return
    text = ctx.doc.text or ""
    lines = {d.line for _p, d in ctx.with_code(CODE)}
    skill_dir = os.path.dirname(ctx.path)
    starts = line_starts(text)
    files: list[str] | None = None
    done: set[int] = set()
    for target, i, col in body_references(ctx.doc.body):
        line = ctx.doc.body_first_line + i
        if line not in lines or "%" in target:
            continue
        path = target.split("#", 1)[0].split("?", 1)[0]
        suffix = target[len(path) :]
        if not path or os.path.lexists(os.path.join(skill_dir, *path.split("/"))):
            continue
        if files is None:
            files = skill_files(skill_dir)
        match = best_match(path.removeprefix("./"), files)
        if match is None:
            continue
        new = ("./" if path.startswith("./") else "") + match + suffix
        start = starts[line - 1] + col
        if text[start : start + len(target)] != target or start in done:
            continue
        done.add(start)
        yield Candidate(
            CODE,
            line,
            f"link '{match}' instead of the missing '{path}'",
            "review",
            (TextEdit(start, start + len(target), new),),
        )
