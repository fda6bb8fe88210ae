"""Property: applying any offered fix changes only the spans it names, keeps the file's encoding,
BOM and line ends, and leaves a file that the whole pipeline (build_catalog, not the fixes' own
check) reports with fewer findings of the fix's code under every runtime it claims to help."""

from __future__ import annotations

import os
import shutil
import tempfile

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skillprism.core.fixes import offer_fixes
from skillprism.core.policy import Policy
from skillprism.core.profiles import load_profile
from skillprism.core.resolve import build_catalog
from skillprism.core.write_back import Snapshot

PROFILES = ("agentskills", "claude-code", "copilot-cli")
POLICIES = [Policy(load_profile(n)) for n in PROFILES]
LONG = "Fills PDF forms from structured data. " * 30

names = st.sampled_from(
    [None, "pdf-tools", "PDF Tools", "pdf_tools", "-pdf-tools-", "other-name", "'pdf-tools'",
     "Pdf--Tools", "my_tool"]
)  # fmt: skip
descriptions = st.sampled_from(
    [
        "Fills PDF forms. Use it for invoices.",
        "Use when: the form is a PDF",
        "[beta] fills PDF forms",
        "*bold* claims about PDFs",
        "`pdf` helper: fills forms",
        "@team tool for PDFs",
        "C# helper: builds #1",
        LONG.strip(),
        f'"{LONG.strip()}"',
        "Use it when: the build\n  breaks on CI",
    ]
)
extras = st.lists(
    st.sampled_from(
        ["author: me", "version: 1.0", 'disable-model-invocation: "true"', "license: MIT",
         "metadata:\n  owner: x", "colour: blue"]
    ),
    unique=True,
    max_size=4,
)  # fmt: skip
bodies = st.sampled_from(
    [
        "Do the thing.\n",
        "See [the guide](reference/guide.md).\n",
        "See [the guide](./Guide.md#top) and [run](scripts/run.py).\n",
        "# Heading\n\nFirst paragraph here.\n",
    ]
)


@st.composite
def skill_files(draw: st.DrawFn) -> tuple[str, bytes]:
    folder = draw(st.sampled_from(["pdf-tools", "pdf_tools", "PDF Tools"]))
    lines = []
    name = draw(names)
    if name is not None:
        lines.append(f"name: {name}")
    lines.append(f"description: {draw(descriptions)}")
    lines.extend(draw(extras))
    draw(st.randoms()).shuffle(lines)
    text = ""
    if draw(st.booleans()):
        blank = "\n" * draw(st.integers(0, 2))
        space = " " if draw(st.booleans()) else ""
        text = f"{blank}---{space}\n" + "\n".join(lines) + f"\n---{space}\n\n"
    text += draw(bodies)
    if not draw(st.booleans()):
        text = text.rstrip("\n")  # no line end on the last line
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    data = text.replace("\n", newline).encode("utf-8")
    if draw(st.booleans()):
        data = b"\xef\xbb\xbf" + data
    return folder, data


def _counts(skill_dir: str, profile: str) -> dict[str, int]:
    catalog = build_catalog(load_profile(profile), [skill_dir])
    out: dict[str, int] = {}
    for entry in catalog.skills:
        for d in entry.diagnostics:
            out[d.code] = out.get(d.code, 0) + 1
    return out


def _line_ends(data: bytes) -> set[bytes]:
    crlf = data.count(b"\r\n")
    ends = set()
    if crlf:
        ends.add(b"\r\n")
    if data.count(b"\n") > crlf:
        ends.add(b"\n")
    if data.count(b"\r") > crlf:
        ends.add(b"\r")
    return ends


@settings(
    max_examples=int(os.environ.get("SKILLPRISM_FIX_EXAMPLES", "120")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(skill_files())
def test_every_offered_fix_keeps_its_promises(case: tuple[str, bytes]) -> None:
    folder, data = case
    root = tempfile.mkdtemp(prefix="sp-fixprop-")
    try:
        skill = os.path.join(root, folder)
        os.makedirs(os.path.join(skill, "references"))
        os.makedirs(os.path.join(skill, "scripts"))
        for rel in ("references/guide.md", "scripts/run.py"):
            with open(os.path.join(skill, rel), "w") as fh:
                fh.write("x\n")
        path = os.path.join(skill, "SKILL.md")
        with open(path, "wb") as fh:
            fh.write(data)
        fixes = offer_fixes(path, POLICIES)
        before = {p: _counts(skill, p) for p in PROFILES}
        old = Snapshot.from_bytes(path, data)
        for fix in fixes:
            new = fix.new_bytes()
            # encoding, BOM and line ends as they were
            assert new.startswith(b"\xef\xbb\xbf") == data.startswith(b"\xef\xbb\xbf")
            if _line_ends(data):
                assert _line_ends(new) <= _line_ends(data)
            # nothing but the named spans changed: splice them by hand and compare
            expected, at = [], 0
            for edit in sorted(fix.edits, key=lambda e: (e.start, e.end)):
                expected.append(old.text[at : edit.start] + edit.new)
                at = edit.end
            expected.append(old.text[at:])
            assert Snapshot.from_bytes(path, new).text == "".join(expected)
            # the whole pipeline agrees that the finding is gone where the fix says it helps
            with open(path, "wb") as fh:
                fh.write(new)
            checked = skill
            if fix.rename is not None:  # the folder renamed as the fix says
                assert fix.rename[0] == skill
                checked = fix.rename[1]
                os.rename(skill, checked)
            try:
                for profile in fix.helps:
                    after = _counts(checked, profile)
                    assert after.get(fix.code, 0) < before[profile].get(fix.code, 0), (
                        fix.title,
                        profile,
                    )
                    if fix.rename is not None:  # and the name agrees with the new folder
                        assert "SP208" not in after, fix.title
            finally:
                if checked != skill:
                    os.rename(checked, skill)
                with open(path, "wb") as fh:
                    fh.write(data)
    finally:
        shutil.rmtree(root, ignore_errors=True)
