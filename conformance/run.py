"""Run each pinned runtime's own loader and Skill Prism's profile on the same fixture trees.

For every runtime (default: every installed one) each fixture case is laid out in a fresh
temporary tree (HOME and the project inside it), the runtime's driver reports what the runtime
loaded and its tier-1 text, and Skill Prism computes the same with `build_catalog` and the tier-1
listing exactly as `skillprism prompt --profile X` does with the default budget settings. Printed
per runtime: files agreeing on loaded / name / description, clash groups agreeing on the winner,
tier-1 texts byte-identical, each out of its total, and then every divergence
(case, file, field, the runtime's value, Skill Prism's value).

Exit status: 0 when it ran (2 on a usage or driver failure); with --strict, 1 when a divergence
is not listed (with a reason) in conformance/known-divergences.toml, when an entry there names no
`field` or `kind`, or when an entry no longer matches anything the run could have shown (stale).
With --record, a run of every case writes what it found to resources/lab-results.json, from which
each profile's level is derived (core/lab_results.py).
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import dataclasses
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
from conformance.runtimes import BINARY_RUNTIMES, LAB, RUNTIMES, Runtime, selected

KNOWN_FILE = LAB / "known-divergences.toml"
RESULTS_FILE = LAB.parent / "resources" / "lab-results.json"
FIELDS = ("loaded", "name", "description", "clash", "tier1", "builtin", "facts")
# Divergence fields a known-divergences entry may name: the compared fields, plus `setting` (a
# setting the driver had to change from the runtime's default, reported by the driver itself).
ENTRY_FIELDS = (*FIELDS, "fact", "setting")
SETUP_CASE = "setup"  # the case name of the settings a driver reports
DRIVER_TIMEOUT = 900  # seconds for one driver process (a batch of every case)
VARIES_CODE = "SP315"  # clash-winner-varies: the profile names no certain winner

# --- Skill Prism's side -----------------------------------------------------------------------


@dataclass(frozen=True)
class SpFile:
    path: str
    # What the profile says the runtime holds: the text Skill Prism shows, or the YAML value
    # itself where the profile says `non_strings = "js-keep"` (core/js_values.py, held_value).
    name: Any
    description: Any
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


def skillprism_side(
    profile: Any, tree: fixtures.Tree, style: str = "", context_window: int = 0
) -> SpView:
    """Skill Prism's catalog and tier-1 text for one tree, as `skillprism prompt` computes them
    (for `context_window` tokens when the runtime budgets by its default model's window)."""
    from skillprism.core.disclose import BudgetSettings, Tier1Model
    from skillprism.core.js_values import held_value
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
        BudgetSettings(context_window=context_window) if context_window else BudgetSettings(),
        project=tree.project,
        home=tree.home,
        env=tree.env,
    )
    text = Tier1Model(catalog, default_counter(), spec=spec).compute(settings).text
    keep = profile.reading.non_strings  # "js-keep": the skill holds the YAML value itself
    files = {
        s.path: SpFile(
            s.path,
            held_value(s.frontmatter, "name", s.qualified_name or s.name, keep),
            held_value(s.frontmatter, "description", s.description, keep),
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
    kind: str = ""  # that entry's kind (core/lab_results.KINDS)
    entry: int = -1  # index of the entry that explains it

    def line(self) -> str:
        mark = f" (known: {self.kind})" if self.known else ""
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
    # A path round a symlink loop (a profile with `link_loops = "follow"`) is a file of its own
    # when Skill Prism loads it or the runtime lists it and Skill Prism's catalog holds it: the
    # fixture placed neither, and its real path is that of a file it placed (every way round the
    # loop shares it). Other files neither placed (a runtime's bundled skills) are not these.
    placed = {c.path for c in candidates}
    placed_real = {os.path.realpath(c.path) for c in candidates}
    looped = {p for p, f in sp.files.items() if f.loaded and p not in placed}
    looped |= {
        str(s.get("path"))
        for s in result.get("skills", [])
        if str(s.get("path")) in sp.files and str(s.get("path")) not in placed
    }
    looped = {p for p in looped if os.path.realpath(p) in placed_real}
    candidates = [
        *candidates,
        *(
            fixtures.Candidate(case_id, p, os.path.relpath(p, base))
            for p in sorted(looped)
            if p.startswith(base + os.sep)
        ),
    ]
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


def compare_setup(
    runtime: str, results: Sequence[Mapping[str, Any]], builtins: Sequence[Any]
) -> CaseResult:
    """What a runtime reports once for every case: its built-in skills (each against the
    profile's `[[tier1.builtin]]`: name and description) and the settings its driver had to change
    from the runtime's default (each a divergence of its own, to be explained in
    known-divergences.toml)."""
    tally = Tally()
    divs: list[Divergence] = []
    seen: dict[str, dict] = {}
    lists = []
    for result in results:
        reported = result.get("builtin")
        if reported is None:
            continue
        lists.append(sorted((str(b.get("name")), str(b.get("description"))) for b in reported))
        for b in reported:
            seen.setdefault(str(b.get("name")), dict(b))
    if lists and any(x != lists[0] for x in lists):
        divs.append(
            Divergence(
                runtime,
                SETUP_CASE,
                "built-in skills",
                "builtin",
                "differ from case to case",
                "one list",
            )
        )
    if lists:
        profile_side = {b.name: b.description for b in builtins}
        for name in sorted(set(seen) | set(profile_side)):
            tally.total["builtin"] += 1
            rt_desc = seen[name].get("description") if name in seen else None
            sp_desc = profile_side.get(name)
            if rt_desc == sp_desc:
                tally.agree["builtin"] += 1
                continue
            divs.append(
                Divergence(
                    runtime,
                    SETUP_CASE,
                    f"built-in {name}",
                    "builtin",
                    show(rt_desc) if name in seen else "not built in",
                    show(sp_desc) if name in profile_side else "not in the profile",
                )
            )
    settings: dict[str, dict] = {}
    for result in results:
        for item in result.get("settings") or []:
            settings.setdefault(str(item.get("setting")), dict(item))
    for name, item in sorted(settings.items()):
        divs.append(
            Divergence(
                runtime,
                SETUP_CASE,
                name,
                "setting",
                show(item.get("value", "")),
                "the runtime's default"
                + (f" (driver: {item['reason']})" if item.get("reason") else ""),
            )
        )
    return CaseResult(SETUP_CASE, tally, divs, [])


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


def check_known(entries: Sequence[Mapping[str, Any]]) -> list[str]:
    """Problems with the entries themselves: each must name the `field` it explains (an entry
    without one would waive every difference in its cases) and its `kind`."""
    from skillprism.core.lab_results import KINDS

    problems = []
    for i, e in enumerate(entries):
        where = f"entry {i + 1} ({e.get('runtime', '*')}, case {e.get('case', '*')})"
        unknown = set(e) - {"runtime", "case", "field", "file", "reason", "kind"}
        if not isinstance(e.get("runtime", "*"), str) or not isinstance(e.get("file", "*"), str):
            problems.append(f"{where}: runtime and file are one glob each")
        if unknown:
            problems.append(f"{where}: unknown key(s) {', '.join(sorted(unknown))}")
        if not e.get("field"):
            problems.append(f"{where}: no `field`: say which field it explains")
        else:
            for glob in _globs(e["field"]):
                if not any(fnmatch.fnmatchcase(f, glob) for f in ENTRY_FIELDS):
                    problems.append(
                        f"{where}: field {glob!r} matches none of {', '.join(ENTRY_FIELDS)}"
                    )
        kind = e.get("kind")
        if kind not in KINDS or kind == "unlisted":
            choices = ", ".join(k for k in KINDS if k != "unlisted")
            problems.append(f"{where}: kind {kind!r} is not one of {choices}")
    return problems


def _globs(value: str | Sequence[str]) -> list[str]:
    return [value] if isinstance(value, str) else list(value)


def field_text(entry: Mapping[str, Any]) -> str:
    """An entry's `field` (a glob or a list of them) as one line: `loaded, tier1`."""
    return ", ".join(_globs(entry.get("field", "*")))


def mark_known(divs: Iterable[Divergence], known: Sequence[Mapping[str, Any]]) -> list[Divergence]:
    out = []
    for d in divs:
        reason, kind, entry = "", "", -1
        for i, k in enumerate(known):
            if (
                fnmatch.fnmatchcase(d.runtime, k.get("runtime", "*"))
                and any(fnmatch.fnmatchcase(d.case, c) for c in _globs(k.get("case", "*")))
                and any(fnmatch.fnmatchcase(d.field, f) for f in _globs(k.get("field", "*")))
                and fnmatch.fnmatchcase(d.file, k.get("file", "*"))
            ):
                reason, kind, entry = k["reason"], k.get("kind", ""), i
                break
        out.append(Divergence(**{**asdict(d), "known": reason, "kind": kind, "entry": entry}))
    return out


def stale_known(
    known: Sequence[Mapping[str, Any]],
    reports: Sequence[RuntimeReport],
) -> list[str]:
    """Entries that matched no divergence although the run could have shown one: their runtime
    ran without a driver failure and at least one of their cases ran for it. An entry for
    nondeterministic behaviour is never stale (the runtime may simply agree this time)."""
    used = {d.entry for r in reports for d in r.divergences if d.entry >= 0}
    out = []
    for i, k in enumerate(known):
        if i in used or k.get("kind") == "nondeterminism":
            continue
        for r in reports:
            if r.error or not fnmatch.fnmatchcase(r.runtime, k.get("runtime", "*")):
                continue
            globs = _globs(k.get("case", "*"))
            if any(fnmatch.fnmatchcase(c, g) for c in r.case_ids for g in globs):
                out.append(
                    f"entry {i + 1} ({k.get('runtime', '*')}, case {k.get('case', '*')}, "
                    f"field {field_text(k)}): matches nothing in {r.runtime}'s run: "
                    f"remove it or narrow it ({k['reason'][:80]})"
                )
                break
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
    # A runtime that lists one root in the file system's order, or as concurrent reads complete
    # (Gemini CLI's glob), may list a root's skills in another order when run again: compare
    # those runs as sets.
    from skillprism.core.profiles import load_profile

    unordered = rt.order_varies or load_profile(rt.profile).in_root_order == "file-system"
    for i in sorted(set(picks)):
        single = run_driver(dataclasses.replace(rt, batch=False), [jobs[i]], tmp)[0]
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
    case_ids: list[str] = field(default_factory=list)  # every case it ran (SETUP_CASE included)
    facts_only: bool = False


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


def ci_sample(cases: Sequence[fixtures.Case], every: int, offset: int) -> list[fixtures.Case]:
    """One case in `every` of each group, in order (all of them when `every` is 1), and at least
    one of every group: the cases at `offset` modulo `every`. The lab passes the runtime's place
    in its table, so neighbours there (OpenCode and its fork Kilo Code) run different cases."""
    if every <= 1:
        return list(cases)
    sizes = collections.Counter(c.group for c in cases)
    seen: collections.Counter[str] = collections.Counter()
    out = []
    for case in cases:
        at = seen[case.group]
        seen[case.group] += 1
        step = min(every, sizes[case.group])  # (a group smaller than `every` runs one case)
        if at % step == offset % step:
            out.append(case)
    return out


def run_runtime(
    rt: Runtime,
    cases: Sequence[fixtures.Case],
    work: str,
    known: Sequence[Mapping[str, str]],
    *,
    ci: bool = False,
) -> RuntimeReport:
    """`rt` on `cases` compared with its profile; `ci`: on its CI sample (`ci_sample`)."""
    profile = fixtures.shipped_profile(rt.profile)
    report = RuntimeReport(rt.name, rt.release, rt.profile)
    started = time.monotonic()
    if rt.facts_only:
        return _run_facts(rt, work, known, report, started)
    cases = [c for c in cases if rt.clashes or not c.clash]
    if ci:
        cases = ci_sample(cases, rt.ci_every, list(RUNTIMES).index(rt.name))
    root = os.path.join(work, rt.name)
    tmp = os.path.join(work, "tmp")
    os.makedirs(tmp, exist_ok=True)
    trees = []
    for case in cases:
        base = os.path.join(root, case.id)
        os.makedirs(base)
        tree = fixtures.materialize(case, profile, base, rt.unchecked_roots)
        tree.env.update(rt.extra_job_env())
        trees.append(tree)
    jobs = [t.job() for t in trees]
    results = run_driver(rt, jobs, tmp)
    check_batch(rt, jobs, results, tmp)
    setup = compare_setup(rt.name, results, profile.disclosure.tier1.builtin)
    report.tally.add(setup.tally)
    report.divergences += setup.divergences
    report.case_ids = [SETUP_CASE, *(t.case.id for t in trees)]
    for tree, result in zip(trees, results, strict=True):
        sp = skillprism_side(profile, tree, rt.style, rt.context_window)
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
    report.facts_only = True
    report.case_ids = ["facts"]
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
    if t.total["builtin"]:
        print(
            f"   built-in      {pct(t.agree['builtin'], t.total['builtin'])} built-in skills",
            file=out,
        )
    known = sum(1 for d in r.divergences if d.known)
    print(f"   divergences: {len(r.divergences)} ({known} known)", file=out)
    for d in r.divergences:
        print("    " + d.line(), file=out)


def record_of(r: RuntimeReport, rt: Runtime, known: Sequence[Mapping[str, Any]], day: str) -> dict:
    """One runtime's entry of resources/lab-results.json: what it agreed on, and its divergences
    grouped by the known-divergences entry that explains them (kind, field, reason, cases)."""
    groups: dict[tuple[int, str], dict] = {}
    for d in r.divergences:
        key = (d.entry, "" if d.entry >= 0 else d.field)
        g = groups.get(key)
        if g is None:
            entry = known[d.entry] if d.entry >= 0 else {}
            g = groups[key] = {
                "kind": d.kind if d.entry >= 0 else "unlisted",
                "field": field_text(entry) if entry else d.field,
                "reason": d.known,
                "cases": [],
                "count": 0,
            }
        if d.case not in g["cases"]:
            g["cases"].append(d.case)
        g["count"] += 1
    for g in groups.values():
        g["cases"].sort()
    return {
        "runtime": r.runtime,
        "release": r.release,
        "profile": r.profile,
        "ran_on": day,
        "cases": r.cases if not r.facts_only else 0,
        "files": r.files,
        "facts_only": r.facts_only,
        "limit": rt.limit,
        "agree": r.tally.agree,
        "total": r.tally.total,
        "tier1_not_obtainable": r.tally.tier1_missing,
        "error": r.error or None,
        "divergences": sorted(
            groups.values(), key=lambda g: (g["kind"], g["field"], g["cases"][0], g["reason"])
        ),
    }


def record_results(
    reports: Sequence[RuntimeReport],
    known: Sequence[Mapping[str, Any]],
    path: Path = RESULTS_FILE,
    day: str | None = None,
) -> None:
    """Write each report into `path`, replacing that runtime's previous entry and keeping the
    others (a run of the binary runtimes leaves the rest as they were)."""
    import datetime

    from conformance.runtimes import RUNTIMES

    day = day or datetime.date.today().isoformat()
    old = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    by_runtime = {e["runtime"]: e for e in old.get("runtimes", [])}
    for r in reports:
        by_runtime[r.runtime] = record_of(r, RUNTIMES[r.runtime], known, day)
    order = list(RUNTIMES)
    doc = {
        "schema": 1,
        "note": "Written by conformance/run.py --record (make conformance); each profile's level "
        "is derived from it (src/skillprism/core/lab_results.py). Do not edit by hand.",
        "runtimes": sorted(
            by_runtime.values(),
            key=lambda e: order.index(e["runtime"]) if e["runtime"] in order else len(order),
        ),
    }
    path.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def level_of(r: RuntimeReport, known: Sequence[Mapping[str, Any]]) -> str:
    """The level this run gives the profile (the rule of core/lab_results.derive_level)."""
    from conformance.runtimes import RUNTIMES
    from skillprism.core.lab_results import derive_level, parse_results

    if r.runtime not in RUNTIMES:
        return "-"
    record = record_of(r, RUNTIMES[r.runtime], known, "today")
    return derive_level(
        parse_results({"schema": 1, "runtimes": [record]})[r.profile], r.release
    ).level


def summary_table(reports: Sequence[RuntimeReport], known: Sequence[Mapping[str, Any]] = ()) -> str:
    rows = [
        (
            "runtime",
            "release",
            "loaded",
            "name",
            "description",
            "clash winner",
            "tier-1 identical",
            "built-in",
            "facts",
            "level",
        )
    ]
    for r in reports:
        t = r.tally
        rows.append(
            (
                r.runtime,
                r.release,
                *(
                    pct(t.agree[f], t.total[f])
                    if t.total[f] or f not in ("facts", "builtin")
                    else "-"
                    for f in FIELDS
                ),
                level_of(r, known),
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
        "--ci",
        action="store_true",
        help="CI's time budget: a runtime with `ci_every` N runs one case in N of each group",
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
    parser.add_argument(
        "--known",
        type=Path,
        default=KNOWN_FILE,
        help="the known divergences (default: %(default)s)",
    )
    parser.add_argument(
        "--results",
        type=Path,
        default=RESULTS_FILE,
        help="where --record writes (default: %(default)s)",
    )
    parser.add_argument(
        "--require-all",
        action="store_true",
        help="exit 2 when a selected runtime is not installed (CI: nothing is skipped silently)",
    )
    parser.add_argument(
        "--record",
        action="store_true",
        help="write the results to resources/lab-results.json (every case: no --quick, --case, "
        "--random)",
    )
    args = parser.parse_args(argv)
    if args.record and (args.quick or args.case or args.random or args.ci):
        parser.error("--record needs a run of every case (no --quick, --case, --random or --ci)")

    known = load_known(args.known)
    problems = check_known(known)
    for problem in problems:
        print(f"{args.known.name}: {problem}", file=sys.stderr)
    if problems and args.strict:
        return 1  # the file itself is wrong: no run can be judged against it
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
    sampled = [f"{rt.name} 1 in {rt.ci_every}" for rt in wanted if rt.ci_every > 1]
    if args.ci and sampled:
        print(
            f"--ci: one case in N of each group for {', '.join(sampled)} "
            "(the full lab: make conformance)",
            file=sys.stderr,
        )
    runtimes = [rt for rt in wanted if rt.installed()]
    missing = [rt.name for rt in wanted if not rt.installed()]
    if missing:
        print(
            f"not installed (run `python conformance/install.py`): {', '.join(missing)}",
            file=sys.stderr,
        )
    if missing and (args.runtime or args.require_all):
        return 2
    cases = select_cases(args.quick, args.seed, args.random, args.case or ())
    work = tempfile.mkdtemp(prefix="skillprism-lab-")
    reports: list[RuntimeReport] = []
    failed = False
    try:
        for rt in runtimes:
            try:
                report = run_runtime(rt, cases, work, known, ci=args.ci)
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
            "known_problems": problems,
            "stale": stale_known(known, reports),
        }
        print(json.dumps(doc, indent=1, ensure_ascii=False))
    else:
        print("\n" + summary_table(reports, known))
    stale = stale_known(known, reports)
    for line in stale:
        print(f"{args.known.name}: stale: {line}", file=sys.stderr)
    if args.record and reports:
        record_results(reports, known, args.results)
        print(f"recorded in {args.results}", file=sys.stderr)
    if failed:
        return 2
    unlisted = any(not d.known for r in reports for d in r.divergences)
    if args.strict and (unlisted or problems or stale):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
