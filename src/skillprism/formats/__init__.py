"""Check output: compiler-style text, the documented JSON, SARIF 2.1.0 and GitHub Actions
annotations. No Qt. Every format reports the same findings."""

from skillprism.formats.github import format_github
from skillprism.formats.jsondoc import JSON_SCHEMA_VERSION, catalog_json, format_json
from skillprism.formats.places import ABSOLUTE, Places
from skillprism.formats.sarif import format_sarif
from skillprism.formats.stream import emit, terminal_text, want_color
from skillprism.formats.text import format_text

FORMATS = ("text", "json", "sarif", "github")

__all__ = [
    "ABSOLUTE",
    "FORMATS",
    "JSON_SCHEMA_VERSION",
    "Places",
    "catalog_json",
    "emit",
    "format_github",
    "format_json",
    "format_sarif",
    "format_text",
    "terminal_text",
    "want_color",
]
