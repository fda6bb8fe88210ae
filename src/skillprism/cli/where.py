"""`skillprism where SKILL_DIR`: the folders each runtime would need the skill in (project and
personal scope, concrete paths for --project and your home) and whether it is found where it is
now. Headless; the work is done by skillprism.core.placement."""

from __future__ import annotations

import argparse
import json
import os
import sys

from skillprism.cli.common import EXIT_FINDINGS, EXIT_OK, add_project_settings_arg, error


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
    add_project_settings_arg(where)
    where.add_argument("--home", metavar="DIR", help="home folder (default: yours)")
    where.add_argument(
        "--profile",
        action="append",
        metavar="NAME|PATH",
        help="runtime profile (repeatable; default: every profile)",
    )
    where.add_argument(
        "--details",
        action="store_true",
        help="every folder each runtime reads, with its pattern and rank (text; the default is "
        "one line per runtime)",
    )
    where.add_argument("--format", choices=("text", "json"), default="text")
    where.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from skillprism.app.workspace import Workspace, WorkspaceError
    from skillprism.core.placement import PlacementError, ordered, render_summary, render_text
    from skillprism.core.profiles import available_profiles
    from skillprism.formats import emit, terminal_text

    if args.project and not os.path.isdir(args.project):
        return error(f"--project {args.project}: not a folder")
    try:
        workspace = Workspace(
            args.project,
            (),
            args.profile or available_profiles(),
            home=args.home,
            project_settings=args.project_settings,
        )
        report = workspace.where(args.skill_dir)
        levels = {spec: workspace.profile(spec).runtime.level for spec in workspace.chosen}
        levels = {workspace.profile(spec).name: level for spec, level in levels.items()}
    except (WorkspaceError, PlacementError) as err:
        return error(str(err))
    if not args.profile:  # every runtime: real runtimes first, best known first
        report = ordered(report, levels)  # (profiles named with --profile keep their order)
    # JSON escapes every control character, text spells them out: a name or folder from the
    # skill never reaches the terminal raw.
    if args.format == "json":
        emit(json.dumps(report.to_dict(), indent=1, ensure_ascii=True) + "\n", sys.stdout)
    else:
        render = render_text if args.details else render_summary
        emit(terminal_text(render(report)), sys.stdout)
    return EXIT_OK if all(p.found for p in report.profiles) else EXIT_FINDINGS
