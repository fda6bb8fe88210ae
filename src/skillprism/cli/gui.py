"""`skillprism gui` (the default command): open the desktop window."""

from __future__ import annotations

import argparse


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    gui = sub.add_parser("gui", help="open the desktop window (the default)")
    gui.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="folders or skills to show (replace the saved roots for this run)",
    )
    gui.add_argument("--profile", metavar="NAME|PATH")
    gui.add_argument("--palette", choices=("light", "dark"), help="force a palette")
    gui.add_argument(
        "--install-into",
        choices=("personal", "project"),
        help="show the PATHs (repositories of skills) as installed into each runtime's personal "
        "or project skills folder (View menu in the window)",
    )
    gui.add_argument(
        "--screenshot",
        metavar="FILE",
        help="render the window at 1440x900 to FILE (PNG) once scanned, then exit",
    )
    gui.add_argument(
        "--exit-when-ready",
        action="store_true",
        help="quit once the window shows the first scan, printing a line (start-up benchmarks)",
    )
    gui.set_defaults(run=run)


def defaults() -> argparse.Namespace:
    """The options of `gui` when no command is given."""
    return argparse.Namespace(
        paths=[],
        profile=None,
        palette=None,
        screenshot=None,
        exit_when_ready=False,
        install_into=None,
    )


def run(args: argparse.Namespace) -> int:
    from skillprism.gui.app import run_gui

    return run_gui(
        list(args.paths),
        args.profile,
        args.palette,
        args.screenshot,
        args.exit_when_ready,
        install_into=args.install_into or "",
    )
