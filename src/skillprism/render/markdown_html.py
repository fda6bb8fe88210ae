"""A skill body (Markdown) -> a safe HTML fragment for QTextBrowser previews and reports.

Safety, since bodies are untrusted:
- raw HTML is escaped, never passed through (no tags, attributes or event handlers of the author's);
- links keep their target only for http(s)/mailto, relative files and #anchors, each marked with
  `class` and `data-link` = external | resource | anchor; anything else (`javascript:`, `data:`,
  `file:`...) becomes plain text marked `blocked`;
- no image is ever fetched: remote and `data:` images become a text placeholder; a local image is
  shown (as a file:// URL) only when its real path is a file inside `base_dir`.

Code blocks are coloured by Pygments with inline styles (see `code_html`). The Markdown-to-HTML step
is cached by the sha256 of the text and the palette; image resolution against `base_dir` runs on
every call (cheap), so an image added or removed later is seen without clearing the cache.
Markdown and Pygments are imported on first use, not when this module is imported.
"""

from __future__ import annotations

import html
import os
import re
import secrets
import threading
from pathlib import Path
from urllib.parse import unquote

from skillprism.render._cache import HtmlCache, digest
from skillprism.render.code_html import highlight_block
from skillprism.render.links import LinkKind, link_kind
from skillprism.render.theme import palette

__all__ = ["MARKDOWN_LIMIT", "LinkKind", "clear_cache", "link_kind", "render_markdown"]

# Python-Markdown renders roughly 300 KB/s. Past this many characters the rest of the body is shown
# as escaped plain text, so a hostile 2 MB body costs about a second instead of ten.
MARKDOWN_LIMIT = 250_000

# See _prepare. Inline processing costs about (inline markers x paragraph length) x 2.5 ns, and
# each "[" scans ahead in Python (x 180 ns); these bound a paragraph to ~0.3 s, a body to ~1.5 s.
BLOCK_LIMIT = 30_000
INLINE_BUDGET = 100_000_000
TOTAL_INLINE_BUDGET = 600_000_000
BRACKET_BUDGET = 3_000_000
_INLINE_MARKERS = "[`*_&\\<!"

_CACHE = HtmlCache(max_entries=64)
_LOCAL = threading.local()

_CODE_BLOCK = re.compile(r"<pre><code([^>]*)>(.*?)</code></pre>", re.DOTALL)
_LANG = re.compile(r'class="language-([^"\s]+)')
_LOCAL_IMG = re.compile(r'<img\b[^>]*\bdata-sp-local="1"[^>]*>')
_IMG_ATTR = re.compile(r'([a-z][a-z-]*)="([^"]*)"')
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")

# Everything Python-Markdown (with our extensions) and our own rewriting can emit. Raw HTML is
# escaped before this point; the check below is a second line of defence, not the mechanism.
_ALLOWED_TAGS = frozenset(
    [
        "p",
        "br",
        "hr",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "ul",
        "ol",
        "li",
        "blockquote",
        "pre",
        "code",
        "em",
        "strong",
        "a",
        "img",
        "span",
        "div",
        "table",
        "thead",
        "tbody",
        "tr",
        "th",
        "td",
    ]
)
_ALLOWED_ATTRS = frozenset(
    [
        "href",
        "src",
        "alt",
        "title",
        "id",
        "class",
        "style",
        "data-link",
        "data-lang",
        "data-sp-local",
        "start",
        "align",
    ]
)
_TAG = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9]*)((?:\s+[^\s=>/]+(?:=\"[^\"]*\")?)*)\s*/?>")
_ATTR = re.compile(r"([^\s=>/]+)(?:=\"[^\"]*\")?")


def _markdown():  # -> markdown.Markdown, one per thread (instances keep state between calls)
    md = getattr(_LOCAL, "md", None)
    if md is None:
        from skillprism.render._md_ext import make_markdown

        md = _LOCAL.md = make_markdown()
    return md


def _split_at_limit(text: str, limit: int) -> tuple[str, str]:
    """Cut at a blank line outside a code fence near `limit`, so the head stays well-formed."""
    if len(text) <= limit:
        return text, ""
    cut = 0
    fence: str | None = None
    pos = 0
    for line in text[:limit].splitlines(keepends=True):
        pos += len(line)
        match = _FENCE.match(line)
        if match:
            mark = match.group(1)
            if fence is None:
                fence = mark
            elif mark[0] == fence[0] and len(mark) >= len(fence) and not line.strip(" `~\n\r"):
                fence = None
        elif fence is None and not line.strip():
            cut = pos
    if cut == 0:
        cut = limit
    return text[:cut], text[cut:]


def _prepare(text: str) -> tuple[str, dict[str, str]]:
    """Keep Python-Markdown linear: set aside giant paragraphs, defuse bracket storms.

    Inline processing rebuilds a paragraph's string once per inline match, and each `[` scans to the
    paragraph's end for its `]`: both grow with the square of the paragraph (200 KB of `code`
    spans in one paragraph took 15 s, 20,000 unmatched `[` over a minute). So a run of non-blank
    lines longer than BLOCK_LIMIT, or dense with inline markers beyond the budgets, is replaced by
    a token and shown as plain text; in a smaller one where (brackets x length) exceeds
    BRACKET_BUDGET the brackets become `&#91;` (shown literally, no links). Ordinary paragraphs are far below both limits. Fenced code is never touched.
    Returns the text to convert and token -> raw text of the blocks set aside.
    """
    small = len(text) < BLOCK_LIMIT and _inline_cost(text) <= INLINE_BUDGET
    if small and text.count("[") * len(text) <= BRACKET_BUDGET:
        return text, {}
    nonce = secrets.token_hex(8)
    aside: dict[str, str] = {}
    out: list[str] = []
    block: list[str] = []
    spent = 0

    def flush() -> None:
        nonlocal spent
        if not block:
            return
        chunk = "".join(block)
        block.clear()
        cost = _inline_cost(chunk)
        over_total = spent + cost > TOTAL_INLINE_BUDGET and cost > 1_000_000
        if len(chunk) > BLOCK_LIMIT or cost > INLINE_BUDGET or over_total:
            token = f"spblock{nonce}n{len(aside)}"
            aside[token] = chunk
            out.append(f"\n{token}\n\n")
            return
        spent += cost
        if chunk.count("[") * len(chunk) > BRACKET_BUDGET:
            chunk = chunk.replace("[", "&#91;")  # an entity: a preceding "\\" cannot undo it
        out.append(chunk)

    fence: str | None = None
    for line in text.splitlines(keepends=True):
        match = _FENCE.match(line)
        if fence is not None or match:
            flush()
            out.append(line)
            if match:
                mark = match.group(1)
                if fence is None:
                    fence = mark
                elif mark[0] == fence[0] and len(mark) >= len(fence):
                    fence = None
        elif not line.strip():
            flush()
            out.append(line)
        else:
            block.append(line)
    flush()
    return "".join(out), aside


def _inline_cost(chunk: str) -> int:
    return sum(chunk.count(c) for c in _INLINE_MARKERS) * len(chunk)


def _restore_aside(body: str, aside: dict[str, str], colour: str) -> str:
    for token, raw in aside.items():
        plain = (
            f'<p><span class="sp-placeholder" style="color: {colour}">[paragraph of '
            f"{len(raw):,} characters shown as plain text]</span></p>\n"
            f'<pre class="sp-plain">{html.escape(raw, quote=False)}</pre>'
        )
        wrapped = f"<p>{token}</p>"
        body = body.replace(wrapped if wrapped in body else token, plain, 1)
    return body


def _highlight_code_blocks(out: str, dark: bool) -> str:
    def repl(match: re.Match[str]) -> str:
        lang_match = _LANG.search(match.group(1))
        code = html.unescape(match.group(2))
        return highlight_block(code, lang_match.group(1) if lang_match else None, dark=dark)

    return _CODE_BLOCK.sub(repl, out)


def _defuse(out: str) -> str:
    """Escape any tag or attribute outside the allowlist (should never trigger)."""

    def check(match: re.Match[str]) -> str:
        tag = match.group(2).lower()
        attrs = [a.lower() for a in _ATTR.findall(match.group(3) or "")]
        if tag in _ALLOWED_TAGS and all(a in _ALLOWED_ATTRS for a in attrs):
            return match.group(0)
        return html.escape(match.group(0), quote=False)

    out = _TAG.sub(check, out)
    # A "<" that starts something the tag pattern did not recognise (comments, odd syntax).
    return re.sub(r"<(?![A-Za-z/])", "&lt;", out)


def _convert(text: str, dark: bool) -> str:
    head, tail = _split_at_limit(text, MARKDOWN_LIMIT)
    pal = palette(dark)
    md = _markdown()
    try:
        md.reset()
        prepared, aside = _prepare(head)
        body = md.convert(prepared)
    except Exception as exc:  # a pathological body must not take the preview down
        md.reset()
        _LOCAL.md = None
        body = (
            f'<p><span class="sp-placeholder">[Markdown could not be rendered '
            f"({type(exc).__name__}); shown as plain text]</span></p>\n"
            f'<pre class="sp-plain">{html.escape(head, quote=False)}</pre>'
        )
        return _defuse(body) + _tail_html(tail, pal.muted)
    body = _defuse(_highlight_code_blocks(body, dark))
    # After _defuse: the raw text is escaped here and contains no markup to check.
    return _restore_aside(body, aside, pal.muted) + _tail_html(tail, pal.muted)


def _tail_html(tail: str, colour: str) -> str:
    if not tail:
        return ""
    return (
        f'\n<p><span class="sp-placeholder" style="color: {colour}">[document too long: the last '
        f"{len(tail):,} characters are shown as plain text]</span></p>\n"
        f'<pre class="sp-plain">{html.escape(tail, quote=False)}</pre>'
    )


def _inside(path: str, root: str) -> bool:
    try:
        return os.path.commonpath([path, root]) == root
    except ValueError:  # different drives on Windows
        return False


def _resolve_images(out: str, base_dir: str | None) -> str:
    if "data-sp-local" not in out:
        return out
    root = os.path.realpath(base_dir) if base_dir else None

    def repl(match: re.Match[str]) -> str:
        attrs = dict(_IMG_ATTR.findall(match.group(0)))
        src = html.unescape(attrs.get("src", ""))
        alt, title = attrs.get("alt", ""), attrs.get("title")
        shown = html.escape(src if len(src) <= 200 else src[:200] + "…", quote=False)
        if root is None:
            return (
                f'<span class="sp-placeholder">[image not loaded (no skill folder): {shown}]</span>'
            )
        rel = unquote(src.split("#", 1)[0].split("?", 1)[0])
        if "\x00" in rel or not rel:
            return f'<span class="sp-placeholder">[image not loaded: {shown}]</span>'
        target = os.path.realpath(os.path.join(root, rel))
        if not _inside(target, root) or target == root:
            return f'<span class="sp-placeholder">[image outside the skill folder: {shown}]</span>'
        if not os.path.isfile(target):
            return f'<span class="sp-placeholder">[image not found: {shown}]</span>'
        url = html.escape(Path(target).as_uri())
        extra = f' title="{title}"' if title else ""
        return f'<img src="{url}" alt="{alt}"{extra}>'

    return _LOCAL_IMG.sub(repl, out)


def render_markdown(text: str, *, base_dir: str | None = None, dark: bool = False) -> str:
    """`text` (a SKILL.md body, or any Markdown) as a safe HTML fragment; see the module docstring."""
    out = _CACHE.get_or_make(("md", digest(text), dark), lambda: _convert(text, dark))
    return _resolve_images(out, base_dir)


def clear_cache() -> None:
    _CACHE.clear()
