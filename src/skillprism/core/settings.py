"""Project settings for Skill Prism itself: `.skillprism.toml`, or `[tool.skillprism]` in a
`pyproject.toml`, in the project folder.

Keys: `profiles` (names or paths), `roots` (folders to scan, relative to the settings file),
`ignore_codes` (e.g. ["SP601"]), `ignore_paths` (globs matched against skill paths relative to the
project, e.g. ["vendor/**"]), `security` (false turns the security pass off; default true).
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass


class SettingsError(Exception):
    """The settings file is broken; the message names the file and the key."""


@dataclass(frozen=True, slots=True)
class ProjectSettings:
    source: str = ""
    profiles: tuple[str, ...] = ()
    roots: tuple[str, ...] = ()
    ignore_codes: frozenset[str] = frozenset()
    ignore_paths: tuple[str, ...] = ()
    security: bool = True  # run the security pass (what a skill could do to its user)


def _strings(table: dict, key: str, where: str) -> tuple[str, ...]:
    value = table.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise SettingsError(f"{where}: key '{key}': expected a list of strings")
    return tuple(value)


def _flag(table: dict, key: str, where: str) -> bool:
    value = table.get(key, True)
    if not isinstance(value, bool):
        raise SettingsError(f"{where}: key '{key}': expected true or false")
    return value


def load_project_settings(project: str) -> ProjectSettings:
    """Settings from `project`/.skillprism.toml, else its pyproject.toml; empty when neither."""
    for file_name, section in (
        (".skillprism.toml", None),
        ("pyproject.toml", ("tool", "skillprism")),
    ):
        path = os.path.join(project, file_name)
        if not os.path.isfile(path):
            continue
        try:
            with open(path, "rb") as fh:
                data = tomllib.load(fh)
        except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError) as err:
            raise SettingsError(f"{path}: cannot read settings: {err}") from None
        if section:
            for key in section:
                data = data.get(key, {}) if isinstance(data, dict) else {}
            if not data:
                continue
            if not isinstance(data, dict):
                raise SettingsError(f"{path}: [tool.skillprism] must be a table of settings")
        where = path if not section else f"{path} [tool.skillprism]"
        known = {"profiles", "roots", "ignore_codes", "ignore_paths", "security"}
        extra = sorted(set(data) - known)
        if extra:
            raise SettingsError(
                f"{where}: key '{extra[0]}': unknown; expected {', '.join(sorted(known))}"
            )
        base = os.path.dirname(os.path.abspath(path))
        return ProjectSettings(
            source=path,
            profiles=_strings(data, "profiles", where),
            roots=tuple(
                os.path.normpath(os.path.join(base, r)) for r in _strings(data, "roots", where)
            ),
            ignore_codes=frozenset(_strings(data, "ignore_codes", where)),
            ignore_paths=_strings(data, "ignore_paths", where),
            security=_flag(data, "security", where),
        )
    return ProjectSettings()
