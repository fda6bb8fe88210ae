"""TOML, JSON and YAML from files Skill Prism does not control: project settings, profiles named by a
path, runtime settings files, plugin manifests, usage counts.

Such a file may be anything: larger than memory, a FIFO, a link to a device, arrays nested
100,000 deep (the standard parsers recurse and raise RecursionError), an integer of 100,000
digits (ValueError outside TOMLDecodeError). Every one of those is a `StructuredError` here,
whose message is one line saying what is wrong; nothing else escapes.
"""

from __future__ import annotations

import json
import re
import tomllib
from typing import Any

from skillprism.core.document import read_bytes_safely

# Settings, profiles and manifests are a few kilobytes; this bounds what one can cost.
MAX_STRUCTURED_BYTES = 4 * 1024 * 1024
# A plugin manifest names its plugin in a few lines; a larger one is read as if absent.
MANIFEST_MAX_BYTES = 64 * 1024
_FORMATS = ("toml", "json", "jsonc", "yaml")
# JSON with comments and trailing commas (VS Code's JSONC; Gemini CLI, Qwen Code and OpenCode
# settings): a string, kept as is, or a comment, or a comma before a closing bracket.
_STRING = r'("(?:[^"\\\n]|\\.)*")'  # a JSON string: kept as it is
_JSONC_COMMENT = re.compile(
    _STRING + r"|//[^\n]*|/\*.*?(?:\*/|\Z)",  # an unterminated comment ends the text: one pass
    re.S,
)
_JSONC_COMMA = re.compile(_STRING + r"|,(?=\s*[}\]])")


def strip_jsonc(text: str) -> str:
    """`text` with the comments and trailing commas of JSONC blanked out (same length, so a
    JSON error still points at the right line and column); strings are left alone."""

    def blank(m: re.Match[str]) -> str:
        return m.group(0) if m.group(1) else re.sub(r"[^\n]", " ", m.group(0))

    return _JSONC_COMMA.sub(blank, _JSONC_COMMENT.sub(blank, text))


class StructuredError(ValueError):
    """A file or text that cannot be read as TOML or JSON; the message is one line."""


def _one_line(err: BaseException) -> str:
    return " ".join(str(err).split()) or type(err).__name__


def parse_structured(text: str, fmt: str) -> Any:
    """`text` parsed as `fmt` ("toml", "json", "jsonc" or "yaml"); StructuredError for anything
    it cannot be."""
    if fmt not in _FORMATS:
        raise ValueError(f"unknown format {fmt!r}")
    try:
        if fmt == "toml":
            return tomllib.loads(text)
        if fmt == "yaml":
            return _yaml(text)
        return json.loads(strip_jsonc(text) if fmt == "jsonc" else text)
    except RecursionError:
        raise StructuredError(
            f"not valid {fmt.upper()}: arrays or tables are nested too deeply to read"
        ) from None
    except (ValueError, TypeError) as err:  # TOMLDecodeError and JSONDecodeError included
        raise StructuredError(f"not valid {fmt.upper()}: {_one_line(err)}") from None


def _yaml(text: str) -> Any:
    """YAML as the runtimes that keep settings in it read it (safe types only; an alias is one
    shared object, never a copy, so a chain of aliases costs nothing)."""
    import yaml

    try:
        return yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError as err:
        raise StructuredError(f"not valid YAML: {_one_line(err)}") from None


def read_structured(path: str, fmt: str, *, cap: int = MAX_STRUCTURED_BYTES) -> Any:
    """The file at `path` parsed as `fmt` (see `parse_structured`). Only a regular file of at most
    `cap` bytes is read (a FIFO or device is never opened), as UTF-8 (a byte order mark is
    skipped). StructuredError, naming no path (callers add it), for anything else."""
    raw, _st, problem = read_bytes_safely(path, cap)
    if problem is not None or raw is None:
        raise StructuredError(problem.message if problem is not None else "cannot read the file")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise StructuredError("not UTF-8 text") from None
    return parse_structured(text, fmt)
