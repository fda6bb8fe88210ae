"""Compiler-style text: `path:line:col: severity CODE message`, the runtime's effect and the fix
indented below, and a summary line per profile (`== profile NAME ==` headers with several).
Security findings carry `[security]` after their code. Last, the project settings: which file
applied and what it held back (`settings: ...` lines; with --quiet only when it switched a check
off or hid findings)."""

from __future__ import annotations

from collections.abc import Sequence

from skillprism.core.catalog import RISKS, Catalog
from skillprism.core.codes import CODES
from skillprism.core.display import display_path
from skillprism.core.settings import SettingsReport
from skillprism.formats.places import ABSOLUTE, Places

_COLORS = {"error": "\033[1;31m", "warning": "\033[1;33m", "info": "\033[1;36m"}
_RESET, _BOLD, _DIM = "\033[0m", "\033[1m", "\033[2m"


def _paint(text: str, code: str, color: bool) -> str:
    return f"{code}{text}{_RESET}" if color else text


def format_text(
    catalogs: Sequence[Catalog],
    color: bool = False,
    *,
    quiet: bool = False,
    places: Places = ABSOLUTE,
    settings: SettingsReport | None = None,
) -> str:
    """Every finding of every catalog; `quiet`: the findings only, no headers or summaries
    (but what project `settings` switched off or hid, if anything)."""
    out: list[str] = []
    multi = len(catalogs) > 1
    for cat in catalogs:
        if multi and not quiet:
            out.append(_paint(f"== profile {cat.profile.name} ==", _BOLD, color))
        diags = sorted(cat.all_diagnostics(), key=lambda d: (d.path, d.line, d.column, d.code))
        for d in diags:
            sev = d.severity.value
            tag = " [security]" if CODES[d.code].category == "security" else ""
            out.append(
                f"{places.where(d.path, d.line, d.column)}: {_paint(sev, _COLORS[sev], color)} "
                f"{d.code}{tag} {display_path(d.message)}"
            )
            if quiet:
                continue
            if d.effect:
                out.append("    " + _paint(f"effect: {display_path(d.effect)}", _DIM, color))
            if d.hint:
                out.append("    " + _paint(f"hint: {display_path(d.hint)}", _DIM, color))
        if quiet:
            continue
        s = cat.summary()
        states = ", ".join(f"{n} {k}" for k, n in s["status"].items() if n)
        sev = s["severity"]
        # Skills whose security findings reach warning or error (core/catalog.py: risk).
        risky = {r: s["risk"][r] for r in reversed(RISKS[2:]) if s["risk"][r]}
        at_risk = (
            f"; {sum(risky.values())} skill(s) at risk ("
            + ", ".join(f"{n} {r}" for r, n in risky.items())
            + ")"
            if risky
            else ""
        )
        out.append(
            f"{cat.profile.name}: {s['skills']} skill file(s){': ' + states if states else ''}; "
            f"{sev['error']} error(s), {sev['warning']} warning(s), {sev['info']} note(s)" + at_risk
        )
    if settings is not None and (not quiet or settings.relaxes):
        out.extend(_paint(display_path(line), _BOLD, color) for line in settings.lines())
    return "\n".join(out) + "\n" if out else ""
