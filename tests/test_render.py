"""render: Markdown and code -> safe, highlighted HTML for QTextBrowser previews and reports."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import urllib.request
from html.parser import HTMLParser
from pathlib import Path

import pytest

from skillprism.render import code_html, markdown_html
from skillprism.render.code_html import highlight
from skillprism.render.links import link_kind
from skillprism.render.markdown_html import render_markdown
from skillprism.render.page import document

STYLED_SPAN = re.compile(r'<span style="[^"]*color: ?#[0-9A-Fa-f]{3,6}')

BODY = """# Title

## Second heading

- one
- two

1. first
2. second

| name | value |
|------|------:|
| a    | 1     |

```python
def greet(name):  # say hello
    return f"hi {name}"
```

Inline `code` here.
"""


@pytest.fixture(autouse=True)
def _fresh_caches() -> None:
    markdown_html.clear_cache()
    code_html.clear_cache()


def _anchors(out: str) -> dict[str, str]:
    """href -> link kind, for every <a> in the output."""
    found = {}
    for tag in re.findall(r"<a\b[^>]*>", out):
        href = re.search(r'href="([^"]*)"', tag)
        kind = re.search(r'data-link="([^"]*)"', tag)
        assert href and kind, tag
        assert f'class="{kind.group(1)}"' in tag
        found[href.group(1)] = kind.group(1)
    return found


# --- structure and highlighting -------------------------------------------------------------


def test_headings_lists_tables_and_code() -> None:
    out = render_markdown(BODY)
    assert '<h1 id="title">Title</h1>' in out
    assert '<h2 id="second-heading">' in out
    assert "<ul>" in out and "<ol>" in out and out.count("<li>") == 4
    assert "<table>" in out and "<th>name</th>" in out and "<td>a</td>" in out
    assert '<pre class="sp-code" data-lang="python"' in out
    assert STYLED_SPAN.search(out), "code should carry inline colour spans"
    assert "greet" in out and "<code>code</code>" in out
    assert "class=" not in re.sub(r'class="(sp-[a-z-]+|external|resource|anchor)"', "", out)


def test_dark_and_light_differ_and_are_both_coloured() -> None:
    light = render_markdown(BODY)
    dark = render_markdown(BODY, dark=True)
    assert light != dark
    assert STYLED_SPAN.search(dark)
    assert "#161b22" in dark and "#f6f8fa" in light  # code block backgrounds
    assert document(light) != document(light, dark=True)


def test_unknown_or_missing_language_is_plain_text() -> None:
    out = render_markdown("```nosuchlang\nx = 1\n```\n\n    indented <b>\n")
    assert out.count('data-lang="text"') == 2
    assert "indented &lt;b&gt;" in out


def test_result_is_cached_by_content() -> None:
    first = render_markdown(BODY)
    assert markdown_html._CACHE.misses == 1
    assert render_markdown(BODY) == first
    assert markdown_html._CACHE.hits == 1
    render_markdown(BODY, dark=True)
    assert markdown_html._CACHE.misses == 2
    highlight("x = 1\n", language="python")
    highlight("x = 1\n", language="python")
    assert code_html._CACHE.hits == 1


# --- untrusted bodies -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "raw",
    [
        "<script>alert(1)</script>",
        "Text <script>alert(1)</script> inline",
        "<div>\n<script>alert(1)</script>\n</div>",
        '<img src=x onerror="alert(1)">',
        "before <img src=x onerror=alert(1)> after",
        "<iframe src='https://evil'></iframe>",
        "<style>body{display:none}</style>",
        "<object data=x></object>",
        '<a href="javascript:alert(1)">x</a>',
        "<svg onload=alert(1)>",
        "<!-- <script>alert(1)</script> -->",
    ],
)
def test_raw_html_is_escaped(raw: str) -> None:
    out = render_markdown(raw)
    lowered = out.lower()
    for tag in ("<script", "<img", "<iframe", "<style", "<object", "<svg", "<!--"):
        assert tag not in lowered
    assert not [a for _, a in _parsed(out) if a.startswith("on")]
    assert {tag for tag, _ in _parsed(out)} <= {"p", "div", "span", "a", "h1", "pre", "code"}
    assert "&lt;" in out


class _Attrs(HTMLParser):
    """Every (tag, attribute name) an HTML parser sees: what a browser would act on."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[tuple[str, str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.seen.extend((tag, name) for name, _ in attrs)
        self.seen.append((tag, ""))


def _parsed(out: str) -> list[tuple[str, str]]:
    parser = _Attrs()
    parser.feed(out)
    parser.close()
    return parser.seen


def test_markdown_image_and_link_attributes_cannot_break_out(tmp_path: Path) -> None:
    (tmp_path / "a.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    out = render_markdown(
        '![x" onerror="alert(1)](a.png "t\\" onload=\\"x") [y](https://e.org "a\\" onclick=\\"b")',
        base_dir=str(tmp_path),
    )
    seen = _parsed(out)
    assert ("img", "src") in seen and ("a", "href") in seen
    assert not [a for _, a in seen if a.startswith("on")]


@pytest.mark.parametrize(
    "href",
    [
        "javascript:alert(1)",
        "JaVaScRiPt:alert(1)",
        "&#106;avascript:alert(1)",
        "java%0Ascript:alert(1)",
        "vbscript:msgbox(1)",
        "data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==",
        "file:///etc/passwd",
    ],
)
def test_unsafe_links_are_neutralised(href: str) -> None:
    out = render_markdown(f"[click]({href}) and <{href}>")
    assert "<a " not in out
    assert 'data-link="blocked"' in out and ">click</span>" in out
    assert not re.search(r'href="\s*(javascript|vbscript|data|file):', out, re.I)


def test_link_kind_for_tricky_urls() -> None:
    assert link_kind("java\tscript:alert(1)") == "blocked"
    assert link_kind(" javascript:x") == "blocked"
    assert link_kind("C:\\Windows") == "blocked"
    assert link_kind("\\\\server\\share") == "blocked"
    assert link_kind("") == "blocked"
    assert link_kind("HTTPS://Example.org") == "external"
    assert link_kind("//cdn.example.org/x") == "external"
    assert link_kind("mailto:a@b.c") == "external"
    assert link_kind("references/REF.md#part") == "resource"
    assert link_kind("scripts/run.py") == "resource"
    assert link_kind("#usage") == "anchor"


def test_links_are_classified() -> None:
    out = render_markdown(
        "# Usage\n\n[site](https://example.org/a?b=1&c=2) [ref](references/REF.md) "
        "[up](#usage) [cdn](//cdn.example.org/x) <https://auto.example.org>"
    )
    assert _anchors(out) == {
        "https://example.org/a?b=1&amp;c=2": "external",
        "references/REF.md": "resource",
        "#usage": "anchor",
        "https://cdn.example.org/x": "external",
        "https://auto.example.org": "external",
    }


def test_remote_images_become_placeholders_and_nothing_is_fetched(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError(f"network access attempted: {args!r}")

    monkeypatch.setattr(urllib.request, "urlopen", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    monkeypatch.setattr(socket.socket, "connect", refuse)
    body = (
        "![a](https://evil.example/track.png) ![b](http://evil.example/b.gif) "
        "![c](//evil.example/c.png) ![d](ftp://evil.example/d.png) "
        "![e](data:image/png;base64,iVBORw0KGgo=)\n\n"
        "[![badge](https://img.shields.io/badge/x-y-green)](https://example.org)"
    )
    out = render_markdown(body, base_dir=str(tmp_path), dark=True)
    assert "<img" not in out
    assert "[remote image not loaded: https://evil.example/track.png]" in out
    assert "[remote image not loaded: //evil.example/c.png]" in out
    assert "[remote image not loaded: ftp://evil.example/d.png]" in out
    assert "data:image" not in out
    assert out.count('class="sp-placeholder"') == 6
    assert _anchors(out) == {"https://example.org": "external"}


def test_relative_image_inside_base_dir_becomes_file_url(tmp_path: Path) -> None:
    skill = tmp_path / "skill"
    (skill / "assets").mkdir(parents=True)
    (skill / "assets" / "diagram one.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    out = render_markdown('![Diagram](assets/diagram%20one.png "Flow")', base_dir=str(skill))
    url = (skill / "assets" / "diagram one.png").resolve().as_uri()
    assert f'<img src="{url}" alt="Diagram" title="Flow">' in out
    assert url.startswith("file://")
    # Not found, and no base_dir at all: placeholders, never a guess.
    assert "[image not found: assets/missing.png]" in render_markdown(
        "![m](assets/missing.png)", base_dir=str(skill)
    )
    assert "<img" not in render_markdown("![m](assets/diagram%20one.png)")


def test_image_resolution_is_not_stale_after_a_file_appears(tmp_path: Path) -> None:
    body = "![later](later.png)"
    assert "<img" not in render_markdown(body, base_dir=str(tmp_path))
    (tmp_path / "later.png").write_bytes(b"GIF89a")
    assert "<img" in render_markdown(body, base_dir=str(tmp_path))


def test_images_escaping_the_skill_folder_are_placeholders(tmp_path: Path) -> None:
    skill = tmp_path / "skill"
    skill.mkdir()
    secret = tmp_path / "secret.png"
    secret.write_bytes(b"\x89PNG\r\n\x1a\n")
    (skill / "link.png").symlink_to(secret)
    (skill / "dirlink").symlink_to(tmp_path)
    body = (
        "![a](../secret.png) ![b](link.png) ![c](dirlink/secret.png) "
        f"![d]({secret}) ![e](..%2Fsecret.png) ![f](file://{secret})"
    )
    out = render_markdown(body, base_dir=str(skill))
    assert "<img" not in out
    assert "secret.png" in out
    assert out.count("[image outside the skill folder:") == 5
    assert "[image not loaded: file://" in out


@pytest.mark.parametrize(
    "body",
    [
        ">" * 5000 + " deep",
        "- " * 3000 + "x",
        "[" * 20000,
        "\\[ " * 9000,
        "![" * 14000,
        ("[" * 9000 + "\n\n") * 20,
        ("`a` " * 2400 + "\n\n") * 20,
        "`a` " * 50000,
        "*" * 50000,
        "\x00\ud800",
    ],
)
def test_hostile_body_renders_fast_and_keeps_its_text(body: str) -> None:
    # Python-Markdown's inline pass is quadratic in a paragraph's size: 20,000 "[" used to take
    # over a minute. Oversized/overdense paragraphs are shown as plain text instead.
    out = render_markdown(body)  # its time is measured in bench/bench_hostile.py
    assert "<script" not in out
    if "[" in body and "could not be rendered" not in out:
        assert out.count("[") + out.count("&#91;") >= body.count("[") // 2


def test_two_megabyte_body_renders_quickly() -> None:
    chunk = (
        "## Section\n\nSome *text* with `code`, a [link](references/r.md) and <b>raw</b>.\n\n"
        "- item\n- item\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n"
        "```python\ndef f(x):\n    return x * 2  # comment\n```\n\n"
    )
    body = (chunk * (2_000_000 // len(chunk) + 1))[:2_000_000]
    out = render_markdown(body)  # its time is measured in bench/bench_hostile.py
    assert "[document too long" in out
    assert "<b>" not in out
    assert out.count("<pre") >= 2


def test_giant_paragraph_is_shown_as_plain_text() -> None:
    body = "# Top\n\n" + "word <b>x</b> " * 5000 + "\n\nafter [link](#top)\n"
    out = render_markdown(body)
    assert "shown as plain text]" in out
    assert "word &lt;b&gt;x&lt;/b&gt;" in out and "<b>" not in out
    assert _anchors(out) == {"#top": "anchor"}


# --- code highlighting ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "lang"),
    [
        ({"language": "frontmatter"}, "yaml"),
        ({"language": "yaml"}, "yaml"),
        ({"filename": "SKILL.md"}, "markdown"),
        ({"filename": "scripts/run.py"}, "python"),
        ({"filename": "scripts/setup.sh"}, "bash"),
        ({"filename": "data.json"}, "json"),
        ({"filename": "pyproject.toml"}, "toml"),
        ({"filename": "notes.unknownext"}, "text"),
        ({}, "text"),
    ],
)
def test_highlight_picks_lexer(kwargs: dict[str, str], lang: str) -> None:
    out = highlight('name: "x"\n', **kwargs)
    assert f'data-lang="{lang}"' in out
    assert out.startswith("<pre ") and out.endswith("</pre>")


def test_highlight_uses_shebang_without_a_known_name() -> None:
    out = highlight("#!/usr/bin/env python3\nprint('x')\n", filename="scripts/tool")
    assert 'data-lang="python"' in out and STYLED_SPAN.search(out)


def test_highlight_colours_and_escapes() -> None:
    out = highlight('key: "<script>"\nlist: [1, 2]\n', language="yaml")
    assert STYLED_SPAN.search(out)
    assert "<script>" not in out and "&lt;script&gt;" in out
    assert highlight("a: 1\n", language="yaml") != highlight("a: 1\n", language="yaml", dark=True)


def test_line_numbers_and_marked_lines() -> None:
    text = "".join(f"line{n}: {n}\n" for n in range(1, 13))
    out = highlight(text, language="yaml", line_numbers=True, highlight_lines=[3, 11])
    lines = out.split("\n")
    assert len(lines) == 12
    assert re.search(r"> 1 </span>", lines[0]) and re.search(r">12 </span>", lines[11])
    marked = [i + 1 for i, line in enumerate(lines) if 'class="sp-marked"' in line]
    assert marked == [3, 11]


def test_blank_lines_are_kept_for_line_numbers() -> None:
    out = highlight("\n\nx = 1\n\n", language="python", line_numbers=True)
    assert out.count("</span>\n") + 1 >= 4
    assert ">4 </span>" in out


# --- page -----------------------------------------------------------------------------------


def test_document_is_complete_and_themed() -> None:
    light = document("<p>hi</p>", title="A <b> & c")
    dark = document("<p>hi</p>", dark=True)
    assert light.startswith("<!DOCTYPE html>") and light.rstrip().endswith("</html>")
    assert "<title>A &lt;b&gt; &amp; c</title>" in light
    assert "<p>hi</p>" in light and "<style>" in light
    assert "#ffffff" in light and "#0d1117" in dark
    assert "Content-Security-Policy" in light
    assert "<script" not in light + dark


# --- import cost and layering ---------------------------------------------------------------


def test_importing_render_loads_neither_markdown_pygments_nor_qt() -> None:
    code = (
        "import sys, skillprism.render as r\n"
        "heavy = lambda: sorted({m.split('.')[0] for m in sys.modules} & "
        "{'markdown', 'pygments', 'PySide6', 'shiboken6'})\n"
        "print('BEFORE', heavy())\n"
        "r.render_markdown('# x\\n\\n```py\\nx = 1\\n```\\n')\n"
        "print('AFTER', heavy())\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=False
    )
    assert "BEFORE []" in out.stdout, out.stdout + out.stderr
    assert "AFTER ['markdown', 'pygments']" in out.stdout, out.stdout + out.stderr
