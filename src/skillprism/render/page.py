"""A full HTML document around a rendered fragment, styled for QTextBrowser and for reports.

The CSS keeps to what Qt's rich-text engine understands (colours, font families, margins, padding,
table borders, background colours on blocks); browsers render it the same way. The
Content-Security-Policy meta tag is for reports opened in a browser: even if something slipped
through, nothing remote is fetched and no script runs. Qt ignores it.
"""

from __future__ import annotations

import html

from skillprism.render.theme import Palette, palette

CSP = "default-src 'none'; img-src file: 'self'; style-src 'unsafe-inline'"


def stylesheet(dark: bool = False) -> str:
    """The CSS of `document`; the GUI may also set it as a QTextDocument default stylesheet."""
    p: Palette = palette(dark)
    return f"""
body {{ background-color: {p.background}; color: {p.foreground};
  font-family: sans-serif; margin: 8px; }}
h1, h2, h3, h4, h5, h6 {{ color: {p.foreground}; margin-top: 14px; margin-bottom: 6px; }}
p {{ margin-top: 4px; margin-bottom: 8px; }}
a {{ color: {p.link}; }}
a.resource {{ color: {p.link}; }}
code {{ font-family: monospace; background-color: {p.code_background}; }}
pre {{ font-family: monospace; background-color: {p.code_background};
  color: {p.code_foreground}; margin-top: 4px; margin-bottom: 8px; }}
blockquote {{ color: {p.muted}; margin-left: 12px; }}
table {{ border-collapse: collapse; margin-top: 4px; margin-bottom: 8px; }}
th, td {{ border: 1px solid {p.border}; padding: 4px; }}
th {{ background-color: {p.code_background}; }}
hr {{ color: {p.border}; }}
.sp-placeholder {{ color: {p.placeholder}; font-style: italic; }}
.sp-blocked-link {{ color: {p.muted}; text-decoration: line-through; }}
""".strip()


def document(body_html: str, *, dark: bool = False, title: str = "") -> str:
    """`body_html` wrapped in a complete HTML page with the light or dark stylesheet."""
    p = palette(dark)
    return (
        "<!DOCTYPE html>\n"
        '<html><head><meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">\n'
        f"<title>{html.escape(title)}</title>\n"
        f"<style>\n{stylesheet(dark)}\n</style></head>\n"
        f'<body bgcolor="{p.background}" text="{p.foreground}">\n{body_html}\n</body></html>\n'
    )
