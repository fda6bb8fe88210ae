"""`skillprism check --profile agentskills` against the reference validator (skills-ref 0.1.1).

Every case of skills-ref's own test suite (tests/test_validator.py and tests/test_parser.py of the
0.1.1 sdist, copied here as data), a set of our own edge cases, every fixture skill below
tests/fixtures/ and random names/descriptions are run through both validators; the valid/invalid
verdicts must agree, except for the deliberate differences listed in DELIBERATE, where the verdicts
must differ *and* Skill Prism must emit the diagnostic code that explains the difference.
See docs/reference-validator.md.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from skillprism.core.profiles import load_profile
from skillprism.core.resolve import build_catalog

skills_ref_validator = pytest.importorskip("skills_ref.validator")

FIXTURES = Path(__file__).parent / "fixtures"

VALID, INVALID, CRASH = "valid", "invalid", "crash"


# --- running both validators ---------------------------------------------------------------------


def reference_verdict(target: Path) -> str:
    """skills-ref's verdict: valid (no errors), invalid (errors) or crash (unhandled exception;
    `agentskills validate` then prints a traceback and gives no verdict)."""
    try:
        errors = skills_ref_validator.validate(target)
    except Exception:
        return CRASH
    return INVALID if errors else VALID


def our_verdict(target: Path) -> tuple[str, set[str]]:
    """Skill Prism's verdict under the agentskills profile and the codes it emitted.

    The skill is the entry for `target`'s own SKILL.md (skill.md when there is no SKILL.md, as
    skills-ref prefers); no such entry (missing folder or file) is invalid."""
    catalog = build_catalog(load_profile("agentskills"), [str(target)])
    codes = {d.code for d in catalog.diagnostics}
    folder = os.path.abspath(target)
    entries = [s for s in catalog.skills if os.path.abspath(s.directory) == folder]
    entries.sort(key=lambda s: os.path.basename(s.path) != "SKILL.md")
    if not entries:
        return INVALID, codes
    entry = entries[0]
    codes |= {d.code for d in entry.diagnostics}
    return (VALID if entry.valid else INVALID), codes


def compare(target: Path, expected_code: str | None, label: str) -> None:
    ref = reference_verdict(target)
    ours, codes = our_verdict(target)
    if expected_code is None:
        assert ref == ours, f"{label}: skills-ref says {ref}, Skill Prism says {ours} ({codes})"
    else:
        assert ref != ours, (
            f"{label}: listed as a deliberate difference ({expected_code}) but both say {ref}"
        )
        assert expected_code in codes, (
            f"{label}: verdicts differ (skills-ref {ref}, Skill Prism {ours}) but "
            f"{expected_code} is missing from {sorted(codes)}"
        )


# --- the cases -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    """One skill folder: `files` written into `directory` (below tmp_path).

    setup: "dir" (the folder with its files), "missing" (the path does not exist), "file" (the
    path is a plain file named `directory`). `reference` is the verdict skills-ref's own test
    expects (None for our own cases)."""

    id: str
    directory: str
    files: dict[str, str | bytes] = field(default_factory=dict)
    setup: str = "dir"
    reference: str | None = None

    def build(self, base: Path) -> Path:
        target = base / self.directory
        if self.setup == "missing":
            return target
        if self.setup == "file":
            target.write_text("test")
            return target
        target.mkdir()
        for name, content in self.files.items():
            data = content.encode("utf-8") if isinstance(content, str) else content
            (target / name).write_bytes(data)
        return target


def _skill(body: str, name: str = "SKILL.md") -> dict[str, str | bytes]:
    return {name: body}


# skills-ref 0.1.1 tests/test_validator.py, one case per test function.
VALIDATOR_CASES = [
    Case(
        "validator/test_valid_skill",
        "my-skill",
        _skill("---\nname: my-skill\ndescription: A test skill\n---\n# My Skill\n"),
        reference=VALID,
    ),
    Case("validator/test_nonexistent_path", "nonexistent", setup="missing", reference=INVALID),
    Case("validator/test_not_a_directory", "file.txt", setup="file", reference=INVALID),
    Case("validator/test_missing_skill_md", "my-skill", {}, reference=INVALID),
    Case(
        "validator/test_invalid_name_uppercase",
        "MySkill",
        _skill("---\nname: MySkill\ndescription: A test skill\n---\nBody\n"),
        reference=INVALID,
    ),
    Case(
        "validator/test_name_too_long",
        "a" * 70,
        _skill(f"---\nname: {'a' * 70}\ndescription: A test skill\n---\nBody\n"),
        reference=INVALID,
    ),
    Case(
        "validator/test_name_leading_hyphen",
        "-my-skill",
        _skill("---\nname: -my-skill\ndescription: A test skill\n---\nBody\n"),
        reference=INVALID,
    ),
    Case(
        "validator/test_name_consecutive_hyphens",
        "my--skill",
        _skill("---\nname: my--skill\ndescription: A test skill\n---\nBody\n"),
        reference=INVALID,
    ),
    Case(
        "validator/test_name_invalid_characters",
        "my_skill",
        _skill("---\nname: my_skill\ndescription: A test skill\n---\nBody\n"),
        reference=INVALID,
    ),
    Case(
        "validator/test_name_directory_mismatch",
        "wrong-name",
        _skill("---\nname: correct-name\ndescription: A test skill\n---\nBody\n"),
        reference=INVALID,
    ),
    Case(
        "validator/test_unexpected_fields",
        "my-skill",
        _skill(
            "---\nname: my-skill\ndescription: A test skill\n"
            "unknown_field: should not be here\n---\nBody\n"
        ),
        reference=INVALID,
    ),
    Case(
        "validator/test_valid_with_all_fields",
        "my-skill",
        _skill(
            "---\nname: my-skill\ndescription: A test skill\nlicense: MIT\n"
            "metadata:\n  author: Test\n---\nBody\n"
        ),
        reference=VALID,
    ),
    Case(
        "validator/test_allowed_tools_accepted",
        "my-skill",
        _skill(
            "---\nname: my-skill\ndescription: A test skill\n"
            "allowed-tools: Bash(jq:*) Bash(git:*)\n---\nBody\n"
        ),
        reference=VALID,
    ),
    Case(
        "validator/test_i18n_chinese_name",
        "技能",
        _skill("---\nname: 技能\ndescription: A skill with Chinese name\n---\nBody\n"),
        reference=VALID,
    ),
    Case(
        "validator/test_i18n_russian_name_with_hyphens",
        "мой-навык",
        _skill("---\nname: мой-навык\ndescription: A skill with Russian name\n---\nBody\n"),
        reference=VALID,
    ),
    Case(
        "validator/test_i18n_russian_lowercase_valid",
        "навык",
        _skill("---\nname: навык\ndescription: A skill with Russian lowercase name\n---\nBody\n"),
        reference=VALID,
    ),
    Case(
        "validator/test_i18n_russian_uppercase_rejected",
        "НАВЫК",
        _skill("---\nname: НАВЫК\ndescription: A skill with Russian uppercase name\n---\nBody\n"),
        reference=INVALID,
    ),
    Case(
        "validator/test_description_too_long",
        "my-skill",
        _skill(f"---\nname: my-skill\ndescription: {'x' * 1100}\n---\nBody\n"),
        reference=INVALID,
    ),
    Case(
        "validator/test_valid_compatibility",
        "my-skill",
        _skill(
            "---\nname: my-skill\ndescription: A test skill\n"
            "compatibility: Requires Python 3.11+\n---\nBody\n"
        ),
        reference=VALID,
    ),
    Case(
        "validator/test_compatibility_too_long",
        "my-skill",
        _skill(
            f"---\nname: my-skill\ndescription: A test skill\ncompatibility: {'x' * 550}\n"
            "---\nBody\n"
        ),
        reference=INVALID,
    ),
    Case(
        "validator/test_nfkc_normalization",
        "café",  # precomposed U+00E9
        _skill("---\nname: cafe\u0301\ndescription: A test skill\n---\nBody\n"),
        reference=VALID,
    ),
]

# skills-ref 0.1.1 tests/test_parser.py: each content (or folder setup) validated as a skill
# folder named "my-skill" (the parser tests use that name wherever they make a folder).
PARSER_CASES = [
    Case(
        "parser/test_valid_frontmatter",
        "my-skill",
        _skill(
            "---\nname: my-skill\ndescription: A test skill\n---\n# My Skill\n\n"
            "Instructions here.\n"
        ),
        reference=VALID,
    ),
    Case(
        "parser/test_missing_frontmatter",
        "my-skill",
        _skill("# No frontmatter here"),
        reference=INVALID,
    ),
    Case(
        "parser/test_unclosed_frontmatter",
        "my-skill",
        _skill("---\nname: my-skill\ndescription: A test skill\n"),
        reference=INVALID,
    ),
    Case(
        "parser/test_invalid_yaml",
        "my-skill",
        _skill("---\nname: [invalid\ndescription: broken\n---\nBody here\n"),
        reference=INVALID,
    ),
    Case(
        "parser/test_non_dict_frontmatter",
        "my-skill",
        _skill("---\n- just\n- a\n- list\n---\nBody\n"),
        reference=INVALID,
    ),
    Case(
        "parser/test_read_valid_skill",
        "my-skill",
        _skill("---\nname: my-skill\ndescription: A test skill\nlicense: MIT\n---\n# My Skill\n"),
        reference=VALID,
    ),
    Case(
        "parser/test_read_with_metadata",
        "my-skill",
        _skill(
            "---\nname: my-skill\ndescription: A test skill\nmetadata:\n  author: Test Author\n"
            "  version: 1.0\n---\nBody\n"
        ),
        reference=VALID,
    ),
    Case("parser/test_missing_skill_md", "skills-folder", {}, reference=INVALID),
    Case(
        "parser/test_missing_name",
        "my-skill",
        _skill("---\ndescription: A test skill\n---\nBody\n"),
        reference=INVALID,
    ),
    Case(
        "parser/test_missing_description",
        "my-skill",
        _skill("---\nname: my-skill\n---\nBody\n"),
        reference=INVALID,
    ),
    Case(
        "parser/test_find_skill_md_prefers_uppercase",
        "my-skill",
        {"SKILL.md": "uppercase", "skill.md": "lowercase"},
        reference=INVALID,
    ),
    Case(
        "parser/test_find_skill_md_accepts_lowercase",
        "my-skill",
        {"skill.md": "lowercase"},
        reference=INVALID,
    ),
    Case("parser/test_find_skill_md_returns_none_when_missing", "my-skill", {}, reference=INVALID),
    Case(
        "parser/test_read_properties_with_lowercase_skill_md",
        "my-skill",
        _skill("---\nname: my-skill\ndescription: A test skill\n---\n# My Skill\n", "skill.md"),
        reference=VALID,
    ),
    Case(
        "parser/test_read_with_allowed_tools",
        "my-skill",
        _skill(
            "---\nname: my-skill\ndescription: A test skill\n"
            "allowed-tools: Bash(jq:*) Bash(git:*)\n---\nBody\n"
        ),
        reference=VALID,
    ),
]

_HEAD = "---\nname: my-skill\ndescription: A test skill\n"

# Our own cases: where the two parsers could part ways.
EXTRA_CASES = [
    # agreements
    Case("extra/crlf", "my-skill", _skill(_HEAD.replace("\n", "\r\n") + "---\r\nBody\r\n")),
    Case("extra/cr-only", "my-skill", _skill(_HEAD.replace("\n", "\r") + "---\rBody\r")),
    Case(
        "extra/delimiter-trailing-space",
        "my-skill",
        _skill(_HEAD.replace("---", "--- ") + "--- \nBody\n"),
    ),
    Case(
        "extra/four-dash-opening",
        "my-skill",
        _skill("----\nname: my-skill\ndescription: x\n---\nB\n"),
    ),
    Case("extra/empty-frontmatter", "my-skill", _skill("---\n---\nBody\n")),
    Case("extra/comment-only-frontmatter", "my-skill", _skill("---\n# nothing\n---\nBody\n")),
    Case("extra/empty-file", "my-skill", _skill("")),
    Case("extra/no-body", "my-skill", _skill(_HEAD + "---\n")),
    Case(
        "extra/block-scalar",
        "my-skill",
        _skill("---\nname: my-skill\ndescription: |\n  two\n  lines\n---\nB\n"),
    ),
    Case(
        "extra/quoted-values",
        "my-skill",
        _skill("---\nname: 'my-skill'\ndescription: \"it's\"\n---\nB\n"),
    ),
    Case(
        "extra/empty-description",
        "my-skill",
        _skill("---\nname: my-skill\ndescription: ''\n---\nB\n"),
    ),
    Case(
        "extra/blank-description", "my-skill", _skill("---\nname: my-skill\ndescription:\n---\nB\n")
    ),
    Case("extra/empty-name", "my-skill", _skill("---\nname:\ndescription: x\n---\nB\n")),
    Case("extra/name-mapping", "my-skill", _skill("---\nname:\n  a: b\ndescription: x\n---\nB\n")),
    Case(
        "extra/name-list", "my-skill", _skill("---\nname:\n  - my-skill\ndescription: x\n---\nB\n")
    ),
    Case(
        "extra/description-1024",
        "my-skill",
        _skill(f"---\nname: my-skill\ndescription: {'d' * 1024}\n---\nB\n"),
    ),
    Case(
        "extra/description-1025",
        "my-skill",
        _skill(f"---\nname: my-skill\ndescription: {'d' * 1025}\n---\nB\n"),
    ),
    Case("extra/name-64", "n" * 64, _skill(f"---\nname: {'n' * 64}\ndescription: x\n---\nB\n")),
    Case("extra/name-65", "n" * 65, _skill(f"---\nname: {'n' * 65}\ndescription: x\n---\nB\n")),
    Case(
        "extra/name-trailing-hyphen",
        "my-skill-",
        _skill("---\nname: my-skill-\ndescription: x\n---\nB\n"),
    ),
    Case(
        "extra/name-with-space", "my skill", _skill("---\nname: my skill\ndescription: x\n---\nB\n")
    ),
    Case(
        "extra/name-ligature-nfkc",
        "ﬁle-tool",
        _skill("---\nname: ﬁle-tool\ndescription: x\n---\nB\n"),
    ),
    Case(
        "extra/compatibility-500",
        "my-skill",
        _skill(_HEAD + f"compatibility: {'c' * 500}\n---\nB\n"),
    ),
    Case(
        "extra/compatibility-mapping",
        "my-skill",
        _skill(_HEAD + "compatibility:\n  a: b\n---\nB\n"),
    ),
    Case("extra/empty-license", "my-skill", _skill(_HEAD + "license:\n---\nB\n")),
    Case(
        "extra/allowed-tools-block-list",
        "my-skill",
        _skill(_HEAD + "allowed-tools:\n  - Read\n  - Bash\n---\nB\n"),
    ),
    Case("extra/numeric-key", "my-skill", _skill(_HEAD + "1: x\n---\nB\n")),
    Case(
        "extra/dash-inside-value-harmless",
        "my-skill",
        _skill("---\nname: my-skill\ndescription: a --- b\n---\nB\n"),
    ),
    Case(
        "extra/nul-in-frontmatter",
        "my-skill",
        _skill(_HEAD.replace("A test", "A\x00test") + "---\nB\n"),
    ),
    Case("extra/mixed-case-file-name", "my-skill", _skill(_HEAD + "---\nB\n", "Skill.md")),
    # deliberate differences (see DELIBERATE)
    Case("extra/bom", "my-skill", {"SKILL.md": b"\xef\xbb\xbf" + (_HEAD + "---\nBody\n").encode()}),
    Case(
        "extra/blank-lines-before-frontmatter", "my-skill", _skill("\n\n" + _HEAD + "---\nBody\n")
    ),
    Case(
        "extra/dash-inside-value",
        "my-skill",
        _skill("---\ndescription: Split a---b files\nname: my-skill\n---\nB\n"),
    ),
    Case("extra/long-closing-delimiter", "my-skill", _skill(_HEAD + "-----\nBody\n")),
    Case("extra/duplicate-key", "my-skill", _skill(_HEAD + "description: again\n---\nB\n")),
    Case(
        "extra/invalid-utf8", "my-skill", {"SKILL.md": (_HEAD + "---\n").encode() + b"Body \xff\n"}
    ),
    Case("extra/nul-in-body", "my-skill", _skill(_HEAD + "---\nBody\x00\n")),
    Case("extra/flow-mapping", "my-skill", _skill(_HEAD + "metadata: {author: me}\n---\nB\n")),
    Case("extra/flow-list", "my-skill", _skill(_HEAD + "allowed-tools: [Read, Bash]\n---\nB\n")),
    Case(
        "extra/anchor-alias",
        "my-skill",
        _skill("---\nname: &n my-skill\ndescription: *n\n---\nB\n"),
    ),
    Case("extra/tag", "my-skill", _skill("---\nname: !!str my-skill\ndescription: x\n---\nB\n")),
    Case("extra/empty-compatibility", "my-skill", _skill(_HEAD + "compatibility: ''\n---\nB\n")),
    Case("extra/metadata-scalar", "my-skill", _skill(_HEAD + "metadata: none\n---\nB\n")),
    Case(
        "extra/metadata-nested", "my-skill", _skill(_HEAD + "metadata:\n  a:\n    b: c\n---\nB\n")
    ),
    Case("extra/license-mapping", "my-skill", _skill(_HEAD + "license:\n  spdx: MIT\n---\nB\n")),
    Case(
        "extra/allowed-tools-mapping",
        "my-skill",
        _skill(_HEAD + "allowed-tools:\n  Bash: git\n---\nB\n"),
    ),
    Case(
        "extra/unicode-name-with-digits",
        "шаг-2",
        _skill("---\nname: шаг-2\ndescription: x\n---\nB\n"),
    ),
]

# The deliberate differences: case id -> the code Skill Prism emits to explain it.
DELIBERATE: dict[str, str] = {
    # skills-ref accepts any Unicode letter (str.isalnum); the specification allows a-z, 0-9, '-'.
    "validator/test_i18n_chinese_name": "SP290",
    "validator/test_i18n_russian_name_with_hyphens": "SP290",
    "validator/test_i18n_russian_lowercase_valid": "SP290",
    "validator/test_nfkc_normalization": "SP290",
    "extra/unicode-name-with-digits": "SP290",
    # skills-ref's frontmatter split: '---' must be byte 0; splits on the first two '---' anywhere.
    "extra/bom": "SP190",
    "extra/blank-lines-before-frontmatter": "SP190",
    "extra/dash-inside-value": "SP190",
    "extra/long-closing-delimiter": "SP190",
    # strictyaml refusals
    "extra/duplicate-key": "SP190",
    "extra/anchor-alias": "SP190",
    "extra/tag": "SP190",
    "extra/flow-mapping": "SP192",
    "extra/flow-list": "SP192",
    # skills-ref reads the file with read_text(): UnicodeDecodeError escapes.
    "extra/invalid-utf8": "SP191",
    # NUL bytes: a binary file for us; skills-ref reads it as text (crashes on a NUL in the YAML).
    "extra/nul-in-body": "SP190",
    "extra/nul-in-frontmatter": "SP190",
    # optional fields the specification restricts and skills-ref does not check
    "extra/empty-compatibility": "SP190",
    "extra/metadata-scalar": "SP190",
    "extra/metadata-nested": "SP190",
    "extra/license-mapping": "SP190",
    "extra/allowed-tools-mapping": "SP190",
}

ALL_CASES = VALIDATOR_CASES + PARSER_CASES + EXTRA_CASES


def test_case_ids_are_unique_and_differences_known() -> None:
    ids = [c.id for c in ALL_CASES]
    assert len(ids) == len(set(ids))
    assert set(DELIBERATE) <= set(ids)
    assert {c.id.split("/")[0] for c in VALIDATOR_CASES} == {"validator"}
    assert len(VALIDATOR_CASES) == 21 and len(PARSER_CASES) == 15  # skills-ref 0.1.1's tests


@pytest.mark.parametrize("case", ALL_CASES, ids=lambda c: c.id)
def test_verdicts_agree(case: Case, tmp_path: Path) -> None:
    target = case.build(tmp_path)
    if case.reference is not None:
        # The copy is faithful: skills-ref gives the verdict its own test expects.
        assert reference_verdict(target) == case.reference
    compare(target, DELIBERATE.get(case.id), case.id)


# --- fixtures ------------------------------------------------------------------------------------

# Fixture skill folder (relative to tests/fixtures, '/'-separated) -> the code that explains a
# deliberate verdict difference.
FIXTURE_DIFFERENCES: dict[str, str] = {
    # allowed-tools: [Read, Grep] -- strictyaml refuses flow style
    "realworld/allowed_tools/flow-list-form": "SP192",
    # UTF-8 byte order mark before '---' -- skills-ref: "must start with YAML frontmatter"
    "realworld/bom/pdf-extract": "SP190",
    "realworld/crlf/windows-notepad": "SP190",
}


def _fixture_skill_dirs() -> list[str]:
    found: set[str] = set()
    if not FIXTURES.is_dir():
        return []
    for dirpath, dirnames, filenames in os.walk(FIXTURES):
        rel = Path(dirpath).relative_to(FIXTURES)
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("profile"))
        if ".no-refval" in filenames:
            dirnames[:] = []
            continue
        if rel.parts and ("SKILL.md" in filenames or "skill.md" in filenames):
            found.add(rel.as_posix())
    return sorted(found)


FIXTURE_SKILLS = _fixture_skill_dirs()


@pytest.mark.parametrize("rel", FIXTURE_SKILLS)
def test_fixture_verdicts_agree(rel: str) -> None:
    compare(FIXTURES / rel, FIXTURE_DIFFERENCES.get(rel), f"fixtures/{rel}")


def test_fixture_differences_are_current() -> None:
    stale = sorted(set(FIXTURE_DIFFERENCES) - set(FIXTURE_SKILLS))
    assert not stale, f"FIXTURE_DIFFERENCES names fixtures that are gone or skipped: {stale}"


# --- random names and descriptions ---------------------------------------------------------------

NAME_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789-_ABCXYZ éжЖßﬁ²技"
DESC_ALPHABET = "abcdefghijklmnopqrstuvwxyz ABC0123456789.,()éж"

names = st.one_of(
    st.text(NAME_ALPHABET, min_size=0, max_size=70),
    # mostly well-formed names (valid ones, and ones just over 64 characters)
    st.from_regex(r"[a-z0-9]{1,20}(-[a-z0-9]{1,20}){0,3}", fullmatch=True),
    st.from_regex(r"[a-z0-9éжß技]{1,30}(-[a-z0-9éжß技_]{1,30}){0,2}", fullmatch=True),
)
descriptions = st.one_of(
    st.text(DESC_ALPHABET, min_size=0, max_size=40),
    st.builds(
        lambda head, n: (head + "y" * n)[:n],
        st.text(DESC_ALPHABET, max_size=20),
        st.integers(1000, 1050),
    ),
)


def _quoted(value: str, quote: bool) -> str:
    return f'"{value}"' if quote else value


@pytest.fixture(scope="module")
def random_base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("refval-random")


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    name=names,
    description=descriptions,
    quote_name=st.booleans(),
    quote_description=st.booleans(),
    own_folder=st.sampled_from([True, True, True, False]),
)
def test_random_names_and_descriptions(
    random_base: Path,
    name: str,
    description: str,
    quote_name: bool,
    quote_description: bool,
    own_folder: bool,
) -> None:
    folder = name.strip() if own_folder else "some-skill"
    if folder in ("", ".", ".."):
        folder = "some-skill"
    base = Path(tempfile.mkdtemp(dir=random_base))
    target = base / folder
    target.mkdir()
    (target / "SKILL.md").write_text(
        f"---\nname: {_quoted(name, quote_name)}\n"
        f"description: {_quoted(description, quote_description)}\n---\nBody\n",
        encoding="utf-8",
    )
    ref = reference_verdict(target)
    ours, codes = our_verdict(target)
    event(f"skills-ref {ref}, Skill Prism {ours}")
    if ref != ours:
        # The only difference these inputs can hit: skills-ref accepts Unicode letters in names.
        assert (ref, ours) == (VALID, INVALID), (name, description, ref, ours, codes)
        assert any(ord(c) > 127 for c in name), (name, codes)
        assert "SP290" in codes, (name, codes)
