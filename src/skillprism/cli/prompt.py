"""`skillprism prompt`: the exact tier-1 listing a runtime puts in the prompt (text, control
characters spelled out unless --raw), or the listing with each skill's budget outcome (json)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter
from typing import Any

from skillprism.cli.common import (
    EXIT_FINDINGS,
    EXIT_OK,
    UsageError,
    add_budget_args,
    add_counter_arg,
    add_raw_arg,
    add_selection_args,
    budget_inputs,
    error,
    open_workspace,
    tell,
    warn_unread,
)


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    prompt = sub.add_parser(
        "prompt",
        help="print the tier-1 skill listing a runtime puts in the prompt, with its budget",
        description="Print exactly the tier-1 listing the profile's runtime puts in the prompt "
        "(text), or the listing with each skill's budget outcome (json).",
    )
    add_selection_args(prompt, repeat_profile=False)
    add_budget_args(prompt)
    prompt.add_argument(
        "--usage",
        metavar="FILE",
        help='JSON {"skill": count, ...} or {"usage": {...}, "pins": [...]}',
    )
    prompt.add_argument(
        "--override",
        action="append",
        metavar="NAME=MODE",
        help="on | name-only | user-invocable-only | off (repeatable)",
    )
    prompt.add_argument(
        "--allowlist",
        metavar="A,B",
        help="the agent's skill allowlist where the runtime has one ('*' = all, '' = none)",
    )
    add_counter_arg(prompt)
    prompt.add_argument("--format", choices=("text", "json"), default="text")
    add_raw_arg(prompt, "the listing")
    prompt.add_argument(
        "--style",
        metavar="STYLE",
        help="alternative layout from the profile, e.g. 'reference' (skills-ref to-prompt)",
    )
    prompt.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from skillprism.app.workspace import WorkspaceError
    from skillprism.core.disclose import is_builtin_key
    from skillprism.formats import emit, terminal_text

    try:
        inputs = budget_inputs(args)
        workspace = open_workspace(args)
        spec = workspace.chosen[0]
        catalog = workspace.catalog(spec)
        settings, unread = workspace.budget_settings(spec, inputs)
        model = workspace.tier1_model(spec, args.style)
    except (UsageError, WorkspaceError) as err:
        return error(str(err))
    warn_unread(unread)
    result = model.compute(settings)
    if args.format == "json":
        doc = {
            "schema": 1,
            "profile": catalog.profile.name,
            "budget": {
                "context_window": result.context_window,
                "limit_chars": result.limit_chars,
                "used_chars": result.used_chars,
                "headroom_chars": result.headroom_chars,
                "tokens": result.tokens,
                "counter": result.counter,
                "assumptions": [*result.assumptions, *catalog.profile.assumptions],
                "settings_applied": list(result.settings_applied),
            },
            "skills": [
                {
                    "name": e.name,
                    "path": e.path,
                    "outcome": e.outcome,
                    "reason": e.reason,
                    "kept_chars": e.kept_chars,
                    "chars": e.chars,
                    "tokens": e.tokens,
                    "usage": (
                        result.usage_records[e.name].to_json()
                        if e.name in result.usage_records
                        else None
                    ),
                }
                for e in result.entries
            ],
            "warnings": list(result.warnings),
            "diagnostics": [{"path": d.path, **d.to_json()} for d in result.diagnostics],
            "text": result.text,
        }
        emit(json.dumps(doc, ensure_ascii=True, indent=1) + "\n", sys.stdout)
    else:
        text = result.text if args.raw else terminal_text(result.text)
        emit(text + ("\n" if text else ""), sys.stdout)
        for warning in result.warnings:
            tell(f"skillprism: {catalog.profile.name}: {warning}")
    listed = [e for e in result.entries if e.outcome not in ("omitted", "excluded")]
    if all(is_builtin_key(e.key) for e in listed):
        reason = empty_listing_reason(catalog, args, builtins=len(listed))
        tell(f"skillprism: {catalog.profile.name}: {reason}")
        return EXIT_FINDINGS
    return EXIT_OK


def empty_listing_reason(catalog: Any, args: argparse.Namespace, builtins: int = 0) -> str:
    """Why the runtime lists none of the skills here (`builtins`: how many of its own built-in
    skills it lists all the same), in a sentence, and what to try."""
    from skillprism.core.layout import nothing_found_hint

    counts = Counter(s.status for s in catalog.skills)
    what = (
        f"the listing holds only the runtime's {builtins} built-in skill(s)"
        if builtins
        else "the listing is empty"
    )
    if not catalog.skills:
        why = f"{what}: no skill file was found"
    else:
        states = ", ".join(f"{n} {state}" for state, n in counts.most_common())
        why = f"{what}: of {len(catalog.skills)} skill file(s), none is listed ({states})"
    where = [os.path.abspath(p) for p in args.paths] or [os.path.abspath(args.project or ".")]
    hint = nothing_found_hint(where, catalog.profile.name)
    return why + (f"; {hint}" if hint else "")
