"""Link classification shared by the Markdown renderer and the GUI's click handler.

`link_kind(href)` says what a click on `href` should do: `external` (open in the system browser,
only on click), `resource` (a relative file in the skill: the tier-3 view), `anchor` (scroll within
the preview) or `blocked` (never followed: `javascript:`, `data:`, `file:`, unknown schemes).
"""

from __future__ import annotations

import html
import re
from typing import Literal

LinkKind = Literal["external", "resource", "anchor", "blocked"]

EXTERNAL_SCHEMES = frozenset({"http", "https", "mailto"})
REMOTE_SCHEMES = frozenset({"http", "https", "ftp", "ftps", "sftp", "ws", "wss", "gopher"})

# Browsers ignore ASCII whitespace and control characters inside a scheme ("java\tscript:"), so
# they are removed before the scheme is read.
_IGNORED = re.compile(r"[\x00-\x20\x7f]+")
_SCHEME = re.compile(r"^([a-z][a-z0-9+.\-]*):")


def normalise_url(url: str) -> str:
    """Lower-cased, entity-decoded, with whitespace/control characters removed (for checks only)."""
    return _IGNORED.sub("", html.unescape(url)).lower()


def link_kind(href: str) -> LinkKind:
    url = normalise_url(href)
    if not url:
        return "blocked"
    if url.startswith("#"):
        return "anchor"
    if url.startswith("//") or url.startswith("\\\\"):
        return "external" if url.startswith("//") else "blocked"
    match = _SCHEME.match(url)
    if match:
        return "external" if match.group(1) in EXTERNAL_SCHEMES else "blocked"
    if ":" in url.split("/", 1)[0]:
        # "c:..." style or a scheme the regex refused: not a path inside the skill.
        return "blocked"
    return "resource"
