"""Regressions for the crashes and lost updates of issue #10 (reproductions R2-R7 in the shared
repro folder): each test failed before its fix.

Permissions only bite without root's override, so the tests that need `chmod 000` to mean what it
means for users run the command in a child process without CAP_DAC_OVERRIDE (setpriv) when the
suite runs as root."""

from __future__ import annotations

import json
import os
import queue
import shutil
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from skillprism.core import resources as resources_mod
from skillprism.core import scan as scan_mod
from skillprism.core.document_cache import DocumentCache
from skillprism.core.profiles import available_profiles, load_profile
from skillprism.core.resolve import build_catalog
from skillprism.core.resources import list_resources
from skillprism.core.tier3 import resolve_reference

PROFILES = available_profiles()
TIMEOUT = 30


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def ordinary(root: Path, name: str) -> Path:
    return write(
        root / name / "SKILL.md", f"---\nname: {name}\ndescription: Ok. Use when testing.\n---\nB\n"
    )


def unprivileged(argv: list[str]) -> list[str]:
    """`argv` without root's permission override, where the suite runs as root."""
    if os.geteuid() != 0:
        return argv
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("running as root without setpriv: chmod 000 would not apply")
    return [setpriv, "--bounding-set", "-dac_override,-dac_read_search", *argv]


def skillprism(*args: str) -> list[str]:
    return [sys.executable, "-m", "skillprism", *args]


# --- R2, R3: numbers past Python's digit limit --------------------------------------------------


HUGE_FIELDS = {
    "decimal-description": "description: " + "1" * 4301,
    "hex-compatibility": "compatibility: 0x" + "f" * 3600,
    "negative-license": "license: -" + "9" * 5000,
    "octal-metadata": "metadata:\n  version: 0o" + "7" * 6000,
}


@pytest.mark.parametrize("field", HUGE_FIELDS.values(), ids=HUGE_FIELDS.keys())
def test_huge_numbers_only_affect_their_skill(tmp_path: Path, field: str) -> None:
    write(tmp_path / "big" / "SKILL.md", f"---\nname: big\ndescription: x\n{field}\n---\nbody\n")
    ordinary(tmp_path, "fine")
    every_profile = [arg for name in PROFILES for arg in ("--profile", name)]
    for fmt in ("text", "json", "sarif"):
        done = subprocess.run(
            skillprism("check", *every_profile, "--format", fmt, str(tmp_path)),
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
        )
        assert "Traceback" not in done.stderr and done.returncode in (0, 1), done.stderr
    for profile in PROFILES:
        catalog = build_catalog(load_profile(profile), [str(tmp_path)])
        by_dir = {os.path.basename(s.directory): s for s in catalog.skills}
        assert "SP122" not in {d.code for d in catalog.all_diagnostics()}
        alone = build_catalog(load_profile(profile), [str(tmp_path / "fine")]).skills[0]
        assert by_dir["fine"].status == alone.status


def test_a_huge_integer_is_named_as_an_integer(tmp_path: Path) -> None:
    write(
        tmp_path / "s" / "SKILL.md",
        "---\nname: s\ndescription: "
        + "1" * 4301
        + "\ncompatibility: 0x"
        + "f" * 4000
        + "\n---\nB\n",
    )
    catalog = build_catalog(load_profile("claude-code"), [str(tmp_path)])
    messages = [d.message for d in catalog.all_diagnostics()]
    # read as JavaScript's String() writes a number that large
    assert (
        "'description' is an integer, not a string: the runtime reads it as 'Infinity'" in messages
    )
    assert any(
        "'compatibility' must be a string, not an integer <integer of about" in m for m in messages
    )


def test_an_unexpected_error_is_a_finding_on_that_skill_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from skillprism.core import evaluator

    ordinary(tmp_path, "good")
    ordinary(tmp_path, "bad")
    real = evaluator.evaluate

    def flaky(doc, profile, dir_name):  # type: ignore[no-untyped-def]
        if dir_name == "bad":
            raise RuntimeError("boom")
        return real(doc, profile, dir_name)

    monkeypatch.setattr(evaluator, "evaluate", flaky)
    catalog = build_catalog(load_profile("agentskills"), [str(tmp_path)])
    by_dir = {os.path.basename(s.directory): s for s in catalog.skills}
    assert by_dir["good"].status == "ok"
    assert [d.code for d in by_dir["bad"].diagnostics] == ["SP122"]
    assert "RuntimeError: boom" in by_dir["bad"].diagnostics[0].message


# --- R4: a permission change is an update -------------------------------------------------------


def test_the_document_cache_sees_a_chmod(tmp_path: Path) -> None:
    path = ordinary(tmp_path, "a")
    cache = DocumentCache()
    first = cache.get(str(path))
    assert cache.get(str(path)) is first
    os.chmod(path, 0o600)
    assert cache.get(str(path)) is not first


def _lines(proc: subprocess.Popen) -> queue.Queue:  # type: ignore[type-arg]
    out: queue.Queue = queue.Queue()  # type: ignore[type-arg]

    def pump() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            out.put(line)
        out.put(None)

    threading.Thread(target=pump, daemon=True).start()
    return out


def _watch(root: Path, *extra: str) -> subprocess.Popen:  # type: ignore[type-arg]
    return subprocess.Popen(
        unprivileged(skillprism("watch", "--format", "json", *extra, str(root))),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _stop(proc: subprocess.Popen) -> None:  # type: ignore[type-arg]
    if proc.poll() is None:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def test_watch_reports_a_chmod_that_makes_a_skill_unreadable(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    path = ordinary(root, "a")
    proc = _watch(root)
    try:
        lines = _lines(proc)
        first = json.loads(lines.get(timeout=60) or "null")
        assert first["entries"] == [{"path": str(path), "name": "a", "status": "ok", "codes": []}]
        os.chmod(path, 0o000)
        update = json.loads(lines.get(timeout=TIMEOUT) or "null")
        assert update["entries"] == [
            {"path": str(path), "name": "", "status": "skipped", "codes": ["SP100", "SP700"]}
        ]
        os.chmod(path, 0o644)
        update = json.loads(lines.get(timeout=TIMEOUT) or "null")
        assert update["entries"][0]["status"] == "ok"
    finally:
        os.chmod(path, 0o644)
        _stop(proc)


def test_watch_lists_changed_and_removed_skills(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    ordinary(root, "a")
    b = ordinary(root, "b")
    proc = _watch(root)
    try:
        lines = _lines(proc)
        first = json.loads(lines.get(timeout=60) or "null")
        assert sorted(e["name"] for e in first["entries"]) == ["a", "b"]
        shutil.rmtree(root / "a")
        update = json.loads(lines.get(timeout=TIMEOUT) or "null")
        assert update["entries"] == [{"path": str(root / "a" / "SKILL.md"), "status": "removed"}]
        b.write_text("---\nname: b\n---\nno description\n", encoding="utf-8")
        update = json.loads(lines.get(timeout=TIMEOUT) or "null")
        assert update["entries"] == [
            {"path": str(b), "name": "b", "status": "skipped", "codes": ["SP210"]}
        ]
    finally:
        _stop(proc)


def test_watch_text_says_the_same_in_words(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    ordinary(root, "a")
    proc = subprocess.Popen(
        skillprism("watch", str(root)), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        lines = _lines(proc)
        assert (lines.get(timeout=60) or "").startswith("watching 1 skill(s)")
        assert (lines.get(timeout=TIMEOUT) or "").strip() == f"ok: a at {root / 'a' / 'SKILL.md'}"
        shutil.rmtree(root / "a")
        assert "updated in" in (lines.get(timeout=TIMEOUT) or "")
        assert (lines.get(timeout=TIMEOUT) or "").strip() == f"removed: {root / 'a' / 'SKILL.md'}"
    finally:
        _stop(proc)


# --- R5: unreadable is a finding, not silence ---------------------------------------------------


def test_an_unreadable_skill_folder_is_a_finding(tmp_path: Path) -> None:
    root = tmp_path / "root"
    ordinary(root, "ok")
    ordinary(root, "hidden")
    os.chmod(root / "hidden", 0o000)
    try:
        done = subprocess.run(
            unprivileged(skillprism("check", "--format", "json", str(root))),
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
        )
    finally:
        os.chmod(root / "hidden", 0o755)
    unreadable = [
        d for d in json.loads(done.stdout)["results"][0]["diagnostics"] if d["code"] == "SP313"
    ]
    assert unreadable and unreadable[0]["path"] == str(root / "hidden")
    assert "Permission denied" in unreadable[0]["message"]


@pytest.mark.parametrize("command", ["check", "prompt", "report", "watch"])
def test_an_unreadable_or_missing_path_exits_2_with_one_line(tmp_path: Path, command: str) -> None:
    extra = ["-o", str(tmp_path / "r.html")] if command == "report" else []
    root = tmp_path / "root"
    ordinary(root, "a")
    os.chmod(root, 0o000)
    try:
        done = subprocess.run(
            unprivileged(skillprism(command, *extra, str(root))),
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
        )
    finally:
        os.chmod(root, 0o755)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        f"skillprism: error: {root}: cannot read: Permission denied"
    ]
    missing = subprocess.run(
        skillprism(command, *extra, str(tmp_path / "nope")),
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    assert missing.returncode == 2 and "Traceback" not in missing.stderr


def test_the_scan_notes_an_unlistable_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ordinary(tmp_path, "fine")
    (tmp_path / "locked").mkdir()
    real_scandir = os.scandir

    def scandir(path):  # type: ignore[no-untyped-def]
        if str(path).endswith("locked"):
            raise PermissionError(13, "Permission denied")
        return real_scandir(path)

    monkeypatch.setattr(scan_mod.os, "scandir", scandir)
    result = scan_mod.search(str(tmp_path))
    assert [f.parts for f in result.files] == [("fine", "SKILL.md")]
    assert [(p, f.rule, f.message) for p, f in result.notes] == [
        (str(tmp_path / "locked"), "folder-unreadable", "cannot list the folder: Permission denied")
    ]


# --- R6: the listing never looks outside the skill ---------------------------------------------


def test_the_listing_never_stats_a_link_target_outside(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    outside = write(tmp_path / "secret" / "shadow", "x" * 631)
    skill = tmp_path / "s" / "t"
    ordinary(tmp_path / "s", "t")
    write(skill / "references" / "ok.md", "fine")
    (skill / "references" / "shadow").symlink_to(outside)
    (skill / "references" / "inner").symlink_to("ok.md")
    (skill / "references" / "hop").symlink_to("../references/../../../secret/shadow")
    touched: list[str] = []
    for name in ("stat", "lstat", "readlink"):
        real = getattr(os, name)

        def spy(path, *a, _real=real, **k):  # type: ignore[no-untyped-def]
            touched.append(os.fspath(path))
            return _real(path, *a, **k)

        monkeypatch.setattr(os, name, spy)
    listing = list_resources(str(skill))
    monkeypatch.undo()
    secret = str(tmp_path / "secret")
    assert not [p for p in touched if p.startswith(secret)], touched
    by_path = {r.rel_path: r for r in listing.items}
    assert by_path["references/shadow"].escapes and by_path["references/hop"].escapes
    assert by_path["references/shadow"].size == 0
    assert not by_path["references/inner"].escapes and by_path["references/inner"].size == 4
    text = resolve_reference(str(skill), "references").content or ""
    assert "631" not in text
    assert "references/shadow [symlink leading outside the skill folder" in text
    assert resources_mod.__name__  # the module under test is the one the GUI's Files tab uses


# --- R7: a live refresh picks the same clash winner as a fresh scan, whatever the hash seed ----

_R7 = """
import os, sys
from skillprism.core.profiles import load_profile
from skillprism.core.resolve import build_catalog
from skillprism.core.watch import LiveCatalog
root = sys.argv[1]
prof = load_profile("agentskills")
live = LiveCatalog(prof, [root], project=root)
live.catalog
p = os.path.join(root, "plugins/tools/skills/x/SKILL.md")
with open(p, "w") as fh:
    fh.write("---\\nname: x\\ndescription: rewritten. Use when testing.\\n---\\nB\\n")
got = [(s.path, s.status) for s in live.refresh([p]).skills]
want = [(s.path, s.status) for s in build_catalog(prof, [root], project=root).skills]
print("same" if got == want else f"differ: {got} != {want}")
"""


@pytest.mark.parametrize("seed", range(8))
def test_refresh_after_editing_the_winner_equals_a_fresh_build(tmp_path: Path, seed: int) -> None:
    for sub in ("shared/.agents/skills", "plugins/tools/skills"):
        write(
            tmp_path / sub / "x" / "SKILL.md",
            f"---\nname: x\ndescription: copy in {sub}. Use when testing.\n---\nB\n",
        )
    done = subprocess.run(
        [sys.executable, "-c", _R7, str(tmp_path)],
        env=dict(os.environ, PYTHONHASHSEED=str(seed)),
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    assert done.stdout.strip() == "same", done.stdout + done.stderr


# --- the window's start-up errors --------------------------------------------------------------


def _gui(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess:  # type: ignore[type-arg]
    return subprocess.run(
        skillprism("gui", *args), capture_output=True, text=True, timeout=60, env=env
    )


def test_gui_with_a_missing_path_or_bad_profile_exits_2(tmp_path: Path) -> None:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    done = _gui("--exit-when-ready", str(tmp_path / "nope"), env=env)
    assert done.returncode == 2
    assert done.stderr.strip() == f"Skill Prism: {tmp_path / 'nope'}: no such file or folder"
    bad = write(tmp_path / "bad.toml", "schema = 1\nname = [\n")
    done = _gui("--exit-when-ready", "--profile", str(bad), str(tmp_path), env=env)
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1 and str(bad) in done.stderr
    done = _gui("--exit-when-ready", "--profile", "no-such-runtime", str(tmp_path), env=env)
    assert done.returncode == 2 and "unknown profile 'no-such-runtime'" in done.stderr


def test_gui_with_a_display_that_names_no_x_server_exits_2(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("QT_QPA_PLATFORM", "WAYLAND_DISPLAY")}
    env["DISPLAY"] = ":93"
    done = _gui(str(tmp_path), env=env)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 or "libraries are missing" in done.stderr
    if len(lines) == 1:
        assert "no X server answers at DISPLAY=:93" in lines[0]
