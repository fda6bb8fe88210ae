"""Display width (core/textwidth.py) against what Bun's stringWidth gives; Bun itself when the
conformance lab has installed it."""

from __future__ import annotations

import json
import random
import subprocess
from pathlib import Path

import pytest

from skillprism.core.textwidth import display_width

KNOWN = {
    "abc": 3,
    "日本語": 6,
    "한국어": 6,
    "e\u0301": 1,
    "😀": 2,
    "👍🏽": 2,
    "👨\u200d👩\u200d👧": 2,
    "🏳\ufe0f\u200d🌈": 2,
    "❤\ufe0f": 2,
    "🇫🇷": 2,
    "\u200b": 0,
    "…": 1,
    "ｱ": 1,
    "\x1b[31mx\x1b[0m": 1,
    "tab\there": 7,
    "हिन्दी": 3,
}


@pytest.mark.parametrize(("text", "cells"), KNOWN.items())
def test_known_widths(text: str, cells: int) -> None:
    assert display_width(text) == cells


def _bun() -> Path | None:
    cache = Path(__file__).resolve().parents[1] / "conformance" / ".cache"
    found = sorted(cache.glob("*/node_modules/@oven/bun-linux-x64/bin/bun"))
    return found[0] if found else None


def _realistic(rng: random.Random) -> str:
    """A description as authors write them: words in several scripts, some emoji."""
    words = [
        "Convert", "PDF", "files", "données", "résumé", "日本語", "ドキュメント", "한국어", "中文",
        "Привет", "Ελληνικά", "👍🏽", "🚀", "❤️", "🇯🇵", "👩‍💻", "e\u0301", "naïve", "→", "—", "…",
    ]  # fmt: skip
    return " ".join(rng.choice(words) for _ in range(rng.randint(1, 12)))


@pytest.mark.skipif(_bun() is None, reason="the conformance lab's Bun is not installed")
def test_matches_bun_on_realistic_descriptions(tmp_path: Path) -> None:
    rng = random.Random(7)
    texts = [_realistic(rng) for _ in range(2000)] + list(KNOWN)
    script = tmp_path / "w.js"
    script.write_text(
        f"const s = {json.dumps(texts)};\n"
        "process.stdout.write(JSON.stringify(s.map((x) => "
        "Bun.stringWidth(x, {ambiguousIsNarrow: true}))));\n",
        encoding="utf-8",
    )
    out = subprocess.run([str(_bun()), str(script)], capture_output=True, check=True, timeout=60)
    bun = json.loads(out.stdout)
    differ = [(t, b, display_width(t)) for t, b in zip(texts, bun, strict=True)]
    differ = [d for d in differ if d[1] != d[2]]
    assert not differ, differ[:5]
