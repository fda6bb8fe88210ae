"""Undoing the usual shell disguises, line by line, so the command rules see the command that
would run: quotes and backslashes inside words (`c''u"r"l`), `${IFS}`, line continuations,
`$'\\x63'` and `printf '\\x63'` escapes, `$(echo ...|base64 -d)` of a literal, and variables set
from literals earlier in the file (`a=cu; b=rl; $a$b`). Bounded: at most `max_lines` lines, 500
variables, 4 KB per line after substitution."""

from __future__ import annotations

import base64
import binascii
import re

_ASSIGN = re.compile(
    r"^\s*(?:export\s+|local\s+|declare\s+(?:-\w+\s+)?|readonly\s+)?([A-Za-z_]\w{0,63})=(.*)$"
)
_VAR = re.compile(r"\$\{([A-Za-z_]\w{0,63})\}|\$([A-Za-z_]\w{0,63})")
_IFS = re.compile(r"\$\{IFS[^}]{0,10}\}|\$IFS\b")
_ANSI_C = re.compile(r"\$'((?:\\x[0-9a-fA-F]{1,2}|\\[0-7]{1,3}|\\u[0-9a-fA-F]{4}|[^'\\]){1,400})'")
_PRINTF = re.compile(
    r"\$\(\s*(?:printf|echo\s+-e|echo\s+-ne)\s+[\"']((?:\\x[0-9a-fA-F]{2}|\\[0-7]{3}|[^\"'\\]){1,400})[\"']\s*\)"
)
_ECHO_B64 = re.compile(
    r"\$\(\s*(?:echo|printf)\s+(?:-n\s+)?[\"']?([A-Za-z0-9+/=]{4,2000})[\"']?\s*\|\s*base64\s+"
    r"(?:-d|--decode|-D)\s*\)"
)
_QUOTES_IN_WORD = re.compile(
    r"(?<=[\w/.-])(?:''|\"\")(?=[\w/.-])|(?<=[\w/.-])['\"](\w{1,40})['\"](?=[\w/.-]|\s|$)"
)
_BACKSLASH_LETTER = re.compile(r"\\(?=[a-zA-Z])")
MAX_LINE = 4096


def _unescape(s: str) -> str:
    def rep(m: re.Match[str]) -> str:
        t = m.group(0)
        try:
            if t.startswith("\\x"):
                return chr(int(t[2:], 16))
            if t.startswith("\\u"):
                return chr(int(t[2:], 16))
            return chr(int(t[1:], 8))
        except ValueError:
            return t

    return re.sub(r"\\x[0-9a-fA-F]{1,2}|\\u[0-9a-fA-F]{4}|\\[0-7]{1,3}", rep, s)


def _b64(m: re.Match[str]) -> str:
    raw = m.group(1)
    try:
        out = base64.b64decode(raw + "=" * (-len(raw) % 4)).decode("utf-8")
    except (binascii.Error, ValueError, UnicodeError):
        return m.group(0)
    return out if out.isprintable() else m.group(0)


def needs_normalising(text: str) -> bool:
    return any(s in text for s in ("''", '""', "\\", "IFS", "$'", "printf", "echo", "$"))


def normalise(text: str, max_lines: int) -> list[tuple[int, str]]:
    """(1-based line, normalised text) of each line that normalising changed."""
    variables: dict[str, str] = {}
    out: list[tuple[int, str]] = []
    lines = text.split("\n", max_lines)[:max_lines]
    pending = ""
    pending_line = 0
    for i, raw in enumerate(lines, 1):
        if raw.endswith("\\") and len(pending) < MAX_LINE:
            if not pending:
                pending_line = i
            pending += raw[:-1] + " "
            continue
        line_no = pending_line if pending else i
        line = (pending + raw)[:MAX_LINE]
        pending = ""
        # (each substitution only where the characters it needs are: most lines hold none)
        new = _IFS.sub(" ", line) if "IFS" in line else line
        if "$" in new:
            if "$'" in new:
                new = _ANSI_C.sub(lambda m: _unescape(m.group(1)), new)
            if "$(" in new:
                new = _PRINTF.sub(lambda m: _unescape(m.group(1)), new)
                new = _ECHO_B64.sub(_b64, new)
        if "'" in new or '"' in new:
            new = _QUOTES_IN_WORD.sub(lambda m: m.group(1) or "", new)
        if "\\" in new:
            new = _BACKSLASH_LETTER.sub("", new)
        segments = []
        for seg in new.split(";") if "=" in new else [new]:
            if variables and "$" in seg:
                seg = _VAR.sub(lambda m: variables.get(m.group(1) or m.group(2), m.group(0)), seg)
            a = _ASSIGN.match(seg)
            if a and len(variables) < 500:
                value = a.group(2).strip()
                if value[:1] in ("'", '"') and value[-1:] == value[:1] and len(value) >= 2:
                    value = value[1:-1]
                if "$(" not in value and "`" not in value:
                    variables[a.group(1)] = value[:500]
            segments.append(seg)
        new = ";".join(segments)[:MAX_LINE]
        if new != line:
            out.append((line_no, new))
    return out
