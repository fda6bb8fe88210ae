"""The activation test bench: what activating the selected skill with these arguments delivers
under the selected runtime (core.activate), with the substituted values highlighted."""

from __future__ import annotations

import html
from typing import Any

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QVBoxLayout,
    QWidget,
)

from skillprism.core.activate import invocation_rules
from skillprism.core.catalog import Catalog, SkillEntry
from skillprism.gui.browser import SafeBrowser


def activation_html(
    activation: Any, *, runtime: str, dark: bool, invocation_rules: str = ""
) -> str:
    """The report of one simulated activation as HTML (all skill text escaped)."""
    mark_bg = "#5a4a00" if dark else "#fff1a8"
    a = activation
    parts = [
        f"<p><b>{html.escape(a.name)}</b> via <i>{html.escape(a.mechanism)}</i> "
        f"({'user slash command' if a.invoker == 'user' else 'model tool call'}) under "
        f"{html.escape(runtime)}</p>"
    ]
    if not a.allowed:
        parts.append(
            f"<p style='color:#d23b3b'><b>Refused by the runtime:</b> {html.escape(a.refusal)}</p>"
        )
        parts.append(f"<p style='color:gray'>{html.escape(invocation_rules)}</p>")
        return "".join(parts)
    over = a.over_guidance
    cost = (
        f"{a.chars:,} characters, {a.tokens:,} tokens ({html.escape(a.counter)}); guidance "
        f"{a.guidance_tokens:,} tokens"
    )
    parts.append(
        f"<p style='color:{'#b7791f' if over else 'gray'}'>Cost: {cost}"
        f"{' — over the guidance' if over else ''}</p>"
    )
    facts = []
    facts.append(
        "runs as a <b>forked sub-task</b>"
        + (f" (agent: {html.escape(a.agent)})" if a.agent else "")
        if a.fork
        else "runs <b>inline</b> in the conversation"
    )
    if a.allowed_tools:
        facts.append(
            "allowed tools: " + ", ".join(f"<code>{html.escape(t)}</code>" for t in a.allowed_tools)
        )
    if a.model:
        facts.append(f"model: {html.escape(a.model)}")
    if a.consent:
        facts.append(f"consent: {html.escape(a.consent)}")
    if a.appended:
        facts.append("no placeholder in the body: the arguments are appended")
    if a.unmatched:
        facts.append(
            "left as written: " + ", ".join(f"<code>{html.escape(u)}</code>" for u in a.unmatched)
        )
    parts.append("<ul>" + "".join(f"<li>{f}</li>" for f in facts) + "</ul>")
    for line, cmd in a.would_run:
        parts.append(
            f"<p style='color:#d23b3b'>Line {line} would run <code>{html.escape(cmd)}</code> "
            "when the runtime activates the skill (shown here, never run).</p>"
        )
    for note in a.notes:
        parts.append(f"<p style='color:gray'>{html.escape(note)}</p>")
    # The delivered content, with each substituted value highlighted.
    text, pieces, pos = a.content, [], 0
    for s in sorted(a.substitutions, key=lambda s: s.start):
        if s.start < pos:
            continue
        pieces.append(html.escape(text[pos : s.start]))
        pieces.append(
            f"<span style='background:{mark_bg}' title='{html.escape(s.placeholder)}'>"
            f"{html.escape(text[s.start : s.end])}</span>"
        )
        pos = s.end
    pieces.append(html.escape(text[pos:]))
    parts.append("<p><b>Delivered to the model</b> (substituted values highlighted):</p>")
    parts.append("<pre style='white-space:pre-wrap'>" + "".join(pieces) + "</pre>")
    if a.compaction_kept_chars is not None:
        parts.append(
            f"<p style='color:gray'>After compaction only the first "
            f"{a.compaction_keep_tokens:,} tokens survive (about {a.compaction_kept_chars:,} "
            "characters).</p>"
        )
    return "".join(parts)


class ActivationView(QWidget):
    def __init__(self, parent: QWidget | None = None, dark: bool = False) -> None:
        super().__init__(parent)
        self.dark = dark
        self.catalog: Catalog | None = None
        self.skill: SkillEntry | None = None
        self.args = QLineEdit(
            placeholderText='Arguments, as typed after /name (e.g. 1.4.0 "release managers")'
        )
        self.args.setClearButtonEnabled(True)
        self.invoker = QComboBox()
        self.invoker.addItem("Model tool call", "model")
        self.invoker.addItem("User slash command", "user")
        self.repeat = QCheckBox("Repeat activation")
        self.repeat.setToolTip("Activated before in this session (consent already given)")
        self.view = SafeBrowser()
        self._timer = QTimer(self, singleShot=True, interval=120)
        self._timer.timeout.connect(self.refresh)
        self.args.textChanged.connect(lambda _t: self._timer.start())
        self.invoker.currentIndexChanged.connect(self.refresh)
        self.repeat.toggled.connect(self.refresh)
        row = QHBoxLayout()
        row.addWidget(QLabel("Arguments:"))
        row.addWidget(self.args, 1)
        row.addWidget(self.invoker)
        row.addWidget(self.repeat)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(row)
        layout.addWidget(self.view, 1)

    def show_skill(self, catalog: Catalog | None, skill: SkillEntry | None) -> None:
        self.catalog, self.skill = catalog, skill
        if skill is not None:
            self.view.set_allowed_root(skill.directory)
        self.refresh()

    def refresh(self) -> None:
        from skillprism.core.activate import ActivationError, activate

        if self.catalog is None or self.skill is None:
            self.view.setHtml("<p style='color:gray'>Select a skill to try activating it.</p>")
            return
        try:
            a = activate(
                self.catalog,
                self.skill,
                args=self.args.text(),
                invoker=self.invoker.currentData(),
                first_activation=not self.repeat.isChecked(),
            )
        except ActivationError as err:
            self.view.setHtml(f"<p style='color:#d23b3b'>{html.escape(str(err))}</p>")
            return
        self.view.setHtml(
            activation_html(
                a,
                runtime=self.catalog.profile.title,
                dark=self.dark,
                invocation_rules=invocation_rules(self.catalog.profile),
            )
        )
