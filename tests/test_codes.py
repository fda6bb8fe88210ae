"""The code registry: stable, unique, documented."""

from __future__ import annotations

import re
from pathlib import Path

from skillprism.core.codes import ACTIONS, CODES, RULES, reference_markdown

DOC = Path(__file__).resolve().parents[1] / "docs" / "diagnostics.md"


def test_codes_are_unique_and_well_formed() -> None:
    assert len(CODES) == len(RULES)
    for code, info in CODES.items():
        assert re.fullmatch(r"SP[1-7]\d\d", code)
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", info.rule)
        assert info.action in ACTIONS
        assert info.title and info.doc.endswith(".")


def test_reference_page_is_up_to_date() -> None:
    assert DOC.read_text(encoding="utf-8") == reference_markdown(), (
        "regenerate: python -m skillprism.core.codes > docs/diagnostics.md"
    )


def test_every_code_used_in_sources_is_registered() -> None:
    src = Path(__file__).resolve().parents[1] / "src" / "skillprism"
    used = set()
    for path in src.rglob("*.py"):
        used |= set(re.findall(r"\"(SP\d{3})\"", path.read_text(encoding="utf-8")))
    assert used <= set(CODES)
