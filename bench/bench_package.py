"""The packaged app: one-folder size and start-to-window time of the frozen build on the demo set,
beside the targets for this 2-core machine (<= 200 MB, <= 1.5 s), with the same start from the
source install (the virtual environment) measured in the same run as the baseline.

    make package   # builds dist/skillprism first
    python bench/bench_package.py [--repeat 7] [--app dist/skillprism]

Start to window: from launching the process to the window showing the first scan of the demo set
(`gui --exit-when-ready` prints a line at that moment). A fresh HOME, so no saved settings: the
window opens on the bundled demo set, as on a first launch. Offscreen unless DISPLAY is set (run
under `xvfb-run -a` for a real X server).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(ROOT / "packaging"))

from _bytecode import ensure_bytecode  # noqa: E402
from build import folder_size  # noqa: E402  # the measure `make package` checks its target with

SIZE_TARGET_MB = 200
START_TARGET_S = 1.5


def start_to_window(command: list[str], env: dict[str, str], cwd: str) -> tuple[float, str]:
    """Seconds from launch to the 'window ready' line, and that line."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        [*command, "gui", "--exit-when-ready"],
        env=env,
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    elapsed = time.perf_counter() - t0
    _out, err = proc.communicate(timeout=60)
    if "window ready" not in line or proc.returncode != 0:
        raise SystemExit(f"bench_package: {command[0]} did not start: {line!r} {err.strip()}")
    return elapsed, line.strip()


def measure(command: list[str], repeat: int) -> tuple[list[float], str]:
    times, line = [], ""
    with tempfile.TemporaryDirectory(prefix="skillprism-bench-") as home:
        env = {
            **os.environ,
            "HOME": home,
            "XDG_CONFIG_HOME": os.path.join(home, ".config"),
        }
        if not env.get("DISPLAY"):
            env["QT_QPA_PLATFORM"] = "offscreen"
        start_to_window(command, env, home)  # warm the page cache: measure starts, not disk reads
        for _ in range(repeat):
            seconds, line = start_to_window(command, env, home)
            times.append(seconds)
    return times, line


def _figure(name: str, times: list[float], target: str = "") -> str:
    return (
        f"{name:<34} median {statistics.median(times):.3f} s  max {max(times):.3f} s"
        f"  (n={len(times)}){target}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--app", default=str(ROOT / "dist" / "skillprism"))
    args = parser.parse_args(argv)
    app = Path(args.app)
    frozen = app / "skillprism"
    if not frozen.is_file():
        print(f"bench_package: {frozen} not found: run `make package` first", file=sys.stderr)
        return 2
    print(ensure_bytecode())
    size = folder_size(app)
    print(
        f"one-folder build {app}: {size / 1e6:.1f} MB (target <= {SIZE_TARGET_MB} MB: "
        f"{'met' if size <= SIZE_TARGET_MB * 1e6 else 'NOT met'})"
    )
    frozen_times, line = measure([str(frozen)], args.repeat)
    print(f"frozen app says: {line}")
    source = Path(sys.executable).with_name("skillprism")
    source_cmd = [str(source)] if source.exists() else [sys.executable, "-m", "skillprism"]
    source_times, _ = measure(source_cmd, args.repeat)
    met = statistics.median(frozen_times) <= START_TARGET_S and max(frozen_times) <= START_TARGET_S
    print(
        _figure(
            "frozen app, start to window",
            frozen_times,
            f"  target <= {START_TARGET_S} s: {'met' if met else 'NOT met'}",
        )
    )
    print(_figure("source install, start to window", source_times))
    ratio = statistics.median(frozen_times) / statistics.median(source_times)
    print(f"frozen / source (medians): {ratio:.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
