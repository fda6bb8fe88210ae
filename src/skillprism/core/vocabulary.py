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
# A skill's risk: the worst severity of its security findings ("none" without any).
RISKS = ("none", "info", "warning", "error")


def state_and_risk(status: str, risk: str) -> str:
    """How a skill's state and risk are shown together, in the window's tree and in text:
    the state alone when the risk is below warning ("ok"), else both ("ok, risk: error")."""
    return f"{status}, risk: {risk}" if risk in ("warning", "error") else status


# The codes some family offers a fix for (a front end marks their findings; whether a fix is
# offered for one finding is known only once it is checked: `offer_fixes`).
FIXABLE_CODES = frozenset(
    {
        *("SP109", "SP111", "SP112", "SP113", "SP121", "SP124"),  # frontmatter, YAML values
        *("SP203", "SP204", "SP205", "SP206", "SP207", "SP208"),  # names
        *("SP212", "SP216", "SP217", "SP501"),  # description, fields, links
    }
)
