"""`skillprism trigger --live`: the runtime's own CLI run on each prompt, N times, in a throwaway
project holding the skill set; the outcome of each run read from its own event stream
(core/live_trigger). The plan (model calls, tokens, cost where a price is known) is printed
first; nothing runs without --yes or a yes typed on the terminal."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from skillprism.cli.common import (
    EXIT_FINDINGS,
    EXIT_OK,
    UsageError,
    budget_inputs,
    error,
    open_workspace,
    tell,
)


def run_live_cli(args: argparse.Namespace) -> int:
    from skillprism.app.workspace import WorkspaceError
    from skillprism.core.activate import ActivationError, find_skill
    from skillprism.core.cancel import Cancelled
    from skillprism.core.eval_sets import EvalItem, EvalSetError, read_eval_set
    from skillprism.core.live_trigger.plan import make_plan
    from skillprism.core.live_trigger.results import ResultsError, loads, split_eval_set
    from skillprism.core.live_trigger.session import (
        LiveError,
        find_program,
        live_release,
        live_spec,
        review_set,
        run_env,
        run_live,
    )
    from skillprism.core.live_trigger.workspace import WorkspaceError as LayoutError
    from skillprism.formats import emit, terminal_text

    if args.runs < 1 or args.concurrency < 1 or args.timeout <= 0:
        return error("--runs and --concurrency: at least 1; --timeout: more than 0 seconds")
    if not 0 <= args.holdout < 1:
        return error("--holdout: a share from 0 up to (not including) 1")
    try:
        inputs = budget_inputs(args)
        items = (
            read_eval_set(args.evals)
            if args.evals
            else tuple(EvalItem(p, True) for p in args.prompt)
        )
        before = None
        if args.compare:
            with open(args.compare, encoding="utf-8") as f:
                before = loads(f.read(), args.compare)
        workspace = open_workspace(args)
        spec_name = workspace.chosen[0]
        catalog = workspace.catalog(spec_name, security=False)
        profile = catalog.profile
        spec = live_spec(profile)
        skill = find_skill(catalog, args.skill)
        listing = workspace.tier1(spec_name, inputs).text
        program = find_program(spec, args.runtime_cli)
    except OSError as err:
        return error(f"{args.compare}: cannot read: {err.strerror or err}")
    except (
        UsageError,
        WorkspaceError,
        EvalSetError,
        ActivationError,
        LiveError,
        ResultsError,
    ) as err:
        return error(str(err))
    if not items:
        return error(f"{args.evals}: the eval set holds no prompt")
    intended = skill.qualified_name or skill.name
    skills = review_set(catalog)
    if not any(s.name == intended for s in skills):
        return error(
            f"{intended} is not in the skill set under review (the PATHs given, or the "
            "project's own skill folders): a live run copies only those"
        )
    held_out = split_eval_set(items, args.holdout)[1] if args.holdout else []
    plan = make_plan([i.query for i in items], args.runs, listing)
    unverified = spec.reason if spec.verified != "lab" else ""
    head = f"{profile.title} live run of {intended}: {plan.text()}"
    if unverified:
        head += f"\nlive mode unverified for {profile.title}: {unverified}"
    if not args.yes and not _confirmed(head):
        if args.format == "json":
            doc = {"schema": 1, "ran": False, "plan": plan.as_dict(), "unverified": unverified}
            emit(json.dumps(doc, indent=1) + "\n", sys.stdout)
        else:
            emit(terminal_text(head + "\nnothing was run (give --yes to run)\n"), sys.stdout)
        return EXIT_OK
    env = run_env(spec)
    release = live_release(spec, program, env)

    def progress(result: Any, done: int, total: int) -> None:
        o = result.outcome
        what = o.outcome + (f" ({o.skill})" if o.outcome == "other" else "")
        tell(f"[{done}/{total}] {what:<20} {result.job.prompt[:60]}")

    try:
        results = run_live(
            profile,
            skills,
            intended,
            items,
            args.runs,
            program=program,
            env=env,
            release=release,
            held_out=held_out,
            timeout=args.timeout,
            concurrency=args.concurrency,
            on_result=progress,
        )
    except LayoutError as err:
        return error(str(err))
    except (Cancelled, KeyboardInterrupt):
        return error("stopped: every running CLI was ended")
    if args.save:
        try:
            with open(args.save, "w", encoding="utf-8") as f:
                f.write(results.dumps())
        except OSError as err:
            return error(f"{args.save}: cannot save: {err.strerror or err}")
    changes = _changes(before, results) if before is not None else None
    if args.format == "json":
        doc = results.as_dict()
        doc["ran"] = True
        doc["plan"] = plan.as_dict()
        doc["unverified"] = unverified
        if held_out:
            doc["train"] = _scores(results.scores(False))
            doc["held_out"] = _scores(results.scores(True))
        if changes is not None:
            doc["compare"] = changes
        emit(json.dumps(doc, indent=1, ensure_ascii=True) + "\n", sys.stdout)
    else:
        emit(terminal_text(_text(head, results, held_out, changes)), sys.stdout)
    scores = results.scores()
    answered = scores.passed + scores.failed
    accuracy = scores.passed / answered if answered else 0.0
    if args.fail_under is not None and accuracy < args.fail_under:
        return EXIT_FINDINGS
    return EXIT_OK


def _confirmed(head: str) -> bool:
    if not sys.stdin.isatty():
        return False
    sys.stderr.write(head + "\nRun it? [y/N] ")
    sys.stderr.flush()
    try:
        return sys.stdin.readline().strip().lower() in ("y", "yes")
    except (OSError, KeyboardInterrupt):
        return False


def _scores(s: Any) -> dict[str, Any]:
    return {
        "prompts": s.prompts,
        "passed": s.passed,
        "failed": s.failed,
        "unanswered": s.unanswered,
        "precision": s.precision,
        "recall": s.recall,
    }


def _changes(before: Any, after: Any) -> list[dict[str, Any]]:
    from skillprism.core.live_trigger.results import compare

    return [
        {
            "query": c.query,
            "should_trigger": c.should_trigger,
            "before": c.before,
            "after": c.after,
            "better": c.better,
        }
        for c in compare(before, after)
    ]


def _rate(rate: float | None) -> str:
    return "  -" if rate is None else f"{rate:.0%}"


def _text(head: str, results: Any, held_out: Any, changes: Any) -> str:
    lines = [
        head,
        f"release {results.release or 'unknown'}; model {', '.join(results.models) or 'not named in the stream'}",
    ]
    for p in results.prompts:
        mark = {True: "ok  ", False: "MISS", None: "----"}[p.passed]
        want = "should trigger" if p.should_trigger else "should not"
        c = p.counts
        detail = f"{c['intended']} used it"
        if p.others:
            detail += ", " + ", ".join(f"{n} x{k}" for n, k in p.others.items())
        if c["error"] or c["timeout"]:
            detail += f", {c['error']} error(s), {c['timeout']} timeout(s)"
        held = " (held out)" if p.held_out else ""
        lines.append(f"{mark} {want:14} {_rate(p.rate):>4}  {p.query}{held}\n       {detail}")
        errors = [o.message for o in p.outcomes if o.outcome == "error" and o.message]
        if errors:
            lines.append(f"       error: {errors[0]}")
    parts = [("all", results.scores())]
    if held_out:
        parts += [("train", results.scores(False)), ("held out", results.scores(True))]
    for label, s in parts:
        lines.append(
            f"{label}: {s.passed} of {s.prompts} prompt(s) right, {s.unanswered} without an "
            f"answer; precision {_rate(s.precision)}, recall {_rate(s.recall)}"
        )
    for c in changes or ():
        verdict = {True: "better", False: "worse", None: "same"}[c["better"]]
        lines.append(f"{verdict:6} {_rate(c['before'])} -> {_rate(c['after'])}  {c['query']}")
    return "\n".join(lines) + "\n"
