"""`skillprism engine --fd N`: the window's engine process (not for people to run: the window
starts it, engine/launch.py). Hidden from the command list."""

from __future__ import annotations

import argparse


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    engine = sub.add_parser("engine", description="The window's engine process (internal).")
    engine.add_argument(
        "--fd", type=int, required=True, help="the socket inherited from the window"
    )
    engine.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from multiprocessing import util

    from skillprism.engine.launch import remove_private_temp

    # Run at exit after multiprocessing's own clean-up of its folders inside this one (a lower
    # exit priority runs later), whenever multiprocessing was first imported (the frozen app's
    # start-up imports it before this runs): the pool and the fork server remove their folders,
    # then this removes the one around them.
    util.Finalize(None, remove_private_temp, exitpriority=-1000)
    from skillprism.engine.server import main

    return main(args.fd)
