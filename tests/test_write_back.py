"""The one writer (core/write_back.py): snapshots keep encoding, BOM and line ends; edits touch
only their spans; a file changed since it was read is refused with both texts; the replace is
atomic and keeps the mode; every batch has a backup and is undone in one step, refused as well
when the file changed since."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from skillprism.app.workspace import WorkspaceError, write_atomically
from skillprism.core import write_back
from skillprism.core.write_back import (
    FileChangedError,
    Snapshot,
    TextEdit,
    WriteError,
    backups_dir,
    replace_atomically,
    undo_last_batch,
    write_batch,
)


@pytest.mark.parametrize(
    ("data", "encoding", "bom", "newline"),
    [
        (b"a\nb\n", "utf-8", b"", "\n"),
        (b"a\r\nb\r\n", "utf-8", b"", "\r\n"),
        (b"a\rb\r", "utf-8", b"", "\r"),
        (b"\xef\xbb\xbfa\nb\n", "utf-8", b"\xef\xbb\xbf", "\n"),
        ("\ufeffa\r\nb\r\n".encode("utf-16-le"), "utf-16-le", b"\xff\xfe", "\r\n"),
        ("\ufeffa\nb\n".encode("utf-16-be"), "utf-16-be", b"\xfe\xff", "\n"),
    ],
)
def test_snapshot_reads_encoding_bom_and_line_ends(
    tmp_path: Path, data: bytes, encoding: str, bom: bytes, newline: str
) -> None:
    f = tmp_path / "SKILL.md"
    f.write_bytes(data)
    snap = Snapshot.read(str(f))
    assert (snap.encoding, snap.bom, snap.newline) == (encoding, bom, newline)
    assert snap.text == "a\nb\n"
    assert snap.size == len(data) and snap.sha256 == write_back.sha256(data)
    # An edit on the "\n" text comes back in the file's encoding, BOM and line ends.
    new = snap.apply([TextEdit(2, 3, "B\nC")])
    assert new == bom + (("a" + newline + "B" + newline + "C" + newline).encode(encoding))


def test_mixed_line_ends_are_kept_and_new_lines_take_the_most_common(tmp_path: Path) -> None:
    f = tmp_path / "x.md"
    f.write_bytes(b"one\r\ntwo\nthree\r\nfour\r\n")
    snap = Snapshot.read(str(f))
    assert snap.newline == "\r\n"
    at = snap.text.index("three")
    new = snap.apply([TextEdit(at, at, "new\n")])
    assert new == b"one\r\ntwo\nnew\r\nthree\r\nfour\r\n"


def test_edits_after_crlf_lines_land_on_the_right_bytes(tmp_path: Path) -> None:
    f = tmp_path / "x.md"
    f.write_bytes(b"a: 1\r\nb: 2\r\nc: 3\r\n")
    snap = Snapshot.read(str(f))
    at = snap.text.index("3")
    assert snap.apply([TextEdit(at, at + 1, "x")]) == b"a: 1\r\nb: 2\r\nc: x\r\n"
    # an edit ending at a line end takes the whole CRLF
    end = snap.text.index("\n", snap.text.index("b:")) + 1
    start = snap.text.index("b:")
    assert snap.apply([TextEdit(start, end, "")]) == b"a: 1\r\nc: 3\r\n"


def test_overlapping_or_outside_edits_are_refused(tmp_path: Path) -> None:
    f = tmp_path / "x.md"
    f.write_text("abcdef")
    snap = Snapshot.read(str(f))
    with pytest.raises(WriteError, match="overlap"):
        snap.apply([TextEdit(0, 3, "x"), TextEdit(2, 4, "y")])
    with pytest.raises(WriteError, match="outside"):
        snap.apply([TextEdit(5, 9, "x")])


def test_text_that_cannot_be_written_back_is_refused(tmp_path: Path) -> None:
    f = tmp_path / "x.md"
    f.write_bytes(b"caf\xe9\n")
    with pytest.raises(WriteError, match="not valid UTF-8"):
        Snapshot.read(str(f))
    with pytest.raises(WriteError, match="not a regular file"):
        Snapshot.read(str(tmp_path))


def test_write_refused_when_the_file_changed_since_it_was_read(tmp_path: Path) -> None:
    f = tmp_path / "SKILL.md"
    f.write_text("name: a\n")
    snap = Snapshot.read(str(f))
    f.write_text("name: b\n")  # someone else saved meanwhile
    with pytest.raises(FileChangedError) as err:
        write_batch([(snap, snap.apply([TextEdit(6, 7, "c")]))])
    assert err.value.expected == "name: a\n"
    assert err.value.current == "name: b\n"
    assert f.read_text() == "name: b\n"
    assert not backups_dir().exists() or not any(backups_dir().iterdir())


def test_write_is_atomic_keeps_mode_and_backs_up(tmp_path: Path) -> None:
    f = tmp_path / "SKILL.md"
    f.write_bytes(b"\xef\xbb\xbfa\r\nb\r\n")
    os.chmod(f, 0o640)
    snap = Snapshot.read(str(f))
    batch = write_batch([(snap, snap.apply([TextEdit(0, 1, "A")]))], "test")
    assert f.read_bytes() == b"\xef\xbb\xbfA\r\nb\r\n"
    assert stat.S_IMODE(f.stat().st_mode) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["SKILL.md"]  # no temporary left
    assert len(batch.files) == 1
    backup = Path(batch.files[0].backup)
    assert backup.read_bytes() == b"\xef\xbb\xbfa\r\nb\r\n"
    assert backup.is_relative_to(Path(os.environ["XDG_STATE_HOME"]) / "skillprism" / "backups")
    assert write_back.last_batch()["title"] == "test"


def test_undo_restores_the_batch_in_one_step(tmp_path: Path) -> None:
    files = []
    for name in ("a", "b"):
        f = tmp_path / name / "SKILL.md"
        f.parent.mkdir()
        f.write_bytes(f"name: {name}\r\n".encode())
        files.append(f)
    snaps = [Snapshot.read(str(f)) for f in files]
    write_batch([(s, s.apply([TextEdit(6, 7, "z")])) for s in snaps])
    assert [f.read_bytes() for f in files] == [b"name: z\r\n", b"name: z\r\n"]
    undone = undo_last_batch()
    assert undone is not None and len(undone.files) == 2
    assert [f.read_bytes() for f in files] == [b"name: a\r\n", b"name: b\r\n"]
    assert undo_last_batch() is None  # nothing left to undo


def test_undo_refused_after_a_later_change(tmp_path: Path) -> None:
    a, b = tmp_path / "a.md", tmp_path / "b.md"
    a.write_text("one\n")
    b.write_text("two\n")
    snaps = [Snapshot.read(str(a)), Snapshot.read(str(b))]
    write_batch([(s, s.apply([TextEdit(0, 0, "#")])) for s in snaps])
    b.write_text("#two edited by hand\n")
    with pytest.raises(FileChangedError) as err:
        undo_last_batch()
    assert err.value.expected == "#two\n" and err.value.current == "#two edited by hand\n"
    # nothing was undone, not even the file that did not change
    assert a.read_text() == "#one\n"
    assert b.read_text() == "#two edited by hand\n"


def test_unchanged_files_are_not_written(tmp_path: Path) -> None:
    f = tmp_path / "x.md"
    f.write_text("same\n")
    snap = Snapshot.read(str(f))
    batch = write_batch([(snap, snap.data)])
    assert batch.files == () and write_back.last_batch() is None


def test_replace_atomically_leaves_the_old_file_when_it_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    f = tmp_path / "x.md"
    f.write_text("old")

    def fail(src: str, dst: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(write_back.os, "replace", fail)
    with pytest.raises(OSError):
        replace_atomically(str(f), b"new")
    assert f.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.md"]
    with pytest.raises(WriteError, match="not found"):
        replace_atomically(str(tmp_path / "missing" / "x.md"), b"new")


def test_write_atomically_goes_through_the_one_writer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = []
    real = write_back.replace_atomically

    def spy(path: str, data: bytes, mode: int | None = None) -> None:
        calls.append(path)
        real(path, data, mode)

    monkeypatch.setattr("skillprism.app.workspace.replace_atomically", spy)
    out = tmp_path / "r.md"
    write_atomically(str(out), "text\n")
    assert calls == [str(out)] and out.read_text() == "text\n"
    with pytest.raises(WorkspaceError, match="not found"):
        write_atomically(str(tmp_path / "nope" / "r.md"), "x")


def test_renames_are_checked_first_written_last_and_undone(tmp_path: Path) -> None:
    old, new = tmp_path / "old_name", tmp_path / "new-name"
    old.mkdir()
    f = old / "SKILL.md"
    f.write_text("name: old_name\n")
    snap = Snapshot.read(str(f))
    change = (snap, snap.apply([TextEdit(6, 14, "new-name")]))
    new.mkdir()  # the target is taken: nothing is written
    with pytest.raises(WriteError, match="already exists"):
        write_batch([change], renames=[(str(old), str(new))])
    assert f.read_text() == "name: old_name\n"
    new.rmdir()
    batch = write_batch([change], renames=[(str(old), str(new))])
    assert batch.renamed == ((str(old), str(new)),)
    assert not old.exists() and (new / "SKILL.md").read_text() == "name: new-name\n"
    undo = undo_last_batch()
    assert undo is not None and undo.renamed == ((str(old), str(new)),)
    assert not new.exists() and f.read_text() == "name: old_name\n"


def test_undo_of_a_rename_refused_when_the_folder_moved_on(tmp_path: Path) -> None:
    old, new = tmp_path / "a_b", tmp_path / "a-b"
    old.mkdir()
    (old / "SKILL.md").write_text("x\n")
    write_batch([], renames=[(str(old), str(new))])
    new.rename(tmp_path / "elsewhere")
    with pytest.raises(WriteError, match="renamed or replaced"):
        undo_last_batch()
    assert (tmp_path / "elsewhere" / "SKILL.md").exists() and not old.exists()
