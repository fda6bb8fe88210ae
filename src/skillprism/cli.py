"""Command-line front end on the core: `check` (and, as they land, prompt, activate, resource,
watch, report, self-test). No subcommand opens the desktop window. Headless commands never import Qt."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from skillprism import __version__

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2


def _build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="skillprism",
        description="Skill Prism: see one Agent Skills set the way each agent runtime sees it.",
    )
    parser.add_argument("--version", action="version", version=f"skillprism {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    check = sub.add_parser(
        "check",
        help="discover, parse, resolve and validate skills; exit 1 on findings",
        description="Check skills under one or more runtime profiles. A PATH is a folder to "
        "search, a skill folder or a SKILL.md; without PATHs the profile's own roots for --project "
        "and your home are scanned.",
    )
    check.add_argument("paths", nargs="*", metavar="PATH")
    check.add_argument(
        "--profile",
        action="append",
        metavar="NAME|PATH",
        help="runtime profile (repeatable; default agentskills)",
    )
    check.add_argument("--project", metavar="DIR", help="project folder (default: current folder)")
    check.add_argument("--format", choices=("text", "json", "sarif"), default="text")
    check.add_argument("--fail-on", choices=("error", "warning"), default="error")
    check.add_argument(
        "--max-depth",
        type=int,
        default=10,
        metavar="N",
        help="how deep to search folders given as PATH (default 10)",
    )
    check.add_argument("--no-color", action="store_true", help="never colour text output")
    check.add_argument(
        "--list-profiles", action="store_true", help="list available profiles and exit"
    )

    gui = sub.add_parser("gui", help="open the desktop window (the default)")
    gui.add_argument("paths", nargs="*", metavar="PATH")
    gui.add_argument("--profile", metavar="NAME|PATH")
    return parser


def _error(message: str) -> int:
    print(f"skillprism: error: {message}", file=sys.stderr)
    return EXIT_USAGE


def cmd_check(args: argparse.Namespace) -> int:
    from skillprism.core.catalog import Catalog
    from skillprism.core.check_output import (
        emit,
        format_json,
        format_sarif,
        format_text,
        want_color,
    )
    from skillprism.core.profiles import ProfileError, available_profiles, load_profile
    from skillprism.core.resolve import DocumentCache, build_catalog
    from skillprism.core.settings import SettingsError, load_project_settings

    if args.list_profiles:
        for name in available_profiles():
            print(name)
        return EXIT_OK
    if args.max_depth < 0:
        return _error("--max-depth must be 0 or more")
    project = os.path.abspath(args.project or os.getcwd())
    if not os.path.isdir(project):
        return _error(f"--project {args.project}: not a folder")
    try:
        settings = load_project_settings(project)
    except SettingsError as err:
        return _error(str(err))
    # A profile path in the settings file is relative to that file, like its roots.
    base = os.path.dirname(os.path.abspath(settings.source)) if settings.source else project
    profile_specs = args.profile or [
        os.path.join(base, spec)
        if spec not in available_profiles()
        and (spec.endswith(".toml") or "/" in spec)
        and not os.path.isabs(os.path.expanduser(spec))
        else spec
        for spec in settings.profiles
    ]
    profile_specs = profile_specs or ["agentskills"]
    try:
        profiles = [load_profile(spec) for spec in profile_specs]
    except ProfileError as err:
        return _error(str(err))
    paths = args.paths or list(settings.roots)
    cache = DocumentCache()
    catalogs: list[Catalog] = []
    for profile in profiles:
        catalog = build_catalog(
            profile,
            paths or None,
            project=project,
            max_depth=args.max_depth,
            cache=cache,
            ignore_codes=settings.ignore_codes,
            ignore_paths=settings.ignore_paths,
            workers=min(os.cpu_count() or 1, 4),
        )
        catalogs.append(catalog)
    if args.format == "json":
        text = format_json(catalogs)
    elif args.format == "sarif":
        text = format_sarif(catalogs)
    else:
        text = format_text(catalogs, color=want_color(sys.stdout, args.no_color))
    emit(text, sys.stdout)
    all_diags = [d for c in catalogs for d in c.all_diagnostics()]
    if any(d.code == "SP310" for d in all_diags):
        return EXIT_USAGE
    threshold = 3 if args.fail_on == "error" else 2
    return EXIT_FINDINGS if any(d.severity.rank >= threshold for d in all_diags) else EXIT_OK


def cmd_gui(args: argparse.Namespace) -> int:
    # The desktop window is issue 4; until it lands, say so plainly and show what check sees on the
    # bundled demo set, instead of pretending to open a window.
    from skillprism.paths import demo_skills_dir

    print(
        "skillprism: the desktop window is not built yet (issue 4). Showing `skillprism check` on "
        "the bundled demo skills instead.\n",
        file=sys.stderr,
    )
    ns = _build_parser().parse_args(
        ["check", *(args.paths or [str(demo_skills_dir())])]
        + (["--profile", args.profile] if args.profile else [])
    )
    return cmd_check(ns)


def main(argv: Sequence[str] | None = None) -> int:
    parser = _build_parser()
    args = parser.parse_args(argv)
    try:
        if args.command == "check":
            return cmd_check(args)
        return cmd_gui(
            args if args.command == "gui" else argparse.Namespace(paths=[], profile=None)
        )
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # Output piped into `head` and friends: not an error worth a traceback.
        sys.stderr.close()
        return EXIT_OK


if __name__ == "__main__":
    raise SystemExit(main())
