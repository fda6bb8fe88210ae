"""The words every front end shares for a skill's fate and its place in a listing.

A value module: constants only, no imports, so the window (a client of the engine process) can
name states and outcomes without loading any of the pipeline (docs/architecture.md)."""

from __future__ import annotations

# The fate of a skill under a profile; the first that applies names the state (docs/architecture.md).
STATES = ("not-discovered", "skipped", "error", "shadowed", "warning", "ok")
VALID_STATES = frozenset({"ok", "warning", "shadowed"})
# What a tier-1 listing keeps of an active skill, and the per-skill listing overrides.
OUTCOMES = ("full", "shortened", "name-only", "omitted", "excluded")
OVERRIDES = ("on", "name-only", "user-invocable-only", "off")
# How well a runtime profile is known, best first (docs/profiles.md).
LEVEL_ORDER = ("verified", "partial", "documented", "specified")
