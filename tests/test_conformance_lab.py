"""The conformance lab (conformance/): fixture generator and comparison logic.

These tests need no runtime: the comparison is fed hand-written driver results. The last tests
run a pinned runtime through its driver and skip cleanly when the lab's cache does not hold it.
"""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # conformance/ is a folder of the checkout, not of the package
    sys.path.insert(0, str(ROOT))

from conformance import fixtures, run  # noqa: E402
from conformance.runtimes import RUNTIMES  # noqa: E402


@pytest.fixture
def pi_profile():
    return fixtures.shipped_profile("pi")


# --- the generator ------------------------------------------------------------------------------


def test_catalogue_ids_are_unique_and_cover_every_group():
    cases = fixtures.catalogue()
    ids = [c.id for c in cases]
    assert len(ids) == len(set(ids))
    groups = {c.group for c in cases}
    assert {"framing", "yaml", "names", "discovery", "clash", "roots", "budget", "tier1"} <= groups
    for case in cases:
        for entry in case.entries:
            if entry.root != "tree" and not entry.root.startswith("abs:"):
                # every folder and file placed in a root starts with the case id (or is a root file)
                head = entry.rel.split("/")[0].lstrip(".")
                assert (
                    head.startswith(case.id)
                    or entry.rel in ("SKILL.md", ".gitignore")
                    or head in ("group", "node_modules", "git", "a-group")
                    or case.id.startswith(("clash-", "t1-", "budget-", "link-", "disc-"))
                ), (case.id, entry.rel)


def test_random_cases_are_seeded():
    a = fixtures.random_cases(7, 12)
    b = fixtures.random_cases(7, 12)
    c = fixtures.random_cases(8, 12)
    assert [x.entries for x in a] == [x.entries for x in b]
    assert [x.entries for x in a] != [x.entries for x in c]
    assert all(x.id.startswith("rnd-7-") and x.note.startswith("mutations: ") for x in a)


def test_materialize_uses_the_profiles_roots(tmp_path, pi_profile):
    case = fixtures.Case(
        "probe",
        "test",
        (
            fixtures.Entry("project", "probe/SKILL.md", fixtures.basic("probe")),
            fixtures.Entry("user", "probe-u/SKILL.md", fixtures.basic("probe-u")),
            fixtures.Entry("user*", "probe-all/SKILL.md", b"{root}"),
        ),
    )
    tree = fixtures.materialize(case, pi_profile, str(tmp_path))
    assert tree.home == str(tmp_path / "home") and tree.project == str(tmp_path / "repo")
    assert (tmp_path / "repo" / ".git").is_dir()
    assert (tmp_path / "repo/.pi/skills/probe/SKILL.md").read_bytes() == fixtures.basic("probe")
    assert (tmp_path / "home/.pi/agent/skills/probe-u/SKILL.md").is_file()
    # every personal root of the profile gets a copy, told apart by {root}
    copies = sorted(p.read_text() for p in tmp_path.glob("home/**/probe-all/SKILL.md"))
    assert len(copies) == 2 and copies[0] != copies[1]
    assert tree.job() == {
        "home": tree.home,
        "project": tree.project,
        "cwd": tree.project,
        "env": tree.env,
    }
    # as a user has it: HOME, and no XDG or runtime home variables
    assert tree.env == {"HOME": tree.home}
    assert {c.case for c in tree.candidates} == {"probe"} and len(tree.candidates) == 4


def test_materialize_links_and_nested_project(tmp_path, pi_profile):
    alias = next(c for c in fixtures.catalogue() if c.id == "link-alias")
    tree = fixtures.materialize(alias, pi_profile, str(tmp_path / "a"))
    link = Path(tree.project) / ".pi/skills/link-alias-2"
    assert link.is_symlink()
    # the file reached through the link is a candidate of its own
    assert str(link / "SKILL.md") in {c.path for c in tree.candidates}
    nested = next(c for c in fixtures.catalogue() if c.id == "clash-ancestors")
    tree = fixtures.materialize(nested, pi_profile, str(tmp_path / "n"))
    assert tree.project.endswith(os.path.join("repo", "sub", "proj"))
    assert (tmp_path / "n/repo/.agents/skills/clash-ancestors/SKILL.md").is_file()
    assert Path(tree.project, ".pi/skills/clash-ancestors/SKILL.md").is_file()


def test_unchecked_roots_are_left_out(tmp_path):
    gemini = RUNTIMES["gemini-cli"]
    probe = next(c for c in fixtures.catalogue() if c.id == "roots-probe")
    profile = fixtures.shipped_profile("gemini-cli")
    tree = fixtures.materialize(probe, profile, str(tmp_path), gemini.unchecked_roots)
    assert any("extensions" in s for s in tree.skipped)
    assert not (tmp_path / "home/.gemini/extensions").exists()


# --- the comparison -----------------------------------------------------------------------------


def _sp(**files: run.SpFile) -> dict[str, run.SpFile]:
    return dict(files)


def _spf(path, name, description="d", status="ok", shadowed_by=""):
    loaded = status in ("ok", "warning", "error")
    return run.SpFile(path, name, description, status, "why", loaded, name, shadowed_by)


def _cands(*paths):
    return [fixtures.Candidate("c", p, p.rsplit("/", 2)[-2]) for p in paths]


def test_compare_counts_agreement_and_lists_divergences():
    a, b, c = "/t/r/a/SKILL.md", "/t/r/b/SKILL.md", "/t/r/c/SKILL.md"
    sp = run.SpView(
        {a: _spf(a, "a", "A."), b: _spf(b, "b", "B."), c: _spf(c, "c", status="skipped")},
        "LIST",
    )
    result = {
        "skills": [
            {"path": a, "name": "a", "description": "A.\n"},
            {"path": b, "name": "B", "description": "B."},
        ],
        "rejected": [],
        "warnings": [],
        "tier1": "LIST",
    }
    cr = run.compare_case("rt", "c", "/t", _cands(a, b, c), result, sp)
    t = cr.tally
    assert (t.agree["loaded"], t.total["loaded"]) == (3, 3)
    assert (t.agree["name"], t.total["name"]) == (1, 2)
    assert (t.agree["description"], t.total["description"]) == (1, 2)
    assert (t.agree["tier1"], t.total["tier1"]) == (1, 1)
    fields = sorted((d.file, d.field) for d in cr.divergences)
    assert fields == [("a", "description"), ("b", "name")]
    d = next(d for d in cr.divergences if d.field == "description")
    assert d.runtime_value == repr("A.\n") and d.skillprism_value == repr("A.")


def test_compare_loaded_and_rejected_reason():
    a = "/t/r/a/SKILL.md"
    sp = run.SpView({a: _spf(a, "a")}, "")
    result = {"skills": [], "rejected": [{"path": a, "reason": "bad"}], "tier1": ""}
    cr = run.compare_case("rt", "c", "/t", _cands(a), result, sp)
    (d,) = cr.divergences
    assert (
        d.field == "loaded"
        and d.runtime_value == "not loaded (bad)"
        and d.skillprism_value == "loaded"
    )
    assert cr.tally.total["name"] == 0  # only files both sides load are compared on fields


def test_compare_no_description_is_alike():
    a = "/t/r/a/SKILL.md"
    sp = run.SpView({a: _spf(a, "a", None)}, "")
    result = {"skills": [{"path": a, "name": "a", "description": ""}], "tier1": ""}
    cr = run.compare_case("rt", "c", "/t", _cands(a), result, sp)
    assert not cr.divergences


def test_compare_clash_winner_groups():
    a, b = "/t/r/a/SKILL.md", "/t/u/a/SKILL.md"
    sp = run.SpView({a: _spf(a, "x"), b: _spf(b, "x", status="shadowed", shadowed_by=a)}, "")
    same = {"skills": [{"path": a, "name": "x", "description": "d"}], "tier1": ""}
    other = {"skills": [{"path": b, "name": "x", "description": "d"}], "tier1": ""}
    ok = run.compare_case("rt", "c", "/t", _cands(a, b), same, sp)
    assert (ok.tally.agree["clash"], ok.tally.total["clash"]) == (1, 1)
    bad = run.compare_case("rt", "c", "/t", _cands(a, b), other, sp)
    assert (bad.tally.agree["clash"], bad.tally.total["clash"]) == (0, 1)
    assert {d.field for d in bad.divergences} == {"loaded", "clash"}
    skip = run.compare_case("rt", "c", "/t", _cands(a, b), other, sp, clashes=False)
    assert skip.tally.total["clash"] == 0


def test_compare_paths_outside_the_tree_and_unknown_files(tmp_path):
    a = str(tmp_path / "r/a/SKILL.md")
    sp = run.SpView({a: _spf(a, "a")}, "")
    result = {
        "skills": [
            {"path": a, "name": "a", "description": "d"},
            {"path": "/opt/runtime/builtin/x/SKILL.md", "name": "x", "description": "d"},
            {"path": str(tmp_path / "r/readme.md"), "name": "r", "description": "d"},
        ],
        "tier1": None,
    }
    cr = run.compare_case("rt", "c", str(tmp_path), _cands(a), result, sp)
    assert cr.outside == ["/opt/runtime/builtin/x/SKILL.md"]
    assert [(d.file, d.field) for d in cr.divergences] == [("r/readme.md", "loaded")]
    assert cr.tally.tier1_missing == 1 and cr.tally.total["tier1"] == 0


def test_compare_paths_round_a_symlink_loop(tmp_path):
    """A profile that follows link loops lists a skill under a path no fixture placed (and whose
    real path every way round shares): the same path on both sides agrees, another one does not,
    and where the profile says the pick varies any one way round agrees."""
    (tmp_path / "r/b/x").mkdir(parents=True)
    (tmp_path / "r/b/x/SKILL.md").write_text("---\nname: b\ndescription: d\n---\n")
    (tmp_path / "r/b/loop").symlink_to(".")  # every way round is the one real file
    plain = str(tmp_path / "r/b/x/SKILL.md")
    deep = str(tmp_path / "r/b/loop/loop/x/SKILL.md")
    deeper = str(tmp_path / "r/b/loop/loop/loop/x/SKILL.md")
    listed = {"skills": [{"path": deep, "name": "b", "description": "d"}], "tier1": None}
    sp = run.SpView(
        {
            deep: _spf(deep, "b"),
            plain: _spf(plain, "b", status="shadowed", shadowed_by=deep),
        },
        "",
    )
    same = run.compare_case("rt", "c", str(tmp_path), _cands(plain), listed, sp)
    assert not same.divergences
    assert (same.tally.agree["loaded"], same.tally.total["loaded"]) == (2, 2)
    # a file neither side placed whose real path is its own (a runtime's bundled skill) is not
    # a way round the loop: not counted
    bundled = str(tmp_path / "r/.system/y/SKILL.md")
    (tmp_path / "r/.system/y").mkdir(parents=True)
    (tmp_path / "r/.system/y/SKILL.md").write_text("---\nname: y\ndescription: d\n---\n")
    with_bundled = run.SpView({**sp.files, bundled: _spf(bundled, "y")}, "")
    more = run.compare_case("rt", "c", str(tmp_path), _cands(plain), listed, with_bundled)
    assert more.tally.total["loaded"] == 2
    sp_deeper = run.SpView(
        {
            deeper: _spf(deeper, "b"),
            deep: _spf(deep, "b", status="shadowed", shadowed_by=deeper),
            plain: _spf(plain, "b", status="shadowed", shadowed_by=deeper),
        },
        "",
    )
    other = run.compare_case("rt", "c", str(tmp_path), _cands(plain), listed, sp_deeper)
    assert sorted(d.file for d in other.divergences if d.field == "loaded") == [
        "r/b/loop/loop/loop/x/SKILL.md",
        "r/b/loop/loop/x/SKILL.md",
    ]
    varies = run.SpView(
        {p: dataclasses.replace(f, varies=True) for p, f in sp_deeper.files.items()}, ""
    )
    settled = run.compare_case("rt", "c", str(tmp_path), _cands(plain), listed, varies)
    assert not [d for d in settled.divergences if d.field in ("loaded", "clash")]


def test_compare_tier1_shows_the_first_differing_line():
    sp = run.SpView({}, "head\nsame\nB")
    cr = run.compare_case("rt", "c", "/t", [], {"skills": [], "tier1": "head\nsame\nA"}, sp)
    (d,) = cr.divergences
    assert (
        d.field == "tier1"
        and d.runtime_value == "line 3: 'A'"
        and d.skillprism_value == "line 3: 'B'"
    )
    assert cr.tally.tier1_alone == 1


def test_known_divergences_match_by_glob(tmp_path):
    f = tmp_path / "known.toml"
    f.write_text(
        '[[divergence]]\nruntime = "pi"\ncase = "fm-*"\nfield = "loaded"\nreason = "framing"\n'
    )
    known = run.load_known(f)
    divs = [
        run.Divergence("pi", "fm-bom", "x", "loaded", "a", "b"),
        run.Divergence("pi", "y-colon", "x", "loaded", "a", "b"),
        run.Divergence("gemini-cli", "fm-bom", "x", "loaded", "a", "b"),
    ]
    marked = run.mark_known(divs, known)
    assert [d.known for d in marked] == ["framing", "", ""]
    f.write_text('[[divergence]]\nruntime = "pi"\n')
    with pytest.raises(SystemExit):
        run.load_known(f)


def test_shipped_known_divergences_file_parses():
    known = run.load_known()
    assert run.check_known(known) == []
    for entry in known:
        assert entry["reason"] and entry["field"] and entry["kind"]
        assert entry.get("runtime", "*") == "*" or entry["runtime"] in RUNTIMES


def test_known_entries_need_a_field_and_a_kind():
    entries = [
        {"runtime": "pi", "case": "x", "field": "tier1", "kind": "schema-gap", "reason": "r"},
        {"runtime": "pi", "case": "y", "kind": "interface", "reason": "no field"},
        {"runtime": "pi", "case": "z", "field": "loaded", "reason": "no kind"},
        {"runtime": "pi", "case": "w", "field": "nothing", "kind": "lab", "reason": "bad field"},
        {"runtime": "pi", "case": "v", "field": "loaded", "kind": "unlisted", "reason": "r"},
    ]
    problems = run.check_known(entries)
    assert len(problems) == 4
    assert "entry 2" in problems[0] and "no `field`" in problems[0]
    assert "entry 3" in problems[1] and "kind None" in problems[1]
    assert "entry 4" in problems[2] and "'nothing'" in problems[2]
    assert "entry 5" in problems[3] and "'unlisted'" in problems[3]


def test_strict_fails_on_an_entry_without_field(tmp_path, capsys):
    known = tmp_path / "known.toml"
    known.write_text(
        '[[divergence]]\nruntime = "pi"\ncase = "fm-*"\nkind = "lab"\nreason = "no field"\n'
    )
    # the file itself is judged first: no runtime needs to be installed for this
    assert run.main(["--strict", "--known", str(known), "--runtime", "pi"]) == 1
    assert "no `field`" in capsys.readouterr().err


def test_a_stale_entry_is_one_whose_cases_ran_without_matching():
    known = [
        {"runtime": "pi", "case": "fm-bom", "field": "loaded", "kind": "lab", "reason": "used"},
        {"runtime": "pi", "case": "fm-cr", "field": "loaded", "kind": "lab", "reason": "stale"},
        {"runtime": "pi", "case": "not-run", "field": "loaded", "kind": "lab", "reason": "off"},
        {
            "runtime": "pi",
            "case": "fm-cr",
            "field": "tier1",
            "kind": "nondeterminism",
            "reason": "n",
        },
        {"runtime": "gemini-cli", "case": "*", "field": "*", "kind": "lab", "reason": "not run"},
    ]
    r = run.RuntimeReport("pi", "0.73.1", "pi", case_ids=["setup", "fm-bom", "fm-cr"])
    r.divergences = run.mark_known([run.Divergence("pi", "fm-bom", "f", "loaded", "a", "b")], known)
    stale = run.stale_known(known, [r])
    assert len(stale) == 1 and "entry 2" in stale[0] and "stale" in stale[0]
    # a runtime whose driver failed shows nothing, so none of its entries is stale
    r.error = "driver failed"
    assert run.stale_known(known, [r]) == []


def test_skillprism_side_matches_the_prompt_command(tmp_path, pi_profile):
    case = next(c for c in fixtures.catalogue() if c.id == "t1-escape")
    tree = fixtures.materialize(case, pi_profile, str(tmp_path))
    view = run.skillprism_side(pi_profile, tree)
    env = {**os.environ, **tree.env}
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "skillprism",
            "prompt",
            "--profile",
            str(fixtures.SHIPPED_PROFILES / "pi.toml"),
            "--project",
            tree.project,
        ],
        capture_output=True,
        text=True,
        env=env,
        cwd=tree.project,
        check=True,
    ).stdout
    assert out == view.tier1 + "\n"
    (entry,) = view.files.values()
    assert entry.loaded and entry.name == "t1-escape"


def test_pypi_replace_applies_to_the_pins_own_requirements(tmp_path):
    from conformance import install

    dist = tmp_path / "pkg_x-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text(
        "Name: pkg-x\nVersion: 1.0\nRequires-Dist: certifi==1.0\n"
        "Requires-Dist: jeepney==0.9.0 ; sys_platform == 'linux'\n"
        "Requires-Dist: extra-only>=1 ; extra == 'voice'\n\nRequires-Dist: not a header\n",
        encoding="utf-8",
    )
    assert install.requirements(tmp_path, {"pkg-x": "1.0"}) == [
        "certifi==1.0",
        "jeepney==0.9.0 ; sys_platform == 'linux'",
    ]
    vibe = RUNTIMES["mistral-vibe"]
    assert vibe.python == "3.12" and set(vibe.pypi_replace) == {"certifi==2026.10.19"}


def test_summary_table_lists_each_runtime():
    r = run.RuntimeReport("pi", "0.73.1", "pi")
    r.tally.agree["loaded"], r.tally.total["loaded"] = 3, 4
    table = run.summary_table([r])
    assert "pi" in table and "3/4 (75.0 %)" in table and "verified" in table


def test_setup_compares_builtins_and_reports_settings():
    from skillprism.core.disclosure_spec import BuiltinSkill

    results = [
        {
            "builtin": [{"name": "a", "description": "A."}, {"name": "b", "description": "B!"}],
            "settings": [{"setting": "--pure", "value": "on", "reason": "plugins are code"}],
        }
    ] * 2
    profile = (BuiltinSkill("a", "A."), BuiltinSkill("b", "B."), BuiltinSkill("c", "C."))
    cr = run.compare_setup("x", results, profile)
    assert (cr.tally.agree["builtin"], cr.tally.total["builtin"]) == (1, 3)
    fields = [(d.file, d.field) for d in cr.divergences]
    assert fields == [("built-in b", "builtin"), ("built-in c", "builtin"), ("--pure", "setting")]
    assert cr.divergences[1].runtime_value == "not built in"
    # a driver that reports no built-in skills is not compared
    assert run.compare_setup("x", [{}], profile).tally.total["builtin"] == 0


# --- the recorded results and the level they give ----------------------------------------------

FAKE_DRIVER = """
import json, os, sys
jobs = json.load(sys.stdin)
out = []
for job in (jobs if isinstance(jobs, list) else [jobs]):
    skills = []
    root = os.path.join(job["project"], ".pi", "skills")
    for folder in sorted(os.listdir(root)) if os.path.isdir(root) else []:
        text = open(os.path.join(root, folder, "SKILL.md"), encoding="utf-8").read()
        desc = [l[13:] for l in text.splitlines() if l.startswith("description: ")]
        skills.append({"path": os.path.join(root, folder, "SKILL.md"), "name": folder,
                       "description": desc[0] if desc else None})
    out.append({"runtime": "fake", "release": "1.0", "skills": skills, "rejected": [],
                "warnings": [], "tier1": None})
print(json.dumps(out if isinstance(jobs, list) else out[0]))
"""


@pytest.fixture
def fake_runtime(tmp_path, monkeypatch):
    """A runtime whose driver loads every folder of .pi/skills (named by the folder), compared
    with the pi profile: it agrees on fm-basic and not on a skill whose name differs."""
    import dataclasses

    from conformance import runtimes

    driver = tmp_path / "fake_driver.py"
    driver.write_text(FAKE_DRIVER, encoding="utf-8")

    @dataclasses.dataclass(frozen=True)
    class Fake(runtimes.Runtime):
        def installed(self) -> bool:
            return True

        def command(self) -> list[str]:
            return [sys.executable, str(driver)]

    fake = Fake(name="fake", release="0.73.1", profile="pi", driver="fake", kind="python")
    monkeypatch.setitem(runtimes.RUNTIMES, "fake", fake)
    return fake


def test_strict_fails_on_a_stale_entry_and_record_writes_the_level(tmp_path, fake_runtime, capsys):
    from skillprism.core.lab_results import derive_level, parse_results

    known = tmp_path / "known.toml"
    results = tmp_path / "results.json"
    entry = '[[divergence]]\nruntime = "fake"\ncase = "fm-basic"\nfield = "loaded"\nkind = "{}"\nreason = "r"\n'
    args = ["--runtime", "fake", "--case", "fm-basic", "--strict", "--known", str(known)]
    known.write_text(entry.format("schema-gap"))
    assert run.main(args) == 1  # fm-basic agrees: the entry matches nothing
    assert "stale" in capsys.readouterr().err
    known.write_text(entry.format("nondeterminism"))
    assert run.main(args) == 0  # it may simply agree this time
    known.write_text("")
    assert run.main(args) == 0
    # a case the fake gets wrong: the name is the folder's, not the frontmatter's
    args = ["--runtime", "fake", "--case", "n-mismatch", "--strict", "--known", str(known)]
    assert run.main(args) == 1
    known.write_text(
        '[[divergence]]\nruntime = "fake"\ncase = "n-mismatch"\nfield = "name"\n'
        'kind = "schema-gap"\nreason = "the fake names skills by folder"\n'
    )
    assert run.main(args) == 0
    with pytest.raises(SystemExit):  # a record needs every case
        run.main([*args, "--record", "--results", str(results)])
    record = run.record_of(
        run.RuntimeReport(
            "fake",
            "0.73.1",
            "pi",
            divergences=run.mark_known(
                [run.Divergence("fake", "n-mismatch", "x", "name", "a", "b")],
                run.load_known(known),
            ),
        ),
        fake_runtime,
        run.load_known(known),
        "2026-11-27",
    )
    run_record = parse_results({"schema": 1, "runtimes": [record]})["pi"]
    derived = derive_level(run_record, "0.73.1")
    assert derived.level == "partial" and "the fake names skills by folder" in derived.held_back[0]


# --- with a runtime installed -------------------------------------------------------------------


def _installed(name: str) -> bool:
    return RUNTIMES[name].installed()


def test_facts_are_compared_one_by_one():
    result = {
        "facts": [
            {"name": "entry cap", "found": 1536, "profile": 1536, "status": "match", "offset": 7},
            {"name": "cut", "found": "…", "profile": "", "status": "differs", "offset": 9},
            {"name": "gone", "found": None, "profile": 1, "status": "not-found", "offset": None},
        ]
    }
    cr = run.compare_facts("claude-code", result)
    assert (cr.tally.agree["facts"], cr.tally.total["facts"]) == (1, 3)
    assert [(d.file, d.field) for d in cr.divergences] == [("cut", "fact"), ("gone", "fact")]
    assert "byte 9" in cr.divergences[0].runtime_value
    known = run.mark_known(
        cr.divergences, [{"runtime": "claude-code", "file": "cut", "reason": "r"}]
    )
    assert [d.known for d in known] == ["r", ""]


@pytest.mark.parametrize("name", sorted(n for n, rt in RUNTIMES.items() if not rt.facts_only))
def test_driver_runs_a_basic_case(tmp_path, name):
    rt = RUNTIMES[name]
    if not _installed(name):
        pytest.skip(f"{name} {rt.release} is not in the lab cache (python conformance/install.py)")
    if rt.kind in ("node", "bun") and not (rt.kind == "bun" or _which("node")):
        pytest.skip("node is not on PATH")
    profile = fixtures.shipped_profile(rt.profile)
    case = next(c for c in fixtures.catalogue() if c.id == "fm-basic")
    tree = fixtures.materialize(case, profile, str(tmp_path / "t"), rt.unchecked_roots)
    if not tree.candidates:
        pytest.skip(f"{rt.profile} has no project root to lay the basic case out in")
    os.makedirs(tmp_path / "tmp")
    (result,) = run.run_driver(rt, [tree.job()], str(tmp_path / "tmp"))
    assert result["runtime"] == name and result["release"] == rt.release
    assert [s["name"] for s in result["skills"]] == ["fm-basic"]
    json.dumps(result)  # plain JSON
    sp = run.skillprism_side(profile, tree, rt.style)
    cr = run.compare_case(name, case.id, tree.base, tree.candidates, result, sp)
    assert cr.tally.agree["loaded"] == cr.tally.total["loaded"] == 1


def _which(cmd: str) -> bool:
    from shutil import which

    return which(cmd) is not None


# --- make conformance-latest ---------------------------------------------------------------------


def test_latest_moves_every_pin_and_follows_the_ones_tied_to_another(monkeypatch):
    from conformance import latest

    newest = {
        "@oh-my-pi/pi-coding-agent": "19.0.0",
        "@oh-my-pi/pi-natives-linux-x64": "19.0.5",  # not asked: it follows the coding agent
        "@oven/bun-linux-x64": "1.5.0",
    }
    monkeypatch.setattr(latest, "_npm_latest", lambda pkg: newest[pkg])
    rt = latest.newest_runtime(RUNTIMES["oh-my-pi"])
    assert rt.release == "19.0.0"
    assert rt.npm == {
        "@oh-my-pi/pi-coding-agent": "19.0.0",
        "@oh-my-pi/pi-natives-linux-x64": "19.0.0",
        "@oven/bun-linux-x64": "1.5.0",
    }
    monkeypatch.setattr(latest, "_pypi_latest", lambda rt, name: "0.2.0")
    assert latest.newest_runtime(RUNTIMES["skills-ref"]).release == "0.2.0"


def test_latest_names_what_drifts_from_the_recorded_run():
    from conformance import latest

    group = {"kind": "schema-gap", "field": "tier1", "reason": "r", "cases": ["a"], "count": 1}
    pinned = {
        "agree": {"loaded": 10},
        "total": {"loaded": 10},
        "divergences": [group],
        "error": None,
    }
    same = dict(pinned)
    assert latest.compare(pinned, same, "partial") == []
    newer = {
        "agree": {"loaded": 9},
        "total": {"loaded": 10},
        "divergences": [
            {**group, "cases": ["a", "b"]},
            {"kind": "unlisted", "field": "name", "reason": "", "cases": ["c"], "count": 1},
        ],
        "error": None,
    }
    lines = latest.compare(pinned, newer, "partial")
    assert "loaded: 9/10 agree (pinned release: 10/10)" in lines
    assert any(
        line.startswith("changed [schema-gap] tier1") and "now also b" in line for line in lines
    )
    assert any(line.startswith("new [unlisted] name in c") for line in lines)
    assert latest.compare(None, newer, "partial")[0].startswith("no recorded results")
    table = latest.summary(
        [latest.Drift("pi", "0.73.1", "0.74.0", "drift", ["x"], "partial", "verified")]
    )
    assert "pi" in table and "0.74.0" in table and "DRIFT" in table


def test_an_install_that_lacks_the_program_says_what_is_missing(tmp_path, monkeypatch):
    """A newer release whose platform package did not install: the message names the program,
    not 'not the pinned release' (make conformance-latest, kilo-code 7.8.1)."""
    monkeypatch.setenv("SKILLPRISM_LAB_CACHE", str(tmp_path))
    rt = RUNTIMES["kilo-code"]
    assert "package.json is not there" in rt.missing()
    rt.package_dir.mkdir(parents=True)
    (rt.package_dir / "package.json").write_text(json.dumps({"version": "0.0.1"}))
    assert rt.missing() == f"{rt.package} is 0.0.1, not {rt.release}"
    (rt.package_dir / "package.json").write_text(json.dumps({"version": rt.release}))
    assert rt.binary in rt.missing() and "platform package" in rt.missing()
    program = rt.install_dir / rt.binary
    program.parent.mkdir(parents=True)
    program.write_bytes(b"")
    assert rt.missing() == "" and rt.installed()


def test_skillprism_side_holds_the_yaml_value_where_the_profile_keeps_it(tmp_path):
    """Amp keeps a non-string name or description as the YAML value itself (non_strings =
    "js-keep"): the lab compares that value, not its text, with what `amp skill list` reports."""
    from skillprism.core.profiles import load_profile_file

    amp = load_profile_file(fixtures.SHIPPED_PROFILES / "amp.toml")
    expected = (
        ("n-number", "name", 12345),
        ("n-list", "name", ["n-list"]),
        ("y-map-desc", "description", {"text": "nested"}),
    )
    for case_id, field, value in expected:
        case = next(c for c in fixtures.catalogue() if c.id == case_id)
        tree = fixtures.materialize(case, amp, str(tmp_path / case_id))
        (entry,) = [f for f in run.skillprism_side(amp, tree).files.values() if f.loaded]
        assert getattr(entry, field) == value, case_id
    # A profile that turns the value into text holds the text.
    case = next(c for c in fixtures.catalogue() if c.id == "n-number")
    qwen = load_profile_file(fixtures.SHIPPED_PROFILES / "qwen-code.toml")
    tree = fixtures.materialize(case, qwen, str(tmp_path / "qwen"))
    assert [f.name for f in run.skillprism_side(qwen, tree).files.values() if f.loaded] == ["12345"]


# --- the CI sample ------------------------------------------------------------------------------


def test_the_ci_sample_keeps_every_group_and_one_case_in_n_of_each():
    cases = run.select_cases(True, 1, 0)
    assert run.ci_sample(cases, 1, 3) == cases
    for offset in range(4):
        sample = run.ci_sample(cases, 4, offset)
        for group in {c.group for c in cases}:
            of_group = [c.id for c in cases if c.group == group]
            taken = [c.id for c in sample if c.group == group]
            if len(of_group) < 4:
                assert len(taken) == 1  # a small group still runs one case
            else:
                assert taken == [i for n, i in enumerate(of_group) if n % 4 == offset]
    # neighbours in the lab's table run different cases (of the groups of four or more)
    large = {c.id for c in cases if sum(d.group == c.group for d in cases) >= 4}
    a, b = run.ci_sample(cases, 4, 0), run.ci_sample(cases, 4, 1)
    assert not {c.id for c in a} & {c.id for c in b} & large


def test_the_ci_flag_samples_only_runtimes_with_a_ci_share(tmp_path, monkeypatch):
    seen: dict[str, int] = {}

    def fake_run_runtime(rt, cases, work, known, *, ci=False):
        chosen = run.ci_sample(cases, rt.ci_every, 0) if ci else cases
        seen[rt.name] = len(chosen)
        return run.RuntimeReport(rt.name, rt.release, rt.profile, case_ids=[c.id for c in chosen])

    monkeypatch.setattr(run, "run_runtime", fake_run_runtime)
    monkeypatch.setattr(run.Runtime, "installed", lambda self: True)
    assert run.main(["--runtime", "pi", "--runtime", "kilo-code", "--quick", "--ci"]) == 0
    assert seen["pi"] == len(run.select_cases(True, 1, 0))
    assert seen["kilo-code"] < seen["pi"] / 3
    assert RUNTIMES["kilo-code"].ci_every > 1 and RUNTIMES["pi"].ci_every == 1
    with pytest.raises(SystemExit):
        run.main(["--record", "--ci"])
