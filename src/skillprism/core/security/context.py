"""Where a match stands in its text, so that a finding says what the text does, not only what it
holds: a phrase a sentence forbids ("never disable ..."), a phrase quoted to be talked about
("... such as \"ignore previous instructions\""), a line that documents an option ("`--force` -
skip confirmation prompts"), a sentence that teaches about attacks, a condition ("unless
permission is granted").

Each helper looks at the sentence around one match only (at most a few hundred bytes either
side), so the cost follows the number of matches, not the size of the file.
"""

from __future__ import annotations

import re

_WINDOW = 400
# Where a sentence or clause ends: a stop, a list item or a table cell, a paragraph.
_SENTENCE_END = re.compile(rb"[.!?](?:\s|$)|\n\s*\n|\n\s*(?:[-*+]|\d+[.)])\s|\n#|\|")
_CLAUSE_END = re.compile(
    rb"[.!?;:,](?:\s|$)|\xe2\x80[\x93\x94]|\n\s*\n|\n\s*(?:[-*+]|\d+[.)])\s|\n#|\||\s(?:and|but|"
    rb"then|so|or|instead|otherwise)\s",
    re.I,
)
_NEGATION = re.compile(
    rb"(?i)\b(?:never|not|no|n't|don'?t|doesn'?t|avoid|avoids|avoiding|refuse|refuses|without|"
    rb"nor|cannot|can'?t|won'?t|must\s+not|should\s+not|stop|prevent|prevents|forbid|forbids|"
    rb"forbidden|prohibit|prohibits|prohibited)\b|\bno\s+longer\b|\xe2\x80\x99t\b"
)
_CONDITION = re.compile(rb"(?i)\b(?:unless|if|until|once|after|whether|when|provided\s+that)\b")
# Sentences that talk about attacks rather than make one.
_GUIDANCE = re.compile(
    rb"(?i)\b(?:attack(?:s|ers?|ing)?|adversar(?:y|ies|ial)|techniques?|tactics?|mitre|owasp|"
    rb"threat[- ]model(?:s|ing)?|vulnerab(?:le|ility|ilities)|cwe-\d+|malicious|prompt[- ]injections?|injections?|"
    rb"jailbreaks?|exploit(?:s|ed|ing)?|red[- ]flags?|suspicious|phishing|untrusted|threats?|"
    rb"detect(?:s|ed|ing|ion)?|flag(?:s|ged)?|block(?:s|ed)?|reject(?:s|ed)?|refus(?:e|es|ed|al)|"
    rb"warn(?:s|ing)?\s+(?:about|against)|treat(?:ed)?\s+as\s+(?:data|untrusted|text)|"
    rb"examples?\s+of|such\s+as|for\s+example|for\s+instance|patterns?\s+like|"
    rb"phrases?\s+like|indicators?|signs?\s+of|looks?\s+for|dangerous|harmful|unsafe)\b|"
    rb"\be\.g\.|\bi\.e\.|\bpatterns?\s*:"
)
_QUOTES = {
    b'"': b'"',
    b"'": b"'",
    b"`": b"`",
    "\u201c".encode(): "\u201d".encode(),
    "\u2018".encode(): "\u2019".encode(),
    "\u00ab".encode(): "\u00bb".encode(),
    "\u300c".encode(): "\u300d".encode(),
}
# A line that documents a field or an option: "- `name`: ...", "| --flag | ... |", "--yes  ...".
_DEFINITION = re.compile(
    rb"[ \t>]*(?:[-*+]|\d+[.)]|\|)?[ \t]*(?:`[^`\n]{1,60}`|\*\*[^*\n]{1,60}\*\*|--?[A-Za-z][\w-]*"
    rb"(?:[ =][A-Z_<>\[\]]+)?)(?:[ \t]*\([^)\n]{0,40}\))?[ \t]*(?:[:|=]|-{1,2}\s|\xe2\x80[\x93\x94]|\s{2,})"
)


def _line_start(data: bytes, pos: int) -> int:
    return data.rfind(b"\n", 0, pos) + 1


def _line_end(data: bytes, pos: int) -> int:
    end = data.find(b"\n", pos)
    return len(data) if end < 0 else end


def clause_before(data: bytes, start: int) -> bytes:
    """The part of the clause before `start` (from the last clause break, at most a line or two)."""
    lo = max(0, start - _WINDOW)
    head = data[lo:start]
    last = None
    for m in _CLAUSE_END.finditer(head):
        last = m
    return head[last.end() :] if last is not None else head


def sentence(data: bytes, start: int, end: int) -> bytes:
    """The sentence (or list item, or table cell) around data[start:end]."""
    lo = max(0, start - _WINDOW)
    head = data[lo:start]
    last = None
    for m in _SENTENCE_END.finditer(head):
        last = m
    a = lo + (last.end() if last is not None else 0)
    tail = data[end : end + _WINDOW]
    m = _SENTENCE_END.search(tail)
    b = end + (m.start() if m is not None else len(tail))
    return data[a:b]


def negated(data: bytes, start: int) -> bool:
    """The clause forbids what the match says: 'never ...', 'do not ...', 'MUST NOT ... by'."""
    return _NEGATION.search(clause_before(data, start)) is not None


def conditional(data: bytes, start: int) -> bool:
    """The clause makes the match a condition: 'unless permission is granted', 'if ...'."""
    return _CONDITION.search(clause_before(data, start)) is not None


def quoted(data: bytes, start: int, end: int, slack: int = 40) -> bool:
    """data[start:end] stands inside quotes or backticks on its line, which hold little else:
    the phrase is named, not said."""
    ls, le = _line_start(data, start), _line_end(data, end)
    before, after = data[ls:start], data[end:le]
    for opener, closer in _QUOTES.items():
        i = before.rfind(opener)
        if i < 0 or len(before) - i > slack:
            continue
        if opener == closer and before.count(opener, 0, i) % 2 == 1:
            continue  # that mark closes an earlier quote
        j = after.find(closer)
        if 0 <= j <= slack:
            return True
    return False


def in_inline_code(data: bytes, start: int) -> bool:
    ls = _line_start(data, start)
    return data.count(b"`", ls, start) % 2 == 1


def guidance(data: bytes, start: int, end: int) -> bool:
    """The sentence (or the table row or list item it is in) teaches about attacks or lists
    examples of them."""
    if _GUIDANCE.search(sentence(data, start, end)) is not None:
        return True
    ls, le = _line_start(data, start), _line_end(data, end)
    line = data[ls:le]
    # a table row: its other cells say what the row is about
    return line.lstrip()[:1] == b"|" and _GUIDANCE.search(line) is not None


_QUOTE_LINE = re.compile(
    rb"[ \t]*(?:[-*+>]|\d+[.)])?[ \t]*(?:\"[^\"\n]+\"|'[^'\n]+'|\xe2\x80\x9c.+?\xe2\x80\x9d)"
    rb"[ \t,.;]*\r?$"
)


def quoted_line(data: bytes, start: int) -> bool:
    """The whole line is one quotation (an example quoted in a list or a block quote)."""
    ls, le = _line_start(data, start), _line_end(data, start)
    return _QUOTE_LINE.fullmatch(data, ls, le) is not None


def in_string_literal(data: bytes, start: int) -> bool:
    """In code: the match is inside a string literal on its line (data, not a statement)."""
    ls = _line_start(data, start)
    head = data[ls:start].replace(b"\\\\", b"").replace(b'\\"', b"").replace(b"\\'", b"")
    dq, sq = head.count(b'"'), head.count(b"'")
    return dq % 2 == 1 or (sq % 2 == 1 and dq % 2 == 0)


_ARGUMENT_DOC = re.compile(rb"[ \t]*[A-Za-z_][\w.]*[ \t]*(?:\([^)\n]{0,40}\))?[ \t]*:[ \t]")
_HEADING = re.compile(rb"[ \t]{0,3}#{1,6}[ \t]")


def definition_line(data: bytes, start: int) -> bool:
    """The match describes a field or an option named at the start of its line (a list item,
    a table row, a docstring's `name (type): ...`), or titles a section (a heading)."""
    ls = _line_start(data, start)
    for rx in (_DEFINITION, _ARGUMENT_DOC, _HEADING):
        m = rx.match(data, ls, start)
        if m is not None and m.end() <= start:
            return True
    return False


def named_value(data: bytes, start: int, end: int) -> bool:
    """data[start:end] is a bare name in backticks (`bypassPermissions`), not a setting or a
    flag with a value: a value named, e.g. in a list of the modes a tool knows."""
    if not in_inline_code(data, start):
        return False
    open_at = data.rfind(b"`", 0, start)
    close = data.find(b"`", end)
    if open_at < 0 or close < 0:
        return False
    inside = data[open_at + 1 : close]
    return bool(re.fullmatch(rb"[A-Za-z][A-Za-z0-9_-]*", inside))


_PATTERN_LINE = re.compile(
    rb"(?i)\b(?:grep|egrep|rg|sed|awk|match|matches|regex|regexp|pattern|re\.)\b|=~"
)


def pattern_argument(data: bytes, start: int, end: int) -> bool:
    """A command shown inside a quoted pattern (`grep -E "rm -rf /|mkfs"`): matched, not run."""
    ls, le = _line_start(data, start), _line_end(data, end)
    return in_string_literal(data, start) and _PATTERN_LINE.search(data, ls, le) is not None


_IMPERATIVE_HEAD = re.compile(
    rb"(?i)(?:^|\b(?:you|must|should|always|please|then|first|also|just|simply|now|will|can|may|"
    rb"and|so|immediately|quietly|automatically|(?:need|have|want|going|ought|got)\s+to|"
    rb"(?:make\s+sure|remember|be\s+sure|feel\s+free|try)\s+to|go\s+ahead\s+and)|[-*+>#:(]|"
    rb"\d+[.)])[\s*_`\"']*$"
)


def imperative(data: bytes, start: int) -> bool:
    """The match starts its clause as a command ('Skip the confirmations', 'you must bypass
    ...'), not as what a sentence says someone does ('helps analysts bypass protections',
    'a prompt that asks the agent to skip ...')."""
    head = clause_before(data, start)
    return _IMPERATIVE_HEAD.search(head.strip(b" \t")) is not None or not head.strip()


class Headings:
    """The Markdown headings of a text (outside fenced code), to say what section a place is
    in."""

    def __init__(self, data: bytes) -> None:
        from skillprism.core.security.markup import code_map

        code = code_map(data)
        self.starts: list[int] = []
        self.texts: list[bytes] = []
        self.levels: list[int] = []
        for m in re.finditer(rb"(?m)^ {0,3}(#{1,6})[ \t][^\n]*", data):
            if code.inside(m.start()):
                continue
            self.starts.append(m.start())
            self.texts.append(m.group())
            self.levels.append(len(m.group(1)))

    def of(self, pos: int) -> list[bytes]:
        """The headings of the section `pos` is in: its own and each one above it."""
        import bisect

        i = bisect.bisect_right(self.starts, pos) - 1
        out: list[bytes] = []
        level = 7
        while i >= 0 and level > 1:
            if self.levels[i] < level:
                out.append(self.texts[i])
                level = self.levels[i]
            i -= 1
        return out


def teaching_section(headings: Headings, pos: int) -> bool:
    """The section's heading says it is about attacks or threats (a threat model, a list of
    attack patterns, red flags to look for)."""
    return any(_GUIDANCE.search(h) is not None for h in headings.of(pos))


def listed_example(data: bytes, start: int, end: int) -> bool:
    """A command or phrase in backticks or quotes on a line that teaches about attacks ("Red flags
    to look for: `curl ... | sh`, ..."): the line lists examples (its sentences may be cut by
    what the examples hold)."""
    if not (in_inline_code(data, start) or quoted(data, start, end)):
        return False
    ls, le = _line_start(data, start), _line_end(data, end)
    return _GUIDANCE.search(data, ls, le) is not None
