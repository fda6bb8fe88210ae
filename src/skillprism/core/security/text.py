"""Text helpers of the security engine: positions, visible evidence, and folded views of a text
that undo Unicode disguises so the phrase and command rules see what a model reads.

Everything here is linear in its input: positions are counted with `bytes.count` from the nearest
earlier point asked for, and the folding walks the text once.
"""

from __future__ import annotations

import bisect
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass

EVIDENCE_CHARS = 160

# Invisible or deceptive code points shown as <U+XXXX> in evidence (Unicode tags are decoded).
_BIDI = set(range(0x202A, 0x202F)) | set(range(0x2066, 0x206A)) | {0x200E, 0x200F, 0x061C}
_ZERO_WIDTH = {0x200B, 0x200C, 0x200D, 0x2060, 0xFEFF, 0x180E}
_FILLERS = {0x115F, 0x1160, 0x3164, 0xFFA0, 0x2800, 0x034F, 0x17B4, 0x17B5}


def is_tag(cp: int) -> bool:
    return 0xE0000 <= cp <= 0xE007F


def is_variation_selector(cp: int) -> bool:
    return 0xFE00 <= cp <= 0xFE0F or 0xE0100 <= cp <= 0xE01EF


def is_invisible(ch: str) -> bool:
    """Whether `ch` shows nothing (or reorders text) but is not ordinary white space."""
    cp = ord(ch)
    if cp < 0x20:
        return ch not in "\t\n\r"
    if cp < 0x7F:
        return False
    if cp == 0x7F or 0x80 <= cp <= 0x9F:
        return True
    if cp in _BIDI or cp in _ZERO_WIDTH or cp in _FILLERS:
        return True
    if is_tag(cp) or is_variation_selector(cp):
        return True
    return unicodedata.category(ch) == "Cf"


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

    __slots__ = ("_data", "_lines", "_marks")

    def __init__(self, data: bytes) -> None:
        self._data = data
        self._marks = [0]
        self._lines = [1]

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


def raw_view(data: bytes) -> tuple[View, Locator]:
    loc = Locator(data)
    return View(data, loc.position, "", loc.line_text), loc


# --- folding: what a model reads, with the disguises taken off ----------------------------------

_CONFUSABLE_ASCII: dict[str, str] | None = None


def _confusable_map() -> dict[str, str]:
    """Single characters that look like one ASCII letter or digit, from confusable-homoglyphs'
    copy of Unicode's confusables data (only entries whose look-alike is plain ASCII)."""
    global _CONFUSABLE_ASCII
    if _CONFUSABLE_ASCII is None:
        from confusable_homoglyphs.confusables import confusables_data

        table: dict[str, str] = {}
        for ch, entries in confusables_data.items():
            if len(ch) != 1 or ch.isascii():
                continue
            for e in entries:
                c = e["c"].strip("\u200e")
                if len(c) == 1 and c.isascii() and c.isalnum():
                    table[ch] = c
                    break
        _CONFUSABLE_ASCII = table
    return _CONFUSABLE_ASCII


def fold(text: str) -> tuple[str, list[int]]:
    """`text` with invisible characters removed, compatibility forms normalised (NFKC) and
    look-alike letters replaced by the ASCII letter they imitate; and for each character of the
    result, the index of the character of `text` it came from."""
    table = _confusable_map()
    out: list[str] = []
    index: list[int] = []
    for i, ch in enumerate(text):
        if ch.isascii():
            out.append(ch)
            index.append(i)
            continue
        if is_invisible(ch):
            continue
        mapped = table.get(ch)
        if mapped is None:
            mapped = unicodedata.normalize("NFKC", ch)
            if not mapped.isascii():
                base = unicodedata.normalize("NFKD", mapped)
                stripped = "".join(c for c in base if not unicodedata.combining(c))
                mapped = stripped if stripped.isascii() and stripped else mapped
                mapped = "".join(table.get(c, c) for c in mapped)
        for c in mapped:
            out.append(c)
            index.append(i)
    return "".join(out), index


class StrLocator:
    """1-based line and column of character offsets into one str."""

    __slots__ = ("_lines", "_marks", "_text")

    def __init__(self, text: str) -> None:
        self._text = text
        self._marks = [0]
        self._lines = [1]

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
