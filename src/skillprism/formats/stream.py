"""Writing output to a terminal or a pipe: colour only where wanted, never a UnicodeEncodeError,
never a control character from a skill.

A skill's name, description or body may hold escape sequences (`\\e[2J` clears the screen,
`\\e]0;...\\a` retitles the window). Text for people is escaped before it is written, by the one
rule `check` uses for its findings (core/display.py, `display_path`), with line breaks and tabs kept
for text that has lines (`terminal_text`). The exact text stays available where it is asked for:
`--format json`, or `--raw` on the commands that print a skill's text.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TextIO

from skillprism.core.display import display_path


def want_color(
    stream: TextIO, no_color: bool = False, env: Mapping[str, str] | None = None
) -> bool:
    """Colour only on a terminal, never with --no-color, NO_COLOR (any non-empty value, see
    no-color.org) or TERM=dumb."""
    env = os.environ if env is None else env
    if no_color or env.get("NO_COLOR") or env.get("TERM") == "dumb":
        return False
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):
        return False


def emit(text: str, stream: TextIO) -> None:
    """Write `text`, escaping what the stream's encoding cannot hold instead of failing."""
    try:
        stream.write(text)
    except UnicodeEncodeError:
        encoding = getattr(stream, "encoding", None) or "ascii"
        data = text.encode(encoding, "backslashreplace")
        buffer = getattr(stream, "buffer", None)
        if buffer is not None:
            stream.flush()
            buffer.write(data)
        else:
            stream.write(data.decode(encoding))
    stream.flush()


def terminal_text(text: str) -> str:
    """`text` safe to write to a terminal: its lines (LF, CRLF) and tabs kept, every other control
    character, escape sequence introducer and undecodable byte spelled out as `check` spells them
    (`\\x1b`, `\\x07`, `\\x9b`, `\\xff`...). Text without such characters comes back unchanged."""
    lines = text.split("\n")
    out = []
    for line in lines:
        crlf = line.endswith("\r")
        body = line[:-1] if crlf else line
        if not body.isprintable():  # what display_path escapes (lone surrogates included)
            body = "\t".join(display_path(part) for part in body.split("\t"))
        out.append(body + "\r" if crlf else body)
    return "\n".join(out)
