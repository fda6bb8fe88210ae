"""Live skill sets: a directory watcher with a plain-thread debouncer, and a catalog that rebuilds
only what a batch of changed paths touches.

`SkillWatcher` watches folders (never single files: editors save by writing a temporary file and
renaming it over the original), drops `.git` / `node_modules` churn and editor temporaries, and
after `debounce_ms` of quiet calls `on_change(sorted paths)` from its own thread. The watchdog
thread only enqueues. A root that does not exist yet is waited for on its nearest existing parent
(non-recursively, so a missing `~/.claude/skills` never means watching all of `~`), and a root
that is deleted and recreated is picked up again. When the native observer cannot be used
(inotify limits, network file systems) it falls back to polling and says why in `reason`.

`LiveCatalog` holds one profile's skill set and its DocumentCache. `refresh(changed)` re-evaluates
only the skills whose folders the changes are in, together with every skill their precedence or
nesting depends on, and rescans the roots only when the set of skill files may have changed.

No Qt here: the GUI adapts `on_change` to a queued signal.
"""

from __future__ import annotations

import bisect
import contextlib
import functools
import logging
import os
import stat
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from skillprism.core.catalog import Catalog, SkillEntry
from skillprism.core.codes import RULES
from skillprism.core.policy import Policy
from skillprism.core.profiles import Profile, clash_key
from skillprism.core.resolve import (
    DocumentCache,
    Located,
    build_catalog,
    evaluate_file,
    expand_template,
    plugin_name,
    profile_roots,
    resolve_located,
    with_cross_skill_risks,
)
from skillprism.core.scan import ARCHIVE_SUFFIXES, DEFAULT_MAX_DEPTH, SKILL_FILE_LOWER, FoundFile
from skillprism.core.validate import Evaluation

log = logging.getLogger(__name__)

# Folders whose churn never changes a skill set (version control, package trees, byte code).
IGNORED_DIR_NAMES = frozenset({".git", ".hg", ".svn", "node_modules", "__pycache__"})
# Editor temporaries: vim swap files and its `4913` write probe, backup `~` files, Emacs lock
# files `.#name`, JetBrains safe-write files, Kate swap files.
_TEMP_SUFFIXES = (".swp", ".swo", ".swx", ".swpx", "~", "___jb_tmp___", "___jb_old___", ".kate-swp")
_TEMP_NAMES = frozenset({"4913"})
# Mounts on which inotify does not see changes made by other machines.
_NETWORK_FS = frozenset(
    {
        "nfs",
        "nfs4",
        "cifs",
        "smb",
        "smb3",
        "smbfs",
        "9p",
        "afs",
        "ncpfs",
        "ceph",
        "glusterfs",
        "fuse.glusterfs",
        "fuse.sshfs",
        "fuse.rclone",
        "fuse.davfs2",
        "davfs",
        "fuse.s3fs",
        "lustre",
    }
)
DEFAULT_MAX_DELAY_MS = 500
_TRUNCATED_CODE = RULES["scan-truncated"].code
_UNLISTED_CODE = RULES["folder-unreadable"].code


def is_noise(path: str, base: str = "") -> bool:
    """True for paths whose changes never matter: editor temporaries and anything inside an ignored
    folder (checked below `base`, so a project that itself lives in such a folder still works)."""
    name = os.path.basename(path)
    if name in _TEMP_NAMES or name.startswith(".#") or name.endswith(_TEMP_SUFFIXES):
        return True
    rel = path[len(base) :] if base and path.startswith(base) else path
    return any(part in IGNORED_DIR_NAMES for part in rel.split(os.sep))


def _nearest_existing(path: str) -> str:
    cur = path
    while not os.path.isdir(cur):
        parent = os.path.dirname(cur)
        if parent == cur:
            break
        cur = parent
    return cur


def _is_under(path: str, folder: str) -> bool:
    return path.startswith(folder.rstrip(os.sep) + os.sep)


def _listable(folder: str) -> bool:
    try:
        with os.scandir(folder):
            return True
    except OSError:
        return False


def _network_fs(paths: Iterable[str]) -> str:
    """'<fstype> at <mount point>' when one of `paths` is on a network file system (Linux), else ''."""
    try:
        with open("/proc/self/mounts", encoding="utf-8", errors="replace") as fh:
            mounts = [line.split()[1:3] for line in fh if len(line.split()) >= 3]
    except OSError:
        return ""
    mounts = [(m.replace("\\040", " "), t) for m, t in mounts]
    for path in paths:
        real = os.path.realpath(_nearest_existing(path))
        best = ("", "")
        for mount, fstype in mounts:
            if (real == mount or _is_under(real, mount) or mount == "/") and len(mount) > len(
                best[0]
            ):
                best = (mount, fstype)
        if best[1] in _NETWORK_FS:
            return f"{best[1]} at {best[0]}"
    return ""


def _native_observer_class() -> type:
    from watchdog.observers import Observer

    return Observer  # type: ignore[return-value]


def _event_filter() -> list[type]:
    from watchdog import events as ev

    # Opened / closed-without-write events are left out on purpose: the rebuild reads the skill
    # files, and those reads must not count as changes. Attribute events are in: a chmod can make
    # a skill file or folder unreadable (or readable again) without touching its content.
    return [
        ev.FileCreatedEvent,
        ev.DirCreatedEvent,
        ev.FileDeletedEvent,
        ev.DirDeletedEvent,
        ev.FileMovedEvent,
        ev.DirMovedEvent,
        ev.FileModifiedEvent,
        ev.FileClosedEvent,
        ev.FileAttribEvent,
        ev.DirAttribEvent,
    ]


_EVENT_TYPES = frozenset({"created", "deleted", "moved", "modified", "closed", "attrib"})


class _Handler:
    """Receives watchdog events for one scheduled folder and hands the paths to the watcher."""

    def __init__(self, watcher: SkillWatcher, base: str, recursive: bool) -> None:
        self.watcher = watcher
        self.base = base
        self.recursive = recursive

    # watchdog calls dispatch(event) on its handlers.
    def dispatch(self, event: Any) -> None:
        if event.event_type not in _EVENT_TYPES:
            return
        if event.is_directory and event.event_type == "modified":
            return  # a child's own event says what changed
        paths = [os.fsdecode(event.src_path)]
        if event.event_type == "moved" and event.dest_path:
            paths.append(os.fsdecode(event.dest_path))
        self.watcher._enqueue(self, event.event_type, paths)


class SkillWatcher:
    """Watch skill folders recursively and report changed paths in debounced batches.

    `on_change(paths)` runs on the watcher's debouncer thread, after `debounce_ms` without a new
    event, or at the latest `max_delay_ms` after the first event of a batch under continuous churn.
    `batch_started` holds the monotonic time of the first event of the batch being reported."""

    def __init__(
        self,
        paths: Sequence[str],
        on_change: Callable[[list[str]], None],
        *,
        debounce_ms: int = 75,
        force_polling: bool = False,
        max_delay_ms: int = DEFAULT_MAX_DELAY_MS,
        poll_interval: float = 1.0,
    ) -> None:
        seen: dict[str, None] = {}
        for p in paths:
            seen.setdefault(os.path.normpath(os.path.abspath(os.path.expanduser(p))), None)
        self.targets: tuple[str, ...] = tuple(seen)
        self._on_change = on_change
        self._debounce = max(debounce_ms, 0) / 1000
        self._max_delay = max(max_delay_ms, debounce_ms) / 1000
        self._force_polling = force_polling
        self._poll_interval = poll_interval
        self.mode = ""
        self.reason = ""
        self.batch_started = 0.0
        self._cond = threading.Condition()
        self._pending: dict[str, None] = {}
        self._first: float | None = None
        self._last = 0.0
        self._rearm = False
        self._dirty: set[str] = set()  # targets deleted or moved away: their watches are stale
        self._stopping = False
        self._started = False
        self._arm_lock = threading.RLock()
        self._observer: Any = None
        self._watches: dict[tuple[str, bool], Any] = {}
        self._gates: dict[str, frozenset[str]] = {}  # non-recursive folder -> children that matter
        self._thread: threading.Thread | None = None

    # --- life cycle ------------------------------------------------------------------------------

    def start(self) -> None:
        with self._arm_lock:
            if self._started:
                return
            self._started = True
            reason = ""
            if self._force_polling:
                reason = "polling was forced"
            else:
                net = _network_fs(self.targets)
                if net:
                    reason = f"network file system ({net}): native change events are unreliable"
            if not reason:
                cls = _native_observer_class()
                from watchdog.observers.polling import PollingObserver

                if cls is PollingObserver:
                    reason = "no native file watcher on this platform"
                else:
                    try:
                        self._observer = cls()
                        self._observer.start()
                        self.mode = "native"
                        self._arm()
                    except OSError as err:
                        reason = self._native_failure(err)
                        self._stop_observer()
            if reason:
                self._start_polling(reason)
            self._thread = threading.Thread(
                target=self._run, name="skillprism-watch-debounce", daemon=True
            )
            self._thread.start()

    def stop(self) -> None:
        """Stop watching and join every thread this watcher started (safe to call twice)."""
        with self._cond:
            self._stopping = True
            self._cond.notify_all()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join()
        with self._arm_lock:
            self._stop_observer()

    def __enter__(self) -> SkillWatcher:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def running(self) -> bool:
        return self._started and not self._stopping

    # --- observers -------------------------------------------------------------------------------

    @staticmethod
    def _native_failure(err: OSError) -> str:
        import errno

        if err.errno == errno.ENOSPC:
            return f"inotify watch limit reached ({err}); raise fs.inotify.max_user_watches"
        if err.errno == errno.EMFILE:
            return f"inotify instance limit reached ({err}); raise fs.inotify.max_user_instances"
        return f"native file watching failed: {err}"

    def _stop_observer(self) -> None:
        obs, self._observer = self._observer, None
        self._watches.clear()
        if obs is None:
            return
        try:
            obs.stop()
        except Exception:  # a half-started observer: nothing more to stop
            log.debug("stopping the observer failed", exc_info=True)
        with contextlib.suppress(RuntimeError):  # never started
            obs.join()

    def _start_polling(self, reason: str) -> None:
        from watchdog.observers.polling import PollingObserver

        self._stop_observer()
        self.mode, self.reason = "polling", reason
        self._observer = PollingObserver(timeout=self._poll_interval)
        self._observer.start()
        self._arm()

    def _desired(self) -> tuple[dict[tuple[str, bool], None], dict[str, set[str]]]:
        """The folders to schedule now: each existing target recursively plus its parent (to see it
        deleted, renamed or recreated), and for a missing target its nearest existing parent; both
        of the latter non-recursive and gated to the children on the way to a target."""
        want: dict[tuple[str, bool], None] = {}
        gates: dict[str, set[str]] = {}
        for t in self.targets:
            if os.path.isdir(t):
                want[(t, True)] = None
                parent = os.path.dirname(t)
                if parent != t:
                    want[(parent, False)] = None
                    gates.setdefault(parent, set()).add(t)
            else:
                anchor = _nearest_existing(t)
                want[(anchor, False)] = None
                rel = os.path.relpath(t, anchor).split(os.sep)
                gates.setdefault(anchor, set()).add(os.path.join(anchor, rel[0]))
        recursive = [p for p, r in want if r]

        def covered(path: str, rec: bool) -> bool:
            return any(
                (q != path or not rec) and (q == path or _is_under(path, q)) for q in recursive
            )

        return {k: None for k in want if not covered(*k)}, gates

    def _arm(self) -> None:
        """Bring the scheduled watches in line with which targets exist now."""
        with self._arm_lock:
            obs = self._observer
            if obs is None or self._stopping:
                return
            want, gates = self._desired()
            self._gates = {k: frozenset(v) for k, v in gates.items()}
            with self._cond:
                dirty, self._dirty = self._dirty, set()
            for key in list(self._watches):
                if key not in want or (key[1] and key[0] in dirty):
                    watch = self._watches.pop(key)
                    # Its emitter may already have stopped along with the folder.
                    with contextlib.suppress(KeyError, OSError):
                        obs.unschedule(watch)
            for key in want:
                if key in self._watches:
                    continue
                path, rec = key
                try:
                    self._watches[key] = obs.schedule(
                        _Handler(self, path, rec),
                        path,
                        recursive=rec,
                        event_filter=_event_filter(),
                    )
                except FileNotFoundError:
                    # Vanished between the check and the call; the parent's gate sees it return.
                    self._rearm = True
                except OSError as err:
                    if self.mode == "native":
                        self._start_polling(self._native_failure(err))
                        return
                    raise

    # --- events ----------------------------------------------------------------------------------

    def _enqueue(self, handler: _Handler, kind: str, paths: list[str]) -> None:
        now = time.monotonic()
        keep: list[str] = []
        dirty: list[str] = []
        rearm = False
        for raw in paths:
            p = os.path.normpath(raw)
            for t in self.targets:
                if p == t or _is_under(t, p):
                    rearm = True
                    if kind in ("deleted", "moved"):
                        dirty.append(t)
            if not handler.recursive:
                gate = self._gates.get(handler.base, frozenset())
                if p not in gate and p != handler.base:
                    continue
            elif is_noise(p, handler.base):
                continue
            keep.append(p)
        if not keep and not rearm:
            return
        with self._cond:
            if self._stopping:
                return
            for p in keep:
                self._pending[p] = None
            self._rearm = self._rearm or rearm
            self._dirty.update(dirty)
            if self._first is None:
                self._first = now
            self._last = now
            self._cond.notify_all()

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._stopping and self._first is None:
                    self._cond.wait()
                if self._stopping:
                    return
                now = time.monotonic()
                due = min(self._last + self._debounce, self._first + self._max_delay)
                if now < due:
                    self._cond.wait(due - now)
                    continue
                batch = sorted(self._pending)
                first, rearm = self._first, self._rearm
                self._pending, self._first, self._rearm = {}, None, False
            if rearm:
                try:
                    self._arm()
                except Exception:
                    log.exception("re-arming the file watcher failed")
            if not batch:
                continue
            self.batch_started = first
            try:
                self._on_change(batch)
            except Exception:
                log.exception("skill watcher callback failed")


# --- live catalog -----------------------------------------------------------------------------


class _Index:
    """Lookups over one catalog for planning an incremental refresh."""

    def __init__(self, catalog: Catalog) -> None:
        self.files: dict[str, SkillEntry] = {}
        self.dirs: dict[str, list[str]] = {}
        self.by_name: dict[str, list[str]] = {}
        self.by_real: dict[str, list[str]] = {}
        # Names as they clash under the profile (clash_key): a change to one copy re-resolves all.
        self.key = functools.partial(clash_key, catalog.profile)
        for s in catalog.skills:
            self.files[s.path] = s
            self.dirs.setdefault(s.directory, []).append(s.path)
            if s.qualified_name:
                self.by_name.setdefault(self.key(s.qualified_name), []).append(s.path)
            self.by_real.setdefault(s.real_path, []).append(s.path)
        self.sorted_dirs = sorted(self.dirs)
        # A truncated scan depends on how many folders exist: any change may move the cut.
        self.truncated = any(d.code == _TRUNCATED_CODE for d in catalog.diagnostics)
        # Folders the scan could not list: a change there may bring their skills back.
        self.unlisted = frozenset(d.path for d in catalog.diagnostics if d.code == _UNLISTED_CODE)

    def update(self, entries: Iterable[SkillEntry]) -> None:
        """Take in re-resolved entries of known skill files (same paths, folders and real paths;
        only names and states may differ), instead of indexing all of a new catalog again."""
        for new in entries:
            old = self.files[new.path]
            self.files[new.path] = new
            if old.qualified_name != new.qualified_name:
                if old.qualified_name:
                    before = self.key(old.qualified_name)
                    self.by_name[before].remove(new.path)
                    if not self.by_name[before]:
                        del self.by_name[before]
                if new.qualified_name:
                    self.by_name.setdefault(self.key(new.qualified_name), []).append(new.path)

    def below(self, folder: str) -> list[str]:
        """Skill folders strictly below `folder`."""
        prefix = folder.rstrip(os.sep) + os.sep
        out = []
        i = bisect.bisect_left(self.sorted_dirs, prefix)
        while i < len(self.sorted_dirs) and self.sorted_dirs[i].startswith(prefix):
            out.append(self.sorted_dirs[i])
            i += 1
        return out

    def containing(self, path: str) -> list[str]:
        """Skill folders equal to or above `path`."""
        out = []
        cur = path
        while True:
            if cur in self.dirs:
                out.append(cur)
            parent = os.path.dirname(cur)
            if parent == cur:
                return out
            cur = parent


class _Evaluations:
    """Stands in for resolve's evaluator: results computed up front, the rest on demand."""

    def __init__(
        self,
        profile: Profile,
        cache: DocumentCache,
        done: dict,
        security: bool,  # type: ignore[type-arg]
    ) -> None:
        self.profile, self.cache, self.done, self.security = profile, cache, done, security

    def results(self, items: list[tuple[str, str, bool]]) -> dict[str, tuple[Evaluation, str]]:
        for path, real, *_ in items:  # (path, real path, regular file): see resolve._Item
            if path not in self.done:
                self.done[path] = _evaluate(path, self.profile, self.cache, real, self.security)
        return self.done


def _evaluate(
    path: str, profile: Profile, cache: DocumentCache, real: str = "", security: bool = False
) -> tuple[Evaluation, str]:
    """Parse (through the cache) and evaluate one skill file, as build_catalog does."""
    evaluation, _stamp = evaluate_file(path, profile, cache, security=security)
    return evaluation, real or os.path.realpath(path)


class LiveCatalog:
    """One profile's skill set kept current: `refresh(changed)` returns a new immutable Catalog."""

    def __init__(
        self,
        profile: Profile,
        paths: Sequence[str] | None = None,
        *,
        project: str | None = None,
        home: str | None = None,
        env: Mapping[str, str] | None = None,
        max_depth: int = DEFAULT_MAX_DEPTH,
        policy: Policy | None = None,
        security: bool = False,
        install_into: str = "",
        cache: DocumentCache | None = None,
        catalog: Catalog | None = None,
    ) -> None:
        self.profile = profile
        self.paths = [os.path.abspath(p) for p in paths] if paths else []
        self.project = os.path.abspath(project or os.getcwd())
        self.home = home or os.path.expanduser("~")
        self.env = dict(os.environ if env is None else env)
        self.max_depth = max_depth
        self.policy = policy or Policy(profile)
        self.cache = cache or DocumentCache()
        # Full rebuilds may use worker processes (the GUI passes "forkserver": its process has
        # threads); incremental refreshes evaluate the few changed skills in-process.
        self.workers = 1
        self.start_method = "fork"
        self.security = security
        # "personal" or "project": review the PATHs (repositories) as installed there
        # (core/installed.py); "" = as laid out.
        self.install_into = install_into
        self._lock = threading.RLock()
        self._catalog = catalog
        self._index: _Index | None = None
        self._index_of: Catalog | None = None
        self.last_refresh = "initial"  # "full", "incremental" or "none" after a refresh

    @property
    def current(self) -> Catalog | None:
        """The catalog built so far, without building one (None before the first build)."""
        return self._catalog

    @property
    def catalog(self) -> Catalog:
        with self._lock:
            if self._catalog is None:
                self._catalog = self._build()
            return self._catalog

    def _build(self) -> Catalog:
        install = None
        if self.install_into:
            from skillprism.core.installed import Install, find_units

            units = tuple(u for path in self.paths for u in find_units(path))
            install = Install(units, self.install_into)
        return build_catalog(
            self.profile,
            self.paths or None,
            install=install,
            project=self.project,
            home=self.home,
            env=self.env,
            max_depth=self.max_depth,
            cache=self.cache,
            policy=self.policy,
            workers=self.workers,
            start_method=self.start_method,
            security=self.security,
        )

    def roots_to_watch(self) -> list[str]:
        """The folders a SkillWatcher should watch: the PATHs given (a SKILL.md's folder for a
        file) or the profile's roots. Missing ones are included: the watcher waits for them on
        their nearest existing parent. A glob root also names its fixed prefix, where new
        matches appear."""
        out: dict[str, None] = {}
        if self.paths:
            for p in self.paths:
                out[os.path.dirname(p) if os.path.isfile(p) else p] = None
        if not self.paths or self.install_into:
            for root in profile_roots(self.profile, self.project, self.home, self.env):
                out[root.path] = None
            for template in self.profile.roots:
                if "*" in template.path:
                    expanded = expand_template(template.path, self.project, self.home, self.env)
                    prefix = expanded.split("*", 1)[0]
                    out[os.path.dirname(prefix) if not prefix.endswith(os.sep) else prefix] = None
        return [os.path.normpath(p) for p in out]

    def refresh(self, changed: Iterable[str] = ()) -> Catalog:
        """Forget `changed` paths, rebuild what they touch and return the new Catalog."""
        with self._lock:
            changed = sorted({os.path.normpath(os.path.abspath(p)) for p in changed})
            old = self.catalog
            if self._index is None or self._index_of is not old:
                self._index, self._index_of = _Index(old), old
            index = self._index
            self._forget(changed, index)
            if not changed:
                new = self._build()
                self.last_refresh = "full"
            else:
                affected = self._plan(changed, index)
                if affected is None:
                    new = self._build()
                    self.last_refresh = "full"
                elif not affected:
                    new = old
                    self.last_refresh = "none"
                else:
                    new, entries = self._incremental(old, index, affected)
                    index.update(entries)
                    self._index_of = new  # the index now describes the new catalog
                    self.last_refresh = "incremental"
            self._catalog = new
            return new

    def _forget(self, changed: list[str], index: _Index) -> None:
        drop: list[str] = []
        for p in changed:
            drop.append(p)
            for name in (SKILL_FILE_LOWER, "SKILL.md"):
                drop.append(os.path.join(p, name))
            # The skills holding `p` too: a resource coming or going changes their evaluation.
            for d in index.containing(p):
                drop.extend(index.dirs[d])
            for d in index.below(p):
                drop.extend(index.dirs[d])
        # And every other path to the same files (a symlinked alias of a skill folder): the change
        # is theirs as well, though it was reported under one path only.
        for path in list(drop):
            entry = index.files.get(path)
            if entry is not None:
                drop.extend(index.by_real.get(entry.real_path, ()))
        self.cache.forget(drop)

    def _plan(self, changed: list[str], index: _Index) -> set[str] | None:
        """The skill files to re-evaluate, or None when the set of skill files may have changed
        (new, deleted or moved SKILL.md or folders, anything outside a skill folder): then the
        roots are rescanned."""
        if index.truncated:
            return None
        affected: set[str] = set()
        for p in changed:
            if p in index.unlisted or any(_is_under(p, u) for u in index.unlisted):
                return None  # a folder the scan could not list may be listable now
            try:
                st: os.stat_result | None = os.lstat(p)
            except OSError:
                st = None
            if p in index.files:
                if st is None or not stat.S_ISREG(st.st_mode):
                    return None  # deleted, or replaced by a link or folder
                affected.add(p)
                continue
            holders = index.containing(p)
            if not holders:
                return None  # outside every known skill: maybe a new skill, root or manifest
            if p in index.dirs:
                if st is None or not stat.S_ISDIR(st.st_mode) or not _listable(p):
                    return None  # the skill folder went away, or the scan can no longer see in
                affected.update(index.dirs[p])
                continue
            name = os.path.basename(p).lower()
            if name == SKILL_FILE_LOWER or name.endswith(ARCHIVE_SUFFIXES):
                return None  # a nested skill appears or goes
            if st is None:
                if index.below(p):
                    return None  # a deleted folder that held skills
            elif not stat.S_ISREG(st.st_mode):
                return None  # a new folder or link may bring skills of its own
            for d in holders:
                affected.update(index.dirs[d])
        if self.security:
            # A skill's security scan reads every file below its folder, a nested skill's too:
            # whatever changed, every skill folder holding it is scanned again.
            for p in changed:
                for d in index.containing(p):
                    affected.update(index.dirs[d])
        return affected

    def _incremental(
        self, old: Catalog, index: _Index, affected: set[str]
    ) -> tuple[Catalog, tuple[SkillEntry, ...]]:
        """Re-resolve the affected skills plus every skill that shares a name or real file with
        one of them (precedence) or lies below one (nesting), and splice the result into `old`."""
        profile = self.profile
        done: dict[str, tuple[Evaluation, str]] = {}
        plugins: dict[str, str] = {}
        members: set[str] = set()
        todo = list(affected)
        while todo:
            key = todo.pop()
            if key in members:
                continue
            members.add(key)
            entry = index.files[key]
            plugin = ""
            if entry.root.namespace == "plugin":
                plugin = plugin_name(entry.root.path, profile.plugin_marker)
            plugins[key] = plugin
            names = {entry.qualified_name}
            if key in affected:
                ev, _real = done[key] = _evaluate(key, profile, self.cache, "", self.security)
                if ev.name:
                    names.add(f"{plugin}:{ev.name}" if plugin else ev.name)
            for n in names:
                if n:
                    todo.extend(index.by_name.get(index.key(n), ()))
            todo.extend(index.by_real.get(entry.real_path, ()))
            for d in index.below(entry.directory):
                todo.extend(index.dirs[d])
        located = []
        for key in members:
            entry = index.files[key]
            parts = tuple(os.path.relpath(key, entry.root.path).split(os.sep))
            found = FoundFile(key, entry.root.path, parts, entry.real_path)
            located.append(Located(found, entry.root, parts, plugins[key]))
        sub = resolve_located(
            profile,
            list(old.roots),
            located,
            [],
            _Evaluations(profile, self.cache, done, self.security),
            self.policy,
        )
        fresh = {s.key: s for s in sub.skills}
        skills = tuple(fresh.get(s.key, s) for s in old.skills)
        new = Catalog(
            profile=profile,
            roots=old.roots,
            skills=skills,
            diagnostics=old.diagnostics,
            policy=self.policy,
            security=self.security,
            home=old.home,
        )
        if self.security:
            new = with_cross_skill_risks(new)
            fresh = {s.key: s for s in new.skills}
            return new, tuple(fresh[s.key] for s in sub.skills)
        return new, sub.skills
