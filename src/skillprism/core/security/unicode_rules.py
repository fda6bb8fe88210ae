"""Invisible and deceptive Unicode: bidi controls, zero-width characters, Unicode tag characters
(decoded), variation selectors used as a payload (decoded), other format and control characters.

Runs only on text that is not pure ASCII (the caller checks with `bytes.isascii`, which is
nearly free), with one pass of a character-class regex, linear by construction.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from typing import Any

from skillprism.core.diagnostics import Severity
from skillprism.core.security._unicode_tables import INVISIBLE
from skillprism.core.security.patterns import code_point_class, compile_bytes
from skillprism.core.security.sink import Sink
from skillprism.core.security.text import StrLocator, evidence, is_tag, is_variation_selector


def _suspect_spans(text: str) -> Iterator[tuple[int, int]]:
    """(start, end) of each run of invisible characters: every Cf (format) character, C0/C1
    controls other than tab and line ends, fillers and variation selectors (the generated table
    of text.py). Only the runs of characters other than printable ASCII are looked at, one
    character at a time (a character class as large as the table's is slow to run over a whole
    text, and most text is printable ASCII)."""
    invisible = _invisible_set()
    for m in _NOT_PRINTABLE_ASCII.finditer(text):
        if invisible.isdisjoint(m.group()):
            continue  # most runs (an em dash, a line of Chinese) hold none: asked in C
        start = -1
        for at in range(m.start(), m.end()):
            if text[at] in invisible:
                if start < 0:
                    start = at
            elif start >= 0:
                yield start, at
                start = -1
        if start >= 0:
            yield start, m.end()


# Tab, line feed, carriage return and printable ASCII: none of them is invisible.
_NOT_PRINTABLE_ASCII = re.compile(r"[^\t\n\r\x20-\x7e]+")
_INVISIBLE_SET: frozenset[str] | None = None


def _invisible_set() -> frozenset[str]:
    global _INVISIBLE_SET
    if _INVISIBLE_SET is None:
        _INVISIBLE_SET = frozenset(chr(cp) for a, b in INVISIBLE for cp in range(a, b + 1))
    return _INVISIBLE_SET


_ANY_SUSPECT: frozenset[str] | None = None


def _any_suspect(text: str) -> bool:
    """Whether `text` holds an invisible character at all: checked on the set of its non-ASCII
    characters (a character class this large is slow to run over a whole text)."""
    global _ANY_SUSPECT
    if _ANY_SUSPECT is None:
        _ANY_SUSPECT = frozenset(
            chr(cp) for a, b in INVISIBLE for cp in range(a, b + 1) if cp >= 0x80
        )
    return not _ANY_SUSPECT.isdisjoint(_NON_ASCII.findall(text)) or any(
        (c < " " and c not in "\t\n\r") or c == "\x7f" for c in _CONTROL.findall(text)
    )


_NON_ASCII = re.compile(r"[^\x00-\x7f]")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_SUSPECT_BYTES: Any = None


def may_hide(data: bytes) -> bool:
    """`_any_suspect` of the text the UTF-8 bytes `data` decode to, asked of the bytes in one
    pass (a text with nothing to report is then never decoded for it)."""
    global _SUSPECT_BYTES
    if _SUSPECT_BYTES is None:
        # what `_any_suspect` looks for: the invisible characters outside ASCII, or a control
        invisible = (cp for a, b in INVISIBLE for cp in range(max(a, 0x80), b + 1))
        _SUSPECT_BYTES = compile_bytes(f"{code_point_class(invisible)}|{_CONTROL.pattern}")
    return _SUSPECT_BYTES.search(data) is not None


_BIDI_CONTROLS = set(range(0x202A, 0x202F)) | set(range(0x2066, 0x206A))
_MARKS = {0x200E, 0x200F, 0x061C}
_ZW = {0x200B: "ZERO WIDTH SPACE", 0x200C: "ZERO WIDTH NON-JOINER", 0x200D: "ZERO WIDTH JOINER"}
_ZW |= {0x2060: "WORD JOINER", 0xFEFF: "ZERO WIDTH NO-BREAK SPACE", 0x180E: "MONGOLIAN VOWEL SEP."}


def _name(cp: int) -> str:
    return unicodedata.name(chr(cp), "") or _ZW.get(cp, "")


def _is_emoji_like(ch: str) -> bool:
    cp = ord(ch)
    return (
        0x1F000 <= cp <= 0x1FAFF
        or 0x2600 <= cp <= 0x27BF
        or 0x2190 <= cp <= 0x21FF
        or 0x2B00 <= cp <= 0x2BFF
        or 0x2300 <= cp <= 0x23FF
        or cp in (0x00A9, 0x00AE, 0x203C, 0x2049, 0x2122, 0x2139, 0x3030, 0x303D)
        or ch in "#*0123456789"
    )


def _is_ideograph(ch: str) -> bool:
    cp = ord(ch)
    return 0x3400 <= cp <= 0x9FFF or 0x20000 <= cp <= 0x3FFFF or 0xF900 <= cp <= 0xFAFF


def _joins_script(ch: str) -> bool:
    """Letters of scripts where ZWJ/ZWNJ are part of ordinary spelling (Arabic, Persian, Indic,
    Sinhala, ...): not Latin, Greek or Cyrillic."""
    if not ch or ch.isascii():
        return False
    try:
        name = unicodedata.name(ch)
    except ValueError:
        return False
    return not name.startswith(("LATIN", "GREEK", "CYRILLIC")) and ch.isalpha()


def _decode_tags(run: str) -> str:
    out = []
    for ch in run:
        cp = ord(ch)
        if is_tag(cp):
            t = cp - 0xE0000
            out.append(chr(t) if 0x20 <= t < 0x7F else "" if t in (0, 0x7F) else f"\\x{t:02x}")
    return "".join(out)


def _decode_selectors(run: str) -> bytes:
    out = bytearray()
    for ch in run:
        cp = ord(ch)
        if 0xFE00 <= cp <= 0xFE0F:
            out.append(cp - 0xFE00)
        elif 0xE0100 <= cp <= 0xE01EF:
            out.append(cp - 0xE0100 + 16)
    return bytes(out)


def _decode_zero_width_bits(run: str) -> str:
    """A run of two distinct zero-width characters read as bits, 8 to a byte, both ways round;
    the reading that gives printable ASCII, or ''."""
    chars = sorted(set(run))
    if len(chars) != 2 or len(run) < 16 or len(run) % 8:
        return ""
    for zero, _one in ((chars[0], chars[1]), (chars[1], chars[0])):
        bits = "".join("0" if c == zero else "1" for c in run)
        data = bytes(int(bits[i : i + 8], 2) for i in range(0, len(bits), 8))
        if all(0x20 <= b < 0x7F or b in (9, 10, 13) for b in data):
            return data.decode("ascii")
    return ""


def _ordinary(run: str, cps: list[int], before: str, after: str) -> bool:
    """Whether a run of invisible characters is part of ordinary text, not a finding (asked
    before its place and evidence are worked out: most runs in real files are these): a
    variation selector that picks a glyph of the character before it, direction marks next to
    a script that needs them, joiners inside an emoji sequence or a script that spells with
    them. Tags and bidirectional controls never are."""
    if any(is_tag(cp) or cp in _BIDI_CONTROLS for cp in cps):
        return False
    selectors = [cp for cp in cps if is_variation_selector(cp)]
    if selectors:
        if len(run) == 1 and (
            (cps[0] in (0xFE0E, 0xFE0F) and (before and _is_emoji_like(before)))
            or (0xFE00 <= cps[0] <= 0xFE0F and before and not before.isascii())
            or (cps[0] >= 0xE0100 and before and _is_ideograph(before))
        ):
            return True
        if _selector_payload(selectors, cps, before):
            return False
    if all(cp in _MARKS for cp in cps):
        return _joins_script(before) or _joins_script(after)
    if any(cp in _ZW for cp in cps):
        return (
            all(cp in (0x200C, 0x200D) for cp in cps)
            and len(run) <= 2
            and bool(before)  # (a joiner that starts the text joins nothing)
            and (_is_emoji_like(before) or _joins_script(before))
            and (not after or _is_emoji_like(after) or _joins_script(after) or after == "\ufe0f")
        )
    return False


def _selector_payload(selectors: list[int], cps: list[int], before: str) -> bool:
    """Whether variation selectors carry bytes rather than pick a glyph (a selector at the very
    start of the text has nothing before it to vary)."""
    return len(selectors) >= 2 or (cps[0] >= 0xE0100 and not (before and _is_ideograph(before)))


def scan_unicode(
    text: str,
    rel_path: str,
    sink: Sink,
    decoded: list[tuple[int, int, str]],
    line_offset: int = 0,
) -> None:
    """Report invisible characters in `text` (`line_offset` lines of the file come before it);
    decoded hidden messages are appended to `decoded` as (line, column, text) so the caller
    scans them with the phrase and command rules."""
    if not _any_suspect(text):
        return
    loc = StrLocator(text, line_offset)
    for start, end in _suspect_spans(text):
        run = text[start:end]
        if start == 0 and run == "\ufeff":
            continue  # a byte order mark at the start of a file (reported by the parser)
        before = text[start - 1] if start else ""
        after = text[end] if end < len(text) else ""
        cps = [ord(c) for c in run]
        if _ordinary(run, cps, before, after):
            continue
        line, col = loc.position(start)
        ev = evidence(loc.line_text(start), run[:1])
        names = ", ".join(sorted({f"U+{cp:04X} {_name(cp)}".strip() for cp in cps})[:4])
        if any(is_tag(cp) for cp in cps):
            hidden = _decode_tags(run)
            decoded.append((line, col, hidden))
            sink.add(
                "unicode-tag-smuggling",
                rel_path,
                line,
                col,
                f"{len(run)} invisible Unicode tag characters spell the hidden text: "
                f'"{hidden[:200]}"',
                "a model reads and may obey the hidden text, which no reviewer or editor shows",
                "remove the characters U+E0000-E007F (e.g. in an editor that shows them) and "
                "compare with the decoded text",
                ev,
            )
            continue
        if any(cp in _BIDI_CONTROLS for cp in cps):
            sink.add(
                "bidi-control",
                rel_path,
                line,
                col,
                f"bidirectional control character(s) ({names}) reorder the text as displayed",
                "the text shown to a reviewer differs from what the agent or a shell gets: a "
                "command or instruction can read as harmless and act otherwise",
                "delete the bidi controls; if the text is right-to-left prose, rely on the "
                "Unicode algorithm without explicit overrides",
                ev,
            )
            continue
        selectors = [cp for cp in cps if is_variation_selector(cp)]
        if selectors and _selector_payload(selectors, cps, before):
            payload = _decode_selectors(run)
            shown = payload.decode("utf-8", "backslashreplace")
            decoded.append((line, col, shown))
            sink.add(
                "variation-selector-payload",
                rel_path,
                line,
                col,
                f"{len(selectors)} variation selectors after {before!r} carry hidden bytes: "
                f'"{shown[:200]}"',
                "a model given the text can decode and follow a message no reviewer sees",
                "delete the variation selectors; a visible character needs at most one",
                ev,
            )
            continue
        if all(cp in _MARKS for cp in cps):
            sink.add(
                "invisible-character",
                rel_path,
                line,
                col,
                f"invisible direction mark(s) ({names}) in left-to-right text",
                "they change nothing visible; in identifiers or commands they make two strings "
                "that look equal differ",
                "delete them unless the text mixes right-to-left scripts",
                ev,
                Severity.INFO,
            )
            continue
        zero_width = [cp for cp in cps if cp in _ZW]
        if zero_width:
            bits = _decode_zero_width_bits(run)
            if bits:
                decoded.append((line, col, bits))
            sink.add(
                "zero-width-character",
                rel_path,
                line,
                col,
                f"{len(run)} zero-width character(s) ({names})"
                + (f' encode the hidden text "{bits[:200]}"' if bits else "")
                + (f" inside the word around {before}{after!s}" if before.isalnum() else ""),
                "invisible characters split words so keyword checks and reviewers miss them, "
                "or make a name or command differ from the one it looks like",
                "delete the zero-width characters (search for U+200B-U+200D, U+2060, U+FEFF)",
                ev,
            )
            continue
        if cps == [0x00AD] and before.isalpha() and after.isalpha():
            sink.add(
                "invisible-character",
                rel_path,
                line,
                col,
                "a soft hyphen (U+00AD) inside a word",
                "it is invisible; it makes a word differ from the one it looks like",
                "delete it unless it is a deliberate hyphenation hint",
                ev,
                Severity.INFO,
            )
            continue
        esc = any(cp == 0x1B for cp in cps)
        sink.add(
            "invisible-character",
            rel_path,
            line,
            col,
            (
                "a terminal escape sequence (ESC): it can hide or rewrite text when the file is "
                "shown in a terminal"
                if esc
                else f"invisible character(s) ({names})"
            ),
            "text can be hidden from a reviewer or made to look like other text",
            "delete the character(s); a skill's text needs none",
            ev,
        )
