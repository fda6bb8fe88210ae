"""Inline SVG charts for reports: a labelled stacked bar. Pure string building, no Qt.

The charts are read without colour, too: every segment carries a `<title>` (a tooltip and what a
screen reader announces), segments wide enough are numbered, and a text legend below the bar
names each number with its value and share. The whole chart has a `<title>` and `<desc>` and
`role="img"`. Everything drawn from skill data is escaped by the caller's rules here (`esc`).
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass

from skillprism.core.display import display_path

WIDTH = 720
_LEFT = 10
_BAR_W = WIDTH - 2 * _LEFT
_BAR_Y = 34
_BAR_H = 26
_LINE = 17

# Distinguishable in greyscale print too (alternating light and dark); never the only cue.
SKILL_FILLS = (
    "#4c72b0",
    "#9ecae1",
    "#2f6b3a",
    "#a1d99b",
    "#8c564b",
    "#f4b183",
    "#6a3d9a",
    "#cab2d6",
)
KIND_FILLS = {
    "others": "#bdbdbd",
    "frame": "#636363",
    "headroom": "#ffffff",
    "full": "#2f6b3a",
    "shortened": "#a1d99b",
    "name-only": "#9ecae1",
    "omitted": "#f4b183",
    "excluded": "#d9d9d9",
    "shadowed": "#cab2d6",
    "error": "#c0392b",
    "skipped": "#8c564b",
    "not-discovered": "#f0f0f0",
    "ok": "#2f6b3a",
    "warning": "#f4b183",
}


@dataclass(frozen=True, slots=True)
class Segment:
    """One part of a stacked bar. `kind` is "skill" (coloured by position) or a KIND_FILLS key."""

    label: str
    value: int
    kind: str = "skill"


def esc(text: str) -> str:
    """Text or attribute value made safe: undecodable bytes and control characters spelled out,
    markup characters (and both quotes) escaped."""
    return html.escape(display_path(text), quote=True)


def _amount(n: int, unit: str) -> str:
    return f"{n:,} {unit[:-1] if n == 1 and unit.endswith('s') else unit}"


def _pct(value: int, scale: int) -> str:
    return f"{100.0 * value / scale:.1f}%" if scale else "0.0%"


def stacked_bar(
    segments: Sequence[Segment],
    *,
    scale: int,
    title: str,
    desc: str,
    ident: str,
    unit: str = "characters",
    marker: int | None = None,
    marker_label: str = "",
    notes: Sequence[str] = (),
) -> str:
    """One horizontal bar of `segments` on a 0..`scale` axis, a legend and note lines below.

    `marker` draws a vertical line (the budget limit) at that value. `ident` makes the element
    ids unique within the page."""
    scale = max(scale, 1)
    fills: list[str] = []
    skill_i = 0
    for s in segments:
        if s.kind == "skill":
            fills.append(SKILL_FILLS[skill_i % len(SKILL_FILLS)])
            skill_i += 1
        else:
            fills.append(KIND_FILLS.get(s.kind, "#bdbdbd"))
    legend = [s for s in segments if s.value > 0]
    height = _BAR_Y + _BAR_H + 14 + _LINE * (len(legend) + len(notes)) + 6
    tid, did = f"{ident}-title", f"{ident}-desc"
    out = [
        f'<svg class="sp-chart" role="img" width="{WIDTH}" height="{height}" '
        f'viewBox="0 0 {WIDTH} {height}" aria-labelledby="{tid} {did}" '
        'font-family="sans-serif" font-size="12">',
        f'<title id="{tid}">{esc(title)}</title>',
        f'<desc id="{did}">{esc(desc)}</desc>',
        f'<text x="{_LEFT}" y="16" font-weight="bold">{esc(title)}</text>',
        f'<rect x="{_LEFT}" y="{_BAR_Y}" width="{_BAR_W}" height="{_BAR_H}" fill="#ffffff" '
        'stroke="#6e7781" stroke-dasharray="3 2"/>',
    ]
    x = float(_LEFT)
    number = 0
    for s, fill in zip(segments, fills, strict=True):
        if s.value <= 0:
            continue
        number += 1
        w = _BAR_W * s.value / scale
        tip = f"{number}. {s.label}: {_amount(s.value, unit)} ({_pct(s.value, scale)})"
        stroke = ' stroke="#6e7781" stroke-dasharray="3 2"' if s.kind == "headroom" else ""
        out.append(
            f'<rect x="{x:.2f}" y="{_BAR_Y}" width="{w:.2f}" height="{_BAR_H}" fill="{fill}"'
            f"{stroke}><title>{esc(tip)}</title></rect>"
        )
        if w >= 16:
            dark = fill in ("#4c72b0", "#2f6b3a", "#8c564b", "#6a3d9a", "#636363", "#c0392b")
            out.append(
                f'<text x="{x + w / 2:.2f}" y="{_BAR_Y + 17}" text-anchor="middle" '
                f'fill="{"#ffffff" if dark else "#1f2328"}">{number}</text>'
            )
        x += w
    if marker is not None:
        mx = _LEFT + _BAR_W * min(marker, scale) / scale
        anchor = "end" if mx > WIDTH * 0.6 else "start"
        out.append(
            f'<line x1="{mx:.2f}" y1="{_BAR_Y - 6}" x2="{mx:.2f}" y2="{_BAR_Y + _BAR_H + 6}" '
            'stroke="#c0392b" stroke-width="2"/>'
        )
        out.append(
            f'<text x="{mx + (-4 if anchor == "end" else 4):.2f}" y="{_BAR_Y - 8}" '
            f'text-anchor="{anchor}" fill="#c0392b">{esc(marker_label)}</text>'
        )
    y = _BAR_Y + _BAR_H + 14 + 12
    for n, (s, fill) in enumerate(
        ((s, f) for s, f in zip(segments, fills, strict=True) if s.value > 0), 1
    ):
        stroke = ' stroke="#6e7781"' if s.kind == "headroom" else ""
        out.append(
            f'<rect x="{_LEFT}" y="{y - 10}" width="11" height="11" fill="{fill}"{stroke}/>'
            f'<text x="{_LEFT + 18}" y="{y}">{n}. {esc(s.label)}: '
            f"{esc(_amount(s.value, unit))} ({_pct(s.value, scale)})</text>"
        )
        y += _LINE
    for note in notes:
        out.append(f'<text x="{_LEFT}" y="{y}">{esc(note)}</text>')
        y += _LINE
    out.append("</svg>")
    return "\n".join(out)
