"""The one way Skill Prism writes a file: a snapshot of the file as read, text edits applied to it,
the same encoding, byte order mark and line ends written back, atomically, with a backup and an
undo journal.

* `Snapshot.read(path)` keeps the bytes read, their SHA-256, size, mtime and mode, the encoding
  (UTF-8, UTF-8 with a BOM, UTF-16 LE/BE with a BOM), the line ending style (LF, CRLF or CR; a
  file with mixed ends keeps every line end it has, new lines get the most common one) and the
  text with every line end read as "\\n" (`Snapshot.text`: what core/document.py splits, so a
  fix's offsets and lines are the diagnostics' own).
* `TextEdit`s are spans of that text and their replacement ("\\n" for a new line);
  `Snapshot.apply` turns them into the file's new bytes, touching nothing outside the spans.
* `write_batch` writes several files as one batch: each is refused (`FileChangedError`, carrying
  the text expected and the text found) when its bytes changed since its snapshot; the previous
  bytes are kept in the backups folder (`backups_dir()`, under XDG_STATE_HOME/skillprism) and the
  batch is recorded in the undo journal, so `undo_last_batch` restores it in one step (refused
  as well for a file changed since the batch wrote it).
* `replace_atomically` is the atomic replace every write uses (the editor's save and
  `report --output` too): a temporary file in the same folder, fsync, os.replace, the mode kept.
"""

from __future__ import annotations

import bisect
import contextlib
import hashlib
import json
import os
import re
import stat
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from skillprism.paths import user_state_dir

_UTF8_BOM = b"\xef\xbb\xbf"
_BOMS = (
    (_UTF8_BOM, "utf-8"),
    (b"\xff\xfe", "utf-16-le"),
    (b"\xfe\xff", "utf-16-be"),
)
_LINE_END = re.compile(r"\r\n|\r|\n")
JOURNAL_NAME = "journal.json"
# Batches the undo journal remembers; older ones keep their backups but can no longer be undone
# in one step.
JOURNAL_DEPTH = 50


class WriteError(Exception):
    """A file that cannot be read as text we can write back, or written: one line for the user."""


class FileChangedError(WriteError):
    """The file's bytes differ from what was read (or what a batch wrote): nothing was written.
    `expected` and `current` are the two texts, for the user to compare."""

    def __init__(self, path: str, expected: str, current: str) -> None:
        super().__init__(f"{path}: changed on disk since it was read; nothing was written")
        self.path = path
        self.expected = expected
        self.current = current


@dataclass(frozen=True, slots=True)
class TextEdit:
    """Replace `Snapshot.text[start:end]` with `new` ("\\n" stands for the file's line end)."""

    start: int
    end: int
    new: str


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _decode(data: bytes, path: str) -> tuple[str, bytes, str]:
    """(encoding, bom, decoded text with the file's own line ends)."""
    used, encoding = next(((b, e) for b, e in _BOMS if data.startswith(b)), (b"", "utf-8"))
    body = data[len(used) :]
    try:
        return encoding, used, body.decode(encoding)
    except UnicodeDecodeError as err:
        raise WriteError(f"{path}: not valid {encoding.upper()} text ({err.reason})") from None


def _dominant_newline(raw: str) -> str:
    counts = Counter(_LINE_END.findall(raw))
    if not counts:
        return "\n"
    # Ties go to the end seen first (Counter keeps insertion order; most_common is stable).
    return counts.most_common(1)[0][0]


@dataclass(frozen=True)
class Snapshot:
    """A file as read (see the module doc). `raw` is the decoded text with its own line ends;
    `text` the same with every line end read as "\\n"."""

    path: str
    data: bytes
    sha256: str
    size: int
    mtime_ns: int
    mode: int
    encoding: str
    bom: bytes
    newline: str
    raw: str
    text: str
    _crlf: tuple[int, ...]  # where in `text` each CRLF of `raw` became one "\n"

    @classmethod
    def read(cls, path: str) -> Snapshot:
        """The file at `path` as it is now; WriteError when it is not a regular text file."""
        path = os.path.abspath(path)
        try:
            st = os.stat(path)
            if not stat.S_ISREG(st.st_mode):
                raise WriteError(f"{path}: not a regular file")
            with open(path, "rb") as fh:
                data = fh.read()
        except OSError as err:
            raise WriteError(f"{path}: cannot be read ({err.strerror or err})") from None
        return cls.from_bytes(path, data, mtime_ns=st.st_mtime_ns, mode=stat.S_IMODE(st.st_mode))

    @classmethod
    def from_bytes(cls, path: str, data: bytes, *, mtime_ns: int = 0, mode: int = 0) -> Snapshot:
        encoding, bom, raw = _decode(data, path)
        crlf = []
        for n, m in enumerate(re.finditer("\r\n", raw)):
            crlf.append(m.start() - n)
        text = raw.replace("\r\n", "\n").replace("\r", "\n")
        return cls(
            path=os.path.abspath(path),
            data=data,
            sha256=sha256(data),
            size=len(data),
            mtime_ns=mtime_ns,
            mode=mode,
            encoding=encoding,
            bom=bom,
            newline=_dominant_newline(raw),
            raw=raw,
            text=text,
            _crlf=tuple(crlf),
        )

    def _raw_offset(self, i: int) -> int:
        # Each CRLF before `i` in `text` is one character longer in `raw`.
        return i + bisect.bisect_left(self._crlf, i)

    def apply(self, edits: Iterable[TextEdit]) -> bytes:
        """The file's bytes with `edits` applied (sorted by position, none overlapping): the same
        encoding and BOM, every untouched byte as it was, new line ends in the file's style."""
        ordered = sorted(edits, key=lambda e: (e.start, e.end))
        out: list[str] = []
        at = 0
        last_end = -1
        for edit in ordered:
            if not (0 <= edit.start <= edit.end <= len(self.text)):
                raise WriteError(f"{self.path}: edit {edit.start}-{edit.end} outside the file")
            if edit.start < last_end:
                raise WriteError(f"{self.path}: edits overlap at {edit.start}")
            start, end = self._raw_offset(edit.start), self._raw_offset(edit.end)
            out.append(self.raw[at:start])
            out.append(edit.new.replace("\n", self.newline))
            at = end
            last_end = edit.end
        out.append(self.raw[at:])
        return self.bom + "".join(out).encode(self.encoding)

    def applied_text(self, edits: Iterable[TextEdit]) -> str:
        """`text` with `edits` applied (line ends read as "\\n")."""
        new = self.apply(edits)
        return Snapshot.from_bytes(self.path, new).text


def _umask() -> int:
    """This process's umask, read without changing it where the system says (Linux); elsewhere
    by setting and restoring it."""
    with (
        contextlib.suppress(OSError, ValueError),
        open("/proc/self/status", encoding="ascii") as fh,
    ):
        for line in fh:
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def new_file_mode() -> int:
    """The mode an ordinary new file gets here (0666 less the umask)."""
    return 0o666 & ~_umask()


def replace_atomically(path: str, data: bytes, mode: int | None = None) -> None:
    """Write `data` to `path` through a temporary file in the same folder, fsync'ed, then
    os.replace: a reader never sees half a file and a failed write leaves the old one alone. The
    file keeps `mode` (default: its current mode, or a new file's mode when there is none)."""
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise WriteError(f"{path}: folder {folder} not found")
    if mode is None:
        try:
            mode = stat.S_IMODE(os.stat(path).st_mode)
        except OSError:
            mode = new_file_mode()
    fd, tmp = tempfile.mkstemp(prefix=".skillprism-", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    # The rename itself is durable once the folder is synced (not possible everywhere).
    with contextlib.suppress(OSError):
        dfd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)


def backups_dir() -> Path:
    """Where the previous bytes of every written file are kept, one folder per batch:
    XDG_STATE_HOME/skillprism/backups (~/.local/state/skillprism/backups)."""
    return user_state_dir() / "backups"


def _journal_path() -> Path:
    return backups_dir() / JOURNAL_NAME


def _read_journal() -> list[dict]:
    try:
        data = json.loads(_journal_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    return [b for b in data if isinstance(b, dict)] if isinstance(data, list) else []


def _write_journal(batches: list[dict]) -> None:
    path = _journal_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    data = json.dumps(batches[-JOURNAL_DEPTH:], indent=1).encode("utf-8")
    replace_atomically(str(path), data, 0o600)


def _current(path: str) -> bytes | None:
    try:
        with open(path, "rb") as fh:
            return fh.read()
    except OSError:
        return None


def _text_of(data: bytes | None, path: str) -> str:
    if data is None:
        return ""
    try:
        return Snapshot.from_bytes(path, data).raw
    except WriteError:
        return data.decode("utf-8", errors="replace")


@dataclass(frozen=True)
class Written:
    """One file a batch wrote, and where its previous bytes are kept."""

    path: str
    backup: str


@dataclass(frozen=True)
class Batch:
    """A batch of writes: its id, its backups folder, the files written and the folders renamed
    (from, to)."""

    id: str
    folder: str
    files: tuple[Written, ...]
    renamed: tuple[tuple[str, str], ...] = ()


def _check_renames(renames: Sequence[tuple[str, str]]) -> None:
    for src, dst in renames:
        if not os.path.isdir(src) or os.path.islink(src):
            raise WriteError(f"{src}: not a folder; nothing was written")
        if os.path.dirname(os.path.abspath(src)) != os.path.dirname(os.path.abspath(dst)):
            raise WriteError(f"{src}: a folder is only renamed in place; nothing was written")
        if os.path.lexists(dst):
            raise WriteError(f"{dst}: already exists; nothing was written")


def write_batch(
    changes: Sequence[tuple[Snapshot, bytes]],
    title: str = "",
    renames: Sequence[tuple[str, str]] = (),
) -> Batch:
    """Write each (snapshot, new bytes) as one batch, then rename each (folder, new name in the
    same parent) of `renames`; recorded for `undo_last_batch`.

    Everything is checked before anything is written: a file whose bytes differ from its
    snapshot raises FileChangedError, a rename onto something that exists WriteError, and
    nothing is written. Files whose new bytes equal the old are left alone."""
    todo = [(snap, new) for snap, new in changes if new != snap.data]
    for snap, _new in todo:
        now = _current(snap.path)
        if now != snap.data:
            raise FileChangedError(snap.path, snap.raw, _text_of(now, snap.path))
    renames = [(os.path.abspath(a), os.path.abspath(b)) for a, b in dict.fromkeys(renames)]
    _check_renames(renames)
    batch_id = time.strftime("%Y%m%d-%H%M%S") + "-" + uuid.uuid4().hex[:8]
    folder = backups_dir() / batch_id
    written: list[Written] = []
    records: list[dict] = []
    if todo:
        folder.mkdir(parents=True, exist_ok=True)
    for n, (snap, new) in enumerate(todo):
        backup = folder / f"{n:04d}-{os.path.basename(snap.path)}"
        replace_atomically(str(backup), snap.data, 0o600)
        # What the batch wrote, so a refused undo can show it beside what is there now.
        replace_atomically(f"{backup}.after", new, 0o600)
        replace_atomically(snap.path, new, snap.mode or None)
        written.append(Written(snap.path, str(backup)))
        records.append(
            {
                "path": snap.path,
                "backup": str(backup),
                "before": snap.sha256,
                "after": sha256(new),
            }
        )
    done: list[tuple[str, str]] = []
    for src, dst in renames:
        os.rename(src, dst)
        done.append((src, dst))
    if records or done:
        batches = _read_journal()
        batches.append(
            {
                "id": batch_id,
                "title": title,
                "time": time.time(),
                "files": records,
                "renames": [list(r) for r in done],
            }
        )
        _write_journal(batches)
    return Batch(batch_id, str(folder), tuple(written), tuple(done))


def last_batch() -> dict | None:
    """The newest batch in the undo journal (id, title, time, files, renames), or None."""
    batches = _read_journal()
    return batches[-1] if batches else None


def _moved(path: str, renames: Sequence[tuple[str, str]]) -> str:
    """Where `path` is after `renames` (folders renamed after the files were written)."""
    for src, dst in renames:
        if path == src or path.startswith(src + os.sep):
            path = dst + path[len(src) :]
    return path


def undo_last_batch() -> Batch | None:
    """Put back the previous bytes of every file the newest batch wrote, and the names of the
    folders it renamed, in one step; None when there is nothing to undo. FileChangedError
    (nothing undone) when any of the files changed since the batch wrote it; WriteError when a
    backup is gone or a renamed folder moved on."""
    batches = _read_journal()
    if not batches:
        return None
    batch = batches[-1]
    renames = [(str(a), str(b)) for a, b in batch.get("renames", [])]
    for src, dst in renames:
        if not os.path.isdir(dst) or os.path.lexists(src):
            raise WriteError(f"{dst}: renamed or replaced since the fix renamed it; nothing undone")
    restores: list[tuple[str, bytes]] = []
    for rec in batch.get("files", []):
        path, backup = str(rec["path"]), str(rec["backup"])
        now_at = _moved(path, renames)
        now = _current(now_at)
        if now is None or sha256(now) != rec["after"]:
            after = _current(f"{backup}.after")
            raise FileChangedError(now_at, _text_of(after, path), _text_of(now, path))
        old = _current(backup)
        if old is None or sha256(old) != rec["before"]:
            raise WriteError(f"{path}: its backup {backup} is missing or changed; nothing undone")
        restores.append((path, old))
    for src, dst in reversed(renames):
        os.rename(dst, src)
    for path, old in restores:
        replace_atomically(path, old)
    _write_journal(batches[:-1])
    return Batch(
        str(batch.get("id", "")),
        str(backups_dir() / str(batch.get("id", ""))),
        tuple(Written(p, "") for p, _o in restores),
        tuple(renames),
    )
