"""Run each pinned runtime's own loader and Skill Prism's profile on the same fixture trees.

For every runtime (default: every installed one) each fixture case is laid out in a fresh
temporary tree (HOME and the project inside it), the runtime's driver reports what the runtime
loaded and its tier-1 text, and Skill Prism computes the same with `build_catalog` and the tier-1
listing exactly as `skillprism prompt --profile X` does with the default budget settings. Printed
per runtime: files agreeing on loaded / name / description, clash groups agreeing on the winner,
tier-1 texts byte-identical, each out of its total, and then every divergence
(case, file, field, the runtime's value, Skill Prism's value).

Exit status: 0 when it ran (2 on a usage or driver failure); with --strict, 1 when a divergence
is not listed (with a reason) in conformance/known-divergences.toml.
"""

from __future__ import annotations

import argparse
import contextlib
import fnmatch
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from conformance import fixtures
from conformance.runtimes import BINARY_RUNTIMES, LAB, Runtime, selected

KNOWN_FILE = LAB / "known-divergences.toml"
FIELDS = ("loaded", "name", "description", "clash", "tier1", "facts")
DRIVER_TIMEOUT = 900  # seconds for one driver process (a batch of every case)
VARIES_CODE = "SP315"  # clash-winner-varies: the profile names no certain winner

# --- Skill Prism's side -----------------------------------------------------------------------


@dataclass(frozen=True)
class SpFile:
    path: str
    name: str
    description: str | None
    status: str
    reason: str
    loaded: bool
    group: str  # the name it clashes under (qualified name)
    shadowed_by: str
    varies: bool = False  # the profile says the runtime's pick among its copies varies (SP315)


@dataclass(frozen=True)
class SpView:
    files: dict[str, SpFile]
    tier1: str


def skillprism_side(profile: Any, tree: fixtures.Tree, style: str = "") -> SpView:
    """Skill Prism's catalog and tier-1 text for one tree, as `skillprism prompt` computes them."""
    from skillprism.core.disclose import BudgetSettings, Tier1Model
    from skillprism.core.resolve import build_catalog
    from skillprism.core.runtime_settings import apply_runtime_settings
    from skillprism.core.tokens import default_counter

    catalog = build_catalog(
        profile, None, project=tree.project, home=tree.home, env=tree.env, max_depth=10
    )
    spec = profile.disclosure.tier1
    if style:
        spec = spec.with_style(style)
    settings, _problems = apply_runtime_settings(
        profile.disclosure.settings,
        BudgetSettings(),
        project=tree.project,
        home=tree.home,
        env=tree.env,
    )
    text = Tier1Model(catalog, default_counter(), spec=spec).compute(settings).text
    files = {
        s.path: SpFile(
            s.path,
            s.qualified_name or s.name,
            s.description,
            s.status,
            s.reason,
            s.loaded,
            s.qualified_name or s.name,
            s.shadowed_by,
            any(d.code == VARIES_CODE for d in s.diagnostics),
        )
        for s in catalog.skills
    }
    return SpView(files, text)


# --- comparison ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Divergence:
    runtime: str
    case: str
    file: str
    field: str
    runtime_value: str
    skillprism_value: str
    known: str = ""  # the reason from known-divergences.toml, when listed

    def line(self) -> str:
        mark = " (known)" if self.known else ""
        return (
            f"[{self.case}] {self.file}: {self.field}{mark}\n"
            f"      runtime:    {self.runtime_value}\n"
            f"      skillprism: {self.skillprism_value}"
        )


@dataclass
class Tally:
    agree: dict[str, int] = field(default_factory=lambda: dict.fromkeys(FIELDS, 0))
    total: dict[str, int] = field(default_factory=lambda: dict.fromkeys(FIELDS, 0))
    tier1_missing: int = 0
    tier1_alone: int = 0  # tier-1 texts that differ although every file of the case agrees

    def add(self, other: Tally) -> None:
        for f in FIELDS:
            self.agree[f] += other.agree[f]
            self.total[f] += other.total[f]
        self.tier1_missing += other.tier1_missing
        self.tier1_alone += other.tier1_alone


@dataclass
class CaseResult:
    case: str
    tally: Tally
    divergences: list[Divergence]
    outside: list[str]  # skill files the runtime reported from outside the fixture tree


def show(value: Any, limit: int = 160) -> str:
    text = json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else repr(value)
    return text if len(text) <= limit else text[: limit - 12] + f"... ({len(text)} chars)"


def _first_difference(a: str, b: str) -> tuple[str, str]:
    """The first differing line of each text, with its line number, shown from a little before
    the first differing character (so a long line's difference is visible)."""
    la, lb = a.split("\n"), b.split("\n")
    for i in range(max(len(la), len(lb))):
        x = la[i] if i < len(la) else "<end of text>"
        y = lb[i] if i < len(lb) else "<end of text>"
        if x != y:
            at = next((k for k, (p, q) in enumerate(zip(x, y, strict=False)) if p != q), None)
            if at is None:
                at = min(len(x), len(y))
            start = max(0, at - 40)
            where = f"line {i + 1}" + (f", column {start + 1}" if start else "")
            return f"{where}: {show(x[start:])}", f"{where}: {show(y[start:])}"
    return "(same lines)", "(same lines)"


def compare_case(
    runtime: str,
    case_id: str,
    base: str,
    candidates: Sequence[fixtures.Candidate],
    result: Mapping[str, Any],
    sp: SpView,
    *,
    clashes: bool = True,
) -> CaseResult:
    """Compare one runtime result with Skill Prism's view of the same tree."""
    tally = Tally()
    divs: list[Divergence] = []
    outside: list[str] = []
    base = os.path.realpath(base)
    label = {c.path: c.rel for c in candidates}
    real_of = {c.path: os.path.realpath(c.path) for c in candidates}

    def div(file: str, fld: str, rv: str, sv: str) -> None:
        divs.append(Divergence(runtime, case_id, file, fld, rv, sv))

    listed: dict[str, list[dict]] = {}
    for skill in result.get("skills", []):
        path = str(skill.get("path", ""))
        if path not in label:
            inside = path == base or path.startswith(base + os.sep)
            matches = (
                [c for c, r in real_of.items() if r == os.path.realpath(path)] if inside else []
            )
            if len(matches) == 1:
                path = matches[0]
            elif inside:
                div(
                    os.path.relpath(path, base),
                    "loaded",
                    f"loaded as {show(skill.get('name'))}",
                    "not a fixture skill file",
                )
                tally.total["loaded"] += 1
                continue
            else:
                outside.append(path)
                continue
        listed.setdefault(path, []).append(skill)
    rejected = {str(r.get("path")): str(r.get("reason", "")) for r in result.get("rejected", [])}

    # Copies whose winner the profile says may vary: the runtime agrees when it loads exactly
    # one of them, whichever it is.
    varying: dict[str, list[str]] = {}
    for f in sp.files.values():
        if f.varies:
            varying.setdefault(f.group, []).append(f.path)
    settled = {g for g, paths in varying.items() if sum(1 for p in paths if p in listed) == 1}

    for cand in candidates:
        rt = listed.get(cand.path, [])
        spf = sp.files.get(cand.path)
        rt_loaded = bool(rt)
        sp_loaded = bool(spf and spf.loaded)
        tally.total["loaded"] += 1
        if rt_loaded != sp_loaded and spf is not None and spf.varies and spf.group in settled:
            tally.agree["loaded"] += 1
            continue
        if rt_loaded == sp_loaded:
            tally.agree["loaded"] += 1
        else:
            rv = (
                "loaded"
                if rt_loaded
                else "not loaded" + (f" ({rejected[cand.path]})" if cand.path in rejected else "")
            )
            sv = (
                "loaded"
                if sp_loaded
                else (f"{spf.status}: {spf.reason}" if spf else "not found by the profile")
            )
            div(cand.rel, "loaded", rv, sv)
        if not (rt_loaded and sp_loaded):
            continue
        skill = rt[0]
        for fld, sp_value in (("name", spf.name), ("description", spf.description)):
            tally.total[fld] += 1
            rt_value = skill.get(fld)
            if fld == "description" and not rt_value and not sp_value:
                rt_value = sp_value  # no description text: None, "" and a missing key are alike
            if rt_value == sp_value:
                tally.agree[fld] += 1
            else:
                div(cand.rel, fld, show(skill.get(fld)), show(sp_value))
        if len(rt) > 1:
            div(cand.rel, "loaded", f"listed {len(rt)} times", "once")

    if clashes:
        groups: dict[str, list[SpFile]] = {}
        for f in sp.files.values():
            if f.path in label and (f.loaded or f.status == "shadowed") and f.group:
                groups.setdefault(f.group, []).append(f)
        for name, members in sorted(groups.items()):
            if len(members) < 2 or (
                not any(m.shadowed_by for m in members) and not _kept_both(members)
            ):
                continue
            sp_win = sorted(m.path for m in members if m.loaded)
            rt_win = sorted(m.path for m in members if m.path in listed)
            tally.total["clash"] += 1
            if name in settled and set(rt_win) <= set(varying[name]):
                sp_win = rt_win  # any one of the varying copies is the profile's answer
            if sp_win == rt_win:
                tally.agree["clash"] += 1
            else:
                rt_win, sp_win = [label[p] for p in rt_win], [label[p] for p in sp_win]
                div(
                    f"name {name!r}",
                    "clash",
                    ", ".join(rt_win) or "none loaded",
                    ", ".join(sp_win) or "none loaded",
                )

    tier1 = result.get("tier1")
    if tier1 is None:
        tally.tier1_missing += 1
    else:
        tally.total["tier1"] += 1
        if tier1 == sp.tier1:
            tally.agree["tier1"] += 1
        else:
            rv, sv = _first_difference(tier1, sp.tier1)
            if not divs:
                tally.tier1_alone += 1
            div("(tier-1 text)", "tier1", rv, sv)
    return CaseResult(case_id, tally, divs, outside)


def compare_facts(runtime: str, result: Mapping[str, Any]) -> CaseResult:
    """A runtime that cannot list fixtures (Claude Code) reports facts read from its binary, each
    already set against the profile's value: `match`, or a divergence naming the byte offset."""
    tally = Tally()
    divs: list[Divergence] = []
    for fact in result.get("facts") or []:
        tally.total["facts"] += 1
        if fact.get("status") == "match":
            tally.agree["facts"] += 1
            continue
        where = f" (byte {fact['offset']})" if fact.get("offset") is not None else ""
        divs.append(
            Divergence(
                runtime,
                "facts",
                str(fact.get("name")),
                "fact",
                f"{fact.get('status')}{where}: {show(fact.get('found'), 400)}",
                show(fact.get("profile"), 400),
            )
        )
    return CaseResult("facts", tally, divs, [])


def _kept_both(members: Sequence[SpFile]) -> bool:
    return sum(1 for m in members if m.loaded) > 1


# --- known divergences --------------------------------------------------------------------------


def load_known(path: Path = KNOWN_FILE) -> list[dict[str, Any]]:
    if not path.is_file():
        return []
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    entries = data.get("divergence", [])
    for e in entries:
        if not e.get("reason"):
            raise SystemExit(f"{path}: every [[divergence]] needs a reason: {e}")
    return entries


def _globs(value: str | Sequence[str]) -> list[str]:
    return [value] if isinstance(value, str) else list(value)


def mark_known(divs: Iterable[Divergence], known: Sequence[Mapping[str, Any]]) -> list[Divergence]:
    out = []
    for d in divs:
        reason = ""
        for k in known:
            if (
                fnmatch.fnmatchcase(d.runtime, k.get("runtime", "*"))
                and any(fnmatch.fnmatchcase(d.case, c) for c in _globs(k.get("case", "*")))
                and fnmatch.fnmatchcase(d.field, k.get("field", "*"))
                and fnmatch.fnmatchcase(d.file, k.get("file", "*"))
            ):
                reason = k["reason"]
                break
        out.append(Divergence(**{**asdict(d), "known": reason}))
    return out


# --- running a driver ---------------------------------------------------------------------------


class DriverError(RuntimeError):
    pass


def _driver_env(rt: Runtime, job: Mapping[str, Any], tmp: str) -> dict[str, str]:
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "LANG": "C.UTF-8",
        "TMPDIR": tmp,
        "NO_COLOR": "1",
        **job["env"],
        **rt.process_env(),
    }
    if rt.facts_only:
        # The facts driver renders the same synthetic skills with this Skill Prism to compare.
        env["SKILLPRISM_LAB_SKILLPRISM"] = str(Path(sys.executable).parent / "skillprism")
    return env


def run_driver(
    rt: Runtime, jobs: Sequence[Mapping[str, Any]], tmp: str, workers: int = 0
) -> list[dict]:
    """Every job's result, in order: one process for all of them (batch drivers) or one each."""
    if not jobs:
        return []

    def call(payload: Any, first: Mapping[str, Any]) -> Any:
        try:
            proc = subprocess.run(
                rt.command(),
                input=json.dumps(payload).encode(),
                capture_output=True,
                cwd=first["cwd"],
                env=_driver_env(rt, first, tmp),
                timeout=DRIVER_TIMEOUT,
            )
        except subprocess.TimeoutExpired:
            raise DriverError(f"{rt.name}: driver timed out after {DRIVER_TIMEOUT} s") from None
        if proc.returncode != 0:
            said = proc.stderr.decode(errors="replace")[-2000:]
            with contextlib.suppress(ValueError, AttributeError):
                said += " ".join(json.loads(proc.stdout).get("warnings") or [])[-2000:]
            raise DriverError(
                f"{rt.name}: driver failed ({proc.returncode}) on {first.get('project')}: {said}"
            )
        try:
            return json.loads(proc.stdout)
        except ValueError:
            raise DriverError(f"{rt.name}: driver printed no JSON: {proc.stdout[:500]!r}") from None

    if rt.batch:
        out = call(list(jobs), jobs[0])
        if not isinstance(out, list) or len(out) != len(jobs):
            raise DriverError(f"{rt.name}: batch result does not match the {len(jobs)} jobs")
        return out
    workers = workers or rt.workers or max(4, min(8, os.cpu_count() or 2))
    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(lambda j: call(j, j), jobs))


def check_batch(
    rt: Runtime, jobs: Sequence[Mapping[str, Any]], batch: Sequence[dict], tmp: str
) -> None:
    """A batch driver must give each job what a process of its own gives (no state leaks)."""
    if not rt.batch:
        return
    picks = [*[i for i, j in enumerate(jobs) if batch[i].get("skills")][:2], len(jobs) - 1]
    # A runtime that lists one root in the file system's order (Gemini CLI's glob walk) may
    # list a root's skills in another order when run again: compare those runs as sets.
    from skillprism.core.profiles import load_profile

    unordered = load_profile(rt.profile).in_root_order == "file-system"
    for i in sorted(set(picks)):
        single = run_driver(Runtime(**{**asdict_rt(rt), "batch": False}), [jobs[i]], tmp)[0]
        if (_as_set(single) != _as_set(batch[i])) if unordered else (single != batch[i]):
            raise DriverError(f"{rt.name}: job {i} gives a different result alone than in a batch")


def _as_set(result: Mapping[str, Any]) -> str:
    """A driver's result with every list sorted and the listing's lines sorted: what it says,
    whatever order a directory read gave."""

    def norm(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: norm(v) for k, v in value.items()}
        if isinstance(value, list):
            return sorted((norm(v) for v in value), key=lambda v: json.dumps(v, sort_keys=True))
        if isinstance(value, str) and "\n" in value:
            return sorted(value.split("\n"))
        return value

    return json.dumps(norm(result), sort_keys=True)


def asdict_rt(rt: Runtime) -> dict:
    return {f: getattr(rt, f) for f in rt.__dataclass_fields__}


# --- the run ------------------------------------------------------------------------------------


@dataclass
class RuntimeReport:
    runtime: str
    release: str
    profile: str
    cases: int = 0
    files: int = 0
    tally: Tally = field(default_factory=Tally)
    divergences: list[Divergence] = field(default_factory=list)
    outside: list[str] = field(default_factory=list)
    skipped_entries: list[str] = field(default_factory=list)
    seconds: float = 0.0
    error: str = ""
    facts: list[dict] = field(default_factory=list)  # facts-only runtimes (Claude Code)


def select_cases(
    quick: bool, seed: int, random_count: int, only: Sequence[str] = ()
) -> list[fixtures.Case]:
    cases = fixtures.catalogue()
    if quick:
        cases = [c for c in cases if c.quick]
    if random_count:
        cases += fixtures.random_cases(seed, random_count)
    if only:
        cases = [c for c in cases if any(fnmatch.fnmatchcase(c.id, p) for p in only)]
    return cases


def run_runtime(
    rt: Runtime, cases: Sequence[fixtures.Case], work: str, known: Sequence[Mapping[str, str]]
) -> RuntimeReport:
    profile = fixtures.shipped_profile(rt.profile)
    report = RuntimeReport(rt.name, rt.release, rt.profile)
    started = time.monotonic()
    if rt.facts_only:
        return _run_facts(rt, work, known, report, started)
    cases = [c for c in cases if rt.clashes or not c.clash]
    root = os.path.join(work, rt.name)
    tmp = os.path.join(work, "tmp")
    os.makedirs(tmp, exist_ok=True)
    trees = []
    for case in cases:
        base = os.path.join(root, case.id)
        os.makedirs(base)
        trees.append(fixtures.materialize(case, profile, base, rt.unchecked_roots))
    jobs = [t.job() for t in trees]
    results = run_driver(rt, jobs, tmp)
    check_batch(rt, jobs, results, tmp)
    for tree, result in zip(trees, results, strict=True):
        sp = skillprism_side(profile, tree, rt.style)
        cr = compare_case(
            rt.name, tree.case.id, tree.base, tree.candidates, result, sp, clashes=rt.clashes
        )
        report.cases += 1
        report.files += len(tree.candidates)
        report.tally.add(cr.tally)
        report.divergences += cr.divergences
        report.outside += cr.outside
        report.skipped_entries += [f"{tree.case.id}: {s}" for s in tree.skipped]
    report.divergences = mark_known(report.divergences, known)
    report.outside = sorted(set(report.outside))
    report.seconds = time.monotonic() - started
    return report


def _run_facts(
    rt: Runtime,
    work: str,
    known: Sequence[Mapping[str, str]],
    report: RuntimeReport,
    started: float,
) -> RuntimeReport:
    """One driver run on an empty tree: the runtime's facts against its profile."""
    base = os.path.join(work, rt.name, "facts")
    tmp = os.path.join(work, "tmp")
    os.makedirs(tmp, exist_ok=True)
    tree = fixtures.materialize(
        fixtures.Case("facts", "facts", ()), fixtures.shipped_profile(rt.profile), base
    )
    result = run_driver(rt, [tree.job()], tmp)[0]
    if result.get("facts") is None:
        raise DriverError(f"{rt.name}: the driver reported no facts: {result.get('warnings')}")
    cr = compare_facts(rt.name, result)
    report.facts = list(result["facts"])
    report.tally.add(cr.tally)
    report.divergences = mark_known(cr.divergences, known)
    report.seconds = time.monotonic() - started
    return report


def pct(a: int, b: int) -> str:
    return f"{a}/{b}" + (f" ({100 * a / b:.1f} %)" if b else "")


def print_report(r: RuntimeReport, out=sys.stdout) -> None:
    t = r.tally
    print(
        f"\n== {r.runtime} {r.release} against profile {r.profile}: {r.cases} cases, {r.files} files ({r.seconds:.0f} s)",
        file=out,
    )
    if r.error:
        print(f"   ERROR: {r.error}", file=out)
        return
    if r.facts:
        print(
            f"   facts agreeing {pct(t.agree['facts'], t.total['facts'])} "
            "(read from the binary, set against the profile)",
            file=out,
        )
        for f in r.facts:
            where = f"byte {f['offset']}" if f.get("offset") is not None else "no offset"
            print(f"     [{f.get('status')}] {f.get('name')} ({where})", file=out)
        known = sum(1 for d in r.divergences if d.known)
        print(f"   divergences: {len(r.divergences)} ({known} known)", file=out)
        for d in r.divergences:
            print("    " + d.line(), file=out)
        return
    print(f"   loaded        {pct(t.agree['loaded'], t.total['loaded'])} files", file=out)
    print(f"   name          {pct(t.agree['name'], t.total['name'])} files both load", file=out)
    print(
        f"   description   {pct(t.agree['description'], t.total['description'])} files both load",
        file=out,
    )
    print(f"   clash winner  {pct(t.agree['clash'], t.total['clash'])} clash groups", file=out)
    missing = f", {t.tier1_missing} not obtainable" if t.tier1_missing else ""
    differ = t.total["tier1"] - t.agree["tier1"]
    if differ:
        missing += f"; {t.tier1_alone} of the {differ} differing cases agree on every file"
    print(
        f"   tier-1        {pct(t.agree['tier1'], t.total['tier1'])} texts byte-identical{missing}",
        file=out,
    )
    if r.outside:
        print(
            f"   skill files the runtime reported from outside the fixture trees: {len(r.outside)}",
            file=out,
        )
        for p in r.outside[:5]:
            print(f"     {p}", file=out)
    if r.skipped_entries:
        print(
            f"   fixture entries with no matching root in the profile: {len(r.skipped_entries)}",
            file=out,
        )
    known = sum(1 for d in r.divergences if d.known)
    print(f"   divergences: {len(r.divergences)} ({known} known)", file=out)
    for d in r.divergences:
        print("    " + d.line(), file=out)


def summary_table(reports: Sequence[RuntimeReport]) -> str:
    rows = [
        (
            "runtime",
            "release",
            "loaded",
            "name",
            "description",
            "clash winner",
            "tier-1 identical",
            "facts",
        )
    ]
    for r in reports:
        t = r.tally
        rows.append(
            (
                r.runtime,
                r.release,
                *(
                    pct(t.agree[f], t.total[f]) if t.total[f] or f != "facts" else "-"
                    for f in FIELDS
                ),
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return "\n".join(
        "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in rows
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--runtime", action="append", metavar="NAME", help="only this runtime (repeatable)"
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help="the subset for CI: no 300-skill case, no binary runtime unless named",
    )
    parser.add_argument(
        "--case", action="append", metavar="GLOB", help="only cases matching (repeatable)"
    )
    parser.add_argument(
        "--random", type=int, default=0, metavar="N", help="add N seeded random cases"
    )
    parser.add_argument("--seed", type=int, default=1, help="seed for --random (default 1)")
    parser.add_argument("--json", action="store_true", help="print a machine-readable result")
    parser.add_argument(
        "--strict", action="store_true", help="exit 1 on a divergence not in known-divergences.toml"
    )
    parser.add_argument("--keep", action="store_true", help="keep the fixture trees (path printed)")
    args = parser.parse_args(argv)

    wanted = selected(args.runtime)
    if args.quick and not args.runtime:
        # The CI subset: the runtimes shipped as native binaries (350-400 MB each, minutes per
        # run) only when named with --runtime (`make conformance-bin`).
        left_out = [rt.name for rt in wanted if rt.name in BINARY_RUNTIMES]
        wanted = [rt for rt in wanted if rt.name not in BINARY_RUNTIMES]
        if left_out:
            print(
                f"--quick leaves out the binary runtimes ({', '.join(left_out)}); "
                "name them with --runtime to run them",
                file=sys.stderr,
            )
    runtimes = [rt for rt in wanted if rt.installed()]
    missing = [rt.name for rt in wanted if not rt.installed()]
    if missing:
        print(
            f"not installed (run `python conformance/install.py`): {', '.join(missing)}",
            file=sys.stderr,
        )
    if args.runtime and missing:
        return 2
    known = load_known()
    cases = select_cases(args.quick, args.seed, args.random, args.case or ())
    work = tempfile.mkdtemp(prefix="skillprism-lab-")
    reports: list[RuntimeReport] = []
    failed = False
    try:
        for rt in runtimes:
            try:
                report = run_runtime(rt, cases, work, known)
            except DriverError as err:
                report = RuntimeReport(rt.name, rt.release, rt.profile, error=str(err))
                failed = True
            reports.append(report)
            if not args.json:
                print_report(report)
    finally:
        if args.keep:
            print(f"fixture trees kept in {work}", file=sys.stderr)
        else:
            shutil.rmtree(work, ignore_errors=True)
    if args.json:
        doc = {
            "schema": 1,
            "cases": len(cases),
            "seed": args.seed if args.random else None,
            "runtimes": [
                {
                    "runtime": r.runtime,
                    "release": r.release,
                    "profile": r.profile,
                    "cases": r.cases,
                    "files": r.files,
                    "error": r.error or None,
                    "agree": r.tally.agree,
                    "total": r.tally.total,
                    "tier1_not_obtainable": r.tally.tier1_missing,
                    "tier1_differ_alone": r.tally.tier1_alone,
                    "facts": r.facts,
                    "outside": r.outside,
                    "divergences": [asdict(d) for d in r.divergences],
                }
                for r in reports
            ],
        }
        print(json.dumps(doc, indent=1, ensure_ascii=False))
    else:
        print("\n" + summary_table(reports))
    if failed:
        return 2
    if args.strict and any(not d.known for r in reports for d in r.divergences):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
