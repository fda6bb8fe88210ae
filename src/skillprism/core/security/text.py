"""Text helpers of the security engine: positions, visible evidence, and folded views of a text
that undo Unicode disguises so the phrase and command rules see what a model reads.

Everything here is linear in its input: positions are counted with `bytes.count` from the nearest
earlier point asked for, and the folding walks the text once.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from skillprism.core.security._unicode_tables import CONFUSABLE, FOLD, INVISIBLE
from skillprism.core.security.patterns import code_point_class, compile_bytes

EVIDENCE_CHARS = 160


def is_tag(cp: int) -> bool:
    return 0xE0000 <= cp <= 0xE007F


def is_variation_selector(cp: int) -> bool:
    return 0xFE00 <= cp <= 0xFE0F or 0xE0100 <= cp <= 0xE01EF


_INVISIBLE_STARTS = [a for a, _b in INVISIBLE]


def is_invisible(ch: str) -> bool:
    """Whether `ch` shows nothing (or reorders text) but is not ordinary white space."""
    cp = ord(ch)
    if cp < 0x7F:
        return cp < 0x20 and ch not in "\t\n\r"
    i = bisect.bisect_right(_INVISIBLE_STARTS, cp) - 1
    return i >= 0 and INVISIBLE[i][0] <= cp <= INVISIBLE[i][1]


def visible(text: str) -> str:
    """`text` with every invisible character written as <U+XXXX>, runs of Unicode tag characters
    decoded as <TAGS:"..."> and other control characters escaped."""
    if text.isascii() and text.isprintable():
        return text
    out: list[str] = []
    tags: list[str] = []

    def flush() -> None:
        if tags:
            out.append('<TAGS:"' + "".join(tags) + '">')
            tags.clear()

    for ch in text:
        cp = ord(ch)
        if is_tag(cp):
            t = cp - 0xE0000
            tags.append(chr(t) if 0x20 <= t < 0x7F else f"\\x{t:02x}")
            continue
        flush()
        if ch == "\t":
            out.append(" ")
        elif is_invisible(ch) or (cp < 0x20):
            out.append(f"<U+{cp:04X}>")
        else:
            out.append(ch)
    flush()
    return "".join(out)


class Locator:
    """1-based line and column (in characters) of byte offsets into one UTF-8 buffer."""

    __slots__ = ("_data", "_lines", "_marks", "line_offset")

    def __init__(self, data: bytes, line_offset: int = 0) -> None:
        self._data = data
        self._marks = [0]
        self._lines = [1 + line_offset]
        self.line_offset = line_offset  # lines of the file before `data` (a window of it)

    def line_start(self, offset: int) -> int:
        return self._data.rfind(b"\n", 0, offset) + 1

    def line_of(self, offset: int) -> int:
        i = bisect.bisect_right(self._marks, offset) - 1
        mark, line = self._marks[i], self._lines[i]
        line += self._data.count(b"\n", mark, offset)
        if offset - mark > 4096:
            self._marks.insert(i + 1, offset)
            self._lines.insert(i + 1, line)
        return line

    def position(self, offset: int) -> tuple[int, int]:
        start = self.line_start(offset)
        col = len(self._data[start:offset].decode("utf-8", "replace")) + 1
        return self.line_of(offset), col

    def line_text(self, offset: int) -> str:
        start = self.line_start(offset)
        end = self._data.find(b"\n", offset)
        if end < 0:
            end = len(self._data)
        if end - start > 4 * EVIDENCE_CHARS:
            lo = max(start, offset - 2 * EVIDENCE_CHARS)
            return self._data[lo : min(end, lo + 4 * EVIDENCE_CHARS)].decode("utf-8", "replace")
        return self._data[start:end].decode("utf-8", "replace")


def evidence(line: str, focus: str = "") -> str:
    """A line cut to EVIDENCE_CHARS around `focus` (when given), invisible characters shown."""
    line = line.rstrip("\r\n")
    if len(line) > EVIDENCE_CHARS:
        at = line.find(focus) if focus else -1
        lo = max(0, at - EVIDENCE_CHARS // 3) if at >= 0 else 0
        line = ("…" if lo else "") + line[lo : lo + EVIDENCE_CHARS] + "…"
    return visible(line.strip())


@dataclass(slots=True)
class View:
    """A text the rules run on: the file's own bytes, or a form derived from them (folded,
    de-obfuscated, decoded). `where(offset)` maps an offset in `data` to (line, column) in the
    file; `note` says how the view was derived, for the message ('' for the file itself)."""

    data: bytes
    where: Callable[[int], tuple[int, int]]
    note: str = ""
    line_text: Callable[[int], str] | None = None
    # (start, end) -> whether a match there counts (a folded view keeps only the matches that
    # hold a disguised character); None keeps every match.
    keep: Callable[[int, int], bool] | None = None


def raw_view(data: bytes) -> tuple[View, Locator]:
    loc = Locator(data)
    return View(data, loc.position, "", loc.line_text), loc


# --- folding: what a model reads, with the disguises taken off ----------------------------------

_CONFUSABLE_CHARS: dict[str, str] | None = None


def confusable_map() -> dict[str, str]:
    """Single characters that look like one ASCII letter or digit (Unicode's confusables), by
    character."""
    global _CONFUSABLE_CHARS
    if _CONFUSABLE_CHARS is None:
        _CONFUSABLE_CHARS = {chr(cp): c for cp, c in CONFUSABLE.items()}
    return _CONFUSABLE_CHARS


def fold(text: str) -> str:
    """`text` as a model reads it with the disguises taken off: invisible characters removed,
    compatibility forms (fullwidth, mathematical letters) and look-alike letters replaced by the
    ASCII they imitate, accents dropped. Never adds or removes a line end."""
    return text.translate(FOLD)


def _is_disguise(replacement: str) -> bool:
    return replacement == "" or any(c.isalnum() for c in replacement)


_DISGUISE_CHARS: frozenset[str] | None = None
_NON_ASCII = re.compile(r"[^\x00-\x7f]")


def _disguise_chars() -> frozenset[str]:
    """Every character whose folding puts a letter or digit for a look-alike, or drops an
    invisible character (not mere punctuation or spacing, which folding also normalises)."""
    global _DISGUISE_CHARS
    if _DISGUISE_CHARS is None:
        _DISGUISE_CHARS = frozenset(chr(cp) for cp, rep in FOLD.items() if _is_disguise(rep))
    return _DISGUISE_CHARS


_DISGUISE_BYTES: Any = None


def may_disguise(data: bytes) -> bool:
    """Whether the text the UTF-8 bytes `data` decode to holds a character `fold_lines` counts as
    a disguise (so `disguised_lines` of it is not empty), asked of the bytes in one pass: most
    text that is not ASCII holds only dashes, arrows or emoji, and need not be decoded and
    looked at one character at a time."""
    global _DISGUISE_BYTES
    if _DISGUISE_BYTES is None:
        # (only characters outside ASCII, as `fold_lines` looks at)
        disguises = (ord(c) for c in _disguise_chars() if not c.isascii())
        _DISGUISE_BYTES = compile_bytes(code_point_class(disguises))
    return _DISGUISE_BYTES.search(data) is not None


def disguised_lines(text: str) -> list[int]:
    """The 0-based numbers of the lines of `text` that hold a disguise folding undoes (a letter
    or digit put for a look-alike, or an invisible character; not mere punctuation or spacing)."""
    return fold_lines(text, fold_all=False)[1]


def fold_lines(text: str, *, fold_all: bool = True) -> tuple[str, list[int]]:
    """`fold(text)` and the 0-based numbers of the lines where a disguise was undone (a letter or
    digit put for a look-alike, or an invisible character dropped; not mere punctuation or
    spacing). Text without any such character is returned as it is, unfolded (and so is any
    text when `fold_all` is false: only the line numbers are wanted)."""
    hits = set(_NON_ASCII.findall(text)) & _disguise_chars()
    if not hits:
        return text, []
    places: list[int] = []
    for ch in hits:
        at = text.find(ch)
        while at >= 0 and len(places) < 100_000:
            places.append(at)
            at = text.find(ch, at + 1)
    places.sort()
    changed: list[int] = []
    line, pos = 0, 0
    for at in places:
        line += text.count("\n", pos, at)
        pos = at
        if not changed or changed[-1] != line:
            changed.append(line)
    return (text.translate(FOLD) if fold_all else text), changed


def disguised(line: str, start: int, end: int) -> tuple[bool, int]:
    """For the characters [start, end) of `fold(line)`: whether the original characters they
    come from hold a disguise, and the original column of `start`."""
    pos = 0  # position in the folded line
    orig_start = -1
    hit = False
    for i, ch in enumerate(line):
        if pos >= end:
            break
        rep = FOLD.get(ord(ch)) if not ch.isascii() else None
        width = 1 if rep is None else len(rep)
        if orig_start < 0 and pos + width > start:
            orig_start = i
        if rep is not None and orig_start >= 0 and _is_disguise(rep):
            hit = True
        pos += width
    if orig_start < 0:
        orig_start = len(line)
    return hit, orig_start


class StrLocator:
    """1-based line and column of character offsets into one str."""

    __slots__ = ("_lines", "_marks", "_text")

    def __init__(self, text: str, line_offset: int = 0) -> None:
        self._text = text
        self._marks = [0]
        self._lines = [1 + line_offset]

    def position(self, offset: int) -> tuple[int, int]:
        i = bisect.bisect_right(self._marks, offset) - 1
        mark, line = self._marks[i], self._lines[i]
        line += self._text.count("\n", mark, offset)
        if offset - mark > 4096:
            self._marks.insert(i + 1, offset)
            self._lines.insert(i + 1, line)
        return line, offset - self._text.rfind("\n", 0, offset)

    def line_text(self, offset: int) -> str:
        start = self._text.rfind("\n", 0, offset) + 1
        end = self._text.find("\n", offset)
        end = len(self._text) if end < 0 else end
        if end - start > 4 * EVIDENCE_CHARS:
            start = max(start, offset - 2 * EVIDENCE_CHARS)
            end = min(end, start + 4 * EVIDENCE_CHARS)
        return self._text[start:end]
