#!/usr/bin/env python3
"""Write the hand-made fixture tree used to try the binary drivers (README-bin.md).

    python3 conformance/bin_fixture.py /tmp/fx      # creates /tmp/fx/home and /tmp/fx/proj
    echo '{"home": "/tmp/fx/home", "project": "/tmp/fx/proj", "cwd": "/tmp/fx/proj",
           "env": {"CODEX_HOME": "/tmp/fx/home/.codex"}}' | python3 conformance/drivers/codex.py

The project is a git repository (an empty `.git` folder made by `git init`), so every runtime
sees the project folder as the repository root.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

LONG = "Long description. " + "x" * 1100


def skill(name: str, description: str | None = None, extra: str = "") -> str:
    lines = ["---"]
    if name is not None:
        lines.append(f"name: {name}")
    if description is not None:
        lines.append(f"description: {description}")
    if extra:
        lines.append(extra)
    lines += ["---", "", f"# {name}", "", "Body.", ""]
    return "\n".join(lines)


FILES: dict[str, str | bytes] = {
    # project .agents/skills
    "proj/.agents/skills/alpha/SKILL.md": skill("alpha", "Alpha does things."),
    "proj/.agents/skills/dup-a/SKILL.md": skill("dup", "dup in .agents/skills/dup-a."),
    "proj/.agents/skills/dup-b/SKILL.md": skill("dup", "dup in .agents/skills/dup-b."),
    "proj/.agents/skills/bom/SKILL.md": "\ufeff" + skill("bom", "Starts with a BOM."),
    "proj/.agents/skills/blankline/SKILL.md": "\n" + skill("blankline", "Blank line first."),
    "proj/.agents/skills/yamlerr/SKILL.md": skill("yamlerr", "[unclosed flow"),
    "proj/.agents/skills/colon/SKILL.md": skill("colon", "Use when: a colon is unquoted."),
    "proj/.agents/skills/nonstr/SKILL.md": skill("123", "Name is a number."),
    "proj/.agents/skills/boolname/SKILL.md": skill("true", "Name is a boolean."),
    "proj/.agents/skills/longdesc/SKILL.md": skill("longdesc", LONG),
    "proj/.agents/skills/.hidden/SKILL.md": skill("hidden", "In a hidden folder."),
    "proj/.agents/skills/l1/l2/deep/SKILL.md": skill("deep", "Three levels below the root."),
    "proj/.agents/skills/nodesc/SKILL.md": skill("nodesc", None),
    "proj/.agents/skills/nameless/SKILL.md": skill(None, "No name field."),
    "proj/.agents/skills/multiline/SKILL.md": skill(
        "multiline", "|\n  First line.\n  Second   line."
    ),
    "proj/.agents/skills/dupkey/SKILL.md": skill(
        "dupkey", "First description.", "description: Second description."
    ),
    "proj/.agents/skills/xml/SKILL.md": skill("xml", "'Uses <tags> & \"quotes\".'"),
    "proj/.agents/skills/Upper-Case/SKILL.md": skill("Upper-Case", "Upper case name."),
    "proj/.agents/skills/mismatch-dir/SKILL.md": skill("other-name", "Name differs from dir."),
    # other project roots
    "proj/.codex/skills/dup/SKILL.md": skill("dup", "dup in .codex/skills."),
    "proj/.opencode/skills/dup/SKILL.md": skill("dup", "dup in .opencode/skills."),
    "proj/.opencode/skills/oc-proj/SKILL.md": skill("oc-proj", "OpenCode project skill."),
    "proj/.claude/skills/dup/SKILL.md": skill("dup", "dup in .claude/skills."),
    "proj/.claude/skills/cc-proj/SKILL.md": skill("cc-proj", "Claude project skill."),
    # personal roots
    "home/.agents/skills/dup/SKILL.md": skill("dup", "dup in ~/.agents/skills."),
    "home/.agents/skills/personal/SKILL.md": skill("personal", "Personal skill."),
    "home/.claude/skills/dup/SKILL.md": skill("dup", "dup in ~/.claude/skills."),
    "home/.codex/skills/codex-home/SKILL.md": skill("codex-home", "In $CODEX_HOME/skills."),
    "home/.config/opencode/skills/oc-global/SKILL.md": skill("oc-global", "OpenCode global."),
}


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    root = Path(argv[1])
    for rel, text in FILES.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8") if isinstance(text, str) else path.write_bytes(text)
    subprocess.run(["git", "init", "-q", str(root / "proj")], check=True)
    print(root)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
