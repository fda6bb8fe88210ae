"""The labelled review of the security pass on six public collections (tests/data/
security-review.tsv, made with bench/security_review.py): no false alarm at error level, at
least 90 % true risks at warning level; and, where the collections are on this machine, the
review covers every finding at warning or error the pass makes on them now."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

import security_review

ROWS = security_review.read_review()


def test_the_review_labels_every_finding_with_a_reason() -> None:
    assert ROWS, "the review is committed"
    for row in ROWS:
        assert row.label in ("true", "false"), row
        assert row.reason.strip(), row
        assert row.severity in ("error", "warning"), row


def test_no_false_alarm_at_error_level() -> None:
    assert [r for r in ROWS if r.severity == "error" and r.label == "false"] == []


def test_at_least_nine_warnings_in_ten_are_true_risks() -> None:
    warnings = [r for r in ROWS if r.severity == "warning"]
    true = sum(1 for r in warnings if r.label == "true")
    assert warnings and true / len(warnings) >= 0.9


SETS = Path(os.environ.get("SKILLPRISM_REALSETS", "/work/realsets"))


@pytest.mark.skipif(
    not all((SETS / c).is_dir() for c in security_review.COLLECTIONS),
    reason="the six collections are not laid out here (../shared/realsets/export)",
)
def test_the_review_covers_what_the_pass_finds_now() -> None:
    found = security_review.scan(SETS)
    reviewed = {(r.key, r.severity) for r in ROWS}
    unreviewed = [r for r in found if (r.key, r.severity) not in reviewed]
    assert unreviewed == [], "run python bench/security_review.py --update and label the new rows"
