"""`skillprism install` checked with the runtimes' own loaders in the conformance lab: a small
repository of our own (a collection, a plugin, a skill a runtime refuses) is installed into a
temporary home and project, then Codex 0.169.0 (its app server) and Gemini CLI 0.61.0 (its
`SkillManager`, under node) list what they load there. Every installed skill is found, or refused
by the runtime where Skill Prism's verdict for that runtime says so too. Each runtime is skipped,
with the reason, when its pinned release is not in the lab cache (conformance/install.py,
install_bin.py, or SKILLPRISM_LAB_CACHE)."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def lab():
    sys.path.insert(0, str(ROOT))
    try:
        from conformance import install_lab
        from conformance.runtimes import RUNTIMES
    finally:
        sys.path.remove(str(ROOT))
    return install_lab, RUNTIMES


def write_repo(repo: Path) -> None:
    for name in ("lab-one", "lab-two"):
        d = repo / "skills" / name
        d.mkdir(parents=True)
        (d / "SKILL.md").write_text(
            f"---\nname: {name}\ndescription: The {name} skill, installed by the lab.\n---\n\nBody.\n"
        )
        (d / "references").mkdir()
        (d / "references" / "more.md").write_text("More.\n")
    bad = repo / "skills" / "lab-nodesc"
    bad.mkdir()
    (bad / "SKILL.md").write_text("---\nname: lab-nodesc\n---\n\nNo description at all.\n")
    plugin = repo / "plugins" / "kit"
    (plugin / ".claude-plugin").mkdir(parents=True)
    (plugin / ".claude-plugin" / "plugin.json").write_text(json.dumps({"name": "kit"}))
    d = plugin / "skills" / "kit-skill"
    d.mkdir(parents=True)
    (d / "SKILL.md").write_text(
        "---\nname: kit-skill\ndescription: A plugin's skill.\n---\nBody.\n"
    )


@pytest.mark.parametrize("runtime", ["codex", "gemini-cli"])
@pytest.mark.parametrize("scope", ["personal", "project"])
def test_every_installed_skill_is_found_by_the_runtimes_own_loader(
    runtime: str, scope: str, tmp_path: Path
) -> None:
    install_lab, runtimes = lab()
    rt = runtimes[runtime]
    if not rt.installed():
        pytest.skip(f"{runtime} {rt.release} is not in the lab cache ({rt.install_dir})")
    if rt.kind == "node" and shutil.which("node") is None:
        pytest.skip("node is not on PATH")
    repo = tmp_path / "repo"
    write_repo(repo)
    cells = install_lab.run_lab([str(repo)], [runtime], [scope], "copy", str(tmp_path / "work"))
    (cell,) = cells
    assert not cell.error, cell.error
    assert cell.how == "loader"
    assert cell.installed == 4
    assert cell.missing == 0, cell.missing_list
    # The three with a description are found; the one without is refused by both sides.
    assert cell.found == 3 and cell.rejected == 1, cell.rejected_list
    (refused,) = cell.rejected_list
    assert refused["skill"].endswith("lab-nodesc") and refused["skillprism"].startswith("skipped")


def test_claude_code_is_checked_with_skill_prisms_resolver(tmp_path: Path) -> None:
    """Claude Code's driver reports facts only (no listing without a model session): the lab
    says so and checks its column with Skill Prism's own resolver on the installed home."""
    install_lab, _runtimes = lab()
    repo = tmp_path / "repo"
    write_repo(repo)
    (cell,) = install_lab.run_lab(
        [str(repo)], ["claude-code"], ["personal"], "copy", str(tmp_path / "work")
    )
    assert cell.how == "resolver" and cell.installed == 4 and cell.missing == 0
    assert cell.found == 4  # Claude Code loads a skill without a description (first paragraph)
