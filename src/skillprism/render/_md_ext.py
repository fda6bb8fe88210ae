"""The Python-Markdown pieces behind `markdown_html`; imported only when something is rendered.

Raw HTML is never passed through: the block and inline HTML processors are removed, so `<script>`
in a body reaches the serializer as text and is escaped. Links and images are then rewritten on the
element tree (attributes are already plain strings there, before serialisation escapes them).
"""

from __future__ import annotations

import html
import re
import xml.etree.ElementTree as ET

import markdown
from markdown.treeprocessors import Treeprocessor
from markdown.util import AMP_SUBSTITUTE

from skillprism.render.links import REMOTE_SCHEMES, link_kind, normalise_url

LOCAL_IMAGE_ATTR = "data-sp-local"
PLACEHOLDER_CLASS = "sp-placeholder"


def _plain(value: str) -> str:
    """An attribute as the browser would read it: Markdown's `&` marker and entities decoded."""
    return html.unescape(value.replace(AMP_SUBSTITUTE, "&"))


def _placeholder(el: ET.Element, text: str) -> None:
    tail = el.tail
    el.clear()
    el.tag = "span"
    el.set("class", PLACEHOLDER_CLASS)
    el.text = text
    el.tail = tail


class _LinkImageRewriter(Treeprocessor):
    """Classify links, neutralise unsafe ones, and make sure no image is fetched from anywhere."""

    def run(self, root: ET.Element) -> None:
        for el in root.iter():
            if el.tag == "a":
                self._link(el)
            elif el.tag == "img":
                self._image(el)

    @staticmethod
    def _link(el: ET.Element) -> None:
        href = _plain(el.get("href", ""))
        title = el.get("title")
        kind = link_kind(href)
        el.attrib.clear()
        if kind == "blocked":
            # Keep the words, drop the target: the reader still sees what the author wrote.
            el.tag = "span"
            el.set("class", "sp-blocked-link")
            el.set("data-link", "blocked")
            el.set("title", f"link not followed: {href[:200]}")
            return
        if kind == "external" and normalise_url(href).startswith("//"):
            href = "https:" + href.strip()
        el.set("href", href)
        el.set("class", kind)
        el.set("data-link", kind)
        if title:
            el.set("title", _plain(title))

    @staticmethod
    def _image(el: ET.Element) -> None:
        src = _plain(el.get("src", ""))
        alt = _plain(el.get("alt", ""))
        title = el.get("title")
        url = normalise_url(src)
        scheme = url.split(":", 1)[0] if re.match(r"^[a-z][a-z0-9+.\-]*:", url) else ""
        shown = src if len(src) <= 200 else src[:200] + "…"
        if url.startswith("//") or scheme in REMOTE_SCHEMES:
            _placeholder(el, f"[remote image not loaded: {shown}]")
        elif scheme == "data":
            _placeholder(el, "[embedded data: image not loaded]")
        elif scheme or not url:
            _placeholder(el, f"[image not loaded: {shown}]")
        else:
            # A local path: whether it stays inside the skill folder is decided per render by
            # markdown_html._resolve_images, so the cached HTML does not depend on the disk.
            el.attrib.clear()
            el.set(LOCAL_IMAGE_ATTR, "1")
            el.set("src", src)
            el.set("alt", alt)
            if title:
                el.set("title", _plain(title))


def make_markdown() -> markdown.Markdown:
    md = markdown.Markdown(
        extensions=["fenced_code", "tables", "sane_lists", "toc"],
        output_format="html",
    )
    md.preprocessors.deregister("html_block")
    md.inlinePatterns.deregister("html")
    # After "inline" (20) and "toc" (5): every <a>/<img>, including the [TOC] links, exists by now.
    md.treeprocessors.register(_LinkImageRewriter(md), "skillprism_links", 1)
    return md
