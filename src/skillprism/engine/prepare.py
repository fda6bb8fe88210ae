"""A catalog turned into the view data the window shows (engine/views.py).

Runs in the engine process: the tree's roots and skills in display order (under the window's
filter), every finding as a table row with the file it is in, the budget listing and the matrix
as plain values. The window only applies these.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Sequence
from typing import Any

from skillprism.core.catalog import Catalog, RootInfo, SkillEntry
from skillprism.core.codes import CODES
from skillprism.core.diagnostics import Diagnostic
from skillprism.core.disclose import Tier1Result, is_builtin_key
from skillprism.core.display import home_relative
from skillprism.core.fixes import Fix
from skillprism.core.matrix import Matrix, MatrixRow
from skillprism.core.trigger import EvalReport, Overlap, TriggerIndex
from skillprism.engine.rows import RowList
from skillprism.engine.views import (
    FILTER_SEP,
    EvalRow,
    EvalView,
    FilterQuery,
    FixRow,
    MatrixData,
    OutcomeRow,
    ProblemRow,
    RootRow,
    SkillRow,
    Tier1View,
    TreeView,
    TriggerRow,
    TriggerView,
)

_RANK = {"error": 0, "warning": 1, "info": 2}
STATE_TEXT = {
    "ok": "ok",
    "warning": "warning",
    "error": "error",
    "shadowed": "shadowed",
    "skipped": "skipped",
    "not-discovered": "not discovered",
}
DESCRIPTION_SHOWN = 300  # characters of a description a tooltip shows


def skill_label(skill: SkillEntry) -> str:
    """A skill as the window names it."""
    return skill.qualified_name or skill.name or os.path.basename(skill.directory)


def ordered_roots(catalog: Catalog) -> list[RootInfo]:
    """The catalog's roots as the tree shows them: by rank, then path; a root that only a skill
    names (a PATH given as a skill file) included."""
    infos: dict[tuple[str, str], RootInfo] = {}
    for root in catalog.roots:
        infos.setdefault((root.path, root.scope), root)
    for skill in catalog.skills:
        infos.setdefault((skill.root.path, skill.root.scope), skill.root)
    return sorted(infos.values(), key=lambda info: (info.rank, info.path))


def root_rows(roots: Sequence[RootInfo]) -> tuple[RootRow, ...]:
    """The roots with their labels: relative to what they share, so
    ".../skills/project/.claude/skills" reads as "skills/project/.claude/skills" (the full path
    is in the tooltip)."""
    paths = [info.path for info in roots]
    try:
        common = os.path.dirname(os.path.commonpath(paths)) if len(paths) > 1 else ""
    except ValueError:
        common = ""
    rows = []
    for info in roots:
        label = (
            os.path.relpath(info.path, common)
            if common and common != os.sep
            else home_relative(info.path)
        )
        rows.append(RootRow(info.path, info.scope, info.layout, label, info.exists))
    return tuple(rows)


def skill_rows(
    catalog: Catalog, roots: Sequence[RootInfo], risks_known: bool = True
) -> tuple[list[SkillRow], list[list[int]]]:
    """Every skill as a row, and per root the indexes of its skills in display order (by name);
    `risks_known` False: the risks are still being scanned (each row's risk is "")."""
    where = {(info.path, info.scope): i for i, info in enumerate(roots)}
    rows: list[SkillRow] = []
    members: list[list[int]] = [[] for _ in roots]
    for skill in catalog.skills:
        index = where[(skill.root.path, skill.root.scope)]
        members[index].append(len(rows))
        rows.append(
            SkillRow(
                skill.key,
                skill.path,
                skill.directory,
                skill_label(skill),
                skill.status,
                skill.shadowed_by,
                skill.reason,
                (skill.description or "")[:DESCRIPTION_SHOWN],
                index,
                skill.risk if risks_known else "",
            )
        )
    for group in members:
        group.sort(key=lambda i: (catalog.skills[i].name or catalog.skills[i].directory).lower())
    return rows, members


def tree_view(
    roots: Sequence[RootRow],
    skills: Sequence[SkillRow],
    members: Sequence[Sequence[int]],
    query: FilterQuery,
    keep: frozenset[str] | None,
    serial: int,
) -> TreeView:
    """The roots and skills the tree shows under `query` (`keep`: the keys it keeps, None for
    every skill), each root with its summary ("3 of 12 skills: 2 ok, 1 error")."""
    groups = []
    for index, (root, every) in enumerate(zip(roots, members, strict=True)):
        shown = tuple(every) if keep is None else tuple(i for i in every if skills[i].key in keep)
        if (not shown and not root.exists) or (keep is not None and not shown):
            continue
        counts = Counter(skills[i].status for i in shown)
        summary = ", ".join(f"{n} {STATE_TEXT[s]}" for s, n in counts.most_common())
        count = f"{len(shown)} of {len(every)}" if keep is not None else f"{len(shown)}"
        text = f"{count} skill{'s' if len(every) != 1 else ''}" + (
            f": {summary}" if summary else ""
        )
        groups.append((index, text, shown))
    return TreeView(query, keep, tuple(groups), serial)


def tree_shape(
    tree: TreeView, roots: Sequence[RootRow], skills: Sequence[SkillRow]
) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """Which roots and skills a tree shows, in order."""
    return tuple(
        (roots[index].path, tuple(skills[i].key for i in shown))
        for index, _text, shown in tree.groups
    )


def problem_rows(catalog: Catalog) -> list[ProblemRow]:
    """Every finding of `catalog`, sorted by severity then code (the table's first order)."""
    found: list[tuple[Diagnostic, SkillEntry | None]] = [(d, None) for d in catalog.diagnostics]
    for s in catalog.skills:
        found.extend((d, s) for d in s.diagnostics)
    rows = [problem_row(d, skill) for d, skill in found]
    rows.sort(key=lambda r: r.sort_keys[0])
    return rows


def problem_row(d: Diagnostic, skill: SkillEntry | None) -> ProblemRow:
    """One finding as a row (of `skill`, or of a root or the set). A finding in a file other
    than the skill's own names that file, relative to the skill folder."""
    sev = d.severity.value
    path: str = d.path or (skill.path if skill is not None else "")
    if skill is not None and path.startswith(skill.directory + os.sep):
        shown = path[len(skill.directory) + 1 :]
    else:
        shown = path
    line, column = d.line, d.column
    location = f"{shown}:{line}:{column}" if line else shown
    key = skill.key if skill is not None else ""
    name = skill_label(skill) if skill is not None else ""
    code = d.code
    info = CODES.get(code)
    return ProblemRow(
        d,
        key,
        name,
        location,
        path,
        f"{key}{FILTER_SEP}{sev}{FILTER_SEP}" + f"{code} {d.message} {name}".lower(),
        ((_RANK[sev], code), code, d.message, name, (path, line, column)),
        info is not None and info.category == "security",
    )


def _usage_of(record: Any) -> tuple[float, str]:
    """A usage record (core/usage.py) as the budget table shows it: its priority, and in words."""
    if record is None:
        return 0.0, ""
    days = record.days_since
    when = "today" if days < 1 else f"{days:.0f} day{'s' if days >= 1.5 else ''} ago"
    count = f"{record.count:g} use{'s' if record.count != 1 else ''}"
    return float(record.priority), f"{count}, last {when} (priority {record.priority:.2f})"


def tier1_view(result: Tier1Result, title: str, unread: Sequence[str]) -> Tier1View:
    """A computed listing as the budget view shows it."""
    records = result.usage_records
    entries = [
        OutcomeRow(
            e.name,
            e.key,
            e.path,
            e.outcome,
            e.kept_chars,
            e.chars,
            e.tokens,
            e.reason,
            *_usage_of(records.get(e.name)),
        )
        for e in result.entries
    ]
    return Tier1View(
        title,
        result.text,
        result.used_chars,
        result.limit_chars,
        result.headroom_chars,
        result.counter,
        tuple(result.warnings),
        tuple(result.settings_applied),
        tuple(result.assumptions),
        tuple(unread),
        RowList(OutcomeRow, entries),
    )


def matrix_view(matrix: Matrix) -> MatrixData:
    """The matrix with the skill column's text per row (the name, and where the skill lives when
    several copies share it, relative to the part their folders share) and each column's
    distinct texts."""
    counts = Counter(r.name for r in matrix.rows)
    dirs = [os.path.dirname(os.path.dirname(r.key)) for r in matrix.rows]
    try:
        common = os.path.commonpath(dirs) if len(dirs) > 1 else ""
    except ValueError:
        common = ""
    base = os.path.dirname(common) if common else ""
    labels = [
        f"{r.name} ({os.path.relpath(d, base) if base else d})" if counts[r.name] > 1 else r.name
        for r, d in zip(matrix.rows, dirs, strict=True)
    ]
    texts = []
    for column in range(len(matrix.profiles)):
        distinct = {row.cells[column].text for row in matrix.rows}
        texts.append(tuple(sorted(distinct, key=len, reverse=True)))
    return MatrixData(
        matrix.profiles, matrix.titles, tuple(texts), labels, RowList(MatrixRow, matrix.rows)
    )


ABOVE_SHOWN = 8  # names of the skills ranked above the selected one, in a trigger view


def trigger_view(
    index: TriggerIndex,
    prompt: str,
    key: str,
    title: str,
    context_window: int,
    overlaps: Sequence[Overlap],
) -> TriggerView:
    """`prompt` against the listed skills of `index`, seen from the skill `key`."""
    from skillprism.core.trigger import ESTIMATE_NOTE

    candidate = index.candidate(key)
    estimate = index.estimate(prompt) if prompt.strip() else None
    ranking = estimate.ranking if estimate is not None else ()
    rank = estimate.rank_of(key) if estimate is not None else None
    picked = estimate.picked() if estimate is not None else None
    names = {c.key: c.name for c in index.candidates}
    return TriggerView(
        prompt,
        key,
        candidate.name if candidate is not None else "",
        title,
        context_window,
        ESTIMATE_NOTE,
        len(index.listed),
        len(index.candidates),
        index.builtin_listed,
        candidate.outcome if candidate is not None else "",
        rank,
        tuple(r.name for r in estimate.above(key)[:ABOVE_SHOWN]) if estimate is not None else (),
        picked.name if picked is not None else "",
        tuple(
            (other, names.get(other, other), o.similarity)
            for o in overlaps
            for other in (o.second if o.first == key else o.first,)
        ),
        RowList(
            TriggerRow,
            (
                TriggerRow(r.rank, r.key, r.name, r.outcome, r.score, is_builtin_key(r.key))
                for r in ranking
            ),
        ),
    )


def eval_view(report: EvalReport, path: str, key: str, name: str, title: str) -> EvalView:
    """An eval set's outcomes as the trigger view's table shows them."""
    return EvalView(
        path,
        key,
        name,
        title,
        report.accuracy,
        report.precision,
        report.recall,
        report.top(1),
        report.top(3),
        tuple(
            EvalRow(o.query, o.should_trigger, o.picked, o.rank or 0, o.instead, o.correct)
            for o in report.outcomes
        ),
    )


def fix_row(at: int, fix: Fix, key: str, project: str) -> FixRow:
    """An offered fix as the fix dialog lists it: its diff names the file relative to the
    project when it is inside it."""
    from skillprism.formats.diff import unified_diff

    shown = fix.path
    if project and (fix.path + os.sep).startswith(os.path.join(project, "")):
        shown = os.path.relpath(fix.path, project)
    shown = shown.replace(os.sep, "/").lstrip("/")
    return FixRow(
        at,
        fix.code,
        key,
        fix.path,
        fix.line,
        fix.title,
        fix.confidence,
        ", ".join(fix.helps),
        unified_diff(fix.snapshot.data, fix.new_bytes(), shown),
    )
