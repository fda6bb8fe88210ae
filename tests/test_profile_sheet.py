"""Every profile's sheet: release, level, how each part is known, the folders it reads, its known
differences (the assumptions starting 'Schema gap:') and every cited source, the same in
`skillprism profiles NAME`, its JSON and the window's Runtime Details."""

from __future__ import annotations

import json

import pytest

from skillprism.cli import main
from skillprism.core.profile_sheet import (
    is_known_difference,
    profile_sheet,
    profile_sheet_markdown,
)
from skillprism.core.profiles import available_profiles, load_profile


@pytest.mark.parametrize("name", available_profiles())
def test_every_sheet_states_release_level_sources_and_known_differences(name: str) -> None:
    profile = load_profile(name)
    sheet = profile_sheet(profile)
    text = profile_sheet_markdown(profile)
    assert sheet["level"] in ("verified", "partial", "documented", "specified")
    if sheet["level"] != "specified":  # a runtime: its release and a source per fact
        assert sheet["release"] and sheet["release"] in text
        assert sheet["sources"]
    for source in sheet["sources"]:
        assert source in text
    gaps = [a for a in profile.assumptions if is_known_difference(a)]
    assert len(sheet["known_differences"]) == len(gaps)
    for gap in sheet["known_differences"]:
        assert gap in text
    if sheet["level"] == "verified":
        assert sheet["verified_on"]
    for root in profile.roots:
        assert f"`{root.path}`" in text


def test_the_cli_prints_the_sheet_and_its_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["profiles", "copilot-cli"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("# GitHub Copilot CLI")
    assert "## Known differences from the runtime" in text and "~/.agents/skills" in text
    assert main(["profiles", "copilot-cli", "--format", "json"]) == 0
    (sheet,) = json.loads(capsys.readouterr().out)
    assert sheet["level"] == "verified" and sheet["known_differences"]


def test_the_cli_lists_every_profile_with_its_level(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["profiles", "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["name"] for r in rows] == available_profiles()
    assert all(r["provenance"] for r in rows)
    assert main(["profiles"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == len(rows)


def test_an_unknown_profile_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["profiles", "no-such-runtime"]) == 2
    assert "unknown profile" in capsys.readouterr().err


def test_the_readme_runtime_table_states_each_profiles_level() -> None:
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    start = readme.index("| runtime | profile | release | level |")
    rows = {}
    for line in readme[start:].splitlines()[2:]:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip("|").split("|")]
        rows[cells[1].strip("`")] = cells[3]
    assert sorted(rows) == available_profiles()
    for name, level in rows.items():
        assert level == load_profile(name).runtime.level, name
