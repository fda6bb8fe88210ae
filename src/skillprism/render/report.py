"""The review report: one skill set under several runtime profiles, as a self-contained HTML page
or as Markdown for a pull request.

Both formats are written from one neutral description of the content (headings, paragraphs,
lists, tables, charts), so they always say the same thing. Inputs are results the core already
computed — catalogs, the comparison matrix, one tier-1 result per catalog — and nothing here reads
files. Everything that comes from a skill (names, paths, frontmatter, messages quoting them) is
untrusted: control characters and undecodable bytes are spelled out, markup is escaped, and the
HTML holds no script and fetches nothing (a Content-Security-Policy says so to the browser, too).

Long lists (problems, budget outcomes, shadowed copies) stop after `max_items` per profile and say
how many were left out; the counts in the summary and in every section heading stay exact.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from skillprism import __version__
from skillprism.core.catalog import STATES, Catalog, SkillEntry
from skillprism.core.codes import CODES, RULES
from skillprism.core.compare import CELL_VALUES, Matrix
from skillprism.core.diagnostics import Diagnostic, Severity
from skillprism.core.disclose import Tier1Result
from skillprism.core.display import display_path
from skillprism.core.settings import SettingsReport
from skillprism.core.vocabulary import OUTCOMES
from skillprism.render.svg import Segment, esc, stacked_bar

MAX_ITEMS = 200
MAX_SEGMENTS = 12  # skills drawn one by one in a budget bar; the rest are "others"
MIN_SHARE = 0.005  # a slice under 0.5% of the bar joins "others"
CSP = "default-src 'none'; style-src 'unsafe-inline'"
SEVERITIES = tuple(s.value for s in Severity)
SECURITY_CODES = frozenset(code for code, info in CODES.items() if info.category == "security")

CSS = """
body { background: #ffffff; color: #1f2328; font-family: sans-serif; font-size: 14px;
  margin: 16px auto; max-width: 1200px; padding: 0 12px; line-height: 1.4; }
h1 { font-size: 1.6em; margin: 0 0 6px 0; }
h2 { font-size: 1.3em; margin-top: 28px; border-bottom: 1px solid #d0d7de; padding-bottom: 4px; }
h3 { font-size: 1.1em; margin-top: 18px; }
p, ul { margin: 4px 0 8px 0; }
table { border-collapse: collapse; margin: 4px 0 10px 0; }
th, td { border: 1px solid #d0d7de; padding: 3px 6px; text-align: left; vertical-align: top; }
th { background: #f6f8fa; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
tr.group th { background: #eaeef2; font-weight: normal; }
code, .path { font-family: monospace; font-size: 0.92em; word-break: break-all; }
.muted, .note { color: #59636e; }
.note { font-style: italic; }
.toc li { display: inline; margin-right: 12px; }
.sev-error, .v-error { color: #b3261e; font-weight: bold; }
.sev-warning { color: #7a4d00; font-weight: bold; }
.v-full, .v-ok { color: #1a6b2f; }
.v-shortened, .v-name-only, .v-warning { color: #7a4d00; }
.v-omitted, .v-skipped { color: #8c3b14; font-weight: bold; }
.v-excluded, .v-not-discovered, .v-shadowed { color: #59636e; }
svg.sp-chart { display: block; margin: 6px 0 12px 0; max-width: 100%; height: auto; }
@media print {
  body { max-width: none; margin: 0; font-size: 11px; }
  h2 { page-break-after: avoid; }
  tr, svg { page-break-inside: avoid; }
  * { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
}
""".strip()


# --- the neutral content model --------------------------------------------------------------


@dataclass(slots=True)
class Cell:
    text: str
    title: str = ""  # HTML title attribute; in Markdown appended after the text
    cls: str = ""
    data: dict[str, str] | None = None  # HTML data-* attributes (machine-readable counts)
    mono: bool = False  # a path or name: monospace in HTML


@dataclass(slots=True)
class Table:
    headers: tuple[str, ...]
    rows: list[tuple[Cell, ...] | str]  # a str is a group heading row spanning the table
    ident: str = ""
    note: str = ""  # e.g. how many rows were left out


@dataclass(slots=True)
class Heading:
    level: int
    text: str
    ident: str = ""


@dataclass(slots=True)
class Para:
    text: str
    cls: str = ""


@dataclass(slots=True)
class Bullets:
    items: list[str]


@dataclass(slots=True)
class Chart:
    svg: str  # HTML only
    table: Table  # the same numbers for Markdown


@dataclass(slots=True)
class Section:
    ident: str
    title: str
    blocks: list[Heading | Para | Bullets | Table | Chart] = field(default_factory=list)


def _num(n: int | None, **data: str) -> Cell:
    return Cell("—" if n is None else f"{n:,}", cls="num", data=data or None)


def _plural(n: int, word: str, many: str = "") -> str:
    return f"{n:,} {word if n == 1 else (many or word + 's')}"


# --- content ---------------------------------------------------------------------------------


def _header(
    catalogs: Sequence[Catalog],
    generated: str,
    paths: Sequence[str],
    project: str,
    settings: SettingsReport | None = None,
) -> list[Heading | Para | Bullets | Table | Chart]:
    blocks: list[Heading | Para | Bullets | Table | Chart] = [
        Para(
            f"Skill Prism {__version__}" + (f" · generated {generated}" if generated else ""),
            "muted",
        ),
        Table(
            ("Profile", "Runtime", "Skill files", "How it is known", "Source"),
            [
                (
                    Cell(c.profile.name, mono=True),
                    Cell(c.profile.title),
                    _num(len(c.skills)),
                    Cell(c.profile.provenance, data={"level": c.profile.runtime.level}),
                    Cell(c.profile.sources[0] if c.profile.sources else c.profile.path),
                )
                for c in catalogs
            ],
            ident="profiles",
        ),
    ]
    if paths:
        blocks.append(Para("Paths scanned:"))
        blocks.append(Bullets([display_path(p) for p in paths]))
    else:
        blocks.append(Para("Paths scanned: each profile's own roots (listed under Precedence)."))
    if project:
        blocks.append(Para(f"Project folder: {display_path(project)}"))
    # Which project settings applied and what they held back (the project may be the very
    # folder under review): highlighted when they switched a check off or hid findings.
    if settings is not None and settings.file:
        cls = "sev-warning" if settings.relaxes else ""
        blocks.extend(Para(display_path(line), cls) for line in settings.lines())
    elif settings is not None:
        blocks.append(Para("Project settings: none (no .skillprism.toml or [tool.skillprism])."))
    return blocks


def _summary(catalogs: Sequence[Catalog]) -> Section:
    sec = Section("summary", "Summary")
    sec.blocks.append(
        Para(
            "Per profile: how many skill files end in each state (the first that applies: "
            "not-discovered, skipped, error, shadowed, warning, ok) and how many findings of "
            "each severity. The same numbers as `skillprism check`."
        )
    )
    rows: list[tuple[Cell, ...] | str] = []
    for c in catalogs:
        s = c.summary()
        p = c.profile.name
        row = [Cell(p, mono=True), _num(s["skills"], profile=p, count="skills")]
        row += [_num(s["status"][k], profile=p, count=f"status.{k}") for k in STATES]
        row += [_num(s["severity"][k], profile=p, count=f"severity.{k}") for k in SEVERITIES]
        rows.append(tuple(row))
    sec.blocks.append(
        Table(
            ("Profile", "Skill files", *STATES, *(f"{k}s" for k in SEVERITIES)),
            rows,
            ident="summary-table",
        )
    )
    return sec


def _skill_index(catalog: Catalog) -> dict[str, SkillEntry]:
    index = {s.path: s for s in catalog.skills}
    index.update((s.key, s) for s in catalog.skills)
    return index


def _problems(catalogs: Sequence[Catalog], max_items: int) -> Section:
    sec = Section("problems", "Problems")
    sec.blocks.append(
        Para(
            "Findings grouped by skill file, the worst first. Effect: what the runtime does "
            "about it. Hint: how to fix it. Line 0 means the whole file."
        )
    )
    for c in catalogs:
        diags = c.all_diagnostics()
        counts = {k: 0 for k in SEVERITIES}
        for d in diags:
            counts[d.severity.value] += 1
        sec.blocks.append(
            Heading(
                3,
                f"{c.profile.name}: {_plural(counts['error'], 'error')}, "
                f"{_plural(counts['warning'], 'warning')}, {_plural(counts['info'], 'note')}",
                f"problems-{c.profile.name}",
            )
        )
        if not diags:
            sec.blocks.append(Para("No findings."))
            continue
        index = _skill_index(c)
        groups: dict[str, list[Diagnostic]] = {}
        for d in diags:
            groups.setdefault(d.path, []).append(d)
        order = sorted(
            groups.items(),
            key=lambda kv: (-max(d.severity.rank for d in kv[1]), kv[0]),
        )
        rows: list[tuple[Cell, ...] | str] = []
        shown = 0
        left = {k: 0 for k in SEVERITIES}
        for path, items in order:
            items.sort(key=lambda d: (-d.severity.rank, d.line, d.column, d.code))
            if shown >= max_items:
                for d in items:
                    left[d.severity.value] += 1
                continue
            skill = index.get(path)
            if skill is not None:
                label = f"{skill.qualified_name or skill.name or '?'} — {path} ({skill.status})"
            else:
                label = path or "(the skill set as a whole)"
            rows.append(label)
            for d in items:
                if shown >= max_items:
                    left[d.severity.value] += 1
                    continue
                shown += 1
                sev = d.severity.value
                rows.append(
                    (
                        Cell(d.code, mono=True),
                        Cell(sev, cls=f"sev-{sev}"),
                        _num(d.line),
                        Cell(d.message),
                        Cell(d.effect),
                        Cell(d.hint),
                    )
                )
        note = ""
        if sum(left.values()):
            note = (
                f"{_plural(sum(left.values()), 'more finding')} not shown "
                f"({left['error']:,} errors, {left['warning']:,} warnings, {left['info']:,} notes); "
                "run `skillprism check` for all of them."
            )
        sec.blocks.append(
            Table(
                ("Code", "Severity", "Line", "Message", "Effect", "Hint"),
                rows,
                ident=f"problems-table-{c.profile.name}",
                note=note,
            )
        )
    return sec


def _risks(catalogs: Sequence[Catalog], max_items: int) -> Section:
    """Every security finding in the set, once (they do not depend on the runtime), the most
    severe first."""
    sec = Section("risks", "Security risks")
    sec.blocks.append(
        Para(
            "What a skill could do to the person who installs it, from a static pass: nothing in "
            "the skills was run, imported or fetched, so a clean result is not a proof of safety. "
            "Could do: the risk's effect. Confirm or remove: how to check it and fix it."
        )
    )
    seen: dict[tuple[str, str, int, int, str], tuple[Diagnostic, str]] = {}
    for c in catalogs:
        index = _skill_index(c)
        for d in c.all_diagnostics():
            if d.code not in SECURITY_CODES:
                continue
            skill = index.get(d.path)
            if skill is None:
                skill = next((s for s in c.skills if d.path.startswith(s.directory + "/")), None)
            name = (skill.qualified_name or skill.name) if skill is not None else ""
            seen.setdefault((d.path, d.code, d.line, d.column, d.message), (d, name or "?"))
    found = sorted(
        seen.values(),
        key=lambda dn: (-dn[0].severity.rank, dn[1], dn[0].path, dn[0].line, dn[0].column),
    )
    counts = {k: 0 for k in SEVERITIES}
    for d, _name in found:
        counts[d.severity.value] += 1
    sec.title = (
        f"Security risks: {counts['error']:,} high, {counts['warning']:,} medium, "
        f"{counts['info']:,} low"
    )
    if not found:
        if not any(c.security for c in catalogs):
            sec.title = "Security risks: not checked"
            sec.blocks.append(
                Para("The security pass was not run for this report (`security = false`).")
            )
        else:
            sec.blocks.append(Para("The static pass found no risks in these skills."))
        return sec
    rows: list[tuple[Cell, ...] | str] = []
    for d, name in found[:max_items]:
        sev = d.severity.value
        where = f"{d.path}:{d.line}:{d.column}" if d.line else d.path
        evidence = d.evidence if len(d.evidence) <= 160 else d.evidence[:159] + "…"
        rows.append(
            (
                Cell(sev, cls=f"sev-{sev}"),
                Cell(d.code, mono=True),
                Cell(name, mono=True),
                Cell(where, mono=True),
                Cell(d.message),
                Cell(evidence, mono=True),
                Cell(d.effect),
                Cell(d.hint),
            )
        )
    note = ""
    if len(found) > max_items:
        note = (
            f"{_plural(len(found) - max_items, 'more risk')} not shown; run "
            "`skillprism check` for all of them."
        )
    sec.blocks.append(
        Table(
            (
                "Severity",
                "Code",
                "Skill",
                "Where",
                "Risk",
                "Evidence",
                "Could do",
                "Confirm or remove",
            ),
            rows,
            ident="risks-table",
            note=note,
        )
    )
    return sec


def _precedence(catalogs: Sequence[Catalog], max_items: int) -> Section:
    sec = Section("precedence", "Precedence and shadowing")
    sec.blocks.append(
        Para(
            "Where each runtime looks, in the order that wins a name clash (rank 0 first), which "
            "copies lose to another of the same name, and where a runtime keeps both."
        )
    )
    kept_code = RULES["kept-both"].code
    for c in catalogs:
        p = c.profile
        shadowed = [s for s in c.skills if s.status == "shadowed"]
        kept: dict[str, list[SkillEntry]] = {}
        for s in c.skills:
            if any(d.code == kept_code for d in s.diagnostics):
                kept.setdefault(s.qualified_name or s.name, []).append(s)
        sec.blocks.append(
            Heading(
                3,
                f"{p.name}: {_plural(len(shadowed), 'shadowed copy', 'shadowed copies')}, "
                f"{_plural(len(kept), 'name')} kept more than once",
                f"precedence-{p.name}",
            )
        )
        sec.blocks.append(Para(f"Tie rule: {p.tie_rule}. {p.title} looks in:"))
        sec.blocks.append(
            Table(
                ("Rank", "Scope", "Layout", "Folder", "Exists"),
                [
                    (
                        _num(r.rank),
                        Cell(r.scope + (" (given)" if r.explicit else "")),
                        Cell(r.layout),
                        Cell(r.path, mono=True),
                        Cell("yes" if r.exists else "no"),
                    )
                    for r in c.roots
                ],
                ident=f"roots-{p.name}",
            )
        )
        if shadowed:
            rows: list[tuple[Cell, ...] | str] = []
            for s in shadowed[:max_items]:
                message = next(
                    (d.message for d in s.diagnostics if d.code == RULES["shadowed"].code),
                    s.reason,
                )
                rows.append(
                    (
                        Cell(s.qualified_name or s.name, mono=True),
                        Cell(s.path, mono=True),
                        Cell(s.shadowed_by, mono=True),
                        Cell(message),
                    )
                )
            left = len(shadowed) - len(rows)
            sec.blocks.append(
                Table(
                    ("Skill", "Shadowed copy", "Winner", "What the runtime says"),
                    rows,
                    ident=f"shadowed-{p.name}",
                    note=f"{_plural(left, 'more shadowed copy', 'more shadowed copies')} not shown."
                    if left > 0
                    else "",
                )
            )
        else:
            sec.blocks.append(Para("No copy is shadowed."))
        if kept:
            items = sorted(kept.items())
            rows = [
                (Cell(name, mono=True), Cell("; ".join(s.path for s in copies), mono=True))
                for name, copies in items[:max_items]
            ]
            left = len(items) - len(rows)
            sec.blocks.append(
                Table(
                    ("Skill", "Copies all kept (the model sees each)"),
                    rows,
                    ident=f"kept-{p.name}",
                    note=f"{_plural(left, 'more name')} not shown." if left > 0 else "",
                )
            )
    return sec


def _budget_chart(c: Catalog, r: Tier1Result, counts: dict[str, int]) -> Chart:
    entries = [e for e in r.entries if e.chars > 0]
    entries.sort(key=lambda e: -e.chars)
    limit, used = r.limit_chars, r.used_chars
    scale = max(limit or 0, used, 1)
    segments: list[Segment] = []
    shown_chars = 0
    for e in entries[:MAX_SEGMENTS]:
        if e.chars < MIN_SHARE * scale:
            break
        segments.append(Segment(f"{e.name} ({e.outcome})", e.chars))
        shown_chars += e.chars
    rest = entries[len(segments) :]
    rest_chars = sum(e.chars for e in rest)
    if rest:
        segments.append(Segment(f"others: {_plural(len(rest), 'skill')}", rest_chars, "others"))
    frame = used - shown_chars - rest_chars
    if frame > 0:
        segments.append(Segment("listing header, footer and separators", frame, "frame"))
    if limit is not None and limit > used:
        segments.append(Segment("headroom (unused budget)", limit - used, "headroom"))
    listed = counts["full"] + counts["shortened"] + counts["name-only"]
    notes = [
        f"listed: {listed:,} (full {counts['full']:,}, shortened {counts['shortened']:,}, "
        f"name-only {counts['name-only']:,}); omitted by the budget: {counts['omitted']:,}; "
        f"excluded by a rule: {counts['excluded']:,}"
    ]
    if entries:
        notes.append(f"largest entry: {entries[0].name} ({entries[0].chars:,} characters)")
    if limit is None:
        title = f"{c.profile.name}: {used:,} characters listed, no budget"
        marker_label = ""
    elif used > limit:
        title = f"{c.profile.name}: {used:,} of {limit:,} characters — over by {used - limit:,}"
        marker_label = f"limit {limit:,}"
    else:
        title = f"{c.profile.name}: {used:,} of {limit:,} characters ({100 * used / limit:.1f}%)"
        marker_label = f"limit {limit:,}"
    svg = stacked_bar(
        segments,
        scale=scale,
        title=title,
        desc="Each skill's share of the tier-1 listing; the line marks the budget limit. "
        + notes[0],
        ident=f"budget-{c.profile.name}",
        marker=limit,
        marker_label=marker_label,
        notes=notes,
    )
    rows: list[tuple[Cell, ...] | str] = [
        (Cell(s.label), _num(s.value), Cell(f"{100 * s.value / scale:.1f}%", cls="num"))
        for s in segments
        if s.value > 0
    ]
    return Chart(
        svg, Table(("Part of the bar", "Characters", "Share"), rows, note="; ".join(notes))
    )


def _budget(catalogs: Sequence[Catalog], results: Sequence[Tier1Result], max_items: int) -> Section:
    sec = Section("budget", "Tier-1 budget")
    sec.blocks.append(
        Para(
            "What each runtime's skill listing (names and descriptions in the system prompt) "
            "costs, its budget, and which skills do not keep their full entry."
        )
    )
    for c, r in zip(catalogs, results, strict=True):
        p = c.profile.name
        counts = dict.fromkeys(OUTCOMES, 0)
        for e in r.entries:
            counts[e.outcome] += 1
        sec.blocks.append(Heading(3, f"{p}: {c.profile.title}", f"budget-{p}"))
        sec.blocks.append(
            Table(
                ("Limit (chars)", "Used (chars)", "Headroom (chars)", "Tokens", "Counter"),
                [
                    (
                        _num(r.limit_chars, profile=p, budget="limit"),
                        _num(r.used_chars, profile=p, budget="used"),
                        _num(r.headroom_chars, profile=p, budget="headroom"),
                        _num(r.tokens, profile=p, budget="tokens"),
                        Cell(r.counter),
                    )
                ],
                ident=f"budget-table-{p}",
            )
        )
        sec.blocks.append(
            Table(
                OUTCOMES,
                [tuple(_num(counts[k], profile=p, outcome=k) for k in OUTCOMES)],
                ident=f"outcomes-{p}",
            )
        )
        sec.blocks.append(_budget_chart(c, r, counts))
        assumptions = [*r.assumptions, *c.profile.assumptions]
        if assumptions:
            sec.blocks.append(Para("Assumptions:"))
            sec.blocks.append(Bullets(assumptions))
        sec.blocks.append(
            Para("Settings applied: " + ("; ".join(r.settings_applied) or "none (defaults)"))
        )
        if r.usage_records:
            sec.blocks.append(_usage_table(p, c.profile.title, r, max_items))
        warnings = [line for w in r.warnings for line in w.splitlines() if line.strip()]
        if warnings:
            sec.blocks.append(Para(f"{c.profile.title} would warn:"))
            sec.blocks.append(Bullets(warnings))
        rank = {k: i for i, k in enumerate(OUTCOMES)}
        not_full = sorted(
            (e for e in r.entries if e.outcome != "full"),
            key=lambda e: (rank[e.outcome], e.name, e.path),
        )
        if not not_full:
            sec.blocks.append(Para("Every listed skill keeps its full entry."))
            continue
        rows: list[tuple[Cell, ...] | str] = [
            (
                Cell(e.name, mono=True),
                Cell(e.outcome, cls=f"v-{e.outcome}"),
                Cell(e.reason),
                _num(e.chars),
                _num(e.full_chars),
                Cell(e.path, mono=True),
            )
            for e in not_full[:max_items]
        ]
        left = len(not_full) - len(rows)
        sec.blocks.append(
            Table(
                ("Skill", "Outcome", "Why", "Shown chars", "Full chars", "Path"),
                rows,
                ident=f"not-full-{p}",
                note=f"{_plural(left, 'more skill')} not shown (see the counts above)."
                if left > 0
                else "",
            )
        )
    return sec


def _usage_table(p: str, title: str, r: Tier1Result, max_items: int) -> Table:
    """Each listed skill's usage as the runtime records it, highest priority first: the order in
    which it keeps descriptions when the listing is over budget."""
    outcome = {e.name: e.outcome for e in r.entries}
    used = sorted(
        (u for u in r.usage_records.values() if u.name in outcome),
        key=lambda u: (-u.priority, u.name),
    )
    rows: list[tuple[Cell, ...] | str] = [
        (
            Cell(u.name, mono=True),
            _num(round(u.count)),
            Cell(f"{u.days_since:.1f}"),
            Cell(f"{u.priority:.3f}"),
            Cell(outcome[u.name], cls=f"v-{outcome[u.name]}"),
        )
        for u in used[:max_items]
    ]
    left = len(used) - len(rows)
    unused = sum(1 for name in outcome if name not in r.usage_records)
    note = f"{_plural(unused, 'listed skill')} never used (priority 0)."
    if left > 0:
        note += f" {_plural(left, 'more skill')} with usage not shown."
    return Table(
        ("Skill", "Uses", "Days since last use", "Priority", "Outcome"),
        rows,
        ident=f"usage-{p}",
        note=f"Usage as {title} records it (read only). " + note,
    )


def _matrix(matrix: Matrix, max_rows: int | None) -> Section:
    sec = Section("matrix", "Runtime matrix")
    sec.blocks.append(
        Para(
            "One row per skill file, one column per profile: the skill's state, or for an active "
            "skill its tier-1 outcome (full, shortened, name-only, omitted, excluded). "
            "Hover a cell (HTML) for the reason."
        )
    )
    counts = matrix.counts()
    total = len(matrix.rows)
    sec.blocks.append(
        Table(
            ("Value", *matrix.profiles),
            [
                (
                    Cell(v, cls=f"v-{v}"),
                    *(
                        _num(counts[i][v], profile=p, matrix=v)
                        for i, p in enumerate(matrix.profiles)
                    ),
                )
                for v in CELL_VALUES
            ],
            ident="matrix-counts",
        )
    )
    for i, p in enumerate(matrix.profiles):
        segments = [Segment(v, counts[i][v], v) for v in CELL_VALUES]
        sec.blocks.append(
            Chart(
                stacked_bar(
                    segments,
                    scale=total,
                    title=f"{p}: {_plural(total, 'skill file')} by matrix value",
                    desc="How many skill files end in each matrix value under this profile.",
                    ident=f"matrix-{p}",
                    unit="skill files",
                ),
                Table(("Value", "Skills"), []),  # the counts table above says it in text
            )
        )
    rows = matrix.rows if max_rows is None else matrix.rows[:max_rows]
    body: list[tuple[Cell, ...] | str] = []
    for row in rows:
        cells = [Cell(row.name, mono=True), Cell(row.key, mono=True, cls="path")]
        cells += [Cell(c.value, title=c.reason, cls=f"v-{c.value}") for c in row.cells]
        body.append(tuple(cells))
    left = total - len(rows)
    sec.blocks.append(
        Table(
            ("Skill", "Path", *matrix.profiles),
            body,
            ident="matrix-table",
            note=f"{_plural(left, 'more row')} not shown (the counts above are for all rows)."
            if left > 0
            else "",
        )
    )
    return sec


def _content(
    catalogs: Sequence[Catalog],
    matrix: Matrix,
    tier1_results: Sequence[Tier1Result],
    generated: str,
    paths: Sequence[str],
    project: str,
    max_items: int,
    max_matrix_rows: int | None,
    settings: SettingsReport | None = None,
) -> tuple[list[Heading | Para | Bullets | Table | Chart], list[Section]]:
    if len(tier1_results) != len(catalogs):
        raise ValueError("one tier-1 result per catalog is needed")
    header = _header(catalogs, generated, paths, project, settings)
    sections = [
        _summary(catalogs),
        _problems(catalogs, max_items),
        _risks(catalogs, max_items),
        _precedence(catalogs, max_items),
        _budget(catalogs, tier1_results, max_items),
        _matrix(matrix, max_matrix_rows),
    ]
    return header, sections


# --- HTML ------------------------------------------------------------------------------------


def _html_cell(cell: Cell, tag: str = "td") -> str:
    attrs = ""
    cls = " ".join(x for x in (cell.cls, "path" if cell.mono and not cell.cls else "") if x)
    if cls:
        attrs += f' class="{cls}"'
    if cell.title:
        attrs += f' title="{esc(cell.title)}"'
    if cell.data:
        attrs += "".join(f' data-{k}="{esc(v)}"' for k, v in cell.data.items())
    return f"<{tag}{attrs}>{esc(cell.text)}</{tag}>"


def _html_table(t: Table, out: list[str]) -> None:
    ident = f' id="{esc(t.ident)}"' if t.ident else ""
    out.append(f"<table{ident}><thead><tr>")
    out.append("".join(f"<th>{esc(h)}</th>" for h in t.headers))
    out.append("</tr></thead><tbody>")
    span = len(t.headers)
    for row in t.rows:
        if isinstance(row, str):
            out.append(f'<tr class="group"><th colspan="{span}">{esc(row)}</th></tr>')
        else:
            out.append("<tr>" + "".join(_html_cell(c) for c in row) + "</tr>")
    out.append("</tbody></table>")
    if t.note:
        out.append(f'<p class="note">{esc(t.note)}</p>')


def _html_blocks(
    blocks: Sequence[Heading | Para | Bullets | Table | Chart], out: list[str]
) -> None:
    for b in blocks:
        if isinstance(b, Heading):
            ident = f' id="{esc(b.ident)}"' if b.ident else ""
            out.append(f"<h{b.level}{ident}>{esc(b.text)}</h{b.level}>")
        elif isinstance(b, Para):
            cls = f' class="{esc(b.cls)}"' if b.cls else ""
            out.append(f"<p{cls}>{esc(b.text)}</p>")
        elif isinstance(b, Bullets):
            out.append("<ul>" + "".join(f"<li>{esc(i)}</li>" for i in b.items) + "</ul>")
        elif isinstance(b, Table):
            _html_table(b, out)
        else:
            out.append(b.svg)


def report_html(
    catalogs: Sequence[Catalog],
    matrix: Matrix,
    tier1_results: Sequence[Tier1Result],
    *,
    title: str = "Skill Prism report",
    generated: str = "",
    paths: Sequence[str] = (),
    project: str = "",
    max_items: int = MAX_ITEMS,
    max_matrix_rows: int | None = None,
    settings: SettingsReport | None = None,
) -> str:
    """The report as one self-contained HTML page: inline CSS and SVG, no script, no remote
    resource. Machine-readable counts sit in `data-*` attributes: `data-profile` with
    `data-count` ("skills", "status.ok", "severity.error", ...), `data-budget` ("limit", "used",
    "headroom", "tokens"), `data-outcome` or `data-matrix` (a matrix value). `settings`: the
    project settings report, stated under the header."""
    header, sections = _content(
        catalogs,
        matrix,
        tier1_results,
        generated,
        paths,
        project,
        max_items,
        max_matrix_rows,
        settings,
    )
    out = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f'<meta name="generator" content="Skill Prism {esc(__version__)}">',
        f"<title>{esc(title)}</title>",
        f"<style>\n{CSS}\n</style></head>",
        '<body class="sp-report">',
        f"<header><h1>{esc(title)}</h1>",
    ]
    _html_blocks(header, out)
    out.append('<nav><ul class="toc">')
    out.extend(f'<li><a href="#{s.ident}">{esc(s.title)}</a></li>' for s in sections)
    out.append("</ul></nav></header>")
    for s in sections:
        out.append(f'<section id="{s.ident}"><h2>{esc(s.title)}</h2>')
        _html_blocks(s.blocks, out)
        out.append("</section>")
    out.append("</body></html>\n")
    return "\n".join(out)


# --- Markdown --------------------------------------------------------------------------------

# Backslash-escaped in Markdown text: CommonMark lets any ASCII punctuation be escaped, and these
# would otherwise start emphasis, code, links, raw HTML, entities or a table cell. Parentheses and
# `!` need no escape once brackets have one. Web addresses are broken up (`https\://`, `www\.`) so
# GitHub does not turn text from a skill into a link.
_MD_SPECIAL = "\\`*_{}[]<>#+|&~"
_MD_TABLE = str.maketrans({c: "\\" + c for c in _MD_SPECIAL})
_MD_LINE_START = re.compile(r"^(\d+)([.)])|^([-=])")
_MD_LINK = re.compile(r"(?<=[A-Za-z]):(?=//)|(?<![A-Za-z0-9])(www)\.", re.IGNORECASE)


# A code span in a sentence or a finding (`skillprism check`, `Bash(git status:*)`): kept as one,
# so the report reads as the text means it instead of showing escaped backquotes.
_MD_CODE = re.compile(r"(?<!`)`([^`\n]+)`(?!`)")


def md_escape(text: str, *, line_start: bool = False) -> str:
    """`text` as literal Markdown: one line, nothing interpreted as markup, links or HTML, but
    `code spans` shown as code (nothing inside a code span is interpreted either; a `|` in one
    is escaped for tables). `line_start`: the text opens a paragraph or list item, so a leading
    `-`, `=` or `1.` is escaped too (it would start a list or underline a heading)."""
    if "`" in text:
        pieces, pos = [], 0
        for m in _MD_CODE.finditer(text):
            pieces.append(_md_plain(text[pos : m.start()], line_start and not pieces))
            pieces.append("`" + display_path(m.group(1)).replace("|", "\\|") + "`")
            pos = m.end()
        if pieces:
            pieces.append(_md_plain(text[pos:], False))
            return "".join(pieces)
    return _md_plain(text, line_start)


def _md_plain(text: str, line_start: bool) -> str:
    safe = display_path(text).translate(_MD_TABLE)
    if "://" in safe or "ww." in safe.lower():
        safe = _MD_LINK.sub(lambda m: (m.group(1) + "\\.") if m.group(1) else "\\:", safe)
    if line_start:
        safe = _MD_LINE_START.sub(
            lambda m: (m.group(1) + "\\" + m.group(2)) if m.group(1) else "\\" + m.group(3), safe
        )
    return safe


def _md_cell(cell: Cell) -> str:
    text = md_escape(cell.text)
    if cell.title:
        text += " — " + md_escape(cell.title)
    return text


def _md_table(t: Table, out: list[str]) -> None:
    if not t.rows and not t.note:
        return
    if t.rows:
        out.append("| " + " | ".join(md_escape(h) for h in t.headers) + " |")
        out.append(
            "|" + "|".join("---:" if _numeric(t, i) else "---" for i in range(len(t.headers))) + "|"
        )
        pad = " |" * (len(t.headers) - 1)
        for row in t.rows:
            if isinstance(row, str):
                out.append(f"| **{md_escape(row)}** |{pad}")
            else:
                out.append("| " + " | ".join(_md_cell(c) for c in row) + " |")
    if t.note:
        out.append("")
        out.append(f"_{md_escape(t.note)}_")
    out.append("")


def _numeric(t: Table, i: int) -> bool:
    for row in t.rows:
        if not isinstance(row, str):
            return row[i].cls == "num"
    return False


def _md_blocks(blocks: Sequence[Heading | Para | Bullets | Table | Chart], out: list[str]) -> None:
    for b in blocks:
        if isinstance(b, Heading):
            out.append(f"{'#' * b.level} {md_escape(b.text)}")
            out.append("")
        elif isinstance(b, Para):
            out.append(md_escape(b.text, line_start=True))
            out.append("")
        elif isinstance(b, Bullets):
            out.extend(f"- {md_escape(i, line_start=True)}" for i in b.items)
            out.append("")
        elif isinstance(b, Table):
            _md_table(b, out)
        else:
            _md_table(b.table, out)


def report_markdown(
    catalogs: Sequence[Catalog],
    matrix: Matrix,
    tier1_results: Sequence[Tier1Result],
    *,
    title: str = "Skill Prism report",
    generated: str = "",
    paths: Sequence[str] = (),
    project: str = "",
    max_items: int = MAX_ITEMS,
    max_matrix_rows: int | None = None,
    settings: SettingsReport | None = None,
) -> str:
    """The report as GitHub-flavoured Markdown: the same sections and numbers as `report_html`,
    tables and text instead of charts (each chart's numbers are a table)."""
    header, sections = _content(
        catalogs,
        matrix,
        tier1_results,
        generated,
        paths,
        project,
        max_items,
        max_matrix_rows,
        settings,
    )
    out = [f"# {md_escape(title)}", ""]
    _md_blocks(header, out)
    for s in sections:
        out.append(f"## {md_escape(s.title)}")
        out.append("")
        _md_blocks(s.blocks, out)
    return "\n".join(out).rstrip("\n") + "\n"


__all__ = ["MAX_ITEMS", "md_escape", "report_html", "report_markdown"]
