"""`skillprism report`: check skills like `check`, compute each profile's tier-1 budget and the
runtime matrix, and write them to one HTML page or Markdown tables. Exit codes as for check."""

from __future__ import annotations

import argparse
import os

from skillprism.cli.common import (
    EXIT_FINDINGS,
    EXIT_OK,
    UsageError,
    add_budget_args,
    add_counter_arg,
    add_security_args,
    add_selection_args,
    budget_inputs,
    error,
    open_workspace,
    warn_unread,
)


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    rep = sub.add_parser(
        "report",
        help="write a review report (HTML or Markdown) for one or more runtime profiles",
        description="Check skills like `check`, compute each profile's tier-1 budget and the "
        "runtime matrix, and write them to FILE: .html/.htm (one self-contained page with SVG "
        "charts) or .md (tables for a pull request). Exit codes as for check.",
    )
    add_selection_args(rep, repeat_profile=True)
    add_security_args(rep)
    rep.add_argument("-o", "--output", required=True, metavar="FILE", help="report file to write")
    rep.add_argument("--fail-on", choices=("error", "warning"), default="error")
    add_budget_args(rep)
    add_counter_arg(rep)
    rep.add_argument("--title", default="Skill Prism report", metavar="TEXT")
    rep.set_defaults(run=run, usage=None, override=None, allowlist=None)


def run(args: argparse.Namespace) -> int:
    from skillprism.app.workspace import Workspace, WorkspaceError, write_atomically
    from skillprism.core.display import display_path

    try:
        fmt = Workspace.report_format(args.output)
        inputs = budget_inputs(args)
        folder = os.path.dirname(os.path.abspath(args.output))
        if not os.path.isdir(folder):
            raise UsageError(
                f"-o {display_path(args.output)}: folder {display_path(folder)} not found"
            )
        workspace = open_workspace(args, workers=min(os.cpu_count() or 1, 4))
        for spec in workspace.chosen:
            warn_unread(workspace.budget_settings(spec, inputs)[1])
        text = workspace.report(fmt, workspace.chosen, inputs, title=args.title)
    except (UsageError, WorkspaceError) as err:
        return error(str(err))
    try:
        write_atomically(args.output, text)
    except (OSError, WorkspaceError) as err:
        why = err.strerror if isinstance(err, OSError) and err.strerror else err
        return error(f"-o {display_path(args.output)}: {why}")
    catalogs = workspace.catalogs()
    skills = len({s.key for c in catalogs for s in c.skills})
    print(f"wrote {display_path(args.output)} ({skills} skills, {len(catalogs)} profiles)")
    all_diags = [d for c in catalogs for d in c.all_diagnostics()]
    threshold = 3 if args.fail_on == "error" else 2
    return EXIT_FINDINGS if any(d.severity.rank >= threshold for d in all_diags) else EXIT_OK
