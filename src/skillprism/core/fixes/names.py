"""Name fixes: set `name` to the folder's name (when the folder's name is a valid one), or write
the name in the specification's form (lowercase, hyphens, no leading, trailing or doubled
hyphens, within the length limit). A new name changes how the skill is listed: review."""

from __future__ import annotations

import os
import unicodedata
from collections.abc import Iterator

from skillprism.core.fixes import Candidate, FixContext
from skillprism.core.fixes.frontmatter_lines import KeyBlock
from skillprism.core.validate import _suggest as spec_form
from skillprism.core.write_back import TextEdit

MISMATCH = "SP208"
FORM_CODES = ("SP203", "SP204", "SP205", "SP206", "SP207")
NAME_MAX = 64  # the specification's limit, when no profile reporting the finding sets one


def _valid(name: str, limit: int) -> bool:
    return spec_form(name) == name and len(name) <= limit


def _cut(name: str, limit: int) -> str:
    if len(name) <= limit:
        return name
    cut = name[:limit]
    if name[limit] != "-" and "-" in cut:
        cut = cut[: cut.rindex("-")]
    return cut.strip("-")


def _set(block: KeyBlock, new: str) -> TextEdit:
    return TextEdit(block.value_start, block.value_end, new)


def candidates(ctx: FixContext) -> Iterator[Candidate]:
    fm = ctx.frontmatter
    block = fm.get("name") if fm is not None else None
    if block is None or block.more:
        return
    text = ctx.doc.text or ""
    codes = ctx.codes()
    limits = [
        p.profile.name_max
        for code in (MISMATCH, *FORM_CODES)
        for p, _d in ctx.with_code(code)
        if p.profile is not None and p.profile.name_max
    ]
    limit = min(limits, default=NAME_MAX)
    folder = unicodedata.normalize("NFKC", ctx.dir_name)
    if MISMATCH in codes and _valid(folder, limit):
        yield Candidate(
            MISMATCH,
            block.line,
            f"set name to the folder's name '{folder}'",
            "review",
            (_set(block, folder),),
        )
    raw = block.value(text).strip("\"'")
    name = unicodedata.normalize("NFKC", raw)
    parent = os.path.dirname(os.path.dirname(ctx.path))
    free = not os.path.lexists(os.path.join(parent, name))
    if MISMATCH in codes and not _valid(folder, limit) and _valid(name, limit) and free:
        yield Candidate(
            MISMATCH,
            block.line,
            f"rename the folder to '{name}'",
            "review",
            (),
            rename_to=name,
        )
    form = _cut(spec_form(name), limit)
    if not form or form == raw:
        return
    # A name that agrees with its folder keeps agreeing: the folder is renamed with it (a fix
    # the CLI applies only when asked), else the name alone is written in the spec's form.
    agrees = name == folder
    if agrees and os.path.lexists(os.path.join(parent, form)):
        return
    for code in FORM_CODES:
        if code in codes:
            yield Candidate(
                code,
                block.line,
                f"write the name as '{form}'"
                + (" and rename the folder to match" if agrees else ""),
                "review",
                (_set(block, form),),
                rename_to=form if agrees else "",
            )
