"""Escape sequences from a skill never reach the terminal raw (issue 22, item 6).

`check` spelled control characters out; `where`, `prompt`, `activate`, `resource` and `profiles`
wrote names, descriptions and bodies as they were, so `\\e[2J` cleared the reviewer's screen and
`\\e]0;...\\a` retitled their window. Every command now writes text for people through the one rule
(core/display.py via formats/stream.py, `terminal_text`); the exact text stays available with
`--raw` and in `--format json`.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from skillprism.cli import main
from skillprism.formats import terminal_text

CLEAR = "\x1b[2J"
TITLE = "\x1b]0;pwned\x07"
CSI8 = "\x9b31m"  # the 8-bit CSI: some terminals take it as \x1b[
HOSTILE = (
    "---\nname: demo\n"
    'description: "Demo'
    + CLEAR.replace("\x1b", "\\e")
    + " skill. Use when "
    + TITLE.replace("\x1b", "\\e").replace("\x07", "\\a")
    + ' demoing."\n---\n\n# Demo\n\nRun it.'
    + CLEAR
    + TITLE
    + CSI8
    + "\n\tindented\r\nwindows line\n"
)


def raw_controls(text: str) -> list[str]:
    """Characters a terminal would act on: C0 controls but line breaks and tabs, DEL, C1."""
    text = text.replace("\r\n", "\n")
    return [c for c in text if (ord(c) < 32 and c not in "\n\t") or 0x7F <= ord(c) <= 0x9F]


@pytest.fixture(autouse=True)
def _neutral_cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    monkeypatch.chdir(cwd)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    tree = tmp_path / "tree"
    (tree / "demo").mkdir(parents=True)
    (tree / "demo" / "SKILL.md").write_bytes(HOSTILE.encode("utf-8"))
    # A folder whose very name clears the screen.
    (tree / f"x{CLEAR}y").mkdir()
    (tree / f"x{CLEAR}y" / "SKILL.md").write_text(
        "---\nname: other\ndescription: Other. Use when other.\n---\n\nBody.\n", encoding="utf-8"
    )
    return tree


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    rc = main(list(args))
    out, err = capsys.readouterr()
    return rc, out, err


def test_terminal_text_keeps_lines_and_tabs_and_spells_out_the_rest() -> None:
    assert terminal_text("a\n\tb\r\nc") == "a\n\tb\r\nc"
    assert terminal_text(f"x{CLEAR}y{TITLE}z{CSI8}") == "x\\x1b[2Jy\\x1b]0;pwned\\x07z\\x9b31m"
    assert terminal_text("lone\rreturn") == "lone\\rreturn"
    assert terminal_text("caf\udce9") == "caf\\xe9"  # an undecodable byte, as check shows it
    assert terminal_text("plain text, é, ✓") == "plain text, é, ✓"


@pytest.mark.parametrize(
    "command",
    [
        ["prompt"],
        ["prompt", "--profile", "claude-code"],
        ["activate", "demo"],
        ["activate", "demo", "--as", "user", "--profile", "claude-code"],
        ["resource", "demo", "SKILL.md"],
        ["check"],
    ],
    ids=lambda c: "-".join(c),
)
def test_no_command_writes_raw_escapes(
    capsys: pytest.CaptureFixture[str], tree: Path, command: list[str]
) -> None:
    rc, out, err = run(capsys, *command, os.fspath(tree))
    assert rc in (0, 1), err
    assert raw_controls(out) == [] and raw_controls(err) == []
    assert "\\x1b[2J" in out  # spelled out, not dropped: the reviewer sees it is there


def test_where_spells_out_a_folder_name(capsys: pytest.CaptureFixture[str], tree: Path) -> None:
    for fmt in ("text", "json"):
        rc, out, err = run(capsys, "where", "--format", fmt, os.fspath(tree / f"x{CLEAR}y"))
        assert rc in (0, 1), err
        assert raw_controls(out) == [] and raw_controls(err) == []
    assert f"x{CLEAR}y" in json.loads(out)["skill_file"]  # JSON keeps the exact path


def test_errors_and_notes_are_one_clean_line(
    capsys: pytest.CaptureFixture[str], tree: Path
) -> None:
    rc, out, err = run(capsys, "activate", f"no{CLEAR}such", os.fspath(tree))
    assert rc == 1 and raw_controls(err) == []
    rc, out, err = run(capsys, "check", os.fspath(tree / f"missing{TITLE}"))
    assert rc == 2 and raw_controls(out) == [] and raw_controls(err) == []


def test_a_user_profile_is_escaped_too(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    profile = tmp_path / "evil.toml"
    title = CLEAR.replace("\x1b", "\\u001b")  # TOML's escape: the file itself stays text
    profile.write_text(f'schema = 1\nname = "evil"\ntitle = "Evil{title}"\n', encoding="utf-8")
    rc, out, err = run(capsys, "profiles", os.fspath(profile))
    assert rc == 0, err
    assert raw_controls(out) == [] and "\\x1b[2J" in out
    rc, out, err = run(capsys, "profiles", "--format", "json", os.fspath(profile))
    assert rc == 0 and raw_controls(out) == []
    assert CLEAR in json.loads(out)[0]["title"]


def test_the_exact_text_is_still_available(capsys: pytest.CaptureFixture[str], tree: Path) -> None:
    _, escaped, _ = run(capsys, "prompt", os.fspath(tree))
    _, raw, _ = run(capsys, "prompt", "--raw", os.fspath(tree))
    _, doc, _ = run(capsys, "prompt", "--format", "json", os.fspath(tree))
    assert CLEAR in raw and TITLE in raw and CLEAR not in escaped
    assert raw == json.loads(doc)["text"] + "\n"
    assert terminal_text(raw) == escaped
    _, body, _ = run(capsys, "activate", "demo", "--raw", os.fspath(tree))
    assert CLEAR + TITLE + CSI8 in body
    _, doc, _ = run(capsys, "activate", "demo", "--format", "json", os.fspath(tree))
    assert json.loads(doc)["content"] in body
    _, content, _ = run(capsys, "resource", "demo", "SKILL.md", "--raw", os.fspath(tree))
    assert CLEAR + TITLE + CSI8 in content and "\r\n" in content
    _, shown, _ = run(capsys, "resource", "demo", "SKILL.md", os.fspath(tree))
    assert "\r\n" in shown and terminal_text(content) == shown  # line endings kept
