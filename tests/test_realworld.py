"""Real-world skill folder shapes, as found in public skill repositories: each has a fixture tree
under `tests/fixtures/realworld/<case>/` (BOM and CRLF files are byte-exact; `.gitattributes` keeps
git from converting them) and a test of the exact codes, lines and states Skill Prism reports.

Inputs git cannot hold (FIFOs, folder names with a newline or undecodable bytes) and symlinks are
made by the tests in temporary folders. Runtime behaviour other than the Agent Skills profile
(plugin namespacing, keep-both, recursive layout, YAML 1.1 typing) comes from small test profiles
under `tests/fixtures/profiles/`, so these tests do not depend on the shipped runtime profiles.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from skillprism.cli import main
from skillprism.core.catalog import Catalog, SkillEntry
from skillprism.core.profiles import Profile, load_profile, load_profile_file
from skillprism.core.resolve import build_catalog
from skillprism.formats import format_json, format_sarif, format_text

FIXTURES = Path(__file__).parent / "fixtures"
REALWORLD = FIXTURES / "realworld"
CASES = sorted(p.name for p in REALWORLD.iterdir() if p.is_dir())


@pytest.fixture(scope="module")
def agentskills() -> Profile:
    return load_profile("agentskills")


@pytest.fixture(scope="module")
def plugins_profile() -> Profile:
    return load_profile_file(FIXTURES / "profiles" / "rw-plugins.toml")


@pytest.fixture(scope="module")
def keep_both() -> Profile:
    return load_profile_file(FIXTURES / "profiles" / "rw-keep-both.toml")


def check(profile: Profile, *paths: Path | str) -> Catalog:
    return build_catalog(profile, [os.fspath(p) for p in paths])


def skills(cat: Catalog, base: Path | str) -> dict[str, SkillEntry]:
    """Entries keyed by the skill folder relative to `base`, with '/' separators."""
    out = {}
    for s in cat.skills:
        rel = os.path.relpath(s.directory, os.fspath(base)).replace(os.sep, "/")
        out[rel] = s
    assert len(out) == len(cat.skills)
    return out


def found(entry: SkillEntry) -> list[tuple[str, int]]:
    """The entry's findings as (code, line), in the order reported."""
    return [(d.code, d.line) for d in entry.diagnostics]


def states(cat: Catalog, base: Path | str) -> dict[str, str]:
    return {rel: s.status for rel, s in skills(cat, base).items()}


def copy_case(case: str, dest: Path) -> Path:
    target = dest / case
    shutil.copytree(REALWORLD / case, target, symlinks=True)
    return target


def cli_json(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict]:
    code = main(["check", "--format", "json", *args])
    out = capsys.readouterr().out
    return code, json.loads(out)


# --- byte-level shapes -----------------------------------------------------------------------


def test_fixture_bytes_are_exact() -> None:
    bom = (REALWORLD / "bom/pdf-extract/SKILL.md").read_bytes()
    assert bom.startswith(b"\xef\xbb\xbf---\n")
    assert b"\r" not in bom
    crlf = (REALWORLD / "crlf/release-notes/SKILL.md").read_bytes()
    assert crlf.startswith(b"---\r\n") and b"\n" not in crlf.replace(b"\r\n", b"")
    notepad = (REALWORLD / "crlf/windows-notepad/SKILL.md").read_bytes()
    assert notepad.startswith(b"\xef\xbb\xbf---\r\n")
    assert (FIXTURES / ".gitattributes").read_text().split() == ["*", "-text"]


def test_bom(agentskills: Profile) -> None:
    cat = check(agentskills, REALWORLD / "bom")
    entry = skills(cat, REALWORLD / "bom")["pdf-extract"]
    # The BOM is stripped before the frontmatter is looked for: the skill loads, with a warning,
    # and a note that the reference validator (byte-0 `---` test) rejects the file.
    assert found(entry) == [("SP106", 1), ("SP190", 1)]
    assert entry.status == "warning"
    assert entry.name == "pdf-extract"
    assert entry.description is not None and entry.description.startswith("Extract text")
    assert cat.diagnostics == ()


def test_crlf(agentskills: Profile) -> None:
    base = REALWORLD / "crlf"
    cat = check(agentskills, base)
    by = skills(cat, base)
    assert states(cat, base) == {
        "changelog-writer": "ok",
        "release-notes": "error",
        "windows-notepad": "warning",
    }
    assert found(by["changelog-writer"]) == [("SP107", 1)]
    # Line numbers stay right in a CRLF file: the unknown keys are on lines 4 and 5, the broken
    # link on line 12 (column 20, where the target starts).
    assert found(by["release-notes"]) == [
        ("SP107", 1),
        ("SP216", 4),
        ("SP216", 5),
        ("SP501", 12),
    ]
    link = by["release-notes"].diagnostics[-1]
    assert link.column == 20 and "references/template.md" in link.message
    assert by["release-notes"].description == (
        "Draft release notes for a GitHub release from merged pull requests."
    )
    # Notepad: BOM and CRLF together.
    assert found(by["windows-notepad"]) == [("SP106", 1), ("SP107", 1), ("SP190", 1)]
    assert "\r" not in (by["windows-notepad"].description or "")


# --- names -------------------------------------------------------------------------------------


def test_title_case_names_with_spaces_or_dots(agentskills: Profile) -> None:
    base = REALWORLD / "title_case"
    cat = check(agentskills, base)
    by = skills(cat, base)
    assert states(cat, base) == {"nextjs-app-router": "error", "processing-pdfs": "error"}
    for rel in by:
        assert found(by[rel]) == [("SP204", 2), ("SP207", 2), ("SP208", 2)]
    chars = by["nextjs-app-router"].diagnostics[1]
    assert "' ' '.'" in chars.message
    assert "next-js-app-router" in chars.hint
    assert "' '" in by["processing-pdfs"].diagnostics[1].message
    assert by["processing-pdfs"].name == "Processing PDFs"


def test_underscores(agentskills: Profile) -> None:
    base = REALWORLD / "underscores"
    cat = check(agentskills, base)
    by = skills(cat, base)
    assert states(cat, base) == {"csv_tools": "error", "data_analysis": "error"}
    assert found(by["data_analysis"]) == [("SP207", 2)]
    assert "'_'" in by["data_analysis"].diagnostics[0].message
    assert "data-analysis" in by["data_analysis"].diagnostics[0].hint
    # Name fixed, folder not: the mismatch is the only finding.
    assert found(by["csv_tools"]) == [("SP208", 2)]


def test_leading_hyphen(agentskills: Profile, capsys: pytest.CaptureFixture[str]) -> None:
    base = REALWORLD / "leading_hyphen"
    cat = check(agentskills, base)
    entry = skills(cat, base)["-draft-notes"]
    assert found(entry) == [("SP205", 2)]
    assert entry.status == "error"
    assert "draft-notes" in entry.diagnostics[0].hint
    # The skill folder itself named on the command line: a leading '-' is not taken as an option
    # once it is part of a path.
    code, doc = cli_json(capsys, str(base / "-draft-notes"))
    assert code == 1
    [only] = doc["results"][0]["skills"]
    assert only["status"] == "error"
    assert [d["code"] for d in only["diagnostics"]] == ["SP205"]


def test_name_differs_from_directory(
    agentskills: Profile, plugins_profile: Profile, keep_both: Profile
) -> None:
    base = REALWORLD / "name_mismatch"
    entry = skills(check(agentskills, base), base)["web-scraper-v2"]
    assert found(entry) == [("SP208", 2)]
    assert entry.status == "error"
    assert entry.name == "web-scraper"
    assert "rename the folder to 'web-scraper'" in entry.diagnostics[0].hint
    # Runtimes that ignore the rule load it under its frontmatter name.
    for lenient in (plugins_profile, keep_both):
        other = next(iter(check(lenient, base).skills))
        assert (other.status, other.name, found(other)) == ("ok", "web-scraper", [])


# --- discovery and precedence -----------------------------------------------------------------


def test_same_name_in_three_plugins(
    agentskills: Profile, plugins_profile: Profile, keep_both: Profile
) -> None:
    base = REALWORLD / "three_plugins"
    docs, git, review = (
        "acme-docs/skills/code-review",
        "acme-git/skills/code-review",
        "review-tools-plugin/skills/code-review",
    )
    # Agent Skills has no plugins: three skills named code-review clash, the first found wins.
    cat = check(agentskills, base)
    by = skills(cat, base)
    assert states(cat, base) == {docs: "ok", git: "shadowed", review: "shadowed"}
    assert found(by[docs]) == []
    for rel in (git, review):
        assert found(by[rel]) == [("SP301", 0)]
        assert by[rel].shadowed_by == by[docs].path
        assert {s.qualified_name for s in cat.skills} == {"code-review"}
    # A runtime that namespaces plugins: three distinct names, taken from each plugin.json
    # (the third plugin's folder name differs from its manifest name).
    cat = check(plugins_profile, base)
    by = skills(cat, base)
    assert states(cat, base) == {docs: "ok", git: "ok", review: "ok"}
    assert {rel: s.qualified_name for rel, s in by.items()} == {
        docs: "acme-docs:code-review",
        git: "acme-git:code-review",
        review: "review-tools:code-review",
    }
    assert all(found(s) == [] for s in cat.skills)
    # A runtime that keeps both copies: every copy loads, each with a warning naming the others.
    cat = check(keep_both, base)
    by = skills(cat, base)
    assert states(cat, base) == {docs: "warning", git: "warning", review: "warning"}
    for rel, entry in by.items():
        assert found(entry) == [("SP307", 0)]
        others = [o.path for r, o in by.items() if r != rel]
        assert all(p in entry.diagnostics[0].message for p in others)


def test_same_name_in_project_and_user_roots(plugins_profile: Profile, tmp_path: Path) -> None:
    """The same skill name reached through the profile's own roots (no paths given): the project
    copy wins, the user copy is shadowed. Without a plugin manifest nothing is namespaced."""
    home = tmp_path / "home"
    user_skill = home / ".claude" / "skills" / "code-review"
    user_skill.mkdir(parents=True)
    shutil.copy(REALWORLD / "three_plugins/acme-git/skills/code-review/SKILL.md", user_skill)
    project = tmp_path / "project"
    proj_skill = project / ".claude" / "skills" / "code-review"
    proj_skill.mkdir(parents=True)
    shutil.copy(REALWORLD / "three_plugins/acme-docs/skills/code-review/SKILL.md", proj_skill)
    cat = build_catalog(plugins_profile, None, project=str(project), home=str(home), env={})
    by = {s.root.scope: s for s in cat.skills}
    assert by["project"].status == "ok"
    assert by["user"].status == "shadowed"
    assert found(by["user"]) == [("SP301", 0)]


def test_skills_nested_inside_skills(agentskills: Profile, keep_both: Profile) -> None:
    base = REALWORLD / "nested"
    cat = check(agentskills, base)
    by = skills(cat, base)
    # One level deep only: the inner skill is never found, and the outer one is told that its
    # folder (and so its resources) contains another skill.
    assert states(cat, base) == {"pdf-suite": "ok", "pdf-suite/forms": "not-discovered"}
    assert found(by["pdf-suite"]) == [("SP306", 0)]
    assert "forms" in by["pdf-suite"].diagnostics[0].message
    assert found(by["pdf-suite/forms"]) == [("SP300", 0)]
    assert "two levels below" in by["pdf-suite/forms"].reason
    # A recursive runtime finds both.
    cat = check(keep_both, base)
    by = skills(cat, base)
    assert states(cat, base) == {"pdf-suite": "ok", "pdf-suite/forms": "ok"}
    assert found(by["pdf-suite"]) == [("SP306", 0)]
    assert found(by["pdf-suite/forms"]) == []


def test_skill_md_at_repository_root(
    agentskills: Profile, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = copy_case("repo_root", tmp_path) / "git-commit-helper"
    (repo / ".git").mkdir()
    (repo / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    # A release archive committed beside SKILL.md is one of the skill's files, not a packed skill.
    shutil.copy(REALWORLD / "zip_beside/pdf-tools.zip", repo / "git-commit-helper.zip")
    for given in (repo, repo / "SKILL.md"):
        cat = check(agentskills, given)
        [entry] = cat.skills
        assert entry.status == "ok", given
        assert found(entry) == []
        assert entry.name == "git-commit-helper"
        assert entry.directory == str(repo)
        assert cat.diagnostics == ()
    # The same repository cloned under another name (the usual `claude-skill-...` repo name).
    clone = tmp_path / "claude-skill-git-commit-helper"
    repo.rename(clone)
    [entry] = check(agentskills, clone).skills
    assert found(entry) == [("SP208", 2)]
    assert entry.status == "error"
    code, doc = cli_json(capsys, str(clone))
    assert code == 1
    assert doc["results"][0]["skills"][0]["status"] == "error"


def test_symlinked_alias_folders(agentskills: Profile, tmp_path: Path) -> None:
    case = copy_case("symlink_alias", tmp_path)
    root = case / "skills"
    # A short alias beside the real folder, and an alias in a second root under the same name.
    (root / "cr").symlink_to("code-review", target_is_directory=True)
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    (mirror / "code-review").symlink_to(root / "code-review", target_is_directory=True)
    cat = check(agentskills, root, mirror)
    by = {os.path.relpath(s.directory, tmp_path): s for s in cat.skills}
    real = str(root / "code-review" / "SKILL.md")
    assert {k: s.status for k, s in by.items()} == {
        "symlink_alias/skills/code-review": "ok",
        # The alias's folder name is not the skill's name: an error under the spec, and the file
        # loads only once anyway.
        "symlink_alias/skills/cr": "error",
        "mirror/code-review": "shadowed",
    }
    assert found(by["symlink_alias/skills/code-review"]) == []
    assert found(by["symlink_alias/skills/cr"]) == [("SP208", 2), ("SP302", 0)]
    assert found(by["mirror/code-review"]) == [("SP302", 0)]
    for alias in ("symlink_alias/skills/cr", "mirror/code-review"):
        assert by[alias].real_path == os.path.realpath(real)
        assert by[alias].shadowed_by == real
    assert cat.diagnostics == ()


def test_symlink_loop_inside_a_skill(agentskills: Profile, tmp_path: Path) -> None:
    root = copy_case("symlink_alias", tmp_path) / "skills"
    # A link back up into its own parents (a classic `ln -s .. loop`): reported, not followed.
    (root / "code-review" / "loop").symlink_to("..", target_is_directory=True)
    cat = check(agentskills, root)
    [entry] = cat.skills
    assert (entry.status, found(entry)) == ("ok", [])
    assert [(d.code, d.path) for d in cat.diagnostics] == [
        ("SP304", str(root / "code-review" / "loop"))
    ]


def test_symlinked_skill_installed_into_profile_root(agentskills: Profile, tmp_path: Path) -> None:
    """The common install: `.agents/skills/<name>` links to a checkout kept elsewhere."""
    case = copy_case("symlink_alias", tmp_path)
    project = tmp_path / "project"
    skills_root = project / ".agents" / "skills"
    skills_root.mkdir(parents=True)
    (skills_root / "api-docs").symlink_to(case / "shared" / "api-docs", target_is_directory=True)
    cat = build_catalog(agentskills, None, project=str(project), home=str(tmp_path / "h"), env={})
    [entry] = cat.skills
    assert (entry.status, entry.name, entry.root.scope) == ("ok", "api-docs", "project")
    assert entry.path == str(skills_root / "api-docs" / "SKILL.md")
    assert entry.real_path == os.path.realpath(case / "shared" / "api-docs" / "SKILL.md")
    assert found(entry) == []


# --- frontmatter shapes -------------------------------------------------------------------------


def test_allowed_tools_list_and_comma_string(
    agentskills: Profile, plugins_profile: Profile
) -> None:
    base = REALWORLD / "allowed_tools"
    cat = check(agentskills, base)
    by = skills(cat, base)
    assert states(cat, base) == {
        "comma-form": "warning",
        "flow-list-form": "warning",
        "list-form": "warning",
        "space-form": "ok",
    }
    assert found(by["list-form"]) == [("SP215", 4)]
    assert "Read Grep Glob" in by["list-form"].diagnostics[0].hint
    assert found(by["comma-form"]) == [("SP215", 4)]
    assert "Bash(pytest:*) Read Grep" in by["comma-form"].diagnostics[0].hint
    # `[Bash, Edit]`: the list form, and strictyaml's refusal of flow style at the '['.
    assert found(by["flow-list-form"]) == [("SP215", 4), ("SP192", 4)]
    assert by["flow-list-form"].diagnostics[1].column == 16
    assert found(by["space-form"]) == []
    # A runtime that takes a string or a list: all four are fine.
    cat = check(plugins_profile, base)
    assert set(states(cat, base).values()) == {"ok"}
    assert all(found(s) == [] for s in cat.skills)


def test_metadata_with_lists_or_dates(agentskills: Profile, keep_both: Profile) -> None:
    base = REALWORLD / "metadata_shapes"
    cat = check(agentskills, base)
    by = skills(cat, base)
    assert states(cat, base) == {"brand-guidelines": "error", "plain-metadata": "ok"}
    # The spec's typing (every scalar a string, as strictyaml reads it): 1.0 and 2025-03-14 are
    # strings, the two lists are not. Each finding sits on its own key's line.
    # skills-ref would also let a list through under metadata (SP190 at the metadata: key).
    assert found(by["brand-guidelines"]) == [
        ("SP214", 8),
        ("SP214", 11),
        ("SP192", 11),
        ("SP190", 4),
    ]
    assert [d.column for d in by["brand-guidelines"].diagnostics] == [3, 3, 13, 1]
    assert "metadata.tags is a list" in by["brand-guidelines"].diagnostics[0].message
    assert by["brand-guidelines"].frontmatter["metadata"]["updated"] == "2025-03-14"
    assert found(by["plain-metadata"]) == []
    # YAML 1.1 typing (PyYAML): the version is a float and the date a date.
    cat = check(keep_both, base)
    by = skills(cat, base)
    assert found(by["brand-guidelines"]) == [
        ("SP214", 6),
        ("SP214", 7),
        ("SP214", 8),
        ("SP214", 11),
    ]
    messages = [d.message for d in by["brand-guidelines"].diagnostics]
    assert "metadata.version is a float, not a string" in messages
    assert "metadata.updated is a date, not a string" in messages
    assert found(by["plain-metadata"]) == []


def test_multiline_quoted_descriptions(agentskills: Profile, keep_both: Profile) -> None:
    base = REALWORLD / "multiline_description"
    cat = check(agentskills, base)
    by = skills(cat, base)
    assert set(states(cat, base).values()) == {"ok"}
    assert all(found(s) == [] for s in cat.skills)
    # Quoted scalars fold their line break into one space; `''` is a quote inside single quotes.
    assert by["double-quoted"].description == (
        "Create and edit Word documents (.docx): tracked changes, comments, headers and "
        "footers. Use when the user mentions Word or .docx files."
    )
    assert by["single-quoted"].description == (
        "Build presentations with python-pptx. It's for slides: layouts, charts and speaker notes."
    )
    assert by["folded-block"].description == (
        "Analyse Excel workbooks: formulas, pivot tables and charts. "
        "Use when the user shares an .xlsx file."
    )
    assert by["literal-block"].description == (
        "Manage Terraform plans.\nUse when the user asks to plan or apply infrastructure."
    )
    # A runtime that collapses values to one line says so only where a line break survives.
    cat = check(keep_both, base)
    by = skills(cat, base)
    assert found(by["literal-block"]) == [("SP220", 3)]
    assert by["literal-block"].description == (
        "Manage Terraform plans. Use when the user asks to plan or apply infrastructure."
    )
    assert all(found(by[k]) == [] for k in ("double-quoted", "single-quoted", "folded-block"))


# --- files that are not what they seem ----------------------------------------------------------


def test_git_lfs_pointer(agentskills: Profile, plugins_profile: Profile) -> None:
    base = REALWORLD / "lfs_pointer"
    for profile in (agentskills, plugins_profile):
        cat = check(profile, base)
        by = skills(cat, base)
        assert states(cat, base) == {"large-skill": "skipped", "normal-skill": "ok"}
        assert found(by["large-skill"]) == [("SP118", 1)]
        assert "git lfs pull" in by["large-skill"].diagnostics[0].hint
        assert by["large-skill"].name == ""
        assert found(by["normal-skill"]) == []


def test_zip_files_beside_skills(agentskills: Profile) -> None:
    base = REALWORLD / "zip_beside"
    cat = check(agentskills, base)
    assert states(cat, base) == {"pdf-tools": "ok"}
    assert found(skills(cat, base)["pdf-tools"]) == []
    # Archives among the skills are reported; those inside a skill folder are its resources.
    assert [(d.code, d.severity.value, os.path.basename(d.path)) for d in cat.diagnostics] == [
        ("SP305", "info", "brand-guidelines.skill"),
        ("SP305", "info", "pdf-tools.zip"),
    ]


def test_agents_openai_yaml_sidecar(agentskills: Profile, keep_both: Profile) -> None:
    base = REALWORLD / "openai_sidecar"
    for profile in (agentskills, keep_both):
        cat = check(profile, base)
        # The sidecar is neither a skill file nor frontmatter: it changes nothing here.
        assert states(cat, base) == {"figma-to-code": "ok"}
        assert found(cat.skills[0]) == []
        assert cat.diagnostics == ()
    assert (base / "figma-to-code/agents/openai.yaml").is_file()


# --- every fixture through the command line -----------------------------------------------------


@pytest.mark.parametrize("case", CASES)
def test_cli_json_matches_catalog(
    case: str, agentskills: Profile, capsys: pytest.CaptureFixture[str]
) -> None:
    base = REALWORLD / case
    code, doc = cli_json(capsys, str(base))
    [result] = doc["results"]
    cat = check(agentskills, base)
    assert {s["path"]: s["status"] for s in result["skills"]} == {
        s.path: s.status for s in cat.skills
    }
    assert code == (1 if any(d.severity.value == "error" for d in cat.all_diagnostics()) else 0)


# --- inputs git cannot hold ----------------------------------------------------------------------

GOOD = b"---\nname: %s\ndescription: A skill in an awkward place.\n---\n\n# Body\n\nDo it.\n"


def _all_formats(cat: Catalog) -> None:
    json.loads(format_json([cat]))
    json.loads(format_sarif([cat]))
    text = format_text([cat])
    assert text.isascii() or all(line.isprintable() for line in text.splitlines())


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
def test_fifo_named_skill_md(
    agentskills: Profile, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "skills" / "fifo-skill"
    folder.mkdir(parents=True)
    os.mkfifo(folder / "SKILL.md")
    cat = check(agentskills, tmp_path / "skills")
    [entry] = cat.skills
    assert found(entry) == [("SP101", 0)]
    assert entry.status == "skipped"
    assert stat.S_ISFIFO(os.stat(folder / "SKILL.md").st_mode)
    _all_formats(cat)
    code, doc = cli_json(capsys, str(tmp_path / "skills"))
    assert code == 1
    assert doc["results"][0]["skills"][0]["diagnostics"][0]["code"] == "SP101"
    # Named directly, too: never opened, so nothing blocks.
    code, doc = cli_json(capsys, str(folder / "SKILL.md"))
    assert doc["results"][0]["skills"][0]["status"] == "skipped"


def test_folder_name_with_newline(
    agentskills: Profile, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "skills" / "two\nlines"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_bytes(GOOD % b"two-lines")
    cat = check(agentskills, tmp_path / "skills")
    [entry] = cat.skills
    assert found(entry) == [("SP208", 2)]
    assert entry.status == "error"
    assert entry.directory == str(folder)
    _all_formats(cat)
    text = format_text([cat])
    assert "two\\nlines" in text
    assert "two\nlines" not in text
    code, doc = cli_json(capsys, str(tmp_path / "skills"))
    assert code == 1
    [skill] = doc["results"][0]["skills"]
    assert skill["path"] == str(folder / "SKILL.md")
    assert skill["status"] == "error"


@pytest.mark.skipif(os.name == "nt", reason="POSIX byte file names")
def test_folder_name_with_undecodable_bytes(
    agentskills: Profile, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = os.path.join(os.fsencode(tmp_path), b"skills")
    folder = os.path.join(root, b"caf\xe9")  # Latin-1 'café', not UTF-8
    try:
        os.makedirs(folder)
    except OSError:  # pragma: no cover - a file system that insists on UTF-8 names
        pytest.skip("this file system refuses non-UTF-8 names")
    with open(os.path.join(folder, b"SKILL.md"), "wb") as fh:
        fh.write(GOOD % b"cafe")
    cat = check(agentskills, os.fsdecode(root))
    [entry] = cat.skills
    assert found(entry) == [("SP208", 2)]
    assert entry.status == "error"
    assert entry.directory == os.fsdecode(folder)
    _all_formats(cat)
    assert "caf\\xe9" in format_text([cat])
    code, doc = cli_json(capsys, os.fsdecode(root))
    assert code == 1
    [skill] = doc["results"][0]["skills"]
    assert os.fsencode(skill["path"]) == os.path.join(folder, b"SKILL.md")
    assert skill["status"] == "error"
    # Text output to a strict UTF-8 stdout: the name is escaped, nothing raises on encoding.
    env = {**os.environ, "PYTHONIOENCODING": "utf-8:strict", "PYTHONUTF8": "0"}
    proc = subprocess.run(
        [sys.executable, "-m", "skillprism", "check", "--no-color", os.fsdecode(root)],
        capture_output=True,
        env=env,
        timeout=60,
    )
    assert proc.returncode == 1, proc.stderr
    assert b"Traceback" not in proc.stderr
    assert b"caf\\xe9" in proc.stdout
