"""TOML and JSON Skill Prism reads from folders it does not control (issue 22, item 7).

Arrays nested thousands deep made the standard parsers raise RecursionError, which every command
let through as a traceback (exit 1). A broken project settings file, a profile named by a path or
`--usage` is exit 2 with one line; a runtime's own settings file or a plugin manifest that cannot
be read is reported or passed over, never a crash. All of it goes through core/structured.py.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skillprism.cli import main
from skillprism.core.installed import find_units
from skillprism.core.resolve import plugin_name
from skillprism.core.structured import StructuredError, parse_structured, read_structured

DEEP_TOML = "x = " + "[" * 5000 + "]" * 5000 + "\n"
DEEP_JSON = "[" * 100_000 + "]" * 100_000
SKILL = "---\nname: demo\ndescription: Demo. Use when demoing.\n---\n\nBody.\n"


@pytest.fixture(autouse=True)
def _neutral_cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    monkeypatch.chdir(cwd)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    proj = tmp_path / "project"
    (proj / "skills" / "demo").mkdir(parents=True)
    (proj / "skills" / "demo" / "SKILL.md").write_text(SKILL, encoding="utf-8")
    return proj


@pytest.mark.parametrize(
    ("text", "fmt", "why"),
    [
        (DEEP_TOML, "toml", "nested too deeply"),
        ("a = " + "{b = " * 3000 + "1" + "}" * 3000, "toml", "nested too deeply"),
        ("n = " + "1" * 5000, "toml", "not valid TOML"),  # past int's digit limit: ValueError
        (DEEP_JSON, "json", "nested too deeply"),
        ("1" * 5000, "json", "not valid JSON"),
        ('{"a": 1,}', "json", "not valid JSON"),
    ],
)
def test_hostile_text_is_one_structured_error(text: str, fmt: str, why: str) -> None:
    with pytest.raises(StructuredError, match=why) as caught:
        parse_structured(text, fmt)
    assert "\n" not in str(caught.value)


@settings(max_examples=300, deadline=None)
@given(
    st.text(alphabet="[]{}=\"'a1,.:# \n\t\\\x00x", max_size=400), st.sampled_from(["toml", "json"])
)
def test_any_text_parses_or_is_a_structured_error(text: str, fmt: str) -> None:
    try:
        parse_structured(text, fmt)
    except StructuredError as err:
        assert "\n" not in str(err)


def test_files_that_are_not_regular_are_never_opened(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo.toml"
    os.mkfifo(fifo)
    with pytest.raises(StructuredError, match="not a regular file"):
        read_structured(os.fspath(fifo), "toml")
    big = tmp_path / "big.toml"
    with open(big, "wb") as fh:
        fh.truncate(64 * 1024 * 1024)
    with pytest.raises(StructuredError, match="not read"):
        read_structured(os.fspath(big), "toml")


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    rc = main(list(args))
    out, err = capsys.readouterr()
    return rc, out, err


def _assert_one_line_exit_2(rc: int, out: str, err: str, path: Path, why: str) -> None:
    assert rc == 2, (out, err)
    assert err.startswith("skillprism: error: ") and err.count("\n") == 1, err
    assert os.fspath(path) in err and why in err, err
    assert "Traceback" not in err and not out


COMMANDS = [
    ["check"],
    ["prompt"],
    ["activate", "demo"],
    ["resource", "demo", "SKILL.md"],
    ["report", "-o", "{tmp}/r.md"],
]


@pytest.mark.parametrize("command", COMMANDS, ids=[c[0] for c in COMMANDS])
@pytest.mark.parametrize("file_name", [".skillprism.toml", "pyproject.toml"])
def test_deeply_nested_settings_are_exit_2_for_every_command(
    capsys: pytest.CaptureFixture[str],
    project: Path,
    tmp_path: Path,
    command: list[str],
    file_name: str,
) -> None:
    # In pyproject.toml the nesting is anywhere, not in [tool.skillprism]: the file is still read.
    text = DEEP_TOML if file_name == ".skillprism.toml" else "[tool.other]\n" + DEEP_TOML
    (project / file_name).write_text(text, encoding="utf-8")
    args = [a.replace("{tmp}", os.fspath(tmp_path)) for a in command]
    rc, out, err = run(
        capsys, *args, "--project", os.fspath(project), os.fspath(project / "skills")
    )
    _assert_one_line_exit_2(rc, out, err, project / file_name, "nested too deeply")


def test_where_with_deeply_nested_settings_is_exit_2(
    capsys: pytest.CaptureFixture[str], project: Path
) -> None:
    (project / ".skillprism.toml").write_text(DEEP_TOML, encoding="utf-8")
    rc, out, err = run(
        capsys, "where", "--project", os.fspath(project), os.fspath(project / "skills" / "demo")
    )
    _assert_one_line_exit_2(rc, out, err, project / ".skillprism.toml", "nested too deeply")


def test_a_huge_integer_in_settings_is_exit_2(
    capsys: pytest.CaptureFixture[str], project: Path
) -> None:
    (project / ".skillprism.toml").write_text("n = " + "9" * 5000 + "\n", encoding="utf-8")
    rc, out, err = run(capsys, "check", "--project", os.fspath(project))
    _assert_one_line_exit_2(rc, out, err, project / ".skillprism.toml", "not valid TOML")


def test_a_profile_path_nested_too_deeply_is_exit_2(
    capsys: pytest.CaptureFixture[str], project: Path, tmp_path: Path
) -> None:
    profile = tmp_path / "deep.toml"
    profile.write_text('schema = 1\nname = "deep"\n' + DEEP_TOML, encoding="utf-8")
    rc, out, err = run(capsys, "check", "--profile", os.fspath(profile), os.fspath(project))
    _assert_one_line_exit_2(rc, out, err, profile, "nested too deeply")
    rc, out, err = run(capsys, "profiles", os.fspath(profile))
    _assert_one_line_exit_2(rc, out, err, profile, "nested too deeply")


def test_usage_file_nested_too_deeply_is_exit_2(
    capsys: pytest.CaptureFixture[str], project: Path, tmp_path: Path
) -> None:
    usage = tmp_path / "usage.json"
    usage.write_text(DEEP_JSON, encoding="utf-8")
    rc, out, err = run(capsys, "prompt", "--usage", os.fspath(usage), os.fspath(project / "skills"))
    _assert_one_line_exit_2(rc, out, err, usage, "nested too deeply")


def test_runtime_settings_nested_too_deeply_are_reported_not_fatal(
    capsys: pytest.CaptureFixture[str], project: Path
) -> None:
    (project / ".claude").mkdir()
    settings_json = project / ".claude" / "settings.json"
    settings_json.write_text(DEEP_JSON, encoding="utf-8")
    rc, out, err = run(
        capsys,
        "prompt",
        "--profile",
        "claude-code",
        "--project",
        os.fspath(project),
        os.fspath(project / "skills"),
    )
    assert rc == 0 and "Traceback" not in err
    assert os.fspath(settings_json) in err and "nested too deeply" in err
    assert "demo" in out  # the listing is still printed, without that file's settings


def test_plugin_manifests_nested_too_deeply_or_fifos_are_passed_over(tmp_path: Path) -> None:
    plugin = tmp_path / "plug"
    (plugin / ".claude-plugin").mkdir(parents=True)
    (plugin / "skills" / "demo").mkdir(parents=True)
    (plugin / "skills" / "demo" / "SKILL.md").write_text(SKILL, encoding="utf-8")
    manifest = plugin / ".claude-plugin" / "plugin.json"
    # Under the manifest's size bound, so the parser meets the nesting (RecursionError before).
    manifest.write_text("[" * 30_000 + "]" * 30_000, encoding="utf-8")
    assert plugin_name(os.fspath(plugin / "skills"), ".claude-plugin/plugin.json") == "plug"
    assert len(find_units(os.fspath(plugin))) == 1  # read as if the manifest were not there
    manifest.unlink()
    os.mkfifo(manifest)  # a FIFO would block an open() forever
    assert plugin_name(os.fspath(plugin / "skills"), ".claude-plugin/plugin.json") == "plug"
    assert len(find_units(os.fspath(plugin))) == 1


def test_the_cli_in_a_fresh_process_prints_no_traceback(project: Path) -> None:
    """The reported crash, end to end: `check` in a folder whose settings nest 5,000 deep."""
    (project / ".skillprism.toml").write_text(DEEP_TOML, encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "skillprism", "check", "skills"],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and "nested too deeply" in proc.stderr
