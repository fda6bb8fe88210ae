"""HTML for the Overview and Files tabs, assembled from core results and the render layer.
Nothing here reads a file except through core (document parsing, tier-3 resource access)."""

from __future__ import annotations

import html
import json
import os
import re
from typing import Any

from skillprism.core.catalog import Catalog, SkillEntry
from skillprism.core.diagnostics import Diagnostic
from skillprism.core.document import parse_document
from skillprism.core.profiles import Profile
from skillprism.core.resources import list_resources
from skillprism.gui.icons import STATE_TEXT

RESOURCE_SCHEME = "skillprism-file"
_SEV_COLOR = {"error": "#d23b3b", "warning": "#b7791f", "info": "#2f7fd6"}
_STATE_COLOR = {
    "ok": "#2e9d4f",
    "warning": "#b7791f",
    "error": "#d23b3b",
    "shadowed": "#7d8590",
    "skipped": "#b0571f",
    "not-discovered": "#7d8590",
}
_STATE_GLYPH = {
    "ok": "✓",
    "warning": "!",
    "error": "×",
    "shadowed": "≡",
    "skipped": "–",
    "not-discovered": "?",
}


def _page(body: str, dark: bool) -> str:
    from skillprism.render.page import document

    return document(body, dark=dark)


def _value_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return repr(value)


def _diag_html(d: Diagnostic) -> str:
    color = _SEV_COLOR[d.severity.value]
    where = f" (line {d.line})" if d.line else ""
    extra = ""
    if d.effect:
        extra += f"<br><span style='color:gray'>Effect: {html.escape(d.effect)}</span>"
    if d.hint:
        extra += f"<br><span style='color:gray'>Fix: {html.escape(d.hint)}</span>"
    return (
        f"<p style='margin:2px 0'><b style='color:{color}'>{d.severity.value} {d.code}</b>"
        f"{where}: {html.escape(d.message)}{extra}</p>"
    )


def _field_lines(skill: SkillEntry, typing: str) -> dict[str, int]:
    doc = parse_document(skill.path)
    yml = doc.yaml(typing)
    if yml is None:
        return {}
    return {key[0]: pos[0] for key, pos in yml.key_positions.items() if len(key) == 1}


def overview_html(skill: SkillEntry, catalog: Catalog, *, dark: bool = False) -> str:
    from skillprism.render.markdown_html import render_markdown

    state = skill.status
    name = skill.qualified_name or skill.name or os.path.basename(skill.directory)
    parts = [
        f"<h2 style='margin-bottom:2px'>{html.escape(name)}</h2>",
        f"<p style='margin-top:0'><b style='color:{_STATE_COLOR[state]}'>{_STATE_GLYPH[state]} "
        f"{html.escape(STATE_TEXT[state])}</b> under {html.escape(catalog.profile.title)}"
        + (f" — {html.escape(skill.reason)}" if skill.reason else "")
        + "</p>",
        f"<p style='color:gray; margin-top:0'>{html.escape(skill.path)}</p>",
    ]
    if skill.description:
        parts.append(f"<p><i>{html.escape(skill.description)}</i></p>")
    lines = _field_lines(skill, catalog.profile.typing)
    line_to_key = sorted((line, key) for key, line in lines.items())
    per_key: dict[str, list[Diagnostic]] = {}
    other: list[Diagnostic] = []
    for d in skill.diagnostics:
        owner = None
        for line, key in line_to_key:
            if d.line and line <= d.line:
                owner = key
        if (
            owner is not None
            and d.line
            and d.line <= (max(lines.values()) if lines else 0) + 5
            and (
                d.code.startswith("SP2") or d.code in ("SP115", "SP117", "SP120", "SP192", "SP290")
            )
        ):
            per_key.setdefault(owner, []).append(d)
        else:
            other.append(d)
    if skill.frontmatter:
        rows = []
        for key, value in skill.frontmatter.items():
            notes = "".join(_diag_html(d) for d in per_key.get(key, []))
            rows.append(
                f"<tr><td style='padding:3px 8px; vertical-align:top'><b>{html.escape(str(key))}</b></td>"
                f"<td style='padding:3px 8px; vertical-align:top'>{html.escape(_value_text(value))[:2000]}</td>"
                f"<td style='padding:3px 8px; vertical-align:top'>{notes}</td></tr>"
            )
        parts.append(
            "<h3>Frontmatter</h3><table border='1' cellspacing='0' cellpadding='0' "
            "style='border-collapse:collapse' width='100%'><tr><th align='left'>Field</th>"
            "<th align='left'>Value</th><th align='left'>Findings</th></tr>"
            + "".join(rows)
            + "</table>"
        )
    if other:
        parts.append("<h3>Findings</h3>" + "".join(_diag_html(d) for d in other))
    doc = parse_document(skill.path)
    if doc.text is not None and doc.body.strip():
        parts.append("<hr><h3>Instructions (as rendered)</h3>")
        parts.append(render_markdown(doc.body, base_dir=skill.directory, dark=dark))
    return _page("\n".join(parts), dark)


def source_text(skill: SkillEntry) -> tuple[str, list[Diagnostic]]:
    doc = parse_document(skill.path)
    if doc.text is None:
        why = "; ".join(f.message for f in doc.findings) or "unreadable"
        return f"(This file cannot be shown as text: {why})", list(skill.diagnostics)
    return doc.text, list(skill.diagnostics)


FILES_PAGE_LIMIT = 300  # files listed on the Files page (the tree lists more)


def files_html(skill: SkillEntry, *, dark: bool = False) -> str:
    listing = list_resources(skill.directory, limit=FILES_PAGE_LIMIT)
    groups = listing.grouped()
    parts = [
        f"<h2>Files of {html.escape(skill.name or os.path.basename(skill.directory))}</h2>",
        f"<p style='color:gray'>{html.escape(skill.directory)}</p>",
        f"<p><a href='{RESOURCE_SCHEME}:/{html.escape(os.path.basename(skill.path))}'>"
        f"{html.escape(os.path.basename(skill.path))}</a></p>",
    ]
    for group in ("scripts", "references", "assets", "other"):
        items = groups[group]
        if not items:
            continue
        parts.append(f"<h3>{group} ({len(items)})</h3><ul>")
        for r in items:
            about = (
                "<b style='color:#d23b3b'>link leading outside the skill folder: not followed</b>"
                if r.escapes
                else f"<span style='color:gray'>{r.size:,} bytes</span>"
            )
            parts.append(
                f"<li><a href='{RESOURCE_SCHEME}:/{html.escape(r.rel_path)}'>"
                f"{html.escape(r.rel_path)}</a> {about}</li>"
            )
        parts.append("</ul>")
    if listing.truncated:
        parts.append(f"<p><i>Only the first {len(listing.items):,} files are listed.</i></p>")
    if not listing.items:
        parts.append("<p style='color:gray'>No files besides the skill file.</p>")
    return _page("\n".join(parts), dark)


def _resource_page(skill: SkillEntry, reference: str, dark: bool) -> str:
    from skillprism.core.tier3 import resolve_reference
    from skillprism.core.tokens import EstimateCounter
    from skillprism.render.code_html import highlight

    counter = EstimateCounter()
    result = resolve_reference(
        skill.directory, reference, skill_name=skill.name, count_tokens=counter.count
    )
    head = f"<h3>{html.escape(reference)}</h3>"
    back = f"<p><a href='{RESOURCE_SCHEME}:/'>← all files</a></p>"
    if not result.ok:
        d = result.refusal
        msg = _diag_html(d) if d is not None else "<p>Refused.</p>"
        return _page(
            back + head + "<p><b>The runtime would refuse this reference.</b></p>" + msg, dark
        )
    if result.content is None and result.kind != "directory":
        # a binary: say what it is (from its bytes); the runtime's own label (oh-my-pi says
        # text/plain for anything not Markdown) is only what it would report
        what = html.escape(result.description or "binary file")
        if result.media_type:
            what += f" (the runtime reports {html.escape(result.media_type)})"
    else:
        what = html.escape(result.media_type or result.kind)
    meta = f"<p style='color:gray'>{result.size:,} bytes · {what}"
    if result.tokens is not None:
        meta += f" · cost {result.chars:,} characters, ~{result.tokens:,} tokens ({counter.name})"
    meta += "</p>"
    body = ""
    if result.kind == "directory":
        body = (
            "<ul>"
            + "".join(f"<li>{html.escape(r.rel_path)}</li>" for r in result.listing)
            + "</ul>"
        )
    elif result.content is not None:
        if result.path and result.media_type == "text/markdown":
            from skillprism.render.markdown_html import render_markdown

            body = render_markdown(result.content, base_dir=skill.directory, dark=dark)
        else:
            body = highlight(
                result.content, filename=result.path or reference, dark=dark, line_numbers=True
            )
        if result.truncated:
            body += "<p><i>The file is longer; only the beginning is shown (as the runtime would read it).</i></p>"
    elif (
        result.path
        and result.description.lower().split()[0:1]
        and result.description.split()[0] in ("PNG", "JPEG", "GIF", "WebP")
    ):
        from PySide6.QtCore import QUrl

        body = f"<p><img src='{QUrl.fromLocalFile(result.path).toString()}' style='max-width:100%'></p>"
        body += f"<p style='color:gray'>{html.escape(result.description)}</p>"
    else:
        body = f"<p>{html.escape(result.description or 'Binary file')}: not shown.</p>"
    notes = "".join(_diag_html(n) for n in result.notes)
    return _page(back + head + meta + notes + body, dark)


def file_html(skill: SkillEntry, path: str, *, dark: bool = False) -> str:
    rel = os.path.relpath(path, skill.directory).replace(os.sep, "/")
    return _resource_page(skill, rel, dark)


def resolve_link(skill: SkillEntry, reference: str, *, dark: bool = False) -> str:
    return _resource_page(skill, reference, dark)


_ESCAPED_ANCHOR = re.compile(
    r"&lt;a id=&quot;(sp\d+)&quot;&gt;&lt;/a&gt;|&lt;a id=\"(sp\d+)\"&gt;&lt;/a&gt;"
)


def runtime_details_html(profile: Profile, *, dark: bool = False) -> str:
    """A runtime profile's sheet (core/profile_sheet.py) as a page."""
    from skillprism.core.profile_sheet import profile_sheet_markdown
    from skillprism.render.markdown_html import render_markdown

    return _page(render_markdown(profile_sheet_markdown(profile), dark=dark), dark)


def diagnostics_reference_html(*, dark: bool = False) -> str:
    """The codes reference (docs/diagnostics.md), its per-code anchors made real anchors: the
    Markdown renderer escapes raw HTML (it never trusts markup), so the document's own
    `<a id="spNNN">` marks are turned into anchors here, from a fixed pattern."""
    from skillprism.core.codes import reference_markdown
    from skillprism.render.markdown_html import render_markdown

    body = render_markdown(reference_markdown(), dark=dark)
    body = _ESCAPED_ANCHOR.sub(lambda m: f'<a name="{m.group(1) or m.group(2)}"></a>', body)
    return _page(body, dark)
