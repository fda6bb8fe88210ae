"""Source text -> HTML with Pygments colours as inline styles.

Inline styles (`HtmlFormatter(noclasses=True)`) because QTextBrowser has no stylesheet for Pygments'
classes; the `<pre>` carries its own background and foreground so a fragment is legible even outside
`page.document`. Pygments is imported inside functions: importing this module costs nothing.
"""

from __future__ import annotations

import functools
import html
import os
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING

from skillprism.render._cache import HtmlCache, digest
from skillprism.render.theme import Palette, palette

if TYPE_CHECKING:
    from pygments.formatters.html import HtmlFormatter
    from pygments.lexer import Lexer

# Above this many characters text is shown escaped but uncoloured: lexing megabytes of a resource
# file would hold a worker for seconds and nobody reads colours at that size.
HIGHLIGHT_LIMIT = 400_000

_CACHE = HtmlCache(max_entries=128)

# File names Pygments does not map (or maps to something less useful for skills).
_BY_NAME = {
    "skill.md": "markdown",
    "dockerfile": "docker",
    "makefile": "make",
    ".env": "bash",
}
_BY_SUFFIX = {
    ".md": "markdown",
    ".markdown": "markdown",
    ".yml": "yaml",
    ".yaml": "yaml",
    ".sh": "bash",
    ".bash": "bash",
    ".zsh": "bash",
    ".toml": "toml",
    ".json": "json",
    ".jsonl": "json",
    ".py": "python",
    ".txt": "text",
}
_SHEBANG_LEXERS = {
    "python": "python",
    "python3": "python",
    "sh": "bash",
    "bash": "bash",
    "zsh": "bash",
    "node": "javascript",
    "ruby": "ruby",
    "perl": "perl",
}


@functools.lru_cache(maxsize=64)
def _lexer_by_name(name: str) -> Lexer:
    from pygments.lexers import get_lexer_by_name
    from pygments.lexers.special import TextLexer
    from pygments.util import ClassNotFound

    try:
        # stripnl=False keeps leading/trailing blank lines, so line numbers match the file.
        return get_lexer_by_name(name, stripnl=False, ensurenl=True)
    except ClassNotFound:
        return TextLexer(stripnl=False)


@functools.lru_cache(maxsize=256)
def _lexer_name_for_file(filename: str) -> str | None:
    from pygments.lexers import get_lexer_for_filename
    from pygments.util import ClassNotFound

    base = os.path.basename(filename).lower()
    if base in _BY_NAME:
        return _BY_NAME[base]
    suffix = os.path.splitext(base)[1]
    if suffix in _BY_SUFFIX:
        return _BY_SUFFIX[suffix]
    try:
        return get_lexer_for_filename(base).aliases[0]
    except (ClassNotFound, IndexError):
        return None


@functools.lru_cache(maxsize=256)
def _canonical(name: str) -> str:
    """Pygments' first alias for `name`, or "text" when Pygments has no such lexer."""
    from pygments.lexers.special import TextLexer

    lexer = _lexer_by_name(name)
    if isinstance(lexer, TextLexer) or not lexer.aliases:
        return "text"
    return lexer.aliases[0]


def _shebang_lexer(text: str) -> str | None:
    """`#!/usr/bin/env -S python3 -u` -> "python"; None when there is no known interpreter."""
    if not text.startswith("#!"):
        return None
    words = text[2:200].split("\n", 1)[0].split()
    if not words:
        return None
    program = words[0].rsplit("/", 1)[-1]
    if program == "env":
        rest = [w for w in words[1:] if not w.startswith("-") and "=" not in w]
        program = rest[0].rsplit("/", 1)[-1] if rest else ""
    program = re.sub(r"[\d.]+$", "", program)
    return _SHEBANG_LEXERS.get(program)


def lexer_name(text: str = "", *, filename: str | None = None, language: str | None = None) -> str:
    """The Pygments alias used for this text: language first, then file name, then a shebang."""
    return _canonical(_lexer_choice(text, filename, language))


def _lexer_choice(text: str, filename: str | None, language: str | None) -> str:
    if language:
        lang = language.strip().lower()
        if lang in ("frontmatter", "yml"):
            lang = "yaml"
        if lang in ("sh", "shell", "zsh", "console-script"):
            lang = "bash"
        return lang
    if filename:
        found = _lexer_name_for_file(filename)
        if found:
            return found
    return _shebang_lexer(text) or "text"


@functools.lru_cache(maxsize=4)
def _formatter(style: str) -> HtmlFormatter:
    from pygments.formatters.html import HtmlFormatter

    return HtmlFormatter(noclasses=True, nowrap=True, style=style)


def _coloured_lines(text: str, lang: str, pal: Palette) -> list[str]:
    """One HTML string per source line; Pygments closes its spans at each line end."""
    if len(text) > HIGHLIGHT_LIMIT:
        return [html.escape(line, quote=False) for line in text.split("\n")]
    from pygments import highlight as pyg_highlight

    out = pyg_highlight(text, _lexer_by_name(lang), _formatter(pal.pygments_style))
    if out.endswith("\n"):
        out = out[:-1]
    lines = out.split("\n")
    # Pygments adds a final newline (ensurenl); drop the empty line it leaves if the text had none.
    expected = text.count("\n") + 1
    if text.endswith("\n"):
        expected -= 1
    if len(lines) > expected:
        lines = lines[:expected]
    return lines


def pre_style(pal: Palette) -> str:
    return (
        f"background-color: {pal.code_background}; color: {pal.code_foreground}; "
        "font-family: monospace; padding: 6px; margin-top: 4px; margin-bottom: 8px;"
    )


def _render(text: str, lang: str, dark: bool, line_numbers: bool, marked: frozenset[int]) -> str:
    pal = palette(dark)
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = _coloured_lines(text, lang, pal) if text else []
    if line_numbers or marked:
        width = len(str(max(len(lines), 1)))
        out = []
        for number, line in enumerate(lines, start=1):
            prefix = ""
            if line_numbers:
                prefix = f'<span style="color: {pal.line_number}">{number:>{width}} </span>'
            if number in marked:
                line = (
                    f'<span class="sp-marked" style="background-color: {pal.highlight_line}">'
                    f"{line or ' '}</span>"
                )
            out.append(prefix + line)
        body = "\n".join(out)
    else:
        body = "\n".join(lines)
    return f'<pre class="sp-code" data-lang="{html.escape(lang)}" style="{pre_style(pal)}">{body}</pre>'


def highlight(
    text: str,
    *,
    filename: str | None = None,
    language: str | None = None,
    dark: bool = False,
    line_numbers: bool = False,
    highlight_lines: Iterable[int] = (),
) -> str:
    """`text` as a `<pre>` with inline-styled Pygments spans (an HTML fragment).

    The lexer comes from `language` (a Pygments alias, "frontmatter" = YAML), else `filename`, else a
    shebang, else plain text. `highlight_lines` are 1-based line numbers to mark (diagnostics).
    """
    lang = lexer_name(text, filename=filename, language=language)
    marked = frozenset(int(n) for n in highlight_lines)
    key = ("code", digest(text), lang, dark, line_numbers, tuple(sorted(marked)))
    return _CACHE.get_or_make(key, lambda: _render(text, lang, dark, line_numbers, marked))


def highlight_block(code: str, language: str | None, *, dark: bool) -> str:
    """A Markdown code block: unknown or missing languages become plain text, never guessed."""
    lang = lexer_name(code, language=language) if language else "text"
    return _render(code, lang, dark, False, frozenset())


def clear_cache() -> None:
    _CACHE.clear()
