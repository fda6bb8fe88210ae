"""Fixture trees that hunt for divergence between a runtime and its Skill Prism profile.

A `Case` is data only: SKILL.md files (bytes), folders and symlinks, each placed under a *root
selector* (`project`, `user`, every project root, a literal root template, ...). `materialize`
lays one case out for one runtime in a fresh temporary tree, using that runtime's profile
`[[roots]]` with HOME and the project set to folders of the tree:

    <base>/home/              HOME (and the XDG folders below it)
    <base>/repo/.git/         the repository root (an empty repository, as `git init` leaves it)
    <base>/repo/              the project, or <base>/repo/sub/proj for cases with nested=True
    <base>/outside/           targets of links that leave the roots

Every case has an id; its folders and skill names start with it, so a divergence is reported as
"case X, file Y". Nothing in a fixture is ever executed: the runtimes only read the files.

`python -m conformance.fixtures --list` prints the cases; `--write DIR --profile NAME` lays them
out for inspection; `--seed N --count K` adds K seeded random cases (mutated real-looking skills).
"""

from __future__ import annotations

import argparse
import os
import random
import re
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from skillprism.core.profiles import Profile, load_profile, load_profile_file
from skillprism.core.roots import expand_template

REPO = Path(__file__).resolve().parent.parent
SHIPPED_PROFILES = REPO / "resources" / "profiles"

# --- the data model ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Entry:
    """One thing placed in a tree: a file (`content`), a symlink (`link`) or an empty folder."""

    root: str  # root selector, see `_root_dirs`
    rel: str  # path below the root, '/'-separated
    content: bytes | None = None
    link: str | None = None  # symlink target: relative to the link's folder, or '@/x' = <base>/x
    folder: bool = False
    candidate: bool = True  # a file a runtime might load as a skill (counted in the agreement)


@dataclass(frozen=True)
class Case:
    id: str
    group: str  # framing, yaml, fields, names, discovery, clash, roots, budget, tier1, random
    entries: tuple[Entry, ...]
    note: str = ""
    quick: bool = True  # part of `run.py --quick`
    clash: bool = False  # needs a runtime that resolves clashes
    nested: bool = False  # the project is a sub-folder of the repository
    env: tuple[tuple[str, str], ...] = ()  # extra environment for the runtime and the profile


@dataclass(frozen=True)
class Candidate:
    """A path in a laid-out tree that a runtime might report as a skill file."""

    case: str
    path: str  # absolute, as placed (or as reached through a placed symlink)
    rel: str  # for display: <root label>/<rel>


@dataclass
class Tree:
    case: Case
    base: str
    home: str
    project: str
    env: dict[str, str]
    candidates: list[Candidate] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # entries whose root the runtime lacks

    def job(self) -> dict:
        return {"home": self.home, "project": self.project, "cwd": self.project, "env": self.env}


def shipped_profile(name: str) -> Profile:
    """A profile from this checkout's resources/profiles (never the user's config folder)."""
    path = SHIPPED_PROFILES / f"{name}.toml"
    return load_profile_file(path) if path.is_file() else load_profile(name)


# --- building SKILL.md texts ------------------------------------------------------------------

BODY = "# Instructions\n\nDo the task step by step.\n"


def fm(
    *lines: str, body: str = BODY, nl: str = "\n", opener: str = "---", closer: str = "---"
) -> bytes:
    """A SKILL.md with the given frontmatter lines."""
    text = nl.join([opener, *lines, closer]) + nl + body.replace("\n", nl)
    return text.encode("utf-8")


def basic(name: str, description: str | None = None, *extra: str) -> bytes:
    lines = [f"name: {name}"]
    lines.append(f"description: {description or f'Use for the {name} case.'}")
    return fm(*lines, *extra)


def one(
    case_id: str, content: bytes, group: str, note: str = "", root: str = "project", **kw
) -> Case:
    """A case with one skill folder named after the case."""
    return Case(case_id, group, (Entry(root, f"{case_id}/SKILL.md", content),), note, **kw)


# --- the catalogue ----------------------------------------------------------------------------


def _framing() -> list[Case]:
    g = "framing"
    ok = "description: Use for the framing case."
    cases = [
        one("fm-basic", basic("fm-basic"), g, "a plain, valid skill"),
        one("fm-bom", b"\xef\xbb\xbf" + basic("fm-bom"), g, "UTF-8 byte-order mark before ---"),
        one("fm-blank-first", b"\n" + basic("fm-blank-first"), g, "a blank line before ---"),
        one("fm-space-first", b" " + basic("fm-space-first"), g, "a space before ---"),
        one("fm-crlf", fm("name: fm-crlf", ok, nl="\r\n"), g, "CRLF line ends"),
        one("fm-cr", fm("name: fm-cr", ok, nl="\r"), g, "bare CR line ends"),
        one(
            "fm-crlf-mixed",
            b"---\r\nname: fm-crlf-mixed\ndescription: Mixed line ends.\r\n---\n" + BODY.encode(),
            g,
            "CRLF and LF mixed",
        ),
        one(
            "fm-unclosed",
            b"---\nname: fm-unclosed\ndescription: Never closed.\n\n" + BODY.encode(),
            g,
            "no closing ---",
        ),
        one(
            "fm-unclosed-eof",
            b"---\nname: fm-unclosed-eof\ndescription: Never closed, nothing after.\n",
            g,
            "no closing ---, and nothing but YAML to the end of the file",
        ),
        one("fm-closer-5", fm("name: fm-closer-5", ok, closer="-----"), g, "----- closes"),
        one("fm-closer-space", fm("name: fm-closer-space", ok, closer="--- "), g, "'--- ' closes"),
        one("fm-closer-text", fm("name: fm-closer-text", ok, closer="---x"), g, "'---x' closes"),
        one("fm-opener-4", fm("name: fm-opener-4", ok, opener="----"), g, "---- opens"),
        one("fm-opener-space", fm("name: fm-opener-space", ok, opener="--- "), g, "'--- ' opens"),
        one("fm-closer-dots", fm("name: fm-closer-dots", ok, closer="..."), g, "YAML '...' ends"),
        one(
            "fm-closer-eof",
            b"---\nname: fm-closer-eof\ndescription: Closer at end of file.\n---",
            g,
            "closing --- is the last line, no newline",
        ),
        one("fm-empty-file", b"", g, "an empty SKILL.md"),
        one("fm-empty-fm", b"---\n---\n" + BODY.encode(), g, "empty frontmatter"),
        one("fm-no-fm", b"# fm-no-fm\n\nFirst paragraph of the body.\n", g, "no frontmatter"),
        one(
            "fm-only-fm",
            b"---\nname: fm-only-fm\ndescription: Frontmatter and no body.\n---\n",
            g,
            "no body",
        ),
        one(
            "fm-html-comment",
            b"<!-- generated -->\n" + basic("fm-html-comment"),
            g,
            "an HTML comment before ---",
        ),
        one(
            "fm-dashes-value",
            fm("name: fm-dashes-value", "description: Split --- here and --- there."),
            g,
            "--- inside a value",
        ),
        one(
            "fm-dashes-block",
            fm("name: fm-dashes-block", "description: |", "  first line", "---", "  after"),
            g,
            "a --- line inside a block scalar ends the frontmatter early",
        ),
        one(
            "fm-dashes-body",
            fm("name: fm-dashes-body", ok, body="---\n\nmore\n\n---\n\nend\n"),
            g,
            "--- lines in the body",
        ),
        one(
            "fm-two-docs",
            b"---\nname: fm-two-docs\ndescription: First.\n---\nname: other\n---\n" + BODY.encode(),
            g,
            "a second frontmatter-like block",
        ),
        one(
            "fm-latin1",
            basic("fm-latin1", "Caf\xe9 order.").replace(b"\xc3\xa9", b"\xe9"),
            g,
            "invalid UTF-8",
        ),
        one("fm-nul", basic("fm-nul", "Has a NUL \x00 byte."), g, "a NUL character in a value"),
        one(
            "fm-indented-fm",
            b"---\n  name: fm-indented-fm\n  description: Indented keys.\n---\n" + BODY.encode(),
            g,
            "the whole mapping indented",
        ),
    ]
    return cases


def _yaml() -> list[Case]:
    g = "yaml"
    n = lambda cid: f"name: {cid}"  # noqa: E731
    specs: list[tuple[str, list[str], str]] = [
        ("y-colon", ["description: Use when: the user asks"], "unquoted ': ' in a value"),
        ("y-colon-end", ["description: Ends with a colon:"], "value ending in ':'"),
        ("y-hash", ["description: Uses C# and F# # a comment"], "' #' starts a comment"),
        ("y-tab-indent", ["description: >", "\tfolded with a tab"], "tab indentation"),
        ("y-tab-after", ["description:\tTab after the colon."], "tab after the colon"),
        (
            "y-tab-indent-map",
            ["description: A tab-indented key follows.", "metadata:", "\tauthor: lab"],
            "a nested key indented with a tab",
        ),
        ("y-dup-name", ["name: y-dup-other", "description: Duplicate name key."], "name twice"),
        ("y-dup-desc", ["description: First.", "description: Second."], "description twice"),
        ("y-anchor", ["x: &d Anchored text.", "description: *d"], "anchor and alias"),
        ("y-merge", ["base: &b {description: Merged.}", "<<: *b"], "merge key"),
        ("y-flow-map", ["description: Flow map.", "metadata: {a: 1, b: two}"], "flow mapping"),
        ("y-flow-seq-desc", ["description: [one, two]"], "description is a list"),
        ("y-block-seq-desc", ["description:", "  - one", "  - two"], "description is a list"),
        ("y-map-desc", ["description:", "  text: nested"], "description is a mapping"),
        ("y-bool-desc", ["description: true"], "description is a boolean"),
        ("y-yes-desc", ["description: yes"], "'yes' (a boolean in YAML 1.1)"),
        ("y-num-desc", ["description: 42"], "description is a number"),
        ("y-null-desc", ["description:"], "description is null"),
        ("y-tilde-desc", ["description: ~"], "description is ~ (null)"),
        ("y-empty-desc", ['description: ""'], "description is empty"),
        ("y-blank-desc", ['description: "   "'], "description is blanks"),
        ("y-date-desc", ["description: 2024-01-02"], "description is a date"),
        ("y-folded", ["description: >", "  Folded line one", "  and line two."], "folded block"),
        ("y-folded-strip", ["description: >-", "  Folded, stripped."], "folded, strip chomping"),
        (
            "y-literal",
            ["description: |", "  Literal one", "  Literal two"],
            "literal block keeps \\n",
        ),
        (
            "y-literal-keep",
            ["description: |+", "  Keep trailing", "", ""],
            "literal, keep chomping",
        ),
        ("y-plain-multi", ["description: Plain line one", "  continues here."], "multi-line plain"),
        ("y-single-q", ["description: 'It''s quoted.'"], "single quotes with ''"),
        ("y-double-q", ['description: "Tab\\tand\\nnewline."'], "double-quote escapes"),
        ("y-pad-q", ['description: "  padded  "'], "quoted edge spaces"),
        ("y-trailing-sp", ["description: Trailing spaces.   "], "plain value with trailing spaces"),
        ("y-unterminated", ['description: "never closed'], "unterminated quote"),
        ("y-bad-indent", ["description: A.", "  extra: b"], "bad indentation"),
        ("y-seq-fm", ["- a", "- b"], "frontmatter is a list"),
        ("y-scalar-fm", ["just some text"], "frontmatter is a scalar"),
        ("y-key-case", ["Description: Capital D."], "Description with a capital"),
        ("y-unicode", ["description: Überprüfe Daten — schnell ✓ 日本語"], "non-ASCII"),
        ("y-emoji", ["description: Ship it 🚀 fast"], "emoji"),
        ("y-escape-chars", ["description: 'Use <b> & \"q\" it''s'"], "XML specials & < > \" '"),
        ("y-directive", ["%YAML 1.2", "---", "description: After a directive."], "directive"),
        ("y-tag-str", ["description: !!str 123"], "explicit !!str tag"),
        ("y-long-key", ["? description", ": Complex key form."], "explicit '?' key"),
    ]
    cases = []
    for cid, lines, note in specs:
        head = [] if cid in ("y-seq-fm", "y-scalar-fm", "y-directive", "y-merge") else [n(cid)]
        if cid == "y-merge":
            head = [n(cid)]
        if cid == "y-directive":
            content = (
                "---\n%YAML 1.2\n---\nname: y-directive\n" + "description: After.\n---\n" + BODY
            ).encode()
            cases.append(one(cid, content, g, note))
            continue
        cases.append(one(cid, fm(*head, *lines), g, note))
    return cases


def _names() -> list[Case]:
    g = "names"
    d = "description: Use for the names case."
    specs: list[tuple[str, list[str], str]] = [
        ("n-missing", [d], "no name: folder name or skipped"),
        ("n-empty", ['name: ""', d], "empty name"),
        ("n-blank", ['name: "   "', d], "blank name"),
        ("n-null", ["name:", d], "null name"),
        ("n-number", ["name: 12345", d], "numeric name"),
        ("n-bool", ["name: true", d], "boolean name"),
        ("n-list", ["name: [n-list]", d], "list name"),
        ("n-upper", ["name: N-Upper", d], "uppercase"),
        ("n-space", ["name: n space name", d], "spaces"),
        ("n-colon", ['name: "n-colon:sub"', d], "colon (Gemini CLI sanitises)"),
        ("n-slash", ['name: "n-slash/sub"', d], "slash"),
        ("n-chars", ['name: "n-chars<>*?|\\\\"', d], "characters Gemini CLI sanitises"),
        ("n-unicode", ["name: n-ünïcödé", d], "Unicode letters"),
        ("n-double-hyphen", ["name: n--double", d], "double hyphen"),
        ("n-lead-hyphen", ["name: -n-lead", d], "leading hyphen"),
        ("n-mismatch", ["name: n-other-name", d], "name differs from folder"),
        ("n-padded", ['name: "  n-padded  "', d], "edge spaces in name"),
        ("n-64", ["name: n-64-" + "a" * 59, d], "64 characters"),
        ("n-65", ["name: n-65-" + "a" * 60, d], "65 characters"),
        ("n-xml", ['name: "n-xml&<tag>"', d], "XML specials in name"),
        ("d-1024", ["name: d-1024", "description: " + "d" * 1024], "description of 1024"),
        ("d-1025", ["name: d-1025", "description: " + "d" * 1025], "description of 1025"),
        ("d-missing", ["name: d-missing"], "no description"),
        (
            "d-newline-end",
            ["name: d-newline-end", 'description: "Ends with a newline\\n"'],
            "trailing \\n",
        ),
        (
            "d-inner-ws",
            ["name: d-inner-ws", 'description: "Two  spaces\\tand tab"'],
            "inner whitespace",
        ),
        ("dmi-true", ["name: dmi-true", d, "disable-model-invocation: true"], "hidden from tier 1"),
        ("dmi-string", ["name: dmi-string", d, 'disable-model-invocation: "true"'], "as a string"),
        ("dmi-camel", ["name: dmi-camel", d, "disableModelInvocation: true"], "camelCase key"),
        ("f-hide", ["name: f-hide", d, "hide: true"], "oh-my-pi's hide"),
        ("f-enabled-false", ["name: f-enabled-false", d, "enabled: false"], "enabled: false"),
        ("f-unknown", ["name: f-unknown", d, "colour: blue", "x-custom: 1"], "unknown keys"),
        (
            "f-metadata",
            ["name: f-metadata", d, "metadata:", "  version: 1", "  tags: [a]"],
            "metadata",
        ),
        ("f-when", ["name: f-when", d, "when_to_use: When testing."], "when_to_use"),
    ]
    return [one(cid, fm(*lines), g, note) for cid, lines, note in specs]


def _discovery() -> list[Case]:
    g = "discovery"
    cases = [
        Case(
            "disc-depth0",
            g,
            (Entry("project", "SKILL.md", basic("disc-depth0")),),
            "SKILL.md directly in a root",
        ),
        Case(
            "disc-root-md",
            g,
            (
                Entry("project", "disc-root-md.md", basic("disc-root-md")),
                Entry("project", "disc-root-md-ok/SKILL.md", basic("disc-root-md-ok")),
            ),
            "another .md file directly in a root",
        ),
        Case(
            "disc-lower",
            g,
            (Entry("project", "disc-lower/skill.md", basic("disc-lower")),),
            "skill.md in lower case",
        ),
        Case(
            "disc-upper-ext",
            g,
            (Entry("project", "disc-upper-ext/SKILL.MD", basic("disc-upper-ext")),),
            "SKILL.MD",
        ),
        Case(
            "disc-hidden",
            g,
            (Entry("project", ".disc-hidden/SKILL.md", basic("disc-hidden")),),
            "hidden folder",
        ),
        Case(
            "disc-hidden-every",
            g,
            (
                Entry(
                    "project*",
                    ".disc-hidden-every/SKILL.md",
                    basic("disc-hidden-every", "In {root}."),
                ),
            ),
            "a hidden folder in every project root (a runtime may skip it in some roots only)",
            clash=True,
        ),
        Case(
            "disc-hidden-parent",
            g,
            (Entry("project", ".group/disc-hidden-parent/SKILL.md", basic("disc-hidden-parent")),),
            "inside a hidden folder",
        ),
        Case(
            "disc-node-modules",
            g,
            (
                Entry(
                    "project", "node_modules/disc-node-modules/SKILL.md", basic("disc-node-modules")
                ),
            ),
            "inside node_modules",
        ),
        Case(
            "disc-git-dir",
            g,
            (Entry("project", ".git/disc-git-dir/SKILL.md", basic("disc-git-dir")),),
            "inside .git",
        ),
        Case(
            "disc-nested",
            g,
            (
                Entry("project", "disc-nested/SKILL.md", basic("disc-nested")),
                Entry("project", "disc-nested/inner/SKILL.md", basic("disc-nested-inner")),
            ),
            "a skill inside a skill",
        ),
        Case(
            "disc-skill-dir",
            g,
            (Entry("project", "disc-skill-dir/SKILL.md", folder=True, candidate=False),),
            "SKILL.md is a folder",
        ),
        Case(
            "disc-space-dir",
            g,
            (Entry("project", "disc space dir/SKILL.md", basic("disc-space-dir")),),
            "a space in the folder name",
        ),
        Case(
            "disc-special-dir",
            g,
            (Entry("project", "disc-&'special/SKILL.md", basic("disc-special-dir")),),
            "& and ' in the folder name (the location)",
        ),
        Case(
            "disc-gitignore",
            g,
            (
                Entry("project", ".gitignore", b"disc-gitignore-ignored/\n", candidate=False),
                Entry(
                    "project", "disc-gitignore-ignored/SKILL.md", basic("disc-gitignore-ignored")
                ),
                Entry("project", "disc-gitignore-kept/SKILL.md", basic("disc-gitignore-kept")),
            ),
            ".gitignore in a root",
        ),
        Case(
            "disc-resources",
            g,
            (
                Entry("project", "disc-resources/SKILL.md", basic("disc-resources")),
                Entry("project", "disc-resources/references/guide.md", basic("disc-resources-ref")),
                Entry("project", "disc-resources/README.md", b"# readme\n"),
            ),
            "other .md files inside a skill folder",
        ),
    ]
    for depth in range(2, 9):
        parts = "/".join(f"l{i}" for i in range(1, depth))
        cid = f"disc-depth{depth}"
        cases.append(
            Case(
                cid,
                g,
                (Entry("project", f"{cid}/{parts}/SKILL.md", basic(cid)),),
                f"{depth} levels down",
            )
        )
    cases += [
        Case(
            "link-alias",
            g,
            (
                Entry("project", "link-alias/SKILL.md", basic("link-alias")),
                Entry("project", "link-alias-2", link="link-alias"),
            ),
            "a symlinked folder: same file twice",
            clash=True,
        ),
        Case(
            "link-file",
            g,
            (
                Entry("tree", "outside/link-file-real.md", basic("link-file"), candidate=False),
                Entry("project", "link-file/SKILL.md", link="@/outside/link-file-real.md"),
            ),
            "SKILL.md is a symlink to a file outside the root",
        ),
        Case(
            "link-outside",
            g,
            (
                Entry(
                    "tree", "outside/link-outside/SKILL.md", basic("link-outside"), candidate=False
                ),
                Entry("project", "link-outside", link="@/outside/link-outside"),
            ),
            "a symlinked folder outside the root",
        ),
        Case(
            "link-dangling",
            g,
            (
                Entry("project", "link-dangling", link="does-not-exist"),
                Entry("project", "link-dangling-ok/SKILL.md", basic("link-dangling-ok")),
            ),
            "a dangling link next to a skill",
        ),
        Case(
            "link-loop",
            g,
            (
                Entry("project", "link-loop/SKILL.md", basic("link-loop")),
                Entry("project", "link-loop/again", link=".."),
                Entry("project", "link-loop-b/loop", link="../link-loop-b"),
                Entry("project", "link-loop-b/x/SKILL.md", basic("link-loop-b")),
            ),
            "symlink loops",
            clash=True,
        ),
    ]
    return cases


def _clashes() -> list[Case]:
    g = "clash"

    def sk(name: str, desc: str) -> bytes:
        return fm(f"name: {name}", f"description: {desc}")

    return [
        Case(
            "clash-all-roots",
            g,
            (
                Entry(
                    "project*", "clash-all-roots/SKILL.md", sk("clash-all-roots", "Copy in {root}.")
                ),
                Entry(
                    "user*", "clash-all-roots/SKILL.md", sk("clash-all-roots", "Copy in {root}.")
                ),
            ),
            "the same name in every root",
            clash=True,
        ),
        Case(
            "clash-project-user",
            g,
            (
                Entry(
                    "project",
                    "clash-project-user/SKILL.md",
                    sk("clash-project-user", "Project copy."),
                ),
                Entry(
                    "user", "clash-project-user/SKILL.md", sk("clash-project-user", "User copy.")
                ),
            ),
            "project against personal",
            clash=True,
        ),
        Case(
            "clash-in-root",
            g,
            (
                Entry("project", "clash-in-root-b/SKILL.md", sk("clash-in-root", "Folder b.")),
                Entry("project", "clash-in-root-a/SKILL.md", sk("clash-in-root", "Folder a.")),
                Entry("project", "clash-in-root-C/SKILL.md", sk("clash-in-root", "Folder C.")),
            ),
            "one name in three folders of one root (in-root order)",
            clash=True,
        ),
        Case(
            "clash-dir-vs-name",
            g,
            (
                Entry(
                    "project", "clash-dir-vs-name/SKILL.md", fm("description: Named by its folder.")
                ),
                Entry("project", "clash-dir-vs-name-z/SKILL.md", sk("clash-dir-vs-name", "Named.")),
            ),
            "a folder-named skill against a frontmatter name",
            clash=True,
        ),
        Case(
            "clash-sanitized",
            g,
            (
                Entry("project", "clash-sanitized-a/SKILL.md", sk('"clash-san:x"', "Colon.")),
                Entry("project", "clash-sanitized-b/SKILL.md", sk("clash-san-x", "Hyphen.")),
            ),
            "names equal after Gemini CLI's sanitising",
            clash=True,
        ),
        Case(
            "clash-case",
            g,
            (
                Entry("project", "clash-case-a/SKILL.md", sk("Clash-Case", "Capitals.")),
                Entry("project", "clash-case-b/SKILL.md", sk("clash-case", "Lower case.")),
            ),
            "names differing in case only",
            clash=True,
        ),
        Case(
            "clash-ancestors",
            g,
            (
                Entry(
                    "project@repo",
                    "clash-ancestors/SKILL.md",
                    sk("clash-ancestors", "Repository root."),
                ),
                Entry("project", "clash-ancestors/SKILL.md", sk("clash-ancestors", "Sub-folder.")),
            ),
            "the project is a sub-folder: its copy against the repository root's",
            clash=True,
            nested=True,
        ),
        Case(
            "clash-depth",
            g,
            (
                Entry("project", "clash-depth/SKILL.md", sk("clash-depth", "Shallow.")),
                Entry("project", "a-group/clash-depth/SKILL.md", sk("clash-depth", "Deep.")),
            ),
            "one name at two depths of one root",
            clash=True,
        ),
    ]


def known_root_templates() -> list[str]:
    """Every root template of every shipped profile, plus roots other runtimes are known to read."""
    extra = [
        "{project}/.pi/skills",
        "~/.pi/agent/skills",
        "{project}/.omp/skills",
        "~/.omp/agent/skills",
        "{project}/.claude/skills",
        "~/.claude/skills",
        "{project}/.codex/skills",
        "~/.codex/skills",
        "{project}/.agents/skills",
        "~/.agents/skills",
        "{project}/.agent/skills",
        "~/.agent/skills",
        "{project}/.gemini/skills",
        "~/.gemini/skills",
        "{project}/.github/skills",
        "~/.copilot/skills",
        "{project}/.cursor/skills",
        "~/.cursor/skills",
        "{project}/.opencode/skills",
        "{project}/.opencode/skill",
        "~/.config/opencode/skills",
        "{project}/.windsurf/skills",
        "{project}/skills",
    ]
    seen: dict[str, None] = {}
    for f in sorted(SHIPPED_PROFILES.glob("*.toml")):
        try:
            prof = load_profile_file(f)
        except Exception:
            continue
        for r in prof.roots:
            if not r.builtin:  # the runtime's own folder (its install, or written by it)
                seen.setdefault(r.path, None)
    for t in extra:
        seen.setdefault(t, None)
    return [t for t in seen if _placeable(t)]


def _placeable(template: str) -> bool:
    """A root inside the tree: below the project or the home folder (an {env:} root only when its
    default is)."""
    head = template.split("/", 1)[0]
    return head in ("~", "{home}", "{project}") or (head.startswith("{env:") and ":~" in head)


def _slug(template: str) -> str:
    s = template.replace("{project}", "p").replace("~", "h").replace("{home}", "h")
    s = re.sub(r"\{env:[^}]*\}", "env", s)
    return re.sub(r"[^a-z0-9]+", "-", s.lower()).strip("-")


def _roots_probe() -> list[Case]:
    entries = []
    for t in known_root_templates():
        name = f"probe-{_slug(t)}"[:64].rstrip("-")
        entries.append(Entry(f"abs:{t}", f"{name}/SKILL.md", basic(name, f"Probe for {t}.")))
    return [
        Case(
            "roots-probe",
            "roots",
            tuple(entries),
            "one skill in every root any runtime is known to read",
        )
    ]


def _budget() -> list[Case]:
    many = tuple(
        Entry(
            "project",
            f"budget-many-{i:03d}/SKILL.md",
            basic(f"budget-many-{i:03d}", f"Skill number {i} of many."),
        )
        for i in range(300)
    )
    long_desc = " ".join(["Handles the long description case with many words."] * 30)  # ~1,500
    longs = tuple(
        Entry("project", f"budget-long-{i:02d}/SKILL.md", basic(f"budget-long-{i:02d}", long_desc))
        for i in range(12)
    )
    return [
        Case("budget-many", "budget", many, "300 skills", quick=False),
        Case("budget-long", "budget", longs, "12 skills with ~1,500-character descriptions"),
        one(
            "budget-huge",
            basic("budget-huge", "x" * 6000),
            "budget",
            "one 6,000-character description",
        ),
    ]


def _tier1() -> list[Case]:
    g = "tier1"
    return [
        Case("t1-empty", g, (), "no skills at all"),
        Case(
            "t1-order",
            g,
            (
                Entry("project", "t1-order-1/SKILL.md", basic("t1-order-zeta")),
                Entry("project", "t1-order-2/SKILL.md", basic("t1-order-Alpha")),
                Entry("project", "t1-order-3/SKILL.md", basic("t1-order-beta")),
                Entry("user", "t1-order-0/SKILL.md", basic("t1-order-aaa")),
            ),
            "listing order: folder order against name order, project against personal",
        ),
        Case(
            "t1-escape",
            g,
            (
                Entry(
                    "project",
                    "t1-escape/SKILL.md",
                    fm("name: t1-escape", "description: 'A & B <c> \"d\" it''s'"),
                ),
            ),
            "what the listing escapes",
        ),
        Case(
            "t1-multiline",
            g,
            (
                Entry(
                    "project",
                    "t1-multiline/SKILL.md",
                    fm("name: t1-multiline", "description: |", "  One", "  Two"),
                ),
            ),
            "a description with line breaks in the listing",
        ),
        Case(
            "t1-dmi",
            g,
            (
                Entry(
                    "project",
                    "t1-dmi-a/SKILL.md",
                    basic("t1-dmi-a", None, "disable-model-invocation: true"),
                ),
                Entry("project", "t1-dmi-b/SKILL.md", basic("t1-dmi-b")),
            ),
            "one skill left out of the listing",
        ),
        Case(
            "t1-only-dmi",
            g,
            (
                Entry(
                    "project",
                    "t1-only-dmi/SKILL.md",
                    basic("t1-only-dmi", None, "disable-model-invocation: true"),
                ),
            ),
            "every skill left out of the listing",
        ),
    ]


def catalogue() -> list[Case]:
    """Every fixed case, in report order."""
    cases = [
        *_framing(),
        *_yaml(),
        *_names(),
        *_discovery(),
        *_clashes(),
        *_roots_probe(),
        *_budget(),
        *_tier1(),
    ]
    ids = [c.id for c in cases]
    dup = {i for i in ids if ids.count(i) > 1}
    assert not dup, f"duplicate case ids: {dup}"
    return cases


# --- the seeded random mode -------------------------------------------------------------------

REAL_SKILLS = [
    (
        "pdf-processing",
        "Extract text and tables from PDF files, fill forms, merge documents. Use when working with PDFs.",
        "license: Apache-2.0",
    ),
    (
        "git-commit-helper",
        "Writes commit messages: summarises the staged diff in the imperative mood.",
        "allowed-tools: Bash(git:*) Read",
    ),
    (
        "api-docs",
        "Generate API reference pages from OpenAPI specs (v3.0 and v3.1).",
        'metadata:\n  author: docs-team\n  version: "1.2"',
    ),
    (
        "test-runner",
        "Runs the project's tests and explains failures.",
        "compatibility: Requires Python 3.11+",
    ),
]


Mutation = Callable[[dict[str, str]], dict[str, str]]


def _mutations() -> list[tuple[str, Mutation]]:
    """Named edits of a skill's state (its text, name, path below the root and root)."""

    def text_op(fn: Callable[[str], str]) -> Mutation:
        return lambda s: {**s, "text": fn(s["text"])}

    return [
        ("bom", text_op(lambda t: "\ufeff" + t)),
        ("crlf", text_op(lambda t: t.replace("\n", "\r\n"))),
        ("blank-first", text_op(lambda t: "\n" + t)),
        ("closer-5", text_op(lambda t: t.replace("\n---\n", "\n-----\n", 1))),
        ("unclosed", text_op(lambda t: t.replace("\n---\n", "\n\n", 1))),
        (
            "colon",
            text_op(lambda t: re.sub(r"description: (.*)", r"description: Note: \1", t, count=1)),
        ),
        (
            "quote-single",
            text_op(
                lambda t: re.sub(
                    r"description: (.*)",
                    lambda m: "description: '" + m.group(1).replace("'", "''") + "'",
                    t,
                    count=1,
                )
            ),
        ),
        (
            "quote-double",
            text_op(
                lambda t: re.sub(
                    r"description: (.*)",
                    lambda m: 'description: "' + m.group(1).replace('"', '\\"') + '  "',
                    t,
                    count=1,
                )
            ),
        ),
        (
            "folded",
            text_op(
                lambda t: re.sub(r"description: (.*)", r"description: >\n  \1\n  More.", t, count=1)
            ),
        ),
        (
            "literal",
            text_op(
                lambda t: re.sub(r"description: (.*)", r"description: |\n  \1\n  More.", t, count=1)
            ),
        ),
        ("trailing-space", text_op(lambda t: re.sub(r"(description: .*)", r"\1   ", t, count=1))),
        ("dup-name", text_op(lambda t: t.replace("\nname: ", "\nname: dup-first\nname: ", 1))),
        (
            "tab",
            text_op(lambda t: re.sub(r"description: (.*)", r"description: >\n\t\1", t, count=1)),
        ),
        (
            "upper-name",
            lambda s: {
                **s,
                "text": s["text"].replace(f"name: {s['name']}", f"name: {s['name'].upper()}", 1),
            },
        ),
        ("no-name", text_op(lambda t: re.sub(r"\nname: .*", "", t, count=1))),
        ("no-description", text_op(lambda t: re.sub(r"\ndescription: .*", "", t, count=1))),
        (
            "empty-description",
            text_op(lambda t: re.sub(r"description: .*", 'description: ""', t, count=1)),
        ),
        ("unknown-key", text_op(lambda t: t.replace("\n---\n", "\nowner: someone\n---\n", 1))),
        (
            "dmi",
            text_op(lambda t: t.replace("\n---\n", "\ndisable-model-invocation: true\n---\n", 1)),
        ),
        (
            "long",
            text_op(
                lambda t: re.sub(
                    r"(description: .*)", lambda m: m.group(1) + " Long." * 220, t, count=1
                )
            ),
        ),
        ("html-comment", text_op(lambda t: "<!-- x -->\n" + t)),
        ("body-dashes", text_op(lambda t: t + "\n---\nfooter\n")),
        (
            "number-name",
            lambda s: {**s, "text": s["text"].replace(f"name: {s['name']}", "name: 404", 1)},
        ),
        ("deep", lambda s: {**s, "rel": f"group/{s['rel']}"}),
        ("hidden", lambda s: {**s, "rel": f".{s['rel']}"}),
        ("user-root", lambda s: {**s, "root": "user"}),
        ("mismatch-dir", lambda s: {**s, "rel": s["rel"].replace("/SKILL.md", "-dir/SKILL.md")}),
    ]


def random_cases(seed: int, count: int) -> list[Case]:
    """`count` cases, each one real-looking skill with 1-3 seeded mutations."""
    rng = random.Random(seed)
    muts = _mutations()
    out = []
    for i in range(count):
        base_name, desc, extra = rng.choice(REAL_SKILLS)
        cid = f"rnd-{seed}-{i:03d}"
        name = f"{cid}-{base_name}"
        text = "---\n" + f"name: {name}\ndescription: {desc}\n{extra}\n" + "---\n" + BODY
        state = {"text": text, "name": name, "rel": f"{cid}/SKILL.md", "root": "project"}
        picked = rng.sample(muts, rng.randint(1, 3))
        for _label, op in picked:
            state = op(state)
        note = "mutations: " + ", ".join(label for label, _ in picked)
        entry = Entry(state["root"], state["rel"], state["text"].encode("utf-8"))
        out.append(Case(cid, "random", (entry,), note))
    return out


# --- laying a case out -------------------------------------------------------------------------


def _classify(template: str) -> str:
    head = template.split("/", 1)[0]
    if head == "{project}":
        return "project"
    if head in ("~", "{home}") or (head.startswith("{env:") and ":~" in head):
        return "user"
    return "other"


def _fill_globs(path: str) -> str:
    return path.replace("*", "lab")


def _root_dirs(
    selector: str,
    profile: Profile,
    tree: Tree,
    repo: str,
    unchecked: Iterable[str],
) -> list[tuple[str, str]]:
    """(label, folder) pairs a selector names in this tree for this profile."""
    unchecked = set(unchecked)
    env = tree.env

    def expand(template: str, project: str) -> str:
        return _fill_globs(expand_template(template, project, tree.home, env))

    if selector == "tree":
        return [("tree", tree.base)]
    if selector.startswith("abs:"):
        template = selector[4:]
        if template in unchecked:
            return []
        return [(template, expand(template, tree.project))]
    kind, _, where = selector.partition("@")
    every = kind.endswith("*")
    kind = kind.rstrip("*")
    # A built-in root is the runtime's own (its install, or written by it): no fixture goes there.
    roots = [
        r
        for r in profile.roots
        if _classify(r.path) == kind and r.path not in unchecked and not r.builtin
    ]
    if where == "repo":
        with_walk = [r for r in roots if r.ancestors] or roots
        roots = with_walk[:1]
        return [(f"{r.path} @repo", expand(r.path, repo)) for r in roots]
    if not every:
        roots = [r for r in roots if "*" not in r.path][:1] or roots[:1]
    seen: dict[str, str] = {}
    for r in roots:
        seen.setdefault(expand(r.path, tree.project), r.path)
    return [(label, folder) for folder, label in seen.items()]


def job_env(home: str, extra: Sequence[tuple[str, str]] = ()) -> dict[str, str]:
    """The environment both sides see: HOME inside the tree and nothing else a user does not
    usually set (no XDG_* folders, no runtime home variables: each runtime finds its folders
    below HOME as it does by default)."""
    env = {"HOME": home}
    env.update(dict(extra))
    return env


def git_repository(git_dir: str) -> None:
    """An empty git repository written as files (no git command runs): what `git init` leaves
    that `git rev-parse` needs (HEAD, objects, refs, a config). A runtime that finds the worktree
    by asking git (Kilo Code) sees the repository a user has, not an empty `.git` folder."""
    for sub in ("objects/info", "objects/pack", "refs/heads", "refs/tags"):
        os.makedirs(os.path.join(git_dir, sub), exist_ok=True)
    files = {
        "HEAD": "ref: refs/heads/main\n",
        "config": "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n",
        "description": "Skill Prism lab fixture\n",
    }
    for name, text in files.items():
        with open(os.path.join(git_dir, name), "w", encoding="utf-8") as f:
            f.write(text)


def materialize(case: Case, profile: Profile, base: str, unchecked: Iterable[str] = ()) -> Tree:
    """Lay `case` out under `base` (an empty folder) for `profile`'s roots."""
    base = os.path.realpath(base)
    home = os.path.join(base, "home")
    repo = os.path.join(base, "repo")
    project = os.path.join(repo, "sub", "proj") if case.nested else repo
    for d in (home, project, os.path.join(base, "outside")):
        os.makedirs(d, exist_ok=True)
    git_repository(os.path.join(repo, ".git"))
    tree = Tree(case, base, home, project, job_env(home, case.env))
    links: list[tuple[str, str, str]] = []
    for entry in case.entries:
        dirs = _root_dirs(entry.root, profile, tree, repo, unchecked)
        if not dirs:
            tree.skipped.append(f"{entry.root}:{entry.rel}")
            continue
        for index, (label, folder) in enumerate(dirs):
            path = os.path.join(folder, *entry.rel.split("/"))
            if not os.path.abspath(path).startswith(base + os.sep):
                # never write outside the fixture tree (a root set by the environment)
                tree.skipped.append(f"{entry.root}:{entry.rel} (outside the tree: {path})")
                continue
            os.makedirs(os.path.dirname(path), exist_ok=True)
            if entry.link is not None:
                target = entry.link
                if target.startswith("@/"):
                    target = os.path.join(base, target[2:])
                os.symlink(target, path)
                links.append((label, path, entry.rel))
                continue
            if entry.folder:
                os.makedirs(path, exist_ok=True)
                continue
            content = entry.content or b""
            if b"{root}" in content:
                content = content.replace(b"{root}", f"root {index} ({label})".encode())
            with open(path, "wb") as f:
                f.write(content)
            if entry.candidate:
                tree.candidates.append(Candidate(case.id, path, f"{label}/{entry.rel}"))
    # Paths a runtime can reach through a placed symlink are candidates too.
    for label, link_path, rel in links:
        if not os.path.isdir(link_path):
            if os.path.isfile(link_path) and link_path.endswith(".md"):
                tree.candidates.append(Candidate(case.id, link_path, f"{label}/{rel}"))
            continue
        for root, dirs, files in os.walk(link_path, followlinks=False):
            depth = root[len(link_path) :].count(os.sep)
            if depth > 2:
                dirs[:] = []
            for f in files:
                if f.lower().endswith(".md"):
                    p = os.path.join(root, f)
                    tree.candidates.append(
                        Candidate(case.id, p, f"{label}/{rel}{p[len(link_path) :]}")
                    )
    return tree


# --- command line ------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="List or lay out the lab's fixture cases.")
    parser.add_argument("--list", action="store_true", help="print every case id, group and note")
    parser.add_argument("--write", metavar="DIR", help="lay every case out under DIR/<case>")
    parser.add_argument("--profile", default="agentskills", help="profile whose roots to use")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--count", type=int, default=0, help="random cases to add")
    args = parser.parse_args(argv)
    cases = catalogue() + (random_cases(args.seed, args.count) if args.count else [])
    if args.write:
        profile = shipped_profile(args.profile)
        for case in cases:
            base = os.path.join(args.write, case.id)
            os.makedirs(base, exist_ok=False)
            tree = materialize(case, profile, base)
            print(f"{case.id}: {len(tree.candidates)} file(s) in {base}")
        return 0
    for case in cases:
        print(f"{case.id:24} {case.group:10} {len(case.entries):4}  {case.note}")
    print(f"{len(cases)} cases")
    return 0


if __name__ == "__main__":
    sys.exit(main())
