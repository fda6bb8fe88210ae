"""`skillprism profiles [NAME|PATH ...]`: the runtime profiles, each with its release and how well
it is known; with names, each profile's whole sheet (how each part was established, the folders it
reads, its known differences from the runtime and every cited source). Headless; the sheet is
skillprism.core.profile_sheet's."""

from __future__ import annotations

import argparse
import json
import sys

from skillprism.cli.common import EXIT_OK, error


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    profiles = sub.add_parser(
        "profiles",
        help="the runtime profiles: release, level, sources and known differences",
        description="Without NAMEs, one line per runtime profile: the release it models and "
        "whether the conformance lab verified it against that release's code. With NAMEs (or "
        "paths to profile files), each profile's sheet: how each part was established, the "
        "folders it reads, its known differences from the runtime and every cited source.",
    )
    profiles.add_argument("names", nargs="*", metavar="NAME|PATH", help="profiles to show whole")
    profiles.add_argument("--format", choices=("text", "json"), default="text")
    profiles.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from skillprism.core.profile_sheet import profile_sheet, profile_sheet_markdown
    from skillprism.core.profiles import ProfileError, available_profiles, load_profile
    from skillprism.formats import emit, terminal_text

    if not args.names:
        if args.format == "json":
            rows = []
            for name in available_profiles():
                try:
                    rows.append(_summary(profile_sheet(load_profile(name))))
                except ProfileError as err:
                    rows.append({"name": name, "error": str(err)})
            emit(json.dumps(rows, indent=1, ensure_ascii=True) + "\n", sys.stdout)
            return EXIT_OK
        from skillprism.cli.check import list_profiles

        return list_profiles()
    try:
        loaded = [load_profile(name) for name in args.names]
    except ProfileError as err:
        return error(str(err))
    if args.format == "json":
        sheets = [profile_sheet(p) for p in loaded]
        emit(json.dumps(sheets, indent=1, ensure_ascii=True) + "\n", sys.stdout)
    else:  # a profile named by a path is anyone's text: escaped for the terminal
        emit(terminal_text("\n".join(profile_sheet_markdown(p) for p in loaded)), sys.stdout)
    return EXIT_OK


def _summary(sheet: dict) -> dict:  # type: ignore[type-arg]
    keys = ("name", "title", "release", "package", "level", "verified_on", "provenance")
    return {k: sheet[k] for k in keys} | {"known_differences": len(sheet["known_differences"])}
