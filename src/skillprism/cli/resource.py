"""`skillprism resource`: read one of a skill's files the way the runtime's tier 3 does, with its
guards (control characters spelled out unless --raw); a refusal (escape, missing, not listed) is
printed on stderr and exits 1."""

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
    res = sub.add_parser(
        "resource",
        help="read one of a skill's files as the runtime would (tier 3), with its guards",
        description="Resolve REL_PATH (relative to skill NAME's folder, or a skill:// URL) the way "
        "the runtime does; a refusal (escape, missing, not listed) is printed on stderr, exit 1.",
    )
    res.add_argument("name", metavar="NAME")
    res.add_argument("rel_path", metavar="REL_PATH")
    add_selection_args(res, repeat_profile=False)
    res.add_argument("--path", metavar="SKILL_DIR", help="use this copy instead of the winner")
    add_counter_arg(res)
    res.add_argument("--format", choices=("text", "json"), default="text")
    add_raw_arg(res, "the file's text")
    res.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from skillprism.core.activate import ActivationError
    from skillprism.formats import emit, terminal_text

    try:
        workspace = open_workspace(args)
    except UsageError as err:
        return error(str(err))
    spec = workspace.chosen[0]
    try:
        result = workspace.resource(spec, args.name, args.rel_path, path=args.path)
    except ActivationError as err:
        tell(f"skillprism: {workspace.profile(spec).name}: {err}")
        return EXIT_FINDINGS
    if args.format == "json":
        doc = {
            "schema": 1,
            "ok": result.ok,
            "reference": result.reference,
            "path": result.path,
            "kind": result.kind,
            "media_type": result.media_type,
            "size": result.size,
            "truncated": result.truncated,
            "description": result.description,
            "content": result.content,
            "chars": result.chars,
            "tokens": result.tokens,
            "counter": workspace.counter.name,
            "refusal": result.refusal.to_json() if result.refusal else None,
            "notes": [n.to_json() for n in result.notes],
        }
        emit(json.dumps(doc, ensure_ascii=True, indent=1) + "\n", sys.stdout)
        return EXIT_OK if result.ok else EXIT_FINDINGS
    if not result.ok:
        r = result.refusal
        detail = f" ({r.code}; hint: {r.hint})" if r is not None and r.hint else ""
        tell(f"{r.message if r is not None else 'refused'}{detail}")
        return EXIT_FINDINGS
    if result.content is not None:
        content = result.content if args.raw else terminal_text(result.content)
        emit(content + ("" if content.endswith("\n") else "\n"), sys.stdout)
    else:
        emit(terminal_text(result.description) + "\n", sys.stdout)
    for n in result.notes:
        tell(f"skillprism: {n.code}: {n.message}")
    return EXIT_OK
