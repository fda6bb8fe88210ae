"""Description fix: cut a description to the runtime's cap (the profile's `description_max`,
the smallest among the chosen profiles that report it too long) at the last sentence end that
fits, else the last word boundary. A shorter description says less: review."""

from __future__ import annotations

import re
from collections.abc import Iterator

import yaml

from skillprism.core.document import parse_document
from skillprism.core.fixes import Candidate, FixContext
from skillprism.core.fixes.frontmatter_lines import KeyBlock, locate, yaml_scalar
from skillprism.core.write_back import Snapshot, TextEdit

CODE = "SP212"
DEFAULT_CAP = 1024  # the specification's limit
_SENTENCE_END = re.compile(r"[.!?](?=\s|$)")


def description_cap(ctx: FixContext, code: str = CODE) -> int:
    """The smallest description cap among the chosen profiles (those reporting `code`, when any
    do), else the specification's."""
    caps = [
        p.profile.description_max
        for p, _d in ctx.with_code(code)
        if p.profile is not None and p.profile.description_max
    ]
    if not caps:
        caps = [
            p.profile.description_max
            for p in ctx.policies
            if p.profile is not None and p.profile.description_max
        ]
    return min(caps, default=DEFAULT_CAP)


def cut_text(text: str, cap: int) -> str:
    """`text` (white space collapsed) cut to at most `cap` characters: at the last sentence end
    within the cap that keeps at least half of it, else at the last space, else hard."""
    text = " ".join(text.split())
    if len(text) <= cap:
        return text
    head = text[: cap + 1]
    ends = [m.end() for m in _SENTENCE_END.finditer(head) if m.end() <= cap]
    if ends and ends[-1] >= cap // 2:
        return text[: ends[-1]]
    space = head.rfind(" ")
    if space > 0:
        return text[:space].rstrip(" ,;:-")
    return text[:cap]


def description_edit(text: str, block: KeyBlock, keep: str) -> TextEdit:
    """The edit that makes the description value of `block` (in `text`) read `keep`: its tail
    dropped when the value is one plain line that starts with `keep`, else the value rewritten."""
    raw = block.value(text)
    if not block.more and raw.startswith(keep) and yaml_scalar(raw) == raw:
        return TextEdit(block.value_start + len(keep), block.value_end, "")
    end = block.more[-1][1] if block.more else block.value_end
    return TextEdit(block.value_start, end, yaml_scalar(keep))


def shorten_in(snapshot: Snapshot, keep: str) -> TextEdit | None:
    """The edit that makes the description of the skill file `snapshot` read `keep` (None
    when the file has no description value to edit)."""
    doc = parse_document(snapshot.path, snapshot.data)
    fm = locate(doc) if doc.text == snapshot.text else None
    block = fm.get("description") if fm is not None else None
    if block is None or not block.value(doc.text or ""):
        return None
    return description_edit(doc.text or "", block, keep)


def candidates(ctx: FixContext) -> Iterator[Candidate]:
    fm = ctx.frontmatter
    block = fm.get("description") if fm is not None else None
    if block is None or CODE not in ctx.codes():
        return
    text = ctx.doc.text or ""
    try:
        value = yaml.load(block.block(text), Loader=yaml.BaseLoader)
    except yaml.YAMLError:
        return
    if not isinstance(value, dict) or not isinstance(value.get("description"), str):
        return
    cap = description_cap(ctx)
    cut = cut_text(value["description"], cap)
    yield Candidate(
        CODE,
        block.line,
        f"cut the description to {len(cut):,} characters (the cap is {cap:,})",
        "review",
        (description_edit(text, block, cut),),
    )
