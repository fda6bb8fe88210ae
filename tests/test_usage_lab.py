"""Claude Code 2.1.330's own listing code, fed a real-shaped ~/.claude.json, against Skill Prism's
`prompt --profile claude-code` on the same home: the same order and cut (conformance/
claude_code_facts.py, case 'usage'). Needs the pinned binary (conformance/install_bin.py, or
SKILLPRISM_LAB_CACHE pointing at a lab cache) and node; skipped with the reason otherwise."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

LAB = Path(__file__).resolve().parent.parent / "conformance"


@pytest.fixture(scope="module")
def facts():
    sys.path.insert(0, str(LAB))
    try:
        import binlab
        import claude_code_facts
    finally:
        sys.path.remove(str(LAB))
    try:
        path = binlab.binary_path("claude-code")
    except binlab.LabError as err:
        pytest.skip(f"Claude Code's binary is not in the lab cache: {err}")
    if shutil.which("node") is None:
        pytest.skip("node is not installed (the lab runs Claude Code's code under node)")
    image = binlab.BunImage(path)
    ex = claude_code_facts.Extractor(image)
    got, parts = claude_code_facts.gather(ex, claude_code_facts.load_profile())
    return claude_code_facts, ex, parts, {f.name: f for f in got}


SKILLPRISM = [sys.executable, "-m", "skillprism"]


def test_the_profiles_usage_data_is_what_the_binary_says(facts) -> None:
    _mod, _ex, _parts, found = facts
    for name in (
        "usage priority (skillUsage, decay, floor)",
        "usage record written on each use",
        "usage file (the global config)",
    ):
        assert found[name].status == "match", (name, found[name].found, found[name].profile)


def test_the_listing_from_a_real_claude_json_matches_claude_codes_own(facts) -> None:
    mod, ex, parts, _found = facts
    fact = mod.run_usage_case(ex, parts, SKILLPRISM)
    assert fact.status == "match", f"\nClaude Code:\n{fact.found}\nSkill Prism:\n{fact.profile}"
    listing = fact.found
    # the cut is decided by usage: the most-used keep their descriptions, a never-used one that
    # comes first in listing order does not, and the greedy rule lets a later, shorter one in
    assert "- u-hot: Hot" in listing and "- u-docs: Docs" in listing
    assert "\n- u-bench\n" in listing and "\n- u-lint\n" in listing
    # without usage the same skills are cut differently (listing order)
    plain = mod.skillprism_listing([*SKILLPRISM], mod.USAGE_SKILLS, 420, None)
    assert plain != listing and "- u-bench: Bench" in plain
