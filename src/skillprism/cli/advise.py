"""`skillprism advise`: the budget advisor (core/advisor.py): for one runtime and context window,
which descriptions to shorten by how many characters, or which skills to disable, for every
listed skill to keep its full description. `--apply` carries out one plan: `--plan shorten` (the
default) writes the description cuts through the one writer (undone by `--undo`, or `skillprism
fix --undo`); `--plan disable` turns the skills off in the runtime's own settings file as one
change (its profile's `[toggle]`, as `skillprism disable` does; undone by `--undo --plan
disable`, or `skillprism disable --undo`). `--dry-run` prints what `--apply` would write, as a
diff, and writes nothing.

Exit codes: 0 every listed description is already full (or the plan was written, or undone); 1 a
plan is needed (or it could not be written in full); 2 usage or I/O problems."""

from __future__ import annotations

import argparse
import json
import sys

from skillprism.cli.common import (
    EXIT_FINDINGS,
    EXIT_OK,
    UsageError,
    add_budget_args,
    add_counter_arg,
    add_selection_args,
    budget_inputs,
    error,
    open_workspace,
    tell,
)
from skillprism.formats import emit
from skillprism.formats.stream import terminal_text


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    adv = sub.add_parser(
        "advise",
        help="what to shorten or disable so every listed skill keeps its full description",
        description="For the profile's runtime and a context window, say which descriptions to "
        "shorten by how many characters (the largest common cap that fits), or which skills to "
        "disable (least used first), for every listed skill to keep its full description, "
        "computed with the runtime's own budget model. Exit 0 when nothing is needed, 1 when a "
        "plan is, 2 on usage or I/O problems.",
    )
    add_selection_args(adv, repeat_profile=False)
    add_budget_args(adv)
    adv.add_argument(
        "--usage", metavar="FILE", help='JSON {"skill": count, ...} (least used first)'
    )
    add_counter_arg(adv)
    adv.add_argument("--format", choices=("text", "json"), default="text")
    adv.add_argument(
        "--apply",
        action="store_true",
        help="carry out the --plan: write the description cuts (backed up), or turn the skills "
        "off in the runtime's own settings file (--undo puts either back)",
    )
    adv.add_argument(
        "--plan",
        choices=("shorten", "disable"),
        default="shorten",
        help="which plan --apply, --dry-run and --undo mean (default: shorten)",
    )
    adv.add_argument(
        "--dry-run",
        action="store_true",
        help="print what --apply would write as a diff; write nothing",
    )
    adv.add_argument(
        "--undo",
        action="store_true",
        help="put back what the last --apply of --plan wrote",
    )
    adv.set_defaults(run=run, override=None, allowlist=None)


def run(args: argparse.Namespace) -> int:
    from skillprism.app.workspace import WorkspaceError

    if args.undo:
        if args.plan == "disable":
            from skillprism.cli import toggle

            return toggle.undo_last()
        from skillprism.cli import fix

        return fix.undo_last()
    try:
        inputs = budget_inputs(args)
        workspace = open_workspace(args)
        spec = workspace.chosen[0]
        plan = workspace.advise(spec, inputs)
    except (UsageError, WorkspaceError) as err:
        return error(str(err))
    writing = args.apply or args.dry_run
    if args.format == "json":
        print(json.dumps(_json(plan), indent=2), file=sys.stderr if args.dry_run else sys.stdout)
    elif not args.dry_run:
        _text(plan, plan.context_window)
    if not writing or plan.already_full:
        return EXIT_OK if plan.already_full else EXIT_FINDINGS
    if args.plan == "disable":
        return _disable(workspace, spec, plan, dry_run=args.dry_run)
    return _shorten(workspace, plan, dry_run=args.dry_run)


def _shorten(workspace, plan, *, dry_run: bool) -> int:  # type: ignore[no-untyped-def]
    from skillprism.app.workspace import WorkspaceError

    if not plan.shorten:
        return error(
            "shortening descriptions cannot make every entry full here; use --plan disable"
        )
    fixes = workspace.plan_fixes(plan)
    if dry_run:
        from skillprism.cli.fix import file_diff

        groups: dict[str, list] = {}
        for f in fixes:
            groups.setdefault(f.path, []).append(f)
        emit("".join(file_diff(path, group) for path, group in groups.items()), sys.stdout)
        return EXIT_FINDINGS
    try:
        outcome = workspace.apply_fixes(fixes, "advisor: shorten")
    except WorkspaceError as err:
        return error(str(err))
    for refused in outcome.refused:
        tell(f"skillprism: {refused}")
    print(
        f"wrote {len(outcome.batch.files)} file(s); previous versions in "
        f"{outcome.batch.folder} (skillprism advise --undo or skillprism fix --undo puts them back)"
    )
    return EXIT_FINDINGS if outcome.refused or outcome.skipped else EXIT_OK


def _disable(workspace, spec: str, plan, *, dry_run: bool) -> int:  # type: ignore[no-untyped-def]
    from skillprism.app.workspace import WorkspaceError
    from skillprism.cli.toggle import remember

    try:
        change = workspace.plan_disable(spec, plan)
    except WorkspaceError as err:
        return error(str(err))
    if dry_run:
        emit(change.diff(), sys.stdout)
        return EXIT_FINDINGS
    if not change.changed:
        tell(f"skillprism: {change.path}: already so; nothing to write")
        return EXIT_OK
    try:
        workspace.apply_change(change)
    except (WorkspaceError, OSError) as err:
        return error(str(err))
    remember(change)
    print(
        f"turned {len(plan.disable or ())} skill(s) off in {change.path} "
        "(skillprism advise --undo --plan disable puts it back)"
    )
    return EXIT_OK


def _json(plan) -> dict[str, object]:  # type: ignore[no-untyped-def]
    return {
        "profile": plan.profile,
        "listed": plan.listed,
        "outcomes": plan.outcomes,
        "already_full": plan.already_full,
        "cap": plan.cap,
        "shorten": None
        if plan.shorten is None
        else [
            {"name": s.name, "path": s.path, "chars": s.chars, "by": s.by, "keep": s.keep}
            for s in plan.shorten
        ],
        "disable": [
            {"name": d.name, "path": d.path, "usage": d.usage, "entry_chars": d.entry_chars}
            for d in plan.disable or ()
        ],
        "verified": plan.verified,
    }


def _text(plan, window: int) -> None:  # type: ignore[no-untyped-def]
    from skillprism.formats.advice_text import render_advice

    print(terminal_text(render_advice(plan, window).rstrip("\n")))
