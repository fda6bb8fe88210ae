"""The conformance lab (conformance/): fixture generator and comparison logic.

These tests need no runtime: the comparison is fed hand-written driver results. The last tests
run a pinned runtime through its driver and skip cleanly when the lab's cache does not hold it.
"""

from __future__ import annotations

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
    assert tree.env["HOME"] == tree.home and tree.env["XDG_CONFIG_HOME"].startswith(tree.home)
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
    for entry in run.load_known():
        assert entry["reason"] and set(entry) <= {"runtime", "case", "field", "file", "reason"}
        assert entry.get("runtime", "*") == "*" or entry["runtime"] in RUNTIMES


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
    assert "pi" in table and "3/4 (75.0 %)" in table


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
