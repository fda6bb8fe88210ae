"""The window's one mechanism for background work: its engine process, as a Qt object.

`EngineClient` starts the engine (engine/launch.py: isolated from the folder it runs in), sends it
requests and turns what comes back into signals on the GUI thread. Nothing blocks: the socket is
read when Qt says it is readable, and the frames that arrived are decoded a few milliseconds'
worth at a time, between which the event loop runs (a large answer comes in many small frames,
engine/protocol.py). Only the newest request of each kind is answered to the window; an older
one's answer is dropped here, and the engine stops working on it. When the engine dies the window
hears it at once (`sig_died`) and keeps what it shows; `restart()` starts a new one.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import shutil
import signal
import socket
import subprocess
import time
from collections import deque
from typing import Any

from PySide6.QtCore import QObject, QSocketNotifier, QTimer, Signal

from skillprism.engine.launch import launch_engine, take_prestarted
from skillprism.engine.protocol import (
    ANSWER,
    BYE,
    CANCEL,
    EVENT,
    FAILED,
    HELLO,
    PART,
    PROGRESS,
    PROTOCOL_VERSION,
    REQUEST,
    FrameSplitter,
    ProtocolError,
    decode,
    encode,
)
from skillprism.engine.rows import RowList
from skillprism.engine.views import EngineInfo, Failure

log = logging.getLogger("skillprism.window")

SLICE_S = 0.008  # decoding and applying per pass of the event loop, at most (about)
READ_BYTES = 1 << 20
STOP_WAIT_S = 3.0  # how long a closing window waits for the engine to end before killing it


class EngineClient(QObject):
    """See the module doc. `request(kind, *args)` returns the request's id."""

    sig_ready = Signal(object)
    """The engine is up and said who it is (EngineInfo)."""
    sig_answer = Signal(str, object)
    """The newest request of a kind was answered, or the engine sent an update unasked
    (kind "refresh"): (kind, payload)."""
    sig_failed = Signal(str, object)
    """The newest request of a kind failed: (kind, Failure)."""
    sig_event = Signal(str, object)
    """Something the engine says unasked: (name, payload), e.g. ("watch", (mode, reason))."""
    sig_progress = Signal(str, int, int, str)
    """How far a request is: (kind, done, total, what)."""
    sig_busy = Signal(bool)
    """Work started (True) or nothing is pending any more (False)."""
    sig_died = Signal(str)
    """The engine ended without being asked to: why, in a sentence."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.info: EngineInfo | None = None
        self._process: subprocess.Popen[bytes] | None = None
        self._sock: socket.socket | None = None
        self._notifier: QSocketNotifier | None = None
        self._temp = ""
        self._splitter = FrameSplitter()
        self._frames: deque[bytes] = deque()
        self._decoded: deque[tuple[Any, ...]] = deque()  # decoded, to be handed on next pass
        self._next_id = 0
        self._newest: dict[str, int] = {}
        self._pending: dict[str, int] = {}
        self._working = False  # the engine works on something it gave itself (a refresh)
        self._parts_id: int | None = None
        self._parts: dict[str, list[Any]] = {}
        self._draining = False
        self._stopping = False
        self.dead = ""  # why the engine ended ("" while it runs or before it starts)
        self._drain_timer = QTimer(self, singleShot=True, interval=0)
        self._drain_timer.timeout.connect(self._drain)
        self._reap_timer = QTimer(self, interval=50)
        self._reap_timer.timeout.connect(self._reap)
        self._death_reason = ""
        self._death_deadline = 0.0

    # --- life ------------------------------------------------------------------------------------

    def start(self) -> None:
        """Start an engine (the window asks before its first request)."""
        try:
            launched = take_prestarted() or launch_engine()
        except OSError as err:
            self.dead = f"the engine process could not be started: {err}"
            QTimer.singleShot(0, lambda: self.sig_died.emit(self.dead))
            return
        self._process, self._temp, mine = launched.process, launched.temp, launched.sock
        mine.setblocking(False)
        self._sock = mine
        self._splitter = FrameSplitter()
        self._frames.clear()
        self._decoded.clear()
        self._parts_id, self._parts = None, {}
        self.dead = ""
        self._stopping = False
        self._notifier = QSocketNotifier(mine.fileno(), QSocketNotifier.Type.Read, self)
        self._notifier.activated.connect(self._on_readable)

    @property
    def pid(self) -> int:
        return self._process.pid if self._process is not None else 0

    @property
    def running(self) -> bool:
        return self._sock is not None and not self.dead

    def restart(self) -> None:
        """A new engine after the last one died (or to recover from a wedged one)."""
        self._close(kill=True)
        self._newest.clear()
        self._set_pending({}, working=False)
        self.info = None
        self.start()

    def shutdown(self) -> None:
        """Ask the engine to end, wait a little, then make sure it has (idempotent)."""
        self._stopping = True
        self._close(kill=False)

    def _close(self, *, kill: bool) -> None:
        self._drain_timer.stop()
        self._reap_timer.stop()
        if self._notifier is not None:
            self._notifier.setEnabled(False)
            self._notifier.deleteLater()
            self._notifier = None
        sock, self._sock = self._sock, None
        if sock is not None:
            with contextlib.suppress(OSError):
                if not kill:
                    sock.setblocking(True)
                    sock.settimeout(0.5)
                    sock.sendall(encode((BYE,)))
            sock.close()  # the engine sees the end of its input and stops
        process, self._process = self._process, None
        if process is not None:
            try:
                process.wait(timeout=0 if kill else STOP_WAIT_S)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(OSError):
                    process.send_signal(signal.SIGTERM if not kill else signal.SIGKILL)
                try:
                    process.wait(timeout=STOP_WAIT_S)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()
        if self._temp:
            shutil.rmtree(self._temp, ignore_errors=True)
            self._temp = ""

    # --- requests --------------------------------------------------------------------------------

    def request(self, kind: str, *args: Any) -> int:
        """Ask the engine for `kind` with `args`; its answer supersedes every earlier one of the
        kind. Asked of a dead engine, it fails at once (the window says the engine stopped)."""
        self._next_id += 1
        job = self._next_id
        previous = self._newest.get(kind)
        self._newest[kind] = job
        self._set_pending({**self._pending, kind: job})
        if self._sock is None or self.dead:
            failure = Failure(self.dead or "the engine is not running")
            QTimer.singleShot(0, lambda: self._failed(job, kind, failure))
            return job
        try:
            if previous is not None and previous in self._pending.values():
                self._sock.send(encode((CANCEL, previous)))
            self._send(encode((REQUEST, job, kind, args)))
        except OSError as err:
            self._on_death(f"the engine stopped answering ({err.strerror or err})")
        return job

    def cancel(self, kind: str) -> None:
        """Stop the pending request of `kind`: the engine stops it at its next checkpoint (a
        live trigger run stops every CLI it started) and no answer of it is shown."""
        job = self._pending.get(kind)
        if job is None:
            return
        self._next_id += 1
        self._newest[kind] = self._next_id  # an id no answer carries: whatever comes is dropped
        self._set_pending({k: v for k, v in self._pending.items() if k != kind})
        if self._sock is not None and not self.dead:
            try:
                self._send(encode((CANCEL, job)))
            except OSError as err:
                self._on_death(f"the engine stopped answering ({err.strerror or err})")

    def _send(self, data: bytes) -> None:
        """Send all of `data` on the non-blocking socket (requests are small: a full buffer is
        waited out briefly rather than queued)."""
        assert self._sock is not None
        view = memoryview(data)
        deadline = time.monotonic() + 5.0
        while view:
            try:
                sent = self._sock.send(view)
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise OSError("the engine takes no requests") from None
                time.sleep(0.001)
                continue
            view = view[sent:]

    def pending(self, kind: str) -> bool:
        return kind in self._pending

    def _set_pending(self, pending: dict[str, int], working: bool | None = None) -> None:
        """Change what is pending (and whether the engine works on its own); say when the
        engine turns busy or idle."""
        was = bool(self._pending) or self._working
        self._pending = pending
        if working is not None:
            self._working = working
        now = bool(self._pending) or self._working
        if was != now:
            self.sig_busy.emit(now)

    def _settle(self, job: int, kind: str) -> bool:
        """Whether this answer is the newest of its kind (and then it is no longer pending)."""
        if job < 0:  # sent unasked: always shown
            self._set_pending(self._pending, working=False)
            return True
        if self._newest.get(kind) != job:
            return False
        if self._pending.get(kind) == job:
            self._set_pending({k: v for k, v in self._pending.items() if k != kind})
        return True

    # --- reading ---------------------------------------------------------------------------------

    def _on_readable(self) -> None:
        sock = self._sock
        if sock is None:
            return
        got = 0
        while got < 8 * READ_BYTES:
            try:
                data = sock.recv(READ_BYTES)
            except BlockingIOError:
                break
            except OSError as err:
                self._on_death(f"the engine's connection broke ({err.strerror or err})")
                return
            if not data:
                self._on_death("")
                return
            got += len(data)
            try:
                self._frames.extend(self._splitter.feed(data))
            except ProtocolError as err:
                self._on_death(f"the engine sent something that is not a message ({err})")
                return
        self._schedule()

    def _schedule(self) -> None:
        if (self._frames or self._decoded) and not self._drain_timer.isActive():
            self._drain_timer.start()

    def _drain(self) -> None:
        """Decode and hand on frames for about SLICE_S, then let the event loop run."""
        if self._draining:
            return
        self._draining = True
        try:
            deadline = time.perf_counter() + SLICE_S
            while (self._frames or self._decoded) and time.perf_counter() < deadline:
                if self._decoded:
                    self._dispatch(self._decoded.popleft())
                    continue
                frame = self._frames.popleft()
                try:
                    message = decode(frame)
                except Exception as err:
                    log.exception("a message from the engine could not be read")
                    self._on_death(f"a message from the engine could not be read ({err})")
                    return
                if time.perf_counter() >= deadline:
                    # Decoding took the pass (a large frame, or a collection of the garbage
                    # it made): the message is handed on in the next pass, so that applying it
                    # and the repaint after it are not one long pause with the decoding.
                    self._decoded.append(message)
                    break
                self._dispatch(message)
        finally:
            self._draining = False
        self._schedule()

    def _dispatch(self, message: tuple[Any, ...]) -> None:
        tag = message[0]
        if tag == PART:
            _tag, job, name, items = message
            if job != self._parts_id:
                self._parts_id, self._parts = job, {}
            self._parts.setdefault(name, []).extend(items)
        elif tag == ANSWER:
            _tag, job, kind, payload = message
            if job == self._parts_id:
                if (
                    self._parts
                    and dataclasses.is_dataclass(payload)
                    and not isinstance(payload, type)
                ):
                    payload = dataclasses.replace(
                        payload,
                        **{
                            name: (
                                RowList.from_plain(empty.kind, items)
                                if isinstance(empty := getattr(payload, name), RowList)
                                else items
                            )
                            for name, items in self._parts.items()
                        },
                    )
                self._parts_id, self._parts = None, {}
            if self._settle(job, kind):
                self.sig_answer.emit(kind, payload)
        elif tag == FAILED:
            _tag, job, kind, failure = message
            if job == self._parts_id:
                self._parts_id, self._parts = None, {}
            self._failed(job, kind, failure)
        elif tag == PROGRESS:
            _tag, job, kind, done, total, what = message
            if self._newest.get(kind) == job or job < 0:
                self.sig_progress.emit(kind, done, total, what)
        elif tag == EVENT:
            _tag, name, payload = message
            if name == "working":
                self._set_pending(self._pending, working=True)
                return
            self.sig_event.emit(name, payload)
        elif tag == HELLO:
            info: EngineInfo = message[1]
            if info.protocol != PROTOCOL_VERSION:
                self._on_death(
                    f"the engine speaks protocol {info.protocol}, the window {PROTOCOL_VERSION}"
                )
                return
            self.info = info
            self.sig_ready.emit(info)

    def _failed(self, job: int, kind: str, failure: Failure) -> None:
        if self._settle(job, kind):
            if failure.details:
                log.error("%s failed in the engine:\n%s", kind, failure.details)
            self.sig_failed.emit(kind, failure)

    # --- death -----------------------------------------------------------------------------------

    def _on_death(self, why: str) -> None:
        """The engine's end of the socket closed (or broke): find out how it ended."""
        if self.dead or self._sock is None:
            return
        if self._notifier is not None:
            self._notifier.setEnabled(False)
        self.dead = why or "the engine stopped"
        self._death_reason = why
        self._death_deadline = time.monotonic() + 1.0  # the window says so within a second
        self._reap_timer.start()
        self._reap()

    def _reap(self) -> None:
        """Wait (briefly, without blocking) for the process's exit status, then say so."""
        process = self._process
        code = process.poll() if process is not None else None
        if code is None and time.monotonic() < self._death_deadline:
            return
        self._reap_timer.stop()
        if self._stopping:
            return
        if code is None:
            detail = "it no longer answers"
        elif code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = f"signal {-code}"
            detail = f"it was ended by {name}"
        else:
            detail = f"it exited with status {code}"
        why = self._death_reason
        self.dead = f"The engine process stopped ({why + '; ' if why else ''}{detail})."
        log.error("%s", self.dead)
        self._frames.clear()
        self._decoded.clear()
        pending = dict(self._pending)
        self._set_pending({}, working=False)
        self.sig_died.emit(self.dead)
        for kind in pending:
            self.sig_failed.emit(kind, Failure(self.dead))
