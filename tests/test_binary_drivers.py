"""The Amp, Factory Droid and Claude Code drivers' own helpers, without the runtimes installed.

The drivers are scripts (`conformance/drivers/amp.py`, `factory-droid.py`); they are loaded here
by path. What needs the pinned binaries runs in tests/test_conformance_lab.py when the lab cache
holds them.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from pathlib import Path
from types import ModuleType, SimpleNamespace

import pytest

LAB = Path(__file__).resolve().parent.parent / "conformance"


def _driver(file_name: str) -> ModuleType:
    # The drivers import `binlab` from the conformance folder, as they do when run.
    sys.path.insert(0, str(LAB))
    try:
        spec = importlib.util.spec_from_file_location(
            "driver_" + file_name.replace("-", "_").removesuffix(".py"), LAB / "drivers" / file_name
        )
        assert spec and spec.loader
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(LAB))


@pytest.fixture(scope="module")
def amp() -> ModuleType:
    return _driver("amp.py")


@pytest.fixture(scope="module")
def droid() -> ModuleType:
    return _driver("factory-droid.py")


@pytest.fixture(scope="module")
def claude() -> ModuleType:
    return _driver("claude-code.py")


def test_amp_file_uris_become_paths(amp):
    assert amp.uri_path("file:///tmp/a%20b/SKILL.md") == "/tmp/a b/SKILL.md"
    assert amp.uri_path("builtin:///skills") == "builtin:///skills"


def test_amp_reports_the_path_it_opened_for_a_real_folder(amp, tmp_path):
    real = tmp_path / "skills" / "real"
    real.mkdir(parents=True)
    (real / "SKILL.md").write_text("---\nname: real\ndescription: d\n---\n")
    link = tmp_path / "skills" / "alias"
    os.symlink(real, link)
    opened = [str(link / "SKILL.md")]
    # Amp reports the real folder; the trace says it read the file through the link.
    assert amp.skill_file(os.path.realpath(real), opened) == str(link / "SKILL.md")
    # Without a trace: the folder's own skill file.
    assert amp.skill_file(os.path.realpath(real), []) == os.path.join(
        os.path.realpath(real), "SKILL.md"
    )


def test_amp_warnings_are_read_once_from_both_scans(amp):
    records = [
        {"message": "Skipping duplicate skill", "name": "x", "path": "file:///p/x/SKILL.md"},
        {"level": "WARN", "message": 'Unknown frontmatter field "c"', "field": "c", "path": "f"},
        {"message": "Skipping duplicate skill", "name": "x", "path": "file:///p/x/SKILL.md"},
        {"level": "INFO", "message": "Scanning for skills"},
    ]
    assert amp.warnings_from(records) == [
        "Skipping duplicate skill 'x' at /p/x/SKILL.md (first wins)",
        'f: Unknown frontmatter field "c"',
    ]


def test_amp_refuses_a_tree_with_plugin_folders(amp, tmp_path):
    home, proj = tmp_path / "home", tmp_path / "repo" / "proj"
    home.mkdir()
    proj.mkdir(parents=True)
    job = {"home": str(home), "project": str(proj), "cwd": str(proj)}
    amp.refuse_plugins(job)  # nothing there
    (tmp_path / "repo" / ".amp" / "plugins").mkdir(parents=True)
    with pytest.raises(amp.LabError, match="plugin folders"):
        amp.refuse_plugins(job)


def test_droid_finds_export_names(droid):
    text = "function pk(e){}export{a as Zb,pk,ck as q};"
    assert droid.exported(text, "pk") == "pk"
    assert droid.exported(text, "ck") == "q"
    with pytest.raises(droid.LabError):
        droid.exported(text, "zz")


def test_droid_reads_utf16_and_utf8_modules(droid):
    utf16 = "// @bun\nvar x='\u2026';".encode("utf-16-le")
    utf8 = b"// @bun\nvar y=1;"
    image = SimpleNamespace(blob=utf16 + utf8)
    assert droid.module_text(image, 0, len(utf16)) == "// @bun\nvar x='\u2026';"
    assert droid.module_text(image, len(utf16), len(utf8)) == "// @bun\nvar y=1;"


@pytest.fixture(scope="module")
def codex() -> ModuleType:
    return _driver("codex.py")


@pytest.fixture(scope="module")
def opencode() -> ModuleType:
    return _driver("opencode.py")


def test_codex_finds_its_bundled_skills_where_a_user_has_them(codex, tmp_path, monkeypatch):
    job = {"home": str(tmp_path / "h"), "project": str(tmp_path), "env": {}}
    assert codex.system_root(job) == str(tmp_path / "h" / ".codex" / "skills" / ".system")
    job["env"] = {"CODEX_HOME": str(tmp_path / "c")}
    assert codex.system_root(job) == str(tmp_path / "c" / "skills" / ".system")
    # the default configuration: no -c override of skills.bundled.enabled, no CODEX_HOME set
    assert not hasattr(codex, "config_args")
    monkeypatch.setattr(codex, "binary_path", lambda runtime: tmp_path / "bin" / "codex")
    env = codex.codex_env({"home": str(tmp_path), "env": {}})
    assert "CODEX_HOME" not in env and env["PATH"].startswith(str(tmp_path / "codex-path"))


def test_opencode_reports_each_switch_it_sets_as_a_setting(opencode):
    settings = opencode.lab_settings(opencode.ENV)
    assert [s["setting"] for s in settings] == ["--pure", "network features off"]
    assert all(s["reason"] for s in settings)
    assert "OPENCODE_DISABLE_AUTOUPDATE" in settings[1]["value"]


def test_memo_reads_a_binary_once(tmp_path):
    sys.path.insert(0, str(LAB))
    try:
        import binlab
    finally:
        sys.path.remove(str(LAB))
    binary = tmp_path / "runtime"
    binary.write_bytes(b"\0" * 16)
    calls = []

    def compute():
        calls.append(1)
        return {"code": "x"}

    assert binlab.memo(binary, "t", compute) == {"code": "x"}
    assert binlab.memo(binary, "t", compute) == {"code": "x"}
    assert len(calls) == 1
    binary.write_bytes(b"\0" * 17)  # another build: read again
    binlab.memo(binary, "t", compute)
    assert len(calls) == 2


def test_a_newer_release_is_reported_by_the_drivers(monkeypatch):
    sys.path.insert(0, str(LAB))
    try:
        import binlab
    finally:
        sys.path.remove(str(LAB))
    pinned = binlab.PACKAGES["codex"]
    monkeypatch.setenv("SKILLPRISM_LAB_RELEASES", "codex=9.9.9,nonsense")
    monkeypatch.setitem(binlab.PACKAGES, "codex", pinned)
    binlab._releases_from_env()
    assert binlab.PACKAGES["codex"].release == "9.9.9"
    assert binlab.PACKAGES["codex"].spec == "@openai/codex@9.9.9"
    assert binlab.PACKAGES["codex"].binary == pinned.binary


# --- Claude Code: what a `claude -p` session wrote and sent --------------------------------------


def test_claude_listing_entries_split_by_the_attachments_names(claude):
    content = (
        "- alpha: One line.\n- beta (Beta-Name): Two\n- gamma: kept\n- beta-x: not a name\n"
        "- delta\n- plugin:epsilon: Last."
    )
    names = ["alpha", "beta", "gamma", "delta", "plugin:epsilon"]
    assert claude.split_entries(content, names) == [
        ("alpha", "One line."),
        ("beta", "Two"),
        ("gamma", "kept\n- beta-x: not a name"),  # a description may hold '- x:' lines
        ("delta", None),
        ("plugin:epsilon", "Last."),
    ]
    with pytest.raises(claude.LabError):
        claude.split_entries(content, ["alpha", "zeta"])


def test_claude_tier1_is_the_listing_as_the_request_carries_it(claude, tmp_path):
    content = "- alpha: One."
    sentence = "The following skills are available for use with the Skill tool:\n\n"
    system_turn = "# Environment\n...\n\n" + sentence + content + "\n\nToday's date is x."
    meta = "<system-reminder>\n" + sentence + content + "\n</system-reminder>"
    for text, want in ((system_turn, sentence + content), (meta, meta)):
        log = tmp_path / "requests.jsonl"
        body = {"tools": [{"name": "Skill"}], "messages": [{"role": "system", "content": text}]}
        side = {"path": "/v1/messages", "body": {"messages": [{"role": "user", "content": text}]}}
        log.write_text(
            json.dumps(side)
            + "\n"
            + json.dumps({"path": "/v1/messages?beta=true", "body": body})
            + "\n"
        )
        assert claude.tier1_text(log, content) == want
    log.write_text(json.dumps({"path": "/v1/messages", "body": {"tools": [1], "messages": []}}))
    with pytest.raises(claude.LabError):
        claude.tier1_text(log, content)


def test_claude_listed_names_matched_to_the_skill_files_it_opened(claude, tmp_path):
    personal = tmp_path / "home" / "dup" / "SKILL.md"
    project = tmp_path / "proj" / "dup" / "SKILL.md"
    only = tmp_path / "proj" / "only" / "SKILL.md"
    for path, desc in ((personal, "Personal copy."), (project, "Project copy."), (only, "x")):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"---\nname: n\ndescription: {desc}\n---\n")
    trace = tmp_path / "trace.txt"
    trace.write_text(
        f'12 openat(AT_FDCWD, "{project}", O_RDONLY|O_CLOEXEC <unfinished ...>\n'
        f'13 openat(AT_FDCWD, "{personal}", O_RDONLY|O_CLOEXEC) = 14\n'
        f'13 openat(AT_FDCWD, "{only}", O_RDONLY) = 15\n'
        f'13 openat(AT_FDCWD, "{tmp_path}/gone/SKILL.md", O_RDONLY) = -1 ENOENT\n'
        "12 <... openat resumed>) = 16\n"
    )
    opened = claude.opened_skill_files(trace)
    assert opened == [str(project), str(personal), str(only)]
    listed = [("dup", "Project copy."), ("only", "x"), ("dataviz", "Charts.")]
    skills, builtin, warnings = claude.match_files(listed, opened)
    assert [s["path"] for s in skills] == [str(project), str(only)]
    assert builtin == [{"name": "dataviz", "description": "Charts."}] and warnings == []
