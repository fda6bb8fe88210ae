"""The file watcher of the live path: watchdog observers kept alive, and a plain-thread debouncer.

`SkillWatcher` watches folders (never single files: editors save by writing a temporary file and
renaming it over the original) and, after `debounce_ms` of quiet, calls `on_change(sorted paths)`
from its own thread. The watchdog threads only enqueue. It reports every change below the watched
folders except inside version-control metadata (core/ignored.py: the one list the security pass
skips too), so package trees, byte code and editor temporaries, which the security pass reads,
are reported like any other file.

What it watches, beyond each folder recursively:
- a folder that does not exist yet is waited for on its nearest existing parent (non-recursively,
  so a missing `~/.claude/skills` never means watching all of `~`); one deleted and recreated is
  picked up again;
- a symlinked folder inside (a skill installed as a link to a folder elsewhere) has its target
  watched as well, and changes there are reported under the link's path, as the catalog knows it;
  the same for a watched folder that is itself a link;
- a folder that could not be listed (permissions) is watched from the moment it can be: its
  parent sees the chmod.

It keeps watching: the debouncer thread checks every `health_interval` seconds that the
observer's threads are alive. watchdog's inotify thread can die (an internal KeyError after some
renames and deletes) and a thread can die as it starts; the watcher then replaces the observer,
reports every watched folder as changed (events were lost meanwhile) and, after repeated
failures, falls back to polling. `mode` ("native" or "polling") and `reason` say how it watches
and why; `restarts` counts the replacements. `on_mode(mode, reason)`, when given, is called from
the watcher's thread each time either changes after `start()` returned, before the catch-up
batch. When the native observer cannot be used at all (inotify limits, network file systems) it
polls from the start and says why.

`stop(timeout)` is bounded: it never waits longer than `timeout` for a thread, even one that
watchdog left blocked, and says whether everything ended.

No Qt here: the GUI adapts the callbacks to queued signals.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from skillprism.core.ignored import in_ignored_dir
from skillprism.core.scan import DEFAULT_MAX_DEPTH, DEFAULT_MAX_DIRS

log = logging.getLogger(__name__)

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
# Pseudo file systems a link must never lead the watch into.
_NEVER_WATCHED = ("/proc", "/sys", "/dev")
DEFAULT_MAX_DELAY_MS = 500
DEFAULT_HEALTH_INTERVAL = 1.0
DEFAULT_STOP_TIMEOUT = 5.0
# Native observers that died within this window before the watcher gives up on them and polls.
MAX_NATIVE_RESTARTS = 3
RESTART_WINDOW = 60.0
# Separately watched link targets (one watchdog thread each); links beyond are named in `reason`.
MAX_LINK_WATCHES = 256
MAX_LINK_TARGET_DIRS = 2000
_STOP_ATTEMPTS = 3
_DEACTIVATE_ATTEMPTS = 1000


def is_noise(path: str, base: str = "") -> bool:
    """True for paths whose changes are never reported: those inside version-control metadata
    (core/ignored.py), checked below `base` so a tree that itself lives in such a folder works."""
    return in_ignored_dir(path, base)


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


def _at_or_under(path: str, folder: str) -> bool:
    return path == folder or _is_under(path, folder)


def _listable(folder: str) -> bool:
    try:
        with os.scandir(folder):
            return True
    except OSError:
        return False


def _count_dirs(top: str, limit: int) -> int:
    """Folders at and below `top` (not through links), counting up to `limit`."""
    count, stack = 0, [top]
    while stack and count < limit:
        folder = stack.pop()
        count += 1
        try:
            with os.scandir(folder) as it:
                stack.extend(e.path for e in it if e.is_dir(follow_symlinks=False))
        except OSError:
            continue
    return count


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


def _polling_observer_class() -> type:
    from watchdog.observers.polling import PollingObserver

    return PollingObserver


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
_SHAPE_CHANGES = frozenset({"created", "deleted", "moved"})


# --- threads of an observer ------------------------------------------------------------------


def _threads_of(observer: Any) -> list[threading.Thread]:
    """The observer's thread, its emitters and any helper thread either holds (watchdog's inotify
    reader), found by type so that no watchdog version's private names are relied on."""
    found: list[threading.Thread] = [observer]
    owners = [observer, *list(getattr(observer, "emitters", ()))]
    for owner in owners:
        if owner not in found:
            found.append(owner)
        for value in list(vars(owner).values()):
            if isinstance(value, threading.Thread) and value not in found:
                found.append(value)
    return found


def _asked_to_stop(thread: threading.Thread) -> bool:
    event = getattr(thread, "stopped_event", None)
    return bool(event is not None and event.is_set())


def _died(thread: threading.Thread) -> bool:
    """Started, ended, and never asked to: it died of an exception (or as it started)."""
    return thread.ident is not None and not thread.is_alive() and not _asked_to_stop(thread)


def _held_groups(threads: Sequence[threading.Thread]) -> dict[int, list[Any]]:
    """What each thread holds that can be deactivated (taken before a stop drops it)."""
    return {
        id(t): [v for v in list(vars(t).values()) if callable(getattr(v, "deactivate", None))]
        for t in threads
    }


def _end_threads(
    threads: Sequence[threading.Thread], deadline: float, held: dict[int, list[Any]] | None = None
) -> bool:
    """Ask each thread to stop and wait for them until `deadline`; True when all have ended.

    watchdog's inotify emitter stops by deactivating its watch group, which can raise halfway
    (the same bookkeeping error that kills its reader thread) before it wakes the emitter, which
    then waits forever. Each pass of that deactivation gets further, so the group an emitter held
    is deactivated again until it goes through."""
    held = held if held is not None else _held_groups(threads)
    for thread in threads:
        stop = getattr(thread, "stop", None)
        if stop is None:
            continue
        for _ in range(_STOP_ATTEMPTS):
            try:
                stop()
                break
            except Exception:
                log.debug("stopping %s failed", thread.name, exc_info=True)
    ok = True
    for thread in threads:
        if thread is threading.current_thread() or thread.ident is None:
            continue
        thread.join(min(0.05, max(0.0, deadline - time.monotonic())))
        if thread.is_alive():
            for group in held.get(id(thread), ()):
                _deactivate(group)
        thread.join(max(0.0, deadline - time.monotonic()))
        if thread.is_alive():
            log.warning("file watcher thread %s did not stop in time", thread.name)
            ok = False
    return ok


def _deactivate(group: Any) -> None:
    for _ in range(_DEACTIVATE_ATTEMPTS):
        try:
            group.deactivate()
            return
        except Exception:
            log.debug("deactivating %r failed", type(group).__name__, exc_info=True)


def _stop_observer(observer: Any, deadline: float) -> bool:
    """Stop `observer` and every thread it started, whatever state watchdog left them in, within
    `deadline`. watchdog's own stop ends at the first error (and then never wakes the observer's
    thread), so each part is stopped on its own as well."""
    threads = _threads_of(observer)
    held = _held_groups(threads)
    try:
        observer.stop()
    except Exception:
        log.debug("stopping the file observer failed", exc_info=True)
    ok = _end_threads(threads[1:], deadline, held)
    sentinel = getattr(type(observer), "stop_event", None)
    if sentinel is not None:  # what wakes the dispatch thread, should its stop have failed early
        with contextlib.suppress(Exception):
            observer.event_queue.put_nowait(sentinel)
    if observer.ident is not None:
        observer.join(max(0.0, deadline - time.monotonic()))
        ok = ok and not observer.is_alive()
    return ok


def _new_thread(target: Callable[[], None], name: str) -> threading.Thread:
    return threading.Thread(target=target, name=name, daemon=True)


# --- events ----------------------------------------------------------------------------------


class _Handler:
    """Receives watchdog events for one scheduled folder and hands the paths to the watcher."""

    def __init__(self, watcher: SkillWatcher, base: str, recursive: bool) -> None:
        self.watcher = watcher
        self.base = base
        self.recursive = recursive

    # watchdog calls dispatch(event) on its handlers, on the observer's thread: an exception here
    # would end that thread, so none leaves.
    def dispatch(self, event: Any) -> None:
        try:
            if event.event_type not in _EVENT_TYPES:
                return
            if event.is_directory and event.event_type == "modified":
                return  # a child's own event says what changed
            paths = [os.fsdecode(event.src_path)]
            if event.event_type == "moved" and event.dest_path:
                paths.append(os.fsdecode(event.dest_path))
            self.watcher._enqueue(self, event.event_type, paths)
        except Exception:
            log.exception("file watcher event handling failed")


class SkillWatcher:
    """Watch skill folders recursively and report changed paths in debounced batches.

    `on_change(paths)` runs on the watcher's debouncer thread, after `debounce_ms` without a new
    event, or at the latest `max_delay_ms` after the first event of a batch under continuous churn.
    `batch_started` holds the monotonic time of the first event of the batch being reported.
    `on_mode(mode, reason)` runs on the same thread when the way of watching changes (see the
    module docstring)."""

    def __init__(
        self,
        paths: Sequence[str],
        on_change: Callable[[list[str]], None],
        *,
        debounce_ms: int = 75,
        force_polling: bool = False,
        max_delay_ms: int = DEFAULT_MAX_DELAY_MS,
        poll_interval: float = 1.0,
        on_mode: Callable[[str, str], None] | None = None,
        health_interval: float = DEFAULT_HEALTH_INTERVAL,
    ) -> None:
        seen: dict[str, None] = {}
        for p in paths:
            seen.setdefault(os.path.normpath(os.path.abspath(os.path.expanduser(p))), None)
        self.targets: tuple[str, ...] = tuple(seen)
        self._on_change = on_change
        self._on_mode = on_mode
        self._debounce = max(debounce_ms, 0) / 1000
        self._max_delay = max(max_delay_ms, debounce_ms) / 1000
        self._force_polling = force_polling
        self._poll_interval = poll_interval
        self._health_interval = max(health_interval, 0.01)
        self.mode = ""
        self.reason = ""
        self.restarts = 0
        self.batch_started = 0.0
        self._announced = ("", "")
        self._restart_times: list[float] = []
        self._cond = threading.Condition()
        self._pending: dict[str, None] = {}
        self._first: float | None = None
        self._last = 0.0
        self._rearm = False
        # Watched roots deleted or moved away: their watches are stale.
        self._dirty: set[str] = set()
        self._survey_paths: set[str] = set()  # created / deleted / moved paths to look at again
        self._stopping = False
        self._started = False
        self._arm_lock = threading.RLock()
        self._observer: Any = None
        self._watches: dict[tuple[str, bool], Any] = {}
        self._gates: dict[str, frozenset[str]] = {}  # non-recursive folder -> children that matter
        # Symlinked folders found inside the watched trees whose targets lie outside them:
        # link path -> real target. And the reverse, for reporting: real target -> link paths.
        self._links: dict[str, str] = {}
        self._aliases: dict[str, tuple[str, ...]] = {}
        self._links_left_out = 0
        self._too_large: dict[str, str] = {}  # links whose targets are too large to watch
        # Folders that could not be listed (nothing inside them is watched), and those watched on
        # their own since they became listable.
        self._unlisted: set[str] = set()
        self._extras: set[str] = set()
        # Every ancestor-or-self of a watched root -> those roots (an event there re-arms).
        self._root_index: dict[str, tuple[str, ...]] = {}
        self._thread: threading.Thread | None = None
        self._running = threading.Event()  # set by the debouncer thread once it runs

    # --- life cycle ------------------------------------------------------------------------------

    def start(self) -> None:
        with self._arm_lock:
            if self._started:
                return
            self._started = True
            for t in self.targets:
                self._survey(t)
            reason = ""
            if self._force_polling:
                reason = "polling was forced"
            else:
                net = _network_fs(self.targets)
                if net:
                    reason = f"network file system ({net}): native change events are unreliable"
            if not reason:
                if _native_observer_class() is _polling_observer_class():
                    reason = "no native file watcher on this platform"
                else:
                    reason = self._start_native()
            if reason:
                self._start_polling(reason)
            self._announced = (self.mode, self.reason)
            self._start_debouncer()

    def _start_debouncer(self) -> None:
        """Start the debouncer thread and see it run: a thread can die as it starts (the settrace
        race, tests/settrace_guard.py), and this one is what would notice any other dying."""
        for _ in range(_STOP_ATTEMPTS):
            self._running.clear()
            self._thread = _new_thread(self._run, "skillprism-watch-debounce")
            self._thread.start()
            while self._thread.is_alive() and not self._running.wait(0.01):
                pass
            if self._running.is_set():
                return
            log.warning("the file watcher's debouncer thread ended as it started; starting another")
        raise RuntimeError("the file watcher's debouncer thread cannot be started")

    def stop(self, timeout: float = DEFAULT_STOP_TIMEOUT) -> bool:
        """Stop watching and join every thread this watcher started (safe to call twice). Waits at
        most `timeout` seconds in all (a callback still running is not interrupted); True when
        every thread ended."""
        deadline = time.monotonic() + max(timeout, 0.0)
        with self._cond:
            self._stopping = True
            self._cond.notify_all()
        ok = True
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(max(0.0, deadline - time.monotonic()))
            ok = not thread.is_alive()
        # The debouncer may be re-arming (a walk of a large tree): stop the observer anyway.
        locked = self._arm_lock.acquire(timeout=max(0.0, deadline - time.monotonic()))
        try:
            obs, self._observer = self._observer, None
            self._watches.clear()
        finally:
            if locked:
                self._arm_lock.release()
        if obs is not None:
            ok = _stop_observer(obs, deadline) and ok
        return ok

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
        if err.errno == errno.ENOSPC:
            return f"inotify watch limit reached ({err}); raise fs.inotify.max_user_watches"
        if err.errno == errno.EMFILE:
            return f"inotify instance limit reached ({err}); raise fs.inotify.max_user_instances"
        return f"native file watching failed: {err}"

    def _start_native(self) -> str:
        """Start a native observer and arm it; '' on success, else why it cannot be used."""
        if self._stopping:
            return ""
        try:
            self._observer = _native_observer_class()()
            self._observer.start()
            self.mode = "native"
            self._arm()
        except OSError as err:
            self._drop_observer()
            return self._native_failure(err)
        return ""

    def _drop_observer(self) -> None:
        obs, self._observer = self._observer, None
        self._watches.clear()
        if obs is not None:
            _stop_observer(obs, time.monotonic() + DEFAULT_STOP_TIMEOUT)

    def _start_polling(self, reason: str) -> None:
        self._drop_observer()
        if self._stopping:
            return
        self.mode, self.reason = "polling", reason
        self._observer = _polling_observer_class()(timeout=self._poll_interval)
        self._observer.start()
        self._arm()

    def _dead_thread(self) -> str:
        """Names the first thread of the observer that died, or ''."""
        obs = self._observer
        if obs is None:
            return ""
        for thread in _threads_of(obs):
            if _died(thread):
                return f"its thread {thread.name} ({type(thread).__name__}) ended unexpectedly"
        return ""

    def _recover(self, why: str) -> None:
        """Replace a failed observer by a new one (native, unless it failed too often: then poll)
        and report every watched folder as changed: what happened meanwhile was not seen."""
        with self._arm_lock:
            if self._stopping:
                return
            now = time.monotonic()
            self._restart_times = [t for t in self._restart_times if now - t < RESTART_WINDOW]
            self._restart_times.append(now)
            self.restarts += 1
            was = self.mode
            log.warning("the file watcher's %s observer failed (%s); replacing it", was, why)
            self._drop_observer()
            if was == "polling":
                base = self.reason.split("; restarted after", 1)[0]
                self._start_polling(f"{base}; restarted after the polling observer failed ({why})")
            elif len(self._restart_times) > MAX_NATIVE_RESTARTS:
                self._start_polling(
                    f"the native file watcher failed {len(self._restart_times)} times within "
                    f"{RESTART_WINDOW:.0f} s (last: {why}); polling instead"
                )
            else:
                failure = self._start_native()
                if failure:
                    self._start_polling(failure)
                elif self.mode == "native":
                    self.reason = f"the native file watcher failed ({why}) and was restarted"
        self._catch_up()

    def _catch_up(self) -> None:
        paths = [*self.targets, *self._links]
        now = time.monotonic()
        with self._cond:
            for p in paths:
                self._pending[p] = None
            if self._first is None:
                self._first = now
            self._last = now
            self._cond.notify_all()

    # --- what to watch ---------------------------------------------------------------------------

    def _roots(self) -> list[tuple[str, tuple[str, ...]]]:
        """The folders watched recursively, each with the paths it is reported under (none: its
        own): every target (through its real path when it is a link) and every link target."""
        out: dict[str, tuple[str, ...]] = {}
        for t in self.targets:
            real = os.path.realpath(t) if os.path.islink(t) else t
            if real != t:
                out[real] = (*out.get(real, ()), t)
            else:
                out.setdefault(t, ())
        for real, links in self._link_targets().items():
            out[real] = (*out.get(real, ()), *links)
        return list(out.items())

    def _link_targets(self) -> dict[str, tuple[str, ...]]:
        by_real: dict[str, list[str]] = {}
        for link, real in sorted(self._links.items()):
            by_real.setdefault(real, []).append(link)
        reals = sorted(by_real)
        # A target inside another one is watched through it.
        keep = [r for r in reals if not any(_is_under(r, q) for q in reals)]
        self._links_left_out = max(0, len(keep) - MAX_LINK_WATCHES)
        return {r: tuple(by_real[r]) for r in keep[:MAX_LINK_WATCHES]}

    def _desired(
        self,
    ) -> tuple[dict[tuple[str, bool], tuple[str, ...]], dict[str, set[str]]]:
        """The folders to schedule now: each existing root recursively plus its parent (to see it
        deleted, renamed or recreated), and for a missing root its nearest existing parent; both
        of the latter non-recursive and gated to the children on the way to a root. Folders that
        became listable inside a recursive watch are scheduled on their own."""
        want: dict[tuple[str, bool], tuple[str, ...]] = {}
        gates: dict[str, set[str]] = {}
        for t, aliases in self._roots():
            if os.path.isdir(t):
                want[(t, True)] = aliases
                parent = os.path.dirname(t)
                if parent != t:
                    want.setdefault((parent, False), ())
                    gates.setdefault(parent, set()).add(t)
            else:
                anchor = _nearest_existing(t)
                want.setdefault((anchor, False), ())
                rel = os.path.relpath(t, anchor).split(os.sep)
                gates.setdefault(anchor, set()).add(os.path.join(anchor, rel[0]))
        recursive = [p for p, r in want if r]

        def covered(path: str, rec: bool) -> bool:
            return any(
                (q != path or not rec) and (q == path or _is_under(path, q)) for q in recursive
            )

        out = {k: v for k, v in want.items() if not covered(*k)}
        # Each on its own, nested or not: the watch around one could not see into it.
        for folder in sorted(self._extras):
            if os.path.isdir(folder):
                out[(folder, True)] = ()
        return out, gates

    def _survey(self, top: str, depth: int = DEFAULT_MAX_DEPTH) -> bool:
        """Look below `top` (bounded like the skill search) for symlinked folders and folders that
        cannot be listed; True when either list changed."""
        changed = False
        roots = [r for r, _ in self._roots()]
        stack = [(top, 0)]
        seen = 0
        while stack and seen < DEFAULT_MAX_DIRS:
            folder, level = stack.pop()
            seen += 1
            try:
                with os.scandir(folder) as it:
                    entries = list(it)
            except OSError:
                if os.path.isdir(folder) and folder not in self._unlisted:
                    self._unlisted.add(folder)
                    changed = True
                continue
            for entry in entries:
                try:
                    if entry.is_symlink():
                        if entry.is_dir():
                            changed = self._add_link(entry.path, roots) or changed
                    elif (
                        level + 1 < depth and entry.is_dir() and not in_ignored_dir(entry.path, top)
                    ):
                        stack.append((entry.path, level + 1))
                except OSError:
                    continue
        return changed

    def _add_link(self, link: str, roots: list[str]) -> bool:
        real = os.path.realpath(link)
        if self._links.get(link) == real:
            return False
        if any(_at_or_under(real, p) for p in _NEVER_WATCHED):
            return False
        # Inside a watched tree already, or around one (a link to an ancestor): never a new watch.
        if any(_at_or_under(real, r) or _is_under(r, real) for r in roots):
            return False
        # A skill folder is small; a link to a large tree (a system folder, a home) would put a
        # watch on every folder in it. Such a link is left unwatched, and `reason` says so.
        if _count_dirs(real, MAX_LINK_TARGET_DIRS) >= MAX_LINK_TARGET_DIRS:
            self._too_large[link] = real
            return False
        self._too_large.pop(link, None)
        self._links[link] = real
        self._survey(real)
        return True

    def _forget_below(self, path: str) -> bool:
        """Drop what was known at or below `path`, which is gone or was replaced."""
        changed = False
        for link in [k for k in self._links if _at_or_under(k, path)]:
            del self._links[link]
            changed = True
        for link in [k for k in self._too_large if _at_or_under(k, path)]:
            del self._too_large[link]
            changed = True
        for group in (self._unlisted, self._extras):
            gone = {u for u in group if _at_or_under(u, path)}
            if gone:
                group.difference_update(gone)
                changed = True
        return changed

    def _resurvey(self, paths: Iterable[str]) -> bool:
        """Take in created, deleted and moved paths: links and unreadable folders come and go.
        A folder that arrives whole (copied or moved in) needs no walk here: watchdog reports
        each entry below it as created too."""
        changed = False
        roots = [r for r, _ in self._roots()]
        for p in sorted(paths):
            known = self._links.get(p)
            if not os.path.lexists(p):
                changed = self._forget_below(p) or changed
            elif os.path.islink(p):
                if known is not None and known != os.path.realpath(p):
                    changed = self._forget_below(p) or changed
                if os.path.isdir(p):
                    changed = self._add_link(p, roots) or changed
            elif os.path.isdir(p):
                if known is not None:  # a link replaced by a folder
                    changed = self._forget_below(p) or changed
                if p not in self._unlisted and not _listable(p):
                    self._unlisted.add(p)
                    changed = True
        return changed

    def _arm(self) -> None:
        """Bring the scheduled watches in line with what exists now."""
        with self._arm_lock:
            obs = self._observer
            if obs is None or self._stopping:
                return
            with self._cond:
                dirty, self._dirty = self._dirty, set()
                survey, self._survey_paths = self._survey_paths, set()
            if survey:
                self._resurvey(survey)
            roots = {r for r, _ in self._roots()}
            for folder in sorted(self._unlisted):
                if not _listable(folder):
                    continue
                self._unlisted.discard(folder)
                if folder in roots:
                    dirty.add(folder)  # scheduled while unreadable: watched nothing inside
                else:
                    self._extras.add(folder)
                self._survey(folder)
            want, gates = self._desired()
            self._gates = {k: frozenset(v) for k, v in gates.items()}
            self._index_roots(want)
            for key in list(self._watches):
                if key not in want or (key[1] and key[0] in dirty):
                    self._unschedule(obs, self._watches.pop(key))
            for key in want:
                if key in self._watches:
                    continue
                if self._stopping:
                    return
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
                except PermissionError:
                    self._unlisted.add(path)  # its parent's gate sees the chmod
                except OSError as err:
                    if self.mode == "native":
                        self._start_polling(self._native_failure(err))
                        return
                    raise
            self._note_left_out()

    def _note_left_out(self) -> None:
        """Name in `reason` the symlinked folders whose targets are not watched."""
        note = "not watched: "
        base = self.reason.split(f"; {note}", 1)[0]
        if base.startswith(note):
            base = ""
        parts = []
        if self._links_left_out:
            parts.append(
                f"{self._links_left_out} symlinked folder(s) beyond the first {MAX_LINK_WATCHES}"
            )
        if self._too_large:
            first = sorted(self._too_large)[0]
            parts.append(
                f"{len(self._too_large)} symlinked folder(s) leading to more than "
                f"{MAX_LINK_TARGET_DIRS:,} folders, e.g. {first} -> {self._too_large[first]}"
            )
        if parts:
            base = f"{base}; {note}{'; '.join(parts)}" if base else f"{note}{'; '.join(parts)}"
        self.reason = base

    @staticmethod
    def _unschedule(obs: Any, watch: Any) -> None:
        emitters = [e for e in list(obs.emitters) if e.watch == watch]
        held = _held_groups(emitters)
        try:
            obs.unschedule(watch)
        except KeyError:
            pass  # its emitter had already stopped along with the folder
        except Exception:
            log.debug("unscheduling %s failed", watch, exc_info=True)
        _end_threads(emitters, time.monotonic() + 1.0, held)

    def _index_roots(self, want: dict[tuple[str, bool], tuple[str, ...]]) -> None:
        index: dict[str, list[str]] = {}
        aliases: dict[str, tuple[str, ...]] = {}
        for t, shown in self._roots():
            if shown:
                aliases[t] = shown
            cur = t
            while True:
                index.setdefault(cur, []).append(t)
                parent = os.path.dirname(cur)
                if parent == cur:
                    break
                cur = parent
        self._root_index = {k: tuple(v) for k, v in index.items()}
        self._aliases = aliases

    def _shown(self, path: str) -> list[str]:
        """`path` as reported: under a link's path when it lies in the link's target (and again
        for a link inside a link's target)."""
        out = [path]
        for _ in range(8):
            nxt = [q for p in out for q in self._alias_of(p)]
            if nxt == out:
                break
            out = nxt
        return out

    def _alias_of(self, path: str) -> list[str]:
        aliases = self._aliases
        if not aliases:
            return [path]
        cur = path
        while True:
            links = aliases.get(cur)
            if links is not None:
                rest = path[len(cur) :]
                return [link + rest for link in links]
            parent = os.path.dirname(cur)
            if parent == cur:
                return [path]
            cur = parent

    # --- events ----------------------------------------------------------------------------------

    def _enqueue(self, handler: _Handler, kind: str, paths: list[str]) -> None:
        now = time.monotonic()
        keep: list[str] = []
        dirty: list[str] = []
        survey: list[str] = []
        rearm = False
        for raw in paths:
            p = os.path.normpath(raw)
            for t in self._root_index.get(p, ()):
                rearm = True
                if kind in ("deleted", "moved"):
                    dirty.append(t)
            if not handler.recursive:
                gate = self._gates.get(handler.base, frozenset())
                if p not in gate and p != handler.base:
                    continue
            elif is_noise(p, handler.base):
                continue
            if kind in _SHAPE_CHANGES:
                survey.append(p)
                rearm = True
            if p in self._unlisted:
                rearm = True  # a chmod may have made it listable
            keep.extend(self._shown(p))
        if not keep and not rearm:
            return
        with self._cond:
            if self._stopping:
                return
            for p in keep:
                self._pending[p] = None
            self._rearm = self._rearm or rearm
            self._dirty.update(dirty)
            self._survey_paths.update(survey)
            if self._first is None:
                self._first = now
            self._last = now
            self._cond.notify_all()

    def _check(self) -> None:
        """The periodic health check: replace an observer whose thread died."""
        with self._arm_lock:
            why = self._dead_thread()
        if why:
            self._recover(why)

    def _announce(self) -> None:
        state = (self.mode, self.reason)
        if state == self._announced or self._on_mode is None:
            self._announced = state
            return
        self._announced = state
        try:
            self._on_mode(*state)
        except Exception:
            log.exception("skill watcher mode callback failed")

    def _run(self) -> None:
        self._running.set()
        next_check = time.monotonic()
        while True:
            batch: list[str] = []
            rearm = False
            with self._cond:
                if self._stopping:
                    return
                now = time.monotonic()
                if now >= next_check:
                    check = True
                else:
                    check = False
                    if self._first is None:
                        self._cond.wait(next_check - now)
                        continue
                    due = min(self._last + self._debounce, self._first + self._max_delay)
                    if now < due:
                        self._cond.wait(min(due, next_check) - now)
                        continue
                    batch = sorted(self._pending)
                    first, rearm = self._first, self._rearm
                    self._pending, self._first, self._rearm = {}, None, False
            if check:
                next_check = time.monotonic() + self._health_interval
                try:
                    self._check()
                except Exception:
                    log.exception("checking the file watcher failed")
                self._announce()
                continue
            if rearm:
                try:
                    self._arm()
                except Exception:
                    log.exception("re-arming the file watcher failed")
                self._announce()
            if not batch:
                continue
            self.batch_started = first
            try:
                self._on_change(batch)
            except Exception:
                log.exception("skill watcher callback failed")
