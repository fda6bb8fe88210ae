"""A one-root test profile `t` built from TOML text, for tests that pin one profile key on a
small fixture tree (tests/test_schema_keys.py, tests/test_link_loops.py)."""

from __future__ import annotations

import tomllib

from skillprism.core.profiles import Profile, parse_profile

BASE = """
schema = 1
name = "t"
[rules]
unknown-field = "ignore"
name-directory-mismatch = "ignore"
[[roots]]
scope = "project"
path = "{project}/skills"
layout = "recursive"
"""


def _merge(into: dict, extra: dict) -> None:
    for key, value in extra.items():
        if isinstance(value, dict) and isinstance(into.get(key), dict):
            _merge(into[key], value)
        else:
            into[key] = value


def profile(*sections: str, roots: str = "") -> Profile:
    """BASE merged with each TOML section; `roots` replaces the single root."""
    data = tomllib.loads(BASE if not roots else BASE.split("[[roots]]")[0] + roots)
    for section in sections:
        _merge(data, tomllib.loads(section))
    return parse_profile(data, "t.toml")
