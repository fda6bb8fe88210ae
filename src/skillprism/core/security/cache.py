"""The security pass's results kept between runs, in the user's cache folder.

Two tables in one SQLite database (`<cache folder>/security-v2.sqlite3`, the cache folder being
`$SKILLPRISM_CACHE_DIR`, else `$XDG_CACHE_HOME/skillprism`, else `~/.cache/skillprism`):

- `files`: the findings of one file, keyed by a hash of the file's bytes, its place in its
  skill (its path there, whether it is the skill file, its executable bit) and the rules'
  version (a hash of the security pass's own source). A file is never scanned twice for the
  same rules, wherever it lies.
- `skills`: what a skill's folder held when it was last scanned (each entry's path and stat:
  inode, size, modification and change times, mode; and its file's key) and the skill's
  findings. A skill whose entries all stat the same, each last changed well before the scan
  recorded them (so two writes within one clock tick cannot look like none), gets its
  findings without reading a file; otherwise only the entries that changed are read, hashed
  and looked up, and only files never seen are scanned.

The database is shared safely by processes writing at once (SQLite's locking, write-ahead log,
a busy timeout; a write that still cannot get the lock is dropped, the cache being only a
cache), survives a write torn by a crash (SQLite's journal), and a damaged file is moved aside
and started anew. Every value carries a checksum checked on reading. The size is bounded
(`SKILLPRISM_CACHE_MAX_MB`, default 128): past it the least recently used rows go.
`SKILLPRISM_NO_CACHE=1` (or `set_enabled(False)`, the CLI's `--no-cache`) bypasses it.
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import marshal
import os
import sys
import threading
import time
import zlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from skillprism.core.containment import absolute
from skillprism.core.security.digest import blake2b

log = logging.getLogger(__name__)

FILE_NAME = "security-v2.sqlite3"
DEFAULT_MAX_MB = 128
# An entry whose change time is less than this before a scan recorded it may change again within
# the same clock tick without its stat showing it: it is re-read next time.
RACY_NS = 2_000_000_000
_FLUSH_ROWS = 1024
# A worker writes what it holds after each job once its oldest unwritten row is this old, so a
# check stopped early (its workers ended without a word) loses no more than about this long of
# a worker's work and the job it was on.
FLUSH_AFTER_S = 0.5
_MISSED_MAX = 100_000
# Files read anew (not known from their skill's record) are asked of the database while such
# questions find something. After this many keys in a row found nowhere (a first check of a
# set, where every question misses and costs more than reading and hashing the file), only one
# call in _PROBE_EVERY asks, and a find there asks again for all. A file not asked about is
# scanned, as after a miss, and its result stored: only a copy of a known file costs a scan.
_MISS_STREAK = 256
_PROBE_EVERY = 16

_enabled: bool | None = None
_store: Store | None = None
_store_pid = 0
_lock = threading.Lock()
# This process's id, renewed in a child made by fork: asked of the store at every skill, where
# os.getpid() would cost a system call each time.
_pid = os.getpid()


def _forked() -> None:
    global _pid
    _pid = os.getpid()


os.register_at_fork(after_in_child=_forked)
_rules_version: bytes | None = None


def cache_folder() -> Path:
    """Where the cache lives (see the module doc)."""
    explicit = os.environ.get("SKILLPRISM_CACHE_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "skillprism"


def enabled() -> bool:
    """Whether the cache is used: not when `set_enabled(False)` said so, nor when
    SKILLPRISM_NO_CACHE is set to anything but '' or '0'."""
    if _enabled is not None:
        return _enabled
    return os.environ.get("SKILLPRISM_NO_CACHE", "") in ("", "0")


def set_enabled(on: bool | None) -> None:
    """Use the cache (True), bypass it (False), or follow SKILLPRISM_NO_CACHE (None)."""
    global _enabled
    _enabled = on


def rules_version() -> bytes:
    """A hash of everything a scan's result depends on besides the file: the security pass's
    own source, the Python version (its parser and Unicode data) and the package version."""
    global _rules_version
    if _rules_version is None:
        from skillprism import __version__

        h = blake2b(digest_size=16)
        h.update(f"{__version__}|{sys.version_info[:2]}|".encode())
        folder = Path(__file__).resolve().parent
        try:
            for path in sorted(folder.glob("*.py")):
                h.update(path.name.encode() + b"\0" + path.read_bytes())
        except OSError:
            pass  # a frozen build holds no sources: its version stands for them
        _rules_version = h.digest()
    return _rules_version


def file_key(
    rel_path: str, is_skill: bool, executable: bool, data: bytes, extra: str = ""
) -> bytes:
    """The key of one file's findings: its bytes, its place in the skill, the rules' version."""
    h = blake2b(rules_version(), digest_size=20)
    h.update(f"{rel_path}\0{int(is_skill)}{int(executable)}\0{extra}\0".encode("utf-8", "replace"))
    h.update(data)
    return h.digest()


def skill_key(skill_dir: str, skill_rel: str, limits: object) -> bytes:
    """The key of a skill folder's record: its place, its skill file and the limits."""
    # (made absolute here, where the working folder is the caller's; once, not per step)
    text = f"{absolute(skill_dir)}\0{skill_rel}\0{_limits_text(limits)}"
    return blake2b(rules_version() + text.encode("utf-8", "replace"), digest_size=20).digest()


# The limits' text by the limits object: the same few objects are asked for every skill a check
# looks up, and a frozen dataclass hashes all its fields at every lookup of an lru_cache.
_LIMITS_TEXTS: dict[int, tuple[object, str]] = {}


def _limits_text(limits: object) -> str:
    known = _LIMITS_TEXTS.get(id(limits))
    if known is not None and known[0] is limits:
        return known[1]
    text = repr(limits)  # (the limits are frozen: one text per object)
    if len(_LIMITS_TEXTS) >= 16:
        _LIMITS_TEXTS.clear()
    _LIMITS_TEXTS[id(limits)] = (limits, text)
    return text


def _checksum(value: bytes) -> bytes:
    # What it catches is damage (a value torn or overwritten), not tampering: the value's length
    # and CRC, far cheaper to check than a hash (a repeated check reads a record per skill).
    return len(value).to_bytes(4, "little") + zlib.crc32(value).to_bytes(4, "little")


def _pack(obj: Any) -> bytes:
    # marshal: plain lists, strings and numbers, many times faster to read back than JSON (a
    # repeated check reads one record per skill); read only after its checksum holds.
    if obj == []:
        return _PACKED_EMPTY  # (most files hold no finding)
    value = marshal.dumps(obj)
    return _checksum(value) + value


_PACKED_EMPTY = _checksum(marshal.dumps([])) + marshal.dumps([])


def _unpack(blob: bytes) -> Any:
    if len(blob) < 8 or _checksum(blob[8:]) != blob[:8]:
        return None
    try:
        return marshal.loads(blob[8:])
    except (ValueError, EOFError, TypeError):
        return None


class Store:
    """One process's connection to the cache database (see the module doc)."""

    def __init__(self, path: Path, max_bytes: int) -> None:
        import sqlite3

        self._sqlite3 = sqlite3
        self.path = path
        self.max_bytes = max_bytes
        self._pending: dict[str, dict[bytes, bytes]] = {"files": {}, "skills": {}}
        self._touched: dict[str, set[bytes]] = {"files": set(), "skills": set()}
        self._today = int(time.time() // 86400)
        self._lock = threading.Lock()
        self._pending_since = 0.0  # when the oldest unwritten row was put (monotonic; 0: none)
        # Skills `get_skills` did not find, until `get_skill` asks for them once more.
        self._missed_skills: set[bytes] = set()
        self._misses_in_row = 0  # keys of files read anew found nowhere, in a row
        self._unasked = 0  # calls for files read anew not asked of the database since the last
        self._db = self._open()

    def _open(self) -> Any:
        sqlite3 = self._sqlite3
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        for attempt in range(2):
            try:
                db = sqlite3.connect(
                    str(self.path), timeout=5.0, isolation_level=None, check_same_thread=False
                )
                db.execute("PRAGMA busy_timeout=5000")
                with contextlib.suppress(sqlite3.DatabaseError):
                    db.execute("PRAGMA journal_mode=WAL")
                db.execute("PRAGMA synchronous=NORMAL")
                db.execute("PRAGMA cache_size=-1024")
                for table in ("files", "skills"):
                    db.execute(
                        f"CREATE TABLE IF NOT EXISTS {table} (key BLOB PRIMARY KEY, "
                        "value BLOB NOT NULL, size INTEGER NOT NULL, used INTEGER NOT NULL)"
                    )
                db.execute("SELECT 1 FROM files LIMIT 1").fetchall()
                return db
            except sqlite3.OperationalError:
                if attempt:
                    raise
                time.sleep(0.05)  # another process is creating it
            except sqlite3.DatabaseError:
                if attempt:
                    raise
                self._set_aside()
        raise sqlite3.DatabaseError("unreachable")  # pragma: no cover

    def _set_aside(self) -> None:
        """A damaged database is moved aside (kept for a look) and a new one started."""
        log.warning("security cache %s is damaged; starting a new one", self.path)
        for suffix in ("", "-wal", "-shm"):
            with contextlib.suppress(OSError):
                os.replace(f"{self.path}{suffix}", f"{self.path}{suffix}.damaged")

    def _select(self, table: str, keys: Sequence[bytes]) -> dict[bytes, Any]:
        out: dict[bytes, Any] = {}
        pending = self._pending[table]
        missing = []
        for k in keys:
            if k in pending:
                out[k] = _unpack(pending[k])
            else:
                missing.append(k)
        for i in range(0, len(missing), 500):
            part = missing[i : i + 500]
            marks = ",".join("?" * len(part))
            try:
                rows = self._db.execute(
                    f"SELECT key, value, used FROM {table} WHERE key IN ({marks})", part
                ).fetchall()
            except self._sqlite3.DatabaseError as err:
                self._damaged(err)
                return out
            for key, value, used in rows:
                got = _unpack(value)
                if got is None:
                    continue  # a damaged value is a miss (and is overwritten)
                out[bytes(key)] = got
                if used < self._today:
                    self._touched[table].add(bytes(key))
        return out

    def _damaged(self, err: Exception) -> None:
        if "malformed" in str(err) or "not a database" in str(err):
            with contextlib.suppress(Exception):
                self._db.close()
            self._set_aside()
            with contextlib.suppress(Exception):
                self._db = self._open()

    def get_skill(self, key: bytes) -> Any:
        with self._lock:
            if key in self._missed_skills:
                # asked for with others a moment ago (a check asks for a job's skills at once,
                # then scans the ones not found): not asked again
                self._missed_skills.discard(key)
                if key not in self._pending["skills"]:
                    return None
            return self._select("skills", [key]).get(key)

    def get_skills(self, keys: Sequence[bytes]) -> dict[bytes, Any]:
        with self._lock:
            found = self._select("skills", list(dict.fromkeys(keys)))
            if len(self._missed_skills) > _MISSED_MAX:
                self._missed_skills.clear()
            self._missed_skills.update(k for k in keys if k not in found)
            return found

    def get_files(self, keys: Sequence[bytes], *, read_anew: bool = False) -> dict[bytes, Any]:
        """The findings of the files whose keys are `keys`, where known. `read_anew`: files
        read because their skill's record did not vouch for them, whose keys are seldom known
        (see _MISS_STREAK): then the database may not be asked, only what this process holds."""
        with self._lock:
            wanted = list(dict.fromkeys(keys))
            if not read_anew:
                return self._select("files", wanted)
            pending = self._pending["files"]
            held = {k: _unpack(pending[k]) for k in wanted if k in pending}
            ask = [k for k in wanted if k not in held]
            if not ask:
                return held
            if self._misses_in_row >= _MISS_STREAK and self._unasked < _PROBE_EVERY - 1:
                self._unasked += 1
                return held
            self._unasked = 0
            found = self._select("files", ask)
            self._misses_in_row = 0 if found else self._misses_in_row + len(ask)
            return held | found

    def put(self, table: str, key: bytes, value: Any) -> None:
        with self._lock:
            self._pending[table][key] = _pack(value)
            n = len(self._pending["files"]) + len(self._pending["skills"])
            if not self._pending_since:
                self._pending_since = time.monotonic()
        if n >= _FLUSH_ROWS:
            self.flush()

    def flush(self, older_than: float = 0.0) -> None:
        """Write what is pending in one transaction (dropped if the lock cannot be had); with
        `older_than`, only once the oldest row pending has waited that many seconds (rows only
        marked as used wait for the next write)."""
        with self._lock:
            if older_than and (
                not self._pending_since or time.monotonic() - self._pending_since < older_than
            ):
                return
            self._pending_since = 0.0
            rows = {t: dict(p) for t, p in self._pending.items()}
            touched = {t: set(s) for t, s in self._touched.items()}
            for p in self._pending.values():
                p.clear()
            for s in self._touched.values():
                s.clear()
            if not any(rows.values()) and not any(touched.values()):
                return
            try:
                self._db.execute("BEGIN IMMEDIATE")
                for table, items in rows.items():
                    self._db.executemany(
                        f"INSERT OR REPLACE INTO {table} (key, value, size, used) "
                        "VALUES (?, ?, ?, ?)",
                        [(k, v, len(v) + len(k) + 32, self._today) for k, v in items.items()],
                    )
                for table, keys in touched.items():
                    self._db.executemany(
                        f"UPDATE {table} SET used = ? WHERE key = ?",
                        [(self._today, k) for k in keys],
                    )
                self._db.execute("COMMIT")
            except self._sqlite3.DatabaseError as err:
                with contextlib.suppress(Exception):
                    self._db.execute("ROLLBACK")
                log.info("security cache not written: %s", err)
                self._damaged(err)
                return
            if any(rows.values()):
                self._bound()

    def _bound(self) -> None:
        """Keep the database under its size: the least recently used rows go first."""
        try:
            on_disk = sum(
                os.stat(f"{self.path}{suffix}").st_size
                for suffix in ("", "-wal")
                if os.path.exists(f"{self.path}{suffix}")
            )
        except OSError:
            on_disk = self.max_bytes + 1
        if on_disk <= self.max_bytes:
            return  # (the files hold at least what the rows add up to: no need to add them)
        try:
            total = sum(
                self._db.execute(f"SELECT COALESCE(SUM(size), 0) FROM {t}").fetchone()[0]
                for t in ("files", "skills")
            )
            if total <= self.max_bytes:
                return
            target = total - int(self.max_bytes * 0.8)
            self._db.execute("BEGIN IMMEDIATE")
            for table in ("files", "skills"):
                rows = self._db.execute(
                    f"SELECT key, size FROM {table} ORDER BY used LIMIT 100000"
                ).fetchall()
                drop = []
                for key, size in rows:
                    if target <= 0:
                        break
                    drop.append((key,))
                    target -= size
                self._db.executemany(f"DELETE FROM {table} WHERE key = ?", drop)
            self._db.execute("COMMIT")
            self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            self._db.execute("VACUUM")
        except self._sqlite3.DatabaseError as err:
            with contextlib.suppress(Exception):
                self._db.execute("ROLLBACK")
            log.info("security cache not trimmed: %s", err)

    def close(self) -> None:
        self.flush()
        with contextlib.suppress(Exception):
            self._db.close()


def store() -> Store | None:
    """This process's store, opened on first use; None when the cache is bypassed or cannot be
    opened (then every scan runs afresh). A process made by fork opens its own."""
    global _store, _store_pid
    if not enabled():
        return None
    pid = _pid
    known = _store
    if known is not None and _store_pid == pid:
        return known
    with _lock:
        if _store is not None and _store_pid == pid:
            return _store
        try:
            max_mb = float(os.environ.get("SKILLPRISM_CACHE_MAX_MB", DEFAULT_MAX_MB))
        except ValueError:
            max_mb = DEFAULT_MAX_MB
        try:
            _store = Store(cache_folder() / FILE_NAME, int(max(0.01, max_mb) * 1024 * 1024))
        except Exception as err:  # an unwritable home, a locked or foreign file: no cache
            log.info("security cache unavailable: %s", err)
            _store = None
            return None
        _store_pid = pid
        return _store


def flush(older_than: float = 0.0) -> None:
    """Write this process's pending results (the check calls it once its scans are done; a
    worker after each job, `older_than` FLUSH_AFTER_S)."""
    s = _store
    if s is not None and _store_pid == _pid:
        s.flush(older_than)


def close() -> None:
    """Write what is pending and let go of the database (tests and forked workers use it)."""
    global _store
    s = _store
    if s is not None and _store_pid == _pid:
        s.close()
    _store = None


atexit.register(flush)
