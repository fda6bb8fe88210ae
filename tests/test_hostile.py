"""Hostile inputs: every one gives a diagnostic (or is refused in one line), finishes, runs no
code and leaves the input tree byte-identical. The inputs are built in tmp_path
(bench/hostile_cases.py, shared with bench/bench_hostile.py, which times every command on each
against its targets); nothing hostile is committed.

Each check runs `python -m skillprism check` in a subprocess with a 60 s timeout: the hang guard.
The cases of issue 22 also run through every command of the matrix (prompt, activate, resource,
report, where, watch, check in each format).
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

_BENCH = Path(__file__).resolve().parents[1] / "bench" / "hostile_cases.py"
_spec = importlib.util.spec_from_file_location("skillprism_hostile_cases", _BENCH)
assert _spec is not None and _spec.loader is not None
hc = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = hc  # dataclasses look the module up while the class is made
_spec.loader.exec_module(hc)

# A hang guard, not a speed test: bench/bench_hostile.py holds each case to 2 s. The guard grows
# with the number of profiles a run checks under.
HANG_GUARD_S = 60
HANG_GUARD_PER_PROFILE_S = 15


def _ids(cases):  # type: ignore[no-untyped-def]
    return [c.id for c in cases]


def _prepare(case, tmp_path: Path) -> tuple[Path, str]:  # type: ignore[no-untyped-def]
    why = hc.unsupported(case)
    if why:
        pytest.skip(why)
    target = case.build(tmp_path)
    return target, hc.tree_fingerprint(target)


def _run(case, tmp_path: Path, target: Path, extra: tuple[str, ...] = ()):  # type: ignore[no-untyped-def]
    guard = HANG_GUARD_S + HANG_GUARD_PER_PROFILE_S * extra.count("--profile")
    try:
        return hc.run_check(target, cwd=tmp_path, timeout=guard, extra=extra)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{case.id}: check did not finish within {guard} s (hang)")


@pytest.mark.parametrize("case", hc.CASES, ids=_ids(hc.CASES))
def test_hostile_input_is_diagnosed_and_untouched(case, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    target, before = _prepare(case, tmp_path)
    run = _run(case, tmp_path, target, hc.case_args(case, tmp_path))
    assert hc.problems(case, tmp_path, target, before, run) == []
    if case.error_line:
        return  # refused in one line: nothing else printed
    # Every path reported (undecodable bytes come back as surrogate escapes) names a real entry.
    doc = json.loads(run.stdout)
    for result in doc["results"]:
        for skill in result["skills"]:
            assert os.path.lexists(os.fsencode(skill["path"])), skill["path"]


def _all_profiles() -> list[str]:
    from skillprism.core.profiles import available_profiles

    return available_profiles()


def _without_profiles(args: tuple[str, ...]) -> tuple[str, ...]:
    """`args` less every `--profile X`."""
    out: list[str] = []
    it = iter(args)
    for arg in it:
        if arg == "--profile":
            next(it, None)
        else:
            out.append(arg)
    return tuple(out)


# Refused only because of the profile they name: under the shipped profiles there is nothing to refuse.
_OWN_PROFILE = [c for c in hc.CASES if c.error_line and "--profile" in c.args]
_EVERY_PROFILE = [c for c in hc.CASES if c not in _OWN_PROFILE]


@pytest.mark.parametrize("case", _EVERY_PROFILE, ids=_ids(_EVERY_PROFILE))
def test_hostile_input_under_every_profile(case, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Every shipped profile (typings, fallbacks, layouts) survives the same input in one run."""
    target, before = _prepare(case, tmp_path)
    extra = _without_profiles(hc.case_args(case, tmp_path)) + tuple(
        arg for name in _all_profiles() for arg in ("--profile", name)
    )
    run = _run(case, tmp_path, target, extra)
    assert hc.problems(case, tmp_path, target, before, run, codes=False) == []
    if case.error_line:
        return
    doc = json.loads(run.stdout)
    assert len(doc["results"]) == len(_all_profiles())
    if case.codes:
        assert any(hc.reported_codes({"results": [r]}) for r in doc["results"]), "no diagnostic"


_PRINTED = [
    c
    for c in hc.CASES
    if c.id
    in {
        "newline-in-folder-name",
        "undecodable-folder-name",
        "invalid-utf8",
        "nul-bytes",
        "python-tag-as-key",
    }
]


@pytest.mark.parametrize("fmt", ["text", "sarif"])
@pytest.mark.parametrize("case", _PRINTED, ids=_ids(_PRINTED))
def test_hostile_names_print_in_every_format(case, fmt: str, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Control characters and undecodable bytes in paths must not break text or SARIF output."""
    target, before = _prepare(case, tmp_path)
    run = _run(case, tmp_path, target, ("--format", fmt, "--no-color"))
    assert run.returncode in (0, 1), run.stderr
    assert run.stderr == ""
    assert hc.tree_fingerprint(target) == before
    if fmt == "sarif":
        results = json.loads(run.stdout)["runs"][0]["results"]
        assert {r["ruleId"] for r in results} >= set(case.codes)
    else:
        assert all(code in run.stdout for code in case.codes)
        # One diagnostic per line: a newline in a folder name is escaped, never printed raw.
        assert "bad\nname" not in run.stdout


_ISSUE_22 = list(hc.CASES[hc.CASES.index(next(c for c in hc.CASES if c.id == "link-to-proc")) :])


@pytest.mark.parametrize("case", _ISSUE_22, ids=_ids(_ISSUE_22))
def test_every_command_on_the_issue_22_cases(case, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Every command a reviewer runs finishes on each input, prints no traceback and no raw
    control character, refuses what must be refused in one line, and changes nothing. (Speed and
    memory are judged by bench/bench_hostile.py.)"""
    target, before = _prepare(case, tmp_path)
    failures = {}
    # check's other formats run the same pipeline as check-text (their output is unit-tested);
    # bench/bench_hostile.py runs them all.
    for command in (c for c in hc.COMMANDS if c.id not in ("check-sarif", "check-github")):
        run = hc.run_case_command(command, case, tmp_path, target, timeout=HANG_GUARD_S)
        issues = hc.command_problems(command, case, tmp_path, target, before, run)
        if issues:
            failures[command.id] = issues
    assert failures == {}


def test_fingerprint_sees_changes(tmp_path: Path) -> None:
    """The byte-identical guard itself notices content, name and link-target changes."""
    target = hc.symlink_loop_folders(tmp_path)
    before = hc.tree_fingerprint(target)
    skill = target / "a" / "SKILL.md"
    data = skill.read_bytes()
    st = skill.stat()
    skill.write_bytes(data[:-1] + b"?")
    os.utime(skill, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert hc.tree_fingerprint(target) != before
    skill.write_bytes(data)
    os.utime(skill, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert hc.tree_fingerprint(target) == before
    (target / "a" / "self").unlink()
    os.symlink("..", target / "a" / "self")
    assert hc.tree_fingerprint(target) != before
