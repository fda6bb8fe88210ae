"""The engine's answers made in-process, for tests of the window's models and views."""

from __future__ import annotations

import os
from typing import Any

from skillprism.engine.server import Engine
from skillprism.engine.views import FilterQuery, LoadedView, OpenSpec


def open_view(
    paths: list[str], profile: str = "agentskills", project: str | None = None
) -> tuple[Engine, LoadedView]:
    """An engine (no socket, no watch) and its answer to opening `paths` under `profile`, with
    the risks in (the view that follows the risk scan, when the security pass is on)."""
    engine = Engine(workers=1)
    spec = OpenSpec(project or os.getcwd(), tuple(paths), profile)
    view: LoadedView = engine.handle("open", spec, False, FilterQuery(), False)
    if view.risks_pending:
        view = engine.handle("risks")
    return engine, view


def answer(engine: Engine, kind: str, *args: Any) -> Any:
    return engine.handle(kind, *args)
