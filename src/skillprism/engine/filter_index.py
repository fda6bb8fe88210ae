"""Which skills a filter matches, answered from an index built once per catalog.

The window's skill filter is words that must all occur (in the name, the folder's name, the
description or the findings' codes) and a set of states (or `has-problems`: any finding at
warning or above). Building the index walks the catalog once; a query
is one pass over prepared lower-case strings, so the engine answers each keystroke quickly and the
window only applies a set of keys. No Qt here."""

from __future__ import annotations

import os
from collections.abc import Iterable

from skillprism.core.catalog import Catalog
from skillprism.engine.views import FilterQuery

HAS_PROBLEMS = "has-problems"  # a pseudo-state of the filter: findings at warning or above


class FilterIndex:
    """Every skill's key, state and searchable text, in catalog order."""

    __slots__ = ("_rows",)

    def __init__(self, catalog: Catalog | None) -> None:
        rows: list[tuple[str, str, str]] = []
        if catalog is not None:
            for skill in catalog.skills:
                codes = " ".join(d.code for d in skill.diagnostics)
                folder = os.path.basename(skill.directory)
                name = skill.qualified_name or skill.name
                haystack = f"{name} {folder} {skill.description or ''} {codes}".lower()
                state = skill.status
                if state in ("ok", "shadowed") and any(
                    d.severity.value != "info" for d in skill.diagnostics
                ):
                    state += "+"  # the state, and findings at warning or above
                rows.append((skill.key, state, haystack))
        self._rows = rows

    def __len__(self) -> int:
        return len(self._rows)

    def matches(self, query: FilterQuery) -> frozenset[str] | None:
        """The keys of the skills `query` keeps (None: the query keeps everything)."""
        if not query.active:
            return None
        terms, states = query.terms, set(query.states)
        if HAS_PROBLEMS in states:
            # a finding at warning or above: every state but ok and shadowed, or one of those
            # with such a finding (a security warning leaves the runtime's state as it is)
            states |= {"not-discovered", "skipped", "error", "warning", "ok+", "shadowed+"}
        else:
            states |= {f"{s}+" for s in states}
        return frozenset(
            key
            for key, state, haystack in self._rows
            if (not states or state in states) and all(t in haystack for t in terms)
        )

    def keys(self) -> Iterable[str]:
        return (key for key, _state, _text in self._rows)
