"""Fuzzing the parsing and validation entry points under every profile: no input may raise.

Two levels, both deterministic (derandomized, no example database):

* in memory, many examples: bytes shaped like a skill file (framing, YAML-shaped frontmatter with
  the scalars that broke us before: numbers past Python's 4,300-digit limit, huge hex values, tags,
  anchors, flow collections, control characters) and raw bytes, through `read_yaml` in every
  typing, `parse_document` and the unguarded `evaluate` for every profile, plus the diagnostic
  each finding becomes;
* on disk, fewer examples: the same file beside an ordinary skill, through `build_catalog`, every
  check output format, the tier-1 listing and activation, for every profile. The ordinary skill
  must come out as usual and nothing may be an internal error: one bad skill only affects itself.

`SKILLPRISM_FUZZ_EXAMPLES` scales the in-memory run for long runs of one's own (the on-disk run
takes a tenth of it).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skillprism.core.activate import ActivationError, activate
from skillprism.core.disclose import Tier1Model
from skillprism.core.document import Finding, parse_document
from skillprism.core.policy import Policy
from skillprism.core.profiles import available_profiles, load_profile
from skillprism.core.resolve import build_catalog
from skillprism.core.validate import evaluate
from skillprism.core.yamlread import TYPINGS, fallback_fields, read_yaml
from skillprism.formats import format_json, format_sarif, format_text

EXAMPLES = int(os.environ.get("SKILLPRISM_FUZZ_EXAMPLES", "1500"))
PROFILES = [load_profile(name) for name in available_profiles()]
KEYS = [
    "name",
    "description",
    "metadata",
    "allowed-tools",
    "compatibility",
    "license",
    "version",
    "disable-model-invocation",
    "user-invocable",
    "context",
    "arguments",
    "when_to_use",
    "x",
    "on",
    "null",
    "1",
]

digits = st.integers(min_value=1, max_value=6000).flatmap(
    lambda n: st.sampled_from("0123456789").map(lambda d: d * n)
)
# Past Python's 4,300-digit guard, in every notation: drawn on purpose, not left to chance.
huge = st.tuples(st.integers(min_value=3500, max_value=6000), st.sampled_from("123456789")).map(
    lambda nd: nd[1] * nd[0]
)
scalars = st.one_of(
    st.text(max_size=40),
    huge,
    huge.map(lambda d: "0x" + d),
    huge.map(lambda d: "-0o" + d.replace("9", "7").replace("8", "7")),
    st.from_regex(r"[a-z][a-z0-9-]{0,70}", fullmatch=True),
    digits,
    digits.map(lambda d: "-" + d),
    digits.map(lambda d: "0x" + d.replace("0", "f")),
    digits.map(lambda d: "0o" + d.replace("9", "7").replace("8", "1")),
    digits.map(lambda d: d + ".5e" + d[:5]),
    digits.map(lambda d: "0b" + d.replace("2", "1")[:5000]),
    digits.map(lambda d: ":".join(d[i : i + 2] for i in range(0, min(len(d), 400), 2))),
    st.sampled_from(
        [
            "~",
            "null",
            "yes",
            "No",
            "on",
            "true",
            ".inf",
            "-.Inf",
            ".nan",
            "2024-02-30",
            "2024-01-01 10:00:00",
            "1_000",
            "!!int 12",
            "!!binary aGk=",
            "!!python/object:os.system x",
            "!foo bar",
            "&a x",
            "*a",
            "[a, b, {c: d}]",
            "{a: 1, b: [2, 3]}",
            "'quoted ''x'''",
            '"esc \\x41 \\u263a \\0"',
            "|\n  literal\n  block",
            ">-\n  folded\n  block",
            "a: b: c",
            "-",
            "? complex",
            "\t tabbed",
            "%YAML 1.1",
            "---",
            "...",
            "\x00",
            "\x1b[31m",
            "\u202e\u2066",
            "\U000e0041\U000e0042",
        ]
    ),
)
line = st.one_of(
    st.tuples(st.sampled_from(KEYS), scalars).map(lambda kv: f"{kv[0]}: {kv[1]}"),
    st.tuples(st.sampled_from(KEYS), st.lists(scalars, max_size=4)).map(
        lambda kv: kv[0] + ":\n" + "".join(f"  - {v}\n" for v in kv[1])
    ),
    st.tuples(
        st.sampled_from(KEYS), st.lists(st.tuples(st.sampled_from(KEYS), scalars), max_size=3)
    ).map(lambda kv: kv[0] + ":\n" + "".join(f"  {k}: {v}\n" for k, v in kv[1])),
    st.text(max_size=30),
)
frontmatter = st.lists(line, max_size=8).map("\n".join)
body = st.one_of(
    st.text(max_size=200),
    st.sampled_from(
        [
            "# T\n\nSee [a](references/a.md) and [b](../x) and [c](/etc/passwd).\n",
            "!`echo hi`\n$ARGUMENTS $1 $ARGUMENTS[9] ${CLAUDE_SKILL_DIR}\n",
            "```\n---\n```\n",
        ]
    ),
)


@st.composite
def skill_bytes(draw: st.DrawFn) -> bytes:
    if draw(st.integers(0, 9)) == 0:
        return draw(st.binary(max_size=300))
    head = draw(st.sampled_from(["", "\ufeff", "\n", " \n"]))
    opener = draw(st.sampled_from(["---", "--- ", "----", "+++"]))
    closer = draw(st.sampled_from(["---", "-----", "...", "--- x", ""]))
    newline = draw(st.sampled_from(["\n", "\r\n", "\r"]))
    text = f"{head}{opener}\n{draw(frontmatter)}\n{closer}\n{draw(body)}"
    return text.replace("\n", newline).encode("utf-8", "surrogatepass")


def _every_step(data: bytes) -> None:
    doc = parse_document("/skills/fuzzed/SKILL.md", data=data)
    if doc.has_frontmatter:
        for typing in TYPINGS:
            read_yaml(doc.frontmatter_text, doc.frontmatter_first_line, typing)
        fallback_fields(doc.frontmatter_text)
    for profile in PROFILES:
        ev = evaluate(doc, profile, "fuzzed")  # the unguarded evaluation: errors surface here
        for finding in ev.findings:
            assert isinstance(finding, Finding)
            d = Policy(profile).diagnostic(finding, doc.path)
            if d is not None:
                str(d.to_json())
        repr(ev.frontmatter)
        str(ev.name)
        str(ev.description)


@settings(
    max_examples=EXAMPLES,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(skill_bytes())
def test_parsing_and_validation_never_raise(data: bytes) -> None:
    _every_step(data)


ORDINARY = (
    "---\nname: ordinary\ndescription: An ordinary skill. Use when testing.\n---\n# Ordinary\n"
)
# Findings that depend on the other skills present (a clash of names, the same real file).
_NEIGHBOUR_CODES = {"SP301", "SP302", "SP307"}


def _alone() -> dict[str, set[tuple[str, int, int]]]:
    """Each profile's findings on the ordinary skill when it is alone."""
    root = tempfile.mkdtemp(prefix="sp-fuzz-alone-")
    try:
        os.mkdir(os.path.join(root, "ordinary"))
        with open(os.path.join(root, "ordinary", "SKILL.md"), "w", encoding="utf-8") as fh:
            fh.write(ORDINARY)
        return {
            p.name: {
                (d.code, d.line, d.column) for d in build_catalog(p, [root]).skills[0].diagnostics
            }
            for p in PROFILES
        }
    finally:
        shutil.rmtree(root, ignore_errors=True)


ALONE = _alone()


@settings(
    max_examples=max(EXAMPLES // 10, 20),
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(skill_bytes())
def test_one_bad_skill_only_affects_itself(data: bytes) -> None:
    root = tempfile.mkdtemp(prefix="sp-fuzz-")
    try:
        for name, content in (("fuzzed", data), ("ordinary", ORDINARY.encode())):
            os.mkdir(os.path.join(root, name))
            with open(os.path.join(root, name, "SKILL.md"), "wb") as fh:
                fh.write(content)
        catalogs = [build_catalog(p, [root], project=root) for p in PROFILES]
        for catalog in catalogs:
            by_name = {os.path.basename(s.directory): s for s in catalog.skills}
            found = {
                (d.code, d.line, d.column)
                for d in by_name["ordinary"].diagnostics
                if d.code not in _NEIGHBOUR_CODES
            }
            assert found == ALONE[catalog.profile.name], catalog.profile.name
            codes = {d.code for d in catalog.all_diagnostics()}
            assert "SP122" not in codes, [d.message for d in catalog.all_diagnostics()]
            model = Tier1Model(catalog)
            model.compute()
            for skill in catalog.skills:
                if skill.loaded:
                    for invoker in ("model", "user"):
                        with contextlib.suppress(ActivationError):
                            activate(catalog, skill, args='a "b c" $1', invoker=invoker)
        format_text(catalogs)
        format_json(catalogs)
        format_sarif(catalogs)
    finally:
        shutil.rmtree(root, ignore_errors=True)
