"""The HTML pages the window shows about a skill, made in the engine process from what the
Workspace computed: Overview, Source, Files, a followed link (tier 3, through the Workspace so
the profile's rules and the project's settings apply), an activation, where each runtime would
find the skill, a runtime's details and the codes reference. Every piece of skill text is
escaped; nothing here runs or fetches anything.
"""

from __future__ import annotations

import html
import json
import os
import pathlib
import re
import shlex
from collections.abc import Mapping
from typing import Any

from skillprism.core.activate import Activation
from skillprism.core.catalog import Catalog, SkillEntry
from skillprism.core.diagnostics import Diagnostic
from skillprism.core.document import SkillDocument
from skillprism.core.placement import WhereReport
from skillprism.core.profiles import Profile
from skillprism.core.resources import list_resources
from skillprism.core.tier3 import ResourceResult
from skillprism.core.vocabulary import LEVEL_ORDER
from skillprism.engine.prepare import STATE_TEXT, skill_label
from skillprism.engine.views import COPY_SCHEME, RESOURCE_SCHEME

FILES_PAGE_LIMIT = 300  # files listed on the Files page (the tree lists more)
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
_LEVEL_STYLE = {
    "verified": ("#1a6b2f", "verified"),
    "partial": ("#7a4d00", "partly verified"),
    "documented": ("#59636e", "documented"),
    "specified": ("#59636e", "specified"),
}


def page(body: str, dark: bool) -> str:
    from skillprism.render.page import document

    return document(body, dark=dark)


def _value_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return repr(value)


def diagnostic_html(d: Diagnostic, skill_dir: str = "") -> str:
    color = _SEV_COLOR[d.severity.value]
    where = ""
    if d.path and skill_dir and d.path.startswith(skill_dir + os.sep):
        where = f" ({html.escape(d.path[len(skill_dir) + 1 :])}"
        where += f", line {d.line})" if d.line else ")"
    elif d.line:
        where = f" (line {d.line})"
    extra = ""
    if d.effect:
        extra += f"<br><span style='color:gray'>Effect: {html.escape(d.effect)}</span>"
    if d.hint:
        extra += f"<br><span style='color:gray'>Fix: {html.escape(d.hint)}</span>"
    return (
        f"<p style='margin:2px 0'><b style='color:{color}'>{d.severity.value} {d.code}</b>"
        f"{where}: {html.escape(d.message)}{extra}</p>"
    )


def _field_lines(doc: SkillDocument, typing: str) -> dict[str, int]:
    yml = doc.yaml(typing)
    if yml is None:
        return {}
    return {key[0]: pos[0] for key, pos in yml.key_positions.items() if len(key) == 1}


def overview_html(
    skill: SkillEntry, catalog: Catalog, doc: SkillDocument, *, dark: bool = False
) -> str:
    """The skill's fate, its frontmatter with the findings per field, its other findings and its
    instructions rendered from Markdown (from `doc`, the file as read once for this page)."""
    from skillprism.render.markdown_html import render_markdown

    state = skill.status
    parts = [
        f"<h2 style='margin-bottom:2px'>{html.escape(skill_label(skill))}</h2>",
        f"<p style='margin-top:0'><b style='color:{_STATE_COLOR[state]}'>{_STATE_GLYPH[state]} "
        f"{html.escape(STATE_TEXT[state])}</b> under {html.escape(catalog.profile.title)}"
        + (f" — {html.escape(skill.reason)}" if skill.reason else "")
        + "</p>",
        f"<p style='color:gray; margin-top:0'>{html.escape(skill.path)}</p>",
    ]
    if skill.description:
        parts.append(f"<p><i>{html.escape(skill.description)}</i></p>")
    lines = _field_lines(doc, catalog.profile.typing)
    line_to_key = sorted((line, key) for key, line in lines.items())
    last_field = max(lines.values()) if lines else 0
    per_key: dict[str, list[Diagnostic]] = {}
    other: list[Diagnostic] = []
    for d in skill.diagnostics:
        owner = None
        in_file = not d.path or d.path == skill.path
        for line, key in line_to_key:
            if d.line and line <= d.line:
                owner = key
        if (
            in_file
            and owner is not None
            and d.line
            and d.line <= last_field + 5
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
            notes = "".join(diagnostic_html(d) for d in per_key.get(key, []))
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
        parts.append(
            "<h3>Findings</h3>" + "".join(diagnostic_html(d, skill.directory) for d in other)
        )
    if doc.text is not None and doc.body.strip():
        parts.append("<hr><h3>Instructions (as rendered)</h3>")
        parts.append(render_markdown(doc.body, base_dir=skill.directory, dark=dark))
    return page("\n".join(parts), dark)


def source_text(skill: SkillEntry, doc: SkillDocument) -> tuple[str, tuple[Diagnostic, ...]]:
    """The skill file's text and the findings that lie in it (findings in other files of the
    skill are shown where those files are, never on this file's lines)."""
    mine = tuple(d for d in skill.diagnostics if not d.path or d.path == skill.path)
    if doc.text is None:
        why = "; ".join(f.message for f in doc.findings) or "unreadable"
        return f"(This file cannot be shown as text: {why})", mine
    return doc.text, mine


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
    return page("\n".join(parts), dark)


def file_entries(skill: SkillEntry, limit: int) -> tuple[tuple[tuple[str, str], ...], bool]:
    """The skill file and its other files as the tree lists them: (text, path), and whether the
    listing was cut at `limit`."""
    listing = list_resources(skill.directory, limit=limit)
    entries = [(os.path.basename(skill.path), skill.path)]
    entries += [
        (r.rel_path, os.path.join(skill.directory, *r.rel_path.split("/"))) for r in listing.items
    ]
    return tuple(entries), listing.truncated


def resource_html(
    skill: SkillEntry,
    reference: str,
    result: ResourceResult,
    *,
    dark: bool,
) -> str:
    """A followed reference as the runtime's tier 3 would deliver it, or its refusal."""
    from skillprism.render.code_html import highlight

    head = f"<h3>{html.escape(reference)}</h3>"
    back = f"<p><a href='{RESOURCE_SCHEME}:/'>← all files</a></p>"
    if not result.ok:
        d = result.refusal
        msg = diagnostic_html(d) if d is not None else "<p>Refused.</p>"
        return page(
            back + head + "<p><b>The runtime would refuse this reference.</b></p>" + msg,
            dark,
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
        meta += f" · cost {result.chars:,} characters, ~{result.tokens:,} tokens"
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
    elif result.path and result.description.split()[:1] in (["PNG"], ["JPEG"], ["GIF"], ["WebP"]):
        uri = html.escape(pathlib.Path(result.path).as_uri())
        body = f"<p><img src='{uri}' style='max-width:100%'></p>"
        body += f"<p style='color:gray'>{html.escape(result.description)}</p>"
    else:
        body = f"<p>{html.escape(result.description or 'Binary file')}: not shown.</p>"
    result_notes = "".join(diagnostic_html(n) for n in result.notes)
    return page(back + head + meta + result_notes + body, dark)


def activation_html(
    activation: Activation, *, runtime: str, dark: bool, invocation_rules: str = ""
) -> str:
    """The report of one simulated activation (all skill text escaped), with the substituted
    values highlighted and the findings the activation makes (e.g. over the guidance)."""
    mark_bg = "#5a4a00" if dark else "#fff1a8"
    a = activation
    parts = [
        f"<p><b>{html.escape(a.name)}</b> via <i>{html.escape(a.mechanism)}</i> "
        f"({'user slash command' if a.invoker == 'user' else 'model tool call'}) under "
        f"{html.escape(runtime)}</p>"
    ]
    if not a.allowed:
        parts.append(
            f"<p style='color:#d23b3b'><b>Refused by the runtime:</b> {html.escape(a.refusal)}</p>"
        )
        parts.append(f"<p style='color:gray'>{html.escape(invocation_rules)}</p>")
        return page("".join(parts), dark)
    over = a.over_guidance
    cost = (
        f"{a.chars:,} characters, {a.tokens:,} tokens ({html.escape(a.counter)}); guidance "
        f"{a.guidance_tokens:,} tokens"
    )
    parts.append(
        f"<p style='color:{'#b7791f' if over else 'gray'}'>Cost: {cost}"
        f"{' — over the guidance' if over else ''}</p>"
    )
    facts = [
        "runs as a <b>forked sub-task</b>"
        + (f" (agent: {html.escape(a.agent)})" if a.agent else "")
        if a.fork
        else "runs <b>inline</b> in the conversation"
    ]
    if a.allowed_tools:
        facts.append(
            "allowed tools: " + ", ".join(f"<code>{html.escape(t)}</code>" for t in a.allowed_tools)
        )
    if a.model:
        facts.append(f"model: {html.escape(a.model)}")
    if a.consent:
        facts.append(f"consent: {html.escape(a.consent)}")
    if a.appended:
        facts.append("no placeholder in the body: the arguments are appended")
    if a.unmatched:
        facts.append(
            "left as written: " + ", ".join(f"<code>{html.escape(u)}</code>" for u in a.unmatched)
        )
    parts.append("<ul>" + "".join(f"<li>{f}</li>" for f in facts) + "</ul>")
    for d in a.diagnostics:
        parts.append(diagnostic_html(d))
    for line, cmd in a.would_run:
        parts.append(
            f"<p style='color:#d23b3b'>Line {line} would run <code>{html.escape(cmd)}</code> "
            "when the runtime activates the skill (shown here, never run).</p>"
        )
    for note in a.notes:
        parts.append(f"<p style='color:gray'>{html.escape(note)}</p>")
    text, pieces, pos = a.content, [], 0
    for s in sorted(a.substitutions, key=lambda s: s.start):
        if s.start < pos:
            continue
        pieces.append(html.escape(text[pos : s.start]))
        pieces.append(
            f"<span style='background:{mark_bg}' title='{html.escape(s.placeholder)}'>"
            f"{html.escape(text[s.start : s.end])}</span>"
        )
        pos = s.end
    pieces.append(html.escape(text[pos:]))
    parts.append("<p><b>Delivered to the model</b> (substituted values highlighted):</p>")
    parts.append("<pre style='white-space:pre-wrap'>" + "".join(pieces) + "</pre>")
    if a.compaction_kept_chars is not None:
        parts.append(
            f"<p style='color:gray'>After compaction only the first "
            f"{a.compaction_keep_tokens:,} tokens survive (about {a.compaction_kept_chars:,} "
            "characters).</p>"
        )
    return page("".join(parts), dark)


def where_blocks(
    report: WhereReport, levels: Mapping[str, str], *, dark: bool = False
) -> tuple[str, tuple[tuple[str, str], ...]]:
    """Where each runtime reads skills, for one skill: a heading and one block per runtime
    (those that find the skill first), each with the words a filter is matched against."""
    muted = "#9aa4ae" if dark else "#59636e"
    blocks = []
    # those that find it first, then real runtimes before the systems modelled from a spec
    rank = {level: i for i, level in enumerate(LEVEL_ORDER)}
    ordered = sorted(
        report.profiles,
        key=lambda p: (not p.found, rank.get(levels.get(p.profile, ""), 9), p.title.lower()),
    )
    for p in ordered:
        level = levels.get(p.profile, "")
        hay = f"{p.title} {p.profile} {p.provenance} {level}".lower()
        colour, badge = _LEVEL_STYLE.get(level, ("#59636e", "documented"))
        verdict = (
            f"<b style='color:#1a6b2f'>finds it here</b> ({html.escape(p.found_here)})"
            if p.found
            else f"<b style='color:#b3261e'>does not find it here</b>: "
            f"{html.escape(p.found_reason or p.found_here)}"
        )
        places = []
        for pl in p.placements:
            folder = os.path.dirname(pl.path)
            link = shlex.join(["ln", "-s", report.skill_dir, folder])
            here = " <b>(here now)</b>" if pl.here else ""
            places.append(
                f"<li><code>{html.escape(pl.path)}</code>{here} "
                f"<span style='color:{muted}'>{html.escape(pl.scope)}, {html.escape(pl.layout)}"
                f"</span> — <a href='{COPY_SCHEME}:{_url_text(folder)}'>copy folder</a> · "
                f"<a href='{COPY_SCHEME}:{_url_text(link)}'>copy ln -s</a></li>"
            )
        folder_rule = (
            f"<p style='color:{muted}'>Folder name: <code>{html.escape(p.folder)}</code> "
            f"({html.escape(p.folder_rule)}); file <code>{html.escape(p.file_name)}</code></p>"
        )
        blocks.append(
            (
                hay,
                f"<h3 style='margin-bottom:2px'>{html.escape(p.title)} "
                f"<span style='color:{colour}; font-weight:normal; font-size:small'>[{badge}]"
                f"</span></h3><p title='{html.escape(p.provenance)}'>{verdict}</p>{folder_rule}"
                f"<ul>{''.join(places) or '<li>no folders for this project and home</li>'}</ul>",
            )
        )
    head = (
        f"<p style='color:{muted}'>{html.escape(report.skill_dir)} — where each of "
        f"{len(report.profiles)} runtimes reads skills (strongest first), for project "
        f"{html.escape(report.project)}. {sum(p.found for p in report.profiles)} find it where "
        f"it is now.</p>"
    )
    return head, tuple(blocks)


def _url_text(text: str) -> str:
    """`text` as the path of a URL in an href: percent-encoded, so any character survives."""
    from urllib.parse import quote

    return html.escape(quote(text, safe="/~-_.:@+=,"))


_ESCAPED_ANCHOR = re.compile(
    r"&lt;a id=&quot;(sp\d+)&quot;&gt;&lt;/a&gt;|&lt;a id=\"(sp\d+)\"&gt;&lt;/a&gt;"
)


def runtime_details_html(profile: Profile, *, dark: bool = False) -> str:
    """A runtime profile's sheet (core/profile_sheet.py) as a page."""
    from skillprism.core.profile_sheet import profile_sheet_markdown
    from skillprism.render.markdown_html import render_markdown

    return page(render_markdown(profile_sheet_markdown(profile), dark=dark), dark)


def diagnostics_reference_html(*, dark: bool = False) -> str:
    """The codes reference (docs/diagnostics.md), its per-code anchors made real anchors: the
    Markdown renderer escapes raw HTML (it never trusts markup), so the document's own
    `<a id="spNNN">` marks are turned into anchors here, from a fixed pattern."""
    from skillprism.core.codes import reference_markdown
    from skillprism.render.markdown_html import render_markdown

    body = render_markdown(reference_markdown(), dark=dark)
    body = _ESCAPED_ANCHOR.sub(lambda m: f'<a name="{m.group(1) or m.group(2)}"></a>', body)
    return page(body, dark)
