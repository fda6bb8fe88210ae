"""The runtime comparison matrix: skills x profiles. A cell is the skill's state under that
profile, or for an active skill its tier-1 outcome (docs/architecture.md), with the reason."""

from __future__ import annotations

import os
from collections.abc import Sequence

from skillprism.core.catalog import Catalog
from skillprism.core.disclose import BudgetSettings, Tier1Model
from skillprism.core.matrix import CELL_VALUES, Matrix, MatrixCell, MatrixRow
from skillprism.core.tokens import TokenCounter

__all__ = ["CELL_VALUES", "Matrix", "MatrixCell", "MatrixRow", "build_matrix", "matrix_per_profile"]

_ABSENT = MatrixCell(
    "not-discovered", "not under any of this runtime's roots", "not-discovered", ""
)


def build_matrix(
    catalogs: Sequence[Catalog],
    settings: BudgetSettings | None = None,
    counter: TokenCounter | None = None,
) -> Matrix:
    """One row per skill file found under any of the catalogs (sorted by name, then path).
    Without `settings`, each runtime's own defaults (core.disclose.default_settings)."""
    per_profile: list[dict[str, MatrixCell]] = []
    names: dict[str, str] = {}
    for catalog in catalogs:
        outcomes = Tier1Model(catalog, counter).compute(settings)
        reasons = {e.key: (e.outcome, e.reason) for e in outcomes.entries}
        cells: dict[str, MatrixCell] = {}
        for skill in catalog.skills:
            names.setdefault(
                skill.key, skill.qualified_name or skill.name or os.path.basename(skill.directory)
            )
            if skill.loaded and skill.key in reasons:
                outcome, why = reasons[skill.key]
                cells[skill.key] = MatrixCell(outcome, why or skill.reason, skill.status, outcome)
            else:
                why = skill.reason or (
                    f"shadowed by {skill.shadowed_by}" if skill.shadowed_by else ""
                )
                if skill.status == "error":
                    why = next(
                        (d.message for d in skill.diagnostics if d.severity.value == "error"), why
                    )
                cells[skill.key] = MatrixCell(skill.status, why, skill.status, "")
        per_profile.append(cells)
    rows = [
        MatrixRow(key, names[key], tuple(cells.get(key, _ABSENT) for cells in per_profile))
        for key in sorted(names, key=lambda k: (names[k].lower(), k))
    ]
    return Matrix(
        profiles=tuple(c.profile.name for c in catalogs),
        titles=tuple(c.profile.title for c in catalogs),
        rows=tuple(rows),
    )


def matrix_per_profile(catalogs: Sequence[Catalog], settings: Sequence[BudgetSettings]) -> Matrix:
    """The matrix with each catalog's own budget settings (`build_matrix` takes one set for all):
    one matrix per profile, merged column by column. Cells are outcomes and reasons, never token
    counts, so the listing pass uses the cheap estimate."""
    if not catalogs or all(s == settings[0] for s in settings):
        return build_matrix(catalogs, settings[0] if settings else None)
    parts = [build_matrix([c], s) for c, s in zip(catalogs, settings, strict=True)]
    names: dict[str, str] = {}
    columns: list[dict[str, MatrixCell]] = []
    for m in parts:
        columns.append({row.key: row.cells[0] for row in m.rows})
        for row in m.rows:
            names.setdefault(row.key, row.name)
    rows = tuple(
        MatrixRow(key, names[key], tuple(col.get(key, _ABSENT) for col in columns))
        for key in sorted(names, key=lambda k: (names[k].lower(), k))
    )
    return Matrix(
        profiles=tuple(c.profile.name for c in catalogs),
        titles=tuple(c.profile.title for c in catalogs),
        rows=rows,
    )
