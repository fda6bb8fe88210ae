"""The discovery search never leaves the reviewed tree through /proc, /sys, /dev or a link to an
ancestor (issue 22, item 5), and a search a bound stops early never passes unseen (item 4).

Before: a symlink to /proc made `check` walk every other process's working folder (20,101
"skills"), and 60,000 empty folders stopped the search at its folder bound before any skill: 0
skills, exit 0. The link rule is core/containment.py's `link_refusal`, shared by every walk.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skillprism.cli import main
from skillprism.core.containment import absolute, link_refusal, system_folder
from skillprism.core.discovery import root_md_files
from skillprism.core.profiles import load_profile
from skillprism.core.resolve import build_catalog
from skillprism.core.scan import search

SKILL = "---\nname: {name}\ndescription: Does {name}. Use when testing.\n---\n\n# {name}\n"
HAS_PROC = os.path.isdir("/proc/self")
needs_proc = pytest.mark.skipif(not HAS_PROC, reason="needs a /proc file system")


@pytest.fixture(autouse=True)
def _neutral_cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    monkeypatch.chdir(cwd)


def skill(folder: Path, name: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "SKILL.md").write_text(SKILL.format(name=name), encoding="utf-8")
    return folder


# --- the rule ------------------------------------------------------------------------------------


@needs_proc
@pytest.mark.parametrize(
    "target", ["/proc", "/proc/self", "/proc/self/fd", "/sys", "/dev", "/dev/shm"]
)
def test_system_folders_are_never_followed(target: str) -> None:
    if not os.path.exists(target):
        pytest.skip(f"{target} does not exist here")
    assert "system folder" in link_refusal(os.path.realpath(target))
    assert system_folder(os.path.realpath(target))


def test_ancestors_and_the_walk_itself_are_never_followed(tmp_path: Path) -> None:
    walked = [str(tmp_path / "tree"), str(tmp_path / "tree" / "a")]
    assert "parent folders" in link_refusal(str(tmp_path / "tree" / "a"), walked)
    assert "parent folders" in link_refusal(str(tmp_path / "tree"), walked)
    assert "parent folders" in link_refusal(str(tmp_path), walked)
    assert "parent folders" in link_refusal("/", walked)
    # Elsewhere (a skill installed as a link to its own repository) is followed.
    assert link_refusal(str(tmp_path / "elsewhere"), walked) == ""
    assert link_refusal(str(tmp_path / "tree-sibling"), walked) == ""


# --- the search ----------------------------------------------------------------------------------


@needs_proc
def test_a_link_to_proc_is_not_followed(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    skill(tree / "mine", "mine")
    (tree / "deep" / "er").mkdir(parents=True)
    os.symlink("/proc", tree / "deep" / "er" / "p")
    os.symlink("../../../../../../../../../../../../proc/self", tree / "self")
    result = search(str(tree), max_dirs=2000)
    assert [f.path for f in result.files] == [str(tree / "mine" / "SKILL.md")]
    refused = {os.path.basename(p): f for p, f in result.notes if f.rule == "symlink-problem"}
    assert set(refused) == {"p", "self"}
    assert "/proc" in refused["p"].message and "not followed" in refused["p"].message
    assert result.dirs_visited <= 5


@needs_proc
def test_a_skill_file_linked_into_proc_is_not_read(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    (tree / "env").mkdir(parents=True)
    os.symlink("/proc/self/status", tree / "env" / "SKILL.md")
    result = search(str(tree))
    assert result.files == []
    assert [f.rule for _p, f in result.notes] == ["symlink-problem"]


@needs_proc
def test_a_start_that_leads_into_proc_is_not_searched(tmp_path: Path) -> None:
    os.symlink("/proc", tmp_path / "tree")
    result = search(str(tmp_path / "tree"))
    assert result.files == [] and result.dirs_visited == 0
    assert result.notes[0][1].rule == "symlink-problem"


@needs_proc
def test_root_md_files_skip_links_into_proc(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    root.mkdir()
    (root / "real.md").write_text(SKILL.format(name="real"), encoding="utf-8")
    os.symlink("/proc/self/status", root / "status.md")
    assert [f.parts for f in root_md_files(str(root), ("SKILL.md",))] == [("real.md",)]


def test_a_skill_linked_from_elsewhere_is_still_found(tmp_path: Path) -> None:
    skill(tmp_path / "repos" / "tool", "tool")
    tree = tmp_path / "tree"
    tree.mkdir()
    os.symlink(tmp_path / "repos" / "tool", tree / "tool")
    os.symlink("..", tree / "up")
    result = search(str(tree))
    assert [f.path for f in result.files] == [str(tree / "tool" / "SKILL.md")]


@needs_proc
def test_check_never_reads_other_processes_folders(tmp_path: Path) -> None:
    """The reported case, end to end: another process works in a folder with skills; a tree
    under review links to /proc. `check` must find only the tree's own skill, fast."""
    other = tmp_path / "other-project"
    skill(other / "skills" / "secret", "secret")
    tree = tmp_path / "tree"
    skill(tree / "mine", "mine")
    os.symlink("/proc", tree / "p")
    idle = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(120)"],
        cwd=other,
        stdin=subprocess.DEVNULL,
    )
    try:
        t0 = time.perf_counter()
        proc = subprocess.run(
            [sys.executable, "-m", "skillprism", "check", "--format", "json", str(tree)],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=60,
            stdin=subprocess.DEVNULL,
        )
        seconds = time.perf_counter() - t0
    finally:
        idle.kill()
        idle.wait()
    doc = json.loads(proc.stdout)
    paths = [s["path"] for r in doc["results"] for s in r["skills"]]
    assert paths == [str(tree / "mine" / "SKILL.md")]
    assert "SP304" in {d["code"] for r in doc["results"] for d in r["diagnostics"]}
    assert seconds < 10


# --- bounds --------------------------------------------------------------------------------------


def _crowded(root: Path, empty: int, first: str = "", last: str = "") -> None:
    """`empty` empty folders in `root`, with a skill sorted before them and/or after them."""
    root.mkdir(parents=True)
    for i in range(empty):
        (root / f"m{i:05d}").mkdir()
    if first:
        skill(root / first, first)
    if last:
        skill(root / last, last)


def test_a_search_stopped_before_any_skill_says_nothing_was_checked(tmp_path: Path) -> None:
    _crowded(tmp_path / "tree", 150, last="zz")
    result = search(str(tmp_path / "tree"), max_dirs=100)
    assert result.files == [] and result.stopped_empty
    [(_where, finding)] = result.notes
    assert finding.rule == "scan-truncated" and "nothing below this folder was checked" in (
        finding.message
    )


def test_the_folder_bound_before_any_skill_is_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # agentskills reads {project}/.agents/skills and stops after 2,000 folders, as its runtime
    project = tmp_path / "project"
    _crowded(project / ".agents" / "skills", 2100, last="zz")
    catalog = build_catalog(load_profile("agentskills"), project=str(project))
    assert catalog.skills == ()
    truncated = [d for d in catalog.diagnostics if d.code == "SP303"]
    assert truncated and truncated[0].severity.value == "error"
    assert main(["check", "--project", str(project)]) == 1
    out = capsys.readouterr().out
    assert "error SP303" in out and "nothing below this folder was checked" in out


def test_the_depth_bound_before_any_skill_is_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tree = tmp_path / "tree"
    skill(tree.joinpath(*["d"] * 12), "deep")
    assert main(["check", str(tree)]) == 1
    out = capsys.readouterr().out
    assert "error SP303" in out and "nothing was checked" in out
    assert "SP311" not in out  # "no skill file below" would be wrong: the search never got there


def test_a_large_tree_cut_short_warns_and_fails_on_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = tmp_path / "project"
    _crowded(project / ".agents" / "skills", 2100, first="aa", last="zz")
    catalog = build_catalog(load_profile("agentskills"), project=str(project))
    assert [s.name for s in catalog.skills] == ["aa"]
    truncated = [d for d in catalog.diagnostics if d.code == "SP303"]
    assert truncated and {d.severity.value for d in truncated} == {"warning"}
    assert main(["check", "--project", str(project)]) == 0
    out = capsys.readouterr().out
    assert "warning SP303" in out  # said, not silent
    assert main(["check", "--project", str(project), "--fail-on", "warning"]) == 1
    capsys.readouterr()


def test_the_settings_cannot_hide_a_truncation_unseen(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = tmp_path / "project"
    _crowded(project / ".agents" / "skills", 2100, last="zz")
    (project / ".skillprism.toml").write_text('ignore_codes = ["SP303"]\n', encoding="utf-8")
    assert main(["check", "--project", str(project)]) == 0
    out = capsys.readouterr().out
    assert "SP303 x" in out  # suppressed, and the output says so
    assert main(["check", "--project", str(project), "--no-project-settings"]) == 1
    capsys.readouterr()


@settings(max_examples=400, deadline=None)
@given(
    st.lists(
        st.sampled_from(["", ".", "..", "a", ".hidden", "..b", "b.", "skills", " ", "x..y"]),
        max_size=6,
    ),
    st.booleans(),
    st.sampled_from(["", "/", "//", "/."]),
)
def test_absolute_is_abspath(parts: list[str], rooted: bool, tail: str) -> None:
    # the shortcut for a path already absolute and normal gives what abspath gives, always
    path = ("/" if rooted else "") + "/".join(parts) + tail
    assert absolute(path) == os.path.abspath(path)
