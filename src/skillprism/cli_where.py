"""`skillprism where SKILL_DIR`: the folders each runtime would need the skill in (project and
personal scope, concrete paths for --project and your home) and whether it is found where it is
now. Headless; the work is done by skillprism.core.placement."""

from __future__ import annotations

import argparse
import json
import os
import sys

EXIT_OK, EXIT_NOT_FOUND, EXIT_USAGE = 0, 1, 2


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    where = sub.add_parser(
        "where",
        help="where each runtime would find a skill, and whether it finds it where it is now",
        description="For one skill folder, list for every runtime profile the folders it reads "
        "skills from (project and personal scope, strongest first) with the exact path the "
        "skill's file would need, the folder name it needs, and whether the runtime finds the "
        "skill where it is now. Exit 0 when every selected runtime finds it here, 1 otherwise.",
    )
    where.add_argument("skill_dir", metavar="SKILL_DIR", help="a skill folder (or its SKILL.md)")
    where.add_argument("--project", metavar="DIR", help="project folder (default: current folder)")
    where.add_argument("--home", metavar="DIR", help="home folder (default: yours)")
    where.add_argument(
        "--profile",
        action="append",
        metavar="NAME|PATH",
        help="runtime profile (repeatable; default: every profile)",
    )
    where.add_argument("--format", choices=("text", "json"), default="text")


def run(args: argparse.Namespace) -> int:
    from skillprism.core.placement import PlacementError, render_text, where
    from skillprism.core.profiles import ProfileError, available_profiles, load_profile

    project = os.path.abspath(args.project or os.getcwd())
    if not os.path.isdir(project):
        print(f"skillprism where: --project {args.project}: not a folder", file=sys.stderr)
        return EXIT_USAGE
    try:
        profiles = [load_profile(spec) for spec in (args.profile or available_profiles())]
    except ProfileError as err:
        print(f"skillprism where: {err}", file=sys.stderr)
        return EXIT_USAGE
    try:
        report = where(args.skill_dir, profiles, project=project, home=args.home)
    except PlacementError as err:
        print(f"skillprism where: {err}", file=sys.stderr)
        return EXIT_USAGE
    if args.format == "json":
        sys.stdout.write(json.dumps(report.to_dict(), indent=1, ensure_ascii=False) + "\n")
    else:
        sys.stdout.write(render_text(report))
    return EXIT_OK if all(p.found for p in report.profiles) else EXIT_NOT_FOUND
