"""The documented JSON of `check` (docs/check-json.md, resources/schemas/check-output.schema.json).

Pure ASCII; paths stay exact: an undecodable byte is the JSON escape `\\udcNN` (Python's
surrogateescape), so `os.fsencode(path)` gives the original bytes back. Every finding carries its
`category` (parse, frontmatter, discovery, budget, resources, style, security), every skill its
`risk`; `settings` says which project settings file applied, and each result what it held back
(`suppressed`)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from skillprism.core.catalog import Catalog
from skillprism.core.codes import CODES
from skillprism.core.diagnostics import Diagnostic
from skillprism.core.display import unsurrogate
from skillprism.core.settings import HeldBack, SettingsReport

JSON_SCHEMA_VERSION = 1


def json_safe(value: Any) -> Any:
    """`value` with every string free of lone surrogates (see the module doc)."""
    if isinstance(value, str):
        return unsurrogate(value)
    if isinstance(value, dict):
        return {json_safe(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    return value


def diagnostic_json(d: Diagnostic, with_path: bool = False) -> dict[str, Any]:
    """One finding as JSON, with its category."""
    out = {**d.to_json(), "category": CODES[d.code].category}
    if with_path:
        out = {"path": d.path, **out}
    return out


def catalog_json(cat: Catalog, held: HeldBack | None = None) -> dict[str, Any]:
    """One entry of `results` (docs/check-json.md); `held`: what the project's settings held
    back from it (none when absent)."""
    _name, codes, files = held if held is not None else ("", (), 0)
    return {
        "profile": cat.profile.name,
        "diagnostics": [diagnostic_json(d, with_path=True) for d in cat.diagnostics],
        "skills": [
            {
                "path": s.path,
                "real_path": s.real_path,
                "name": s.name,
                "qualified_name": s.qualified_name,
                "scope": s.root.scope,
                "root": s.root.path,
                "status": s.status,
                "risk": s.risk,
                "reason": s.reason,
                "shadowed_by": s.shadowed_by,
                "description": s.description,
                # each finding names the file it is in: the skill file, or another file of the
                # skill (a script, a reference), never left to be read as the skill file's line
                "diagnostics": [
                    {"path": d.path or s.path, **diagnostic_json(d)} for d in s.diagnostics
                ],
            }
            for s in cat.skills
        ],
        "summary": cat.summary(),
        "suppressed": {"findings": dict(codes), "skill_files": files},
    }


def format_json(catalogs: Sequence[Catalog], settings: SettingsReport | None = None) -> str:
    """The `check --format json` document of `catalogs`, with the project `settings` report."""
    report = settings if settings is not None else SettingsReport()
    held = report.held_back if len(report.held_back) == len(catalogs) else (None,) * len(catalogs)
    doc = {
        "schema": JSON_SCHEMA_VERSION,
        "settings": report.to_json(),
        "results": [catalog_json(c, h) for c, h in zip(catalogs, held, strict=True)],
    }
    # Paths stay exactly as found: an undecodable byte is the escape \udcNN, which ASCII-only
    # output spells as a JSON escape, so `os.fsencode(path)` gives the original bytes back.
    # Compact on purpose: with `indent`, json falls back to its pure-Python encoder, which costs
    # more than the rest of a 5,000-skill check's output. Pipe through `python -m json.tool` to read.
    return json.dumps(doc, ensure_ascii=True) + "\n"
