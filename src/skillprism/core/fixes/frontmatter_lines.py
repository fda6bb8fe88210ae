"""Where each top-level key of a skill file's frontmatter sits in its text: the key's line, its
value's span and the indented lines that continue it. The fixes edit these spans and nothing
else; line numbers and offsets are those of core/document.py's text (line ends read as "\\n")."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from skillprism.core.document import SkillDocument

_KEY = re.compile(r"([A-Za-z0-9_][A-Za-z0-9_.-]*)[ \t]*:(?=[ \t]|$)")
# A plain scalar cannot start with these, and cannot hold ': ' or ' #' (YAML 1.2, 7.3.3).
_PLAIN_START = frozenset("-?:,[]{}#&*!|>'\"%@`")
_NOT_STRINGS = re.compile(
    r"(?i:~|null|true|false|yes|no|on|off|y|n|[-+]?(\.inf|\.nan)|"
    r"[-+]?[0-9][0-9_.eExXoOa-fA-F:+-]*)"
)


def line_starts(text: str) -> list[int]:
    """The offset where each line of `text` starts."""
    out = [0]
    at = text.find("\n")
    while at >= 0:
        out.append(at + 1)
        at = text.find("\n", at + 1)
    return out


@dataclass
class KeyBlock:
    """One top-level `key: value` of the frontmatter. Offsets are into the document's text:
    `start` the line's start, `value_start`/`value_end` the value on the key's own line (trailing
    white space and nothing else left out), `end` the offset after the block's last line (its
    "\\n" included), `more` the (start, end) of each continuation line's content."""

    key: str
    line: int  # 1-based
    start: int
    value_start: int
    value_end: int
    end: int
    more: list[tuple[int, int]] = field(default_factory=list)

    def value(self, text: str) -> str:
        return text[self.value_start : self.value_end]

    def block(self, text: str) -> str:
        return text[self.start : self.end]


@dataclass
class Frontmatter:
    """The frontmatter's lines: where it starts and ends in the text, and its top-level keys."""

    start: int  # offset of its first line (after the opening '---' line)
    end: int  # offset of the closing '---' line
    keys: list[KeyBlock]

    def get(self, key: str) -> KeyBlock | None:
        return next((k for k in self.keys if k.key == key), None)


def locate(doc: SkillDocument) -> Frontmatter | None:
    """The frontmatter of `doc` split into top-level key blocks; None without a frontmatter."""
    if not doc.has_frontmatter or doc.text is None:
        return None
    text = doc.text
    starts = line_starts(text)
    first = doc.frontmatter_first_line - 1  # 0-based index of the first frontmatter line
    close = doc.body_first_line - 2  # 0-based index of the closing line
    if not (0 < first <= close < len(starts)):
        return None
    keys: list[KeyBlock] = []
    for i in range(first, close):
        s = starts[i]
        e = starts[i + 1] - 1
        line = text[s:e]
        m = _KEY.match(line)
        if m:
            v = m.end()
            while v < len(line) and line[v] in " \t":
                v += 1
            content = line.rstrip(" \t")
            keys.append(KeyBlock(m.group(1), i + 1, s, s + v, s + max(v, len(content)), e + 1))
            continue
        if not keys:
            continue
        if line[:1] in (" ", "\t", "-") or not line.strip():
            # part of the previous key's value (continuation, block scalar or block sequence)
            keys[-1].end = e + 1
            if line.strip():
                keys[-1].more.append((s, e))
            continue
        if line.startswith("#"):
            continue
        keys[-1].end = e + 1  # something else at column 0: kept with the key before it
        keys[-1].more.append((s, e))
    # Blank lines after a block belong between blocks, not to the block.
    for k in keys:
        last = k.more[-1][1] + 1 if k.more else k.value_end
        nl = text.find("\n", last)
        k.end = min(k.end, nl + 1 if nl >= 0 else len(text))
    return Frontmatter(starts[first], starts[close], keys)


def yaml_scalar(value: str) -> str:
    """`value` as a one-line YAML scalar that reads back as exactly this string: plain when
    nothing in it means something to YAML, else double-quoted (JSON's escapes are YAML's)."""
    if (
        value
        and value == value.strip()
        and value[0] not in _PLAIN_START
        and ": " not in value
        and " #" not in value
        and not value.endswith(":")
        and "\n" not in value
        and "\t" not in value
        and value.isprintable()
        and not _NOT_STRINGS.fullmatch(value)
    ):
        return value
    return json.dumps(value, ensure_ascii=False)
