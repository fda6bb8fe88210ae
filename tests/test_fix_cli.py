"""`skillprism fix` and the Workspace's fixes: a dry-run diff that `git apply --check` accepts,
applying (what was written, where the backup is), --only and --confidence, refusal of a file
changed since it was read, undo in one step, and the exit codes."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from skillprism import cli
from skillprism.app.workspace import Workspace, WorkspaceError

BROKEN = b"---\r\nname: Demo\r\ndescription: Use when: you deploy\r\n---\r\n\r\nBody.\r\n"
FIXED = b'---\r\nname: Demo\r\ndescription: "Use when: you deploy"\r\n---\r\n\r\nBody.\r\n'
EXTRA = b"\xef\xbb\xbf---\nname: other\ndescription: Other.\nauthor: me\n---\n\nBody.\n"


def _tree(root: Path) -> tuple[Path, Path]:
    a = root / "skills" / "demo" / "SKILL.md"
    b = root / "skills" / "other" / "SKILL.md"
    for f, data in ((a, BROKEN), (b, EXTRA)):
        f.parent.mkdir(parents=True)
        f.write_bytes(data)
    return a, b


def test_dry_run_diff_applies_with_git(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfdbinary: pytest.CaptureFixture[bytes]
) -> None:
    if shutil.which("git") is None:
        pytest.skip("git not installed")
    a, b = _tree(tmp_path)
    monkeypatch.chdir(tmp_path)
    assert cli.main(["fix", "--dry-run", "--diff", "skills"]) == 1
    out = capfdbinary.readouterr().out
    assert b"--- a/skills/demo/SKILL.md\n+++ b/skills/demo/SKILL.md\n" in out
    assert b'+description: "Use when: you deploy"\r\n' in out
    assert a.read_bytes() == BROKEN  # nothing written
    patch = tmp_path / "fix.patch"
    patch.write_bytes(out)
    subprocess.run(["git", "init", "-q", "."], cwd=tmp_path, check=True)
    subprocess.run(["git", "apply", "--check", str(patch)], cwd=tmp_path, check=True)
    subprocess.run(["git", "apply", str(patch)], cwd=tmp_path, check=True)
    assert a.read_bytes() == FIXED
    assert (
        b.read_bytes()
        == b"\xef\xbb\xbf---\nname: other\ndescription: Other.\nmetadata:\n  author: me\n---\n\nBody.\n"
    )


def test_apply_then_undo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:  # type: ignore[no-untyped-def]
    a, b = _tree(tmp_path)
    monkeypatch.chdir(tmp_path)
    assert cli.main(["fix", "--only", "SP113", "skills"]) == 0
    out, err = capsys.readouterr()
    assert "skills/demo/SKILL.md:3: SP113 quote the value that breaks the YAML [safe; helps" in out
    assert "previous versions in" in out and "skillprism fix --undo" in out
    assert a.read_bytes() == FIXED and b.read_bytes() == EXTRA  # --only kept SP216 out
    assert "1 fix(es) applied: SP113 1" in err
    assert cli.main(["fix", "--backups"]) == 0
    assert str(a) in capsys.readouterr().out
    assert cli.main(["fix", "--undo"]) == 0
    assert "restored skills/demo/SKILL.md" in capsys.readouterr().out
    assert a.read_bytes() == BROKEN
    assert cli.main(["fix", "--undo"]) == 0
    assert "nothing to undo" in capsys.readouterr().out


def test_undo_refused_after_a_later_edit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:  # type: ignore[no-untyped-def]
    a, _b = _tree(tmp_path)
    monkeypatch.chdir(tmp_path)
    assert cli.main(["fix", "skills"]) == 0
    a.write_bytes(FIXED + b"edited\r\n")
    capsys.readouterr()
    assert cli.main(["fix", "--undo"]) == 1
    err = capsys.readouterr().err
    assert "changed on disk" in err and "+edited" in err
    assert a.read_bytes() == FIXED + b"edited\r\n"


def test_confidence_safe_leaves_review_fixes_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:  # type: ignore[no-untyped-def]
    d = tmp_path / "skills" / "demo"
    d.mkdir(parents=True)
    (d / "SKILL.md").write_bytes(b"---\nname: demos\ndescription: D.\n---\n\nBody.\n")
    monkeypatch.chdir(tmp_path)
    assert cli.main(["fix", "--dry-run", "--confidence", "safe", "skills"]) == 0
    assert "nothing to fix" in capsys.readouterr().out
    assert cli.main(["fix", "--dry-run", "skills"]) == 1
    assert "SP208 set name to the folder's name 'demo' [review" in capsys.readouterr().out


def test_workspace_refuses_a_file_changed_since_its_fixes_were_offered(tmp_path: Path) -> None:
    a, b = _tree(tmp_path)
    ws = Workspace(str(tmp_path), [str(tmp_path / "skills")], ["agentskills"])
    fixes = ws.fixes()
    assert {f.code for f in fixes} == {"SP113", "SP216"}
    a.write_bytes(BROKEN + b"more\r\n")
    outcome = ws.apply_fixes(fixes)
    assert [r.path for r in outcome.refused] == [str(a)]
    assert outcome.refused[0].current.endswith("more\r\n")
    assert a.read_bytes() == BROKEN + b"more\r\n"
    assert [f.code for f in outcome.applied] == ["SP216"]
    assert b"metadata:" in b.read_bytes()
    assert ws.fixes([str(a.parent)], codes=["SP216"]) == []
    with pytest.raises(WorkspaceError, match="confidence"):
        ws.fixes(confidence="sure")


def test_nothing_to_fix_and_usage_errors(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:  # type: ignore[no-untyped-def]
    d = tmp_path / "skills" / "demo"
    d.mkdir(parents=True)
    (d / "SKILL.md").write_bytes(b"---\nname: demo\ndescription: D.\n---\n\nBody.\n")
    monkeypatch.chdir(tmp_path)
    assert cli.main(["fix", "skills"]) == 0
    assert "nothing to fix" in capsys.readouterr().out
    assert cli.main(["fix", "missing-folder"]) == 2
    assert cli.main(["fix", "--profile", "no-such", "skills"]) == 2


def test_folder_renames_only_when_asked_in_the_diff_and_undone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfdbinary: pytest.CaptureFixture[bytes]
) -> None:
    if shutil.which("git") is None:
        pytest.skip("git not installed")
    skill = tmp_path / "skills" / "my_tool"
    (skill / "scripts").mkdir(parents=True)
    (skill / "SKILL.md").write_bytes(
        b"---\r\nname: my_tool\r\ndescription: D.\r\n---\r\n\r\nBody.\r\n"
    )
    (skill / "scripts" / "run.py").write_bytes(b"print(1)\n")
    monkeypatch.chdir(tmp_path)
    assert cli.main(["fix", "--dry-run", "--diff", "skills"]) == 0  # not without asking
    capfdbinary.readouterr()
    assert cli.main(["fix", "--dry-run", "--diff", "--rename-folders", "skills"]) == 1
    patch = capfdbinary.readouterr().out
    assert (
        b"rename from skills/my_tool/scripts/run.py\nrename to skills/my-tool/scripts/run.py\n"
        in patch
    )
    (tmp_path / "fix.patch").write_bytes(patch)
    subprocess.run(["git", "init", "-q", "."], cwd=tmp_path, check=True)
    subprocess.run(["git", "add", "skills"], cwd=tmp_path, check=True)
    subprocess.run(["git", "apply", "--check", "--index", "fix.patch"], cwd=tmp_path, check=True)
    assert cli.main(["fix", "--rename-folders", "skills"]) == 0
    out = capfdbinary.readouterr().out
    assert b"renamed skills/my_tool to skills/my-tool" in out
    moved = tmp_path / "skills" / "my-tool"
    assert not skill.exists()
    assert (
        moved / "SKILL.md"
    ).read_bytes() == b"---\r\nname: my-tool\r\ndescription: D.\r\n---\r\n\r\nBody.\r\n"
    assert (moved / "scripts" / "run.py").read_bytes() == b"print(1)\n"
    assert cli.main(["fix", "--undo"]) == 0
    assert b"renamed skills/my-tool back to skills/my_tool" in capfdbinary.readouterr().out
    assert (skill / "SKILL.md").read_bytes().startswith(b"---\r\nname: my_tool\r\n")
    assert not moved.exists()
