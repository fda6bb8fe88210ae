"""Reading a file the scan listed as regular skips the stat before opening (document.
read_bytes_safely(regular=True)); whatever is at the path by then, the outcome is the same as the
checked route's, and nothing blocks."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from skillprism.core.document import parse_document, read_bytes_safely
from skillprism.core.scan import search


def _same(path: str) -> None:
    fast = read_bytes_safely(path, regular=True)
    checked = read_bytes_safely(path)
    assert fast[0] == checked[0]
    assert (fast[2].rule if fast[2] else None) == (checked[2].rule if checked[2] else None)
    if fast[1] is not None and checked[1] is not None:
        assert (fast[1].st_size, fast[1].st_mtime_ns) == (
            checked[1].st_size,
            checked[1].st_mtime_ns,
        )


def test_regular_file(tmp_path: Path) -> None:
    f = tmp_path / "SKILL.md"
    f.write_bytes(b"---\nname: a\ndescription: b\n---\nbody\n")
    _same(str(f))
    assert parse_document(str(f), regular=True) == parse_document(str(f))


def test_missing_too_large_and_symlinked(tmp_path: Path) -> None:
    _same(str(tmp_path / "missing.md"))
    big = tmp_path / "big.md"
    big.write_bytes(b"x" * 100)
    fast = read_bytes_safely(str(big), cap=10, regular=True)
    assert fast[0] is None and fast[2] is not None and fast[2].rule == "file-too-large"
    link = tmp_path / "link.md"
    link.symlink_to(big)  # swapped in after a listing said "regular": followed as before
    _same(str(link))
    dangling = tmp_path / "dangling.md"
    dangling.symlink_to(tmp_path / "nowhere")
    _same(str(dangling))


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_is_never_read_and_never_blocks(tmp_path: Path) -> None:
    fifo = tmp_path / "SKILL.md"
    os.mkfifo(fifo)
    data, _st, problem = read_bytes_safely(str(fifo), regular=True)
    assert data is None and problem is not None and problem.rule == "not-regular-file"


def test_the_scan_marks_only_plain_regular_files(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "SKILL.md").write_text("---\nname: a\n---\n")
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "SKILL.md").symlink_to(tmp_path / "a" / "SKILL.md")
    found = {f.parts[0]: f.regular for f in search(str(tmp_path)).files}
    assert found == {"a": True, "b": False}
