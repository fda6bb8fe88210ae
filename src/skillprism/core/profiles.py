"""Runtime profiles: how one agent runtime finds, reads and ranks skills, loaded from TOML data.

Every difference between runtimes lives in a profile file (`resources/profiles/*.toml`, documented
key by key in `docs/profiles.md`), never in `if runtime == ...` code. A broken profile is reported
as a `ProfileError` naming the file and the key.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from skillprism.core.codes import ACTIONS, RULES
from skillprism.core.disclosure_spec import DisclosureSpec, check_template, parse_disclosure
from skillprism.core.live_trigger.spec import LiveSpec, LiveSpecError, parse_live_spec
from skillprism.core.plugin_registry import PluginRegistry
from skillprism.core.structured import StructuredError, read_structured
from skillprism.core.vocabulary import LEVEL_ORDER
from skillprism.paths import shipped_profiles_dir, user_profiles_dir

SCHEMA = 1
LAYOUTS = ("one-level", "root-or-one-level", "recursive")
TIE_RULES = ("first-wins", "last-wins", "keep-both")
WALKS = ("up", "down")
TYPINGS = ("string", "string-null", "core", "core-timestamps", "yaml11")
CHARSETS = ("ascii-lower", "unicode-lower", "any")
FIELD_TYPES = (
    "string",
    "bool",
    "strict-bool",
    "string-map",
    "map",
    "list",
    "string-list",
    "string-or-list",
    "space-list",
    "comma-list",
    "any",
)
YAML_ERROR_MODES = ("skip", "empty-metadata", "fallback-lines")
# Frontmatter framing: how the opening and closing `---` lines are recognised (docs/profiles.md).
OPENERS = ("line", "trimmed", "exact", "prefix", "prefix3", "dashes", "trimmed-dashes")
CLOSERS = ("line", "trimmed", "prefix", "dashes", "substring")
BEFORE_OPENER = ("blank-lines", "nothing", "anything")
BARE_CR = ("line-end", "text")
NUL_BYTES = ("binary", "text", "text-not-yaml")
BOM_MODES = ("strip", "text")
DESCRIPTION_CUTS = ("none", "middle")
UNCLOSED = ("no-frontmatter", "to-end")
DUPLICATE_KEYS = ("last-wins", "error")
FALLBACK_WHEN = ("error", "not-strings")
FALLBACK_KEYS = ("top-level", "any-indent")
FALLBACK_QUOTES = ("strip", "keep")
FALLBACK_REPEAT = ("first", "last")
FALLBACK_VALUES = ("text", "yaml-scalar", "js-lines")
YAML_REPAIRS = (
    "tabs-to-spaces",
    "tab-indents-js-yaml3",
    "quote-colon-values",
    "quote-any-colon-values",
    "requote-description-at-error",
    "quote-special-values",
    "retry-leading-tabs",
)
NULL_VALUES = ("missing", "wrong-type", "line-text")
NON_STRINGS = ("refuse", "js-string", "js-json", "js-keep")
CLIP_CHOMPING = ("yaml", "strip")
LINKS_WITHIN = ("", "project", "root")
YAML_READERS = ("libyaml", "pyyaml-pure")
VALUE_FIELDS = ("name", "description")
IN_ROOT_ORDERS = ("path", "path-string", "path-locale", "path-desc", "name", "file-system")
# What the runtime does with a symlinked folder that points back at a folder its walk is in
# (`[discovery] link_loops`, docs/profiles.md): "stop" does not follow it; "follow" goes round
# the loop like any folder until the system refuses the path (ELOOP) or max_depth ends the walk.
LINK_LOOPS = ("stop", "follow")
WINNERS = ("by-rule", "varies")
NAME_KEYS = ("exact", "lowercase", "slug")
DESCRIPTION_REWRITES = ("spaces", "angle-entities")


_ROOT_FIELD = re.compile(r"project|home|env:[^{}:]+(?::[^{}]*)?")


class ProfileError(Exception):
    """A profile file that cannot be used; the message names the file and the key."""


@dataclass(frozen=True, slots=True)
class RuleSetting:
    action: str
    effect: str = ""
    hint: str = ""


@dataclass(frozen=True, slots=True)
class RootTemplate:
    scope: str
    path: str
    layout: str
    ancestors: bool = False
    namespace: str = ""
    note: str = ""
    # Order the runtime loads the ancestor walk in: "up" = project folder first, then each parent
    # to the repository root; "down" = repository root first, down to the project folder.
    walk: str = "up"
    suffix: tuple[str, ...] = ()  # trailing literal folders of `path`, e.g. ('.claude', 'skills')
    # Other `*.md` files are skills too: "" = no, "in-root" = those directly in the root (pi's own
    # roots), "below" = those anywhere below it outside skill folders (OpenHands' legacy skills).
    md_files: str = ""
    # Rule settings that differ in this root (oh-my-pi: only its native root needs a description).
    rules: Mapping[str, RuleSetting] = field(default_factory=dict)
    # The runtime reads this root only when a setting turns it on ("" = always read); its skills
    # are shown as not discovered, naming the setting.
    enabled_by: str = ""
    # The runtime reads this root only while none of these environment variables is set (Copilot
    # CLI reads ~/.agents/skills only without $COPILOT_HOME).
    unless_env: tuple[str, ...] = ()
    # The folder the runtime keeps its own (built-in, bundled) skills in: written by the runtime
    # itself or part of its install, never a place for the user's skills. `[[tier1.builtin]]`
    # entries with `root` set to this path are listed from it.
    builtin: bool = False
    # A folder the runtime still reads but calls deprecated or legacy: an installer never puts a
    # new skill there.
    legacy: bool = False
    # Whether an installer may copy into this root: false where the runtime loads what is there
    # only once its own install step records it (Claude Code's plugin cache, which it reads only
    # for plugins in installed_plugins.json enabled in settings).
    install: bool = True
    # The runtime loads a folder of this (plugin cache) root only when its install records, known
    # marketplaces and settings say so (core/plugin_registry.py); None: every folder is read.
    registry: PluginRegistry | None = None
    # Entries starting with '.' below this root are skipped (None: `[discovery] skip_hidden`).
    skip_hidden: bool | None = None
    # A skill file whose real path leaves this folder is refused (`link-outside-scope`): "" =
    # anywhere, "project" = the project's repository (Kilo Code's project file scope), "root" =
    # the root itself (OpenClaw's workspace roots).
    links_within: str = ""


LEVELS = LEVEL_ORDER  # one order of levels, most trusted first (core/vocabulary.py)
LAB_LEVELS = ("verified", "partial")  # only the lab's results give these (core/lab_results.py)
PARTS = ("discovery", "precedence", "frontmatter", "tier1", "tier2", "tier3")


@dataclass(frozen=True, slots=True)
class RuntimeInfo:
    """Which runtime release a profile models and how its facts were established.

    `level`: `verified` = the conformance lab runs this release's own code on every fixture and
    every difference left is inherent nondeterminism or a named limit of the runtime's interface;
    `partial` = the lab runs it and other differences are left (listed in `held_back`);
    `documented` = no code could be run, facts come from the cited sources; `specified` = a
    system described by a written specification (the seeds), with no code to run.

    For a shipped profile the lab runs, `level`, `verified_on` and `held_back` are derived from
    the lab's recorded results (core/lab_results.py, `level_source = "lab"`); a profile file can
    only state `documented` or `specified` itself."""

    release: str = ""
    package: str = ""
    level: str = "documented"
    verified_on: str = ""
    verified_by: str = ""
    parts: Mapping[str, str] = field(default_factory=dict)
    level_source: str = "profile"  # "lab": derived from resources/lab-results.json
    # What keeps the profile from the next level (empty at the top), one reason per entry.
    held_back: tuple[str, ...] = ()
    held_back_summary: str = ""  # the same in a few words, for one-line displays

    def provenance(self, title: str) -> str:
        """One line for every place a runtime is named: what was verified against what, when,
        and what keeps it from the next level."""
        what = f"{title} {self.release}".strip()
        if self.level == "verified":
            return f"verified against {what} on {self.verified_on}"
        if self.level == "partial":
            why = f"; not verified: {self.held_back_summary}" if self.held_back_summary else ""
            return f"partly verified against {what} on {self.verified_on}{why}"
        if self.level == "specified":
            return f"modelled from the written specification of {what}; no code to run"
        why = (
            f" ({self.held_back_summary})" if self.held_back_summary else " (its code was not run)"
        )
        return f"documented, not verified: {what}{why}"


@dataclass(frozen=True, slots=True)
class Framing:
    """How the runtime finds the frontmatter block in the file's text."""

    opener: str = "line"  # line: '---' (+ spaces); exact: '---' and the line end; prefix: '---...'
    closer: str = "line"  # line: a '---' line (+ spaces); prefix: the first line starting '---'
    before_opener: str = "blank-lines"  # what may precede the opener: blank lines, or nothing
    nul_bytes: str = "binary"  # a NUL byte makes the file binary, or it is read as text
    # No closing line: no frontmatter at all, or the frontmatter runs to the end of the file and
    # the body is empty (gray-matter: OpenCode, Kilo Code).
    unclosed: str = "no-frontmatter"
    # The frontmatter text keeps the line break before the closing line (Continue, Mistral Vibe
    # split the text there): a `|+` block ending the frontmatter keeps one more.
    keep_last_line_break: bool = False
    # A bare CR: a line end, or just a character (Cline's pattern needs a line feed, so a file of
    # bare CR line ends has no frontmatter).
    bare_cr: str = "line-end"
    # A UTF-8 byte-order mark: removed before the split, or kept as the text's first character,
    # so that no opener is found at the start (python-frontmatter: OpenHands).
    bom: str = "strip"

    @property
    def default(self) -> bool:
        return self == Framing()


@dataclass(frozen=True, slots=True)
class Reading:
    """How the runtime reads values out of the frontmatter, beyond `typing` and `yaml_errors`."""

    trim: tuple[str, ...] = VALUE_FIELDS  # fields whose edge white space is removed
    duplicate_keys: str = "last-wins"
    merge_keys: bool = False
    repair: tuple[str, ...] = ()  # YAML repairs tried before giving up (YAML_REPAIRS)
    fallback_when: str = "error"
    fallback_keys: str = "top-level"
    fallback_quotes: str = "strip"
    fallback_continuation: bool = False
    fallback_repeat: str = "first"
    fallback_values: str = "text"
    skip_fields: Mapping[str, Any] = field(default_factory=dict)
    null_values: str = "missing"  # an explicit null name/description: as if absent, or wrong type
    # A number, boolean or list as name/description: refused, or read as JavaScript's String()
    # writes it (Qwen Code); either way reported as name-/description-not-string, or -not-text
    # for a value the mode cannot turn into text (a mapping for String()).
    non_strings: str = "refuse"
    blank_is_empty: bool = True  # a description of white space only counts as empty
    # A block scalar with clip chomping ('|', '>') keeps its one final line break as YAML says
    # ("yaml"), or loses it ("strip": Copilot CLI's reader), for the top-level values.
    clip_chomping: str = "yaml"
    # The YAML reader: libyaml (PyYAML's C reader, as most runtimes' readers behave) or PyYAML's
    # pure-Python reader (Mistral Vibe's yaml.safe_load without libyaml), which refuses a tab
    # after 'key:'.
    yaml_reader: str = "libyaml"
    # A description longer than `description_max`: kept whole ("none", reported), or cut to that
    # length in the middle, its head and tail around `description_cut_notice` ("middle": the
    # Skill model's maybe_truncate, OpenHands).
    description_cut: str = "none"
    description_cut_notice: str = ""


@dataclass(frozen=True, slots=True)
class Profile:
    name: str
    title: str
    summary: str
    sources: tuple[str, ...]
    assumptions: tuple[str, ...]
    path: str
    # discovery
    file_names: tuple[str, ...]
    layout: str
    ignore_dirs: frozenset[str]
    skip_hidden: bool
    follow_symlinks: bool
    dedup_real_path: bool
    max_depth: int
    max_dirs: int
    include: tuple[str, ...]
    ignore: tuple[str, ...]
    roots: tuple[RootTemplate, ...]
    plugin_marker: str
    # precedence
    tie_rule: str
    shadow_warning: str
    # frontmatter
    typing: str
    yaml_errors: str
    name_source: str
    name_default: str
    description_default: str
    name_charset: str
    name_max: int
    description_max: int
    compatibility_max: int
    collapse_whitespace: bool
    # How the runtime rewrites a description it read (DESCRIPTION_REWRITES), in that order.
    description_rewrite: tuple[str, ...]
    sanitize_name_chars: str
    required_metadata: tuple[str, ...]
    reference_validator: bool
    fields: Mapping[str, str]
    enums: Mapping[str, tuple[str, ...]]
    rules: Mapping[str, RuleSetting] = field(default_factory=dict)
    # body guidance
    body_max_lines: int = 500
    body_max_tokens: int = 5000
    disclosure: DisclosureSpec = field(default_factory=DisclosureSpec)
    runtime: RuntimeInfo = field(default_factory=RuntimeInfo)
    # discovery, continued (docs/profiles.md)
    in_root_order: str = "path"
    stop_at_skill: bool = False
    link_loops: str = "stop"
    # How a `[[roots]] md_files` skill without a frontmatter name is named ("folder": its folder,
    # like a skill file; "path": its path inside the root without '.md', OpenHands), and whether
    # the name checks apply to it (OpenHands validates the names of SKILL.md files only).
    md_name: str = "folder"
    md_strict: bool = True
    ignore_files: tuple[str, ...] = ()
    follow_file_symlinks: bool = True  # a skill file that is a symlink is read
    # recursive layout: a skill file directly in a root is read too (Factory Droid looks only in
    # the folders below a root)
    root_file: bool = True
    # At most this many skills load from one root, in its in-root order; the rest are not read
    # (`root-limit`; OpenClaw's maxSkillsLoadedPerSource). 0 = no limit.
    max_loaded_per_root: int = 0
    # precedence, continued: "varies" = the runtime's winner depends on timing (OpenCode)
    winner: str = "by-rule"
    # Which names clash: equal names, or names equal in lower case (Cline keys its records so),
    # or equal as a slug (lower case, other characters '-', runs of '-' one: Factory Droid).
    name_key: str = "exact"
    # A copy the runtime refuses (skipped by a rule) still takes its name's place in clash
    # resolution, so a valid copy ranked after it is shadowed (Factory Droid validates after it
    # picks one record per name).
    refused_take_slot: bool = False
    # frontmatter reading, continued
    # A name must match this in full (Python `re`), beside name_charset: the runtime's own pattern.
    name_pattern: str = ""
    framing: Framing = field(default_factory=lambda: Framing())
    reading: Reading = field(default_factory=lambda: Reading())
    # How to drive the runtime's CLI for live trigger runs (core/live_trigger/spec.py)
    live: LiveSpec | None = None

    @property
    def provenance(self) -> str:
        return self.runtime.provenance(self.title)

    def action(self, rule: str) -> RuleSetting:
        """What this runtime does about `rule`: the profile's setting, else the registry default."""
        setting = self.rules.get(rule)
        return setting if setting is not None else RuleSetting(RULES[rule].action)

    def for_root(self, template: int) -> Profile:
        """This profile as it applies inside root template number `template` (its `[[roots]]`
        rule settings merged over the profile's); the profile itself when the root has none.
        A new object each call: callers keep one per root for a whole build."""
        if not 0 <= template < len(self.roots) or not self.roots[template].rules:
            return self
        return _root_profile(self, template)

    @property
    def root_suffixes(self) -> tuple[tuple[str, ...], ...]:
        """Trailing folder names of each root template (`.claude/skills` -> ('.claude', 'skills')),
        used to recognise runtime roots inside a folder given on the command line."""
        return tuple(dict.fromkeys(r.suffix for r in self.roots if r.suffix))


def _root_profile(profile: Profile, template: int) -> Profile:
    from dataclasses import replace

    return replace(profile, rules={**profile.rules, **profile.roots[template].rules})


def root_suffix(path: str) -> tuple[str, ...]:
    """The literal folder names at the end of a root template: `{project}/.claude/skills` ->
    ('.claude', 'skills'); empty when the template ends in a placeholder or glob."""
    literal: list[str] = []
    for part in reversed([p for p in path.replace("\\", "/").split("/") if p]):
        if "{" in part or "*" in part or part == "~":
            break
        literal.insert(0, part)
    return tuple(literal)


class _Reader:
    """Typed access to one TOML table with errors that name the file and the dotted key."""

    def __init__(self, data: Mapping[str, Any], where: str, prefix: str = "") -> None:
        self.data = data
        self.where = where
        self.prefix = prefix
        self.used: set[str] = set()

    def key(self, k: str) -> str:
        return f"{self.prefix}{k}"

    def fail(self, k: str, msg: str) -> ProfileError:
        return ProfileError(f"{self.where}: key '{self.key(k)}': {msg}")

    def get(
        self, k: str, kind: type | tuple[type, ...], default: Any = ..., choices: tuple = ()
    ) -> Any:
        self.used.add(k)
        if k not in self.data:
            if default is ...:
                raise self.fail(k, "is required")
            return default
        value = self.data[k]
        if kind is int and isinstance(value, bool):
            raise self.fail(k, f"expected an integer, got {value!r}")
        if not isinstance(value, kind):
            names = kind.__name__ if isinstance(kind, type) else "/".join(t.__name__ for t in kind)
            raise self.fail(k, f"expected {names}, got {type(value).__name__} {value!r}")
        if choices and value not in choices:
            raise self.fail(k, f"expected one of {', '.join(choices)}; got {value!r}")
        return value

    def strings(self, k: str, default: tuple[str, ...] = ()) -> tuple[str, ...]:
        value = self.get(k, list, list(default))
        for i, item in enumerate(value):
            if not isinstance(item, str):
                raise self.fail(f"{k}[{i}]", f"expected a string, got {item!r}")
        return tuple(value)

    def table(self, k: str) -> _Reader:
        value = self.get(k, dict, {})
        return _Reader(value, self.where, f"{self.prefix}{k}.")

    def check_unknown(self) -> None:
        extra = sorted(set(self.data) - self.used)
        if extra:
            raise self.fail(extra[0], "is not a known profile key (see docs/profiles.md)")


def _choices(t: _Reader, key: str, allowed: tuple[str, ...]) -> tuple[str, ...]:
    """A list of strings each of which must be one of `allowed`."""
    values = t.strings(key)
    for i, v in enumerate(values):
        if v not in allowed:
            raise t.fail(f"{key}[{i}]", f"expected one of {', '.join(allowed)}; got {v!r}")
    return values


def parse_profile(data: Mapping[str, Any], where: str) -> Profile:
    """Build a Profile from parsed TOML `data`; `where` names the source in errors."""
    top = _Reader(data, where)
    schema = top.get("schema", int)
    if schema != SCHEMA:
        raise top.fail("schema", f"this Skill Prism reads schema {SCHEMA}, the file says {schema}")
    name = top.get("name", str)
    if not name or not all(c.isalnum() or c in "-_." for c in name):
        raise top.fail("name", "must be a non-empty word of letters, digits, '-', '_' or '.'")
    title = top.get("title", str, name)
    summary = top.get("summary", str, "")
    sources = top.strings("sources")
    assumptions = top.strings("assumptions")

    disc = top.table("discovery")
    layout = disc.get("layout", str, "one-level", LAYOUTS)
    file_names = disc.strings("file_names", ("SKILL.md",))
    if not file_names:
        raise disc.fail("file_names", "must name at least one file")
    discovery = dict(
        file_names=file_names,
        layout=layout,
        ignore_dirs=frozenset(disc.strings("ignore_dirs", (".git", "node_modules"))),
        skip_hidden=disc.get("skip_hidden", bool, False),
        follow_symlinks=disc.get("follow_symlinks", bool, True),
        dedup_real_path=disc.get("dedup_real_path", bool, True),
        max_depth=disc.get("max_depth", int, 6),
        max_dirs=disc.get("max_dirs", int, 2000),
        include=disc.strings("include"),
        ignore=disc.strings("ignore"),
        plugin_marker=disc.get("plugin_marker", str, ""),
    )
    in_root_order = disc.get("in_root_order", str, "path", IN_ROOT_ORDERS)
    stop_at_skill = disc.get("stop_at_skill", bool, False)
    link_loops = disc.get("link_loops", str, "stop", LINK_LOOPS)
    md_name = disc.get("md_name", str, "folder", ("folder", "path"))
    md_strict = disc.get("md_strict", bool, True)
    if md_name == "path" and md_strict:
        # the name checks ran on the folder's name: they would judge a name the runtime never uses
        raise disc.fail("md_name", 'md_name = "path" needs md_strict = false')
    follow_file_symlinks = disc.get("follow_file_symlinks", bool, True)
    root_file = disc.get("root_file", bool, True)
    ignore_files = disc.strings("ignore_files")
    max_loaded_per_root = disc.get("max_loaded_per_root", int, 0)
    if max_loaded_per_root < 0:
        raise disc.fail("max_loaded_per_root", "must be 0 (no limit) or more")
    disc.check_unknown()

    roots = []
    for i, raw in enumerate(top.get("roots", list, [])):
        if not isinstance(raw, dict):
            raise top.fail(f"roots[{i}]", "expected a table ([[roots]])")
        r = _Reader(raw, where, f"roots[{i}].")
        root_path = r.get("path", str)
        bad = [f for f in re.findall(r"\{([^{}]*)\}", root_path) if not _ROOT_FIELD.fullmatch(f)]
        if bad or root_path.count("{") != root_path.count("}"):
            raise r.fail(
                "path",
                f"unknown placeholder {{{bad[0] if bad else ''}}}; allowed: "
                "{project}, {home}, {env:VAR} or {env:VAR:default}, and a leading ~",
            )
        roots.append(
            RootTemplate(
                scope=r.get("scope", str),
                path=root_path,
                suffix=root_suffix(root_path),
                layout=r.get("layout", str, layout, LAYOUTS),
                ancestors=r.get("ancestors", bool, False),
                namespace=r.get("namespace", str, "", ("", "plugin")),
                note=r.get("note", str, ""),
                walk=r.get("walk", str, "up", WALKS),
                md_files=_md_files_mode(r, "md_files"),
                rules=_parse_rules(r.get("rules", dict, {}), where, f"roots[{i}].rules"),
                enabled_by=r.get("enabled_by", str, ""),
                unless_env=_env_names(r, "unless_env"),
                builtin=r.get("builtin", bool, False),
                legacy=r.get("legacy", bool, False),
                install=r.get("install", bool, True),
                registry=_registry(r, where, f"roots[{i}].registry"),
                skip_hidden=r.get("skip_hidden", bool, None) if "skip_hidden" in raw else None,
                links_within=r.get("links_within", str, "", LINKS_WITHIN),
            )
        )
        r.check_unknown()

    prec = top.table("precedence")
    tie_rule = prec.get("rule", str, "first-wins", TIE_RULES)
    shadow_warning = check_template(
        prec, "warning", prec.get("warning", str, ""), ("name", "winner", "loser")
    )
    winner = prec.get("winner", str, "by-rule", WINNERS)
    name_key = prec.get("name_key", str, "exact", NAME_KEYS)
    refused_take_slot = prec.get("refused_take_slot", bool, False)
    prec.check_unknown()

    fm = top.table("frontmatter")
    frontmatter = dict(
        typing=fm.get("typing", str, "core", TYPINGS),
        yaml_errors=fm.get("yaml_errors", str, "skip", YAML_ERROR_MODES),
        name_source=fm.get("name_source", str, "frontmatter", ("frontmatter", "directory")),
        name_default=fm.get("name_default", str, "", ("", "directory")),
        description_default=fm.get(
            "description_default", str, "", ("", "first-paragraph", "first-line")
        ),
        name_charset=fm.get("name_charset", str, "any", CHARSETS),
        name_max=fm.get("name_max", int, 0),
        description_max=fm.get("description_max", int, 0),
        compatibility_max=fm.get("compatibility_max", int, 0),
        collapse_whitespace=fm.get("collapse_whitespace", bool, False),
        description_rewrite=_choices(fm, "description_rewrite", DESCRIPTION_REWRITES),
        sanitize_name_chars=fm.get("sanitize_name_chars", str, ""),
        required_metadata=fm.strings("required_metadata"),
        reference_validator=fm.get("reference_validator", bool, False),
        body_max_lines=fm.get("body_max_lines", int, 500),
        body_max_tokens=fm.get("body_max_tokens", int, 5000),
    )
    name_pattern = fm.get("name_pattern", str, "")
    try:
        re.compile(name_pattern)
    except re.error as err:
        raise fm.fail("name_pattern", f"not a regular expression: {err}") from None
    framing = Framing(
        opener=fm.get("opener", str, "line", OPENERS),
        closer=fm.get("closer", str, "line", CLOSERS),
        before_opener=fm.get("before_opener", str, "blank-lines", BEFORE_OPENER),
        nul_bytes=fm.get("nul_bytes", str, "binary", NUL_BYTES),
        unclosed=fm.get("unclosed", str, "no-frontmatter", UNCLOSED),
        keep_last_line_break=fm.get("keep_last_line_break", bool, False),
        bare_cr=fm.get("bare_cr", str, "line-end", BARE_CR),
        bom=fm.get("bom", str, "strip", BOM_MODES),
    )
    trim = fm.strings("trim", VALUE_FIELDS)
    for i, f in enumerate(trim):
        if f not in VALUE_FIELDS:
            raise fm.fail(f"trim[{i}]", f"expected one of {', '.join(VALUE_FIELDS)}; got {f!r}")
    repair = fm.strings("yaml_repair")
    for i, f in enumerate(repair):
        if f not in YAML_REPAIRS:
            raise fm.fail(
                f"yaml_repair[{i}]", f"expected one of {', '.join(YAML_REPAIRS)}; got {f!r}"
            )
    if {"quote-special-values", "retry-leading-tabs"} & set(repair) and {
        "quote-colon-values",
        "quote-any-colon-values",
    } & set(repair):
        raise fm.fail(
            "yaml_repair",
            "quote-special-values / retry-leading-tabs are one retry of their own, not with quote-colon-values or quote-any-colon-values",
        )
    reading = Reading(
        trim=trim,
        duplicate_keys=fm.get("duplicate_keys", str, "last-wins", DUPLICATE_KEYS),
        merge_keys=fm.get("merge_keys", bool, False),
        repair=repair,
        fallback_when=fm.get("fallback_when", str, "error", FALLBACK_WHEN),
        fallback_keys=fm.get("fallback_keys", str, "top-level", FALLBACK_KEYS),
        fallback_quotes=fm.get("fallback_quotes", str, "strip", FALLBACK_QUOTES),
        fallback_continuation=fm.get("fallback_continuation", bool, False),
        fallback_repeat=fm.get("fallback_repeat", str, "first", FALLBACK_REPEAT),
        fallback_values=fm.get("fallback_values", str, "text", FALLBACK_VALUES),
        skip_fields=fm.get("skip_fields", dict, {}),
        null_values=fm.get("null_values", str, "missing", NULL_VALUES),
        non_strings=fm.get("non_strings", str, "refuse", NON_STRINGS),
        blank_is_empty=fm.get("blank_is_empty", bool, True),
        clip_chomping=fm.get("clip_chomping", str, "yaml", CLIP_CHOMPING),
        yaml_reader=fm.get("yaml_reader", str, "libyaml", YAML_READERS),
        description_cut=fm.get("description_cut", str, "none", DESCRIPTION_CUTS),
        description_cut_notice=fm.get("description_cut_notice", str, ""),
    )
    if reading.description_cut != "none" and not frontmatter["description_max"]:
        raise fm.fail("description_cut", "needs description_max, the length it cuts to")
    try:
        reading.description_cut_notice.format(path="")
    except (KeyError, IndexError, ValueError) as err:
        raise fm.fail(
            "description_cut_notice", f"the only placeholder is {{path}} ({err!r})"
        ) from None
    fm.check_unknown()

    fields_table = top.get("fields", dict, {})
    fields: dict[str, str] = {}
    enums: dict[str, tuple[str, ...]] = {}
    for key, kind in fields_table.items():
        if not isinstance(kind, str):
            raise ProfileError(f"{where}: key 'fields.{key}': expected a type name string")
        if kind.startswith("enum:"):
            enums[key] = tuple(v for v in kind[5:].split("|") if v)
            if not enums[key]:
                raise ProfileError(f"{where}: key 'fields.{key}': enum needs values, e.g. enum:a|b")
            fields[key] = "enum"
        elif kind in FIELD_TYPES:
            fields[key] = kind
        else:
            raise ProfileError(
                f"{where}: key 'fields.{key}': unknown type {kind!r}; expected one of "
                f"{', '.join(FIELD_TYPES)} or enum:a|b"
            )

    rules = _parse_rules(top.get("rules", dict, {}), where, "rules")
    disclosure = parse_disclosure(top)
    root_paths = {r.path for r in roots}
    for i, b in enumerate(disclosure.tier1.builtin):
        if b.root and b.root not in root_paths:
            raise ProfileError(
                f"{where}: key 'tier1.builtin[{i}].root': {b.root!r} is not the path of a [[roots]] table"
            )
    runtime = _parse_runtime(top.table("runtime"))
    try:
        live = parse_live_spec(top.get("live_trigger", dict, {}), where)
    except LiveSpecError as err:
        raise ProfileError(str(err)) from None
    top.used.update({"fields", "rules", "roots"})
    top.check_unknown()

    return Profile(
        disclosure=disclosure,
        runtime=runtime,
        live=live,
        name=name,
        title=title,
        summary=summary,
        sources=sources,
        assumptions=assumptions,
        path=where,
        roots=tuple(roots),
        tie_rule=tie_rule,
        shadow_warning=shadow_warning,
        fields=fields,
        enums=enums,
        rules=rules,
        in_root_order=in_root_order,
        stop_at_skill=stop_at_skill,
        link_loops=link_loops,
        md_name=md_name,
        md_strict=md_strict,
        ignore_files=ignore_files,
        follow_file_symlinks=follow_file_symlinks,
        root_file=root_file,
        max_loaded_per_root=max_loaded_per_root,
        winner=winner,
        name_key=name_key,
        refused_take_slot=refused_take_slot,
        framing=framing,
        reading=reading,
        name_pattern=name_pattern,
        **discovery,
        **frontmatter,
    )


def clash_key(profile: Profile, name: str) -> str:
    """What two skills' names must share to clash under `profile` (`[precedence] name_key`)."""
    if profile.name_key == "lowercase":
        return name.lower()
    if profile.name_key == "slug":
        return _SLUG_EDGES.sub("", _SLUG_RUNS.sub("-", _SLUG_OTHER.sub("-", name.lower())))
    return name


# name_key = "slug": lower case, every character but a-z, 0-9 and '-' as '-', runs of '-' as
# one, no '-' at either end (Factory Droid's record key).
_SLUG_OTHER = re.compile(r"[^a-z0-9-]")
_SLUG_RUNS = re.compile(r"-+")
_SLUG_EDGES = re.compile(r"^-|-$")


_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def _registry(r: _Reader, where: str, prefix: str) -> PluginRegistry | None:
    """`[roots.registry]`: where the runtime records the plugins it loads from this root."""
    raw = r.get("registry", dict, None)
    if raw is None:
        return None
    t = _Reader(raw, where, prefix + ".")
    out = PluginRegistry(
        records=t.get("records", str),
        marketplaces=t.get("marketplaces", str),
        enabled_in=tuple(t.strings("enabled_in")),
        enabled_key=t.get("enabled_key", str, "enabledPlugins"),
        install_below=t.get("install_below", str, "skills"),
    )
    t.check_unknown()
    if not out.enabled_in:
        raise t.fail("enabled_in", "name at least one settings file")
    return out


def _env_names(reader: _Reader, key: str) -> tuple[str, ...]:
    """A list of environment variable names (letters, digits and '_', not starting with a digit)."""
    names = reader.strings(key)
    for i, name in enumerate(names):
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
            raise reader.fail(f"{key}[{i}]", f"not an environment variable name: {name!r}")
    return names


def _parse_rules(table: Mapping[str, Any], where: str, prefix: str) -> dict[str, RuleSetting]:
    rules: dict[str, RuleSetting] = {}
    for rule_name, raw in table.items():
        if rule_name not in RULES:
            raise ProfileError(
                f"{where}: key '{prefix}.{rule_name}': unknown rule (see docs/diagnostics.md)"
            )
        if isinstance(raw, str):
            raw = {"action": raw}
        if not isinstance(raw, dict):
            raise ProfileError(
                f"{where}: key '{prefix}.{rule_name}': expected an action or a table"
            )
        r = _Reader(raw, where, f"{prefix}.{rule_name}.")
        rules[rule_name] = RuleSetting(
            action=r.get("action", str, RULES[rule_name].action, ACTIONS),
            effect=r.get("effect", str, ""),
            hint=r.get("hint", str, ""),
        )
        r.check_unknown()
    return rules


def _parse_runtime(t: _Reader) -> RuntimeInfo:
    level = t.get("level", str, "documented", LEVELS)
    if level in LAB_LEVELS:
        raise t.fail(
            "level",
            f"{level!r} is derived from the conformance lab's results (resources/lab-results.json), "
            "not written; a profile file states 'documented' or 'specified'",
        )
    verified_on = t.get("verified_on", str, "")
    if verified_on and not _DATE.fullmatch(verified_on):
        raise t.fail("verified_on", f"expected a date YYYY-MM-DD, got {verified_on!r}")
    parts = t.table("parts")
    part_values = {k: parts.get(k, str) for k in PARTS if k in parts.data}
    parts.used.update(part_values)
    parts.check_unknown()
    package = t.get("package", str, "")
    info = RuntimeInfo(
        release=t.get("release", str, ""),
        package=package,
        level=level,
        verified_on=verified_on,
        verified_by=t.get("verified_by", str, ""),
        parts=part_values,
        held_back=(_not_run_reason(level, package),),
        held_back_summary="its code is not run by the lab" if level == "documented" else "",
    )
    t.check_unknown()
    return info


def _md_files_mode(r: _Reader, key: str) -> str:
    """`[[roots]] md_files`: false / true (the files directly in the root) or "below"."""
    value = r.get(key, (bool, str), False)
    if value is True:
        return "in-root"
    if value is False:
        return ""
    if value not in ("in-root", "below"):
        raise r.fail(key, f'expected true, false, "in-root" or "below"; got {value!r}')
    return value


def _not_run_reason(level: str, package: str) -> str:
    if level == "specified":
        return "a written specification: there is no released runtime whose code could be run"
    if not package:
        return "the conformance lab does not run this runtime: no package of its code can be run"
    return f"the conformance lab has no driver for {package} yet"


def with_lab_level(profile: Profile) -> Profile:
    """`profile` with the level the conformance lab's recorded results give it (itself when the
    lab does not run it). Only for shipped profiles: a user's file is not what the lab ran."""
    from dataclasses import replace

    from skillprism.core.lab_results import level_for

    found = level_for(profile.name, profile.runtime.release)
    if found is None:
        return profile
    record, derived = found
    runtime = replace(
        profile.runtime,
        level=derived.level,
        verified_on=record.ran_on if derived.level in LAB_LEVELS else profile.runtime.verified_on,
        level_source="lab",
        held_back=derived.held_back,
        held_back_summary=derived.summary,
    )
    return replace(profile, runtime=runtime)


def load_profile_file(path: Path) -> Profile:
    """The profile in the file `path`, read once per process while the file stays as it is (the
    window's engine lists every runtime, and validation asks every profile what it accepts)."""
    try:
        st = os.stat(path)
    except OSError:
        return _read_profile_file(path)  # says why it cannot be read
    return _cached_profile_file(str(path), (st.st_mtime_ns, st.st_size, st.st_ino))


@functools.lru_cache(maxsize=128)
def _cached_profile_file(path: str, _stamp: tuple[int, int, int]) -> Profile:
    return _read_profile_file(Path(path))


def _read_profile_file(path: Path) -> Profile:
    try:
        data = read_structured(str(path), "toml")
    except StructuredError as err:
        raise ProfileError(f"{path}: cannot read the profile: {err}") from None
    profile = parse_profile(data, str(path))
    if path.parent.resolve() == shipped_profiles_dir().resolve():
        profile = with_lab_level(profile)
    return profile


def profile_files() -> dict[str, Path]:
    """Profile name -> file, shipped first; a user profile of the same file name overrides."""
    found: dict[str, Path] = {}
    for folder in (shipped_profiles_dir(), user_profiles_dir()):
        if folder.is_dir():
            for path in sorted(folder.glob("*.toml")):
                found[path.stem] = path
    return found


def available_profiles() -> list[str]:
    return sorted(profile_files())


def load_profile(spec: str) -> Profile:
    """Load a profile by shipped/user name, or from a path to a `.toml` file."""
    files = profile_files()
    if spec in files:
        return load_profile_file(files[spec])
    candidate = Path(spec).expanduser()
    if candidate.suffix == ".toml" or candidate.exists() or "/" in spec:
        if not candidate.is_file():
            raise ProfileError(f"{spec}: no such profile file")
        return load_profile_file(candidate)
    raise ProfileError(
        f"unknown profile '{spec}'; available: {', '.join(sorted(files))} (or a path to a .toml file)"
    )
