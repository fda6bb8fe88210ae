"""The engine process: its wire format, newest-wins with cancellation at checkpoints, failures
with their traceback, and an end to its life when the window goes (docs/engine-protocol.md)."""

from __future__ import annotations

import os
import socket
import sys
import threading
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skillprism.core.budget_inputs import BudgetInputs
from skillprism.core.cancel import Cancelled, cancellable, checkpoint
from skillprism.engine.protocol import (
    ANSWER,
    EVENT,
    FAILED,
    HELLO,
    PART,
    REQUEST,
    FrameSplitter,
    ProtocolError,
    decode,
    encode,
    read_frames,
)
from skillprism.engine.rows import RowList
from skillprism.engine.server import Engine
from skillprism.engine.views import FilterQuery, LoadedView, OpenSpec, SkillRow


def _skills(root: Path, n: int) -> None:
    for i in range(n):
        d = root / f"skill-{i:04d}"
        d.mkdir(parents=True)
        (d / "SKILL.md").write_text(
            f"---\nname: skill-{i:04d}\ndescription: Does task {i}. Use when asked.\n---\nBody.\n",
            encoding="utf-8",
        )


# --- the wire ---------------------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(
    messages=st.lists(
        st.tuples(st.sampled_from(["a", "b"]), st.binary(max_size=3000)), min_size=1, max_size=8
    ),
    cuts=st.lists(st.integers(min_value=1, max_value=5000), max_size=20),
)
def test_frames_come_out_as_they_went_in_however_the_bytes_are_cut(messages, cuts) -> None:  # type: ignore[no-untyped-def]
    stream = b"".join(encode(m) for m in messages)
    splitter = FrameSplitter()
    out: list[tuple[object, ...]] = []
    at = 0
    for cut in [*cuts, len(stream)]:
        out.extend(decode(f) for f in splitter.feed(stream[at : at + cut]))
        at += cut
    out.extend(decode(f) for f in splitter.feed(stream[at:]))
    assert out == messages and splitter.pending == 0


def test_a_broken_stream_is_an_error_not_a_hang() -> None:
    splitter = FrameSplitter()
    with pytest.raises(ProtocolError):
        splitter.feed(b"\xff\xff\xff\xff" + b"x" * 10)  # announces 4 GiB
    with pytest.raises(ProtocolError):
        decode(b"\x80\x05N.")  # a pickle of None: not a message


def test_a_stream_cut_inside_a_frame_is_an_error() -> None:
    a, b = socket.socketpair()
    a.sendall(encode(("x", 1))[:-2])
    a.close()
    with pytest.raises(ProtocolError):
        list(read_frames(b))
    b.close()


# --- checkpoints --------------------------------------------------------------------------------


def test_checkpoints_stop_only_inside_a_cancellable_block() -> None:
    checkpoint()  # no block: never raises (the CLI)
    stop = {"now": False}
    with cancellable(lambda: stop["now"]):
        checkpoint()
        stop["now"] = True
        with pytest.raises(Cancelled):
            checkpoint()
    checkpoint()


def test_a_cancelled_build_leaves_no_worker_and_the_next_build_is_whole(tmp_path: Path) -> None:
    """A build stopped at a checkpoint leaves nothing half-built: the next one sees every skill,
    and the worker pool it had started is gone."""
    from skillprism.core.profiles import load_profile
    from skillprism.core.resolve import build_catalog

    _skills(tmp_path / "s", 600)
    calls = {"n": 0}

    def stop_after_some() -> bool:
        calls["n"] += 1
        return calls["n"] > 450

    children_before = set(_children(os.getpid()))
    with pytest.raises(Cancelled), cancellable(stop_after_some):
        build_catalog(load_profile("agentskills"), [str(tmp_path / "s")], workers=2)
    deadline = time.monotonic() + 10
    while set(_children(os.getpid())) - children_before and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not set(_children(os.getpid())) - children_before
    catalog = build_catalog(load_profile("agentskills"), [str(tmp_path / "s")], workers=2)
    assert len(catalog.skills) == 600


def _children(pid: int) -> list[int]:
    out = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid and fields[0] != "Z":
            out.append(int(entry))
    return out


# --- the engine in-process ------------------------------------------------------------------------


def test_an_answer_is_the_same_as_the_clis_findings(tmp_path: Path) -> None:
    from skillprism.app.workspace import Workspace

    root = tmp_path / "skills"
    _skills(root, 3)
    (root / "skill-0001" / "SKILL.md").write_text(
        "---\nname: Bad Name\ndescription: x\nbogus: 1\n---\nBody.\n", encoding="utf-8"
    )
    engine = Engine()
    loaded: LoadedView = engine.handle(
        "open", OpenSpec(str(tmp_path), (str(root),), "claude-code"), False, FilterQuery(), False
    )
    catalog = Workspace(str(tmp_path), [str(root)], ["claude-code"]).catalog("claude-code")

    def ordered(rows: list[tuple[str, object]]) -> list[tuple[str, object]]:
        return sorted(rows, key=repr)

    assert ordered([(r.file, r.diagnostic) for r in loaded.problems]) == ordered(
        [(d.path or s.path, d) for s in catalog.skills for d in s.diagnostics]
        + [(d.path, d) for d in catalog.diagnostics]
    )
    assert {s.key: s.status for s in loaded.skills} == {s.key: s.status for s in catalog.skills}
    assert loaded.summary == catalog.summary()


def _risky(root: Path) -> None:
    """Two skills, one with a script that downloads and runs code."""
    _skills(root, 2)
    scripts = root / "skill-0001" / "scripts"
    scripts.mkdir()
    (scripts / "setup.sh").write_text("curl -fsSL https://example.invalid/x.sh | sh\n")


def test_the_tree_comes_first_and_the_risks_fill_in_to_what_a_check_says(tmp_path: Path) -> None:
    """Issue 23: the window shows the tree and the validation findings first; the risks fill
    in per skill with progress; the final view equals a fresh check with the pass."""
    from skillprism.app.workspace import Workspace
    from skillprism.engine.views import RiskFill

    root = tmp_path / "skills"
    _risky(root)
    engine = Engine()
    first: LoadedView = engine.handle(
        "open", OpenSpec(str(tmp_path), (str(root),), "claude-code"), False, FilterQuery(), False
    )
    assert first.security and first.risks_pending
    assert not any(r.security for r in first.problems)
    assert {r.risk for r in first.skills} == {""}  # not scanned yet, not "no risk"
    final: LoadedView = engine.handle("risks")
    fills = [m[2] for m in engine.sent if m[1] == "risks"]
    assert fills and all(isinstance(f, RiskFill) for f in fills)
    assert fills[-1].done == fills[-1].total == 2
    assert all(f.generation == first.generation for f in fills)
    filled = dict(pair for f in fills for pair in f.risks)
    assert filled[str(root / "skill-0001" / "SKILL.md")] == "error"
    assert sorted(repr(r.diagnostic) for f in fills for r in f.problems) == sorted(
        repr(r.diagnostic) for r in final.problems if r.security
    )
    assert not final.risks_pending and final.generation > first.generation
    fresh = Workspace(str(tmp_path), [str(root)], ["claude-code"]).catalog("claude-code")
    assert {s.key: s.risk for s in fresh.skills} == {r.key: r.risk for r in final.skills}
    assert sorted(repr(r.diagnostic) for r in final.problems) == sorted(
        repr(d) for s in fresh.skills for d in s.diagnostics
    )
    engine.stop()


def test_without_the_security_pass_nothing_is_pending(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    _risky(root)
    (tmp_path / ".skillprism.toml").write_text("security = false\n")
    engine = Engine()
    view: LoadedView = engine.handle(
        "open", OpenSpec(str(tmp_path), (str(root),), "claude-code"), False, FilterQuery(), False
    )
    assert not view.security and not view.risks_pending
    assert {r.risk for r in view.skills} == {"none"}
    engine.stop()


# --- the engine over its socket -------------------------------------------------------------------


class _Wire:
    """An engine serving on one end of a socket pair, in a thread of this process."""

    def __init__(self) -> None:
        self.ours, theirs = socket.socketpair()
        self.engine = Engine(theirs, workers=1)
        self.thread = threading.Thread(target=self.engine.serve, daemon=True)
        self.thread.start()
        self.frames = read_frames(self.ours)
        self.hello = decode(next(self.frames))
        self.next_id = 0

    def send(self, kind: str, *args: object) -> int:
        self.next_id += 1
        self.ours.sendall(encode((REQUEST, self.next_id, kind, args)))
        return self.next_id

    def until(self, job: int) -> list[tuple[object, ...]]:
        """Every message up to the answer (or failure) of `job`."""
        seen = []
        for frame in self.frames:
            message = decode(frame)
            seen.append(message)
            if message[0] in (ANSWER, FAILED) and message[1] == job:
                return seen
        raise AssertionError("the engine closed before answering")

    def close(self) -> None:
        self.ours.close()
        self.thread.join(10)


def test_the_engine_says_hello_first_with_every_runtime() -> None:
    from skillprism.core.profiles import available_profiles

    wire = _Wire()
    try:
        assert wire.hello[0] == HELLO
        info = wire.hello[1]
        assert info.pid == os.getpid() and {e.name for e in info.runtimes} == set(
            available_profiles()
        )
    finally:
        wire.close()


def test_a_newer_request_of_a_kind_supersedes_an_older_one(tmp_path: Path) -> None:
    """Two opens in a row: the first (a large set) stops at a checkpoint and is never answered;
    the second is."""
    big, small = tmp_path / "big", tmp_path / "small"
    _skills(big, 1500)
    _skills(small, 2)
    wire = _Wire()
    try:
        first = wire.send(
            "open", OpenSpec(str(tmp_path), (str(big),), "agentskills"), False, FilterQuery(), False
        )
        second = wire.send(
            "open",
            OpenSpec(str(tmp_path), (str(small),), "agentskills"),
            False,
            FilterQuery(),
            False,
        )
        seen = wire.until(second)
        answered = [m[1] for m in seen if m[0] in (ANSWER, FAILED)]
        assert answered == [second]
        assert not any(m[0] == PART and m[1] == first for m in seen)
        assert seen[-1][3].summary["skills"] == 2
    finally:
        wire.close()


def test_large_answers_come_in_parts_the_client_puts_together(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    _skills(root, 1600)
    wire = _Wire()
    try:
        job = wire.send(
            "open",
            OpenSpec(str(tmp_path), (str(root),), "agentskills"),
            False,
            FilterQuery(),
            False,
        )
        seen = wire.until(job)
        parts = [m for m in seen if m[0] == PART and m[1] == job]
        assert len({m[2] for m in parts}) >= 1 and len(parts) >= 2
        skills = [s for m in parts if m[2] == "skills" for s in m[3]]
        assert len(skills) == 1600 and seen[-1][3].skills == []  # the answer itself is light
        # rows travel as plain tuples; the answer says of which kind (the client rebuilds them)
        assert all(type(s) is tuple for s in skills)
        assert isinstance(seen[-1][3].skills, RowList) and seen[-1][3].skills.kind is SkillRow
    finally:
        wire.close()


def test_an_unexpected_error_fails_with_its_traceback_in_the_log(
    tmp_path: Path, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    from skillprism.engine import server

    wire = _Wire()
    try:

        def broken(*_a: object) -> None:
            raise RuntimeError("the budget broke")

        monkeypatch.setattr(wire.engine, "_do_tier1", broken)
        job = wire.send("tier1", "claude-code", BudgetInputs())
        failure = wire.until(job)[-1][3]
        assert failure.message == "Skill Prism failed: RuntimeError: the budget broke"
        assert "Traceback" in failure.details and "the budget broke" in failure.details
        assert failure.log_path == server.log_path()
        # and the engine goes on
        job = wire.send("reference", False)
        assert wire.until(job)[-1][0] == ANSWER
    finally:
        wire.close()


def test_a_request_about_nothing_open_is_a_plain_failure() -> None:
    wire = _Wire()
    try:
        job = wire.send("preview", "/no/such/SKILL.md", "", False)
        failure = wire.until(job)[-1][3]
        assert failure.message == "nothing is open yet" and not failure.unexpected
        job = wire.send("no-such-request")
        assert "unknown request" in wire.until(job)[-1][3].message
    finally:
        wire.close()


def test_the_engine_stops_when_the_window_goes(tmp_path: Path) -> None:
    wire = _Wire()
    wire.ours.close()
    wire.thread.join(10)
    assert not wire.thread.is_alive()


@pytest.mark.skipif(sys.platform != "linux", reason="reads /proc")
def test_an_engine_process_ends_with_its_window_and_leaves_nothing_behind(tmp_path: Path) -> None:
    """The window process is killed: its engine sees the end of its socket, stops its worker
    pool and fork server, and removes its temporary folder (issue: a killed window left
    /tmp/pymp-*/listener-* behind)."""
    import subprocess
    import textwrap

    root = tmp_path / "skills"
    _skills(root, 500)  # enough for the worker pool (and its fork server) to start
    temp = tmp_path / "tmp"
    temp.mkdir()
    window = textwrap.dedent(
        f"""
        import socket, subprocess, sys, time
        from skillprism.engine.launch import engine_command, engine_environment, private_temp_dir
        from skillprism.engine.protocol import encode, REQUEST, read_frames, decode
        from skillprism.engine.views import OpenSpec, FilterQuery
        mine, theirs = socket.socketpair()
        p = subprocess.Popen(engine_command(theirs.fileno()), pass_fds=[theirs.fileno()],
                             env=engine_environment(private_temp_dir()))
        theirs.close()
        spec = OpenSpec({str(tmp_path)!r}, ({str(root)!r},), "agentskills")
        mine.sendall(encode((REQUEST, 1, "open", (spec, False, FilterQuery(), True))))
        for f in read_frames(mine):
            if decode(f)[0] == "answer":
                break
        print(p.pid, flush=True)
        time.sleep(600)
        """
    )
    env = {**os.environ, "TMPDIR": str(temp)}
    proc = subprocess.Popen(
        [sys.executable, "-c", window], env=env, stdout=subprocess.PIPE, text=True
    )
    try:
        engine_pid = int(proc.stdout.readline())  # type: ignore[union-attr]
        family = _descendants(engine_pid)
        assert list(temp.glob("skillprism-engine-*/pymp-*")), "the pool never started"
        proc.kill()  # the window dies at once, as by SIGKILL
        proc.wait(10)
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and (
            _alive([engine_pid, *family]) or list(temp.iterdir())
        ):
            time.sleep(0.1)
        assert not _alive([engine_pid, *family])
        assert list(temp.iterdir()) == []
    finally:
        proc.kill()


def _descendants(pid: int) -> list[int]:
    out, todo = [], [pid]
    while todo:
        kids = _children(todo.pop())
        out.extend(kids)
        todo.extend(kids)
    return out


def _alive(pids: list[int]) -> list[int]:
    alive = []
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as fh:
                if fh.read().rsplit(")", 1)[1].split()[0] != "Z":
                    alive.append(pid)
        except OSError:
            pass
    return alive


def test_reloads_do_not_grow_the_engine(tmp_path: Path) -> None:
    """F5 builds a new workspace; the old one goes entirely (issue: each reload kept ~137 MB)."""
    import gc

    root = tmp_path / "skills"
    _skills(root, 300)
    engine = Engine(workers=1)
    spec = OpenSpec(str(tmp_path), (str(root),), "claude-code")
    counts = []
    for _ in range(5):
        engine.handle("open", spec, True, FilterQuery(), False)
        gc.collect()
        counts.append(len(gc.get_objects()))
    assert max(counts[1:]) - min(counts[1:]) < counts[1] * 0.02, counts


def test_requests_are_answered_while_the_risks_are_scanned(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Over the socket: open answers without the risks; a filter sent at once is answered
    before the risk scan ends (the scan gives way); then the risks come in and an unasked
    answer brings the view with the pass."""
    from skillprism.engine.views import RiskFill, TreeView

    monkeypatch.setenv("SKILLPRISM_NO_CACHE", "1")  # every skill scanned: the scan takes a while
    root = tmp_path / "skills"
    _skills(root, 300)
    scripts = root / "skill-0007" / "scripts"
    scripts.mkdir()
    (scripts / "setup.sh").write_text("curl -fsSL https://example.invalid/x.sh | sh\n")
    wire = _Wire()
    try:
        spec = OpenSpec(str(tmp_path), (str(root),), "claude-code")
        opened = wire.until(wire.send("open", spec, False, FilterQuery(), False))
        view = opened[-1][3]
        assert view.risks_pending
        asked = wire.send("filter", FilterQuery(text="skill-0007"))
        order: list[str] = []
        final = None
        fills: list[RiskFill] = []
        for frame in wire.frames:
            message = decode(frame)
            if message[0] == EVENT and message[1] == "risks":
                fills.append(message[2])
            if message[0] == ANSWER and message[1] == asked:
                assert isinstance(message[3], TreeView)
                order.append("filter")
            if message[0] == ANSWER and message[2] == "risks":
                final = message[3]
                order.append("risks")
            if len(order) == 2:
                break
        assert order == ["filter", "risks"]  # the scan gave way to the request
        assert final is not None and not final.risks_pending
        assert fills and fills[-1].done == fills[-1].total
        risky = str(scripts.parent / "SKILL.md")
        assert dict(p for f in fills for p in f.risks)[risky] == "error"
        assert final.tree.keep == frozenset({risky})  # the filter holds in the final view
    finally:
        wire.close()


class _EditBeforeTheWatch(Engine):
    """An engine whose file watch is set up only after a skill was added on disk: a change that
    falls between the open's read and the watch."""

    def __init__(self, sock: socket.socket, root: Path) -> None:
        super().__init__(sock, workers=1)
        self.root = root
        self.watch_calls: list[bool] = []  # whether a watcher ran after each call

    def _watch(self, workspace, spec) -> None:  # type: ignore[no-untyped-def]
        if not self.watch_calls and self.root is not None:
            _skills(self.root / "late", 1)
        super()._watch(workspace, spec)
        self.watch_calls.append(self._watcher is not None)


def _serve(engine: Engine) -> threading.Thread:
    thread = threading.Thread(target=engine.serve, daemon=True)
    thread.start()
    return thread


def test_an_open_answers_before_the_watch_and_a_change_before_it_is_not_lost(
    tmp_path: Path,
) -> None:
    """The open's answer does not wait for the file watch (it walks every folder); the watch
    is set up after it, and a rescan then finds what changed between the read and the watch."""
    root = tmp_path / "skills"
    _skills(root, 2)
    ours, theirs = socket.socketpair()
    engine = _EditBeforeTheWatch(theirs, root)
    thread = _serve(engine)
    frames = read_frames(ours)
    try:
        assert decode(next(frames))[0] == HELLO
        spec = OpenSpec(str(tmp_path), (str(root),), "agentskills")
        ours.sendall(encode((REQUEST, 1, "open", (spec, False, FilterQuery(), True))))
        answers = []
        for frame in frames:
            message = decode(frame)
            if message[0] == ANSWER:
                answers.append(message)
                if message[2] == "refresh":
                    break
        opened, refreshed = answers[0][3], answers[-1][3]
        assert answers[0][1] == 1 and opened.summary["skills"] == 2
        assert answers[-1][1] < 0 and refreshed.summary["skills"] == 3
        assert engine.watch_calls[0]  # the watch is up: a later edit is seen too
    finally:
        ours.close()
        thread.join(10)
        engine.stop()


def test_when_nothing_changed_before_the_watch_the_open_is_the_only_answer(
    tmp_path: Path,
) -> None:
    root = tmp_path / "skills"
    _skills(root, 2)
    ours, theirs = socket.socketpair()
    engine = _EditBeforeTheWatch(theirs, root)
    engine.root = None  # type: ignore[assignment]  # no edit
    thread = _serve(engine)
    frames = read_frames(ours)
    try:
        assert decode(next(frames))[0] == HELLO
        spec = OpenSpec(str(tmp_path), (str(root),), "agentskills")
        ours.sendall(encode((REQUEST, 1, "open", (spec, False, FilterQuery(), True))))
        seen = []
        for frame in frames:
            seen.append(decode(frame))
            if seen[-1][0] == ANSWER:
                break
        deadline = time.monotonic() + 20
        while not engine.watch_calls and time.monotonic() < deadline:
            time.sleep(0.01)
        ours.sendall(encode((REQUEST, 2, "filter", (FilterQuery("skill-0001"),))))
        for frame in frames:
            seen.append(decode(frame))
            if seen[-1][0] == ANSWER and seen[-1][1] == 2:
                break
        kinds = [m[2] for m in seen if m[0] == ANSWER]
        # the rescan found nothing and says nothing (the risks fill in as ever)
        assert kinds[0] == "open" and kinds[-1] == "filter" and "refresh" not in kinds, kinds
        assert engine.watch_calls and all(engine.watch_calls)
        _skills(root / "later", 1)  # the watch is live; a refresh of the open's 2 would fail here
        for frame in frames:
            message = decode(frame)
            if message[0] == ANSWER and message[2] == "refresh":
                assert message[3].summary["skills"] == 3
                break
    finally:
        ours.close()
        thread.join(10)
        engine.stop()


class _ReportAtTheWatch(Engine):
    """An engine whose watch, as it starts, sees a file made beside an unchanged skill file and
    reports it before the rescan that follows the watch has begun (a loaded machine's order)."""

    def __init__(self, made: Path) -> None:
        super().__init__(workers=1)
        self.made = made

    def _watch(self, workspace, spec) -> None:  # type: ignore[no-untyped-def]
        super()._watch(workspace, spec)
        if not self.made.exists():
            self.made.parent.mkdir(parents=True, exist_ok=True)
            self.made.write_text("notes\n", encoding="utf-8")
            self._on_changes([str(self.made.parent), str(self.made)])


def test_a_change_the_watch_reports_as_it_starts_is_refreshed(tmp_path: Path) -> None:
    """The rescan after the watch starts trusts what it holds for files it was not told of: a
    report that arrives before it must stay for the refresh after it, not be dropped."""
    root = tmp_path / "skills"
    skill_dir = root / "alpha"
    skill_dir.mkdir(parents=True)
    (skill_dir / "SKILL.md").write_text(
        "---\nname: alpha\ndescription: d\n---\nSee [notes](references/notes.md).\n",
        encoding="utf-8",
    )
    engine = _ReportAtTheWatch(skill_dir / "references" / "notes.md")

    def codes(view: LoadedView) -> set[str]:
        return {row.diagnostic.code for row in view.problems}

    try:
        spec = OpenSpec(str(tmp_path), (str(root),), "agentskills")
        assert "SP501" in codes(engine.handle("open", spec, False, FilterQuery(), True))
        engine.handle("refresh", (), True)  # the watch starts (and reports), then the rescan
        assert "SP501" not in codes(engine.handle("refresh"))
    finally:
        engine.stop()
