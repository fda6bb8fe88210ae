"""Project settings for Skill Prism itself: `.skillprism.toml`, or `[tool.skillprism]` in a
`pyproject.toml`, in the project folder.

Keys: `profiles` (names or paths), `roots` (folders to scan, relative to the settings file),
`ignore_codes` (e.g. ["SP601"]), `ignore_paths` (globs matched against skill paths relative to the
project, e.g. ["vendor/**"]), `security` (false turns the security pass off; default true).

The project is often the folder under review, so its settings must never silence the review
unseen: `SettingsReport` says which file applied, what it switched off and what it held back,
and every output prints it (docs/ci.md). A reviewer can ignore the file altogether
(`--no-project-settings`); the report then says it was found and not applied.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

from skillprism.core.structured import StructuredError, read_structured

KNOWN_KEYS = ("ignore_codes", "ignore_paths", "profiles", "roots", "security")


class SettingsError(Exception):
    """The settings file is broken; the message names the file and the key, `path` the file."""

    def __init__(self, message: str, path: str = "") -> None:
        super().__init__(message)
        self.path = path


@dataclass(frozen=True, slots=True)
class ProjectSettings:
    source: str = ""
    profiles: tuple[str, ...] = ()
    roots: tuple[str, ...] = ()
    ignore_codes: frozenset[str] = frozenset()
    ignore_paths: tuple[str, ...] = ()
    security: bool = True  # run the security pass (what a skill could do to its user)

    def changes(self) -> tuple[str, ...]:
        """What these settings change about a review, one phrase each; the ones that switch a
        check off or hide findings first."""
        out = []
        if not self.security:
            out.append("security pass off")
        if self.ignore_codes:
            out.append("ignore_codes " + ", ".join(sorted(self.ignore_codes)))
        if self.ignore_paths:
            out.append("ignore_paths " + ", ".join(self.ignore_paths))
        if self.profiles:
            out.append("profiles " + ", ".join(self.profiles))
        if self.roots:
            base = os.path.dirname(os.path.abspath(self.source)) if self.source else ""
            out.append(
                "roots " + ", ".join(os.path.relpath(r, base) if base else r for r in self.roots)
            )
        return tuple(out)

    @property
    def relaxes(self) -> bool:
        """Whether these settings switch a check off or hide findings."""
        return not self.security or bool(self.ignore_codes or self.ignore_paths)


def _strings(table: dict[str, Any], key: str, where: str, path: str) -> tuple[str, ...]:
    value = table.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise SettingsError(f"{where}: key '{key}': expected a list of strings", path)
    return tuple(value)


def _flag(table: dict[str, Any], key: str, where: str, path: str) -> bool:
    value = table.get(key, True)
    if not isinstance(value, bool):
        raise SettingsError(f"{where}: key '{key}': expected true or false", path)
    return value


def load_project_settings(project: str) -> ProjectSettings:
    """Settings from `project`/.skillprism.toml, else its pyproject.toml; empty when neither.
    SettingsError (one line naming the file) for a file that cannot be read or is invalid: too
    large, not a regular file, not TOML, nested too deeply, a key of the wrong type."""
    for file_name, section in (
        (".skillprism.toml", None),
        ("pyproject.toml", ("tool", "skillprism")),
    ):
        path = os.path.join(project, file_name)
        if not os.path.isfile(path):
            continue
        try:
            data = read_structured(path, "toml")
        except StructuredError as err:
            raise SettingsError(f"{path}: cannot read settings: {err}", path) from None
        if section:
            for key in section:
                data = data.get(key, {}) if isinstance(data, dict) else {}
            if not data:
                continue
            if not isinstance(data, dict):
                raise SettingsError(f"{path}: [tool.skillprism] must be a table of settings", path)
        where = path if not section else f"{path} [tool.skillprism]"
        extra = sorted(set(data) - set(KNOWN_KEYS))
        if extra:
            raise SettingsError(
                f"{where}: key '{extra[0]}': unknown; expected {', '.join(KNOWN_KEYS)}", path
            )
        base = os.path.dirname(os.path.abspath(path))
        return ProjectSettings(
            source=path,
            profiles=_strings(data, "profiles", where, path),
            roots=tuple(
                os.path.normpath(os.path.join(base, r))
                for r in _strings(data, "roots", where, path)
            ),
            ignore_codes=frozenset(_strings(data, "ignore_codes", where, path)),
            ignore_paths=_strings(data, "ignore_paths", where, path),
            security=_flag(data, "security", where, path),
        )
    return ProjectSettings()


# What one profile's catalog lost to the settings: (profile name, ((code, findings), ...),
# skill files left out by ignore_paths).
HeldBack = tuple[str, tuple[tuple[str, int], ...], int]


@dataclass(frozen=True)
class SettingsReport:
    """Which project settings file a review used and what it changed (docs/check-json.md).

    `file`: the settings file found in the project ("" = none). `applied`: whether it was used
    (False under --no-project-settings). `settings`: what it says (what it would say, when not
    applied; empty when it cannot be read, `problem` says why). `held_back`: per profile, the
    findings the settings suppressed, per code, and the skill files they left out."""

    file: str = ""
    applied: bool = False
    settings: ProjectSettings = field(default_factory=ProjectSettings)
    problem: str = ""
    held_back: tuple[HeldBack, ...] = ()

    @property
    def suppressed(self) -> int:
        """Findings and skill files the settings held back, under every profile together."""
        return sum(n for _p, codes, _f in self.held_back for _c, n in codes) + sum(
            files for _p, _c, files in self.held_back
        )

    @property
    def relaxes(self) -> bool:
        """Whether the applied settings switched a check off or held anything back: what a
        reviewer must not miss (outputs that are otherwise quiet still say it)."""
        return self.applied and (self.settings.relaxes or self.suppressed > 0)

    def lines(self) -> list[str]:
        """The report in sentences, one per line (none when the project has no settings file).
        The text output, the GitHub annotations and the report page print these."""
        if not self.file:
            return []
        changes = "; ".join(self.settings.changes())
        if not self.applied:
            why = (
                f"it cannot be read: {self.problem}"
                if self.problem
                else (f"it would set: {changes}" if changes else "it sets nothing")
            )
            return [f"settings: {self.file} not applied (--no-project-settings); {why}"]
        out = [f"settings: {self.file} applied: {changes or 'nothing changed'}"]
        for profile, codes, files in self.held_back:
            parts = []
            if codes:
                total = sum(n for _c, n in codes)
                each = ", ".join(f"{code} x{n}" for code, n in codes)
                parts.append(f"{total} finding(s) suppressed ({each})")
            if files:
                parts.append(f"{files} skill file(s) left out by ignore_paths")
            if parts:
                out.append(f"settings: {profile}: {'; '.join(parts)}")
        return out

    def to_json(self) -> dict[str, Any]:
        """The `settings` object of `check --format json` (docs/check-json.md); what it held
        back is in each result (`suppressed`), beside the findings."""
        s = self.settings
        return {
            "file": self.file or None,
            "applied": self.applied,
            "problem": self.problem,
            "security": s.security,
            "ignore_codes": sorted(s.ignore_codes),
            "ignore_paths": list(s.ignore_paths),
            "profiles": list(s.profiles),
            "roots": list(s.roots),
        }
