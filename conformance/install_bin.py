#!/usr/bin/env python3
"""Install the pinned runtimes shipped as binaries into the lab cache (idempotent).

    python3 conformance/install_bin.py                   # codex, opencode, kilo-code, claude-code, amp, factory-droid
    python3 conformance/install_bin.py --runtime codex   # one of them

Each package goes to `<cache>/<runtime>/node_modules` (cache = `conformance/.cache/`, or
`$SKILLPRISM_LAB_CACHE`) with `npm install --ignore-scripts --no-save`: no install script ever
runs, and the exact version is pinned. npm picks the platform sub-package (the native binary)
through the package's optionalDependencies. Nothing installed here is committed.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from binlab import PACKAGES, LabError, binary_path, package_dir


def installed_version(runtime: str) -> str | None:
    pkg = PACKAGES[runtime]
    name = pkg.spec.rsplit("@", 1)[0]
    manifest = package_dir(runtime) / "node_modules" / name / "package.json"
    try:
        version = json.loads(manifest.read_text(encoding="utf-8")).get("version")
        binary_path(runtime)
    except (OSError, ValueError, LabError):
        return None
    return version


def install(runtime: str, *, force: bool = False) -> Path:
    pkg = PACKAGES[runtime]
    if not force and installed_version(runtime) == pkg.release:
        return binary_path(runtime)
    npm = shutil.which("npm")
    if not npm:
        raise LabError("npm is needed to install the runtimes")
    folder = package_dir(runtime)
    folder.mkdir(parents=True, exist_ok=True)
    manifest = folder / "package.json"
    if not manifest.exists():
        manifest.write_text('{"private": true}\n', encoding="utf-8")
    cmd = [
        npm,
        "install",
        "--ignore-scripts",
        "--no-save",
        "--no-audit",
        "--no-fund",
        "--save-exact",
        pkg.spec,
    ]
    proc = subprocess.run(cmd, cwd=folder, capture_output=True, text=True)
    if proc.returncode != 0:
        raise LabError(f"npm install {pkg.spec} failed:\n{proc.stderr[-2000:]}")
    if installed_version(runtime) != pkg.release:
        raise LabError(f"{pkg.spec}: installed, but the binary {pkg.binary} is missing")
    return binary_path(runtime)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runtime", choices=sorted(PACKAGES), action="append")
    parser.add_argument("--force", action="store_true", help="reinstall even if present")
    args = parser.parse_args(argv)
    status = 0
    for runtime in args.runtime or sorted(PACKAGES):
        try:
            path = install(runtime, force=args.force)
        except LabError as exc:
            print(f"{runtime}: {exc}", file=sys.stderr)
            status = 1
            continue
        print(f"{runtime} {PACKAGES[runtime].release}: {path}")
    return status


if __name__ == "__main__":
    raise SystemExit(main())
