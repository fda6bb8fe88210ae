"""Values that break the frontmatter's YAML: a plain value holding ': ' or ' #', or starting
with '[', '{', '*', '&', '@', '`' (and the like) where the rest is not what YAML reads there.
The value is written as a double-quoted string (one line) or as a folded block scalar (a plain
value continued on indented lines), reading back as exactly the text the author wrote."""

from __future__ import annotations

import json
from collections.abc import Iterator

import yaml

from skillprism.core.fixes import Candidate, FixContext
from skillprism.core.fixes.frontmatter_lines import KeyBlock
from skillprism.core.write_back import TextEdit

# The codes a frontmatter that does not parse is reported with, depending on how the runtime
# copes: refused, read by a fallback, repaired first.
CODES = ("SP113", "SP121", "SP124")


def _loads(text: str) -> object:
    try:
        return yaml.load(text, Loader=yaml.BaseLoader)  # every scalar as text
    except yaml.YAMLError:
        return _BROKEN


_BROKEN = object()


def _intended(block: KeyBlock, text: str) -> str:
    """The text the author meant: the plain value's lines joined by spaces, as YAML folds them."""
    parts = [block.value(text)]
    parts.extend(text[s:e].strip() for s, e in block.more)
    return " ".join(p for p in parts if p)


def candidates(ctx: FixContext) -> Iterator[Candidate]:
    fm = ctx.frontmatter
    code = next((c for c in CODES if c in ctx.codes()), None)
    if fm is None or code is None:
        return
    text = ctx.doc.text or ""
    edits: list[TextEdit] = []
    review = False
    first_line = 0
    for block in fm.keys:
        value = block.value(text)
        if not value or value[0] in "|>" or _loads(block.block(text)) is not _BROKEN:
            continue
        if any(text[s:e].lstrip().startswith("- ") for s, e in block.more):
            continue  # a list: not a scalar to quote
        intended = _intended(block, text)
        if not block.more:
            new = json.dumps(value, ensure_ascii=False)
            edit = TextEdit(block.value_start, block.value_end, new)
        else:
            indents = {len(text[s:e]) - len(text[s:e].lstrip(" ")) for s, e in block.more}
            if len(indents) != 1 or "\t" in text[block.more[0][0] : block.more[-1][1]]:
                continue  # unevenly indented: a folded scalar would keep some line breaks
            indent = " " * indents.pop()
            edit = TextEdit(block.value_start, block.value_start, f">-\n{indent}")
        new_block = text[block.start : edit.start] + edit.new + text[edit.end : block.end]
        if _loads(new_block) != {block.key: intended}:
            continue
        # ' #' starts a comment for a YAML reader that copes; a leading quote may have meant
        # a quoted string: the author should look at what the value now says.
        review = review or " #" in intended or value[0] in "\"'"
        edits.append(edit)
        first_line = first_line or block.line
    if edits:
        what = "value that breaks" if len(edits) == 1 else f"{len(edits)} values that break"
        yield Candidate(
            code,
            first_line,
            f"quote the {what} the YAML",
            "review" if review else "safe",
            tuple(edits),
        )
