"""Write src/skillprism/core/_bun_widths.py from Bun itself: `Bun.stringWidth` of every code point
(ambiguous narrow) and the sets that join emoji sequences. Run with the Bun that the modelled runtime
is built with (Claude Code 2.1.330: Bun 1.4.4, npm @oven/bun-linux-x64@1.4.4, installed with
--ignore-scripts):

    python conformance/gen_width_table.py path/to/bun
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

SCRIPT = r"""
const W = (s) => Bun.stringWidth(s, {ambiguousIsNarrow: true});
const widths = []; let prev = -1;
for (let cp = 0; cp <= 0x10FFFF; cp++) {
  const w = cp >= 0xD800 && cp <= 0xDFFF ? 0 : W(String.fromCodePoint(cp));
  if (w !== prev) { widths.push([cp, w]); prev = w; }
}
function ranges(pred) {
  const out = []; let open = false, start = 0;
  for (let cp = 0; cp <= 0x10FFFF; cp++) {
    const p = !(cp >= 0xD800 && cp <= 0xDFFF) && pred(String.fromCodePoint(cp));
    if (p && !open) { open = true; start = cp; } else if (!p && open) { out.push([start, cp - 1]); open = false; }
  }
  if (open) out.push([start, 0x10FFFF]);
  return out;
}
process.stdout.write(JSON.stringify({
  version: Bun.version,
  widths,
  vs16: ranges((c) => W(c) === 1 && W(c + "\ufe0f") === 2),
  modbase: ranges((c) => W(c) > 0 && W(c + "\u{1F3FD}") === W(c)),
  zwj: ranges((c) => W(c) > 0 && W(c + "\u200d\u{1F600}") === W(c)),
  zwjtarget: ranges((c) => W(c) > 0 && W("\u{1F600}\u200d" + c) === 2),
}));
"""

DOC = '''"""Read off Bun {version} by conformance/gen_width_table.py; do not edit by hand.

STARTS/WIDTHS: `Bun.stringWidth(ch, {{ambiguousIsNarrow: true}})` of every code point, as ranges (the
width of code points from STARTS[i] up to STARTS[i + 1]). The others are inclusive (first, last)
ranges: VS16 - narrow symbols that U+FE0F makes two cells; MODIFIER_BASE - emoji a skin-tone
modifier joins; ZWJ_BASE - emoji a ZERO WIDTH JOINER joins to a following emoji; ZWJ_JOINED -
what such a joiner joins to it."""

BUN_RELEASE = "{version}"

# fmt: off
'''


def _tuple(name: str, values: list[int]) -> str:
    lines, row = [f"{name} = ("], ""
    for value in values:
        if len(row) + len(str(value)) > 90:
            lines.append("    " + row.rstrip())
            row = ""
        row += f"{value}, "
    lines.append("    " + row.rstrip())
    return "\n".join([*lines, ")"]) + "\n"


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "widths.js"
        script.write_text(SCRIPT, encoding="utf-8")
        data = json.loads(
            subprocess.run([argv[0], str(script)], capture_output=True, check=True).stdout
        )
    out = DOC.format(version=data["version"])
    out += _tuple("STARTS", [a for a, _ in data["widths"]])
    out += _tuple("WIDTHS", [b for _, b in data["widths"]])
    for name, key in (
        ("VS16", "vs16"),
        ("MODIFIER_BASE", "modbase"),
        ("ZWJ_BASE", "zwj"),
        ("ZWJ_JOINED", "zwjtarget"),
    ):
        out += _tuple(name, [v for pair in data[key] for v in pair])
    target = Path(__file__).resolve().parents[1] / "src/skillprism/core/_bun_widths.py"
    target.write_text(out, encoding="utf-8")
    print(f"{target}: from Bun {data['version']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
