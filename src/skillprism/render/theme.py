"""Colours for the light and dark previews, shared by code highlighting and the page CSS.

The Pygments styles were picked for legibility on the code background below them: Pygments'
`default` on a near-white block, `github-dark` on GitHub's dark canvas.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Palette:
    background: str
    foreground: str
    muted: str
    link: str
    border: str
    code_background: str
    code_foreground: str
    line_number: str
    highlight_line: str
    placeholder: str
    pygments_style: str


LIGHT = Palette(
    background="#ffffff",
    foreground="#1f2328",
    muted="#59636e",
    link="#0969da",
    border="#d0d7de",
    code_background="#f6f8fa",
    code_foreground="#1f2328",
    line_number="#6e7781",
    highlight_line="#fff3b0",
    placeholder="#9a6700",
    pygments_style="default",
)

DARK = Palette(
    background="#0d1117",
    foreground="#e6edf3",
    muted="#9198a1",
    link="#4493f8",
    border="#3d444d",
    code_background="#161b22",
    code_foreground="#e6edf3",
    line_number="#8b949e",
    highlight_line="#4b3d00",
    placeholder="#d29922",
    pygments_style="github-dark",
)


def palette(dark: bool) -> Palette:
    return DARK if dark else LIGHT
