"""Resource listing is lazy, grouped, bounded and marks escaping links."""

from __future__ import annotations

import os
from pathlib import Path

from skillprism.core.resources import list_resources


def _skill(tmp_path: Path) -> Path:
    skill = tmp_path / "s"
    (skill / "scripts").mkdir(parents=True)
    (skill / "references" / "deep").mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: s\ndescription: d\n---\n")
    (skill / "scripts" / "run.py").write_text("print(1)\n")
    (skill / "references" / "guide.md").write_text("# g\n")
    (skill / "references" / "deep" / "more.md").write_text("# m\n")
    (skill / "notes.txt").write_text("n")
    return skill


def test_listing_groups_files_and_skips_the_skill_file(tmp_path: Path) -> None:
    listing = list_resources(str(_skill(tmp_path)))
    assert [r.rel_path for r in listing.items] == [
        "notes.txt",
        "references/deep/more.md",
        "references/guide.md",
        "scripts/run.py",
    ]
    grouped = listing.grouped()
    assert [r.rel_path for r in grouped["scripts"]] == ["scripts/run.py"]
    assert [r.rel_path for r in grouped["other"]] == ["notes.txt"]
    assert not listing.truncated


def test_escaping_symlink_is_marked(tmp_path: Path) -> None:
    skill = _skill(tmp_path)
    secret = tmp_path / "secret.txt"
    secret.write_text("x")
    os.symlink(secret, skill / "references" / "leak.md")
    leak = next(r for r in list_resources(str(skill)).items if r.rel_path == "references/leak.md")
    assert leak.is_symlink and leak.escapes


def test_twenty_thousand_files_are_cut_quickly(tmp_path: Path) -> None:
    skill = _skill(tmp_path)
    bulk = skill / "assets"
    bulk.mkdir()
    for i in range(20_000):
        (bulk / f"f{i:05}.bin").write_bytes(b"")
    listing = list_resources(str(skill), limit=500)
    assert listing.truncated and len(listing.items) == 500
