"""`skillprism check` output: compiler-style text, the documented JSON (docs/check-json.md,
resources/schemas/check-output.schema.json) and SARIF 2.1.0.

Paths are bytes on POSIX: a name that is not UTF-8 reaches us with surrogate escapes, and a name may
hold a newline. Text output escapes both so one finding is always one line. JSON is pure ASCII and
keeps paths exact: an undecodable byte is the JSON escape `\\udcNN` (Python's surrogateescape), so
the path round-trips. SARIF, read by strict tools, never holds a lone surrogate: URIs percent-encode
the raw bytes and message texts spell the byte as `\\xNN`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from typing import Any, TextIO
from urllib.parse import quote

from skillprism import __version__
from skillprism.core.catalog import Catalog
from skillprism.core.codes import CODES
from skillprism.core.diagnostics import Diagnostic, Severity

JSON_SCHEMA_VERSION = 1
_COLORS = {"error": "\033[1;31m", "warning": "\033[1;33m", "info": "\033[1;36m"}
_RESET, _BOLD, _DIM = "\033[0m", "\033[1m", "\033[2m"


def _unsurrogate(text: str) -> str:
    """`text` with lone surrogates spelled out: `\\xNN` for an undecodable byte (surrogateescape),
    `\\uXXXX` for any other. Strings without them come back unchanged."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        pass
    out = []
    for c in text:
        o = ord(c)
        if 0xDC80 <= o <= 0xDCFF:
            out.append(f"\\x{o - 0xDC00:02x}")
        elif 0xD800 <= o <= 0xDFFF:
            out.append(f"\\u{o:04x}")
        else:
            out.append(c)
    return "".join(out)


def display_path(path: str) -> str:
    """A string safe to print on one line: undecodable bytes and control characters escaped
    (`\\xff`, `\\n`, `\\t`, `\\x1b`...)."""
    safe = _unsurrogate(path)
    if safe.isprintable():
        return safe
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in safe)


def want_color(
    stream: TextIO, no_color: bool = False, env: Mapping[str, str] | None = None
) -> bool:
    """Colour only on a terminal, never with --no-color, NO_COLOR (any non-empty value, see
    no-color.org) or TERM=dumb."""
    env = os.environ if env is None else env
    if no_color or env.get("NO_COLOR") or env.get("TERM") == "dumb":
        return False
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):
        return False


def emit(text: str, stream: TextIO) -> None:
    """Write `text`, escaping what the stream's encoding cannot hold instead of failing."""
    try:
        stream.write(text)
    except UnicodeEncodeError:
        encoding = getattr(stream, "encoding", None) or "ascii"
        data = text.encode(encoding, "backslashreplace")
        buffer = getattr(stream, "buffer", None)
        if buffer is not None:
            stream.flush()
            buffer.write(data)
        else:
            stream.write(data.decode(encoding))
    stream.flush()


def _where(d: Diagnostic) -> str:
    # Compiler style always has a position; a finding about the whole file (or folder) points at
    # its start. JSON keeps 0 for "no position".
    return f"{display_path(d.path)}:{max(d.line, 1)}:{max(d.column, 1)}"


def _paint(text: str, code: str, color: bool) -> str:
    return f"{code}{text}{_RESET}" if color else text


def format_text(catalogs: Sequence[Catalog], color: bool = False) -> str:
    """One line per finding, `path:line:col: severity CODE message`, its effect and hint indented
    below, and a summary line per profile (a `== profile NAME ==` header when there are several)."""
    out: list[str] = []
    multi = len(catalogs) > 1
    for cat in catalogs:
        if multi:
            out.append(_paint(f"== profile {cat.profile.name} ==", _BOLD, color))
        diags = sorted(cat.all_diagnostics(), key=lambda d: (d.path, d.line, d.column, d.code))
        for d in diags:
            sev = d.severity.value
            out.append(
                f"{_where(d)}: {_paint(sev, _COLORS[sev], color)} {d.code} "
                f"{display_path(d.message)}"
            )
            if d.effect:
                out.append("    " + _paint(f"effect: {display_path(d.effect)}", _DIM, color))
            if d.hint:
                out.append("    " + _paint(f"hint: {display_path(d.hint)}", _DIM, color))
        s = cat.summary()
        states = ", ".join(f"{n} {k}" for k, n in s["status"].items() if n)
        sev = s["severity"]
        out.append(
            f"{cat.profile.name}: {s['skills']} skill file(s){': ' + states if states else ''}; "
            f"{sev['error']} error(s), {sev['warning']} warning(s), {sev['info']} note(s)"
        )
    return "\n".join(out) + "\n"


def _json_safe(value: Any) -> Any:
    """`value` with every string free of lone surrogates (see the module doc)."""
    if isinstance(value, str):
        return _unsurrogate(value)
    if isinstance(value, dict):
        return {_json_safe(k): _json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_safe(v) for v in value]
    return value


def _diag_json(d: Diagnostic, with_path: bool = False) -> dict[str, Any]:
    out = d.to_json()
    if with_path:
        out = {"path": d.path, **out}
    return out


def catalog_json(cat: Catalog) -> dict[str, Any]:
    """One entry of `results` (docs/check-json.md)."""
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
    # Paths stay exactly as found: an undecodable byte is the escape \udcNN, which ASCII-only
    # output spells as a JSON escape, so `os.fsencode(path)` gives the original bytes back.
    # Compact on purpose: with `indent`, json falls back to its pure-Python encoder, which costs
    # more than the rest of a 5,000-skill check's output. Pipe through `python -m json.tool` to read.
    return json.dumps(doc, ensure_ascii=True) + "\n"


def _uri(path: str) -> str:
    """An absolute `file:` URI for `path`, its raw bytes percent-encoded (RFC 8089)."""
    raw = os.fsencode(os.path.abspath(path))
    return "file://" + quote(raw, safe="/")


_SARIF_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}
SARIF_SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"


def format_sarif(catalogs: Sequence[Catalog]) -> str:
    """A SARIF 2.1.0 log with one run per profile."""
    runs = []
    for cat in catalogs:
        diags = sorted(cat.all_diagnostics(), key=lambda d: (d.path, d.line, d.column, d.code))
        used = sorted({d.code for d in diags})
        index = {code: i for i, code in enumerate(used)}
        rules = [
            {
                "id": code,
                "name": CODES[code].rule,
                "shortDescription": {"text": CODES[code].title},
                "fullDescription": {"text": CODES[code].doc},
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
            result: dict[str, Any] = {
                "ruleId": d.code,
                "ruleIndex": index[d.code],
                "level": _SARIF_LEVEL[d.severity],
                "message": {"text": display_path(text)},
            }
            if d.path:
                location: dict[str, Any] = {"artifactLocation": {"uri": _uri(d.path)}}
                if d.line >= 1:
                    location["region"] = {"startLine": d.line, "startColumn": max(d.column, 1)}
                result["locations"] = [{"physicalLocation": location}]
            results.append(result)
        runs.append(
            {
                "tool": {
                    "driver": {
                        "name": "Skill Prism",
                        "version": __version__,
                        "rules": rules,
                    }
                },
                "automationDetails": {"id": f"skillprism/{cat.profile.name}/"},
                "columnKind": "unicodeCodePoints",
                "results": results,
            }
        )
    doc = {"$schema": SARIF_SCHEMA_URI, "version": "2.1.0", "runs": runs}
    return json.dumps(_json_safe(doc), indent=2, ensure_ascii=True) + "\n"
