"""RowList and RowIndex: long row lists the window keeps without the garbage collector walking
each row, read and changed like a list of NamedTuples."""

from __future__ import annotations

import gc
import pickle

from skillprism.engine.rows import RowIndex, RowList
from skillprism.engine.views import OutcomeRow, SkillRow


def skill(i: int, risk: str = "none") -> SkillRow:
    return SkillRow(
        f"/s/{i}/SKILL.md", f"/s/{i}/SKILL.md", f"/s/{i}", f"s{i}", "ok", "", "", "", 0, risk
    )


def test_rows_read_like_a_list_of_their_kind() -> None:
    rows = RowList(SkillRow, [skill(i) for i in range(5)])
    assert len(rows) == 5 and rows
    assert rows[2] == skill(2) and type(rows[2]) is SkillRow and rows[2].name == "s2"
    assert rows[-1].key == "/s/4/SKILL.md"
    assert rows[1:3] == [skill(1), skill(2)] and all(type(r) is SkillRow for r in rows[1:3])
    assert [r.name for r in rows] == [f"s{i}" for i in range(5)]
    assert rows == [skill(i) for i in range(5)] and rows != [skill(i) for i in range(4)]
    assert skill(3) in rows and rows.index(skill(3)) == 3
    rows[3] = rows[3]._replace(risk="high")
    rows.append(skill(9))
    assert rows[3].risk == "high" and rows[5].name == "s9"
    assert not RowList(SkillRow)


def test_one_field_is_set_in_place_and_says_whether_it_changed() -> None:
    rows = RowList(SkillRow, [skill(i) for i in range(3)])
    risk = SkillRow._fields.index("risk")
    assert rows.set_field(1, risk, "high") is True
    assert rows[1] == skill(1, risk="high") and type(rows.plain[1]) is tuple
    assert rows.set_field(1, risk, "high") is False  # held it already
    assert rows[0] == skill(0) and rows[2] == skill(2)


def test_the_collector_skips_stored_rows_but_not_named_tuples() -> None:
    rows = RowList(SkillRow, [skill(i) for i in range(100)])
    loose = [skill(i) for i in range(100)]
    gc.collect()
    assert not any(gc.is_tracked(row) for row in rows.plain)
    assert all(gc.is_tracked(row) for row in loose)  # what a list of NamedTuples costs
    outcome = RowList(OutcomeRow, [OutcomeRow("n", "k", "p", "listed", 10, 20, 5, "")])
    gc.collect()
    assert not gc.is_tracked(outcome.plain[0])


def test_a_row_list_survives_pickling_as_plain_tuples() -> None:
    rows = RowList(SkillRow, [skill(i) for i in range(3)])
    back = pickle.loads(pickle.dumps(rows))
    assert back == rows and back.kind is SkillRow and type(back.plain[0]) is tuple
    parts = pickle.loads(pickle.dumps(rows.plain[:2])) + pickle.loads(pickle.dumps(rows.plain[2:]))
    assert RowList.from_plain(SkillRow, parts) == rows


def test_the_index_finds_rows_by_key_and_sees_changes() -> None:
    rows = RowList(SkillRow, [skill(i) for i in range(4)] + [skill(1, risk="low")])
    index = RowIndex(rows)
    assert len(index) == 4 and "/s/2/SKILL.md" in index and "/nope" not in index
    assert index["/s/1/SKILL.md"].risk == "none"  # the first of two with one key
    assert index.get("/nope") is None and index.position("/s/3/SKILL.md") == 3
    rows[2] = rows[2]._replace(risk="high")
    assert index["/s/2/SKILL.md"].risk == "high"
    assert [r.name for r in index.values()] == ["s0", "s1", "s2", "s3"]


def test_matrix_rows_keep_their_cells_plain_and_read_them_as_cells() -> None:
    from skillprism.core.matrix import Matrix, MatrixCell, MatrixRow
    from skillprism.engine.prepare import matrix_view

    cells = (
        MatrixCell("full", "", "warning", "full"),
        MatrixCell("omitted", "cap", "ok", "omitted"),
    )
    data = matrix_view(Matrix(("a", "b"), ("A", "B"), (MatrixRow("/k/SKILL.md", "k", cells),)))
    # a collection untracks one level of nested tuples (young collections do it soon after
    # they arrive)
    for _level in range(3):
        gc.collect()
    assert not gc.is_tracked(data.rows.plain[0])
    row = data.rows[0]
    assert row.cells == cells and all(type(c) is MatrixCell for c in row.cells)
    assert row.cells[0].text == "full ⚠" and row.cells[1].reason == "cap"
    assert list(data.rows) == [MatrixRow("/k/SKILL.md", "k", cells)]


def test_problem_rows_keep_no_diagnostic_object_and_come_back_equal() -> None:
    from skillprism.core.diagnostics import Diagnostic, Severity
    from skillprism.engine.views import PLAIN_FILTER, ProblemRow

    d = Diagnostic("SP208", Severity.WARNING, "name differs", "/s/SKILL.md", 2, 1, "e", "h", "x")
    row = ProblemRow(d, "/s/SKILL.md", "s", "SKILL.md:2:1", "/s/SKILL.md", "k\x1fwarning\x1f...",
                     ((1, "SP208"), "SP208", "name differs", "s", ("/s/SKILL.md", 2, 1)), False)  # fmt: skip
    rows = RowList(ProblemRow, [row])
    assert rows[0] == row and rows[0].diagnostic.severity is Severity.WARNING
    assert rows.plain[0][PLAIN_FILTER] == row.filter_text
    for _level in range(3):
        gc.collect()
    assert not gc.is_tracked(rows.plain[0])  # (the Diagnostic would keep it tracked)
