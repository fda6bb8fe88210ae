"""`skillprism install PATH --profile P --scope personal|project`, `skillprism update` and
`skillprism installed`: place a skill or a repository of plugins and collections where each
runtime finds it (core/install.py), see which installed copies are stale against their source,
and update them. Nothing is written with `--dry-run`; `--undo` takes back the last install or
update in one step."""

from __future__ import annotations

import argparse
import json
import sys

from skillprism.cli.common import (
    EXIT_FINDINGS,
    EXIT_OK,
    UsageError,
    add_project_settings_arg,
    error,
    open_workspace,
    tell,
)


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "install",
        help="copy or link a skill, or a repository of skills, where each runtime finds it",
        description="Place the skill folder PATH, or every plugin, collection and skill of "
        "the repository PATH, in the first personal or project skills folder of each runtime "
        "of --profile (one copy for runtimes that read the same folder). A skill already at "
        "the target, or of the same name elsewhere in the runtime's folders, is shown beside "
        "the new one with the copy the runtime picks; one at the target is replaced only with "
        "--replace (it is moved to the backups). Exit 0 when everything was installed, 1 when "
        "something was not (or, with --dry-run, would not be), 2 on a usage or I/O error.",
    )
    p.add_argument("path", nargs="?", metavar="PATH", help="a skill folder or a repository")
    _common(p)
    p.add_argument("--scope", choices=("personal", "project"), help="where (required)")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument(
        "--copy", dest="mode", action="store_const", const="copy", help="copy (the default)"
    )
    mode.add_argument(
        "--link",
        dest="mode",
        action="store_const",
        const="link",
        help="a symlink to the source folder (never stale; where a runtime does not follow "
        "links, the plan says so)",
    )
    p.set_defaults(mode="copy")
    p.add_argument(
        "--replace",
        action="store_true",
        help="replace a skill already at the target (moved to the backups; --undo restores it)",
    )
    p.set_defaults(run=run_install, paths=[])

    u = sub.add_parser(
        "update",
        help="copy again every installed skill whose source changed",
        description="Update each copy Skill Prism installed whose source changed since (an "
        "installed copy edited here is never overwritten; a link is never stale). Exit 0 when "
        "nothing is left to update, 1 when something is (or, with --dry-run, would be), 2 on "
        "a usage or I/O error.",
    )
    _common(u)
    u.set_defaults(run=run_update, paths=[])

    s = sub.add_parser(
        "installed",
        help="what Skill Prism installed, and which copies are stale",
        description="Every copy Skill Prism installed with its state: up-to-date, stale (the "
        "source changed), changed-here (edited where installed), source-gone, missing, "
        "linked. Exit 0 when every copy is up to date (or a link), 1 otherwise.",
    )
    s.add_argument("--profile", action="append", metavar="NAME|PATH", help="only these runtimes")
    s.add_argument("--format", choices=("text", "json"), default="text")
    s.set_defaults(run=run_installed, paths=[], project=None)


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--profile", action="append", metavar="NAME|PATH", help="runtime profile (repeatable)"
    )
    p.add_argument("--project", metavar="DIR", help="project folder (default: current folder)")
    add_project_settings_arg(p)
    p.add_argument("--dry-run", action="store_true", help="show the plan; write nothing")
    p.add_argument(
        "--undo", action="store_true", help="take back the last install or update, in one step"
    )
    p.add_argument("--format", choices=("text", "json"), default="text")


def _emit(text: str) -> None:
    from skillprism.formats import emit, terminal_text

    emit(terminal_text(text), sys.stdout)


def _json(data: object) -> None:
    from skillprism.formats import emit

    emit(json.dumps(data, indent=1, ensure_ascii=True) + "\n", sys.stdout)


def _undo(args: argparse.Namespace) -> int:
    from skillprism.app.workspace import Workspace, WorkspaceError

    try:
        done = Workspace.undo_install()
    except WorkspaceError as err:
        return error(str(err))
    if done is None:
        return error("nothing to undo: no install or update was recorded")
    if args.format == "json":
        _json({"undone": done.id, "removed": done.installed, "restored": done.restored})
    else:
        tell(
            f"skillprism: undone: {len(done.installed)} folder(s) removed, "
            f"{len(done.restored)} put back as they were"
        )
    return EXIT_OK


def run_install(args: argparse.Namespace) -> int:
    from skillprism.app.workspace import WorkspaceError
    from skillprism.formats.install_text import render_plan

    if args.undo:
        return _undo(args)
    if not args.path or not args.profile or not args.scope:
        return error("install: give PATH, at least one --profile and --scope personal|project")
    try:
        workspace = open_workspace(args, allow_missing=True)
        plan = workspace.plan_install(
            args.path, scope=args.scope, mode=args.mode, replace=args.replace
        )
    except (UsageError, WorkspaceError) as err:
        return error(str(err))
    if not args.dry_run:
        try:
            workspace.apply_install(plan)
        except WorkspaceError as err:
            return error(str(err))
    if args.format == "json":
        _json({"applied": not args.dry_run, **plan.to_dict()})
    else:
        _emit(render_plan(plan, applied=not args.dry_run))
    if not args.dry_run and plan.todo:
        tell("skillprism: undo with: skillprism install --undo")
    return EXIT_FINDINGS if plan.blocked or plan.homeless else EXIT_OK


def run_update(args: argparse.Namespace) -> int:
    from skillprism.app.workspace import WorkspaceError
    from skillprism.formats.install_text import render_plan, render_status

    if args.undo:
        return _undo(args)
    try:
        workspace = open_workspace(args, allow_missing=True)
        plan, statuses = workspace.plan_update(workspace.chosen if args.profile else ())
    except (UsageError, WorkspaceError) as err:
        return error(str(err))
    if not args.dry_run and plan.todo:
        try:
            workspace.apply_install(plan)
        except WorkspaceError as err:
            return error(str(err))
    left = [s for s in statuses if s.state in ("changed-here", "source-gone", "missing")]
    if args.format == "json":
        _json(
            {
                "applied": not args.dry_run,
                "updated": [a.target for a in plan.todo],
                "not_updated": [a.target for a in plan.blocked],
                "installed": [s.to_dict() for s in statuses],
            }
        )
    else:
        _emit(render_status(statuses))
        if plan.actions:
            _emit(render_plan(plan, applied=not args.dry_run))
        else:
            _emit("nothing to update\n")
    pending = bool(plan.todo) and args.dry_run
    return EXIT_FINDINGS if pending or plan.blocked or left else EXIT_OK


def run_installed(args: argparse.Namespace) -> int:
    from skillprism.app.workspace import Workspace, WorkspaceError
    from skillprism.formats.install_text import render_status

    try:
        workspace = Workspace(None, (), args.profile or (), project_settings=False)
        statuses = workspace.installed(workspace.chosen if args.profile else ())
    except WorkspaceError as err:
        return error(str(err))
    if args.format == "json":
        _json({"installed": [s.to_dict() for s in statuses]})
    else:
        _emit(render_status(statuses))
    fine = all(s.state in ("up-to-date", "linked") for s in statuses)
    return EXIT_OK if fine else EXIT_FINDINGS
