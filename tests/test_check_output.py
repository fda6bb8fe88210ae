"""`skillprism check` end to end, in-process: the JSON against its documented schema, SARIF against
the published SARIF 2.1.0 schema, compiler-style text, colour, exit codes and project settings.

Every tree is built in tmp_path (undecodable and newline file names included); nothing touches the
real home (conftest.py) and only the agentskills profile plus profile files written here are used.
"""

from __future__ import annotations

import io
import json
import os
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from skillprism.cli import main
from skillprism.core.catalog import STATES

REPO = Path(__file__).resolve().parent.parent
CHECK_SCHEMA = json.loads((REPO / "resources/schemas/check-output.schema.json").read_text("utf-8"))
SARIF_SCHEMA = json.loads((REPO / "tests/data/sarif-schema-2.1.0.json").read_text("utf-8"))

DIAG_LINE = re.compile(
    r"^(?P<path>.+):(?P<line>[1-9][0-9]*):(?P<col>[1-9][0-9]*): "
    r"(?P<sev>error|warning|info) (?P<code>SP[0-9]{3}) (?P<msg>.+)$"
)
DETAIL_LINE = re.compile(r"^    (effect|hint): .+$")
SUMMARY_LINE = re.compile(r"^[\w.-]+: [0-9]+ skill file\(s\)(: .+)?; [0-9]+ error\(s\), .+$")
HEADER_LINE = re.compile(r"^== profile [\w.-]+ ==$")
ANSI = re.compile(r"\x1b\[[0-9;]*m")
# Undecodable bytes and newlines in file names: POSIX file systems take them, others may not.
WEIRD_NAMES = sys.platform.startswith("linux")

LENIENT = """\
schema = 1
name = "lenient"
title = "Lenient test runtime"

[discovery]
file_names = ["SKILL.md"]
layout = "one-level"

[precedence]
rule = "first-wins"

[fields]
name = "string"
description = "string"

[rules]
unknown-field = "warning"
"""


def write_skill(root: Path | bytes, folder: str | bytes, text: str) -> None:
    if isinstance(folder, bytes):
        path = os.path.join(os.fsencode(root), folder)
        name = b"SKILL.md"
    else:
        path = os.path.join(os.fspath(root), folder)
        name = "SKILL.md"
    os.makedirs(path, exist_ok=True)
    with open(os.path.join(path, name), "w", encoding="utf-8") as fh:
        fh.write(text)


def fm(body: str = "Do the thing, step by step.\n", **fields: str) -> str:
    head = "".join(f"{k.replace('_', '-')}: {v}\n" for k, v in fields.items())
    return f"---\n{head}---\n{body}"


# Path suffix of each skill in the big tree -> its state under agentskills.
EXPECTED = {
    "a/good/SKILL.md": "ok",
    "a/good/inner/SKILL.md": "not-discovered",
    "a/Bad_Name/SKILL.md": "error",
    "a/unknown/SKILL.md": "error",
    "a/nodesc/SKILL.md": "skipped",
    "a/yamlerr/SKILL.md": "skipped",
    "a/dup/SKILL.md": "ok",
    "b/dup/SKILL.md": "shadowed",
    "a/two-lines/SKILL.md": "error",
}
if WEIRD_NAMES:
    EXPECTED["a/bad\udcffbyte/SKILL.md"] = "error"  # the byte as its surrogate escape
    EXPECTED["a/new\nline/SKILL.md"] = "error"


@pytest.fixture(autouse=True)
def _neutral_cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # --project defaults to the current folder: keep the checkout's own settings out of it.
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    monkeypatch.chdir(cwd)
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("TERM", raising=False)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """Two PATHs, a/ and b/, with one skill of each kind of trouble."""
    base = tmp_path / "tree"
    a, b = base / "a", base / "b"
    write_skill(a, "good", fm(name="good", description="A fine skill."))
    write_skill(a / "good", "inner", fm(name="inner", description="Nested too deep."))
    write_skill(a, "Bad_Name", fm(name="Bad_Name", description="Upper case and underscore."))
    write_skill(a, "unknown", fm(name="unknown", description="Has a custom key.", colour="red"))
    write_skill(a, "nodesc", fm(name="nodesc"))
    write_skill(a, "yamlerr", fm(name="yamlerr", description="[unclosed"))
    write_skill(a, "dup", fm(name="dup", description="The first copy."))
    write_skill(b, "dup", fm(name="dup", description="The second copy."))
    write_skill(a, "two-lines", fm(name='"two\\nlines"', description="A name with a newline."))
    if WEIRD_NAMES:
        write_skill(a, b"bad\xffbyte", fm(name="badbyte", description="Undecodable folder."))
        write_skill(a, "new\nline", fm(name="newline", description="Newline in the folder."))
    return base


@pytest.fixture
def lenient(tmp_path: Path) -> Path:
    path = tmp_path / "lenient.toml"
    path.write_text(LENIENT, encoding="utf-8")
    return path


def run(capsys: pytest.CaptureFixture[str], *args: object) -> tuple[int, str, str]:
    rc = main(["check", *(os.fspath(a) if isinstance(a, Path) else str(a) for a in args)])
    out, err = capsys.readouterr()
    return rc, out, err


def run_json(capsys: pytest.CaptureFixture[str], *args: object) -> tuple[int, dict[str, Any]]:
    rc, out, _ = run(capsys, *args, "--format", "json")
    doc = json.loads(out)
    jsonschema.Draft202012Validator(CHECK_SCHEMA).validate(doc)
    return rc, doc


def strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in (k, *strings(v))]
    if isinstance(value, list):
        return [s for v in value for s in strings(v)]
    return []


def by_suffix(result: dict[str, Any], base: Path) -> dict[str, dict[str, Any]]:
    prefix = os.fspath(base) + os.sep
    return {s["path"][len(prefix) :]: s for s in result["skills"]}


# --- JSON -----------------------------------------------------------------------------------------


def test_check_schema_is_a_valid_2020_12_schema() -> None:
    jsonschema.Draft202012Validator.check_schema(CHECK_SCHEMA)
    assert CHECK_SCHEMA["properties"]["schema"]["const"] == 1
    assert CHECK_SCHEMA["$defs"]["status"]["enum"] == list(STATES)


def test_every_json_field_is_documented() -> None:
    from skillprism.paths import resources_dir

    assert (resources_dir() / "schemas" / "check-output.schema.json").is_file()
    doc = (REPO / "docs" / "check-json.md").read_text("utf-8")
    names = {"schema", "results"}
    for definition in CHECK_SCHEMA["$defs"].values():
        names.update(definition.get("properties", {}))
    names.update(CHECK_SCHEMA["$defs"]["status"]["enum"])
    names.update(CHECK_SCHEMA["$defs"]["severity"]["enum"])
    missing = sorted(n for n in names if f"`{n}`" not in doc)
    assert not missing, f"docs/check-json.md does not document {missing}"


def test_json_has_the_documented_shape(capsys: pytest.CaptureFixture[str], tree: Path) -> None:
    rc, doc = run_json(capsys, tree / "a", tree / "b")
    assert rc == 1
    defs = CHECK_SCHEMA["$defs"]
    assert set(doc) == set(CHECK_SCHEMA["required"])
    assert doc["schema"] == 1
    [result] = doc["results"]
    # Every key emitted is documented (the schema's required lists), and nothing is missing.
    assert set(result) == set(defs["result"]["required"])
    for skill in result["skills"]:
        assert set(skill) == set(defs["skill"]["required"])
        assert os.path.isabs(skill["path"]) and os.path.isabs(skill["real_path"])
        for d in skill["diagnostics"]:
            assert set(d) == {"path", *defs["diagnostic"]["required"]}
    for d in result["diagnostics"]:
        assert set(d) == {"path", *defs["diagnostic"]["required"]}
    assert set(result["summary"]) == set(defs["summary"]["required"])

    found = {k: s["status"] for k, s in by_suffix(result, tree).items()}
    assert found == EXPECTED
    shadowed = by_suffix(result, tree)["b/dup/SKILL.md"]
    assert shadowed["shadowed_by"] == os.fspath(tree / "a/dup/SKILL.md")
    assert shadowed["reason"]
    codes = {c for s in result["skills"] for c in (d["code"] for d in s["diagnostics"])}
    assert {"SP204", "SP216", "SP210", "SP113", "SP300", "SP301"} <= codes


def test_summary_counts_match_the_skills(capsys: pytest.CaptureFixture[str], tree: Path) -> None:
    _, doc = run_json(capsys, tree / "a", tree / "b", tree / "missing")
    for result in doc["results"]:
        summary = result["summary"]
        assert summary["skills"] == len(result["skills"])
        counted = Counter(s["status"] for s in result["skills"])
        assert summary["status"] == {state: counted.get(state, 0) for state in STATES}
        diags = result["diagnostics"] + [d for s in result["skills"] for d in s["diagnostics"]]
        severities = Counter(d["severity"] for d in diags)
        assert summary["severity"] == {
            sev: severities.get(sev, 0) for sev in ("error", "warning", "info")
        }
        assert [d["code"] for d in result["diagnostics"]] == ["SP310"]


@pytest.mark.skipif(not WEIRD_NAMES, reason="needs a file system that takes any bytes in names")
def test_json_stays_valid_for_undecodable_and_newline_paths(
    capsys: pytest.CaptureFixture[str], tree: Path
) -> None:
    rc, out, _ = run(capsys, tree / "a", "--format", "json")
    assert rc == 1
    assert out.isascii()  # whatever the bytes in a name, the output is plain ASCII JSON
    doc = json.loads(out)
    jsonschema.Draft202012Validator(CHECK_SCHEMA).validate(doc)
    paths = [s["path"] for s in doc["results"][0]["skills"]]
    # Paths are exact: an undecodable byte comes back as its surrogate escape, and a newline is
    # kept (JSON escapes it), so every path names the real file.
    for path in paths:
        assert os.path.lexists(os.fsencode(path)), path
    base = os.fsencode(tree / "a")
    assert os.fsdecode(os.path.join(base, b"bad\xffbyte", b"SKILL.md")) in paths
    assert os.path.join(os.fspath(tree), "a", "new\nline", "SKILL.md") in paths
    # ...while no JSON line holds a raw newline or a raw non-ASCII character.
    assert all(line.isprintable() for line in out.splitlines())


def test_one_result_per_profile(
    capsys: pytest.CaptureFixture[str], tree: Path, lenient: Path
) -> None:
    _, doc = run_json(capsys, tree / "a", "--profile", "agentskills", "--profile", "agentskills")
    assert [r["profile"] for r in doc["results"]] == ["agentskills", "agentskills"]
    assert doc["results"][0] == doc["results"][1]

    _, doc = run_json(capsys, tree / "a", "--profile", "agentskills", "--profile", lenient)
    assert [r["profile"] for r in doc["results"]] == ["agentskills", "lenient"]
    strict_view, lenient_view = (by_suffix(r, tree) for r in doc["results"])
    assert strict_view["a/unknown/SKILL.md"]["status"] == "error"
    assert lenient_view["a/unknown/SKILL.md"]["status"] == "warning"


# --- SARIF ----------------------------------------------------------------------------------------

URI_CHARS = re.compile(r"^file:///[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=%]*$")


def test_vendored_sarif_schema_is_the_published_2_1_0() -> None:
    assert (
        SARIF_SCHEMA["title"] == "Static Analysis Results Format (SARIF) Version 2.1.0 JSON Schema"
    )
    assert SARIF_SCHEMA["id"] == (
        "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
    )
    assert SARIF_SCHEMA["properties"]["version"]["enum"] == ["2.1.0"]
    validator = jsonschema.validators.validator_for(SARIF_SCHEMA)
    validator.check_schema(SARIF_SCHEMA)


def test_sarif_validates_against_the_published_schema(
    capsys: pytest.CaptureFixture[str], tree: Path, lenient: Path
) -> None:
    args = (tree / "a", tree / "b", "--profile", "agentskills", "--profile", lenient)
    rc, out, _ = run(capsys, *args, "--format", "sarif")
    assert rc == 1
    assert out.isascii()
    log = json.loads(out)
    # The schema declares its own draft (draft-04); validate with exactly that validator.
    validator_cls = jsonschema.validators.validator_for(SARIF_SCHEMA)
    validator_cls(SARIF_SCHEMA, format_checker=validator_cls.FORMAT_CHECKER).validate(log)
    assert log["version"] == "2.1.0"
    for text in strings(log):
        text.encode("utf-8")  # strict UTF-8: no lone surrogate, whatever the file names
    assert len(log["runs"]) == 2
    ids = [run_["automationDetails"]["id"] for run_ in log["runs"]]
    assert len(set(ids)) == 2

    _, doc = run_json(capsys, *args)
    for run_, result in zip(log["runs"], doc["results"], strict=True):
        rules = run_["tool"]["driver"]["rules"]
        diags = result["diagnostics"] + [d for s in result["skills"] for d in s["diagnostics"]]
        assert len(run_["results"]) == len(diags)
        positioned = Counter((d["code"], d["line"], d["column"]) for d in diags if d["line"])
        seen: Counter[tuple[str, int, int]] = Counter()
        for res in run_["results"]:
            assert rules[res["ruleIndex"]]["id"] == res["ruleId"]
            assert "\n" not in res["message"]["text"]
            [loc] = res["locations"]
            phys = loc["physicalLocation"]
            assert URI_CHARS.match(phys["artifactLocation"]["uri"]), phys
            if "region" in phys:
                region = phys["region"]
                assert region["startLine"] >= 1 and region["startColumn"] >= 1
                seen[(res["ruleId"], region["startLine"], region["startColumn"])] += 1
        assert seen == positioned  # the 1-based lines and columns are the JSON's

    uris = [
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        for r in log["runs"][0]["results"]
    ]
    sp204 = next(r for r in log["runs"][0]["results"] if r["ruleId"] == "SP204")
    bad_name = sp204["locations"][0]["physicalLocation"]
    assert bad_name["region"] == {"startLine": 2, "startColumn": 1}
    if WEIRD_NAMES:
        assert any("/bad%FFbyte/SKILL.md" in u for u in uris)
        assert any("/new%0Aline/SKILL.md" in u for u in uris)


# --- text -----------------------------------------------------------------------------------------


def classify(out: str) -> list[re.Match[str]]:
    """The diagnostic lines of text output; fails on any line that is none of the known kinds."""
    diag_lines = []
    for line in out.splitlines():
        m = DIAG_LINE.match(line)
        if m:
            diag_lines.append(m)
            continue
        assert DETAIL_LINE.match(line) or SUMMARY_LINE.match(line) or HEADER_LINE.match(line), (
            f"stray output line: {line!r}"
        )
    return diag_lines


def test_text_is_compiler_style(capsys: pytest.CaptureFixture[str], tree: Path) -> None:
    rc, out, err = run(capsys, tree / "a", tree / "b", "--no-color")
    assert rc == 1 and not err
    assert "\x1b" not in out
    lines = classify(out)
    _, doc = run_json(capsys, tree / "a", tree / "b")
    result = doc["results"][0]
    total = len(result["diagnostics"]) + sum(len(s["diagnostics"]) for s in result["skills"])
    assert len(lines) == total
    bad = [m for m in lines if m["code"] == "SP204"]
    assert bad and bad[0]["path"] == os.fspath(tree / "a/Bad_Name/SKILL.md")
    assert (bad[0]["line"], bad[0]["col"], bad[0]["sev"]) == ("2", "1", "error")
    # A finding without a position still has one in text: the start of the file.
    shadow = [m for m in lines if m["code"] == "SP301"]
    assert shadow and (shadow[0]["line"], shadow[0]["col"]) == ("1", "1")
    assert out.rstrip("\n").splitlines()[-1].startswith("agentskills: ")


@pytest.mark.skipif(not WEIRD_NAMES, reason="needs a file system that takes any bytes in names")
def test_text_never_splits_a_finding_over_lines(
    capsys: pytest.CaptureFixture[str], tree: Path
) -> None:
    rc, out, _ = run(capsys, tree / "a", "--no-color")
    assert rc == 1
    lines = classify(out)  # a raw newline from a path would leave a stray line
    paths = {m["path"] for m in lines}
    assert os.fspath(tree / "a") + "/new\\nline/SKILL.md" in paths
    assert os.fspath(tree / "a") + "/bad\\xffbyte/SKILL.md" in paths
    assert "\udcff" not in out
    two = [m for m in lines if m["path"].endswith("/two-lines/SKILL.md")]
    assert two and all("\n" not in m["msg"] for m in two)


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_colour_only_on_a_terminal(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tree: Path
) -> None:
    _, out, _ = run(capsys, tree / "a")  # captured: not a terminal
    assert "\x1b" not in out

    def on_terminal(*extra: str) -> str:
        term = _Terminal()
        with monkeypatch.context() as m:
            m.setattr(sys, "stdout", term)
            main(["check", os.fspath(tree / "a"), *extra])
        return term.getvalue()

    coloured = on_terminal()
    assert "\x1b[" in coloured
    classify(ANSI.sub("", coloured))
    assert "\x1b" not in on_terminal("--no-color")
    monkeypatch.setenv("NO_COLOR", "1")
    assert "\x1b" not in on_terminal()
    monkeypatch.delenv("NO_COLOR")
    monkeypatch.setenv("TERM", "dumb")
    assert "\x1b" not in on_terminal()
    monkeypatch.delenv("TERM")
    for fmt in ("json", "sarif"):
        assert "\x1b" not in on_terminal("--format", fmt)


# --- exit codes -----------------------------------------------------------------------------------


@pytest.fixture
def clean(tmp_path: Path) -> Path:
    root = tmp_path / "clean"
    write_skill(root, "alpha", fm(name="alpha", description="Valid."))
    write_skill(root, "beta", fm(name="beta", description="Valid too."))
    return root


def test_exit_codes(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, clean: Path, lenient: Path
) -> None:
    assert run(capsys, clean)[0] == 0
    assert run(capsys, clean, "--fail-on", "warning")[0] == 0

    # A shadowed copy is a warning: fails only with --fail-on warning.
    other = tmp_path / "other"
    write_skill(other, "alpha", fm(name="alpha", description="Another alpha."))
    assert run(capsys, clean, other)[0] == 0
    assert run(capsys, clean, other, "--fail-on", "warning")[0] == 1

    # An unknown field: an error under agentskills, a warning under the lenient profile.
    unknown = tmp_path / "unknown"
    write_skill(unknown, "gamma", fm(name="gamma", description="Custom key.", colour="red"))
    assert run(capsys, unknown)[0] == 1
    assert run(capsys, unknown, "--profile", lenient)[0] == 0
    assert run(capsys, unknown, "--profile", lenient, "--fail-on", "warning")[0] == 1
    # Several profiles: the worst counts, whatever the order.
    assert run(capsys, unknown, "--profile", lenient, "--profile", "agentskills")[0] == 1
    assert run(capsys, unknown, "--profile", "agentskills", "--profile", lenient)[0] == 1
    assert run(capsys, clean, "--profile", lenient, "--profile", "agentskills")[0] == 0


def test_usage_and_io_failures_exit_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, clean: Path
) -> None:
    rc, out, _ = run(capsys, clean, tmp_path / "missing")
    assert rc == 2 and "SP310" in out
    rc, out, _ = run(capsys, tmp_path / "missing", "--format", "json")
    assert rc == 2 and json.loads(out)["results"][0]["diagnostics"][0]["code"] == "SP310"

    broken = tmp_path / "broken.toml"
    broken.write_text('schema = 1\nname = "broken"\n[discovery]\nmax_depth = "deep"\n', "utf-8")
    rc, out, err = run(capsys, clean, "--profile", broken)
    assert rc == 2 and not out
    assert os.fspath(broken) in err and "discovery.max_depth" in err

    not_toml = tmp_path / "not.toml"
    not_toml.write_text("schema = = 1\n", "utf-8")
    rc, _, err = run(capsys, clean, "--profile", not_toml)
    assert rc == 2 and os.fspath(not_toml) in err

    rc, _, err = run(capsys, clean, "--profile", tmp_path / "absent.toml")
    assert rc == 2 and "absent.toml" in err

    rc, _, err = run(capsys, clean, "--project", tmp_path / "no-such-project")
    assert rc == 2 and "--project" in err
    a_file = tmp_path / "file.txt"
    a_file.write_text("x", "utf-8")
    rc, _, err = run(capsys, clean, "--project", a_file)
    assert rc == 2 and "--project" in err

    assert run(capsys, clean, "--max-depth", "-1")[0] == 2
    for bad_args in (["--format", "xml"], ["--fail-on", "info"]):
        with pytest.raises(SystemExit) as exc:
            main(["check", os.fspath(clean), *bad_args])
        assert exc.value.code == 2
    capsys.readouterr()


# --- project settings -----------------------------------------------------------------------------


@pytest.fixture
def project(tmp_path: Path) -> Path:
    proj = tmp_path / "project"
    write_skill(proj / "skills", "alpha", fm(name="alpha", description="Valid."))
    write_skill(proj / "skills", "gamma", fm(name="gamma", description="Custom.", colour="red"))
    write_skill(proj / "vendor", "beta", fm(name="beta", description="Vendored.", colour="x"))
    (proj / "profiles").mkdir()
    (proj / "profiles" / "lenient.toml").write_text(LENIENT, "utf-8")
    return proj


def statuses(doc: dict[str, Any], index: int = 0) -> dict[str, str]:
    return {
        os.path.basename(os.path.dirname(s["path"])): s["status"]
        for s in doc["results"][index]["skills"]
    }


def test_skillprism_toml_roots_and_profiles(
    capsys: pytest.CaptureFixture[str], project: Path
) -> None:
    (project / ".skillprism.toml").write_text(
        'profiles = ["agentskills", "profiles/lenient.toml"]\nroots = ["skills", "vendor"]\n',
        "utf-8",
    )
    # The current folder is elsewhere: roots and profile paths are relative to the settings file.
    rc, doc = run_json(capsys, "--project", project)
    assert rc == 1
    assert [r["profile"] for r in doc["results"]] == ["agentskills", "lenient"]
    assert statuses(doc, 0) == {"alpha": "ok", "gamma": "error", "beta": "error"}
    assert statuses(doc, 1) == {"alpha": "ok", "gamma": "warning", "beta": "warning"}
    # The command line wins over the settings file.
    rc, doc = run_json(capsys, "--project", project, "--profile", "agentskills", project / "skills")
    assert [r["profile"] for r in doc["results"]] == ["agentskills"]
    assert statuses(doc) == {"alpha": "ok", "gamma": "error"}


def test_skillprism_toml_ignore_codes_and_paths(
    capsys: pytest.CaptureFixture[str], project: Path
) -> None:
    settings = project / ".skillprism.toml"
    settings.write_text('roots = ["skills", "vendor"]\nignore_codes = ["SP216"]\n', "utf-8")
    rc, doc = run_json(capsys, "--project", project)
    assert rc == 0
    assert statuses(doc) == {"alpha": "ok", "gamma": "ok", "beta": "ok"}
    assert "SP216" not in json.dumps(doc["results"][0]["skills"])
    # ...and the output says where they went.
    assert doc["settings"]["file"] == os.fspath(settings) and doc["settings"]["applied"]
    assert doc["results"][0]["suppressed"]["findings"]["SP216"] >= 2

    settings.write_text('roots = ["skills", "vendor"]\nignore_paths = ["vendor/**"]\n', "utf-8")
    rc, doc = run_json(capsys, "--project", project)
    assert rc == 1
    assert statuses(doc) == {"alpha": "ok", "gamma": "error"}
    summary = doc["results"][0]["summary"]
    assert summary["skills"] == 2 and summary["status"]["error"] == 1


def test_pyproject_tool_section(capsys: pytest.CaptureFixture[str], project: Path) -> None:
    (project / "pyproject.toml").write_text(
        '[project]\nname = "demo"\n\n[tool.skillprism]\nprofiles = ["profiles/lenient.toml"]\n'
        'roots = ["skills"]\nignore_paths = ["skills/gamma/*"]\n',
        "utf-8",
    )
    rc, doc = run_json(capsys, "--project", project, "--fail-on", "warning")
    assert rc == 0
    assert [r["profile"] for r in doc["results"]] == ["lenient"]
    assert statuses(doc) == {"alpha": "ok"}

    # .skillprism.toml takes precedence over pyproject.toml.
    (project / ".skillprism.toml").write_text('roots = ["vendor"]\n', "utf-8")
    _, doc = run_json(capsys, "--project", project)
    assert [r["profile"] for r in doc["results"]] == ["agentskills"]
    assert statuses(doc) == {"beta": "error"}


@pytest.mark.parametrize(
    ("file_name", "text", "key"),
    [
        (".skillprism.toml", 'roots = "skills"\n', "roots"),
        (".skillprism.toml", "ignore_codes = [1]\n", "ignore_codes"),
        (".skillprism.toml", 'profile = ["agentskills"]\n', "profile"),
        (".skillprism.toml", "roots = [\n", ""),
        ("pyproject.toml", '[tool.skillprism]\nignore_paths = "vendor"\n', "ignore_paths"),
        ("pyproject.toml", "[tool.skillprism\n", ""),
    ],
)
def test_broken_settings_exit_2(
    capsys: pytest.CaptureFixture[str], project: Path, file_name: str, text: str, key: str
) -> None:
    (project / file_name).write_text(text, "utf-8")
    rc, out, err = run(capsys, "--project", project)
    assert rc == 2 and not out
    assert err.startswith("skillprism: error: ")
    assert os.fspath(project / file_name) in err
    if key:
        assert f"'{key}'" in err


def test_settings_profile_that_is_broken_exits_2(
    capsys: pytest.CaptureFixture[str], project: Path
) -> None:
    (project / "profiles" / "lenient.toml").write_text(LENIENT + "bogus = 1\n", "utf-8")
    (project / ".skillprism.toml").write_text('profiles = ["profiles/lenient.toml"]\n', "utf-8")
    rc, _, err = run(capsys, "--project", project)
    assert rc == 2
    assert os.fspath(project / "profiles" / "lenient.toml") in err and "bogus" in err
