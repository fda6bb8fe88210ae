"""Claude Code's own binary against the claude-code profile on which plugins of its cache it
loads (conformance/plugin_lab.py): every scenario agrees. Needs the lab's Claude Code
(conformance/install_bin.py, or SKILLPRISM_LAB_CACHE); skipped without it."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def lab():  # type: ignore[no-untyped-def]
    sys.path.insert(0, str(ROOT))
    try:
        from conformance import plugin_lab
        from conformance.runtimes import RUNTIMES
    finally:
        sys.path.remove(str(ROOT))
    return plugin_lab, RUNTIMES


@pytest.mark.parametrize("name", [s.name for s in lab()[0].SCENARIOS])
def test_claude_code_loads_the_plugins_the_profile_says(name: str) -> None:
    plugin_lab, runtimes = lab()
    rt = runtimes["claude-code"]
    if not rt.installed():
        pytest.skip(f"claude-code {rt.release} is not in the lab cache ({rt.install_dir})")
    (scenario,) = [s for s in plugin_lab.SCENARIOS if s.name == name]
    out = plugin_lab.run_scenario(scenario)
    assert out.agrees, f"{scenario.note}: Claude Code {out.runtime}, Skill Prism {out.skillprism}"
