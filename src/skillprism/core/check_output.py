"""`skillprism check` output: compiler-style text, the documented JSON, and SARIF 2.1.0."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from typing import Any
from urllib.parse import quote

from skillprism import __version__
from skillprism.core.catalog import Catalog
from skillprism.core.codes import CODES
from skillprism.core.diagnostics import Diagnostic, Severity

JSON_SCHEMA_VERSION = 1
_COLORS = {"error": "\033[1;31m", "warning": "\033[1;33m", "info": "\033[1;36m"}
_RESET, _BOLD, _DIM = "\033[0m", "\033[1m", "\033[2m"


def display_path(path: str) -> str:
    """A path safe to print on one line: undecodable bytes and control characters escaped."""
    safe = path.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in safe)


def _where(d: Diagnostic) -> str:
    p = display_path(d.path)
    return f"{p}:{d.line}:{d.column}" if d.line else p


def format_text(catalogs: Sequence[Catalog], color: bool = False) -> str:
    out: list[str] = []
    multi = len(catalogs) > 1
    for cat in catalogs:
        if multi:
            out.append(
                f"{_BOLD if color else ''}== profile {cat.profile.name} =={_RESET if color else ''}"
            )
        diags = sorted(cat.all_diagnostics(), key=lambda d: (d.path, d.line, d.column, d.code))
        for d in diags:
            sev = d.severity.value
            label = f"{_COLORS[sev]}{sev}{_RESET}" if color else sev
            out.append(f"{_where(d)}: {label} {d.code} {display_path(d.message)}")
            if d.effect:
                out.append(
                    f"    {_DIM if color else ''}effect: {d.effect}{_RESET if color else ''}"
                )
            if d.hint:
                out.append(f"    {_DIM if color else ''}hint: {d.hint}{_RESET if color else ''}")
        s = cat.summary()
        states = ", ".join(f"{n} {k}" for k, n in s["status"].items() if n)
        sev = s["severity"]
        out.append(
            f"{cat.profile.name}: {s['skills']} skill file(s){': ' + states if states else ''}; "
            f"{sev['error']} error(s), {sev['warning']} warning(s), {sev['info']} note(s)"
        )
    return "\n".join(out) + "\n"


def _diag_json(d: Diagnostic, with_path: bool = False) -> dict[str, Any]:
    out = d.to_json()
    if with_path:
        out = {"path": d.path, **out}
    return out


def catalog_json(cat: Catalog) -> dict[str, Any]:
    return {
        "profile": cat.profile.name,
        "diagnostics": [_diag_json(d, with_path=True) for d in cat.diagnostics],
        "skills": [
            {
                "path": s.path,
                "real_path": s.real_path,
                "name": s.name,
                "qualified_name": s.qualified_name,
                "scope": s.root.scope,
                "root": s.root.path,
                "status": s.status,
                "reason": s.reason,
                "shadowed_by": s.shadowed_by,
                "description": s.description,
                "diagnostics": [_diag_json(d) for d in s.diagnostics],
            }
            for s in cat.skills
        ],
        "summary": cat.summary(),
    }


def format_json(catalogs: Sequence[Catalog]) -> str:
    doc = {"schema": JSON_SCHEMA_VERSION, "results": [catalog_json(c) for c in catalogs]}
    return json.dumps(doc, indent=2, ensure_ascii=True) + "\n"


def _uri(path: str) -> str:
    raw = os.fsencode(os.path.abspath(path)) if path else b""
    return "file://" + quote(raw, safe="/")


_SARIF_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}


def format_sarif(catalogs: Sequence[Catalog]) -> str:
    runs = []
    for cat in catalogs:
        diags = cat.all_diagnostics()
        used = sorted({d.code for d in diags})
        index = {code: i for i, code in enumerate(used)}
        rules = [
            {
                "id": code,
                "name": CODES[code].rule,
                "shortDescription": {"text": CODES[code].title},
                "fullDescription": {"text": CODES[code].doc},
                "helpUri": f"https://skillprism.org/docs/diagnostics#{code.lower()}",
            }
            for code in used
        ]
        results = []
        for d in diags:
            text = d.message
            if d.effect:
                text += f" Effect: {d.effect}."
            if d.hint:
                text += f" Fix: {d.hint}."
            location: dict[str, Any] = {"artifactLocation": {"uri": _uri(d.path)}}
            if d.line:
                location["region"] = {"startLine": d.line, "startColumn": max(d.column, 1)}
            results.append(
                {
                    "ruleId": d.code,
                    "ruleIndex": index[d.code],
                    "level": _SARIF_LEVEL[d.severity],
                    "message": {"text": display_path(text)},
                    "locations": [{"physicalLocation": location}],
                }
            )
        runs.append(
            {
                "tool": {
                    "driver": {
                        "name": "Skill Prism",
                        "version": __version__,
                        "informationUri": "https://skillprism.org",
                        "rules": rules,
                    }
                },
                "automationDetails": {"id": f"skillprism/{cat.profile.name}"},
                "results": results,
            }
        )
    doc = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": runs,
    }
    return json.dumps(doc, indent=2, ensure_ascii=True) + "\n"
