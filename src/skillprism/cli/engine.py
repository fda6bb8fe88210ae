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
    import atexit

    from skillprism.engine.launch import remove_private_temp

    # Registered before the worker pool's own clean-up exists, so it runs after it (atexit runs
    # last-registered first): the pool removes its folder, then this removes the one around it.
    atexit.register(remove_private_temp)
    from skillprism.engine.server import main

    return main(args.fd)
