"""`skillprism activate`: exactly what the model receives when a skill is activated with arguments,
as the profile's runtime does it (control characters spelled out unless --raw); a refusal prints
the runtime's text on stderr and exits 1."""

from __future__ import annotations

import argparse
import json
import sys

from skillprism.cli.common import (
    EXIT_FINDINGS,
    EXIT_OK,
    UsageError,
    add_counter_arg,
    add_raw_arg,
    add_selection_args,
    error,
    open_workspace,
    tell,
)


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    act = sub.add_parser(
        "activate",
        help="print exactly what the model receives when a skill is activated",
        description="Simulate activating skill NAME with arguments, as the profile's runtime does: "
        "prints the delivered content; a refusal prints the runtime's text on stderr and exits 1; "
        "one of the runtime's built-in skills (listed, its body inside the runtime) exits 3.",
    )
    act.add_argument("name", metavar="NAME")
    add_selection_args(act, repeat_profile=False)
    act.add_argument("--args", default="", metavar="STR", help="arguments as typed after /NAME")
    act.add_argument(
        "--as",
        dest="invoker",
        choices=("model", "user"),
        default="model",
        help="model tool call (default) or user slash command",
    )
    act.add_argument("--path", metavar="SKILL_DIR", help="activate this copy instead of the winner")
    act.add_argument(
        "--repeat",
        action="store_true",
        help="a repeat activation in the same session (consent already given)",
    )
    add_counter_arg(act)
    act.add_argument("--format", choices=("text", "json"), default="text")
    add_raw_arg(act, "the content")
    act.set_defaults(run=run)


def activation_json(a) -> dict:  # type: ignore[no-untyped-def, type-arg]
    return {
        "schema": 1,
        "name": a.name,
        "path": a.path,
        "invoker": a.invoker,
        "allowed": a.allowed,
        "refusal": a.refusal,
        "mechanism": a.mechanism,
        "content": a.content,
        "chars": a.chars,
        "tokens": a.tokens,
        "counter": a.counter,
        "guidance_tokens": a.guidance_tokens,
        "over_guidance": a.over_guidance,
        "compaction_keep_tokens": a.compaction_keep_tokens,
        "compaction_kept_chars": a.compaction_kept_chars,
        "fork": a.fork,
        "agent": a.agent,
        "model": a.model,
        "allowed_tools": list(a.allowed_tools),
        "consent": a.consent,
        "would_run": [{"line": line, "command": cmd} for line, cmd in a.would_run],
        "substitutions": [
            {
                "start": s.start,
                "end": s.end,
                "placeholder": s.placeholder,
                "value": s.value,
                "kind": s.kind,
            }
            for s in a.substitutions
        ],
        "appended": a.appended,
        "unmatched": list(a.unmatched),
        "notes": list(a.notes),
    }


EXIT_BUILTIN = 3  # the runtime lists the skill, but its body ships inside the runtime


def run(args: argparse.Namespace) -> int:
    from skillprism.core.activate import ActivationError, BuiltinSkillError
    from skillprism.formats import emit, terminal_text

    try:
        workspace = open_workspace(args)
    except UsageError as err:
        return error(str(err))
    spec = workspace.chosen[0]
    try:
        result = workspace.activate(
            spec,
            args.name,
            args=args.args,
            invoker=args.invoker,
            path=args.path,
            first_activation=not args.repeat,
        )
    except BuiltinSkillError as err:
        print(f"skillprism: {workspace.profile(spec).name}: {err}", file=sys.stderr)
        return EXIT_BUILTIN
    except ActivationError as err:
        tell(f"skillprism: {workspace.profile(spec).name}: {err}")
        return EXIT_FINDINGS
    if args.format == "json":
        emit(json.dumps(activation_json(result), ensure_ascii=True, indent=1) + "\n", sys.stdout)
        return EXIT_OK if result.allowed else EXIT_FINDINGS
    if not result.allowed:
        tell(result.refusal)
        return EXIT_FINDINGS
    content = result.content if args.raw else terminal_text(result.content)
    emit(content + ("" if content.endswith("\n") else "\n"), sys.stdout)
    for note in result.notes:
        tell(f"skillprism: note: {note}")
    for line, cmd in result.would_run:
        tell(f"skillprism: line {line} would run (not run here): {cmd}")
    return EXIT_OK
