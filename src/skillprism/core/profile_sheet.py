"""What a runtime profile models and where each of its facts comes from: the release, how well it
is known (verified by the conformance lab, partly verified, documented, specified), how each part
was established, the folders it reads, every cited source and every known difference.

One sheet for every place that shows it: `skillprism profiles NAME` prints the Markdown (or the
dict as JSON), the window renders the Markdown in its Runtime Details dialog."""

from __future__ import annotations

from typing import Any

from skillprism.core.profiles import PARTS, Profile

LEVEL_WORDS = {
    "verified": "verified by the conformance lab",
    "partial": "partly verified by the conformance lab (known differences listed below)",
    "documented": "documented only: the runtime's code was not run",
    "specified": "modelled from a written specification",
}
# The level above each one: what `held_back` keeps the profile from.
NEXT_LEVEL = {"partial": "verified", "documented": "partial", "specified": "documented"}
# An assumption that names a known difference from the runtime starts with one of these ("Schema
# gap:" is dropped from the sheet's list; "Known difference (lab: case)" stays, naming its case).
GAP_PREFIX = "Schema gap:"
KNOWN_PREFIX = "Known difference"


def is_known_difference(assumption: str) -> bool:
    return assumption.startswith((GAP_PREFIX, KNOWN_PREFIX))


def profile_sheet(profile: Profile) -> dict[str, Any]:
    """The sheet as plain data (the JSON form of `skillprism profiles --format json`)."""
    rt = profile.runtime
    gaps = [a for a in profile.assumptions if is_known_difference(a)]
    return {
        "name": profile.name,
        "title": profile.title,
        "summary": profile.summary,
        "provenance": profile.provenance,
        "release": rt.release,
        "package": rt.package,
        "level": rt.level,
        "level_source": rt.level_source,
        "next_level": NEXT_LEVEL.get(rt.level, ""),
        "held_back": list(rt.held_back),
        "verified_on": rt.verified_on,
        "verified_by": rt.verified_by,
        "parts": {part: rt.parts[part] for part in PARTS if part in rt.parts},
        "roots": [
            {
                "scope": r.scope,
                "path": r.path,
                "layout": r.layout,
                "enabled_by": r.enabled_by,
                "unless_env": list(r.unless_env),
                "note": r.note,
            }
            for r in profile.roots
        ],
        "sources": list(profile.sources),
        "known_differences": [g.removeprefix(GAP_PREFIX).strip() for g in gaps],
        "assumptions": [a for a in profile.assumptions if not is_known_difference(a)],
        "path": profile.path,
    }


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ") or "–"


def profile_sheet_markdown(profile: Profile) -> str:
    """The sheet as a Markdown page."""
    sheet = profile_sheet(profile)
    lines = [f"# {sheet['title']}", "", sheet["summary"], ""]
    level = LEVEL_WORDS.get(sheet["level"], sheet["level"])
    if sheet["level_source"] == "lab":
        level += " (derived from the lab's recorded results)"
    facts = [
        ("Release", sheet["release"] or "not stated"),
        ("Package", sheet["package"] or "–"),
        ("Level", level),
    ]
    if sheet["verified_on"]:
        facts.append(("Verified on", sheet["verified_on"]))
    if sheet["verified_by"]:
        facts.append(("Verified by", sheet["verified_by"]))
    facts.append(("Profile file", sheet["path"]))
    lines += [f"- **{label}:** {value}" for label, value in facts]
    if sheet["next_level"] and sheet["held_back"]:
        lines += ["", f"## What keeps it from {sheet['next_level']}", ""]
        lines += [f"- {why}" for why in sheet["held_back"]]
    if sheet["parts"]:
        lines += ["", "## How each part is known", "", "| part | established by |", "|---|---|"]
        lines += [f"| {part} | {_cell(how)} |" for part, how in sheet["parts"].items()]
    lines += ["", "## Where it looks for skills", ""]
    if sheet["roots"]:
        lines += ["| scope | folder | layout | read when |", "|---|---|---|---|"]
        for root in sheet["roots"]:
            when = root["enabled_by"] or "always"
            if root["unless_env"]:
                names = " and ".join(f"${name}" for name in root["unless_env"])
                when = f"{'' if when == 'always' else when + '; '}while {names} unset"
            if root["note"]:
                when = f"{when}: {root['note']}"
            lines.append(
                f"| {root['scope']} | `{root['path']}` | {root['layout']} | {_cell(when)} |"
            )
    else:
        lines.append("Only the folders you open.")
    lines += ["", "## Known differences from the runtime", ""]
    lines += [f"- {gap}" for gap in sheet["known_differences"]] or ["None listed."]
    if sheet["assumptions"]:
        lines += ["", "## Assumptions", ""]
        lines += [f"- {a}" for a in sheet["assumptions"]]
    lines += ["", "## Sources", ""]
    lines += [f"- {source}" for source in sheet["sources"]] or ["None cited."]
    return "\n".join(lines) + "\n"
