"""Text from the file system made safe to show: one finding is always one line.

Paths are bytes on POSIX: a name that is not UTF-8 reaches us with surrogate escapes, and a name
may hold a newline or an escape sequence. `display_path` spells such characters out; `unsurrogate`
spells out only lone surrogates (for JSON and SARIF, which must never hold one)."""

from __future__ import annotations


def unsurrogate(text: str) -> str:
    """`text` with lone surrogates spelled out: `\\xNN` for an undecodable byte (surrogateescape),
    `\\uXXXX` for any other. Strings without them come back unchanged."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        pass
    out = []
    for c in text:
        o = ord(c)
        if 0xDC80 <= o <= 0xDCFF:
            out.append(f"\\x{o - 0xDC00:02x}")
        elif 0xD800 <= o <= 0xDFFF:
            out.append(f"\\u{o:04x}")
        else:
            out.append(c)
    return "".join(out)


def display_path(path: str) -> str:
    """A string safe to print on one line: undecodable bytes and control characters escaped
    (`\\xff`, `\\n`, `\\t`, `\\x1b`...)."""
    safe = unsurrogate(path)
    if safe.isprintable():
        return safe
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in safe)


def home_relative(path: str) -> str:
    """`path` with the home folder written as `~` (how the window names folders)."""
    import os

    home = os.path.expanduser("~")
    return "~" + path[len(home) :] if path == home or path.startswith(home + os.sep) else path
