"""Quick fixes (core/fixes): for each family, the exact bytes before and after, which runtimes the
fix says it helps, and when no fix is offered (ambiguous, would not help, not text)."""

from __future__ import annotations

from pathlib import Path

import pytest

from skillprism.core.fixes import Fix, non_overlapping, offer_fixes
from skillprism.core.policy import Policy
from skillprism.core.profiles import available_profiles, load_profile


def _policies(*names: str) -> list[Policy]:
    return [Policy(load_profile(n)) for n in names]


def _every() -> list[Policy]:
    return [Policy(load_profile(n)) for n in available_profiles()]


def _skill(root: Path, folder: str, data: bytes, files: tuple[str, ...] = ()) -> Path:
    d = root / folder
    d.mkdir(parents=True)
    for rel in files:
        (d / rel).parent.mkdir(parents=True, exist_ok=True)
        (d / rel).write_text("x\n")
    f = d / "SKILL.md"
    f.write_bytes(data)
    return f


def _only(fixes: list[Fix], code: str) -> Fix:
    found = [f for f in fixes if f.code == code]
    assert len(found) == 1, [(f.code, f.title) for f in fixes]
    return found[0]


BODY = b"\nDo the thing.\n"


@pytest.mark.parametrize("nl", [b"\n", b"\r\n"])
def test_yaml_breaking_value_is_quoted(tmp_path: Path, nl: bytes) -> None:
    before = (
        nl.join(
            [b"---", b"name: demo", b"description: Use when: you deploy", b"---", b"", b"Body."]
        )
        + nl
    )
    after = (
        nl.join(
            [b"---", b"name: demo", b'description: "Use when: you deploy"', b"---", b"", b"Body."]
        )
        + nl
    )
    f = _skill(tmp_path, "demo", before)
    fix = _only(offer_fixes(str(f), _policies("agentskills"), _every()), "SP113")
    assert fix.confidence == "safe"
    assert fix.new_bytes() == after
    assert "agentskills" in fix.helps and "cline" in fix.helps
    # a runtime that repairs such values itself reports no SP113, so it is not claimed
    assert "oh-my-pi" not in fix.helps and "claude-code" not in fix.helps


@pytest.mark.parametrize(
    ("value", "quoted"),
    [
        (b"[beta] tool for x", b'"[beta] tool for x"'),
        (b"*bold* tool", b'"*bold* tool"'),
        (b"@scope tool", b'"@scope tool"'),
        (b"`cmd` runner", b'"`cmd` runner"'),
        (b"{x} tool", b'"{x} tool"'),
        (b"& more tools", b'"& more tools"'),
        (b"%x tool", b'"%x tool"'),
    ],
)
def test_yaml_breaking_starts_are_quoted(tmp_path: Path, value: bytes, quoted: bytes) -> None:
    f = _skill(tmp_path, "demo", b"---\nname: demo\ndescription: " + value + b"\n---\n" + BODY)
    fix = _only(offer_fixes(str(f), _policies("agentskills")), "SP113")
    assert fix.new_bytes() == b"---\nname: demo\ndescription: " + quoted + b"\n---\n" + BODY


def test_value_with_a_comment_mark_is_quoted_for_review(tmp_path: Path) -> None:
    f = _skill(tmp_path, "demo", b"---\nname: demo\ndescription: C# tools: build #1\n---\n" + BODY)
    fix = _only(offer_fixes(str(f), _policies("agentskills")), "SP113")
    assert fix.confidence == "review"
    assert fix.new_bytes() == b'---\nname: demo\ndescription: "C# tools: build #1"\n---\n' + BODY


def test_multiline_plain_value_is_folded(tmp_path: Path) -> None:
    before = b"---\nname: demo\ndescription: Use it when: the build\n  breaks on CI\n---\n" + BODY
    after = (
        b"---\nname: demo\ndescription: >-\n  Use it when: the build\n  breaks on CI\n---\n" + BODY
    )
    f = _skill(tmp_path, "demo", before)
    fix = _only(offer_fixes(str(f), _policies("agentskills")), "SP113")
    assert fix.new_bytes() == after


def test_name_set_to_folder(tmp_path: Path) -> None:
    f = _skill(
        tmp_path, "pdf-tools", b"---\nname: pdf-tool\ndescription: Reads PDFs.\n---\n" + BODY
    )
    fix = _only(offer_fixes(str(f), _policies("agentskills")), "SP208")
    assert fix.confidence == "review"
    assert fix.new_bytes() == b"---\nname: pdf-tools\ndescription: Reads PDFs.\n---\n" + BODY


def test_an_invalid_folder_name_is_renamed_not_copied(tmp_path: Path) -> None:
    data = b"---\nname: pdf-tools\ndescription: Reads PDFs.\n---\n" + BODY
    f = _skill(tmp_path, "PDF Tools", data)
    fix = _only(offer_fixes(str(f), _policies("agentskills")), "SP208")
    assert fix.title == "rename the folder to 'pdf-tools'" and fix.confidence == "review"
    assert fix.edits == () and fix.new_bytes() == data
    assert fix.rename == (str(tmp_path / "PDF Tools"), str(tmp_path / "pdf-tools"))
    # not when a folder of that name is already there
    (tmp_path / "pdf-tools").mkdir()
    assert not [x for x in offer_fixes(str(f), _policies("agentskills")) if x.code == "SP208"]


def test_name_normalised_to_the_spec_form(tmp_path: Path) -> None:
    before = (
        b"\xef\xbb\xbf---\r\nname: PDF__Tools-\r\ndescription: Reads PDFs.\r\n---\r\n\r\nBody.\r\n"
    )
    after = (
        b"\xef\xbb\xbf---\r\nname: pdf-tools\r\ndescription: Reads PDFs.\r\n---\r\n\r\nBody.\r\n"
    )
    f = _skill(tmp_path, "pdf-tools", before)
    fixes = offer_fixes(str(f), _policies("agentskills"))
    for code in ("SP204", "SP205", "SP207", "SP208"):
        assert _only(fixes, code).new_bytes() == after
    keep, skipped = non_overlapping(fixes)
    assert len(keep) == 4 and not skipped  # the same edit, shared


def test_name_agreeing_with_its_folder_is_renamed_with_it(tmp_path: Path) -> None:
    f = _skill(tmp_path, "my_tool", b"---\nname: my_tool\ndescription: Does it.\n---\n" + BODY)
    fix = _only(offer_fixes(str(f), _policies("agentskills")), "SP207")
    assert fix.title == "write the name as 'my-tool' and rename the folder to match"
    assert fix.new_bytes() == b"---\nname: my-tool\ndescription: Does it.\n---\n" + BODY
    assert fix.rename == (str(tmp_path / "my_tool"), str(tmp_path / "my-tool"))


def test_long_name_cut_at_a_hyphen(tmp_path: Path) -> None:
    long = "-".join(["segment"] * 10)  # 79 characters
    f = _skill(tmp_path, "x", f"---\nname: {long.title()}\ndescription: D.\n---\n".encode() + BODY)
    fix = _only(offer_fixes(str(f), _policies("agentskills")), "SP203")
    assert (
        fix.new_bytes()
        == ("---\nname: " + "-".join(["segment"] * 8) + "\ndescription: D.\n---\n").encode() + BODY
    )


def test_string_boolean_becomes_a_boolean(tmp_path: Path) -> None:
    before = b'---\nname: demo\ndescription: D.\ndisable-model-invocation: "true"\n---\n' + BODY
    after = b"---\nname: demo\ndescription: D.\ndisable-model-invocation: true\n---\n" + BODY
    f = _skill(tmp_path, "demo", before)
    fix = _only(offer_fixes(str(f), _policies("copilot-cli"), _every()), "SP217")
    assert fix.confidence == "safe"
    assert fix.new_bytes() == after
    assert "copilot-cli" in fix.helps and "factory-droid" in fix.helps


def test_unknown_keys_move_under_a_new_metadata(tmp_path: Path) -> None:
    before = b"---\nname: demo\nauthor: Ann\ndescription: D.\ncolour: blue\n---\n" + BODY
    after = (
        b"---\nname: demo\ndescription: D.\nmetadata:\n  author: Ann\n  colour: blue\n---\n" + BODY
    )
    f = _skill(tmp_path, "demo", before)
    fix = _only(offer_fixes(str(f), _policies("agentskills")), "SP216")
    assert fix.confidence == "safe"  # no runtime defines author or colour at the top level
    assert fix.new_bytes() == after


def test_unknown_keys_move_under_an_existing_metadata_keeping_bom_and_crlf(tmp_path: Path) -> None:
    before = b"\xef\xbb\xbf---\r\nname: demo\r\ndescription: D.\r\nversion: 1.0\r\nmetadata:\r\n    owner: me\r\n---\r\n\r\nBody.\r\n"
    after = b'\xef\xbb\xbf---\r\nname: demo\r\ndescription: D.\r\nmetadata:\r\n    owner: me\r\n    version: "1.0"\r\n---\r\n\r\nBody.\r\n'
    f = _skill(tmp_path, "demo", before)
    fix = _only(offer_fixes(str(f), _policies("agentskills")), "SP216")
    assert fix.confidence == "review"  # 1.0 becomes the string "1.0"
    assert fix.new_bytes() == after


def test_unknown_key_with_a_mapping_value_is_not_moved(tmp_path: Path) -> None:
    f = _skill(
        tmp_path, "demo", b"---\nname: demo\ndescription: D.\nrequires:\n  mcp: [x]\n---\n" + BODY
    )
    assert not [x for x in offer_fixes(str(f), _policies("agentskills")) if x.code == "SP216"]


def test_missing_frontmatter_is_added_from_the_file(tmp_path: Path) -> None:
    before = b"# PDF tools\n\nFills PDF forms.\nUse it for invoices.\n\nMore.\n"
    after = (
        b"---\nname: pdf-tools\ndescription: Fills PDF forms. Use it for invoices.\n---\n\n"
        + before
    )
    f = _skill(tmp_path, "pdf-tools", before)
    fix = _only(offer_fixes(str(f), _policies("agentskills"), _every()), "SP109")
    assert fix.confidence == "review"
    assert fix.new_bytes() == after


def test_blank_lines_and_delimiter_spaces(tmp_path: Path) -> None:
    f = _skill(tmp_path, "demo", b"\n\n---  \nname: demo\ndescription: D.\n--- \n" + BODY)
    fixes = offer_fixes(str(f), _policies("agentskills", "claude-code"))
    blank = _only(fixes, "SP111")
    assert blank.confidence == "safe"
    assert blank.new_bytes() == b"---  \nname: demo\ndescription: D.\n--- \n" + BODY
    spaces = _only(fixes, "SP112")
    assert spaces.new_bytes() == b"\n\n---\nname: demo\ndescription: D.\n---\n" + BODY


def test_description_cut_at_a_sentence(tmp_path: Path) -> None:
    first = "Fills PDF forms from data. " * 30  # 810 characters
    desc = (first + "Second part that runs far past the limit of the runtime " * 10).strip()
    f = _skill(tmp_path, "demo", f"---\nname: demo\ndescription: {desc}\n---\n".encode() + BODY)
    fix = _only(offer_fixes(str(f), _policies("agentskills"), _every()), "SP212")
    assert (
        fix.new_bytes() == f"---\nname: demo\ndescription: {first.strip()}\n---\n".encode() + BODY
    )
    assert "agentskills" in fix.helps


def test_quoted_description_cut_at_a_word(tmp_path: Path) -> None:
    desc = "word " * 300
    f = _skill(tmp_path, "demo", f'---\nname: demo\ndescription: "{desc}"\n---\n'.encode() + BODY)
    fix = _only(offer_fixes(str(f), _policies("agentskills")), "SP212")
    cut = ("word " * 205).strip()  # 1,024 characters: the last whole word within the cap
    assert fix.new_bytes() == f"---\nname: demo\ndescription: {cut}\n---\n".encode() + BODY


def test_broken_link_points_at_the_only_match(tmp_path: Path) -> None:
    before = b"---\nname: demo\ndescription: D.\n---\n\nSee [the guide](reference/Guide.md#top).\n"
    after = b"---\nname: demo\ndescription: D.\n---\n\nSee [the guide](references/guide.md#top).\n"
    f = _skill(tmp_path, "demo", before, files=("references/guide.md", "scripts/run.py"))
    fix = _only(offer_fixes(str(f), _policies("agentskills")), "SP501")
    assert fix.new_bytes() == after


def test_broken_link_with_two_equal_matches_gets_no_fix(tmp_path: Path) -> None:
    before = b"---\nname: demo\ndescription: D.\n---\n\nSee [x](guide.md).\n"
    f = _skill(tmp_path, "demo", before, files=("a/guide.md", "b/guide.md"))
    assert not offer_fixes(str(f), _policies("agentskills"))


def test_no_fix_that_does_not_help_a_chosen_runtime(tmp_path: Path) -> None:
    # Two problems in one YAML: quoting one value alone would not make it parse.
    f = _skill(tmp_path, "demo", b"---\nname: demo\ndescription: a: b\n\tbad: tab\n---\n" + BODY)
    assert not [x for x in offer_fixes(str(f), _policies("agentskills")) if x.code == "SP113"]


def test_files_that_are_not_utf8_text_offer_nothing(tmp_path: Path) -> None:
    data = "\ufeff---\nname: Demo\ndescription: D.\n---\n".encode("utf-16-le")
    f = _skill(tmp_path, "demo", data)
    assert offer_fixes(str(f), _policies("agentskills")) == []
    assert offer_fixes(str(tmp_path / "missing" / "SKILL.md"), _policies("agentskills")) == []


def test_codes_filter(tmp_path: Path) -> None:
    f = _skill(tmp_path, "demo", b"---\nname: Demo\ndescription: D.\nauthor: me\n---\n" + BODY)
    assert {x.code for x in offer_fixes(str(f), _policies("agentskills"), codes=["SP216"])} == {
        "SP216"
    }
