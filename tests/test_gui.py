"""The desktop window, offscreen: models pass qtmodeltester; selection, preview, live reload,
deletion, filtering, profile switching and dropped folders behave as a user expects."""

from __future__ import annotations

import gc
import os
import shutil
from pathlib import Path

import pytest

pytest.importorskip("PySide6.QtWidgets")

from engine_helpers import answer, open_view
from PySide6.QtCore import QMimeData, QPointF, QSettings, Qt, QTimer, QUrl
from PySide6.QtGui import QDropEvent

from skillprism.engine.views import FilterQuery
from skillprism.gui.main_window import MainWindow
from skillprism.gui.problems_model import ProblemsModel
from skillprism.gui.tree_model import KEY_ROLE, SkillTreeModel
from skillprism.paths import demo_skills_dir


def skill(
    root: Path, name: str, description: str = "Does things. Use when testing.", extra: str = ""
) -> Path:
    d = root / name
    d.mkdir(parents=True, exist_ok=True)
    (d / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: {description}\n{extra}---\n# {name}\n\nBody of {name}.\n",
        encoding="utf-8",
    )
    return d


def show(qtbot, w: MainWindow, key: str, line: int = 0) -> None:  # type: ignore[no-untyped-def]
    """Select skill `key` and wait for its pages, which are prepared in the background."""
    with qtbot.waitSignal(w.sig_skill_shown, timeout=20000):
        w.select_skill(key, line)


@pytest.fixture
def window(qtbot, tmp_path):  # type: ignore[no-untyped-def]
    created: list[MainWindow] = []

    def make(roots: list[str], profile: str = "agentskills") -> MainWindow:
        settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
        w = MainWindow(
            roots=roots, profile=profile, project=str(tmp_path), dark=False, settings=settings
        )
        qtbot.addWidget(w)
        w.resize(1200, 800)
        w.show()
        created.append(w)
        with qtbot.waitSignal(w.sig_catalog_applied, timeout=20000):
            w.reload()
        # Once the engine watches the folders (just after the open's answer), an edit is seen.
        qtbot.waitUntil(lambda: w.watch_mode[0] in ("native", "polling"), timeout=10000)
        return w

    yield make
    for w in created:
        w.shutdown()


def test_tree_model_passes_qtmodeltester(qapp, qtmodeltester) -> None:  # type: ignore[no-untyped-def]
    engine, loaded = open_view([str(demo_skills_dir())])
    model = SkillTreeModel()
    # the engine answers later, as over the socket
    model.sig_files_wanted.connect(
        lambda key: QTimer.singleShot(0, lambda: model.add_files(answer(engine, "files", key)))
    )
    model.set_tree(loaded.tree, loaded.roots, loaded.skills)
    # the tester follows every change from here on: files fetched, a filter, the filter cleared
    qtmodeltester.check(model, force_py=True)
    skills = [
        model.index(c, 0, model.index(r, 0))
        for r in range(model.rowCount())
        for c in range(model.rowCount(model.index(r, 0)))
    ]
    for idx in skills:
        if model.canFetchMore(idx):
            model.fetchMore(idx)
    qapp.processEvents()
    assert all(model.rowCount(idx) >= 1 for idx in skills)  # the skill file at least
    narrow = answer(engine, "filter", FilterQuery("review"))
    model.set_tree(narrow, loaded.roots, loaded.skills)
    assert model.filtered and 0 < sum(
        model.rowCount(model.index(r, 0)) for r in range(model.rowCount())
    ) < len(loaded.skills)
    model.set_tree(answer(engine, "filter", FilterQuery()), loaded.roots, loaded.skills)
    assert not model.filtered


def test_a_same_shape_tree_changes_only_the_rows_whose_skills_changed(
    qapp, qtmodeltester, tmp_path
) -> None:  # type: ignore[no-untyped-def]
    root = tmp_path / "skills"
    for name in ("alpha", "beta", "gamma"):
        skill(root, name)
    engine, before = open_view([str(root)], project=str(tmp_path))
    model = SkillTreeModel()
    model.set_tree(before.tree, before.roots, before.skills)
    (root / "beta" / "SKILL.md").write_text(
        "---\nname: beta\ndescription: Edited. Use when testing.\n---\nBody.\n", encoding="utf-8"
    )
    after = answer(engine, "refresh", (str(root / "beta" / "SKILL.md"),))
    assert after.tree.same_shape and after.tree.base == before.tree.serial
    assert after.tree.changed == frozenset({str(root / "beta" / "SKILL.md")})
    changed_rows: list[tuple[int, int]] = []
    model.dataChanged.connect(
        lambda a, b, _roles=(): changed_rows.append((a.row(), b.row())) if a.parent().isValid() else None
    )  # fmt: skip
    resets: list[bool] = []
    model.modelReset.connect(lambda: resets.append(True))
    qtmodeltester.check(model, force_py=True)
    model.set_tree(after.tree, after.roots, after.skills)
    index = model.index_for_key(str(root / "beta" / "SKILL.md"))
    assert changed_rows == [(index.row(), index.row())] and not resets
    assert "Edited." in index.data(Qt.ItemDataRole.ToolTipRole)


def test_problems_filter_asks_the_model_nothing_without_a_filter(qapp) -> None:  # type: ignore[no-untyped-def]
    from skillprism.gui.problems_model import ProblemsFilter

    class Counting(ProblemsModel):
        calls = 0

        def data(self, index, role=Qt.ItemDataRole.DisplayRole):  # type: ignore[no-untyped-def]
            Counting.calls += 1
            return super().data(index, role)

    model = Counting()
    proxy = ProblemsFilter()
    proxy.setSourceModel(model)
    model.set_rows(open_view([str(demo_skills_dir())])[1].problems)
    rows = model._rows
    assert proxy.rowCount() == len(rows) > 2 and Counting.calls == 0
    proxy.set_severities(frozenset({"warning"}))
    assert proxy.rowCount() == sum(r.diagnostic.severity.value == "warning" for r in rows)
    code = rows[-1].diagnostic.code
    proxy.set_text(code.lower())
    expect = [
        r
        for r in rows
        if r.diagnostic.severity.value == "warning"
        and code.lower() in f"{r.diagnostic.code} {r.diagnostic.message} {r.skill}".lower()
    ]
    assert proxy.rowCount() == len(expect)
    proxy.set_severities(frozenset())
    proxy.set_text("")
    key = next(r.key for r in rows if r.key)
    proxy.set_skill(key)
    assert proxy.rowCount() == sum(r.key == key for r in rows)
    proxy.set_skill("")
    assert proxy.pattern() == "" and proxy.rowCount() == len(rows)


def test_problems_model_passes_qtmodeltester(qapp, qtmodeltester) -> None:  # type: ignore[no-untyped-def]
    model = ProblemsModel()
    model.set_rows(open_view([str(demo_skills_dir())])[1].problems)
    assert model.rowCount() > 0
    qtmodeltester.check(model, force_py=True)


def test_selecting_a_skill_shows_its_preview(window, qtbot, tmp_path) -> None:  # type: ignore[no-untyped-def]
    root = tmp_path / "skills"
    skill(root, "alpha", "Alpha does the first thing.")
    w = window([str(root)])
    show(qtbot, w, str(root / "alpha" / "SKILL.md"))
    assert "Alpha does the first thing." in w.overview.toPlainText()
    assert "Body of alpha." in w.overview.toPlainText()
    assert w.source.toPlainText().startswith("---\nname: alpha")
    assert "1 skills" in w.counts_label.text() or "1 skill" in w.counts_label.text()


def test_the_page_in_view_is_set_first_and_a_newer_skill_wins(window, qtbot, tmp_path) -> None:  # type: ignore[no-untyped-def]
    # Setting a long page is the costliest thing the window does: the page in view is set
    # at once and the hidden ones each in a later turn of the event loop. A skill selected
    # while an earlier one's pages are still being set is the one all pages end up showing.
    root = tmp_path / "skills"
    skill(root, "alpha", "Alpha does the first thing.")
    skill(root, "beta", "Beta does the second thing.")
    w = window([str(root)])
    order: list[str] = []
    real_html, real_source = w.files_view.setHtml, w.source.set_source
    real_overview = w.overview.setHtml
    w.overview.setHtml = lambda html: (order.append("overview"), real_overview(html))  # type: ignore[method-assign]
    w.files_view.setHtml = lambda html: (order.append("files"), real_html(html))  # type: ignore[method-assign]
    w.source.set_source = lambda *a: (order.append("source"), real_source(*a))  # type: ignore[method-assign]
    w.tabs.setCurrentWidget(w.source)
    show(qtbot, w, str(root / "alpha" / "SKILL.md"))
    assert order[0] == "source" and {"overview", "files"} <= set(order)
    w.select_skill(str(root / "alpha" / "SKILL.md"))
    with qtbot.waitSignal(
        w.sig_skill_shown,
        timeout=20000,
        check_params_cb=lambda key: key.endswith("beta/SKILL.md"),
    ):
        w.select_skill(str(root / "beta" / "SKILL.md"))
    assert "Beta does the second thing." in w.overview.toPlainText()
    assert w.source.toPlainText().startswith("---\nname: beta")
    assert "beta" in w.files_view.toPlainText()


def test_writing_a_skill_updates_tree_preview_and_problems(window, qtbot, tmp_path) -> None:  # type: ignore[no-untyped-def]
    root = tmp_path / "skills"
    skill(root, "alpha")
    w = window([str(root)])
    key = str(root / "alpha" / "SKILL.md")
    show(qtbot, w, key)
    assert w.problems_model.rowCount() == 0
    # An edit on disk: a new field the spec does not know, and a new skill.
    (root / "alpha" / "SKILL.md").write_text(
        "---\nname: alpha\ndescription: Edited on disk.\nbogus: 1\n---\nNew body.\n",
        encoding="utf-8",
    )
    skill(root, "beta")
    qtbot.waitUntil(
        lambda: (
            w.loaded is not None
            and len(w.loaded.skills) == 2
            and any(s.status == "error" for s in w.loaded.skills)
        ),
        timeout=15000,
    )
    qtbot.waitUntil(lambda: "Edited on disk." in w.overview.toPlainText(), timeout=5000)
    assert w.selected_key == key  # selection survived the reload
    # the rows the window keeps are plain tuples, which the garbage collector skips
    gc.collect()
    assert not any(gc.is_tracked(row) for row in w.loaded.skills.plain)
    assert w.skills[key].name == "alpha"
    codes = {w.problems_model.diagnostic(r).code for r in range(w.problems_model.rowCount())}
    assert "SP216" in codes


def test_an_edit_while_the_watch_starts_is_not_lost(qtbot, tmp_path) -> None:  # type: ignore[no-untyped-def]
    root = tmp_path / "skills"
    skill(root, "alpha")
    settings = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    w = MainWindow(
        roots=[str(root)],
        profile="agentskills",
        project=str(tmp_path),
        dark=False,
        settings=settings,
    )
    qtbot.addWidget(w)
    try:
        with qtbot.waitSignal(w.sig_catalog_applied, timeout=20000):
            w.reload()
        skill(root, "beta")  # right away, before the watch is necessarily up
        qtbot.waitUntil(lambda: w.loaded is not None and len(w.loaded.skills) == 2, timeout=15000)
    finally:
        w.shutdown()


def test_deleting_a_skill_removes_it(window, qtbot, tmp_path) -> None:  # type: ignore[no-untyped-def]
    root = tmp_path / "skills"
    skill(root, "alpha")
    skill(root, "beta")
    w = window([str(root)])
    shutil.rmtree(root / "beta")
    qtbot.waitUntil(
        lambda: w.loaded is not None and [s.name for s in w.loaded.skills] == ["alpha"],
        timeout=15000,
    )
    assert not w.tree_model.index_for_key(str(root / "beta" / "SKILL.md")).isValid()


def test_selection_survives_a_manual_reload(window, qtbot, tmp_path) -> None:  # type: ignore[no-untyped-def]
    root = tmp_path / "skills"
    for n in ("alpha", "beta", "gamma"):
        skill(root, n)
    w = window([str(root)])
    key = str(root / "beta" / "SKILL.md")
    show(qtbot, w, key)
    with qtbot.waitSignal(w.sig_catalog_applied, timeout=10000):
        w.reload()
    assert w.selected_key == key
    assert w.tree.currentIndex().data(KEY_ROLE) == key


def test_filter_matches_all_words_and_states(window, qtbot, tmp_path) -> None:  # type: ignore[no-untyped-def]
    root = tmp_path / "skills"
    skill(root, "pdf-tools", "Extracts text from PDF files.")
    skill(root, "csv-tools", "Cleans CSV files.")
    skill(root, "Bad_Name", "Broken on purpose.")
    w = window([str(root)])

    def visible() -> set[str]:
        out = set()
        for r in range(w.tree_model.rowCount()):
            ridx = w.tree_model.index(r, 0)
            for c in range(w.tree_model.rowCount(ridx)):
                out.add(w.tree_model.index(c, 0, ridx).data())
        return out

    # The worker answers each change from its index a moment later.
    w.filter_edit.setText("files text")
    qtbot.waitUntil(lambda: visible() == {"pdf-tools"}, timeout=5000)
    w.filter_edit.setText("")
    w.state_filter.setCurrentIndex(w.state_filter.findData("error"))
    qtbot.waitUntil(lambda: visible() == {"Bad_Name"}, timeout=5000)
    w.state_filter.setCurrentIndex(0)
    qtbot.waitUntil(lambda: visible() == {"pdf-tools", "csv-tools", "Bad_Name"}, timeout=5000)
    assert not w.tree_model.filtered


def test_switching_profile_changes_which_copy_is_shadowed(window, qtbot, tmp_path) -> None:  # type: ignore[no-untyped-def]
    # Gemini CLI: later roots win; the spec guide: the first wins. Same two roots, opposite winners.
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    skill(project / ".gemini" / "skills", "dup", "Copy in .gemini.")
    skill(project / ".agents" / "skills", "dup", "Copy in .agents.")
    w = window([str(project)], profile="gemini-cli")

    def winner() -> str:
        assert w.loaded is not None
        return next(s.path for s in w.loaded.skills if s.status in ("ok", "warning"))

    first = winner()
    w.profile_combo.setCurrentIndex(w.profile_combo.findData("codex"))
    qtbot.waitUntil(
        lambda: w.loaded is not None and w.loaded.spec.profile == "codex", timeout=10000
    )
    # codex keeps both copies: neither is shadowed
    assert not any(s.status == "shadowed" for s in w.loaded.skills)
    w.profile_combo.setCurrentIndex(w.profile_combo.findData("gemini-cli"))
    qtbot.waitUntil(
        lambda: w.loaded is not None and w.loaded.spec.profile == "gemini-cli", timeout=10000
    )
    assert winner() == first
    assert sum(s.status == "shadowed" for s in w.loaded.skills) == 1


def test_a_dropped_folder_becomes_a_root(window, qtbot, tmp_path) -> None:  # type: ignore[no-untyped-def]
    a, b = tmp_path / "a", tmp_path / "b"
    skill(a, "alpha")
    skill(b, "beta")
    w = window([str(a)])
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(b))])
    event = QDropEvent(
        QPointF(10, 10),
        Qt.DropAction.CopyAction,
        mime,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )
    with qtbot.waitSignal(w.sig_catalog_applied, timeout=10000):
        w.dropEvent(event)
    assert str(b) in w.roots
    assert {s.name for s in w.loaded.skills} == {"alpha", "beta"}


def test_problem_activation_selects_skill_and_line(window, qtbot, tmp_path) -> None:  # type: ignore[no-untyped-def]
    root = tmp_path / "skills"
    skill(root, "alpha", extra="bogus: 1\n")
    w = window([str(root)])
    row = next(
        r
        for r in range(w.problems_proxy.rowCount())
        if w.problems_proxy.index(r, 1).data() == "SP216"
    )
    with qtbot.waitSignal(w.sig_skill_shown, timeout=10000):
        w.problems_panel._on_activated(w.problems_proxy.index(row, 0))
    assert w.selected_key == str(root / "alpha" / "SKILL.md")
    assert w.tabs.currentWidget() is w.source
    assert w.source.textCursor().blockNumber() + 1 == 4  # the line of 'bogus:'


def test_hostile_inputs_open_without_crash(window, qtbot, tmp_path) -> None:  # type: ignore[no-untyped-def]
    root = tmp_path / "skills"
    (root / "bomb").mkdir(parents=True)
    lol = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i in range(1, 9):
        p, c = chr(96 + i), chr(97 + i)
        lol.append(f"{c}: &{c} [*{p},*{p},*{p},*{p},*{p},*{p},*{p},*{p},*{p}]")
    (root / "bomb" / "SKILL.md").write_text("---\n" + "\n".join(lol) + "\n---\n", encoding="utf-8")
    (root / "bin").mkdir()
    (root / "bin" / "SKILL.md").write_bytes(b"\x00\x01\x02")
    (root / "html").mkdir()
    (root / "html" / "SKILL.md").write_text(
        "---\nname: html\ndescription: d\n---\n<script>alert(1)</script>\n![x](http://example.com/a.png)\n"
        "<img src=x onerror=alert(1)>\n",
        encoding="utf-8",
    )
    os.mkfifo(root / "fifo-skill" / "SKILL.md") if (root / "fifo-skill").mkdir() is None else None
    w = window([str(root)])
    for s in w.loaded.skills:
        show(qtbot, w, s.key)  # none of them breaks the window
    key = next(s.key for s in w.loaded.skills if s.name == "html")
    engine, _loaded = open_view([str(root)], project=str(tmp_path))
    made = answer(engine, "preview", key, "", False).overview  # the HTML handed to Qt
    assert "<script" not in made and "<img" not in made
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in made  # shown as the text it is
    assert "[remote image not loaded: http://example.com/a.png]" in made


def test_a_matrix_click_selects_the_skill_under_that_runtime(window, qtbot, tmp_path) -> None:  # type: ignore[no-untyped-def]
    w = window([str(demo_skills_dir())], profile="agentskills")
    for i in range(w.matrix.profiles.count()):
        item = w.matrix.profiles.item(i)
        wanted = item.data(Qt.ItemDataRole.UserRole) in ("agentskills", "codex")
        item.setCheckState(Qt.CheckState.Checked if wanted else Qt.CheckState.Unchecked)
    w.matrix.compare()
    qtbot.waitUntil(lambda: w.matrix.model.matrix is not None, timeout=20000)
    m = w.matrix.model.matrix
    row = next(i for i, r in enumerate(m.rows) if r.name == "storybook-stories")
    # columns in level order (core/vocabulary.py LEVEL_ORDER): look each runtime up by name
    cells = {p: m.rows[row].cells[m.profiles.index(p)].value for p in ("agentskills", "codex")}
    assert cells == {"agentskills": "not-discovered", "codex": "full"}
    column = 1 + m.profiles.index("agentskills")
    assert "not-discovered" in w.matrix.model.index(row, column).data()
    col = 1 + m.profiles.index("codex")
    w.matrix._on_clicked(w.matrix.model.index(row, col))
    qtbot.waitUntil(
        lambda: w.loaded is not None and w.loaded.spec.profile == "codex", timeout=20000
    )
    assert w.selected_key == m.rows[row].key
    assert w.tree.currentIndex().data(KEY_ROLE) == m.rows[row].key


def test_creating_a_referenced_file_clears_the_finding(window, qtbot, tmp_path) -> None:  # type: ignore[no-untyped-def]
    root = tmp_path / "skills"
    d = skill(root, "alpha")
    (d / "SKILL.md").write_text(
        "---\nname: alpha\ndescription: d\n---\nSee [notes](references/notes.md).\n",
        encoding="utf-8",
    )
    w = window([str(root)])

    def codes() -> set[str]:
        return {w.problems_model.diagnostic(r).code for r in range(w.problems_model.rowCount())}

    qtbot.waitUntil(lambda: "SP501" in codes(), timeout=10000)
    (d / "references").mkdir()
    (d / "references" / "notes.md").write_text("notes\n", encoding="utf-8")
    qtbot.waitUntil(lambda: "SP501" not in codes(), timeout=15000)
    # and F5 trusts nothing cached
    with qtbot.waitSignal(w.sig_catalog_applied, timeout=10000):
        w.reload()
    assert "SP501" not in codes()


def test_export_report_writes_html_and_markdown(window, qtbot, tmp_path) -> None:  # type: ignore[no-untyped-def]
    w = window([str(demo_skills_dir())])
    for name in ("r.html", "r.md"):
        out = tmp_path / name
        with qtbot.waitSignal(w.sig_report_written, timeout=20000) as blocker:
            w.export_report(str(out))
        assert blocker.args == [str(out), ""]
        text = out.read_text(encoding="utf-8")
        assert "changelog-writer" in text and "<script" not in text


def test_reference_links_in_previews_follow_tier3(window, qtbot, tmp_path) -> None:  # type: ignore[no-untyped-def]
    root = tmp_path / "skills"
    d = skill(root, "alpha")
    (d / "references").mkdir()
    (d / "references" / "notes.md").write_text("Some notes.\n", encoding="utf-8")
    w = window([str(root)])
    show(qtbot, w, str(d / "SKILL.md"))
    w._on_link(QUrl("references/notes.md"))  # followed in the engine, shown when it answers
    qtbot.waitUntil(lambda: "Some notes." in w.files_view.toPlainText(), timeout=10000)
    assert w.tabs.currentWidget() is w.files_view
    assert "tokens" in w.files_view.toPlainText()
    w._on_link(QUrl("../../etc/passwd"))
    qtbot.waitUntil(lambda: "would refuse" in w.files_view.toPlainText(), timeout=10000)
    w.files_view.setHtml("")
    w._on_link(QUrl("references/missing.md"))
    qtbot.waitUntil(lambda: "would refuse" in w.files_view.toPlainText(), timeout=10000)


def test_problems_panel_says_why_it_is_empty(window, tmp_path) -> None:  # type: ignore[no-untyped-def]
    root = tmp_path / "clean"
    skill(root, "tidy")
    w = window([str(root)])
    assert w.problems.model().rowCount() == 0
    assert w.problems_panel.placeholder().startswith("No problems: every skill here passes")
    with_problem = tmp_path / "messy"
    skill(with_problem, "Messy Name")
    w2 = window([str(with_problem)])
    assert w2.problems.model().rowCount() > 0
    w2.problem_filter.setText("no such finding anywhere")
    assert w2.problems.model().rowCount() == 0
    assert w2.problems_panel.placeholder() == "No problems match the filter."
    assert not w2.problems.grab().isNull()  # paints the placeholder without error
