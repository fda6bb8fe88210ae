"""Install every pinned runtime into the lab's cache (idempotent; `--runtime NAME` for one).

npm packages go to `<cache>/<runtime>/node_modules` with `npm install --ignore-scripts` (no
install script ever runs) at exact versions; PyPI packages to `<cache>/<runtime>/site` with
`pip install --target` (a runtime with `pypi_replace` gets its pins without their dependencies,
then those dependencies with the replacements). A runtime already present at its pinned release is
left alone, so a second run needs no network. The cache is `conformance/.cache` or
$SKILLPRISM_LAB_CACHE.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import contextlib

from conformance.runtimes import BINARY_RUNTIMES, Runtime, python_for, selected


def folder_size(path: Path) -> int:
    total = 0
    for root, _dirs, files in os.walk(path):
        for f in files:
            with contextlib.suppress(OSError):
                total += os.lstat(os.path.join(root, f)).st_size
    return total


def human(n: float) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} GB"


def install_npm(rt: Runtime) -> None:
    if shutil.which("npm") is None:
        raise SystemExit("npm is not on PATH: install Node.js 20 or newer")
    rt.install_dir.mkdir(parents=True, exist_ok=True)
    manifest = {
        "name": f"skillprism-lab-{rt.name}",
        "private": True,
        "description": "Pinned runtime for the Skill Prism conformance lab (generated).",
        "dependencies": dict(rt.npm),
    }
    (rt.install_dir / "package.json").write_text(json.dumps(manifest, indent=2) + "\n")
    cmd = [
        "npm",
        "install",
        "--ignore-scripts",
        "--no-audit",
        "--no-fund",
        "--prefer-offline",
        "--save-exact",
        "--loglevel=error",
    ]
    if rt.npm_omit_optional:
        cmd.append("--omit=optional")
    cmd += [f"{name}@{version}" for name, version in rt.npm.items()]
    print(f"  $ {' '.join(cmd)}", flush=True)
    subprocess.run(cmd, cwd=rt.install_dir, check=True)


def install_pypi(rt: Runtime) -> None:
    site = rt.install_dir / "site"
    if site.exists():
        shutil.rmtree(site)
    site.parent.mkdir(parents=True, exist_ok=True)
    pip = [
        python_for(rt),
        "-m",
        "pip",
        "install",
        "--quiet",
        "--disable-pip-version-check",
        "--no-compile",
        "--target",
        str(site),
    ]
    pins = [f"{name}=={version}" for name, version in rt.pypi.items()]
    if not rt.pypi_replace:
        _run([*pip, *pins])
        return
    # pip cannot override a dependency pin: install the pins alone, then their requirements
    # (markers kept for pip to evaluate, extras left out) with the replacements applied.
    _run([*pip, "--no-deps", *pins])
    wanted = requirements(site, rt.pypi)
    reqs = [rt.pypi_replace.get(r, r) for r in wanted]
    unused = set(rt.pypi_replace) - set(wanted)
    if unused:
        raise SystemExit(f"{rt.name}: pypi_replace names no requirement: {', '.join(unused)}")
    req_file = rt.install_dir / "requirements.txt"
    req_file.write_text("".join(f"{r}\n" for r in reqs), encoding="utf-8")
    _run([*pip, "-r", str(req_file)])


def requirements(site: Path, pins: dict[str, str]) -> list[str]:
    """The Requires-Dist lines of the installed pins, without the ones of an extra."""
    out: list[str] = []
    for name, version in pins.items():
        meta = site / f"{name.replace('-', '_')}-{version}.dist-info" / "METADATA"
        for line in meta.read_text(encoding="utf-8").splitlines():
            if not line.startswith("Requires-Dist:"):
                if not line:  # the headers end at the first blank line
                    break
                continue
            req = line.split(":", 1)[1].strip()
            if "extra ==" not in req:
                out.append(req)
    return out


def _run(cmd: list[str]) -> None:
    print(f"  $ {' '.join(cmd)}", flush=True)
    subprocess.run(cmd, check=True)


def install(rt: Runtime, force: bool = False) -> bool:
    """Install `rt` unless its pinned release is already cached; True if it was installed now."""
    pins = ", ".join(f"{k}@{v}" for k, v in {**rt.npm, **rt.pypi}.items())
    if rt.installed() and not force:
        print(f"{rt.name} {rt.release}: cached ({pins}) in {rt.install_dir}")
        return False
    print(f"{rt.name} {rt.release}: installing {pins} into {rt.install_dir}", flush=True)
    if rt.npm:
        install_npm(rt)
    if rt.pypi:
        install_pypi(rt)
    missing = rt.missing()
    if missing:
        raise SystemExit(f"{rt.name} {rt.release}: installed, but {missing}")
    return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runtime", action="append", metavar="NAME", help="only this runtime")
    parser.add_argument("--force", action="store_true", help="reinstall even when cached")
    parser.add_argument(
        "--quick", action="store_true", help="what run.py --quick needs: no binary runtime"
    )
    args = parser.parse_args(argv)
    for rt in selected(args.runtime):
        if args.quick and not args.runtime and rt.name in BINARY_RUNTIMES:
            continue
        if rt.python and not args.runtime:
            try:
                python_for(rt)
            except SystemExit as why:
                # A machine without that Python runs the rest of the lab (run.py reports this
                # runtime as not installed); named with --runtime, it is an error.
                print(f"{rt.name}: skipped: {why}", file=sys.stderr)
                continue
        install(rt, force=args.force)
        print(f"  size: {human(folder_size(rt.install_dir))}  package: {rt.package_dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
