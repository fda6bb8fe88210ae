"""Pure rendering: Markdown and source text -> HTML strings for previews and reports.

No Qt here. Markdown and Pygments are imported on first use, so importing this package is cheap.
"""

from __future__ import annotations

from skillprism.render.code_html import highlight
from skillprism.render.links import link_kind
from skillprism.render.markdown_html import render_markdown
from skillprism.render.page import document, stylesheet

__all__ = ["document", "highlight", "link_kind", "render_markdown", "stylesheet"]
