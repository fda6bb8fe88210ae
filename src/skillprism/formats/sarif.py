"""SARIF 2.1.0 for code scanning: one run per profile. Paths inside the project are URIs relative
to it (`uriBaseId` PROJECTROOT, defined in `originalUriBaseIds`), so a log made in CI points at
the repository's own files; others are absolute `file:` URIs. Raw path bytes are percent-encoded
(RFC 8089) and message texts spell an undecodable byte as `\\xNN`, so a strict reader never meets a
lone surrogate. Each rule carries its category as a tag; security rules also carry GitHub's
`security-severity` score.

The project settings are part of each run's invocation: every `settings: ...` sentence is a
`toolConfigurationNotifications` entry (level `warning` when the settings switched a check off or
hid findings), each ignored code a `ruleConfigurationOverrides` entry (`enabled: false`), and
`properties.projectSettings` / `properties.suppressed` hold the same as the JSON output."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from typing import Any
from urllib.parse import quote

from skillprism import __version__
from skillprism.core.catalog import Catalog
from skillprism.core.codes import CODES
from skillprism.core.diagnostics import Severity
from skillprism.core.display import display_path
from skillprism.core.settings import SettingsReport
from skillprism.formats.jsondoc import json_safe

SARIF_SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
BASE_ID = "PROJECTROOT"
_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}


def _file_uri(path: str) -> str:
    """An absolute `file:` URI for `path`, its raw bytes percent-encoded."""
    return "file://" + quote(os.fsencode(os.path.abspath(path)), safe="/")


def _location(path: str, base: str) -> dict[str, Any]:
    absolute = os.path.abspath(path)
    prefix = base.rstrip(os.sep) + os.sep if base else ""
    if prefix and absolute.startswith(prefix):
        rel = absolute[len(prefix) :].replace(os.sep, "/")
        return {"uri": quote(os.fsencode(rel), safe="/"), "uriBaseId": BASE_ID}
    return {"uri": _file_uri(absolute)}


def _rule(code: str) -> dict[str, Any]:
    info = CODES[code]
    rule: dict[str, Any] = {
        "id": code,
        "name": info.rule,
        "shortDescription": {"text": info.title},
        "fullDescription": {"text": info.doc},
        "properties": {"tags": [info.category] if info.category else []},
    }
    if info.security_severity is not None:
        rule["properties"]["security-severity"] = f"{info.security_severity:.1f}"
    return rule


def _invocation(settings: SettingsReport, base: str) -> dict[str, Any]:
    """What the project settings did to the run, as a SARIF invocation."""
    level = "warning" if settings.relaxes else "note"
    notes = []
    for line in settings.lines():
        note: dict[str, Any] = {
            "descriptor": {"id": "project-settings"},
            "level": level,
            "message": {"text": display_path(line)},
        }
        if settings.file:
            note["locations"] = [
                {"physicalLocation": {"artifactLocation": _location(settings.file, base)}}
            ]
        notes.append(note)
    invocation: dict[str, Any] = {"executionSuccessful": True}
    if notes:
        invocation["toolConfigurationNotifications"] = notes
    if settings.applied and settings.settings.ignore_codes:
        invocation["ruleConfigurationOverrides"] = [
            {"descriptor": {"id": code}, "configuration": {"enabled": False}}
            for code in sorted(settings.settings.ignore_codes)
        ]
    return invocation


def format_sarif(
    catalogs: Sequence[Catalog], *, base: str = "", settings: SettingsReport | None = None
) -> str:
    """A SARIF 2.1.0 log with one run per profile; `base` is the project folder (relative URIs
    below it); `settings`: what the project settings applied and held back."""
    report = settings if settings is not None else SettingsReport()
    held = report.held_back if len(report.held_back) == len(catalogs) else ()
    runs = []
    for i, cat in enumerate(catalogs):
        diags = sorted(cat.all_diagnostics(), key=lambda d: (d.path, d.line, d.column, d.code))
        used = sorted({d.code for d in diags})
        index = {code: i for i, code in enumerate(used)}
        results = []
        for d in diags:
            text = d.message
            if d.effect:
                text += f" Effect: {d.effect}."
            if d.hint:
                text += f" Fix: {d.hint}."
            result: dict[str, Any] = {
                "ruleId": d.code,
                "ruleIndex": index[d.code],
                "level": _LEVEL[d.severity],
                "message": {"text": display_path(text)},
            }
            if d.path:
                location: dict[str, Any] = {"artifactLocation": _location(d.path, base)}
                if d.line >= 1:
                    location["region"] = {"startLine": d.line, "startColumn": max(d.column, 1)}
                result["locations"] = [{"physicalLocation": location}]
            results.append(result)
        run: dict[str, Any] = {
            "tool": {
                "driver": {
                    "name": "Skill Prism",
                    "version": __version__,
                    "informationUri": "https://github.com/skillprism/skillprism",
                    "rules": [_rule(code) for code in used],
                }
            },
            "automationDetails": {"id": f"skillprism/{cat.profile.name}/"},
            "columnKind": "unicodeCodePoints",
            "invocations": [_invocation(report, base)],
            "results": results,
            "properties": {
                "projectSettings": json_safe(report.to_json()),
                "suppressed": {
                    "findings": dict(held[i][1]) if held else {},
                    "skill_files": held[i][2] if held else 0,
                },
            },
        }
        if base:
            run["originalUriBaseIds"] = {BASE_ID: {"uri": _file_uri(base).rstrip("/") + "/"}}
        runs.append(run)
    doc = {"$schema": SARIF_SCHEMA_URI, "version": "2.1.0", "runs": runs}
    # Every string from a file name or a skill is already free of lone surrogates (message texts
    # through display_path, URIs percent-encoded, the settings through json_safe), so the
    # document goes to the C encoder as it is: compact, since `indent` falls back to the
    # pure-Python encoder, whose chunks cost several times the output (40,000 findings).
    return json.dumps(doc, ensure_ascii=True) + "\n"
