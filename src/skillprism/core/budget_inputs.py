"""What a user sets for the tier-1 budget in a front end: a value, checked but not applied.

A value module (the window builds one from its controls and hands it to the engine process);
the Workspace merges it with the profile's defaults and the runtime's own settings files."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field

from skillprism.core.vocabulary import OVERRIDES


@dataclass(frozen=True)
class BudgetInputs:
    """What a user sets for the tier-1 budget in a front end (the CLI's options, the window's
    controls). `context_window` in tokens, 0 = unknown; None: not set here, so the runtime's
    own setting decides, else core.disclose.DEFAULT_CONTEXT_WINDOW."""

    context_window: int | None = None
    budget_chars: int | None = None
    budget_fraction: float | None = None
    usage: Mapping[str, float] = field(default_factory=dict)
    pins: frozenset[str] = frozenset()
    overrides: Mapping[str, str] = field(default_factory=dict)
    allowlist: tuple[str, ...] | None = None
    # Read the runtime's own usage records (a profile's [usage], e.g. Claude Code's ~/.claude.json)
    # so the listing is the one the runtime gives today; `usage` above wins for the names it gives.
    local_usage: bool = True

    def problems(self) -> list[str]:
        """What is wrong with these inputs, each in a sentence (empty when they are usable)."""
        out = []
        if self.context_window is not None and self.context_window < 0:
            out.append("the context window must be 0 (unknown) or more tokens")
        if self.budget_chars is not None and self.budget_fraction is not None:
            out.append("use either a fixed budget in characters or a fraction, not both")
        if self.budget_fraction is not None and not (
            math.isfinite(self.budget_fraction) and 0 < self.budget_fraction <= 1
        ):
            out.append("the budget fraction must be a number above 0 and at most 1")
        if self.budget_chars is not None and self.budget_chars <= 0:
            out.append("the fixed budget must be a positive number of characters")
        for name, mode in self.overrides.items():
            if mode not in OVERRIDES:
                out.append(f"override for '{name}' must be one of {', '.join(OVERRIDES)}")
        return out
