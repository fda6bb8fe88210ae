"""The window's GUI thread seen from outside: `_NET_WM_PING` round trips under Xvfb.

`bench_stall.py` measures blocks from inside the window (a heartbeat timer on the GUI thread).
This probe asks the X server instead, as a window manager does when it decides that a window is
"not responding": a separate process sends the window `_NET_WM_PING` client messages, one at a
time, every few milliseconds, and times each answer. Qt answers a ping on the GUI thread, so a
round trip of B ms means the GUI thread could not take input for about B ms. The window runs
with the real xcb platform plugin on a real X server (Xvfb), driven through the same
interactions as `bench_stall.py` (open, filter, select, switch runtime, reload, save, budget,
compare), with the security pass on.

    python bench/bench_ping.py --set ../realsets        # a real set
    python bench/bench_ping.py --keep /tmp/r10k         # 10,000 generated skills (made if absent)

Prints, per interaction, the longest round trip seen from outside beside the longest block the
heartbeat saw inside in the same run, and the target (50 ms). Needs Xvfb (Debian's `xvfb`) and
python-xlib (the `bench` extra).
"""

from __future__ import annotations

import argparse
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

BLOCK_TARGET_MS = 50.0
PING_EVERY_S = 0.005
HERE = Path(__file__).resolve().parent


def start_xvfb() -> tuple[subprocess.Popen[bytes], str]:
    """An Xvfb on a display it picks itself (-displayfd): (process, ":N")."""
    read, write = os.pipe()
    server = subprocess.Popen(
        ["Xvfb", "-displayfd", str(write), "-screen", "0", "1600x1000x24", "-nolisten", "tcp"],
        pass_fds=(write,),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    os.close(write)
    number = b""
    while not number.endswith(b"\n"):
        chunk = os.read(read, 16)
        if not chunk:
            raise SystemExit("Xvfb did not start")
        number += chunk
    os.close(read)
    return server, f":{number.decode().strip()}"


class _Probe:
    """A sampling thread: `samples` of (when, round trip), `_run` until `stop`."""

    def __init__(self, name: str) -> None:
        self.samples: list[tuple[float, float]] = []
        self._stop = threading.Event()
        self.thread = threading.Thread(target=self._run, name=name, daemon=True)

    def _run(self) -> None:
        raise NotImplementedError

    def start(self) -> None:
        self.thread.start()

    def stop(self) -> None:
        self._stop.set()
        self.thread.join(5)


class Pinger(_Probe):
    """Pings the top-level window of process `pid` on `display_name` until stopped; keeps
    (sent at, round trip seconds) for every ping, on the monotonic clock."""

    def __init__(self, display_name: str, pid: int) -> None:
        from Xlib import X, display

        self.X = X
        self.display = display.Display(display_name)
        self.root = self.display.screen().root
        # Qt answers on the root window, to clients that listen for its structure changes (or
        # redirect them, as a window manager does; there is none here)
        self.root.change_attributes(event_mask=X.StructureNotifyMask)
        self.protocols = self.display.intern_atom("WM_PROTOCOLS")
        self.ping = self.display.intern_atom("_NET_WM_PING")
        self.pid_atom = self.display.intern_atom("_NET_WM_PID")
        self.pid = pid
        self.unanswered_since: float | None = None
        super().__init__("pinger")

    def _window(self):  # type: ignore[no-untyped-def]
        """The process's largest viewable top-level window that takes pings, or None."""
        best, best_area = None, 0
        for child in self.root.query_tree().children:
            try:
                pid = child.get_full_property(self.pid_atom, self.X.AnyPropertyType)
                if pid is None or int(pid.value[0]) != self.pid:
                    continue
                if child.get_attributes().map_state != self.X.IsViewable:
                    continue
                if self.ping not in (child.get_wm_protocols() or ()):
                    continue
                geometry = child.get_geometry()
            except Exception:  # a window that went away while asked
                continue
            area = geometry.width * geometry.height
            if area > best_area:
                best, best_area = child, area
        return best

    def _run(self) -> None:
        from Xlib import protocol

        window = None
        while window is None and not self._stop.is_set():
            window = self._window()
            if window is None:
                time.sleep(0.05)
        serial = 0
        fd = self.display.fileno()
        while not self._stop.is_set():
            serial += 1
            event = protocol.event.ClientMessage(
                window=window,
                client_type=self.protocols,
                data=(32, [self.ping, serial, window.id, 0, 0]),
            )
            sent = time.monotonic()
            window.send_event(event, event_mask=self.X.NoEventMask)
            self.display.flush()
            answered = False
            while not answered and not self._stop.is_set():
                if not self.display.pending_events():
                    select.select([fd], [], [], 0.05)
                    if not self.display.pending_events():
                        self.unanswered_since = sent
                        continue
                reply = self.display.next_event()
                if (
                    reply.type == self.X.ClientMessage
                    and reply.client_type == self.protocols
                    and reply.data[1][0] == self.ping
                    and reply.data[1][1] == serial
                ):
                    answered = True
            if answered:
                self.unanswered_since = None
                self.samples.append((sent, time.monotonic() - sent))
            time.sleep(max(0.0, PING_EVERY_S - (time.monotonic() - sent)))


class ServerProbe(_Probe):
    """The control for the pings: plain round trips to the X server alone (GetInputFocus, which
    no client answers), on a connection of its own, every few milliseconds. A long ping beside a
    long server round trip in the same interaction was the X server or this probe waiting for a
    processor, not the window's GUI thread."""

    def __init__(self, display_name: str) -> None:
        from Xlib import display

        self.display = display.Display(display_name)
        super().__init__("server-probe")

    def _run(self) -> None:
        while not self._stop.is_set():
            sent = time.monotonic()
            self.display.get_input_focus()
            self.samples.append((sent, time.monotonic() - sent))
            time.sleep(max(0.0, PING_EVERY_S - (time.monotonic() - sent)))


def worst_ms(samples: list[tuple[float, float]], start: float, end: float) -> tuple[float, int]:
    """The longest round trip sent in [start, end], in ms, and how many were sent."""
    trips = [trip for sent, trip in samples if start <= sent <= end]
    return max(trips, default=0.0) * 1000, len(trips)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=10_000)
    parser.add_argument("--keep", metavar="DIR", help="generate into (or reuse) DIR")
    parser.add_argument("--set", metavar="DIR", help="measure on this skill set as it is")
    args = parser.parse_args(argv)
    if shutil.which("Xvfb") is None:
        raise SystemExit("needs Xvfb (Debian: apt-get install xvfb)")
    try:
        import Xlib  # noqa: F401
    except ImportError:
        raise SystemExit("needs python-xlib (pip install -e '.[bench]')") from None

    server, display_name = start_xvfb()
    tmp = tempfile.TemporaryDirectory(prefix="skillprism-ping-")
    intervals, figures = Path(tmp.name) / "intervals.json", Path(tmp.name) / "figures.json"
    command = [sys.executable, str(HERE / "bench_stall.py"), "--intervals", str(intervals)]
    command += ["--json", str(figures), "-n", str(args.n)]
    if args.set:
        command += ["--set", args.set]
    elif args.keep:
        command += ["--keep", args.keep]
    env = dict(os.environ, QT_QPA_PLATFORM="xcb", DISPLAY=display_name)
    try:
        window = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, text=True)
        pinger, server_probe = Pinger(display_name, window.pid), ServerProbe(display_name)
        pinger.start()
        server_probe.start()
        out, _ = window.communicate()
        pinger.stop()
        server_probe.stop()
    finally:
        server.terminate()
        server.wait(10)
    if window.returncode not in (0, 1) or not intervals.exists():
        print(out)
        raise SystemExit(f"bench_stall.py failed ({window.returncode})")

    # bench_stall's rows: (interaction, longest block ms, seconds, GUI CPU ms in that block, note)
    inside = {row[0]: (row[1], row[3]) for row in json.loads(figures.read_text())["rows"]}
    print(f"{display_name}: {len(pinger.samples):,} pings answered")
    print(
        f"{'interaction':36} {'outside':>10} {'inside':>10} {'GUI CPU':>8} {'server':>10} "
        f"{'target':>8}  pings  verdict"
    )
    failed = False
    for name, start, end in json.loads(intervals.read_text()):
        worst, trips = worst_ms(pinger.samples, start, end)
        server, _ = worst_ms(server_probe.samples, start, end)
        ok = bool(trips) and worst <= BLOCK_TARGET_MS
        failed |= not ok
        verdict = "ok" if ok else ("no answer" if not trips else "OVER")
        block, cpu = inside.get(name, (0.0, 0.0))
        print(
            f"{name:36} {worst:7.1f} ms {block:7.1f} ms {cpu:5.0f} ms {server:7.1f} ms "
            f"{BLOCK_TARGET_MS:5.0f} ms {trips:6}  {verdict}"
        )
    print(
        "(outside: the longest _NET_WM_PING round trip sent during the interaction, as a window "
        "manager sees it; inside: bench_stall.py's heartbeat in the same run, and the GUI thread's "
        "own CPU time in that block; server: the longest plain round trip to the X server alone "
        "in the same interval, the control: a long ping beside a long server trip was the X "
        "server or the probe waiting for a processor, not the window)"
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
