"""Unified diffs of a file's bytes before and after a change, in the form `git apply` reads:
`a/` and `b/` paths, lines cut at "\\n" as git cuts them (a CRLF line keeps its CR), and the
"\\ No newline at end of file" marker where a side's last line has no line end."""

from __future__ import annotations

import difflib
import re

# Lines as git cuts them: at "\n" only (a CRLF line keeps its CR; a CR-only file is one line).
_LINES = re.compile(r"[^\n]*\n|[^\n]+$")
NO_NEWLINE = "\\ No newline at end of file\n"


def _lines(text: str) -> list[str]:
    return [m.group(0) for m in _LINES.finditer(text) if m.group(0)]


def renamed(path: str, new_path: str) -> str:
    """The diff entry that renames `path` to `new_path`, its content unchanged."""
    return (
        f"diff --git a/{path} b/{new_path}\nsimilarity index 100%\n"
        f"rename from {path}\nrename to {new_path}\n"
    )


def unified_diff(
    old: bytes, new: bytes, path: str, context: int = 3, new_path: str | None = None
) -> str:
    """The unified diff from `old` to `new` (UTF-8 text, a BOM kept as a character) of the file
    at `path` (relative, '/'-separated; renamed to `new_path` when given), '' when nothing
    changes."""
    to = new_path or path
    if old == new:
        return renamed(path, to) if to != path else ""
    a, b = _lines(old.decode("utf-8")), _lines(new.decode("utf-8"))
    out = [f"diff --git a/{path} b/{to}\n"]
    if to != path:
        out.append(f"rename from {path}\nrename to {to}\n")
    out += [f"--- a/{path}\n", f"+++ b/{to}\n"]
    for group in difflib.SequenceMatcher(None, a, b, autojunk=False).get_grouped_opcodes(context):
        i1, i2, j1, j2 = group[0][1], group[-1][2], group[0][3], group[-1][4]
        out.append(f"@@ -{_range(i1, i2)} +{_range(j1, j2)} @@\n")
        for tag, x1, x2, y1, y2 in group:
            if tag == "equal":
                out.extend(_line(" ", a[k]) for k in range(x1, x2))
                continue
            out.extend(_line("-", a[k]) for k in range(x1, x2))
            out.extend(_line("+", b[k]) for k in range(y1, y2))
    return "".join(out)


def _range(start: int, end: int) -> str:
    n = end - start
    if n == 0:
        return f"{start},0"
    return f"{start + 1}" if n == 1 else f"{start + 1},{n}"


def _line(mark: str, line: str) -> str:
    if line.endswith("\n"):
        return mark + line
    # Only a file's last line can lack a line end.
    return mark + line + "\n" + NO_NEWLINE
