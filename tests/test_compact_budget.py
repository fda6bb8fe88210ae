"""The `compact` budget model (core/compact_budget.py, OpenClaw's prepareSkillsForPrompt) and
the per-root load limit (`[discovery] max_loaded_per_root`, OpenClaw's maxSkillsLoadedPerSource),
on fixture trees; and, when the conformance lab holds OpenClaw, the listing compared byte for
byte with OpenClaw's own prepareSkillsForPrompt on seeded random skill sets."""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from skillprism.core.codes import CODES
from skillprism.core.compact_budget import (
    FULL,
    compact_description,
    plan_compact,
    utf16_cut,
    utf16_len,
)
from skillprism.core.disclose import BudgetSettings, Tier1Model
from skillprism.core.disclosure_spec import BudgetSpec
from skillprism.core.profiles import ProfileError, load_profile
from skillprism.core.resolve import build_catalog
from tests.test_schema_keys import build, profile, write

COMPACT = """
[tier1]
header = "Skills, full:"
footer = "end"
entry = "- {name}: {description}"
entry_name_only = "- {name}"
escape = "none"
line_breaks = "keep"
order = "name"
[tier1.budget]
model = "compact"
fallback_chars = 200
max_entries = 3
lead = "\\n\\n"
cut_suffix = "..."
compact_min_chars = 4
compact_max_chars = 40
compact_header = "Skills, compact:"
compact_header_names = "Skills, names:"
compact_note = "NOTE compact ({descriptions})"
truncated_note = "NOTE {shown} of {total}{detail}"
truncated_detail = " (compact, {descriptions})"
descriptions_words = ["cut", "omitted"]
"""


def skill_md(name: str, description: str) -> str:
    return f"---\nname: {name}\ndescription: {json.dumps(description)}\n---\nBody.\n"


def test_utf16_length_and_cut() -> None:
    assert utf16_len("a🚀b") == 4 and utf16_len("é") == 1
    assert utf16_cut("a🚀b", 2) == "a"  # the pair is not split
    assert utf16_cut("a🚀b", 3) == "a🚀"
    assert utf16_cut("abc", 5) == "abc"


def test_compact_description_folds_cuts_and_trims_before_the_suffix() -> None:
    assert compact_description("  Short\n  text ", 40, "...") == "Short text"
    assert compact_description("Alpha beta gamma", 9, "...") == "Alpha..."  # 'Alpha ' trimmed
    assert compact_description("Alpha beta", 3, "...") == "Alp"  # no room for the suffix
    assert compact_description("   ", 10, "...") == ""


def test_plan_uses_the_runtimes_binary_searches() -> None:
    b = BudgetSpec(model="compact", max_entries=0, compact_min_chars=4, compact_max_chars=10)

    def size(count: int, chars: int, note: bool) -> int:
        per = 30 if chars == FULL else 5 + chars
        return count * per + (7 if note else 0)

    assert plan_compact(b, 3, 100, size) == plan_compact(b, 3, 100, size)
    full = plan_compact(b, 3, 97, size)
    assert (full.count, full.chars) == (3, FULL)
    cut = plan_compact(b, 3, 40, size)  # 3 x (5 + c) + 7 <= 40 -> c = 6
    assert (cut.count, cut.chars, cut.note) == (3, 6, True)
    names = plan_compact(b, 3, 25, size)  # 3 x 5 + 7 = 22 fits, 3 x 9 + 7 does not
    assert (names.count, names.chars) == (3, 0)
    fewer = plan_compact(b, 3, 17, size)  # two names and the note
    assert (fewer.count, fewer.chars, fewer.note) == (2, 0, True)
    assert plan_compact(b, 3, 3, size).count == 0


def test_compact_model_full_compact_names_and_truncated(tmp_path: Path) -> None:
    proj = tmp_path / "proj"
    (proj / ".git").mkdir(parents=True)
    for name, desc in [
        ("a", "First  skill\nof the set, with more words than fit the limit."),
        ("b", "Second."),
        ("c", "Third one."),
    ]:
        write(proj, f"skills/{name}/SKILL.md", skill_md(name, desc))
    prof = profile(COMPACT)
    model = Tier1Model(build(prof, proj))
    full = model.compute()
    assert full.text.startswith("Skills, full:\n- a: First  skill\nof the set, with more")
    assert not full.warnings

    # 114 characters as the runtime counts them (the lead's two line breaks included)
    compact = model.compute(BudgetSettings(budget_chars=90))
    assert compact.text == (
        "NOTE compact (cut)\n\n\nSkills, compact:\n- a: First skill...\n- b: Second.\n"
        "- c: Third one.\nend"
    )  # folded, cut at 14 ('First skill of' -> 'First skill' + '...'); the short ones kept
    assert len(compact.text) == 90  # the note, its line breaks and the lead count
    assert compact.warnings == ("NOTE compact (cut)",)
    assert [e.outcome for e in compact.entries] == ["shortened", "full", "full"]

    names = model.compute(BudgetSettings(budget_chars=55))
    assert names.text == "NOTE compact (omitted)\n\n\nSkills, names:\n- a\n- b\n- c\nend"
    assert {e.outcome for e in names.entries} == {"name-only"}
    # names with the note do not fit: the runtime drops the note, not a skill
    assert model.compute(BudgetSettings(budget_chars=50)).text == (
        "Skills, names:\n- a\n- b\n- c\nend"
    )
    fewer = model.compute(BudgetSettings(budget_chars=25))
    assert fewer.text == "Skills, names:\n- a\nend"
    assert [e.outcome for e in fewer.entries] == ["name-only", "omitted", "omitted"]


def test_compact_model_lists_at_most_max_entries(tmp_path: Path) -> None:
    proj = tmp_path / "proj"
    (proj / ".git").mkdir(parents=True)
    for name in "abcd":
        write(proj, f"skills/{name}/SKILL.md", skill_md(name, "D."))
    result = Tier1Model(build(profile(COMPACT), proj)).compute()
    assert result.text == "NOTE 3 of 4\n\n\nSkills, full:\n- a: D.\n- b: D.\n- c: D.\nend"
    assert [e.outcome for e in result.entries] == ["full", "full", "full", "omitted"]


def test_compact_model_needs_its_keys() -> None:
    with pytest.raises(ProfileError, match="compact_header"):
        profile('[tier1.budget]\nmodel = "compact"')
    bad = COMPACT.replace('descriptions_words = ["cut", "omitted"]', 'descriptions_words = ["x"]')
    with pytest.raises(ProfileError, match="descriptions_words"):
        profile(bad)


def test_max_loaded_per_root_skips_the_rest_of_a_root_with_a_finding(tmp_path: Path) -> None:
    proj = tmp_path / "proj"
    (proj / ".git").mkdir(parents=True)
    paths = {}
    for name in ("s1", "s2", "s3", "s4"):
        body = "---\nname: broken\n---\n" if name == "s1" else skill_md(name, f"{name}.")
        paths[name] = write(proj, f"skills/{name}/SKILL.md", body)
    other = write(proj, "more/s5/SKILL.md", skill_md("s5", "Five."))
    roots = (
        '[[roots]]\nscope = "a"\npath = "{project}/skills"\n'
        '[[roots]]\nscope = "b"\npath = "{project}/more"\n'
    )
    unlimited = build(profile(roots=roots), proj)
    assert sum(s.loaded for s in unlimited.skills) == 4
    cat = build(profile("[discovery]\nmax_loaded_per_root = 2", roots=roots), proj)
    by = cat.by_key()
    # s1 is refused (no description) and does not count; s2, s3 load; s4 is past the limit
    assert [by[str(paths[n])].loaded for n in ("s1", "s2", "s3", "s4")] == [
        False,
        True,
        True,
        False,
    ]
    s4 = by[str(paths["s4"])]
    assert s4.status == "skipped" and "at most 2 skills from one root" in s4.reason
    assert "root-limit" in {CODES[d.code].rule for d in s4.diagnostics}
    assert by[str(other)].loaded  # another root has its own count
    with pytest.raises(ProfileError, match="max_loaded_per_root"):
        profile("[discovery]\nmax_loaded_per_root = -1")


def test_openclaw_profile_models_the_limits() -> None:
    p = load_profile("openclaw")
    assert p.max_loaded_per_root == 200
    b = p.disclosure.tier1.budget
    assert (b.model, b.max_entries, b.fallback_chars, b.measure) == ("compact", 150, 18000, "utf16")
    assert "requote-description-at-error" in p.reading.repair


# --- against OpenClaw's own code (the conformance lab) -------------------------------------------


def _openclaw_dist() -> Path | None:
    cache = Path(
        os.environ.get("SKILLPRISM_LAB_CACHE")
        or Path(__file__).resolve().parents[1] / "conformance" / ".cache"
    )
    dist = cache / "openclaw" / "node_modules" / "openclaw" / "dist"
    return dist if any(dist.glob("skill-prompt-limits-*.mjs")) else None


RUNNER = """
import fs from "node:fs";
const [limits, jobs] = process.argv.slice(1);
const { n: prepare } = await import(limits);
const out = JSON.parse(fs.readFileSync(jobs, "utf8")).map((job) =>
  prepare({ skills: job.skills, maxSkillsPromptChars: job.limit }).prompt.trim());
process.stdout.write(JSON.stringify(out));
"""


@pytest.mark.skipif(
    _openclaw_dist() is None or shutil.which("node") is None,
    reason="OpenClaw is not in the conformance lab cache (or node is missing)",
)
def test_listing_matches_openclaws_prepare_skills_for_prompt(tmp_path: Path) -> None:
    dist = _openclaw_dist()
    assert dist is not None
    limits = next(dist.glob("skill-prompt-limits-*.mjs"))
    rng = random.Random(26)
    words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "naïve", "🚀"]
    prof = load_profile("openclaw")
    jobs, ours = [], []
    for case in range(24):
        home, proj = tmp_path / f"h{case}", tmp_path / f"p{case}"
        (proj / ".git").mkdir(parents=True)
        home.mkdir()
        count = rng.choice([3, 12, 40, 160, 190])
        for i in range(count):
            desc = " ".join(rng.choice(words) for _ in range(rng.randint(1, 60)))
            if rng.random() < 0.2:
                desc = desc.replace(" ", "\n  ", 2)
            write(proj, f"skills/s{i:03d}/SKILL.md", skill_md(f"s{i:03d}", desc))
        catalog = build_catalog(prof, project=str(proj), home=str(home), env={})
        limit = rng.choice([400, 2_000, 6_000, 18_000])
        ours.append(Tier1Model(catalog).compute(BudgetSettings(budget_chars=limit)).text)
        skills = [
            {"name": s.name, "description": s.description, "filePath": s.path}
            for s in catalog.skills
            if s.loaded
        ]
        jobs.append({"skills": skills, "limit": limit})
    job_file = tmp_path / "jobs.json"
    job_file.write_text(json.dumps(jobs), encoding="utf-8")
    proc = subprocess.run(
        ["node", "--input-type=module", "-e", RUNNER, str(limits), str(job_file)],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    theirs = json.loads(proc.stdout)
    for i, (a, b) in enumerate(zip(ours, theirs, strict=True)):
        assert a == b, f"case {i}: limit {jobs[i]['limit']}, {len(jobs[i]['skills'])} skills"
