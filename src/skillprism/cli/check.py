"""`skillprism check`: discover, parse, resolve and validate skills under one or more profiles;
exit 1 on findings at or above --fail-on, 2 on usage or I/O problems."""

from __future__ import annotations

import argparse
import os
import sys

from skillprism.cli.common import (
    EXIT_FINDINGS,
    EXIT_OK,
    EXIT_USAGE,
    UsageError,
    add_security_args,
    add_selection_args,
    error,
    open_workspace,
)


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    check = sub.add_parser(
        "check",
        help="discover, parse, resolve and validate skills; exit 1 on findings",
        description="Check skills under one or more runtime profiles. A PATH is a folder to "
        "search, a skill folder or a SKILL.md; without PATHs the profile's own roots for --project "
        "and your home are scanned.",
    )
    add_selection_args(check, repeat_profile=True)
    add_security_args(check)
    check.add_argument(
        "--format",
        choices=("text", "json", "sarif", "github"),
        default="text",
        help="text (default), json, sarif (code scanning) or github (Actions annotations)",
    )
    check.add_argument(
        "--quiet", "-q", action="store_true", help="text: print the findings only, no summary"
    )
    check.add_argument("--fail-on", choices=("error", "warning"), default="error")
    check.add_argument("--no-color", action="store_true", help="never colour text output")
    check.add_argument(
        "--list-profiles", action="store_true", help="list available profiles and exit"
    )
    check.set_defaults(run=run)


def list_profiles() -> int:
    from skillprism.core.display import display_path
    from skillprism.core.profiles import ProfileError, available_profiles, load_profile

    # User profiles are anyone's text: one line each, control characters spelled out.
    for name in available_profiles():
        try:
            print(display_path(f"{name}: {load_profile(name).provenance}"))
        except ProfileError as err:
            print(display_path(f"{name}: cannot be loaded: {err}"))
    return EXIT_OK


def run(args: argparse.Namespace) -> int:
    from skillprism.formats import (
        Places,
        emit,
        format_github,
        format_json,
        format_sarif,
        format_text,
        want_color,
    )

    if args.list_profiles:
        return list_profiles()
    try:
        workspace = open_workspace(args, workers=min(os.cpu_count() or 1, 4), allow_missing=True)
        catalogs = workspace.catalogs()
    except UsageError as err:
        return error(str(err))
    # Relative PATHs given: paths are printed relative to where the command runs, as given.
    relative = bool(args.paths) and not any(os.path.isabs(p) for p in args.paths)
    places = Places(os.getcwd() if relative else "")
    settings = workspace.settings_report()
    if args.format == "json":
        text = format_json(catalogs, settings)
    elif args.format == "sarif":
        text = format_sarif(catalogs, base=workspace.project, settings=settings)
    elif args.format == "github":
        text = format_github(catalogs, base=os.getcwd(), settings=settings)
    else:
        color = want_color(sys.stdout, args.no_color)
        text = format_text(catalogs, color, quiet=args.quiet, places=places, settings=settings)
    emit(text, sys.stdout)
    all_diags = [d for c in catalogs for d in c.all_diagnostics()]
    if any(d.code == "SP310" for d in all_diags):
        return EXIT_USAGE
    threshold = 3 if args.fail_on == "error" else 2
    return EXIT_FINDINGS if any(d.severity.rank >= threshold for d in all_diags) else EXIT_OK
