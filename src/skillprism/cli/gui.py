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


def inputs_problems(paths: list[str], profile: str | None) -> list[str]:
    """What is wrong with the folders and the profile named on the command line, checked before
    any window: each problem is one line on stderr, not an empty window or a scan failure."""
    from skillprism.core.profiles import ProfileError, load_profile
    from skillprism.core.scan import path_problem

    problems = [p for p in (path_problem(path) for path in paths) if p]
    if profile:
        try:
            load_profile(profile)
        except ProfileError as err:
            problems.append(str(err))
    return problems


def run(args: argparse.Namespace) -> int:
    import sys

    from skillprism import APP_NAME

    problems = inputs_problems(list(args.paths), args.profile)
    for problem in problems:
        print(f"{APP_NAME}: {problem}", file=sys.stderr)
    if problems:
        return 2
    from skillprism.engine.launch import prestart

    prestart()  # the engine starts up while the window loads Qt
    from skillprism.gui.app import run_gui

    return run_gui(
        list(args.paths),
        args.profile,
        args.palette,
        args.screenshot,
        args.exit_when_ready,
        install_into=args.install_into or "",
    )
