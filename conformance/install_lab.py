"""Install real collections with Skill Prism, then ask each runtime's own loader what it finds.

For each collection (a folder of `--realsets`, default /work/realsets; read only) and scope, a
fresh home and project (an empty git repository) are made in a temporary folder; `skillprism`'s
core installs the collection there for every runtime selected at once (core/install.py: one
copy per folder that several runtimes read), then each runtime's driver (conformance/drivers,
the pinned release in the lab cache) lists what it loads from that home and project. Each
installed skill is then, for that runtime:

* `found`: the runtime lists it (matched by real path);
* `rejected`: the runtime does not load it, and Skill Prism's verdict for that runtime after the
  install said so too (skipped, not discovered, or shadowed by a copy the runtime lists): the
  reasons of both sides are printed;
* `missing`: the runtime does not load it though Skill Prism said it would (a divergence).

Each installed skill must be read once: a runtime that lists or rejects copies of it from two of
the install's folders (one written for it, one for another runtime) is counted in `x2` (the
install's joint choice of folders, core/installed.py shared_targets, should leave none).

A runtime whose driver can only report facts gets Skill Prism's own resolver on the installed
home and project as its column (`build_catalog`), said as such; Claude Code's driver now runs a
`claude -p` session and lists what it loaded. A runtime not installed in the lab cache is named
and left out.

    .venv/bin/python conformance/install_lab.py [--runtime NAME]... [--collection NAME]...
        [--scope personal|project]... [--link] [--json] [--verbose]

Exit 0 when nothing is missing or read twice, 1 when something is, 2 when a driver failed. Nothing from a
collection is executed; the temporary folders are removed afterwards (--keep keeps them).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from conformance.run import DriverError, run_driver
from conformance.runtimes import RUNTIMES

DEFAULT_RUNTIMES = ("claude-code", "codex", "gemini-cli", "opencode", "copilot-cli")
DEFAULT_REALSETS = "/work/realsets"


@dataclass
class Cell:
    """One runtime x collection: counts and the skills behind anything not found."""

    runtime: str
    collection: str
    scope: str
    installed: int = 0
    held: int = 0  # placed for this runtime but not installed (a clash within the install)
    found: int = 0
    rejected: int = 0
    missing: int = 0
    twice: int = 0  # installed skills the runtime reads more than one copy of
    how: str = ""  # "loader" or "resolver" (Claude Code: Skill Prism's own)
    rejected_list: list[dict[str, str]] = field(default_factory=list)
    missing_list: list[dict[str, str]] = field(default_factory=list)
    error: str = ""


def _real(path: str) -> str:
    return os.path.realpath(path)


def install_into(collection: str, runtimes: Sequence[str], scope: str, mode: str, base: str):
    """A fresh home and project below `base`, the collection installed there for every runtime;
    (home, project, plan)."""
    from skillprism.core.install import apply_install, plan_install
    from skillprism.core.profiles import load_profile

    home, project = os.path.join(base, "home"), os.path.join(base, "proj")
    os.makedirs(home)
    os.makedirs(project)
    subprocess.run(["git", "init", "-q", project], check=True)
    profiles = [load_profile(RUNTIMES[r].profile) for r in runtimes]
    plan = plan_install(
        collection, profiles, scope, mode, project=project, home=home, env={"HOME": home}
    )
    apply_install(plan, record=False)
    return home, project, plan


def _resolver_side(profile_name: str, home: str, project: str) -> dict[str, Any]:
    """Skill Prism's own resolver on the installed home and project, as a driver result."""
    from skillprism.core.profiles import load_profile
    from skillprism.core.resolve import build_catalog

    catalog = build_catalog(
        load_profile(profile_name), project=project, home=home, env={"HOME": home}
    )
    return {
        "skills": [{"path": s.path, "name": s.name} for s in catalog.skills if s.loaded],
        "rejected": [
            {"path": s.path, "reason": s.reason or s.status} for s in catalog.skills if not s.loaded
        ],
    }


def compare(
    cell: Cell,
    placed: Sequence[Any],
    result: Mapping[str, Any],
    targets: Sequence[tuple[str, str]] = (),
) -> None:
    """Fill `cell` from the runtime's result for the skills installed for it; `targets`: every
    (source, target) folder the install wrote (for any runtime), to count the skills it reads
    twice (two copies of one source)."""
    listed = {_real(s["path"]) for s in result.get("skills") or []}
    seen = listed | {_real(r["path"]) for r in result.get("rejected") or []}
    copies: dict[str, list[str]] = {}
    for source, target in targets:
        copies.setdefault(_real(source), []).append(_real(os.path.join(target, "SKILL.md")))
    names = {str(s.get("name", "")).lower() for s in result.get("skills") or []}
    rejected = {_real(r["path"]): r.get("reason", "") for r in result.get("rejected") or []}
    for pl in placed:
        cell.installed += 1
        file = _real(os.path.join(pl.target, "SKILL.md"))
        if sum(f in seen for f in copies.get(_real(pl.source), [])) > 1:
            cell.twice += 1
        if file in listed:
            cell.found += 1
            continue
        said_no = pl.status in ("skipped", "not-discovered") or (
            pl.status == "shadowed" and pl.name.lower() in names
        )
        row = {
            "skill": pl.target,
            "runtime": rejected.get(file, "not listed"),
            "skillprism": f"{pl.status}: {pl.reason}",
        }
        if said_no:
            cell.rejected += 1
            cell.rejected_list.append(row)
        else:
            cell.missing += 1
            cell.missing_list.append(row)


def run_lab(
    collections: Sequence[str],
    runtimes: Sequence[str],
    scopes: Sequence[str],
    mode: str,
    work: str,
) -> list[Cell]:
    cells: list[Cell] = []
    tmp = os.path.join(work, "tmp")
    os.makedirs(tmp, exist_ok=True)
    saved = os.environ.get("XDG_STATE_HOME")
    os.environ["XDG_STATE_HOME"] = os.path.join(work, "state")  # the undo journal, not yours
    try:
        _run(collections, runtimes, scopes, mode, work, tmp, cells)
    finally:
        if saved is None:
            os.environ.pop("XDG_STATE_HOME", None)
        else:
            os.environ["XDG_STATE_HOME"] = saved
    return cells


def _run(
    collections: Sequence[str],
    runtimes: Sequence[str],
    scopes: Sequence[str],
    mode: str,
    work: str,
    tmp: str,
    cells: list[Cell],
) -> None:
    for scope in scopes:
        for collection in collections:
            base = os.path.join(work, f"{os.path.basename(collection)}-{scope}")
            home, project, plan = install_into(collection, runtimes, scope, mode, base)
            job = {"home": home, "project": project, "cwd": project, "env": {}}
            for name in runtimes:
                rt = RUNTIMES[name]
                cell = Cell(name, os.path.basename(collection), scope)
                cells.append(cell)
                mine = [p for p in plan.placed if p.profile == rt.profile]
                placed = [p for p in mine if p.installed]
                cell.held = len(mine) - len(placed)
                try:
                    if rt.facts_only:
                        cell.how = "resolver"
                        result = _resolver_side(rt.profile, home, project)
                    else:
                        cell.how = "loader"
                        result = run_driver(rt, [{**job, "env": rt.extra_job_env()}], tmp)[0]
                        if result.get("skills") is None:
                            raise DriverError("; ".join(result.get("warnings") or []))
                except DriverError as err:
                    cell.error = str(err)[:500]
                    continue
                compare(
                    cell, placed, result, [(a.source, a.target) for a in plan.actions if a.done]
                )


def render(cells: Sequence[Cell], verbose: bool) -> str:
    collections = list(dict.fromkeys(c.collection for c in cells))
    lines = []
    for scope in dict.fromkeys(c.scope for c in cells):
        lines.append(
            f"scope: {scope}   (installed / found / rejected, Skill Prism agrees / missing; +N: not installed, a clash in the install; x2:N read twice)"
        )
        width = max(len(c) for c in collections)
        lines.append(f"{'runtime':<13}" + "".join(f"  {c[:width]:>{width}}" for c in collections))
        for rt in dict.fromkeys(c.runtime for c in cells):
            row = [c for c in cells if c.runtime == rt and c.scope == scope]
            marks = []
            for c in row:
                text = (
                    "driver failed"
                    if c.error
                    else f"{c.installed}/{c.found}/{c.rejected}/{c.missing}"
                    + (f" +{c.held}" if c.held else "")
                    + (f" x2:{c.twice}" if c.twice else "")
                )
                marks.append(f"  {text:>{width}}")
            suffix = (
                "  (Skill Prism's resolver: no listing outside a model session)"
                if row and row[0].how == "resolver"
                else ""
            )
            lines.append(f"{rt:<13}" + "".join(marks) + suffix)
        lines.append("")
    for c in cells:
        if c.error:
            lines.append(f"{c.runtime} x {c.collection} ({c.scope}): driver failed: {c.error}")
        for r in c.missing_list:
            lines.append(f"MISSING {c.runtime} x {c.collection}: {r['skill']}")
            lines.append(f"    runtime: {r['runtime']}\n    skillprism: {r['skillprism']}")
        if verbose:
            for r in c.rejected_list:
                lines.append(f"rejected {c.runtime} x {c.collection}: {r['skill']}")
                lines.append(f"    runtime: {r['runtime']}\n    skillprism: {r['skillprism']}")
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runtime", action="append", choices=sorted(RUNTIMES))
    ap.add_argument("--collection", action="append", metavar="NAME")
    ap.add_argument("--realsets", default=DEFAULT_REALSETS)
    ap.add_argument("--scope", action="append", choices=("personal", "project"))
    ap.add_argument("--link", action="store_true", help="install as links instead of copies")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--verbose", action="store_true", help="list every rejected skill too")
    ap.add_argument("--keep", action="store_true", help="keep the temporary folders")
    args = ap.parse_args(argv)
    runtimes = args.runtime or list(DEFAULT_RUNTIMES)
    absent = [r for r in runtimes if not RUNTIMES[r].installed()]
    for r in absent:
        print(f"{r}: not installed in the lab cache; left out", file=sys.stderr)
    runtimes = [r for r in runtimes if r not in absent]
    names = args.collection or sorted(os.listdir(args.realsets))
    collections = [os.path.join(args.realsets, n) for n in names]
    work = tempfile.mkdtemp(prefix="skillprism-install-lab-")
    try:
        cells = run_lab(
            collections, runtimes, args.scope or ["personal"], "link" if args.link else "copy", work
        )
    finally:
        if args.keep:
            print(f"kept: {work}", file=sys.stderr)
        else:
            shutil.rmtree(work, ignore_errors=True)
    if args.json:
        print(json.dumps([asdict(c) for c in cells], indent=1))
    else:
        print(render(cells, args.verbose), end="")
    if any(c.error for c in cells):
        return 2
    return 1 if any(c.missing or c.twice for c in cells) else 0


if __name__ == "__main__":
    raise SystemExit(main())
