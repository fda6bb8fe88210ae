"""`skillprism self-test`: check that this installation works, offscreen, without touching the
user's settings or skills."""

from __future__ import annotations

import argparse

from skillprism.cli.common import EXIT_FINDINGS


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    selftest = sub.add_parser(
        "self-test",
        help="check that this installation works (offscreen window, profiles, watcher)",
        description="Check that this installation works, without a screen and without touching "
        "your settings or skills: bundled data, every profile, the tokenizer, rendering, the "
        "main window on the demo set and a file-watch round trip in a temporary folder. "
        "Exit status 0 when every check passes, 1 otherwise.",
    )
    selftest.add_argument("--screenshot", metavar="FILE", help="also save the window as a PNG")
    selftest.add_argument(
        "--verbose", action="store_true", help="print a traceback for unexpected failures"
    )
    selftest.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from skillprism.gui.app import qt_or_explain

    if not qt_or_explain():
        return EXIT_FINDINGS
    from skillprism.gui.selftest import run_self_test

    return run_self_test(screenshot=args.screenshot or "", verbose=args.verbose)
