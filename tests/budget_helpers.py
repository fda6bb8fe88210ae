"""Budgets for tests that leave room beyond a runtime's built-in skills, which keep their
descriptions and cost their entries first (Claude Code's bundled skills, `builtin_full`)."""

from __future__ import annotations

from skillprism.core.catalog import Catalog
from skillprism.core.disclose import BudgetSettings, Tier1Model
from skillprism.core.profiles import load_profile


def builtin_count(profile: str) -> int:
    """How many built-in skills the profile lists beside the user's."""
    return len(load_profile(profile).disclosure.tier1.builtin)


def room(chars: int, profile: str = "claude-code") -> int:
    """A fixed budget (characters) leaving `chars` for the user's entries once the profile's
    built-in skills and the line break before the user's entries are paid for."""
    empty = Catalog(load_profile(profile), (), (), ())
    text = Tier1Model(empty).compute(BudgetSettings(budget_chars=10**6)).text
    header = empty.profile.disclosure.tier1.header
    return chars + len(text) - len(header) + 1
