"""The runtime's own usage records (Claude Code's skillUsage in ~/.claude.json): the priority
maths, the reader on missing, empty, damaged, huge and odd files, the Workspace using them by
default (clock passed in) and `--no-usage`, the usage shown per skill, and the file never written.
The comparison with Claude Code's own code is in tests/test_usage_lab.py."""

from __future__ import annotations

import json
import math
import os
import time
from pathlib import Path

import pytest
from budget_helpers import builtin_count, room
from hypothesis import given
from hypothesis import strategies as st

from skillprism import cli
from skillprism.app.workspace import BudgetInputs, Workspace
from skillprism.core import usage as usage_mod
from skillprism.core.local_state_spec import UsageSpec
from skillprism.core.profiles import ProfileError, load_profile, parse_profile
from skillprism.core.usage import DAY_MS, priority, read_usage

NOW = 1_790_000_000.0  # seconds; a fixed "today"
NOW_MS = NOW * 1000
SPEC = UsageSpec(file="{env:CLAUDE_CONFIG_DIR:~}/.claude.json", key="skillUsage", source="t")


def test_the_shipped_claude_code_profile_says_where_and_how() -> None:
    from dataclasses import replace

    shipped = load_profile("claude-code").disclosure.usage
    assert replace(shipped, source="t") == SPEC
    assert "deo" in shipped.source and "324291981" in shipped.source


def rec(count: float, days: float, now_ms: float = NOW_MS) -> dict:
    return {"usageCount": count, "lastUsedAt": now_ms - days * DAY_MS}


def rec_today(count: float, days: float) -> dict:
    """A record for the CLI, which weighs usage on the wall clock."""
    return rec(count, days, time.time() * 1000)


# --- the priority maths ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("count", "days", "expected"),
    [
        (10, 0, 10.0),
        (10, 7, 5.0),  # one half-life
        (10, 14, 2.5),
        (10, 3.5, 10 * 0.5**0.5),  # days are a fraction, not floored
        (40, 60, 4.0),  # 0.5^(60/7) = 0.0026 < the 0.1 floor
        (5, 10_000, 0.5),
        (0, 1, 0.0),
    ],
)
def test_priority_is_count_times_decay_with_a_floor(count, days, expected) -> None:
    assert priority(count, NOW_MS - days * DAY_MS, NOW_MS, SPEC) == pytest.approx(expected)


def test_a_use_in_the_future_weighs_more_than_its_count() -> None:
    # Claude Code does not clamp a clock skew: 0.5^(-1) = 2
    assert priority(3, NOW_MS + 7 * DAY_MS, NOW_MS, SPEC) == pytest.approx(6.0)
    assert priority(3, NOW_MS + 1e6 * DAY_MS, NOW_MS, SPEC) == math.inf


@given(
    count=st.integers(min_value=1, max_value=10_000),
    a=st.floats(min_value=0, max_value=3650),
    b=st.floats(min_value=0, max_value=3650),
)
def test_priority_falls_with_age_and_never_below_the_floor(count, a, b) -> None:
    older, newer = max(a, b), min(a, b)
    p_old = priority(count, NOW_MS - older * DAY_MS, NOW_MS, SPEC)
    p_new = priority(count, NOW_MS - newer * DAY_MS, NOW_MS, SPEC)
    assert p_old <= p_new <= count
    assert p_old >= count * SPEC.floor - 1e-9


# --- the reader ----------------------------------------------------------------------------------


def read(home: Path, env: dict | None = None):
    return read_usage(SPEC, project=str(home), home=str(home), env=env or {}, now=NOW)


def write_config(home: Path, usage: object, **extra: object) -> Path:
    path = home / ".claude.json"
    path.write_text(json.dumps({"numStartups": 3, **extra, "skillUsage": usage}), "utf-8")
    return path


def test_records_are_read_and_weighed_at_the_given_clock(tmp_path: Path) -> None:
    write_config(tmp_path, {"a": rec(10, 7), "b": rec(2, 0)}, projects={"/x": {"history": []}})
    got = read(tmp_path)
    assert got.state == "read" and got.problems == ()
    assert got.priorities() == pytest.approx({"a": 5.0, "b": 2.0})
    assert got.records["a"].count == 10 and got.records["a"].days_since == pytest.approx(7)
    assert got.summary() == f"{tmp_path / '.claude.json'}: usage of 2 skill(s) (read only)"


def test_a_missing_file_means_no_usage_and_no_problem(tmp_path: Path) -> None:
    got = read(tmp_path)
    assert (got.state, got.records, got.problems, got.summary()) == ("missing", {}, (), "")


def test_the_config_dir_variable_moves_the_file(tmp_path: Path) -> None:
    other = tmp_path / "cfg"
    other.mkdir()
    write_config(other, {"a": rec(1, 0)})
    assert read(tmp_path).state == "missing"
    assert read(tmp_path, {"CLAUDE_CONFIG_DIR": str(other)}).priorities() == {"a": 1.0}


@pytest.mark.parametrize(
    ("content", "says"),
    [
        (b"", "not valid JSON"),
        (b'{"skillUsage": {"a": ', "not valid JSON"),
        (b"\xff\xfe{}", "not UTF-8"),
        (b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
    ],
)
def test_a_damaged_file_is_one_clear_problem(tmp_path: Path, content: bytes, says: str) -> None:
    (tmp_path / ".claude.json").write_bytes(content)
    got = read(tmp_path)
    assert got.state == "unreadable" and got.records == {}
    (problem,) = got.problems
    assert problem.startswith(str(tmp_path / ".claude.json")) and says in problem
    assert "every priority counts as 0" in problem


def test_a_huge_file_is_not_read(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(usage_mod, "MAX_USAGE_BYTES", 1024)
    write_config(tmp_path, {"a": rec(1, 0)}, projects={"/p": {"history": ["x" * 2000]}})
    got = read(tmp_path)
    assert got.state == "unreadable" and got.records == {}
    assert "files over 1,024 bytes are not read" in got.problems[0]


def test_a_fifo_is_never_opened(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / ".claude.json")
    got = read(tmp_path)  # would block forever if opened for reading
    assert got.state == "unreadable" and got.problems


def test_bad_records_are_named_and_the_good_ones_kept(tmp_path: Path) -> None:
    write_config(
        tmp_path,
        {
            "good": rec(4, 0),
            "text-count": {"usageCount": "4", "lastUsedAt": NOW_MS},
            "no-time": {"usageCount": 4},
            "not-a-record": 7,
            "bool": {"usageCount": True, "lastUsedAt": NOW_MS},
        },
    )
    got = read(tmp_path)
    assert got.priorities() == {"good": 4.0}
    (problem,) = got.problems
    assert "4 record(s)" in problem and "'text-count'" in problem and "never used" in problem


def test_a_usage_map_of_the_wrong_shape_is_a_problem(tmp_path: Path) -> None:
    write_config(tmp_path, ["a", "b"])
    got = read(tmp_path)
    assert got.records == {} and "not a map" in got.problems[0]
    (tmp_path / ".claude.json").write_text('{"numStartups": 1}')
    assert read(tmp_path).state == "read" and read(tmp_path).records == {}


def test_the_profile_must_say_where_and_what(tmp_path: Path) -> None:
    base = {"schema": 1, "name": "t", "roots": [{"scope": "p", "path": "{project}/s"}]}
    ok = parse_profile({**base, "usage": {"file": "~/u.json", "key": "k", "source": "s"}}, "t")
    assert ok.disclosure.usage.present and ok.disclosure.usage.half_life_days == 7
    with pytest.raises(ProfileError, match=r"usage\.key"):
        parse_profile({**base, "usage": {"file": "~/u.json", "source": "s"}}, "t")
    with pytest.raises(ProfileError, match=r"usage\.floor"):
        parse_profile({**base, "usage": {"file": "f", "key": "k", "source": "s", "floor": 2}}, "t")
    with pytest.raises(ProfileError, match=r"usage\.colour"):
        parse_profile({**base, "usage": {"file": "f", "key": "k", "source": "s", "colour": 1}}, "t")


# --- the Workspace and the CLI --------------------------------------------------------------------

SKILLS = {
    "alpha": "Alpha " + "a" * 60,
    "beta": "Beta " + "b" * 60,
    "gamma": "Gamma " + "g" * 60,
    "delta": "Delta " + "d" * 60,
}


@pytest.fixture
def home(tmp_path: Path, monkeypatch) -> Path:
    home = Path(os.environ["HOME"])
    for name, desc in SKILLS.items():
        d = home / ".claude" / "skills" / name
        d.mkdir(parents=True)
        (d / "SKILL.md").write_text(f"---\nname: {name}\ndescription: {desc}\n---\n\nBody.\n")
    monkeypatch.chdir(tmp_path)
    return home


def kept(result) -> list[str]:
    """The user's skills that keep their description (the bundled ones always do)."""
    return sorted(
        e.name for e in result.entries if e.outcome == "full" and not e.key.startswith("builtin:")
    )


def test_the_listing_is_as_it_is_today_by_default(home: Path, tmp_path: Path) -> None:
    write_config(home, {"delta": rec(9, 1), "gamma": rec(3, 0), "zzz-gone": rec(50, 0)})
    ws = Workspace(str(tmp_path), profiles=["claude-code"], home=str(home), clock=lambda: NOW)
    budget = BudgetInputs(budget_chars=room(170))  # room for two descriptions of four
    assert kept(ws.tier1("claude-code", budget)) == ["delta", "gamma"]
    # without usage every priority is 0: the first listed keep theirs
    off = BudgetInputs(budget_chars=room(170), local_usage=False)
    assert kept(ws.tier1("claude-code", off)) == ["alpha", "beta"]
    # an explicit count beats the record for that name
    manual = BudgetInputs(budget_chars=room(170), usage={"alpha": 100.0})
    assert kept(ws.tier1("claude-code", manual)) == ["alpha", "delta"]


def test_the_clock_is_the_workspaces(home: Path, tmp_path: Path) -> None:
    # today: gamma 3, beta 2, delta (much used a year ago) 15 x 0.1 = 1.5
    write_config(home, {"delta": rec(15, 365), "gamma": rec(3, 0), "beta": rec(2, 0)})
    budget = BudgetInputs(budget_chars=room(170))
    today = Workspace(str(tmp_path), profiles=["claude-code"], home=str(home), clock=lambda: NOW)
    assert kept(today.tier1("claude-code", budget)) == ["beta", "gamma"]
    # a month later gamma and beta have decayed to their floors (0.3, 0.2); delta keeps 1.5
    later = Workspace(
        str(tmp_path), profiles=["claude-code"], home=str(home), clock=lambda: NOW + 30 * 86_400
    )
    result = later.tier1("claude-code", budget)
    assert kept(result) == ["delta", "gamma"]
    assert result.usage_records["delta"].priority == pytest.approx(1.5)
    assert result.usage_records["gamma"].priority == pytest.approx(0.3)


def test_a_profile_without_usage_reads_nothing(home: Path, tmp_path: Path) -> None:
    write_config(home, {"delta": rec(9, 1)})
    ws = Workspace(str(tmp_path), profiles=["codex"], home=str(home), clock=lambda: NOW)
    settings, unread = ws.budget_settings("codex", BudgetInputs())
    assert settings.usage == {} and settings.usage_records == {} and unread == []


def test_a_damaged_file_is_a_warning_and_the_listing_still_comes(home, tmp_path, capsys) -> None:
    (home / ".claude.json").write_text("{not json")
    code = cli.main(["prompt", "--profile", "claude-code", "--project", str(tmp_path)])
    out, err = capsys.readouterr()
    assert code == 0 and "- alpha: Alpha" in out
    assert "warning" in err and ".claude.json" in err and "not valid JSON" in err


def test_prompt_json_shows_usage_per_skill_and_no_usage_turns_it_off(
    home: Path, tmp_path: Path, capsys
) -> None:
    path = write_config(home, {"delta": rec_today(9, 1)})
    before = (path.read_bytes(), path.stat().st_mtime_ns)
    base = ["prompt", "--profile", "claude-code", "--project", str(tmp_path), "--format", "json"]
    assert cli.main([*base, "--budget-chars", str(room(170))]) == 0
    doc = json.loads(capsys.readouterr().out)
    by_name = {s["name"]: s for s in doc["skills"]}
    assert by_name["delta"]["usage"]["count"] == 9
    assert by_name["delta"]["usage"]["days_since_use"] == pytest.approx(1, abs=0.01)
    assert by_name["alpha"]["usage"] is None
    assert by_name["delta"]["outcome"] == "full"
    assert any("usage of 1 skill(s) (read only)" in a for a in doc["budget"]["settings_applied"])
    assert cli.main([*base, "--budget-chars", str(room(170)), "--no-usage"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert all(s["usage"] is None for s in doc["skills"])
    assert {s["name"]: s["outcome"] for s in doc["skills"]}["delta"] == "name-only"
    assert (path.read_bytes(), path.stat().st_mtime_ns) == before  # never written


def test_the_report_has_a_usage_table(home: Path, tmp_path: Path) -> None:
    write_config(home, {"delta": rec_today(9, 1), "gamma": rec_today(3, 0)})
    out = tmp_path / "r.md"
    base = ["report", "--profile", "claude-code", "--project", str(tmp_path), "-o", str(out)]
    cli.main([*base, "--budget-chars", str(room(170))])
    text = out.read_text()
    assert "Days since last use" in text and "| delta | 9 |" in text
    assert (
        f"{2 + builtin_count('claude-code')} listed skills never used (priority 0)." in text
    )  # bundled ones too
    cli.main([*base, "--budget-chars", str(room(170)), "--no-usage"])
    assert "Days since last use" not in out.read_text()


def test_the_file_is_parsed_again_only_when_it_changes(tmp_path: Path, monkeypatch) -> None:
    calls = []
    real = usage_mod.read_structured
    monkeypatch.setattr(
        usage_mod, "read_structured", lambda *a, **k: calls.append(a) or real(*a, **k)
    )
    path = write_config(tmp_path, {"a": rec(2, 0)})
    memo: dict = {}
    args = {"project": str(tmp_path), "home": str(tmp_path), "env": {}, "memo": memo}
    assert read_usage(SPEC, now=NOW, **args).priorities() == {"a": 2.0}
    # a week later, same file: weighed again at the new clock, not parsed again
    assert read_usage(SPEC, now=NOW + 7 * 86_400, **args).priorities() == {"a": 1.0}
    assert len(calls) == 1
    path.write_text(json.dumps({"skillUsage": {"a": rec(6, 0), "b": rec(1, 0)}}))
    os.utime(path, ns=(1, 1))  # a different signature even within the clock's resolution
    assert read_usage(SPEC, now=NOW, **args).priorities() == {"a": 6.0, "b": 1.0}
    assert len(calls) == 2
