"""`skillprism advise`: the budget advisor (core/advisor.py): for one runtime and context window,
which descriptions to shorten by how many characters, or which skills to disable, for every
listed skill to keep its full description; `--apply` writes the description cuts through the one
writer (undone by `skillprism fix --undo`).

Exit codes: 0 every listed description is already full (or the cuts were written); 1 a plan is
needed; 2 usage or I/O problems."""

from __future__ import annotations

import argparse
import json
import os

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
        help="write the description cuts (backed up; skillprism fix --undo puts them back)",
    )
    adv.set_defaults(run=run, override=None, allowlist=None)


def run(args: argparse.Namespace) -> int:
    from skillprism.app.workspace import WorkspaceError

    try:
        inputs = budget_inputs(args)
        workspace = open_workspace(args)
        spec = workspace.chosen[0]
        plan = workspace.advise(spec, inputs)
    except (UsageError, WorkspaceError) as err:
        return error(str(err))
    if args.format == "json":
        print(json.dumps(_json(plan), indent=2))
    else:
        _text(plan, args.context_window)
    if args.apply and plan.shorten:
        try:
            outcome = workspace.apply_fixes(workspace.plan_fixes(plan), "advisor: shorten")
        except WorkspaceError as err:
            return error(str(err))
        for refused in outcome.refused:
            tell(f"skillprism: {refused}")
        print(
            f"wrote {len(outcome.batch.files)} file(s); previous versions in "
            f"{outcome.batch.folder} (skillprism fix --undo puts them back)"
        )
        return EXIT_FINDINGS if outcome.refused or outcome.skipped else EXIT_OK
    return EXIT_OK if plan.already_full else EXIT_FINDINGS


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
    now = ", ".join(f"{n} {o}" for o, n in sorted(plan.outcomes.items()))
    out = [f"{plan.profile} at a {window:,}-token context window: {plan.listed} listed ({now})"]
    if plan.already_full:
        out.append("every listed skill keeps its full description: nothing to do")
        print(terminal_text("\n".join(out)))
        return
    if plan.shorten is None:
        out.append("shorten: not enough (even descriptions of 40 characters do not all fit)")
    else:
        total = sum(s.by for s in plan.shorten)
        out.append(
            f"either shorten {len(plan.shorten)} description(s) to at most {plan.cap:,} "
            f"characters ({total:,} characters in all):"
        )
        out.extend(
            f"  {s.name}: -{s.by:,} ({s.chars:,} -> {len(s.keep):,})  {os.path.relpath(s.path)}"
            for s in plan.shorten
        )
    disable = plan.disable or ()
    out.append(f"or disable {len(disable)} skill(s), least used first:")
    out.extend(f"  {d.name}  {os.path.relpath(d.path)}" for d in disable)
    if not plan.verified:
        out.append("warning: the runtime's model did not confirm this plan")
    print(terminal_text("\n".join(out)))
