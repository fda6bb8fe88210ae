"""One skill's security scan: walk its folder safely, reuse what the cache knows, read and scan
only the files it does not.

A skill whose folder stats as it did at the last scan gets that scan's findings without a file
being read (cache.py says when a stat can be trusted). Otherwise each file is read once (binary
files only their first bytes, files larger than the inline bound in windows), hashed, looked up,
and only a file never seen with these rules is scanned (analysis.py, loaded on the first such
file: a check whose every file is known never loads the rules). What a bound leaves unread is a
warning naming it.

Text a runtime or a shell would decode is decoded first: a script saved as UTF-16 or UTF-32
(with a byte-order mark, or UTF-16 without one) is scanned as the text it holds.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from stat import S_ISDIR
from typing import Any

from skillprism.core.diagnostics import Severity
from skillprism.core.security import binary, cache
from skillprism.core.security.files import (
    Entry,
    Listing,
    read_head,
    read_windows,
    walk_skill,
    walk_stays_inside,
)
from skillprism.core.security.model import DEFAULT_LIMITS, RiskFinding, SecurityLimits
from skillprism.core.security.sink import Sink
from skillprism.core.security.texts import effect_hint

_BINARY_PROBE = 8192  # a file with a NUL byte this early is data, not text
_READ_WHOLE = 256 * 1024
# Files read ahead of one lookup in the cache: a query per file costs more than scanning a small
# one, and what is held read stays small.
_WINDOW_FILES = 64
_WINDOW_BYTES = 4 * 1024 * 1024
_WINDOW_OVERLAP = 64 * 1024

# --- decoding what a runtime would decode ----------------------------------------------------------

_BOMS = (
    (b"\xff\xfe\x00\x00", "utf-32-le", "UTF-32LE"),
    (b"\x00\x00\xfe\xff", "utf-32-be", "UTF-32BE"),
    (b"\xff\xfe", "utf-16-le", "UTF-16LE"),
    (b"\xfe\xff", "utf-16-be", "UTF-16BE"),
)


def text_encoding(head: bytes) -> tuple[str, str] | None:
    """(codec, name) of a text in UTF-16 or UTF-32 (a byte-order mark, or UTF-16 ASCII text
    without one: every other byte NUL), which PowerShell, Windows tools and editors read as
    text; None for UTF-8 or binary data."""
    for bom, codec, name in _BOMS:
        if head.startswith(bom):
            return codec, name
    probe = head[:512]
    if b"\x00" not in probe:
        return None  # UTF-16 text without a mark has a NUL in every other byte
    if len(probe) >= 16 and len(probe) % 2 == 0:
        even, odd = probe[0::2], probe[1::2]
        for text, zeros, codec, name in (
            (even, odd, "utf-16-le", "UTF-16LE"),
            (odd, even, "utf-16-be", "UTF-16BE"),
        ):
            if zeros.count(0) >= len(zeros) * 0.95 and all(
                32 <= b < 127 or b in (9, 10, 13) for b in text
            ):
                return codec, name
    return None


def decoded_text(data: bytes, codec: str) -> bytes:
    """`data` decoded from `codec` as UTF-8 (a byte-order mark dropped)."""
    text = data.decode(codec, "replace")
    return text.lstrip("\ufeff").encode("utf-8", "replace")


# --- one file ----------------------------------------------------------------------------------------


_loaded: Any = None


def _analysis() -> Any:
    global _loaded
    if _loaded is None:
        from skillprism.core.security import analysis

        _loaded = analysis
    return _loaded


def _serialise(findings: list[RiskFinding], rel: str) -> list[list[Any]]:
    """One file's findings as stored: without the skill's folder, so a file's results serve
    wherever its skill lies; a finding inside the file (an archive's member) keeps what it adds
    to the file's path."""
    return [
        [f.rule, f.severity.value, f.line, f.column, f.message, f.effect, f.hint, f.evidence]
        + ([f.rel_path[len(rel) :]] if f.rel_path != rel else [])
        for f in findings
    ]


def _restore(rows: list[list[Any]], skill_dir: str, rel: str) -> list[RiskFinding]:
    out = []
    for r in rows:
        where = rel + r[8] if len(r) > 8 else rel
        path = os.path.join(skill_dir, *where.split("/")) if where else skill_dir
        out.append(
            RiskFinding(r[0], Severity(r[1]), path, where, r[2], r[3], r[4], r[5], r[6], r[7])
        )
    return out


def _scan_one(
    skill_dir: str,
    entry: Entry,
    data: bytes,
    *,
    is_skill: bool,
    limits: SecurityLimits,
    stream_to: int,
) -> list[RiskFinding]:
    """The findings of one regular file whose first bytes (all of it, unless `stream_to` says
    more is to be read in windows) are `data`."""
    analysis = _analysis()
    sink = Sink(skill_dir, limits)
    rel = entry.rel_path
    executable = bool(entry.mode & 0o111)
    encoding = text_encoding(data[:_BINARY_PROBE])
    note = ""
    if encoding is not None:
        codec, name = encoding
        data = decoded_text(data, codec)
        note = f" (in text decoded from {name})"
        if stream_to > len(data):
            sink.limited(rel, f"only the first {limits.max_file_bytes:,} bytes were decoded")
            stream_to = 0
    windows = None
    if stream_to > len(data) and data.find(b"\x00", 0, _BINARY_PROBE) < 0:
        overlap = min(_WINDOW_OVERLAP, limits.max_file_bytes // 8)  # a window moves on by 7/8
        start = len(data) - overlap

        def windows() -> Any:
            # (lines before it, window): windows overlap, so the lines before each one are
            # counted in the window before it up to where this one starts
            lines, prev_offset, prev = 0, 0, data
            for offset, chunk in read_windows(
                entry.path, start, stream_to, limits.max_file_bytes, overlap
            ):
                lines += prev.count(b"\n", 0, offset - prev_offset)
                yield lines, chunk
                prev_offset, prev = offset, chunk

        analysis_note = (
            f"{entry.size:,} bytes; the text rules read {stream_to:,} of them, the rest "
            "(Unicode, Markdown and syntax analysis) ran on the first "
            f"{limits.max_file_bytes:,}"
        )
        sink.limited(rel, analysis_note, Severity.INFO)
    try:
        analysis.scan_file(
            sink,
            rel,
            data,
            is_skill=is_skill,
            executable=executable,
            limits=limits,
            windows=windows,
            note=note,
            size=entry.size,
        )
    except RecursionError:
        sink.limited(rel, "too deeply nested to analyse")
    if entry.size > stream_to and stream_to and entry.size > limits.max_file_bytes:
        sink.limited(
            rel,
            f"{entry.size:,} bytes: bytes {stream_to:,} to {entry.size:,} were not read",
        )
    return sink.finish()


# --- one skill --------------------------------------------------------------------------------------


def scan_skill(
    skill_dir: str,
    skill_file: str,
    *,
    limits: SecurityLimits = DEFAULT_LIMITS,
    listing: Listing | None = None,
    cancelled: Callable[[], bool] | None = None,
    real_dir: str = "",
) -> list[RiskFinding]:
    """Every risk found in the skill folder `skill_dir` whose skill file is `skill_file`. Nothing
    from the skill is executed, imported or fetched. The skill file is read here too, as bytes:
    what is on disk, not a decoded text that may have dropped something (a byte-order mark).
    `listing`: listings of the skill's folders made already (see `walk_skill`), `real_dir` the
    folder's real path when known. `cancelled` is asked between files; when it says so the scan
    stops and what it found so far is not kept."""
    skill_rel = _skill_rel(skill_dir, skill_file)
    files = walk_skill(skill_dir, limits, listing, real_dir=real_dir)
    store = cache.store()
    skey = cache.skill_key(skill_dir, skill_rel, limits) if store is not None else b""
    manifest = store.get_skill(skey) if store is not None else None
    walked = [_entry_record(e) for e in files.entries]
    limited = [list(x) for x in files.limited]
    if manifest is not None and _unchanged(manifest, walked, limited):
        return [_finding(r, skill_dir) for r in manifest["findings"]]
    now = time.time_ns()
    known: dict[str, list[Any]] = {}
    trusted_before = 0
    if manifest is not None:
        known = {r[0]: r for r in manifest["entries"]}
        trusted_before = manifest["at"] - cache.RACY_NS
    sink = Sink(skill_dir, limits)
    for rel, why in files.limited:
        sink.limited(rel, why)
    out: list[RiskFinding] = []
    budget = limits.max_total_bytes
    unread: list[str] = []
    records: list[list[Any]] = []
    keys: dict[str, bytes] = {}
    # Files whose stat is unchanged and trusted: their keys are known without reading them.
    for e, rec in zip(files.entries, walked, strict=True):
        old = known.get(e.rel_path)
        if (
            e.kind == "file"
            and old is not None
            and old[:7] == rec[:7]
            and e.ctime_ns < trusted_before
            and old[7]
        ):
            keys[e.rel_path] = bytes.fromhex(old[7])
    cached = store.get_files(list(keys.values())) if store is not None and keys else {}
    # Files read and not yet looked up: the cache is asked once for each window of them.
    window: list[tuple[int, Entry, bool, _Read]] = []
    window_bytes = 0
    for e, rec in zip(files.entries, walked, strict=True):
        if cancelled is not None and cancelled():
            raise ScanCancelled
        rel = e.rel_path
        if e.kind == "symlink":
            if e.link_outside:
                effect, hint = effect_hint("symlink-outside")
                sink.add(
                    "symlink-outside",
                    rel,
                    0,
                    0,
                    f"symlink to '{e.link_target}', outside the skill folder",
                    effect,
                    hint,
                    f"{rel} -> {e.link_target}",
                    _link_severity(e.link_target),
                )
            records.append(rec)
            continue
        if e.kind == "special":
            # a FIFO, socket or device has no content to review, and is never opened; a file
            # that could not be opened is content left unread
            why = e.error or "not a regular file"
            sev = Severity.INFO if why == "not a regular file" else Severity.WARNING
            sink.limited(rel, f"'{rel}' was not read: {why}", sev)
            records.append(rec)
            continue
        want = min(e.size, limits.max_stream_bytes)
        is_skill = rel == skill_rel
        if budget <= 0:
            unread.append(rel)
            got = read_head(e.path, limits.sniff_bytes)
            if not isinstance(got, str):
                analysis = _analysis()
                head = got[0]
                if analysis.binary.may_be_binary(head):
                    analysis._shipped_binary(sink, rel, head, e.size)
            records.append(rec)
            continue
        budget -= want
        key = keys.get(rel)
        rows = cached.get(key) if key is not None else None
        if rows is not None:
            records.append([*rec[:7], key.hex(), *rec[8:]])  # type: ignore[union-attr]
            out.extend(_restore(rows, skill_dir, rel))
            continue
        read = _read_file(skill_dir, e, store is not None, is_skill=is_skill, limits=limits)
        if read.stamp is not None and read.stamp != e.stamp:
            rec = [*rec[:2], *read.stamp, *rec[7:]]  # changed while read: as read
            rec[5] = now  # never trusted: re-read next time
        records.append(rec)
        window.append((len(records) - 1, e, is_skill, read))
        window_bytes += len(read.data)
        if len(window) >= _WINDOW_FILES or window_bytes >= _WINDOW_BYTES:
            _settle(window, records, out, skill_dir, store, limits, cancelled)
            window, window_bytes = [], 0
    _settle(window, records, out, skill_dir, store, limits, cancelled)
    if unread:
        sink.limited(
            "",
            f"the skill's files pass {limits.max_total_bytes:,} bytes: {len(unread):,} file(s) "
            f"after it in sorted order were only checked for programs, not read, e.g. "
            f"'{unread[0]}'",
        )
    out.extend(sink.finish())
    out.sort(key=lambda f: (f.rel_path, f.line, f.column, f.rule, f.message))
    if store is not None:
        record: dict[str, Any] = {
            "at": now,
            "entries": records,
            "limited": limited,
            "findings": [_finding_record(f) for f in out],
        }
        if (
            listing is not None
            and not files.irregular
            and not limited
            and all(r[1] == "file" and r[7] for r in records)
        ):
            # what `_still_as_listed` needs to know the folder unchanged without walking it
            record["listing"] = dict(listing)
            record["dirs"] = files.dirs
        store.put("skills", skey, record)
    return out


def _settle(
    window: list[tuple[int, Entry, bool, _Read]],
    records: list[list[Any]],
    out: list[RiskFinding],
    skill_dir: str,
    store: cache.Store | None,
    limits: SecurityLimits,
    cancelled: Callable[[], bool] | None,
) -> None:
    """The findings of the files read in `window` (each with its place in `records`): from the
    cache, asked once for all of them, or scanned."""
    keys = [read.key for _at, _e, _skill, read in window if read.scan and read.key is not None]
    known = store.get_files(keys, read_anew=True) if store is not None and keys else {}
    for at, e, is_skill, read in window:
        if cancelled is not None and cancelled():
            raise ScanCancelled
        rows = read.rows
        if read.scan:
            rows = known.get(read.key) if read.key is not None else None
            if rows is None:
                rows = _scanned_rows(skill_dir, e, read, store, is_skill=is_skill, limits=limits)
        if read.key is not None:
            rec = records[at]
            records[at] = [*rec[:7], read.key.hex(), *rec[8:]]
        if rows is not None:
            out.extend(_restore(rows, skill_dir, e.rel_path))


def _skill_rel(skill_dir: str, skill_file: str) -> str:
    prefix = os.path.join(skill_dir, "")
    if skill_file.startswith(prefix):
        return skill_file[len(prefix) :].replace(os.sep, "/")
    return os.path.relpath(skill_file, skill_dir).replace(os.sep, "/")


def cached_findings(
    skill_dir: str,
    skill_file: str,
    *,
    limits: SecurityLimits = DEFAULT_LIMITS,
    listing: Listing | None = None,
    real_dir: str = "",
) -> list[RiskFinding] | None:
    """The findings `scan_skill` would give, when the cache knows the skill's folder as it is
    now (every entry stats as recorded); None otherwise. Reads no file and never loads the
    rules: a check asks this first, and hands only the skills it does not know to be scanned.
    `real_dir`: the folder's real path when the caller knows it (saves resolving it)."""
    return cached_findings_many([(skill_dir, skill_file, listing, real_dir)], limits=limits)[0]


def cached_findings_many(
    skills: list[tuple[str, str, Listing | None, str]],
    *,
    limits: SecurityLimits = DEFAULT_LIMITS,
) -> list[list[RiskFinding] | None]:
    """`cached_findings` of each (skill folder, skill file, listing, real folder), the cache
    asked once for all of them."""
    store = cache.store()
    if store is None:
        return [None] * len(skills)
    keys = [
        cache.skill_key(skill_dir, _skill_rel(skill_dir, skill_file), limits)
        for skill_dir, skill_file, _listing, _real in skills
    ]
    manifests = store.get_skills(keys)
    out: list[list[RiskFinding] | None] = []
    for (skill_dir, _file, listing, real_dir), key in zip(skills, keys, strict=True):
        manifest = manifests.get(key)
        if manifest is None:
            out.append(None)
            continue
        if not _still_as_listed(manifest, skill_dir, listing, real_dir):
            files = walk_skill(skill_dir, limits, listing, real_dir=real_dir)
            walked = [_entry_record(e) for e in files.entries]
            if not _unchanged(manifest, walked, [list(x) for x in files.limited]):
                out.append(None)
                continue
        out.append([_finding(r, skill_dir) for r in manifest["findings"]])
    return out


class ScanCancelled(Exception):
    """The caller's `cancelled()` said to stop."""


@dataclass(slots=True)
class _Read:
    """One regular file as read for the scan: what its findings are keyed and scanned by."""

    key: bytes | None = None
    rows: list[list[Any]] | None = None  # known already (not read: the reason as a finding)
    stamp: tuple[int, int, int, int, int] | None = None
    data: bytes = b""
    stream_to: int = 0
    scan: bool = False  # scan `data` unless the cache knows `key`


def _read_file(
    skill_dir: str, e: Entry, keyed: bool, *, is_skill: bool, limits: SecurityLimits
) -> _Read:
    """Read one regular file for the scan, and its cache key when `keyed`."""
    executable = bool(e.mode & 0o111)
    # Small files are read whole at once; a large one is probed first, so a large binary costs
    # only its first bytes.
    got = read_head(e.path, e.size if e.size <= _READ_WHOLE else _BINARY_PROBE)
    if isinstance(got, str):
        sink = Sink(skill_dir, limits)
        sink.limited(e.rel_path, f"'{e.rel_path}' was not read: {got}")
        return _Read(rows=_serialise(sink.finish(), e.rel_path))
    probe, stamp = got
    binary = probe.find(b"\x00", 0, _BINARY_PROBE) >= 0 and text_encoding(probe) is None
    archive = _is_archive(probe)
    if archive and len(probe) < e.size <= limits.max_file_bytes:
        got = read_head(e.path, e.size)  # an archive is read whole: its files are scanned
        if isinstance(got, str):
            return _Read()
        probe, stamp = got
    stream_to = 0
    if archive and len(probe) >= e.size:
        data, extra = probe, "archive"
    elif binary or len(probe) >= e.size:
        # binary data: its first bytes and its size say all there is to say
        data = probe[:_BINARY_PROBE] if binary else probe
        extra = f"bin{e.size}" if binary else "text"
    else:
        got = read_head(e.path, min(e.size, limits.max_file_bytes))
        if isinstance(got, str):
            return _Read()
        data, stamp = got
        extra = "text"
        if e.size > limits.max_file_bytes:
            stream_to = min(e.size, limits.max_stream_bytes)
            extra = f"stream{e.size}"
    key = None
    if keyed:
        content = data if not stream_to else _stream_digest(e, stream_to, data)
        key = cache.file_key(e.rel_path, is_skill, executable, content, extra)
    return _Read(key, None, stamp, data, stream_to, scan=True)


def _scanned_rows(
    skill_dir: str,
    e: Entry,
    read: _Read,
    store: cache.Store | None,
    *,
    is_skill: bool,
    limits: SecurityLimits,
) -> list[list[Any]]:
    """The serialised findings of a file read and not known to the cache, kept in it."""
    findings = _scan_one(
        skill_dir,
        Entry(e.rel_path, e.path, e.kind, e.size, e.mode),
        read.data,
        is_skill=is_skill,
        limits=limits,
        stream_to=read.stream_to,
    )
    rows = _serialise(findings, e.rel_path)
    if store is not None and read.key is not None:
        store.put("files", read.key, rows)
    return rows


def _is_archive(head: bytes) -> bool:
    # (`archive_kind` reads only the first bytes of what it is given: no copy of them needed)
    return bool(binary.archive_kind(head))


def _stream_digest(e: Entry, stop: int, head: bytes) -> bytes:
    """What a large file's key is made of: its first window and a hash of the rest."""
    from skillprism.core.security.digest import blake2b

    h = blake2b(head, digest_size=20)
    for _offset, chunk in read_windows(e.path, len(head), stop, 4 * 1024 * 1024, 0):
        h.update(chunk)
    return h.digest()


def _entry_record(e: Entry) -> list[Any]:
    return [
        e.rel_path,
        e.kind,
        e.ino,
        e.size,
        e.mtime_ns,
        e.ctime_ns,
        e.mode,
        "",
        e.link_target,
        e.link_outside,
        e.error,
    ]


def _still_as_listed(manifest: Any, skill_dir: str, listing: Listing | None, real_dir: str) -> bool:
    """What `_unchanged` would say after a walk, known without one: the search listed the skill's
    folders as they were listed when the record was made, so a walk would visit the same entries
    (the record holds only regular files, every one read, with nothing left out), and every
    folder and file of the record stats as recorded. False says only that this cannot tell."""
    known = manifest.get("listing")
    if known is None or listing is None or known != listing:
        return False
    if walk_stays_inside(skill_dir, real_dir):
        return False
    try:
        at = skill_dir if skill_dir.endswith(os.sep) else skill_dir + os.sep
        dirs = manifest["dirs"]
        if dirs:  # (the folder's own device is asked only to compare its subfolders' with)
            root_dev = os.stat(skill_dir).st_dev
            for rel in dirs:
                st = os.lstat(at + rel)
                if not S_ISDIR(st.st_mode) or st.st_dev != root_dev:
                    return False
        before = manifest["at"] - cache.RACY_NS
        for rec in manifest["entries"]:
            st = os.lstat(at + rec[0])
            # (a file's recorded mode is a regular file's: an equal mode is one too)
            if (
                st.st_ctime_ns >= before
                or st.st_ino != rec[2]
                or st.st_size != rec[3]
                or st.st_mtime_ns != rec[4]
                or st.st_ctime_ns != rec[5]
                or st.st_mode != rec[6]
            ):
                return False
    except (OSError, KeyError, TypeError, IndexError):
        return False
    return True


def _unchanged(manifest: Any, walked: list[list[Any]], limited: list[list[Any]]) -> bool:
    """The folder stats as recorded, every entry's status changed well before the record was
    made: its change time (which, unlike its modification time, no program can set back) is
    older than the record by more than a clock tick, so a later write shows in it."""
    try:
        entries = manifest["entries"]
        if len(entries) != len(walked) or manifest["limited"] != limited:
            return False
        before = manifest["at"] - cache.RACY_NS
        for old, new in zip(entries, walked, strict=True):
            if old[:7] != new[:7] or old[8:] != new[8:]:
                return False
            if new[1] == "file" and (new[5] >= before or not old[7]):
                return False
        return True
    except (KeyError, TypeError, IndexError):
        return False


def _finding_record(f: RiskFinding) -> list[Any]:
    return [
        f.rule,
        f.severity.value,
        f.rel_path,
        f.line,
        f.column,
        f.message,
        f.effect,
        f.hint,
        f.evidence,
    ]


def _finding(r: list[Any], skill_dir: str) -> RiskFinding:
    rel = r[2]
    path = os.path.join(skill_dir, *rel.split("/")) if rel else skill_dir
    return RiskFinding(r[0], Severity(r[1]), path, rel, r[3], r[4], r[5], r[6], r[7], r[8])


_SENSITIVE = ("/etc", "/root", "/proc", "/sys", "/dev", "/var", "/usr", "/bin", "/boot", "~")


def _link_severity(target: str) -> Severity:
    """A link into the system's or the user's own files is an error; an absolute one elsewhere
    asks for a look; a relative one beside the skill (a checkout sharing a file between its
    skills) is information."""
    if _sensitive_target(target):
        return Severity.ERROR
    t = target.replace("\\", "/")
    if t.startswith("/") or (len(t) > 1 and t[1] == ":"):
        return Severity.WARNING
    return Severity.INFO


def _sensitive_target(target: str) -> bool:
    """A link into the system's or the user's own files (not a sibling folder of a checkout)."""
    t = target.replace("\\", "/")
    return (
        t.startswith(_SENSITIVE)
        or any(f"/{d}/" in f"/{t}/" for d in ("etc", "root", "proc", "sys", "dev", ".ssh", ".aws"))
        or "/.ssh" in t
        or "/.aws" in t
        or "/.config" in t
        or "/home/" in t
        or (len(t) > 1 and t[1] == ":")
    )


def scan_text(
    text: str | bytes,
    rel_path: str = "SKILL.md",
    *,
    kind: str = "skill",
    limits: SecurityLimits = DEFAULT_LIMITS,
) -> list[RiskFinding]:
    """The text rules over one text alone (for tests and previews), never cached: `kind` skill
    makes it the skill file; a script's language is taken from `rel_path`'s extension or
    shebang."""
    data = text.encode("utf-8", "replace") if isinstance(text, str) else text
    data = data[: limits.max_file_bytes]
    entry = Entry(rel_path, rel_path, "file", len(data), 0o644)
    return _scan_one("", entry, data, is_skill=kind == "skill", limits=limits, stream_to=0)
