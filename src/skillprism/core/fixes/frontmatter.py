"""Frontmatter fixes: a missing frontmatter added from the file itself (name: the folder's name,
description: the body's first paragraph), blank lines before the opening '---' removed, white
space after a '---' delimiter removed."""

from __future__ import annotations

from collections.abc import Iterator

from skillprism.core.fixes import Candidate, FixContext
from skillprism.core.fixes.descriptions import cut_text, description_cap
from skillprism.core.fixes.frontmatter_lines import line_starts, yaml_scalar
from skillprism.core.validate import _suggest as spec_form
from skillprism.core.validate import first_paragraph
from skillprism.core.write_back import TextEdit


def candidates(ctx: FixContext) -> Iterator[Candidate]:
    text = ctx.doc.text or ""
    codes = ctx.codes()
    if "SP109" in codes and not ctx.doc.has_frontmatter and not text.lstrip().startswith("---"):
        about = first_paragraph(text)
        name = ctx.dir_name
        if about and spec_form(name) == name:
            about = cut_text(about, description_cap(ctx, "SP109"))
            head = f"---\nname: {name}\ndescription: {yaml_scalar(about)}\n---\n\n"
            yield Candidate(
                "SP109",
                1,
                "add a frontmatter: name from the folder, description from the first paragraph",
                "review",
                (TextEdit(0, 0, head),),
            )
    if "SP111" in codes and ctx.doc.leading_blank_lines:
        starts = line_starts(text)
        end = starts[ctx.doc.leading_blank_lines]
        yield Candidate(
            "SP111",
            1,
            f"delete the {ctx.doc.leading_blank_lines} blank line(s) before '---'",
            "safe",
            (TextEdit(0, end, ""),),
        )
    if "SP112" in codes and ctx.doc.has_frontmatter:
        starts = line_starts(text)
        edits = []
        first = ctx.doc.frontmatter_first_line - 2
        close = ctx.doc.body_first_line - 2
        for i in (first, close):
            if 0 <= i < len(starts):
                s = starts[i]
                e = starts[i + 1] - 1 if i + 1 < len(starts) else len(text)
                line = text[s:e]
                if line.rstrip() == "---" and line != "---":
                    edits.append(TextEdit(s + 3, e, ""))
        if edits:
            yield Candidate(
                "SP112",
                first + 1,
                "remove the white space after '---'",
                "safe",
                tuple(edits),
            )
