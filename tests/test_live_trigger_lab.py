"""The trigger lab (issue #27): each pinned CLI the lab holds, driven by Skill Prism's own live
runner against the scripted model server on 127.0.0.1 inside a network namespace where that
server is the only peer (conformance/live_lab.py). Every outcome must be read correctly from the
real CLI's real event stream. A CLI the lab does not hold is skipped with the reason; a runtime
whose profile marks live mode unverified says why."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from skillprism.core.profiles import load_profile

LAB = Path(__file__).resolve().parent.parent / "conformance"
sys.path.insert(0, str(LAB))

import binlab  # noqa: E402
import live_lab  # noqa: E402

ANSWERS = ("intended", "other", "none", "error", "timeout")


def _cli_or_skip(runtime: str) -> None:
    try:
        live_lab.cli_path(runtime)
    except binlab.LabError as err:
        pytest.skip(f"{runtime}: {err}")
    try:
        binlab.no_network_prefix()
    except binlab.LabError as err:
        pytest.skip(str(err))


@pytest.mark.parametrize("answer", ANSWERS)
@pytest.mark.parametrize("runtime", ["claude-code", "codex", "opencode", "gemini-cli"])
def test_outcome_read_from_the_real_cli(runtime: str, answer: str, tmp_path: Path) -> None:
    _cli_or_skip(runtime)
    timeout = 6.0 if answer == "timeout" else 90.0
    outcome, stream = live_lab.lab_run(runtime, answer, tmp_path, timeout=timeout)
    assert outcome.outcome == answer, (outcome, stream[-3:])
    if answer == "other":
        assert outcome.skill == "beta"
    if answer == "intended":
        assert outcome.skill == "alpha"
    if answer == "error":
        assert "lab: scripted bad request" in outcome.message
    # Nothing but the scripted server was asked: every request the CLI made reached it.
    assert (tmp_path / "requests.jsonl").is_file()
