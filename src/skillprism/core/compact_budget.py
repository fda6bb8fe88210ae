"""The `compact` budget model: how many skills a listing keeps and in which format, the way
OpenClaw's prepareSkillsForPrompt decides it (`[tier1.budget] model = "compact"`).

At most `max_entries` skills are listed. The full listing is used when it fits; else the compact
format: descriptions with their white space folded, cut to one common length found by a binary
search between `compact_min_chars` and `compact_max_chars` (cut ones end with `cut_suffix`),
or left out when even the shortest does not fit; when the names alone do not fit, the listing
keeps the longest run of skills from the start of the order that does. A note line before the
listing says so (`compact_note`, `truncated_note`). Sizes are counted as the runtime counts them
(`measure`; OpenClaw: JavaScript string length, UTF-16 code units), over the note, the `lead`
the runtime's text starts with and the listing.

This module holds the search, on sizes a caller supplies; core/disclose.py renders the texts.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from skillprism.core.disclosure_spec import BudgetSpec

FULL = -1  # `chars` of a plan that lists every description as it is


@dataclass(frozen=True, slots=True)
class CompactPlan:
    count: int  # how many skills, from the start of the listing order, are listed
    chars: int  # FULL, 0 (names only) or the common length descriptions are cut to
    note: bool  # whether the note line is written


def utf16_len(text: str) -> int:
    """JavaScript's `text.length`: UTF-16 code units (a character beyond U+FFFF counts two)."""
    return len(text) + sum(1 for c in text if ord(c) > 0xFFFF)


def utf16_cut(text: str, units: int) -> str:
    """`text` cut to at most `units` UTF-16 code units without splitting a character in two
    (OpenClaw's truncateUtf16Safe)."""
    if utf16_len(text) <= units:
        return text
    used = 0
    for i, c in enumerate(text):
        used += 2 if ord(c) > 0xFFFF else 1
        if used > units:
            return text[:i]
    return text


def compact_description(
    description: str, chars: int, suffix: str, size: Callable[[str], int] = utf16_len
) -> str:
    """The description as the compact format shows it at `chars` (OpenClaw's
    truncateSkillDescription): white space runs folded to one space and the ends trimmed; when
    longer than `chars`, cut to `chars - len(suffix)`, trailing white space removed, `suffix`
    added ("" when nothing is left: the entry then has no description)."""
    folded = " ".join(description.split())
    if size(folded) <= chars:
        return folded
    cut = utf16_cut if size is utf16_len else (lambda t, n: t[:n])
    if chars <= len(suffix):
        return cut(folded, chars)
    return cut(folded, chars - len(suffix)).rstrip() + suffix


def note_text(budget: BudgetSpec, count: int, total: int, chars: int) -> str:
    """The note line the runtime writes before a listing of `count` of `total` skills in the
    format `chars` stands for ("" when the full listing of every skill is written)."""
    words = budget.descriptions_words
    descriptions = (words[0] if chars > 0 else words[1]) if len(words) == 2 else ""
    if count < total:
        detail = budget.truncated_detail.format(descriptions=descriptions) if chars != FULL else ""
        return budget.truncated_note.format(shown=count, total=total, detail=detail)
    if chars != FULL:
        return budget.compact_note.format(descriptions=descriptions)
    return ""


def plan_compact(
    budget: BudgetSpec, total: int, limit: int, size: Callable[[int, int, bool], int]
) -> CompactPlan:
    """What prepareSkillsForPrompt keeps of `total` skills within `limit`: `size(count, chars,
    note)` is the size the runtime counts for the first `count` skills in format `chars` (FULL,
    0 or a cut length), with or without the note line. Every search is the runtime's own binary
    search, so the result is the one it finds even where a longer run would also fit."""
    cap = min(total, budget.max_entries) if budget.max_entries > 0 else total
    by_count = cap

    def fits(count: int, chars: int, note: bool = True) -> bool:
        return size(count, chars, note) <= limit

    def longest(hi: int, note: bool) -> int:
        lo = 0
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if fits(mid, 0, note):
                lo = mid
            else:
                hi = mid - 1
        return lo

    if fits(by_count, FULL):
        return CompactPlan(by_count, FULL, True)
    count = by_count
    if not fits(count, 0):
        count = longest(count, True)
    if count == 0 and by_count > 0:
        if fits(by_count, FULL, False):
            return CompactPlan(by_count, FULL, False)
        count = longest(by_count, False) or count
    note = fits(count, 0)
    chars = 0
    low = budget.compact_min_chars
    if count > 0 and fits(count, low, note):
        hi = budget.compact_max_chars
        while low < hi:
            mid = (low + hi + 1) // 2
            if fits(count, mid, note):
                low = mid
            else:
                hi = mid - 1
        chars = low
    if not fits(count, chars, note):
        return CompactPlan(0, chars, False)  # nothing fits: the runtime writes no listing
    return CompactPlan(count, chars, note)
