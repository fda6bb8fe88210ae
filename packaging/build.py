"""`make package`: icons, the PyInstaller one-folder build, the Linux packages, then the frozen
app's own self-test. Prints how long each step took and how big each artifact is.

    python packaging/build.py [--no-self-test]

Outputs: dist/skillprism/ (the one-folder app), and on Linux dist/skillprism_<v>_<arch>.deb
(when dpkg-deb is present) and dist/skillprism-<v>-linux-<machine>.tar.gz. Exit status 0 only
when everything was built, the folder is within its size target and the self-test passed.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT / "src"))

from make_icons import generate as generate_icons  # noqa: E402

from skillprism import __version__  # noqa: E402

FOLDER_TARGET_MB = 200
DIST = ROOT / "dist"
BUILD = ROOT / "build"
APP_DIR = DIST / "skillprism"


def _mb(size: int) -> str:
    return f"{size / 1e6:.1f} MB"


def folder_size(folder: Path) -> int:
    """Bytes of the files under `folder` (symlinks count as links, not as their targets)."""
    return sum(p.lstat().st_size for p in folder.rglob("*") if not p.is_dir())


def _source_epoch() -> int:
    if os.environ.get("SOURCE_DATE_EPOCH", "").isdigit():
        return int(os.environ["SOURCE_DATE_EPOCH"])
    try:
        out = subprocess.run(
            ["git", "-C", str(ROOT), "log", "-1", "--format=%ct"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        return int(out)
    except (OSError, subprocess.CalledProcessError, ValueError):
        return int(time.time())


def run_pyinstaller() -> None:
    subprocess.run(
        [
            sys.executable,
            "-m",
            "PyInstaller",
            "--noconfirm",
            "--clean",
            "--log-level",
            "ERROR",
            "--distpath",
            str(DIST),
            "--workpath",
            str(BUILD / "pyinstaller"),
            str(HERE / "skillprism.spec"),
        ],
        check=True,
        cwd=ROOT,
    )


def run_self_test(executable: Path) -> bool:
    """The frozen app's self-test, with a throwaway home so nothing of the user's is read."""
    with tempfile.TemporaryDirectory(prefix="skillprism-package-") as home:
        env = {
            **os.environ,
            "HOME": home,
            "XDG_CONFIG_HOME": os.path.join(home, ".config"),
            "QT_QPA_PLATFORM": "offscreen",
        }
        result = subprocess.run([str(executable), "self-test"], env=env, timeout=300)
    return result.returncode == 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-self-test", action="store_true")
    args = parser.parse_args(argv)
    timings: list[tuple[str, float]] = []
    started = time.perf_counter()

    def step(name: str, fn, *a):  # type: ignore[no-untyped-def]
        t0 = time.perf_counter()
        print(f"package: {name}…", flush=True)
        value = fn(*a)
        timings.append((name, time.perf_counter() - t0))
        return value

    icons = BUILD / "icons"
    if icons.exists():
        shutil.rmtree(icons)
    step("icons from resources/icons/*.svg", generate_icons, icons)
    step("PyInstaller one-folder build", run_pyinstaller)
    size = folder_size(APP_DIR)
    artifacts = [("one-folder app " + str(APP_DIR.relative_to(ROOT)), size)]
    ok = True
    if size > FOLDER_TARGET_MB * 1_000_000:
        print(f"package: {APP_DIR} is {_mb(size)}, over the {FOLDER_TARGET_MB} MB target")
        ok = False
    if sys.platform.startswith("linux"):
        from linux_packages import build_deb, build_tarball

        epoch = _source_epoch()
        work = BUILD / "linux-packages"
        if shutil.which("dpkg-deb") and shutil.which("dpkg"):
            deb = step("Debian package", build_deb, APP_DIR, icons, DIST, work, __version__, epoch)
            artifacts.append((str(deb.path.relative_to(ROOT)), deb.size))
        else:
            print("package: dpkg-deb not found: no .deb on this system")
        tarball = step("tarball", build_tarball, APP_DIR, icons, DIST, work, __version__, epoch)
        artifacts.append((str(tarball.path.relative_to(ROOT)), tarball.size))
    if not args.no_self_test:
        passed = step("self-test of the frozen app", run_self_test, APP_DIR / "skillprism")
        ok = ok and passed
    total = time.perf_counter() - started
    print("\npackage: build times")
    for name, seconds in timings:
        print(f"  {seconds:7.1f} s  {name}")
    print(f"  {total:7.1f} s  in all")
    print("package: artifacts")
    for name, nbytes in artifacts:
        target = f" (target <= {FOLDER_TARGET_MB} MB)" if name.startswith("one-folder") else ""
        print(f"  {_mb(nbytes):>9}  {name}{target}")
    print("package: " + ("done" if ok else "FAILED"))
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
