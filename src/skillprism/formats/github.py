"""GitHub Actions annotations: one workflow command per finding (`::error file=...,line=...::...`),
so a pull request shows each finding on its line. Paths are relative to the project (the
repository checkout) where they can be. See docs.github.com, "Workflow commands". The project
settings come last, one annotation per `settings: ...` sentence on the settings file: a warning
when they switched a check off or hid findings, else a notice."""

from __future__ import annotations

from collections.abc import Sequence

from skillprism.core.catalog import Catalog
from skillprism.core.display import display_path
from skillprism.core.settings import SettingsReport
from skillprism.formats.places import Places

_COMMAND = {"error": "error", "warning": "warning", "info": "notice"}


def _data(text: str) -> str:
    """A command's message: %, CR and LF escaped."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(text: str) -> str:
    """A command's property value: also ':' and ',' escaped."""
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def format_github(
    catalogs: Sequence[Catalog], *, base: str = "", settings: SettingsReport | None = None
) -> str:
    places = Places(base)
    out = []
    for cat in catalogs:
        diags = sorted(cat.all_diagnostics(), key=lambda d: (d.path, d.line, d.column, d.code))
        for d in diags:
            props = []
            if d.path:
                props.append(f"file={_property(places.show(d.path))}")
                if d.line >= 1:
                    props.append(f"line={d.line}")
                    if d.column >= 1:
                        props.append(f"col={d.column}")
            props.append(f"title={_property(f'{d.code} ({cat.profile.name})')}")
            message = display_path(d.message)
            if d.effect:
                message += f"\nEffect: {display_path(d.effect)}"
            if d.hint:
                message += f"\nFix: {display_path(d.hint)}"
            out.append(f"::{_COMMAND[d.severity.value]} {','.join(props)}::{_data(message)}")
    if settings is not None:
        command = "warning" if settings.relaxes else "notice"
        where = f"file={_property(places.show(settings.file))}," if settings.file else ""
        for line in settings.lines():
            title = _property("Skill Prism project settings")
            out.append(f"::{command} {where}title={title}::{_data(display_path(line))}")
    return "\n".join(out) + "\n" if out else ""
