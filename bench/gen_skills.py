"""Generate N realistic, valid Agent Skills folders for benchmarks (deterministic for a seed).

Each skill: a spec-valid name equal to its folder, a description of 50-900 characters, optionally
license / compatibility / metadata / allowed-tools, a body of 20-400 lines with headings, lists,
code blocks and relative links to files under references/ (and scripts/) that exist.

    python bench/gen_skills.py OUT_DIR [-n 5000] [--seed 1] [--repository]

or from Python: `generate(out_dir, n, seed)` (every skill directly under OUT_DIR) or
`generate_repository(out_dir, n, seed)` (laid out like a repository of skills) returns the list of
skill folders made.
"""

from __future__ import annotations

import argparse
import os
import random
from pathlib import Path

_VERBS = (
    "analyze", "build", "check", "convert", "deploy", "draft", "extract", "format", "generate",
    "index", "lint", "merge", "migrate", "plan", "profile", "refactor", "render", "review", "scan",
    "summarize", "sync", "test", "translate", "triage", "validate", "write",
)  # fmt: skip
_NOUNS = (
    "api", "budget", "changelog", "commits", "config", "contracts", "csv", "dashboards", "data",
    "docs", "docker", "emails", "excel", "figma", "forms", "git", "invoices", "issues", "k8s",
    "logs", "markdown", "metrics", "notebooks", "pdf", "pipelines", "prompts", "release", "reports",
    "schemas", "slides", "sql", "terraform", "tickets", "video", "web", "yaml",
)  # fmt: skip
_WORDS = (
    "the", "a", "file", "user", "project", "when", "needs", "data", "output", "input", "table",
    "report", "check", "review", "quickly", "safely", "with", "and", "or", "for", "each", "every",
    "request", "summary", "format", "style", "guide", "team", "release", "version", "schema",
    "field", "value", "error", "warning", "result", "source", "target", "folder", "template",
)  # fmt: skip
_TOOLS = ("Bash(git:*)", "Read", "Write", "Edit", "Grep", "Glob", "WebFetch", "Bash(python:*)")
_LICENSES = ("Apache-2.0", "MIT", "Proprietary. LICENSE.txt has complete terms", "BSD-3-Clause")
_LANGS = ("bash", "python", "json", "yaml", "text")


def _sentence(rng: random.Random, lo: int = 6, hi: int = 16) -> str:
    words = [rng.choice(_WORDS) for _ in range(rng.randint(lo, hi))]
    return " ".join(words).capitalize() + "."


def _description(rng: random.Random, verb: str, noun: str) -> str:
    target = rng.randint(50, 900)
    text = f"{verb.capitalize()}s {noun} for the user. Use when the user asks to {verb} {noun}."
    while len(text) < target:
        text += " " + _sentence(rng)
    text = text[:target].rstrip()
    return text if len(text) >= 50 else text + " " + "x" * (50 - len(text))


def _yaml_str(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _code_block(rng: random.Random) -> list[str]:
    lang = rng.choice(_LANGS)
    body = [f"    step_{i} = run('{rng.choice(_WORDS)}')" for i in range(rng.randint(2, 8))]
    return [f"```{lang}", *body, "```"]


def _body(rng: random.Random, title: str, refs: list[str], scripts: list[str]) -> str:
    target = rng.randint(20, 400)
    lines = [f"# {title}", "", _sentence(rng, 10, 24), ""]
    section = 0
    while len(lines) < target:
        section += 1
        lines += [f"## Step {section}: {_sentence(rng, 2, 5)[:-1]}", ""]
        kind = rng.random()
        if kind < 0.3:
            lines += _code_block(rng)
        elif kind < 0.6:
            lines += [f"- {_sentence(rng, 3, 10)}" for _ in range(rng.randint(2, 7))]
        else:
            lines += [_sentence(rng, 8, 30) for _ in range(rng.randint(1, 4))]
        if refs and rng.random() < 0.4:
            ref = rng.choice(refs)
            lines.append(f"See [{Path(ref).stem}]({ref}) for details.")
        if scripts and rng.random() < 0.2:
            lines.append(f"Run `python {rng.choice(scripts)}` and check the [output](#step-1).")
        lines.append("")
    return "\n".join(lines[:target]) + "\n"


def make_skill(folder: Path, rng: random.Random, verb: str, noun: str) -> None:
    """Write one complete skill into `folder` (whose name is the skill's name)."""
    name = folder.name
    folder.mkdir(parents=True)
    refs = [f"references/{rng.choice(_NOUNS)}-{i}.md" for i in range(rng.choice((0, 1, 1, 2, 3)))]
    scripts = [f"scripts/{verb}_{i}.py" for i in range(rng.choice((0, 0, 1, 2)))]
    for rel in refs + scripts:
        path = folder / rel
        path.parent.mkdir(exist_ok=True)
        if rel.endswith(".md"):
            path.write_text(f"# {Path(rel).stem}\n\n{_sentence(rng, 20, 60)}\n", encoding="utf-8")
        else:
            path.write_text(f'print("{verb} {noun}")\n', encoding="utf-8")
    fm = [f"name: {name}", f"description: {_yaml_str(_description(rng, verb, noun))}"]
    if rng.random() < 0.4:
        fm.append(f"license: {rng.choice(_LICENSES)}")
    if rng.random() < 0.15:
        fm.append("compatibility: Requires Python 3.10+ and network access")
    if rng.random() < 0.35:
        fm += [
            "metadata:",
            f'  author: "{rng.choice(_WORDS)}-team"',
            f'  version: "1.{rng.randint(0, 9)}"',
        ]
    if rng.random() < 0.3:
        fm.append("allowed-tools: " + " ".join(rng.sample(_TOOLS, rng.randint(1, 4))))
    title = f"{verb.capitalize()} {noun}"
    text = "---\n" + "\n".join(fm) + "\n---\n\n" + _body(rng, title, refs, scripts)
    (folder / "SKILL.md").write_text(text, encoding="utf-8")


def generate(out_dir: str | os.PathLike[str], n: int, seed: int = 1) -> list[Path]:
    """Generate `n` skills directly under `out_dir` (a skills root); return their folders."""
    rng = random.Random(seed)
    root = Path(out_dir)
    root.mkdir(parents=True, exist_ok=True)
    made: list[Path] = []
    used: set[str] = set()
    for i in range(n):
        verb, noun = rng.choice(_VERBS), rng.choice(_NOUNS)
        name = f"{verb}-{noun}"
        if name in used:
            name = f"{name}-{i}"
        used.add(name)
        folder = root / name
        make_skill(folder, rng, verb, noun)
        made.append(folder)
    return made


_PLUGIN_JSON = '{{"name": "{name}", "version": "1.{minor}.0", "description": "{description}"}}\n'


def generate_repository(
    out_dir: str | os.PathLike[str], n: int, seed: int = 1, large: int = 4, large_files: int = 2000
) -> list[Path]:
    """Generate `n` skills laid out like a real repository of skills (`out_dir` is its top):
    plugins (`plugins/<p>/.claude-plugin/plugin.json` with `skills/`), nested collections
    (`skills/<category>/<name>`), a project's `.claude/skills`, bare skill folders at the top,
    and `large` skills with `large_files` reference files each. Return the skill folders."""
    rng = random.Random(seed)
    top = Path(out_dir)
    top.mkdir(parents=True, exist_ok=True)
    made: list[Path] = []
    used: set[str] = set()

    def name_for(i: int) -> tuple[str, str, str]:
        verb, noun = rng.choice(_VERBS), rng.choice(_NOUNS)
        name = f"{verb}-{noun}"
        if name in used:
            name = f"{name}-{i}"
        used.add(name)
        return name, verb, noun

    plugin_count = 0
    i = 0
    while i < n:
        kind = rng.random()
        if kind < 0.45:  # a plugin of 5-40 skills
            plugin_count += 1
            plugin = top / "plugins" / f"{rng.choice(_NOUNS)}-tools-{plugin_count}"
            (plugin / ".claude-plugin").mkdir(parents=True)
            (plugin / ".claude-plugin" / "plugin.json").write_text(
                _PLUGIN_JSON.format(
                    name=plugin.name, minor=rng.randint(0, 9), description=_sentence(rng)
                ),
                encoding="utf-8",
            )
            folder_of = lambda name, plugin=plugin: plugin / "skills" / name  # noqa: E731
            count = rng.randint(5, 40)
        elif kind < 0.8:  # a category of a nested collection
            category = top / "skills" / f"{rng.choice(_NOUNS)}-{rng.randint(1, 99)}"
            folder_of = lambda name, category=category: category / name  # noqa: E731
            count = rng.randint(5, 60)
        elif kind < 0.93:  # the repository's own project skills
            folder_of = lambda name: top / ".claude" / "skills" / name  # noqa: E731
            count = rng.randint(1, 10)
        else:  # bare skill folders at the top
            folder_of = lambda name: top / name  # noqa: E731
            count = rng.randint(1, 5)
        for _ in range(min(count, n - i)):
            name, verb, noun = name_for(i)
            folder = folder_of(name)
            make_skill(folder, rng, verb, noun)
            made.append(folder)
            i += 1
    for folder in rng.sample(made, min(large, len(made))):
        refs = folder / "references" / "bulk"
        refs.mkdir(parents=True, exist_ok=True)
        for k in range(large_files):
            (refs / f"part-{k:05}.md").write_text(f"# Part {k}\n\n{_sentence(rng)}\n")
    return made


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out_dir")
    parser.add_argument("-n", type=int, default=5000, help="number of skills (default 5000)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--repository",
        action="store_true",
        help="lay the skills out like a repository (plugins, collections, large skills)",
    )
    args = parser.parse_args(argv)
    make = generate_repository if args.repository else generate
    made = make(args.out_dir, args.n, args.seed)
    print(f"generated {len(made)} skills in {args.out_dir}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
