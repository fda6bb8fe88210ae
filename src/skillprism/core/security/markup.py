"""Text that a Markdown renderer hides but the agent reads: HTML comments, hidden elements,
link reference definitions used as comments, prose in attributes.

Only Markdown-like files are looked at, and only when they hold `<` or `]:` at all. Fenced code
blocks are skipped (a renderer shows their content literally)."""

from __future__ import annotations

import bisect
import re

from skillprism.core.diagnostics import Severity
from skillprism.core.security.patterns import compile_bytes

_FENCE = compile_bytes(r"(?m)^ {0,3}(`{3,}|~{3,})")
_COMMENT_OPEN = b"<!--"
# (Whole-file patterns without counted repetitions, which RE2 runs slowest; the code checks
# lengths.)
_HIDDEN_OPEN = compile_bytes(
    r"(?i)<([a-z][a-z0-9-]*)\b[^>\n]*?(?:\shidden(?:[\s>=/]|$)|display\s*:\s*none|"
    r"visibility\s*:\s*hidden|font-size\s*:\s*0(?:px|em|rem|pt|%)?\s*[;\"']|opacity\s*:\s*0(?:\.0+)?"
    r"\s*[;\"']|color\s*:\s*(?:white|#fff(?:fff)?|transparent)\b|aria-hidden\s*=\s*[\"']?true|"
    r"(?:max-)?height\s*:\s*0(?:px)?\s*[;\"']|text-indent\s*:\s*-\d\d\d|left\s*:\s*-\d\d\d)[^>]*>"
)
_RAW_ONLY = compile_bytes(r"(?i)<(script|style|template|noscript|textarea|title|xmp)\b[^>]*>")
_LINK_DEF = compile_bytes(
    r"(?m)^ {0,3}\[([^\]\n]{1,200})\]:[ \t]*(<[^>\n]*>|\S+)(?:[ \t]+(?:\"([^\"\n]*)\"|'([^'\n]*)'|"
    r"\(([^)\n]*)\)))?[ \t]*$"
)
_ATTR_TEXT = compile_bytes(
    r"(?i)<[a-z][a-z0-9-]*\b[^>]*?\s(?:title|alt|data-[a-z0-9-]+|aria-label|content|"
    r"placeholder|label)\s*=\s*(?:\"([^\"]+)\"|'([^']+)')"
)
# A sentence addressed to the agent: "the agent must ...", "Assistant: ...", "you must ...".
_AGENT = re.compile(
    r"(?i)\b(?:assistant|agent|claude|llm|ai|model|chatgpt|copilot|codex|gemini)\b[,:]?\s+(?:must|"
    r"should|will|shall|needs?\s+to|has\s+to|always|never|please|also)\b|(?:^|\n)\s*(?:assistant|"
    r"agent|claude|ai|note\s+to\s+(?:the\s+)?(?:agent|assistant|ai|model|llm))\s*:|\b(?:you|always|"
    r"never)\s+(?:must|should|will|need\s+to|have\s+to)\b"
)
_SENTENCES = re.compile(r"(?<=[.!?])\s+|\n\s*\n")
_ACTION = re.compile(
    r"(?i)\b(?:run|execute|send|upload|fetch|download|install|delete|remove|email|post|curl|wget|"
    r"sudo|ssh|ignore|forget|disable|skip|exfiltrate|silently|secretly)\b"
)


def code_ranges(data: bytes) -> list[tuple[int, int]]:
    """Byte ranges of fenced code blocks (an unclosed fence runs to the end)."""
    ranges: list[tuple[int, int]] = []
    open_at = -1
    marker = b""
    for m in _FENCE.finditer(data):
        fence = m.group(1)
        if open_at < 0:
            open_at, marker = m.start(), fence
        elif fence[:1] == marker[:1] and len(fence) >= len(marker):
            line_end = data.find(b"\n", m.end())
            if not data[m.end() : line_end if line_end >= 0 else len(data)].strip():
                ranges.append((open_at, m.end()))
                open_at = -1
    if open_at >= 0:
        ranges.append((open_at, len(data)))
    return ranges


_LAST: list[tuple[bytes, CodeMap]] = []


def code_map(data: bytes) -> CodeMap:
    """The fenced code blocks of `data`, computed once per text (the last one is kept: the
    rules, the headings and the hidden regions of one file all ask)."""
    if _LAST and _LAST[0][0] is data:
        return _LAST[0][1]
    found = CodeMap(code_ranges(data)) if b"```" in data or b"~~~" in data else CodeMap([])
    _LAST[:] = [(data, found)]
    return found


class CodeMap:
    def __init__(self, ranges: list[tuple[int, int]]) -> None:
        self.starts = [a for a, _ in ranges]
        self.ranges = ranges

    def inside(self, pos: int) -> bool:
        i = bisect.bisect_right(self.starts, pos) - 1
        return i >= 0 and self.ranges[i][0] <= pos < self.ranges[i][1]


def _in_inline_code(data: bytes, pos: int) -> bool:
    start = data.rfind(b"\n", 0, pos) + 1
    return data.count(b"`", start, pos) % 2 == 1


def classify(text: str) -> Severity:
    """How much hidden text matters: addressed to the agent and asking for an action is a
    warning; an author's note is info."""
    for part in _SENTENCES.split(text[:20_000]):
        if _AGENT.search(part) and _ACTION.search(part):
            return Severity.WARNING
    return Severity.INFO


def hidden_regions(data: bytes) -> list[tuple[str, int, int, str, str]]:
    """(rule, start, end, what, hidden text) of each hidden region of a Markdown file."""
    out: list[tuple[str, int, int, str, str]] = []
    # The code blocks (`code_map` keeps the last text's) and the lowered text are worked out only
    # for a text that holds a candidate (most hold none: their `<` is a placeholder or a tag that
    # hides nothing).
    lowered: list[bytes] = []

    def lower() -> bytes:
        # (a closure: a cache wrapper costs more to make than most texts ever ask of it)
        if not lowered:
            lowered.append(data.lower())
        return lowered[0]

    if _COMMENT_OPEN in data:
        pos = data.find(_COMMENT_OPEN)
        count = 0
        while pos >= 0 and count < 1000:
            count += 1
            end = data.find(b"-->", pos + 4)
            stop = len(data) if end < 0 else end + 3
            if not code_map(data).inside(pos) and not _in_inline_code(data, pos):
                inner = data[pos + 4 : stop - (3 if end >= 0 else 0)]
                what = "HTML comment" if end >= 0 else "HTML comment never closed (hides the rest)"
                out.append(("hidden-comment", pos, stop, what, inner.decode("utf-8", "replace")))
            pos = data.find(_COMMENT_OPEN, stop)
    if b"<" in data:
        for m in _HIDDEN_OPEN.finditer(data):
            if code_map(data).inside(m.start()) or _in_inline_code(data, m.start()):
                continue
            tag = m.group(1).decode("ascii", "replace").lower()
            close = lower().find(b"</" + tag.encode(), m.end(), m.end() + 200_000)
            inner = data[m.end() : close if close >= 0 else min(len(data), m.end() + 2000)]
            text = re.sub(r"<[^>]*>", " ", inner.decode("utf-8", "replace")).strip()
            if text:
                what = f"<{tag}> hidden by its attributes"
                out.append(("hidden-element", m.start(), m.end() + len(inner), what, text))
        for m in _RAW_ONLY.finditer(data):
            if code_map(data).inside(m.start()) or _in_inline_code(data, m.start()):
                continue
            tag = m.group(1).decode("ascii").lower()
            close = lower().find(b"</" + tag.encode(), m.end(), m.end() + 200_000)
            inner = data[m.end() : close if close >= 0 else min(len(data), m.end() + 2000)]
            text = inner.decode("utf-8", "replace").strip()
            if text:
                what = f"<{tag}> content, which renderers do not show"
                out.append(("hidden-element", m.start(), m.end() + len(inner), what, text))
        for m in _ATTR_TEXT.finditer(data):
            if code_map(data).inside(m.start()) or _in_inline_code(data, m.start()):
                continue
            raw = m.group(1) or m.group(2) or b""
            if not 40 <= len(raw) <= 1000:
                continue
            text = raw.decode("utf-8", "replace")
            if len(text.split()) >= 6:
                out.append(("hidden-attribute-text", m.start(), m.end(), "attribute text", text))
    if b"]:" in data:
        for m in _LINK_DEF.finditer(data):
            if code_map(data).inside(m.start()):
                continue
            label = m.group(1)
            dest = m.group(2)
            title = m.group(3) or m.group(4) or m.group(5) or b""
            used = data.count(b"[" + label + b"]") > 1 or (b"][" + label + b"]") in data
            if used and dest not in (b"#", b"<>", b"//"):
                continue
            text = (title or dest).decode("utf-8", "replace")
            if not text.strip("#<>/ "):
                continue
            out.append(("hidden-link-definition", m.start(), m.end(), "link definition", text))
    return out
