"""The activation test bench shows substituted arguments and the runtime's refusals: the view
asks (`sig_wanted`), the engine activates through the Workspace (answered here in-process), and
the view shows the page."""

from __future__ import annotations

import pytest

pytest.importorskip("PySide6.QtWidgets")

from engine_helpers import answer, open_view

from skillprism.gui.activation_view import ActivationView
from skillprism.paths import demo_skills_dir


@pytest.fixture
def bench(qtbot, tmp_path):  # type: ignore[no-untyped-def]
    engine, loaded = open_view([str(demo_skills_dir())], "claude-code", str(tmp_path))
    view = ActivationView()
    qtbot.addWidget(view)
    view.sig_wanted.connect(
        lambda args, invoker, first: view.show_page(
            answer(engine, "activate", view.key, args, invoker, first, False)
        )
    )

    def show(name: str) -> ActivationView:
        skill = next(s for s in loaded.skills if s.name == name and s.status in ("ok", "warning"))
        view.show_skill(skill.key, skill.directory)
        return view

    return show


def test_arguments_are_substituted_and_highlighted(bench) -> None:  # type: ignore[no-untyped-def]
    view = bench("release-notes")
    view.args.setText('2.0.0 "release managers"')
    view.refresh()
    text = view.view.toPlainText()
    assert "2.0.0" in text and "release managers" in text
    assert "$version" not in text.split("Delivered to the model")[1]
    assert "forked sub-task" in text
    assert "background" in view.view.toHtml()  # highlighted substitutions


def test_model_refusal_and_user_permission(bench) -> None:  # type: ignore[no-untyped-def]
    view = bench("deploy")
    assert "Refused by the runtime" in view.view.toPlainText()
    assert "disable-model-invocation" in view.view.toPlainText()
    view.invoker.setCurrentIndex(view.invoker.findData("user"))
    text = view.view.toPlainText()
    assert "Refused" not in text
    assert "would run" in text and "never run" in text
