"""What every command shares: exit codes, errors, the options that pick folders, profiles and
budget inputs, and opening the Workspace they describe. Headless commands never import Qt."""

from __future__ import annotations

import argparse
import math
import os
import sys

from skillprism.app.workspace import BudgetInputs, Workspace, WorkspaceError
from skillprism.core.display import display_path
from skillprism.formats.stream import terminal_text

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2


class UsageError(Exception):
    """A problem with the command line or its inputs: exit 2 with the message."""


def error(message: str) -> int:
    """Say `message` on standard error as one line (control characters from names and paths
    spelled out) and return the usage exit code."""
    print(f"skillprism: error: {display_path(message)}", file=sys.stderr)
    return EXIT_USAGE


def tell(message: str) -> None:
    """A note for the user on standard error, escaped for the terminal like every output."""
    print(terminal_text(message), file=sys.stderr)


def add_raw_arg(parser: argparse.ArgumentParser, what: str) -> None:
    """--raw: print `what` exactly, control characters included (text output escapes them)."""
    parser.add_argument(
        "--raw",
        action="store_true",
        help=f"print {what} exactly as the model gets it, control characters included (for a "
        "file or a pipe; text output otherwise spells them out, e.g. \\x1b)",
    )


def add_selection_args(parser: argparse.ArgumentParser, *, repeat_profile: bool) -> None:
    """PATHs, --profile, --project and --max-depth, as for check."""
    parser.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="folders to search, skill folders or SKILL.md files (as for check)",
    )
    if repeat_profile:
        parser.add_argument(
            "--profile",
            action="append",
            metavar="NAME|PATH",
            help="runtime profile (repeatable; default agentskills)",
        )
    else:
        parser.add_argument(
            "--profile",
            metavar="NAME|PATH",
            default=None,
            help="runtime profile (default agentskills)",
        )
    parser.add_argument("--project", metavar="DIR", help="project folder (default: current folder)")
    add_project_settings_arg(parser)
    parser.add_argument(
        "--install-into",
        choices=("personal", "project"),
        default="",
        help="review the PATHs (repositories of skills) as installed into each runtime's "
        "personal or project skills folder, beside what is there (default: as laid out)",
    )
    parser.add_argument(
        "--max-depth",
        type=int,
        default=10,
        metavar="N",
        help="how deep to search folders given as PATH (default 10)",
    )


def add_project_settings_arg(parser: argparse.ArgumentParser) -> None:
    """--no-project-settings: the reviewer's mode (docs/ci.md)."""
    parser.add_argument(
        "--no-project-settings",
        dest="project_settings",
        action="store_false",
        help="do not apply the project's .skillprism.toml or [tool.skillprism] (review a "
        "repository you do not trust: its settings cannot switch checks off or hide findings); "
        "the output still names the file and what it would set",
    )


def add_security_args(parser: argparse.ArgumentParser) -> None:
    """--security/--no-security and --no-cache (check, report, watch)."""
    parser.add_argument(
        "--security",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="run the security pass (default: on, unless the settings file says "
        "security = false; this option decides over it)",
    )
    parser.add_argument(
        "--no-cache",
        action="store_true",
        help="scan every file afresh instead of reusing the security pass's results kept in "
        "the user's cache folder (also: SKILLPRISM_NO_CACHE=1)",
    )


def add_budget_args(parser: argparse.ArgumentParser) -> None:
    """The tier-1 budget inputs `prompt` and `report` share."""
    parser.add_argument(
        "--context-window",
        type=int,
        default=None,
        metavar="N",
        help="model context window in tokens (0 = unknown; default: the runtime's own setting, "
        "such as Codex's model_context_window, else the window of the runtime's default model "
        "as its profile gives it, else 200000)",
    )
    parser.add_argument(
        "--budget-chars", type=int, metavar="N", help="fixed listing budget in characters"
    )
    parser.add_argument(
        "--budget-fraction",
        type=float,
        metavar="F",
        help="listing budget as a fraction of the context window",
    )
    parser.add_argument(
        "--no-usage",
        dest="local_usage",
        action="store_false",
        help="do not read the runtime's own skill usage records (e.g. Claude Code's "
        "~/.claude.json): every skill counts as never used, unless --usage says otherwise",
    )


def add_counter_arg(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--counter", metavar="NAME", help="token counter (see docs/tokens.md)")


def open_workspace(
    args: argparse.Namespace, *, workers: int = 1, allow_missing: bool = False
) -> Workspace:
    """The Workspace the command line describes; UsageError for anything it cannot open. A PATH
    that does not exist is a usage error too, except for `check` (`allow_missing`), which reports
    it (SP310) with its other findings and exits 2 as well."""
    specs = (
        args.profile if isinstance(args.profile, list) else [args.profile] if args.profile else []
    )
    if args.project and not os.path.isdir(args.project):
        raise UsageError(f"--project {args.project}: not a folder")
    try:
        workspace = Workspace(
            args.project,
            args.paths,
            specs,
            max_depth=getattr(args, "max_depth", 10),
            workers=workers,
            install_into=getattr(args, "install_into", ""),
            project_settings=getattr(args, "project_settings", True),
            security=getattr(args, "security", None),
            cache=False if getattr(args, "no_cache", False) else None,
        )
        if getattr(args, "counter", None):
            workspace.use_counter(args.counter)
    except WorkspaceError as err:
        raise UsageError(str(err)) from None
    problems = workspace.path_problems()
    if problems:
        raise UsageError(problems[0])
    if not allow_missing:
        missing = [
            d.message for c in workspace.catalogs() for d in c.diagnostics if d.code == "SP310"
        ]
        if missing:
            raise UsageError(missing[0])
    return workspace


def budget_inputs(args: argparse.Namespace) -> BudgetInputs:
    """The budget inputs of the command line (--context-window, --budget-*, --usage, --override,
    --allowlist); UsageError for any that cannot be used."""
    from skillprism.core.structured import StructuredError, read_structured
    from skillprism.core.vocabulary import OVERRIDES

    usage: dict[str, float] = {}
    pins: set[str] = set()
    if getattr(args, "usage", None):
        try:
            data = read_structured(args.usage, "json")
        except StructuredError as err:
            raise UsageError(f"--usage {args.usage}: {err}") from None
        shape = '{"skill-name": count, ...} or {"usage": {...}, "pins": ["skill-name", ...]}'
        counts = data.get("usage", data) if isinstance(data, dict) else None
        raw_pins = data.get("pins", []) if isinstance(data, dict) and "usage" in data else []
        if (
            not isinstance(counts, dict)
            or not all(
                isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
                for v in counts.values()
            )
            or not (isinstance(raw_pins, list) and all(isinstance(p, str) for p in raw_pins))
        ):
            raise UsageError(f"--usage {args.usage}: expected {shape}")
        usage = {str(k): float(v) for k, v in counts.items()}
        pins = set(raw_pins)
    overrides = {}
    for item in getattr(args, "override", None) or []:
        name, _, mode = item.partition("=")
        if mode not in OVERRIDES or not name:
            raise UsageError(f"--override {item}: expected NAME=" + "|".join(OVERRIDES))
        overrides[name] = mode
    allowlist = None
    if getattr(args, "allowlist", None) is not None:
        allowlist = tuple(n.strip() for n in args.allowlist.split(",") if n.strip())
    if args.budget_chars is not None and args.budget_fraction is not None:
        raise UsageError("use either --budget-chars or --budget-fraction, not both")
    if args.context_window is not None and args.context_window < 0:
        raise UsageError("--context-window must be 0 (unknown) or more")
    fraction = args.budget_fraction
    if fraction is not None and not (math.isfinite(fraction) and 0 < fraction <= 1):
        raise UsageError("--budget-fraction must be a number above 0 and at most 1")
    if args.budget_chars is not None and args.budget_chars <= 0:
        raise UsageError("--budget-chars must be a positive number of characters")
    return BudgetInputs(
        context_window=args.context_window,
        budget_chars=args.budget_chars,
        budget_fraction=args.budget_fraction,
        usage=usage,
        pins=frozenset(pins),
        overrides=overrides,
        allowlist=allowlist,
        local_usage=getattr(args, "local_usage", True),
    )


def warn_unread(problems: list[str]) -> None:
    """Runtime settings files that could not be read: said on stderr, never fatal."""
    for problem in problems:
        tell(f"skillprism: warning: {problem}")
