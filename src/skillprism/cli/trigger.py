"""`skillprism trigger`: will a model pick this skill for this prompt? An offline estimate over
the runtime's own tier-1 listing (core/trigger.py): the skill's rank among the listed skills, what
competes with it, and which skills' entries say nearly the same; for an eval set in
skill-creator's format, how many prompts the estimate gets right, with --fail-under for CI."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from skillprism.cli.common import (
    EXIT_FINDINGS,
    EXIT_OK,
    UsageError,
    add_budget_args,
    add_selection_args,
    budget_inputs,
    error,
    open_workspace,
)

TOP = 5  # competitors shown for one prompt


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    trigger = sub.add_parser(
        "trigger",
        help="estimate whether a model picks a skill for a prompt (offline, from the listing)",
        description="Rank the skills a runtime lists against a prompt, by the words each "
        "listing entry shares with it (BM25): the skill's rank, what competes with it, and the "
        "skills whose entries say nearly the same. An estimate from what the model reads, not "
        "a model's choice; nothing is sent anywhere.",
    )
    add_selection_args(trigger, repeat_profile=False)
    add_budget_args(trigger)
    trigger.add_argument("--skill", required=True, metavar="NAME", help="the skill meant")
    what = trigger.add_mutually_exclusive_group(required=True)
    what.add_argument("--prompt", action="append", metavar="TEXT", help="a prompt (repeatable)")
    what.add_argument(
        "--evals",
        metavar="FILE",
        help='an eval set: [{"query": "...", "should_trigger": true}, ...] (skill-creator)',
    )
    trigger.add_argument(
        "--fail-under",
        type=float,
        metavar="RATE",
        help="exit 1 when the share of prompts estimated right is under RATE (0-1)",
    )
    trigger.add_argument("--format", choices=("text", "json"), default="text")
    live = trigger.add_argument_group(
        "live runs",
        "run the runtime's own CLI on each prompt (it calls its model with your own "
        "configuration and credentials) and read which skill it used from its event stream; "
        "the plan (calls, tokens, cost) is shown first and nothing runs without --yes or a "
        "yes on the terminal",
    )
    live.add_argument("--live", action="store_true", help="run the runtime instead of estimating")
    live.add_argument("--runs", type=int, default=3, metavar="N", help="runs per prompt (3)")
    live.add_argument("--runtime-cli", metavar="PATH", help="the runtime's CLI (default: on PATH)")
    live.add_argument(
        "--timeout", type=float, default=120.0, metavar="S", help="seconds per run (120)"
    )
    live.add_argument("--concurrency", type=int, default=2, metavar="N", help="runs at once (2)")
    live.add_argument(
        "--holdout",
        type=float,
        default=0.0,
        metavar="SHARE",
        help="hold this share of the eval set out, as skill-creator splits it (seed 42; "
        "skill-creator uses 0.4); scores are given for both parts",
    )
    live.add_argument("--yes", action="store_true", help="run without asking")
    live.add_argument("--save", metavar="FILE", help="save the results as JSON")
    live.add_argument(
        "--compare", metavar="FILE", help="compare with results saved before (did my edit help?)"
    )
    trigger.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from skillprism.app.workspace import WorkspaceError
    from skillprism.core.activate import ActivationError, find_skill
    from skillprism.core.eval_sets import EvalItem, EvalSetError, read_eval_set
    from skillprism.core.trigger import ESTIMATE_NOTE, run_eval_set
    from skillprism.formats import emit, terminal_text

    if args.fail_under is not None and not 0 <= args.fail_under <= 1:
        return error("--fail-under: a share between 0 and 1")
    if args.live:
        from skillprism.cli.trigger_live import run_live_cli

        return run_live_cli(args)
    try:
        inputs = budget_inputs(args)
        items = (
            read_eval_set(args.evals)
            if args.evals
            else tuple(EvalItem(p, True) for p in args.prompt)
        )
        workspace = open_workspace(args)
        spec = workspace.chosen[0]
        catalog = workspace.catalog(spec, security=False)  # risks never change a listing
        skill = find_skill(catalog, args.skill)
        index = workspace.trigger_index(spec, inputs)
    except (UsageError, WorkspaceError, EvalSetError, ActivationError) as err:
        return error(str(err))
    if not items:
        return error(f"{args.evals}: the eval set holds no prompt")
    report = run_eval_set(index, skill.key, items)
    entry = index.candidate(skill.key)
    outcome = entry.outcome if entry is not None else "not listed"
    overlaps = index.overlaps(key=skill.key)
    names = {c.key: c.name for c in index.candidates}
    estimates = [index.estimate(i.query) for i in items]
    if args.format == "json":
        doc: dict[str, Any] = {
            "schema": 1,
            "profile": catalog.profile.name,
            "note": ESTIMATE_NOTE,
            "skill": {"name": skill.qualified_name or skill.name, "path": skill.path},
            "outcome": outcome,
            "listed": len(index.listed),
            "prompts": [
                {
                    "query": o.query,
                    "should_trigger": o.should_trigger,
                    "picked": o.picked,
                    "rank": o.rank,
                    "instead": o.instead,
                    "ranking": [
                        {"name": r.name, "score": r.score, "outcome": r.outcome}
                        for r in e.ranking[:TOP]
                    ],
                }
                for o, e in zip(report.outcomes, estimates, strict=True)
            ],
            "accuracy": report.accuracy,
            "precision": report.precision,
            "recall": report.recall,
            "overlaps": [
                {
                    "name": names[o.second if o.first == skill.key else o.first],
                    "similarity": o.similarity,
                }
                for o in overlaps
            ],
        }
        emit(json.dumps(doc, ensure_ascii=True, indent=1) + "\n", sys.stdout)
    else:
        emit(
            terminal_text(_text(skill, outcome, index, report, estimates, overlaps, names)),
            sys.stdout,
        )
    if args.fail_under is not None and report.accuracy < args.fail_under:
        return EXIT_FINDINGS
    if entry is None or entry.outcome not in ("full", "shortened", "name-only"):
        return EXIT_FINDINGS  # the runtime does not list it: no prompt can pick it
    return EXIT_OK


def _text(
    skill: Any,
    outcome: str,
    index: Any,
    report: Any,
    estimates: list[Any],
    overlaps: list[Any],
    names: dict[str, str],
) -> str:
    from skillprism.core.disclose import is_builtin_key
    from skillprism.core.trigger import ESTIMATE_NOTE

    name = skill.qualified_name or skill.name
    builtin = index.builtin_listed
    own = f" ({builtin} of them the runtime's own)" if builtin else ""
    lines = [
        f"{name}: {_outcome_words(outcome)}; {len(index.listed)} skill(s) listed{own}",
        f"({ESTIMATE_NOTE})",
    ]
    for o, e in zip(report.outcomes, estimates, strict=True):
        mark = "ok  " if o.correct else "MISS"
        want = "should trigger" if o.should_trigger else "should not"
        rank = f"rank {o.rank}" if o.rank else "not listed"
        lines.append(f"{mark} {want:14} {rank:>9}  {o.query}")
        if o.should_trigger and len(report.outcomes) == 1:
            for r in e.ranking[:TOP]:
                here = (
                    "  <- this skill"
                    if r.key == skill.key
                    else "  (built-in)"
                    if is_builtin_key(r.key)
                    else ""
                )
                lines.append(f"       {r.rank:>3}. {r.name}  {r.score:.2f}{here}")
        elif o.instead:
            lines.append(f"       picks {o.instead} instead")
    if len(report.outcomes) > 1:
        hits, should = report.top(1)
        top3, _ = report.top(3)
        lines.append(
            f"{report.accuracy:.0%} estimated right ({sum(o.correct for o in report.outcomes)} of "
            f"{len(report.outcomes)}); should trigger: first in {hits} of {should}, in the "
            f"first 3 in {top3} of {should}"
        )
    for o in overlaps:
        other = names[o.second if o.first == skill.key else o.first]
        lines.append(
            f"its entry says nearly what {other}'s says ({o.similarity:.0%}): a model may confuse them"
        )
    return "\n".join(lines) + "\n"


def _outcome_words(outcome: str) -> str:
    return {
        "full": "listed with its description",
        "shortened": "listed with its description shortened",
        "name-only": "listed by name only (the budget dropped its description)",
    }.get(outcome, f"not listed ({outcome}): no prompt can pick it")
