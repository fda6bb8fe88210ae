"""Command-line front end: one small module per command (check, fix, prompt, advise, activate,
resource, watch, report, install, gui, self-test), each turning arguments into Workspace calls and
formatted output with an exit code. No command opens the desktop window. Headless commands never import Qt."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from skillprism import __version__
from skillprism.cli import (
    activate,
    advise,
    check,
    engine,
    fix,
    gui,
    install,
    profiles,
    prompt,
    report,
    resource,
    selftest,
    toggle,
    trigger,
    watch,
    where,
)
from skillprism.cli.common import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE

COMMANDS = (
    check,
    fix,
    prompt,
    advise,
    activate,
    resource,
    trigger,
    watch,
    report,
    where,
    toggle,
    install,
    profiles,
    gui,
    selftest,
    engine,
)

__all__ = ["EXIT_FINDINGS", "EXIT_OK", "EXIT_USAGE", "build_parser", "main"]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="skillprism",
        description="Skill Prism: see one Agent Skills set the way each agent runtime sees it.",
    )
    parser.add_argument("--version", action="version", version=f"skillprism {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for command in COMMANDS:
        command.add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    # PATHs may follow options (`activate NAME --args X DIR`); argparse leaves such trailing
    # positionals unrecognised once NAME is filled, so they are taken as further PATHs here.
    args, extra = parser.parse_known_args(argv)
    if extra:
        if not hasattr(args, "paths") or any(e.startswith("-") and e != "-" for e in extra):
            parser.error(f"unrecognized arguments: {' '.join(extra)}")
        args.paths = [*args.paths, *extra]
    try:
        if args.command is None:
            return gui.run(gui.defaults())
        return int(args.run(args))
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # Output piped into `head` and friends: not an error worth a traceback.
        sys.stderr.close()
        return EXIT_OK


if __name__ == "__main__":
    raise SystemExit(main())
