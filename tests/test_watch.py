"""The live path: SkillWatcher (watchdog + debouncer thread) and LiveCatalog (incremental refresh),
and `skillprism watch`. Every watcher a test starts is stopped by the fixture that made it."""

from __future__ import annotations

import errno
import json
import os
import queue
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from skillprism.core import watch as watch_mod
from skillprism.core.catalog import Catalog
from skillprism.core.profiles import load_profile
from skillprism.core.resolve import build_catalog
from skillprism.core.watch import LiveCatalog, SkillWatcher, is_noise

TIMEOUT = 15.0


def wait_for(predicate: Callable[[], object], timeout: float = TIMEOUT) -> None:
    """Poll `predicate` until it holds; fail after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.02)
    raise AssertionError(f"condition not met within {timeout} s")


def write_skill(
    folder: Path, name: str, description: str = "Does a thing. Use when asked."
) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "SKILL.md"
    path.write_text(
        f"---\nname: {name}\ndescription: {description}\n---\n# {name}\n\nDo it.\n",
        encoding="utf-8",
    )
    return path


class Live:
    """A LiveCatalog wired to a SkillWatcher the way the GUI and the CLI wire them."""

    def __init__(self, paths: list[str], **kwargs: object) -> None:
        self.live = LiveCatalog(load_profile("agentskills"), paths)
        self.catalogs: list[Catalog] = [self.live.catalog]
        self.batches: list[list[str]] = []
        self.watcher = SkillWatcher(self.live.roots_to_watch(), self._changed, **kwargs)  # type: ignore[arg-type]

    def _changed(self, paths: list[str]) -> None:
        self.batches.append(paths)
        self.catalogs.append(self.live.refresh(paths))

    @property
    def catalog(self) -> Catalog:
        return self.catalogs[-1]

    def names(self) -> set[str]:
        return {s.name for s in self.catalog.skills}

    def reported(self) -> set[str]:
        return {p for b in self.batches for p in b}


@pytest.fixture
def live() -> Iterator[Callable[..., Live]]:
    made: list[Live] = []

    def make(paths: list[str], **kwargs: object) -> Live:
        lv = Live(paths, **kwargs)
        made.append(lv)
        lv.watcher.start()
        return lv

    yield make
    for lv in made:
        lv.watcher.stop()


# --- LiveCatalog through the watcher ---------------------------------------------------------


def test_writing_a_skill_updates_the_catalog(tmp_path: Path, live: Callable[..., Live]) -> None:
    root = tmp_path / "skills"
    write_skill(root / "alpha", "alpha")
    lv = live([str(root)])
    assert lv.watcher.mode == "native" or lv.watcher.reason
    assert lv.names() == {"alpha"}
    write_skill(root / "beta", "beta")
    wait_for(lambda: lv.names() == {"alpha", "beta"})
    # A content change to a known skill: only that file is re-evaluated.
    write_skill(root / "beta", "beta", "Changed words. Use when asked.")
    wait_for(
        lambda: any(s.description == "Changed words. Use when asked." for s in lv.catalog.skills)
    )
    assert lv.live.last_refresh == "incremental"


def test_deleting_a_skill_removes_it(tmp_path: Path, live: Callable[..., Live]) -> None:
    root = tmp_path / "skills"
    write_skill(root / "alpha", "alpha")
    write_skill(root / "beta", "beta")
    lv = live([str(root)])
    shutil.rmtree(root / "beta")
    wait_for(lambda: lv.names() == {"alpha"})


def test_renaming_a_skill_folder(tmp_path: Path, live: Callable[..., Live]) -> None:
    root = tmp_path / "skills"
    write_skill(root / "alpha", "alpha")
    lv = live([str(root)])
    os.rename(root / "alpha", root / "gamma")
    new_key = str(root / "gamma" / "SKILL.md")
    wait_for(lambda: [s.key for s in lv.catalog.skills] == [new_key])
    # The name no longer matches the folder: the rename shows up as a finding.
    assert lv.catalog.skills[0].diagnostics


def test_editor_style_save_by_rename(tmp_path: Path, live: Callable[..., Live]) -> None:
    root = tmp_path / "skills"
    skill = write_skill(root / "alpha", "alpha")
    lv = live([str(root)])
    for temp_name in ("SKILL.md~", ".SKILL.md.swp", "4913"):
        temp = skill.parent / temp_name
        description = f"Saved via {temp_name}. Use when asked."
        temp.write_text(
            f"---\nname: alpha\ndescription: {description}\n---\nBody.\n", encoding="utf-8"
        )
        os.replace(temp, skill)
        wait_for(lambda d=description: lv.catalog.skills[0].description == d)
    assert str(skill) in lv.reported()
    assert not any(is_noise(p) for p in lv.reported())


def test_a_root_created_after_start_is_picked_up(tmp_path: Path, live: Callable[..., Live]) -> None:
    root = tmp_path / "project" / ".agents" / "skills"
    lv = live([str(root)])
    assert lv.names() == set()
    write_skill(root / "late", "late")
    wait_for(lambda: lv.names() == {"late"})
    # Deleted and recreated: the watch follows the new folder.
    shutil.rmtree(root)
    wait_for(lambda: lv.names() == set())
    write_skill(root / "again", "again")
    wait_for(lambda: lv.names() == {"again"})
    write_skill(root / "again", "again", "Edited after the root came back. Use when asked.")
    wait_for(lambda: "came back" in (lv.catalog.skills[0].description or ""))


def test_ignores_vcs_and_package_churn(tmp_path: Path, live: Callable[..., Live]) -> None:
    root = tmp_path / "skills"
    write_skill(root / "alpha", "alpha")
    (root / ".git").mkdir()
    (root / "alpha" / "node_modules").mkdir()
    lv = live([str(root)])
    for i in range(5):
        (root / ".git" / f"obj{i}").write_text("x")
        (root / "alpha" / "node_modules" / f"m{i}.js").write_text("x")
    write_skill(root / "beta", "beta")
    wait_for(lambda: "beta" in lv.names())
    assert not any(".git" in p or "node_modules" in p for p in lv.reported())


def test_forced_polling_reports_its_reason(tmp_path: Path, live: Callable[..., Live]) -> None:
    root = tmp_path / "skills"
    write_skill(root / "alpha", "alpha")
    lv = live([str(root)], force_polling=True, poll_interval=0.1)
    assert lv.watcher.mode == "polling"
    assert "forced" in lv.watcher.reason
    write_skill(root / "beta", "beta")
    wait_for(lambda: lv.names() == {"alpha", "beta"})


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="inotify")
def test_falls_back_to_polling_when_inotify_is_exhausted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, live: Callable[..., Live]
) -> None:
    from watchdog.observers.inotify import InotifyObserver

    class Exhausted(InotifyObserver):
        def schedule(self, *args: object, **kwargs: object):  # type: ignore[no-untyped-def, override]
            raise OSError(errno.ENOSPC, "inotify watch limit reached")

    monkeypatch.setattr(watch_mod, "_native_observer_class", lambda: Exhausted)
    root = tmp_path / "skills"
    write_skill(root / "alpha", "alpha")
    before = {t.ident for t in threading.enumerate()}
    lv = live([str(root)], poll_interval=0.1)
    assert lv.watcher.mode == "polling"
    assert "inotify watch limit" in lv.watcher.reason
    write_skill(root / "beta", "beta")
    wait_for(lambda: lv.names() == {"alpha", "beta"})
    lv.watcher.stop()
    assert {t.ident for t in threading.enumerate()} <= before


def test_stop_is_idempotent_and_joins_every_thread(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    write_skill(root / "alpha", "alpha")
    before = {t.ident for t in threading.enumerate()}
    for polling in (False, True):
        w = SkillWatcher(
            [str(root), str(tmp_path / "missing")], lambda paths: None, force_polling=polling
        )
        w.start()
        assert len(threading.enumerate()) > len(before)
        w.stop()
        w.stop()
        assert {t.ident for t in threading.enumerate()} <= before
    # Never started: stopping is still fine.
    SkillWatcher([str(root)], lambda paths: None).stop()


def test_debouncing_merges_a_burst(tmp_path: Path, live: Callable[..., Live]) -> None:
    root = tmp_path / "skills"
    write_skill(root / "alpha", "alpha")
    lv = live([str(root)], debounce_ms=75)
    files = [root / "alpha" / "references" / f"note{i}.md" for i in range(50)]
    files[0].parent.mkdir()
    for f in files:
        f.write_text("note\n")
    wait_for(lambda: {str(f) for f in files} <= lv.reported())
    assert len(lv.batches) <= 4, [len(b) for b in lv.batches]
    assert all(b == sorted(set(b)) for b in lv.batches)


def test_batch_started_is_the_first_event(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    write_skill(root / "alpha", "alpha")
    seen: list[tuple[float, float]] = []
    w = SkillWatcher([str(root)], lambda paths: seen.append((w.batch_started, time.monotonic())))
    w.start()
    try:
        t0 = time.monotonic()
        write_skill(root / "alpha", "alpha", "Again. Use when asked.")
        wait_for(lambda: seen)
        started, called = seen[0]
        assert t0 <= started <= called
        assert called - started >= 0.07  # the debounce quiet time
    finally:
        w.stop()


# --- LiveCatalog without the watcher ---------------------------------------------------------


def _same(a: Catalog, b: Catalog) -> bool:
    return a.skills == b.skills and a.diagnostics == b.diagnostics


@pytest.mark.parametrize("profile_name", ["agentskills", "claude-code"])
def test_incremental_refresh_equals_a_full_rebuild(tmp_path: Path, profile_name: str) -> None:
    profile = load_profile(profile_name)
    root = tmp_path / "skills"
    for name in ("alpha", "beta", "gamma"):
        write_skill(root / name, name)
    (root / "alpha" / "SKILL.md").write_text(
        "---\nname: alpha\ndescription: Links. Use when asked.\n---\nSee [g](references/g.md).\n"
    )
    outer = write_skill(root / "beta" / "inner", "inner")
    lc = LiveCatalog(profile, [str(root)])
    assert lc.catalog.skills

    def check(changed: list[Path], kind: str) -> None:
        lc.refresh([str(p) for p in changed])
        assert lc.last_refresh == kind
        assert _same(lc.catalog, build_catalog(profile, [str(root)]))

    # Renamed to clash with another skill, then back: both copies' states follow.
    before = lc.catalog
    write_skill(root / "gamma", "beta")
    check([root / "gamma" / "SKILL.md"], "incremental")
    assert lc.catalog.skills != before.skills
    write_skill(root / "gamma", "gamma")
    check([root / "gamma" / "SKILL.md"], "incremental")
    # A referenced resource appears, then goes.
    ref = root / "alpha" / "references" / "g.md"
    ref.parent.mkdir()
    check([ref.parent], "full")  # a new folder may hold skills: rescanned
    ref.write_text("guide\n")
    check([ref], "incremental")
    ref.unlink()
    check([ref], "incremental")
    # The nested skill renames itself onto its outer skill's name.
    write_skill(outer.parent, "beta")
    check([outer], "incremental")
    # New and deleted SKILL.md files change the set: rescanned.
    new = write_skill(root / "delta", "delta")
    check([new.parent, new], "full")
    shutil.rmtree(outer.parent)
    check([outer.parent, outer], "full")
    # Noise outside any skill, and nothing at all.
    (root / "README.md").write_text("hi\n")
    check([root / "README.md"], "full")
    assert lc.refresh([]) is not None and lc.last_refresh == "full"


def test_roots_to_watch(tmp_path: Path) -> None:
    profile = load_profile("claude-code")
    project = tmp_path / "project"
    project.mkdir()
    home = tmp_path / "home"
    lc = LiveCatalog(profile, project=str(project), home=str(home), env={})
    roots = lc.roots_to_watch()
    assert str(project / ".claude" / "skills") in roots
    assert str(home / ".claude" / "skills") in roots
    skill = write_skill(tmp_path / "given" / "one", "one")
    explicit = LiveCatalog(profile, [str(tmp_path / "given"), str(skill)])
    assert explicit.roots_to_watch() == [str(tmp_path / "given"), str(skill.parent)]


def test_is_noise() -> None:
    for p in ("/a/.SKILL.md.swp", "/a/SKILL.md~", "/a/.#SKILL.md", "/a/4913", "/r/.git/index"):
        assert is_noise(p), p
    assert is_noise("/r/x/node_modules/m.js", "/r")
    assert not is_noise("/node_modules/r/x/SKILL.md", "/node_modules/r")
    assert not is_noise("/a/SKILL.md")


# --- the CLI ---------------------------------------------------------------------------------


def _lines(proc: subprocess.Popen[str]) -> queue.Queue[str | None]:
    out: queue.Queue[str | None] = queue.Queue()

    def pump() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            out.put(line)
        out.put(None)

    threading.Thread(target=pump, daemon=True).start()
    return out


def test_watch_cli_prints_json_lines_and_exits_on_sigint(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    write_skill(root / "alpha", "alpha")
    proc = subprocess.Popen(
        [sys.executable, "-m", "skillprism", "watch", "--format", "json", str(root)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
    )
    try:
        lines = _lines(proc)
        first = json.loads(lines.get(timeout=60) or "null")
        assert first["initial"] is True
        assert first["skills"] == 1 and first["errors"] == 0
        assert first["mode"] in ("native", "polling")
        assert first["elapsed_ms"] >= 0
        skill = write_skill(root / "beta", "beta")
        update = json.loads(lines.get(timeout=TIMEOUT) or "null")
        assert update["skills"] == 2
        assert str(skill) in update["changed"]
        assert update["elapsed_ms"] > 0
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=TIMEOUT) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_watch_cli_text_format_and_sigterm(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    write_skill(root / "alpha", "alpha")
    proc = subprocess.Popen(
        [sys.executable, "-m", "skillprism", "watch", str(root), "--polling"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
    )
    try:
        first = _lines(proc).get(timeout=60) or ""
        assert first.startswith("watching 1 skill(s)") and "polling" in first
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=TIMEOUT) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_watch_module_does_not_import_qt() -> None:
    code = (
        "import sys, skillprism.core.watch, skillprism.cli\n"
        "bad = [m for m in sys.modules if m.split('.')[0] in ('PySide6', 'shiboken6')]\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)
