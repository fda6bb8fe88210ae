"""`skillprism trigger --live` end to end, with a stand-in CLI that prints a stream captured from
the real Claude Code in the lab (tests/data/live_streams): the plan before anything runs,
nothing run without --yes, rates and scores, --save / --compare, --fail-under, bad input."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

STREAMS = Path(__file__).parent / "data" / "live_streams"


def _skills(root: Path) -> Path:
    for name, text in {
        "alpha": "Convert CSV files into Excel workbooks with formatted headers.",
        "beta": "Draft release notes from a git log.",
    }.items():
        folder = root / name
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text(
            f"---\nname: {name}\ndescription: {text}\n---\n# {name}\n", encoding="utf-8"
        )
    return root


def _stand_in(tmp_path: Path, stream: str) -> Path:
    """A program written by the test: records that it ran (and in which folder), prints the
    captured stream `stream` of Claude Code, exits 0."""
    program = tmp_path / "bin" / "claude"
    program.parent.mkdir(exist_ok=True)
    marker = tmp_path / "ran.txt"
    program.write_text(
        f"#!{sys.executable}\n"
        "import os, sys\n"
        "if sys.argv[1:] == ['--version']:\n"
        "    print('2.1.330 (Claude Code)')\n"
        "    sys.exit(0)\n"
        f"open({str(marker)!r}, 'a').write(os.getcwd() + '\\n')\n"
        f"sys.stdout.write(open({str(STREAMS / f'claude-code-{stream}.jsonl')!r}).read())\n",
        encoding="utf-8",
    )
    program.chmod(program.stat().st_mode | stat.S_IXUSR)
    return program


def _cli(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "skillprism", "trigger", *args],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        env={**os.environ, "HOME": str(tmp_path)},
        timeout=120,
    )


def _evals(tmp_path: Path) -> Path:
    path = tmp_path / "evals.json"
    path.write_text(
        json.dumps(
            [
                {"query": "turn data.csv into an xlsx", "should_trigger": True},
                {"query": "make a workbook from this csv", "should_trigger": True},
                {"query": "what is the weather", "should_trigger": False},
            ]
        ),
        encoding="utf-8",
    )
    return path


def test_the_plan_is_shown_and_nothing_runs_without_yes(tmp_path: Path) -> None:
    root = _skills(tmp_path / "skills")
    program = _stand_in(tmp_path, "intended")
    run = _cli(
        tmp_path,
        str(root),
        "--profile",
        "claude-code",
        "--skill",
        "alpha",
        "--evals",
        str(_evals(tmp_path)),
        "--live",
        "--runtime-cli",
        str(program),
        "--format",
        "json",
    )
    assert run.returncode == 0, run.stderr
    doc = json.loads(run.stdout)
    assert doc["ran"] is False and doc["plan"]["calls"] == 9
    assert doc["plan"]["listing_tokens"] > 0 and doc["plan"]["cost_usd"] is None
    assert not (tmp_path / "ran.txt").exists()


def test_a_live_run_scores_saves_and_compares(tmp_path: Path) -> None:
    root = _skills(tmp_path / "skills")
    evals = _evals(tmp_path)
    used = _stand_in(tmp_path, "intended")
    first = tmp_path / "first.json"
    run = _cli(
        tmp_path,
        str(root),
        "--profile",
        "claude-code",
        "--skill",
        "alpha",
        "--evals",
        str(evals),
        "--live",
        "--yes",
        "--runs",
        "2",
        "--runtime-cli",
        str(used),
        "--format",
        "json",
        "--save",
        str(first),
    )
    assert run.returncode == 0, run.stderr
    doc = json.loads(run.stdout)
    assert [p["rate"] for p in doc["prompts"]] == [1.0, 1.0, 1.0]
    assert doc["precision"] == 2 / 3 and doc["recall"] == 1.0
    assert doc["models"] == ["claude-opus-5-5"] and doc["release"] == "2.1.330 (Claude Code)"
    assert "[6/6]" in run.stderr
    # Every run happened in a throwaway project, since removed, holding both skills.
    folders = set((tmp_path / "ran.txt").read_text().split())
    assert len(folders) == 1 and not os.path.exists(next(iter(folders)))
    assert json.loads(first.read_text())["skill_set_fingerprint"] == doc["skill_set_fingerprint"]

    none = _stand_in(tmp_path, "none")
    again = _cli(
        tmp_path,
        str(root),
        "--profile",
        "claude-code",
        "--skill",
        "alpha",
        "--evals",
        str(evals),
        "--live",
        "--yes",
        "--runs",
        "1",
        "--runtime-cli",
        str(none),
        "--compare",
        str(first),
        "--fail-under",
        "0.9",
    )
    assert again.returncode == 1, again.stderr  # 1 of 3 right
    assert "better 100% -> 0%  what is the weather" in again.stdout
    assert "worse  100% -> 0%  turn data.csv into an xlsx" in again.stdout


def test_live_input_errors_say_what(tmp_path: Path) -> None:
    root = _skills(tmp_path / "skills")
    base = [str(root), "--skill", "alpha", "--prompt", "x", "--live"]
    no_live = _cli(tmp_path, *base, "--profile", "agentskills")
    assert no_live.returncode == 2 and "no live mode" in no_live.stderr
    missing = _cli(tmp_path, *base, "--profile", "claude-code", "--runtime-cli", "/nope/claude")
    assert missing.returncode == 2 and "not an executable" in missing.stderr
    bad = _cli(tmp_path, *base, "--profile", "claude-code", "--runs", "0")
    assert bad.returncode == 2 and "--runs" in bad.stderr
