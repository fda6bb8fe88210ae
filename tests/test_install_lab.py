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


def test_claude_code_loads_every_installed_skill_in_its_own_session(tmp_path: Path) -> None:
    """Claude Code's driver runs a `claude -p` session against the scripted model server and
    lists what it loaded: the skill without a description loads too (its body's first line)."""
    install_lab, runtimes = lab()
    rt = runtimes["claude-code"]
    if not rt.installed():
        pytest.skip(f"claude-code {rt.release} is not in the lab cache ({rt.install_dir})")
    repo = tmp_path / "repo"
    write_repo(repo)
    (cell,) = install_lab.run_lab(
        [str(repo)], ["claude-code"], ["personal"], "copy", str(tmp_path / "work")
    )
    assert not cell.error, cell.error
    # The plugin's skill too: it goes to ~/.claude/skills as a plain skill, because Claude Code
    # loads its plugin cache only for what its own install records (the claude-code profile's
    # plugin root says `install = false`).
    assert cell.how == "loader" and cell.installed == 4 and cell.missing == 0, cell.missing_list
    assert cell.found == 4 and cell.rejected == 0, cell.rejected_list


@pytest.mark.parametrize("scope", ["personal", "project"])
def test_runtimes_installed_together_read_each_skill_once(scope: str, tmp_path: Path) -> None:
    """Codex and Gemini CLI both read .agents/skills: installed together, one copy goes there
    and each runtime's own loader finds every skill once (x2 = 0)."""
    install_lab, runtimes = lab()
    for runtime in ("codex", "gemini-cli"):
        if not runtimes[runtime].installed():
            pytest.skip(f"{runtime} is not in the lab cache")
    if shutil.which("node") is None:
        pytest.skip("node is not on PATH")
    repo = tmp_path / "repo"
    write_repo(repo)
    work = tmp_path / "work"
    cells = install_lab.run_lab([str(repo)], ["codex", "gemini-cli"], [scope], "copy", str(work))
    for cell in cells:
        assert not cell.error, cell.error
        assert (cell.missing, cell.twice) == (0, 0), (cell.runtime, cell.missing_list)
        assert cell.found == 3 and cell.rejected == 1
    base = "home" if scope == "personal" else "proj"
    shared = work / f"repo-{scope}" / base / ".agents" / "skills"
    assert sorted(p.name for p in shared.iterdir()) == [
        "kit-skill",
        "lab-nodesc",
        "lab-one",
        "lab-two",
    ]


def test_a_skill_read_from_two_of_the_installs_folders_is_counted(tmp_path: Path) -> None:
    install_lab, _runtimes = lab()
    mine, other = tmp_path / "a" / "skills" / "x", tmp_path / "b" / "skills" / "x"
    for d in (mine, other):
        d.mkdir(parents=True)
        (d / "SKILL.md").write_text("---\nname: x\ndescription: X.\n---\n")

    class Placed:
        target, status, reason, name, source = str(mine), "ok", "", "x", "/src/x"

    result = {
        "skills": [{"path": str(mine / "SKILL.md"), "name": "x"}],
        "rejected": [{"path": str(other / "SKILL.md"), "reason": "duplicate"}],
    }
    once = install_lab.Cell("r", "c", "personal")
    install_lab.compare(once, [Placed()], result, [("/src/x", str(mine))])
    twice = install_lab.Cell("r", "c", "personal")
    install_lab.compare(twice, [Placed()], result, [("/src/x", str(mine)), ("/src/x", str(other))])
    # two skills that only share a folder name (in two plugins) are not one skill read twice
    apart = install_lab.Cell("r", "c", "personal")
    install_lab.compare(
        apart, [Placed()], result, [("/src/x", str(mine)), ("/src/y/x", str(other))]
    )
    assert (once.found, once.twice) == (1, 0) and (twice.found, twice.twice) == (1, 1)
    assert apart.twice == 0
