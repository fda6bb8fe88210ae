"""Live trigger runs without a model service: the profiles' stream rules on streams captured
from the real CLIs in the lab (tests/data/live_streams, made by conformance/live_lab.py), the
runner on a stand-in process, the plan, the results and the throwaway workspace."""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from pathlib import Path

import pytest

from skillprism.core.cancel import Cancelled, cancellable
from skillprism.core.eval_sets import EvalItem
from skillprism.core.live_trigger.plan import Price, make_plan
from skillprism.core.live_trigger.reader import RunOutcome, StreamReader
from skillprism.core.live_trigger.results import (
    LiveResults,
    compare,
    loads,
    split_eval_set,
)
from skillprism.core.live_trigger.runner import Job, Launch, RunResult, iter_runs, jobs, run_one
from skillprism.core.live_trigger.spec import LiveSpecError, parse_live_spec
from skillprism.core.live_trigger.workspace import Skill, fingerprint, live_workspace
from skillprism.core.profiles import ProfileError, load_profile, parse_profile

STREAMS = Path(__file__).parent / "data" / "live_streams"
SKILLS = {"alpha": "alpha", "beta": "beta"}
LAB_CLIS = ("claude-code", "codex", "opencode", "gemini-cli")


def read_stream(runtime: str, answer: str, exit_code: int = 0) -> RunOutcome:
    spec = load_profile(runtime).live
    assert spec is not None
    lines = (STREAMS / f"{runtime}-{answer}.jsonl").read_text(encoding="utf-8").splitlines()
    return StreamReader(spec, "alpha", SKILLS).feed_all(lines).outcome(exit_code)


@pytest.mark.parametrize("runtime", LAB_CLIS)
def test_reader_on_captured_streams(runtime: str) -> None:
    assert read_stream(runtime, "intended").outcome == "intended"
    other = read_stream(runtime, "other")
    assert (other.outcome, other.skill) == ("other", "beta")
    assert read_stream(runtime, "none").outcome == "none"
    error = read_stream(runtime, "error")
    assert error.outcome == "error" and "lab: scripted bad request" in error.message
    # A run cut off before any answer: the stream shows no skill and no error (the runner
    # decides `timeout`).
    cut = read_stream(runtime, "timeout")
    assert cut.outcome in ("none", "error") and not cut.skill


def test_reader_reads_the_model_where_the_stream_names_it() -> None:
    assert read_stream("claude-code", "intended").model == "claude-opus-5-5"
    assert read_stream("gemini-cli", "none").model == "gemini-2.5-flash"


def test_reader_intended_wins_over_an_earlier_other_and_skips_log_lines() -> None:
    spec = load_profile("claude-code").live
    assert spec is not None
    use = {"type": "assistant", "message": {"content": []}}
    first = json.loads(json.dumps(use))
    first["message"]["content"] = [
        {"type": "tool_use", "name": "Skill", "input": {"skill": "beta"}}
    ]
    second = json.loads(json.dumps(use))
    second["message"]["content"] = [
        {
            "type": "tool_use",
            "name": "Read",
            "input": {"file_path": "/w/.claude/skills/alpha/SKILL.md"},
        }
    ]
    reader = StreamReader(spec, "alpha", SKILLS)
    for line in ("starting...", json.dumps(first), "{not json", json.dumps(second)):
        reader.feed(line)
    assert reader.used == ["beta", "alpha"]
    assert reader.outcome(0).outcome == "intended"


def test_reader_path_rule_needs_the_skill_folder_not_a_longer_name() -> None:
    spec = load_profile("codex").live
    assert spec is not None
    event = {
        "type": "item.started",
        "item": {"type": "command_execution", "command": "cat x/notalpha/SKILL.md"},
    }
    reader = StreamReader(spec, "alpha", SKILLS)
    assert reader.feed(json.dumps(event)) == []


def test_reader_error_from_exit_status_or_silence() -> None:
    spec = load_profile("codex").live
    assert spec is not None
    assert StreamReader(spec, "alpha", SKILLS).outcome(2, "boom: not logged in\n").message == (
        "boom: not logged in"
    )
    silent = StreamReader(spec, "alpha", SKILLS).outcome(0, "")
    assert silent.outcome == "error" and "no event" in silent.message


def test_profiles_live_sections() -> None:
    for name in LAB_CLIS:
        live = load_profile(name).live
        assert live is not None and live.verified == "lab" and live.use
    gemini = load_profile("gemini-cli").live
    assert gemini is not None and dict(gemini.env) == {"GEMINI_CLI_TRUST_WORKSPACE": "true"}


def test_live_spec_errors_name_the_key() -> None:
    with pytest.raises(LiveSpecError, match="command"):
        parse_live_spec({"command": ["x"]}, "p.toml")
    with pytest.raises(LiveSpecError, match="reason"):
        parse_live_spec({"command": ["x", "{prompt}"]}, "p.toml")
    with pytest.raises(LiveSpecError, match="exactly one"):
        parse_live_spec(
            {"command": ["x", "{prompt}"], "verified": "lab", "use": [{"event": {}}]}, "p.toml"
        )
    data = json.loads(json.dumps({"schema": 1}))
    base = load_profile("codex")
    assert base.live is not None
    with pytest.raises(ProfileError, match="live_trigger"):
        from skillprism.core.structured import read_structured

        data = read_structured(base.path, "toml")
        data["live_trigger"]["bogus"] = 1
        parse_profile(data, "x.toml")


def test_argv_places_lab_arguments_before_the_prompt() -> None:
    claude = load_profile("claude-code").live
    codex = load_profile("codex").live
    assert claude is not None and codex is not None
    assert claude.argv("hi", "/bin/claude", ("--x",))[:4] == ["/bin/claude", "--x", "-p", "hi"]
    argv = codex.argv("hi", None, ("-m", "m"))
    assert argv[0] == "codex" and argv[-1] == "hi" and argv.index("-m") < argv.index("hi")


# --- runner ---------------------------------------------------------------------------------

# The stand-in CLI: prints the captured stream named by its first argument, then exits with the
# status in its second; "hang" sleeps. Run as `python -c` (no file from a fixture is executed).
STAND_IN = (
    "import sys, time\n"
    "name, code = sys.argv[1], int(sys.argv[2])\n"
    "if name == 'hang':\n"
    '    print(\'{"type": "system", "subtype": "init", "model": "m"}\', flush=True)\n'
    "    time.sleep(60)\n"
    "sys.stdout.write(open(name, encoding='utf-8').read())\n"
    "sys.stderr.write('stand-in says goodbye\\n')\n"
    "sys.exit(code)\n"
)


def stand_in(tmp_path: Path, stream: str, code: int = 0) -> Launch:
    target = "hang" if stream == "hang" else str(STREAMS / f"claude-code-{stream}.jsonl")
    return Launch(cwd=str(tmp_path), prefix=(sys.executable, "-c", STAND_IN, target, str(code)))


def spec_of(name: str = "claude-code"):  # type: ignore[no-untyped-def]
    spec = load_profile(name).live
    assert spec is not None
    return spec


def test_runner_outcomes_from_a_process(tmp_path: Path) -> None:
    spec = spec_of()
    job = Job(0, "p", 1)

    def once(stream: str, code: int = 0, timeout: float = 30) -> RunOutcome:
        return run_one(
            spec, job, stand_in(tmp_path, stream, code), "alpha", SKILLS, timeout, lambda: False
        )

    assert once("intended").outcome == "intended"
    assert once("none").outcome == "none"
    failed = once("none", 3)
    assert failed.outcome == "error" and failed.message == "stand-in says goodbye"
    start = time.monotonic()
    late = once("hang", timeout=1)
    assert late.outcome == "timeout" and late.model == "m"
    assert time.monotonic() - start < 10


def test_runner_missing_program(tmp_path: Path) -> None:
    out = run_one(
        spec_of(),
        Job(0, "p", 1),
        Launch(cwd=str(tmp_path), program=str(tmp_path / "nope")),
        "alpha",
        SKILLS,
        5,
        lambda: False,
    )
    assert out.outcome == "error" and "cannot start" in out.message


def test_iter_runs_every_job_bounded(tmp_path: Path) -> None:
    todo = jobs(["a", "b", "c"], 2)
    assert len(todo) == 6 and [j.run for j in todo[:3]] == [1, 1, 1]
    results = list(
        iter_runs(spec_of(), todo, stand_in(tmp_path, "intended"), "alpha", SKILLS, concurrency=3)
    )
    assert sorted((r.job.index, r.job.run) for r in results) == sorted(
        (j.index, j.run) for j in todo
    )
    assert {r.outcome.outcome for r in results} == {"intended"}


def test_iter_runs_asks_a_slow_cancel_scope_from_every_thread_at_once(tmp_path: Path) -> None:
    """The runs' threads all ask the caller's cancel scope whether to stop, at the same time;
    a check that takes a while (the engine's asks for a lock) must not make a run fail."""
    asked = []

    def slow_no() -> bool:
        asked.append(threading.get_ident())
        time.sleep(0.03)
        return False

    launch = Launch(
        cwd=str(tmp_path), prefix=(sys.executable, "-c", "import time; time.sleep(0.4)")
    )
    with cancellable(slow_no):
        results = list(
            iter_runs(spec_of(), jobs(list("abcd"), 1), launch, "alpha", SKILLS, concurrency=4)
        )
    assert len(results) == 4 and len(set(asked)) > 1


def test_iter_runs_cancel_kills_the_running_processes(tmp_path: Path) -> None:
    stop = threading.Event()
    todo = jobs(["a", "b", "c", "d"], 1)
    threading.Timer(0.8, stop.set).start()
    start = time.monotonic()
    with cancellable(stop.is_set), pytest.raises(Cancelled):
        list(iter_runs(spec_of(), todo, stand_in(tmp_path, "hang"), "alpha", SKILLS, timeout=60))
    assert time.monotonic() - start < 15


# --- plan and results -----------------------------------------------------------------------


def test_plan_counts_calls_tokens_and_cost_only_with_a_price() -> None:
    plan = make_plan(["abcd" * 10, "abcd"], 3, "x" * 400, count=lambda t: len(t) // 4)
    assert (plan.calls, plan.listing_tokens, plan.input_tokens) == (6, 100, (110 + 101) * 3)
    assert plan.cost_usd is None and "cost unknown" in plan.text()
    price = Price("m", 2.0, "a source", "2026-11-27")
    priced = make_plan(["abcd"], 1, "", model="m", count=lambda t: 500_000, prices={"m": price})
    assert priced.cost_usd == pytest.approx(1.0) and "a source" in priced.text()
    with pytest.raises(ValueError):
        make_plan(["a"], 0, "")


def test_split_is_skill_creators() -> None:
    import random

    items = [EvalItem(f"t{i}", True) for i in range(10)] + [
        EvalItem(f"n{i}", False) for i in range(5)
    ]
    train, held = split_eval_set(items)
    # skill-creator: random.seed(42); shuffle(trigger); shuffle(no_trigger); first int(n*0.4)
    random.seed(42)
    t = [i for i in items if i.should_trigger]
    n = [i for i in items if not i.should_trigger]
    random.shuffle(t)
    random.shuffle(n)
    assert held == t[:4] + n[:2] and train == t[4:] + n[2:]
    assert split_eval_set([EvalItem("a", True)], 0.4)[1] == [EvalItem("a", True)]


def _results(outcomes: dict[str, list[str]], should: dict[str, bool]) -> LiveResults:
    items = [EvalItem(q, should[q]) for q in outcomes]
    runs = [
        RunResult(Job(i, q, r + 1), RunOutcome(o, "beta" if o == "other" else ""))
        for i, q in enumerate(outcomes)
        for r, o in enumerate(outcomes[q])
    ]
    return LiveResults.collect(
        items,
        runs,
        runtime="claude-code",
        release="2.1.330",
        skill="alpha",
        fingerprint="f",
        date="2026-11-27T00:00:00Z",
        runs=3,
    )


def test_rates_precision_recall_and_round_trip() -> None:
    res = _results(
        {
            "yes1": ["intended", "intended", "none"],
            "yes2": ["other", "none", "error"],
            "no1": ["none", "none", "timeout"],
            "no2": ["intended", "intended", "other"],
            "dead": ["error", "timeout", "error"],
        },
        {"yes1": True, "yes2": True, "no1": False, "no2": False, "dead": True},
    )
    rates = {p.query: p.rate for p in res.prompts}
    assert rates == {"yes1": 2 / 3, "yes2": 0.0, "no1": 0.0, "no2": 2 / 3, "dead": None}
    s = res.scores()
    assert (s.passed, s.failed, s.unanswered) == (2, 2, 1)
    assert s.precision == 0.5 and s.recall == 0.5
    assert res.prompts[1].others == {"beta": 1}
    again = loads(res.dumps())
    assert again.dumps() == res.dumps()
    with pytest.raises(ValueError, match="schema"):
        loads('{"schema": 99}')


def test_compare_says_whether_an_edit_helped() -> None:
    before = _results({"y": ["none"] * 3, "n": ["intended"] * 3}, {"y": True, "n": False})
    after = _results(
        {"y": ["intended"] * 3, "n": ["intended"] * 3, "new": ["none"]},
        {"y": True, "n": False, "new": False},
    )
    changes = {c.query: c for c in compare(before, after)}
    assert changes["y"].better is True and changes["n"].better is None
    assert changes["new"].before is None


# --- workspace ------------------------------------------------------------------------------


def _skill(base: Path, name: str) -> Skill:
    folder = base / name
    (folder / "references").mkdir(parents=True)
    (folder / "SKILL.md").write_text(f"---\nname: {name}\ndescription: d\n---\n", encoding="utf-8")
    (folder / "references" / "r.md").write_text("r", encoding="utf-8")
    return Skill(name, str(folder))


@pytest.mark.parametrize(
    ("runtime", "root"), [("claude-code", ".claude/skills"), ("codex", ".codex/skills")]
)
def test_workspace_copies_the_set_into_the_first_project_root(
    tmp_path: Path, runtime: str, root: str
) -> None:
    skills = [_skill(tmp_path / "src", "alpha"), _skill(tmp_path / "src", "beta")]
    with live_workspace(load_profile(runtime), skills) as ws:
        assert ws.root == os.path.join(ws.project, root)
        assert sorted(os.listdir(ws.root)) == ["alpha", "beta"]
        assert (Path(ws.root) / "alpha" / "references" / "r.md").is_file()
        assert (Path(ws.project) / ".git" / "HEAD").is_file()
        assert ws.skills == {"alpha": "alpha", "beta": "beta"}
        kept = ws.project
    assert not os.path.exists(kept)


def test_fingerprint_follows_the_files(tmp_path: Path) -> None:
    skill = _skill(tmp_path, "alpha")
    first = fingerprint([skill.folder])
    assert fingerprint([skill.folder]) == first
    (Path(skill.folder) / "SKILL.md").write_text(
        "---\nname: alpha\ndescription: e\n---\n", encoding="utf-8"
    )
    assert fingerprint([skill.folder]) != first


# --- properties -----------------------------------------------------------------------------

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.one_of(st.text(max_size=60), _json_values.map(json.dumps)), max_size=12),
    st.sampled_from(LAB_CLIS),
    st.integers(min_value=0, max_value=3),
)
def test_any_stream_reads_as_one_outcome(lines: list[str], runtime: str, code: int) -> None:
    spec = load_profile(runtime).live
    assert spec is not None
    out = StreamReader(spec, "alpha", SKILLS).feed_all(lines).outcome(code, "err")
    assert out.outcome in ("intended", "other", "none", "error")
    assert (out.outcome == "other") == bool(out.skill and out.skill != "alpha")


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.tuples(st.text(min_size=1, max_size=10), st.booleans()), max_size=30),
    st.floats(min_value=0, max_value=0.95),
)
def test_the_split_is_a_partition(rows: list[tuple[str, bool]], holdout: float) -> None:
    items = [EvalItem(q, s) for q, s in rows]
    train, held = split_eval_set(items, holdout)
    assert sorted(train + held, key=repr) == sorted(items, key=repr)
    assert split_eval_set(items, holdout) == (train, held)  # seeded: the same every time


def test_prices_come_from_the_shipped_file_with_source_and_date(tmp_path: Path) -> None:
    from skillprism.core.live_trigger.plan import load_prices

    shipped = load_prices()
    assert shipped["lab-model-1"].usd_per_million == 0.0 and shipped["lab-model-1"].source
    bad = tmp_path / "prices.toml"
    bad.write_text(
        'schema = 1\n[[price]]\nmodel = "m"\n[[price]]\nmodel = "n"\n'
        'usd_per_million_input_tokens = 1.5\nsource = "s"\ndate = "2026-11-27"\n',
        encoding="utf-8",
    )
    assert list(load_prices(str(bad))) == ["n"]  # a row without its price and source is left out
    assert load_prices(str(tmp_path / "missing.toml")) == {}
    plan = make_plan(["p"], 2, "", model="lab-model-1")
    doc = plan.as_dict()
    assert doc["cost_usd"] == 0.0 and doc["price"]["date"] == "2026-11-27" and doc["calls"] == 2


# A CLI that waits (up to 10 s) until it was told to give way, starts a child in a
# session of its own, as a CLI may, and writes down the group's niceness and both policies.
GIVES_WAY = (
    "import os, subprocess, sys, time\n"
    "out = sys.argv[1]\n"
    "def group(): return open('/proc/self/autogroup').read().split()[-1]\n"
    "end = time.monotonic() + 10\n"
    "while os.sched_getscheduler(0) != os.SCHED_IDLE and time.monotonic() < end:\n"
    "    time.sleep(0.01)\n"
    "child = 'import os; print(os.sched_getscheduler(0))'\n"
    "kid = subprocess.run([sys.executable, '-c', child], start_new_session=True,\n"
    "                     capture_output=True, text=True).stdout.split()\n"
    "open(out, 'w').write(' '.join([group(), str(os.sched_getscheduler(0)), *kid]))\n"
)


@pytest.mark.skipif(
    not os.path.exists("/proc/self/autogroup") or not hasattr(os, "SCHED_IDLE"),
    reason="no scheduler autogroups or idle policy here",
)
def test_a_cli_and_all_it_starts_give_way_to_the_window(tmp_path: Path) -> None:
    """Linux weighs each session as a group by the group's own niceness, and four CLIs at the
    engine's niceness still kept the window's GUI thread waiting for a core behind their threads:
    the CLI's group gets the lowest weight and the CLI, and what it starts in sessions of its
    own, the idle policy (a thread of the window that wakes takes the core from them)."""
    from skillprism.core.live_trigger.runner import CLI_NICENESS

    out = tmp_path / "sched.txt"
    launch = Launch(cwd=str(tmp_path), prefix=(sys.executable, "-c", GIVES_WAY, str(out)))
    run_one(spec_of(), Job(0, "p", 1), launch, "alpha", SKILLS, 60, lambda: False)
    idle = str(os.SCHED_IDLE)
    assert out.read_text(encoding="utf-8").split() == [str(CLI_NICENESS), idle, idle]
