"""The budget advisor's plans checked in the runtimes' own listings (conformance/advisor_lab.py)
on a small collection: before, the runtime's own listing cuts descriptions; after `skillprism
advise --apply --plan P` every listed description is full in Skill Prism's listing and in the
runtime's (Codex 0.169.0 run by its lab driver, with the window set through its own
`model_context_window`; Claude Code 2.1.330's listing and listing predicate cut out of its
binary and run under node). Skipped with the reason when a binary or node is missing."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

LAB = Path(__file__).resolve().parent.parent / "conformance"
WINDOW = 35_000  # Codex: 700 tokens; Claude Code: 1,400 characters

SENTENCE = "Handles the {n} reports of a team from upload to archive, step by step. "


@pytest.fixture(scope="module")
def lab():
    sys.path.insert(0, str(LAB))
    try:
        import advisor_lab
        import binlab
    finally:
        sys.path.remove(str(LAB))
    return advisor_lab, binlab


@pytest.fixture()
def collection(tmp_path: Path) -> str:
    """A repository of 12 skills in a `skills/` folder, each description about 290 characters."""
    root = tmp_path / "repo" / "skills"
    for i in range(12):
        d = root / f"lab-skill-{i:02d}"
        d.mkdir(parents=True)
        desc = (SENTENCE.format(n=f"kind-{i}") * 4).strip()
        (d / "SKILL.md").write_text(
            f"---\nname: lab-skill-{i:02d}\ndescription: {desc}\n---\n\nBody.\n"
        )
    return str(tmp_path / "repo")


def _runtime(lab, runtime: str):  # type: ignore[no-untyped-def]
    advisor_lab, binlab = lab
    try:
        binlab.binary_path(runtime)
    except binlab.LabError as err:
        pytest.skip(f"{runtime}'s binary is not in the lab cache: {err}")
    if runtime == "claude-code":
        if shutil.which("node") is None:
            pytest.skip("node is not installed (the lab runs Claude Code's code under node)")
        return advisor_lab.ClaudeListing()
    return None


@pytest.mark.parametrize("plan", ["shorten", "disable"])
@pytest.mark.parametrize("runtime", ["codex", "claude-code"])
def test_the_advisors_plan_makes_the_runtimes_own_listing_full(
    lab, collection: str, runtime: str, plan: str
) -> None:
    advisor_lab, _binlab = lab
    claude = _runtime(lab, runtime)
    row = advisor_lab.run_cell(collection, runtime, WINDOW, plan, claude)
    assert row.skills >= 12 and row.planned > 0, row
    # before: the runtime's own listing does not show every description in full
    assert row.rt_before is not None and row.rt_before[0] < row.rt_before[1], row
    assert row.sp_before[0] < row.sp_before[1], row
    # after: every listed description is full, in Skill Prism's listing and in the runtime's
    assert row.sp_after[0] == row.sp_after[1] > 0, row
    assert row.rt_after is not None and row.rt_after[0] == row.rt_after[1] > 0, row
    if plan == "disable":
        assert row.rt_after[1] == row.rt_before[1] - row.planned, row
    else:
        assert row.rt_after[1] == row.rt_before[1] and row.cap is not None, row
