"""One live trigger run over an eval set, from the skill set to the saved result.

`review_set(catalog)` picks the skills the throwaway workspace holds: every skill the runtime
loads from the folders under review (the PATHs given, or the project's own skill folders).
Skills of the user's personal and managed folders are not copied: the runtime sees them from the
user's home as it always does. `live_release` asks the CLI for its release. `run_live` lays the
workspace out, runs every prompt `runs` times, reports each result as it arrives and returns the
results with the date, release, models and the skill set's fingerprint.
"""

from __future__ import annotations

import datetime
import os
import shutil
import subprocess
from collections.abc import Callable, Mapping, Sequence

from skillprism.core.catalog import Catalog
from skillprism.core.eval_sets import EvalItem
from skillprism.core.live_trigger.results import LiveResults
from skillprism.core.live_trigger.runner import Launch, RunResult, iter_runs, jobs
from skillprism.core.live_trigger.spec import LiveSpec
from skillprism.core.live_trigger.workspace import Skill, live_workspace
from skillprism.core.profiles import Profile

REVIEWED_SCOPES = ("project",)  # besides the PATHs given (explicit roots)


class LiveError(RuntimeError):
    """A live run that cannot start, with what to do about it."""


def review_set(catalog: Catalog) -> list[Skill]:
    """The skills under review, as the runtime names them (see the module)."""
    return [
        Skill(s.qualified_name or s.name, s.directory)
        for s in catalog.skills
        if s.loaded
        and not s.root.namespace
        and (s.root.explicit or s.root.scope in REVIEWED_SCOPES)
    ]


def live_spec(profile: Profile) -> LiveSpec:
    if profile.live is None:
        raise LiveError(
            f"{profile.title} has no live mode (no [live_trigger] in its profile); "
            "live runs are available for Claude Code, Codex, Gemini CLI and OpenCode"
        )
    return profile.live


def find_program(spec: LiveSpec, given: str | None) -> str:
    """The CLI to run: `given`, or the command's program on PATH."""
    if given:
        path = os.path.abspath(os.path.expanduser(given))
        if not os.path.isfile(path) or not os.access(path, os.X_OK):
            raise LiveError(f"--runtime-cli {given}: not an executable file")
        return path
    found = shutil.which(spec.program)
    if found is None:
        raise LiveError(
            f"{spec.program} is not on PATH; install the runtime or give its path with "
            "--runtime-cli PATH"
        )
    return found


def run_env(spec: LiveSpec, base: Mapping[str, str] | None = None) -> dict[str, str]:
    """The user's environment, untouched, plus what the runtime needs in the workspace."""
    env = dict(os.environ if base is None else base)
    env.update(dict(spec.env))
    return env


def live_release(spec: LiveSpec, program: str, env: Mapping[str, str], timeout: float = 30) -> str:
    """The CLI's own `--version` line ("" when it gives none; a Node CLI on a busy machine can
    take many seconds to start, hence the generous `timeout`)."""
    argv = [program, *spec.version[1:]]
    try:
        out = subprocess.run(
            argv, capture_output=True, text=True, timeout=timeout, env=dict(env), check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return ""
    lines = [ln.strip() for ln in (out.stdout or out.stderr).splitlines() if ln.strip()]
    return lines[0][:200] if lines else ""


def run_live(
    profile: Profile,
    skills: Sequence[Skill],
    intended: str,
    items: Sequence[EvalItem],
    runs: int,
    *,
    program: str,
    env: Mapping[str, str],
    release: str,
    held_out: Sequence[EvalItem] = (),
    timeout: float = 120.0,
    concurrency: int = 2,
    on_result: Callable[[RunResult, int, int], None] | None = None,
    launch_prefix: tuple[str, ...] = (),
    extra: tuple[str, ...] = (),
) -> LiveResults:
    """Run every prompt `runs` times in a throwaway workspace (see the module); `on_result`
    gets each result with how many are done and how many there are. Cancelled propagates."""
    spec = live_spec(profile)
    todo = jobs([i.query for i in items], runs)
    done: list[RunResult] = []
    with live_workspace(profile, skills) as ws:
        launch = Launch(ws.project, program, launch_prefix, extra, env)
        for result in iter_runs(
            spec, todo, launch, intended, ws.skills, timeout=timeout, concurrency=concurrency
        ):
            done.append(result)
            if on_result is not None:
                on_result(result, len(done), len(todo))
        fingerprint = ws.fingerprint
    return LiveResults.collect(
        items,
        done,
        held_out,
        runtime=profile.name,
        release=release,
        skill=intended,
        fingerprint=fingerprint,
        date=datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        runs=runs,
    )
