"""`skillprism enable NAME` / `skillprism disable NAME --profile P`: turn one skill on or off
through the runtime's own setting (the profile's `[toggle]`: Codex's `[[skills.config]]`, Claude
Code's `skillOverrides`), editing its settings file minimally. `--dry-run` prints the diff and
writes nothing; `--undo` puts back what the last enable/disable replaced (kept in the state
folder), refused if the file changed since."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys

from skillprism.cli.common import (
    EXIT_OK,
    UsageError,
    add_project_settings_arg,
    error,
    open_workspace,
    tell,
)
from skillprism.core.toggle import ToggleChange
from skillprism.formats import emit

JOURNAL = "last-toggle.json"


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    for action, verb in (("enable", "turn on"), ("disable", "turn off")):
        p = sub.add_parser(
            action,
            help=f"{verb} one skill through the runtime's own setting (its settings file)",
            description=f"{verb.capitalize()} skill NAME for the runtime of --profile by editing "
            "that runtime's own settings file (comments and order kept; written atomically). "
            "A runtime without such a setting is named with what to do instead.",
        )
        p.add_argument("name", nargs="?", metavar="NAME", help="the skill's name")
        p.add_argument("--profile", metavar="NAME|PATH", help="runtime profile (required)")
        p.add_argument("--project", metavar="DIR", help="project folder (default: current folder)")
        add_project_settings_arg(p)
        p.add_argument(
            "--dry-run", action="store_true", help="print the change as a diff; write nothing"
        )
        p.add_argument(
            "--undo",
            action="store_true",
            help="put back what the last enable/disable changed (NAME and --profile not needed)",
        )
        p.set_defaults(run=run, action=action, paths=[])


def _journal_path() -> str:
    from skillprism.paths import user_state_dir

    return str(user_state_dir() / JOURNAL)


def run(args: argparse.Namespace) -> int:
    from skillprism.app.workspace import WorkspaceError

    if args.undo:
        return undo_last()
    if not args.name or not args.profile:
        return error(f"{args.action}: give the skill's NAME and --profile")
    try:
        workspace = open_workspace(args)
        change = workspace.plan_toggle(
            workspace.chosen[0], args.name, enable=args.action == "enable"
        )
    except (UsageError, WorkspaceError) as err:
        return error(str(err))
    if not change.changed:
        tell(f"skillprism: {change.path}: already so ({change.entry}); nothing to write")
        return EXIT_OK
    if args.dry_run:
        emit(change.diff(), sys.stdout)
        return EXIT_OK
    try:
        workspace.apply_change(change)
    except (WorkspaceError, OSError) as err:
        return error(str(err))
    remember(change)
    tell(f"skillprism: {change.path}: {change.entry} (undo: skillprism {args.action} --undo)")
    return EXIT_OK


def remember(change: ToggleChange) -> None:
    """Keep what the change replaced, for --undo (best effort: the change itself is done)."""
    from skillprism.app.workspace import write_atomically

    path = _journal_path()
    fields = ("path", "before", "after", "entry")
    with contextlib.suppress(OSError):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        write_atomically(path, json.dumps({k: getattr(change, k) for k in fields}))
        os.chmod(path, 0o600)  # it holds a copy of a settings file, which may hold tokens


def undo_last() -> int:
    from skillprism.app.workspace import Workspace, WorkspaceError

    path = _journal_path()
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
        change = ToggleChange(**{k: data[k] for k in ("path", "before", "after", "entry")})
    except FileNotFoundError:
        return error("nothing to undo: no enable/disable was recorded")
    except (OSError, ValueError, KeyError, TypeError) as err:
        return error(f"{path}: cannot read the last change ({err}); nothing was undone")
    try:
        Workspace.undo_change(change)
    except (WorkspaceError, OSError) as err:
        return error(str(err))
    os.unlink(path)
    tell(f"skillprism: {change.path}: put back as it was before '{change.entry}'")
    return EXIT_OK
