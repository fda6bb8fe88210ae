"""The Where tab: for the selected skill, every runtime's answer to "where would you find it?"
(core/placement.py through the Workspace): whether it finds the skill where it is now, and the
exact folders it reads skills from, strongest first, with a link to copy the path or a
symlink command. The report is prepared in the controller's worker; this view only renders it
and filters its rows by a runtime's name or level."""

from __future__ import annotations

import html
import os
import shlex

from PySide6.QtCore import QUrl, Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QLabel, QLineEdit, QVBoxLayout, QWidget

from skillprism.core.placement import WhereReport
from skillprism.gui.browser import SafeBrowser
from skillprism.gui.runtimes import runtime_entries

COPY_SCHEME = "copy"
_LEVEL_STYLE = {
    "verified": ("#1a6b2f", "verified"),
    "partial": ("#7a4d00", "partly verified"),
    "documented": ("#59636e", "documented"),
    "specified": ("#59636e", "specified"),
}


def where_html(report: WhereReport, text_filter: str = "", *, dark: bool = False) -> str:
    """The report as a page: one block per runtime, those that find the skill first."""
    fg, muted = ("#e6edf3", "#9aa4ae") if dark else ("#1f2328", "#59636e")
    terms = text_filter.lower().split()
    levels = {e.name: e.level for e in runtime_entries()}
    rows = []
    shown = 0
    ordered = sorted(report.profiles, key=lambda p: (not p.found, p.title.lower()))
    for p in ordered:
        hay = f"{p.title} {p.profile} {p.provenance} {levels.get(p.profile, '')}".lower()
        if not all(t in hay for t in terms):
            continue
        shown += 1
        colour, level = _LEVEL_STYLE.get(levels.get(p.profile, ""), ("#59636e", "documented"))
        verdict = (
            f"<b style='color:#1a6b2f'>finds it here</b> ({html.escape(p.found_here)})"
            if p.found
            else f"<b style='color:#b3261e'>does not find it here</b>: "
            f"{html.escape(p.found_reason or p.found_here)}"
        )
        places = []
        for pl in p.placements:
            copy_path = QUrl(f"{COPY_SCHEME}:{os.path.dirname(pl.path)}").toString()
            link = shlex.join(["ln", "-s", report.skill_dir, os.path.dirname(pl.path)])
            copy_link = QUrl(f"{COPY_SCHEME}:{link}").toString()
            here = " <b>(here now)</b>" if pl.here else ""
            places.append(
                f"<li><code>{html.escape(pl.path)}</code>{here} "
                f"<span style='color:{muted}'>{html.escape(pl.scope)}, {html.escape(pl.layout)}"
                f"</span> — <a href='{html.escape(copy_path)}'>copy folder</a> · "
                f"<a href='{html.escape(copy_link)}'>copy ln -s</a></li>"
            )
        folder = (
            f"<p style='color:{muted}'>Folder name: <code>{html.escape(p.folder)}</code> "
            f"({html.escape(p.folder_rule)}); file <code>{html.escape(p.file_name)}</code></p>"
        )
        rows.append(
            f"<h3 style='margin-bottom:2px'>{html.escape(p.title)} "
            f"<span style='color:{colour}; font-weight:normal; font-size:small'>[{level}]</span>"
            f"</h3><p title='{html.escape(p.provenance)}'>{verdict}</p>{folder}"
            f"<ul>{''.join(places) or '<li>no folders for this project and home</li>'}</ul>"
        )
    head = (
        f"<p style='color:{muted}'>{html.escape(report.skill_dir)} — where each of "
        f"{len(report.profiles)} runtimes reads skills (strongest first), for project "
        f"{html.escape(report.project)}. {sum(p.found for p in report.profiles)} find it where "
        f"it is now.</p>"
    )
    if not shown:
        rows.append("<p>No runtime matches the filter.</p>")
    return f"<div style='color:{fg}'>{head}{''.join(rows)}</div>"


class WhereView(QWidget):
    """Shows a prepared WhereReport (see the module doc)."""

    sig_copied = Signal(str)
    """Something was copied to the clipboard (what)."""

    def __init__(self, parent: QWidget | None = None, *, dark: bool = False) -> None:
        super().__init__(parent)
        self.dark = dark
        self.report: WhereReport | None = None
        self.key = ""
        self.filter = QLineEdit(placeholderText="Filter runtimes (name or level)")
        self.filter.setClearButtonEnabled(True)
        self.filter.textChanged.connect(lambda _t: self._render())
        self.browser = SafeBrowser()
        self.browser.anchorClicked.connect(self._on_link)
        self.status = QLabel("")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 4, 0, 0)
        layout.addWidget(self.filter)
        layout.addWidget(self.browser, 1)
        layout.addWidget(self.status)
        self.show_pending()

    def show_pending(self) -> None:
        self.report = None
        self.browser.setHtml(
            "<p style='color:gray; margin:24px'>Select a skill to see where "
            "each runtime would find it.</p>"
        )

    def show_report(self, key: str, report: WhereReport | str) -> None:
        self.key = key
        if isinstance(report, str):
            self.report = None
            self.browser.setHtml(f"<p style='color:#b3261e'>{html.escape(report)}</p>")
            return
        self.report = report
        self._render()

    def _render(self) -> None:
        if self.report is not None:
            self.browser.setHtml(where_html(self.report, self.filter.text(), dark=self.dark))

    def _on_link(self, url: QUrl) -> None:
        if url.scheme() == COPY_SCHEME:
            text = url.path()
            QGuiApplication.clipboard().setText(text)
            self.status.setText(f"Copied: {text}")
            self.sig_copied.emit(text)
