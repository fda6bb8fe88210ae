"""Tier 3: every escape attempt is refused with a diagnostic, and no file outside the skill folder is
opened (an audit hook records every open and directory listing while the calls run)."""

from __future__ import annotations

import contextlib
import os
import struct
import sys
import zlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from skillprism.core.codes import CODES
from skillprism.core.resources import list_resources
from skillprism.core.tier3 import (
    ResourceResult,
    grouped_listing,
    resolve_reference,
    resolve_skill_url,
)

# --- the audit hook: installed once (hooks cannot be removed), inert unless a test switches it on ---

_AUDIT: dict[str, object] = {"on": False, "seen": []}
_WATCHED = {"open", "os.scandir", "os.listdir", "os.readlink"}


def _hook(event: str, args: tuple[object, ...]) -> None:
    if not _AUDIT["on"] or event not in _WATCHED:
        return
    try:
        path = args[0] if args else None
        if isinstance(path, bytes):
            path = os.fsdecode(path)
        if isinstance(path, (str, os.PathLike)):
            _AUDIT["seen"].append((event, os.fspath(path)))  # type: ignore[union-attr]
        elif path is not None and not isinstance(path, int):
            _AUDIT["seen"].append((event, repr(path)))  # type: ignore[union-attr]
    except Exception:  # an audit hook must never break the event it watches
        pass


sys.addaudithook(_hook)


@contextlib.contextmanager
def audited() -> Iterator[list[tuple[str, str]]]:
    seen: list[tuple[str, str]] = []
    _AUDIT["seen"], _AUDIT["on"] = seen, True
    try:
        yield seen
    finally:
        _AUDIT["on"] = False


def _assert_inside(seen: list[tuple[str, str]], skill: Path) -> None:
    root = os.path.realpath(skill)
    for event, path in seen:
        real = os.path.realpath(path)
        assert real == root or real.startswith(root + os.sep), f"{event} outside: {path}"


def _png(width: int, height: int) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    raw = b"".join(b"\x00" + b"\x00" * width for _ in range(height))
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", ihdr)
        + chunk(b"IDAT", zlib.compress(raw))
        + chunk(b"IEND", b"")
    )


@pytest.fixture()
def tree(tmp_path: Path) -> dict[str, Path]:
    outside = tmp_path / "outside"
    (outside / "dir").mkdir(parents=True)
    (outside / "secret.txt").write_text("SECRET")
    (outside / "dir" / "file.txt").write_text("SECRET TOO")
    skills = tmp_path / "skills"
    demo = skills / "demo"
    for sub in ("scripts", "references", "assets"):
        (demo / sub).mkdir(parents=True)
    (demo / "SKILL.md").write_text(
        "---\nname: demo\ndescription: d\n---\nSee references/guide.md\n"
    )
    (demo / "references" / "guide.md").write_text("# Guide\n\nStep one.\n")
    (demo / "references" / "my notes.md").write_text("notes\n")
    (demo / "scripts" / "run.py").write_text("print('hi')\n")
    (demo / "assets" / "logo.png").write_bytes(_png(3, 2))
    (demo / "assets" / "big.txt").write_text("é" * 200_000)  # 400,000 bytes of 2-byte chars
    (demo / "assets" / "latin1.txt").write_bytes(b"caf\xe9\n")
    refs = demo / "references"
    os.symlink("guide.md", refs / "link-in.md")  # stays inside: fine
    os.symlink("/etc/passwd", refs / "passwd")
    os.symlink("../../../outside/secret.txt", refs / "leak.md")
    os.symlink(str(outside / "secret.txt"), refs / "leak-abs.md")
    # chain leaving and coming back: demo/references/chain -> outside/back -> demo/references/guide.md
    os.symlink(str(refs / "guide.md"), outside / "back")
    os.symlink("../../../outside/back", refs / "chain.md")
    os.symlink("../../outside/dir", demo / "outdir")  # a symlinked folder pointing outside
    os.symlink("references", demo / "refs")  # a symlinked folder inside: fine
    os.symlink(str(refs / "guide.md"), demo / "abs-in.md")  # absolute target inside: fine
    os.symlink("loop-b", demo / "loop-a")
    os.symlink("loop-a", demo / "loop-b")
    os.symlink("references/../../../outside/secret.txt", demo / "sneaky.md")
    os.mkfifo(demo / "pipe")
    other = skills / "other-skill"
    other.mkdir()
    (other / "SKILL.md").write_text("---\nname: other-skill\ndescription: o\n---\n")
    (skills / "x").write_text("sibling file, outside both skills")
    return {"demo": demo, "other": other, "outside": outside, "skills": skills}


def _code(result: ResourceResult) -> str:
    assert result.refusal is not None
    return result.refusal.code


ESCAPES: list[tuple[str, str]] = [
    # (reference, expected code)
    ("", "SP505"),
    ("   ", "SP505"),
    ("#only-a-fragment", "SP505"),
    ("guide.md\x00.png", "SP505"),
    ("references/%00", "SP505"),
    ("references/guide.md%2500", "SP505"),
    ("a\nb", "SP505"),
    ("/etc/passwd", "SP502"),
    ("%2fetc%2fpasswd", "SP502"),
    ("\\etc\\passwd", "SP502"),
    ("//server/share/x", "SP502"),
    ("\\\\server\\share\\x", "SP502"),
    ("%5c%5cserver%5cshare", "SP502"),
    ("C:\\Windows\\win.ini", "SP502"),
    ("C:/Windows/win.ini", "SP502"),
    ("C:foo", "SP502"),
    ("C%3a%5cWindows", "SP502"),
    ("~/.ssh/id_rsa", "SP502"),
    ("~root/.bashrc", "SP502"),
    ("\uff0fetc\uff0fpasswd", "SP502"),  # full-width solidus folds to '/'
    ("\u2215etc\u2215passwd", "SP502"),  # division slash looks like '/'
    ("..", "SP503"),
    ("../outside/secret.txt", "SP503"),
    ("../../outside/secret.txt", "SP503"),
    ("references/../../outside/secret.txt", "SP503"),
    ("references/../guide.md", "SP503"),  # stays inside, still refused: no '..' at all
    ("..\\..\\outside\\secret.txt", "SP503"),
    ("references\\..\\..\\x", "SP503"),
    ("%2e%2e/outside/secret.txt", "SP503"),
    ("%2E%2E%2Foutside%2Fsecret.txt", "SP503"),
    (".%2e/x", "SP503"),
    ("%2e./x", "SP503"),
    ("..%2f..%2foutside", "SP503"),
    ("..%5c..%5coutside", "SP503"),
    ("%252e%252e/x", "SP503"),  # double-encoded
    ("%252e%252e%252fx", "SP503"),
    ("%25252e%25252e/x", "SP503"),  # triple-encoded
    ("%2525252e%2525252e/x", "SP505"),  # encoded four times: refused as such
    ("\uff0e\uff0e/outside/secret.txt", "SP503"),  # full-width dots
    ("..\u2215outside", "SP503"),
    ("\uff0e\uff0e\u2215x", "SP503"),
    ("...", "SP503"),
    (".. /x", "SP503"),
    ("%c0%ae%c0%ae/x", "SP501"),  # overlong UTF-8 decodes to U+FFFD: a literal, missing name
    ("references/passwd", "SP503"),  # symlink to /etc/passwd
    ("references/leak.md", "SP503"),
    ("references/leak-abs.md", "SP503"),
    ("references/chain.md", "SP503"),  # leaves and comes back
    ("sneaky.md", "SP503"),
    ("outdir", "SP503"),
    ("outdir/file.txt", "SP503"),
    ("refs/../../x", "SP503"),
    ("loop-a", "SP509"),
    ("pipe", "SP509"),
    ("references/nope.md", "SP501"),
    ("references/guide.md/x", "SP501"),
]


def test_escape_table_is_large_enough() -> None:
    assert len(ESCAPES) >= 30
    for _, code in ESCAPES:
        assert code in CODES


@pytest.mark.parametrize(("reference", "code"), ESCAPES, ids=[repr(r) for r, _ in ESCAPES])
def test_escape_attempt_is_refused_and_nothing_outside_is_opened(
    tree: dict[str, Path], reference: str, code: str
) -> None:
    demo = tree["demo"]
    with audited() as seen:
        result = resolve_reference(str(demo), reference, skill_name="demo")
        listed = resolve_reference(str(demo), reference, only_listed=True)
    assert not result.ok and result.refused
    assert _code(result) == code, result.refusal
    assert result.content is None and result.path is None
    assert result.refusal is not None and result.refusal.message and result.refusal.hint
    assert not listed.ok
    _assert_inside(seen, demo)
    outside = os.path.realpath(tree["outside"])
    assert not any(os.path.realpath(p).startswith(outside) for _, p in seen)


def test_audit_hook_catches_an_outside_open(tree: dict[str, Path]) -> None:
    with audited() as seen:
        (tree["outside"] / "secret.txt").read_text()
        os.close(os.open(tree["outside"] / "secret.txt", os.O_RDONLY))
    assert len([e for e, _ in seen if e == "open"]) == 2
    with pytest.raises(AssertionError):
        _assert_inside(seen, tree["demo"])


def test_fifo_is_never_opened(tree: dict[str, Path]) -> None:
    with audited() as seen:
        result = resolve_reference(str(tree["demo"]), "pipe")
    assert _code(result) == "SP509"
    assert not [p for e, p in seen if e == "open"]


URL_ESCAPES: list[tuple[str, str]] = [
    ("skill://other-skill/../x", "SP503"),
    ("skill://other-skill/..", "SP503"),
    ("skill://demo/../other-skill/SKILL.md", "SP503"),
    ("skill://demo/%2e%2e/other-skill/SKILL.md", "SP503"),
    ("skill://demo/%252e%252e/x", "SP503"),
    ("skill://demo/..%2F..%2Foutside%2Fsecret.txt", "SP503"),
    ("skill://demo/references/leak.md", "SP503"),
    ("skill://demo//etc/passwd", "SP502"),
    ("skill://demo/C:/Windows", "SP502"),
    ("skill://demo\\..\\other-skill", "SP510"),
    ("skill://Demo/references/guide.md", "SP510"),  # the name must match exactly
    ("skill://de%6do/references/guide.md", "SP510"),
    ("skill:///etc/passwd", "SP510"),
    ("skill://", "SP510"),
    ("skill:demo", "SP510"),
    ("file:///etc/passwd", "SP510"),
    ("skill://../outside", "SP510"),
    ("skill://demo/references/nope.md", "SP501"),
]


@pytest.mark.parametrize(("url", "code"), URL_ESCAPES, ids=[u for u, _ in URL_ESCAPES])
def test_skill_url_escape_is_refused(tree: dict[str, Path], url: str, code: str) -> None:
    skills = {"demo": str(tree["demo"]), "other-skill": str(tree["other"])}
    with audited() as seen:
        result = resolve_skill_url(url, skills)
    assert not result.ok
    assert _code(result) == code, result.refusal
    assert result.reference == url
    for event, path in seen:
        real = os.path.realpath(path)
        assert any(
            real.startswith(os.path.realpath(d) + os.sep) or real == os.path.realpath(d)
            for d in skills.values()
        ), f"{event} outside: {path}"


# --- happy paths ------------------------------------------------------------------------------------


def test_markdown_reference_reads_with_cost(tree: dict[str, Path]) -> None:
    demo = tree["demo"]
    with audited() as seen:
        result = resolve_reference(
            str(demo), "references/guide.md#step", skill_name="demo", count_tokens=len
        )
    assert result.ok and not result.refused
    assert result.content == "# Guide\n\nStep one.\n"
    assert result.media_type == "text/markdown"
    assert result.kind == "text" and not result.truncated
    assert result.chars == len(result.content) == result.tokens
    assert result.size == len(result.content.encode())
    assert result.path == os.path.realpath(demo / "references" / "guide.md")
    assert result.url == "skill://demo/references/guide.md"
    assert ("open", result.path) in seen  # the hook does see opens
    _assert_inside(seen, demo)


def test_plain_text_media_type_and_no_token_counter(tree: dict[str, Path]) -> None:
    result = resolve_reference(str(tree["demo"]), "./scripts//run.py")
    assert result.ok and result.media_type == "text/plain"
    assert result.rel_path == "scripts/run.py"
    assert result.tokens is None and result.chars == len("print('hi')\n")


def test_percent_encoded_space_is_decoded_once(tree: dict[str, Path]) -> None:
    result = resolve_reference(str(tree["demo"]), "references/my%20notes.md")
    assert result.ok and result.content == "notes\n"


def test_symlinks_that_stay_inside_are_followed(tree: dict[str, Path]) -> None:
    demo = tree["demo"]
    for ref in ("references/link-in.md", "refs/guide.md", "abs-in.md"):
        with audited() as seen:
            result = resolve_reference(str(demo), ref)
        assert result.ok, (ref, result.refusal)
        assert result.content == "# Guide\n\nStep one.\n"
        assert result.path == os.path.realpath(demo / "references" / "guide.md")
        _assert_inside(seen, demo)


def test_png_is_described_not_shown(tree: dict[str, Path]) -> None:
    result = resolve_reference(str(tree["demo"]), "assets/logo.png", count_tokens=len)
    assert result.ok and result.kind == "binary" and result.content is None
    assert result.description.startswith("PNG image 3x2, ")
    assert result.chars == 0 and result.tokens == 0
    assert [n.code for n in result.notes] == ["SP507"]


def test_invalid_utf8_is_binary(tree: dict[str, Path]) -> None:
    result = resolve_reference(str(tree["demo"]), "assets/latin1.txt")
    assert result.ok and result.content is None and "invalid UTF-8" in result.description


def test_large_file_is_truncated_with_a_note(tree: dict[str, Path]) -> None:
    result = resolve_reference(str(tree["demo"]), "assets/big.txt", max_bytes=1001)
    assert result.ok and result.truncated and result.kind == "text"
    assert result.content == "é" * 500  # the split 2-byte character is held back
    assert result.size == 400_000
    assert [n.code for n in result.notes] == ["SP508"]


def test_directory_gives_a_listing(tree: dict[str, Path]) -> None:
    demo = tree["demo"]
    with audited() as seen:
        result = resolve_reference(str(demo), "references")
    assert result.ok and result.kind == "directory"
    names = [r.rel_path for r in result.listing]
    assert "references/guide.md" in names and "scripts/run.py" not in names
    assert "references/guide.md" in (result.content or "")
    _assert_inside(seen, demo)
    root = resolve_reference(str(demo), ".")
    assert root.ok and root.kind == "directory" and "scripts/run.py" in (root.content or "")


def test_only_listed_serves_discovered_files_only(tree: dict[str, Path]) -> None:
    demo = tree["demo"]
    discovered = list_resources(str(demo))
    (demo / "references" / "late.md").write_text("added after discovery\n")
    ok = resolve_reference(str(demo), "references/guide.md", only_listed=True, listing=discovered)
    assert ok.ok
    late = resolve_reference(str(demo), "references/late.md", only_listed=True, listing=discovered)
    assert _code(late) == "SP506"
    assert resolve_reference(str(demo), "references/late.md").ok  # without the rule: readable
    skill_md = resolve_reference(str(demo), "SKILL.md", only_listed=True)
    assert _code(skill_md) == "SP506"  # SKILL.md is loaded by activation, not as a resource


def test_skill_url_reads_skill_file_and_resources(tree: dict[str, Path]) -> None:
    skills = {"demo": str(tree["demo"]), "other-skill": str(tree["other"])}
    main = resolve_skill_url("skill://demo", skills, only_listed=True)
    assert main.ok and main.media_type == "text/markdown" and main.content
    assert main.content.startswith("---\nname: demo")
    inner = resolve_skill_url("skill://demo/references/guide.md", skills)
    assert inner.ok and inner.content == "# Guide\n\nStep one.\n"
    assert inner.reference == "skill://demo/references/guide.md"
    spaced = resolve_skill_url("skill://demo/references/my%20notes.md", skills)
    assert spaced.ok


def test_grouped_listing(tree: dict[str, Path]) -> None:
    groups = grouped_listing(str(tree["demo"]))
    assert [r.rel_path for r in groups["scripts"]] == ["scripts/run.py"]
    assert "references/guide.md" in [r.rel_path for r in groups["references"]]
    assert "assets/logo.png" in [r.rel_path for r in groups["assets"]]
    escaping = {r.rel_path for g in groups.values() for r in g if r.escapes}
    assert "references/passwd" in escaping


def test_refusal_is_a_diagnostic(tree: dict[str, Path]) -> None:
    result = resolve_reference(str(tree["demo"]), "../x", skill_name="demo")
    diag = result.refusal
    assert diag is not None
    assert diag.code == "SP503" and diag.severity == "error"
    assert diag.message.startswith("demo: ") and diag.effect and diag.hint
    assert diag.to_json()["code"] == "SP503"


def test_missing_file_says_file_not_found(tree: dict[str, Path]) -> None:
    result = resolve_reference(str(tree["demo"]), "references/nope.md")
    assert result.refusal is not None and "File not found" in result.refusal.message
