"""Tier 1: the exact listing a runtime puts in the prompt, and what its budget keeps of each skill.

`Tier1Model(catalog)` prepares every entry once (exclusions, rendered texts, token counts);
`model.compute(settings)` then applies a budget — arithmetic and one string join — so a moving
context-window slider recomputes 5,000 skills in milliseconds. The listing templates, exclusions
and budget model come from the profile's `[tier1]` data; only the three overflow strategies are
code (drop descriptions least-used first, trim-then-omit, exclude what overflows).
"""

from __future__ import annotations

import bisect
import html
import os
import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from typing import Any

from skillprism.core.catalog import Catalog, RootInfo, SkillEntry
from skillprism.core.compact_budget import (
    FULL,
    compact_description,
    note_text,
    plan_compact,
    utf16_len,
)
from skillprism.core.diagnostics import Diagnostic
from skillprism.core.disclosure_spec import BudgetSpec, BuiltinSkill, Tier1Spec, flag_set
from skillprism.core.discovery import is_md_skill
from skillprism.core.js_values import js_string
from skillprism.core.ordering import casefold_key, locale_key
from skillprism.core.profiles import clash_key
from skillprism.core.textwidth import display_width
from skillprism.core.tokens import EstimateCounter, TokenCounter

DEFAULT_CONTEXT_WINDOW = 200_000
BUILTIN_KEY = "builtin:"  # the key of a runtime's own skill in a listing: "builtin:<name>"


def is_builtin_key(key: str) -> bool:
    """Whether a listing entry's key is one of the runtime's own skills ([[tier1.builtin]])."""
    return key.startswith(BUILTIN_KEY)


GUIDANCE_TOKENS_PER_ENTRY = 100


PERMISSION_ACTIONS = ("allow", "ask", "deny")


def permission_action(rules: tuple[tuple[str, str], ...], name: str) -> str | None:
    """The action of the last rule whose pattern matches `name` (`*` any run of characters,
    `?` one character, the rest literal: OpenCode's Wildcard.match), None when none does."""
    for pattern, action in reversed(rules):
        regex = "".join(".*" if c == "*" else "." if c == "?" else re.escape(c) for c in pattern)
        if re.fullmatch(regex, name, re.S):
            return action
    return None


@dataclass(frozen=True, slots=True)
class BudgetSettings:
    """Inputs a user (or the runtime's own settings) can change. `context_window` is in tokens;
    0 means unknown (the profile's fallback applies)."""

    context_window: int = DEFAULT_CONTEXT_WINDOW
    budget_chars: int | None = None
    budget_fraction: float | None = None
    entry_cap_chars: int | None = None
    overrides: Mapping[str, str] = field(default_factory=dict)
    usage: Mapping[str, float] = field(default_factory=dict)
    pins: frozenset[str] = frozenset()
    allowlist: tuple[str, ...] | None = None
    disabled: frozenset[str] = frozenset()  # skill names or SKILL.md paths disabled by config
    disabled_names: frozenset[str] = frozenset()  # lower-cased names disabled by config
    disabled_globs: tuple[str, ...] = ()  # name patterns (fnmatch, case kept) disabled by config
    # (pattern, action) in the runtime's order; the last rule whose pattern matches decides
    permission_rules: tuple[tuple[str, str], ...] = ()
    applied: tuple[str, ...] = ()  # what was read from runtime settings, for display
    # The runtime's own usage records behind `usage` (core/usage.UsageRecord by name), for display.
    usage_records: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class EntryOutcome:
    key: str
    name: str
    path: str
    outcome: str
    reason: str
    chars: int  # characters this skill adds to the listing as shown (0 when not listed)
    tokens: int
    kept_chars: int  # description characters kept (shortened / full)
    full_chars: int  # characters its full entry would take


class Tier1Result:
    """One computed listing. Per-skill outcomes and diagnostics are built on first access, so a
    slider that only needs the text and totals does not pay for 5,000 objects."""

    def __init__(
        self,
        model: Tier1Model,
        rows: list[tuple[str, str, int, str]],
        *,
        text: str,
        limit_chars: int | None,
        context_window: int,
        assumptions: tuple[str, ...],
        settings_applied: tuple[str, ...],
        warnings: tuple[str, ...],
        usage_records: Mapping[str, Any] | None = None,
    ) -> None:
        self._model = model
        self.usage_records: Mapping[str, Any] = usage_records or {}
        self._rows = (
            rows  # per prepared item: (outcome, reason, kept description chars, shown text)
        )
        self.text = text
        self.limit_chars = limit_chars
        self.used_chars = len(text)
        self._tokens: int | None = None
        self.counter = model.counter.name
        self.context_window = context_window
        self.assumptions = assumptions
        self.settings_applied = settings_applied
        self.warnings = warnings
        self._entries: tuple[EntryOutcome, ...] | None = None

    @property
    def tokens(self) -> int:
        """Tokens of the listing as shown: the sum of its parts' counts (counted on first use and
        cached per text, so a moving slider does not wait for the tokenizer)."""
        if self._tokens is None:
            m = self._model
            shown = [row[3] for row in self._rows if row[3]]
            spec = m.spec
            if not shown or spec.entries_as_one_part:
                # The empty listing's own text, or entries joined apart from the frame: the parts
                # are not what the text is made of, so the text itself is counted.
                self._tokens = m.tokens(self.text) if self.text else 0
            else:
                self._tokens = sum(m.tokens(part) for part in shown)
                self._tokens += sum(m.tokens(p) for p in m._frame_pieces)
        return self._tokens

    @property
    def headroom_chars(self) -> int | None:
        return None if self.limit_chars is None else self.limit_chars - self.used_chars

    @property
    def entries(self) -> tuple[EntryOutcome, ...]:
        if self._entries is None:
            out = []
            for item, (state, reason, kept, shown) in zip(
                self._model.items, self._rows, strict=True
            ):
                out.append(
                    EntryOutcome(
                        key=item.skill.key,
                        name=item.name,
                        path=item.skill.path,
                        outcome=state,
                        reason=reason,
                        chars=len(shown),
                        tokens=self._model.tokens(shown) if shown else 0,
                        kept_chars=kept if state in ("full", "shortened") else 0,
                        full_chars=len(item.full_text),
                    )
                )
            self._entries = tuple(out)
        return self._entries

    def shown(self) -> tuple[str, ...]:
        """Each entry's text as the listing shows it, in the order of `entries` ("" when it is
        not listed): what a model reads of the skill when it decides."""
        return tuple(row[3] for row in self._rows)

    def outcomes(self) -> dict[str, str]:
        """Skill key -> outcome, cheaply."""
        return {
            item.skill.key: row[0] for item, row in zip(self._model.items, self._rows, strict=True)
        }

    def by_outcome(self, outcome: str) -> list[EntryOutcome]:
        return [e for e in self.entries if e.outcome == outcome]

    @property
    def diagnostics(self) -> tuple[Diagnostic, ...]:
        return tuple(
            self._model._diagnostics(list(self.entries), self.limit_chars, self.used_chars)
        )


@dataclass(slots=True)
class _Prepared:
    skill: SkillEntry
    name: str
    description: str
    location: str
    scope_rank: int
    excluded: str  # rule that keeps it out regardless of budget ("" = none)
    full_text: str = ""
    name_text: str = ""
    # The entry template rendered around its description: a shortened entry is pre + cut + post,
    # a string concatenation instead of a template render (the slider shortens thousands).
    pre: str = ""
    post: str = ""
    short_path: str = ""  # alias/relative path, when the profile lists a roots table
    category: str = ""  # the folders between the root and the skill folder (see skill_category)
    group: str = ""  # the group header this entry starts with, and its separator ("" if none)
    # Its description was cut at the entry cap when the listing was prepared (`cut_notice`).
    precut: bool = False


_ALIAS_PUNCTUATION = frozenset("_:.-")
ALIAS_MAX = 256


def _alias_text(value: Any) -> str | None:
    """A frontmatter name as a listing alias: its text (a number or boolean as JavaScript's
    String() writes it) when it is at most 256 letters, marks, digits, `_`, `:`, `.` or `-`."""
    if isinstance(value, (bool, int, float)):
        text = js_string(value) or ""
    elif isinstance(value, str):
        text = value
    else:
        return None
    if not text or len(text) > ALIAS_MAX:
        return None
    if all(c in _ALIAS_PUNCTUATION or unicodedata.category(c)[0] in "LMN" for c in text):
        return text
    return None


_CLOSING_TAG = re.compile(r"^\s*</[A-Za-z][\w:-]*>")


def tidy_lines(text: str) -> str:
    """A prompt formatter's clean-up of the rendered listing (`[tier1] tidy`, oh-my-pi's
    prompt.format): every line's trailing white space removed; a run of two or more blank lines,
    and blank lines at the start, at the end or before a closing tag line, dropped; a single
    blank line between text lines kept."""
    lines = text.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i].rstrip()
        if not line:
            nxt = lines[i + 1] if i + 1 < len(lines) else None
            if nxt is None or not nxt.strip():
                while out and not out[-1]:
                    out.pop()
                while i + 1 < len(lines) and not lines[i + 1].strip():
                    i += 1
                i += 1
                continue
            if not out or not out[-1]:
                i += 1
                continue
        if _CLOSING_TAG.match(line):
            while out and not out[-1]:
                out.pop()
        out.append(line)
        i += 1
    return "\n".join(out)


def _builtin_entry(b: BuiltinSkill, root: RootInfo | None = None, path: str = "") -> SkillEntry:
    """A built-in skill as a catalog entry of its own: without a root, no file on disk; with
    one, the SKILL.md the runtime keeps (or will write) there."""
    if root is None:
        root = RootInfo(path=b.location, scope=b.scope, layout="", rank=-1, exists=False)
    path = path or b.location
    return SkillEntry(
        key=BUILTIN_KEY + b.name,
        path=path,
        real_path=path,
        directory=os.path.dirname(path) if root.rank >= 0 else "",
        root=root,
        name=b.name,
        qualified_name=b.name,
        description=b.description,
        status="ok",
        reason="built into the runtime",
        diagnostics=(),
        frontmatter={"name": b.name, "description": b.description, **b.frontmatter},
    )


def _builtin_root(catalog: Catalog, template: str) -> RootInfo:
    """The catalog's root for the `[[roots]]` path `template`, or that root as the runtime would
    have it when the catalog was built from folders named on the command line."""
    profile = catalog.profile
    index = next(i for i, r in enumerate(profile.roots) if r.path == template)
    for root in catalog.roots:
        if root.template == index:
            return root
    from skillprism.core.roots import expand_template

    n = len(profile.roots)
    rank = (n - 1 - index if profile.tie_rule == "last-wins" else index) * 1000
    home = catalog.home or os.path.expanduser("~")
    path = expand_template(template, home, home, os.environ)
    return RootInfo(path, profile.roots[index].scope, "", rank, exists=False, template=index)


def _builtins(
    catalog: Catalog, builtins: tuple[BuiltinSkill, ...]
) -> tuple[list[SkillEntry], dict[str, str]]:
    """The built-in skills to list, and the catalog's skills kept out of the listing because of
    them (key -> why): a built-in's own file on disk (listed as the built-in skill instead), or a
    skill that a built-in outranks under the profile's tie rule."""
    out: list[SkillEntry] = []
    hidden: dict[str, str] = {}
    profile = catalog.profile
    by_path = {s.path: s for s in catalog.skills}
    loaded: dict[str, list[SkillEntry]] = {}
    for s in catalog.skills:
        if s.loaded:
            loaded.setdefault(clash_key(profile, s.qualified_name or s.name), []).append(s)
    for b in builtins:
        if not b.root:
            if b.listed:
                out.append(_builtin_entry(b))
            continue
        root = _builtin_root(catalog, b.root)
        path = os.path.join(root.path, *b.location.split("/"))
        disk = by_path.get(path)
        if disk is not None:
            # The runtime's own copy, as it unpacked or ships it: listed as the profile says
            # (its name may be namespaced, its fields read its own way), not as a file of yours.
            hidden[disk.key] = f"{profile.title}'s built-in skill '{b.name}'"
            if not disk.loaded:
                continue  # a skill of yours shadows it
        if not b.listed:
            continue
        rivals = [s for s in loaded.get(clash_key(profile, b.name), []) if s.root.rank != root.rank]
        if rivals and profile.tie_rule != "keep-both":
            if any(s.root.rank < root.rank for s in rivals):
                continue  # a skill of the same name outranks the built-in one
            for s in rivals:
                hidden[s.key] = f"shadowed by {profile.title}'s built-in skill '{b.name}'"
        out.append(_builtin_entry(b, root, path))
    return out, hidden


def skill_category(skill: SkillEntry) -> str:
    """The folders between the skill's root and its folder, joined by '/'; for a skill folder
    directly in the root, that folder's own name (Hermes Agent's category)."""
    if not skill.root.path or not skill.directory:
        return "general"  # a built-in skill: in no folder
    rel = os.path.relpath(skill.directory, skill.root.path).replace(os.sep, "/")
    parts = [p for p in rel.split("/") if p not in ("", ".")]
    if not parts:
        return "general"
    return "/".join(parts[:-1]) if len(parts) > 1 else parts[0]


def _folder_location(skill: SkillEntry) -> str:
    """The skill folder's real path joined with the file's name as found (skills-ref's
    `to_prompt`: a linked SKILL.md keeps its own name, in the real folder)."""
    import os

    if not skill.directory:
        return skill.real_path
    return os.path.join(os.path.realpath(skill.directory), os.path.basename(skill.path))


def _load_slots(catalog: Catalog) -> dict[str, int]:
    """Each loaded skill's place in the runtime's load order, where a skill that overrides a
    copy loaded earlier takes that copy's place (a Map whose key is set again keeps its slot).
    Load order is the roots' own order (the last-wins rank reversed) and, inside a root, the
    catalog's order."""
    last_wins = catalog.profile.tie_rule == "last-wins"
    indexed = list(enumerate(catalog.skills))
    indexed.sort(key=lambda p: (-p[1].root.rank if last_wins else p[1].root.rank, p[0]))
    slot: dict[str, int] = {}
    for pos, (_i, skill) in enumerate(indexed):
        owner = skill.shadowed_by or skill.path
        slot.setdefault(owner, pos)
        slot[owner] = min(slot[owner], pos)
    return slot


def _field_text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, list):
        return " ".join(str(v) for v in value)
    return str(value)


def default_settings(budget: BudgetSpec) -> BudgetSettings:
    """What a user who sets nothing gets: the context window of the runtime's default model
    (`default_context_window`), else DEFAULT_CONTEXT_WINDOW."""
    return BudgetSettings(context_window=budget.default_context_window or DEFAULT_CONTEXT_WINDOW)


class Tier1Model:
    """Everything about a catalog's listing that does not depend on the budget settings."""

    def __init__(
        self, catalog: Catalog, counter: TokenCounter | None = None, spec: Tier1Spec | None = None
    ) -> None:
        self.catalog = catalog
        self.profile = catalog.profile
        self.spec: Tier1Spec = spec or catalog.profile.disclosure.tier1
        self.model_off = (
            catalog.profile.disclosure.tier2.model_invocation_off
            if self.spec.model_invocation_excludes
            else {}
        )
        self.counter = counter or EstimateCounter()
        # What the budget counts an entry by: characters, or terminal cells.
        measure = self.spec.budget.measure
        self._size = (
            display_width
            if measure == "display-width"
            else utf16_len
            if measure == "utf16"
            else len
        )
        self._token_cache: dict[str, int] = {}
        self._render_cache: dict[tuple[str, int], str] = {}
        order = {scope: i for i, scope in enumerate(self.spec.scope_order)}
        self.items: list[_Prepared] = []
        builtin, hidden = _builtins(catalog, self.spec.builtin)
        for skill in [*catalog.skills, *builtin]:
            # only what the runtime loads, and of a name only the copy that wins it (an error
            # state comes before shadowed, so a losing copy with an error is still a loser)
            if not skill.loaded or skill.shadowed_by:
                continue
            fm = skill.frontmatter
            parts = []
            for name in self.spec.description_fields:
                text = skill.description if name == "description" else _field_text(fm.get(name))
                if text:
                    fold = self.spec.line_breaks == "collapse" or (
                        self.spec.line_breaks == "fold" and "\n" in text
                    )
                    text = " ".join(text.split()) if fold else text
                    if text:
                        parts.append(text)
            description = self.spec.description_joiner.join(parts)
            description, precut = self._listed(skill, description)
            if not description and self.spec.empty_description:
                description = self.spec.empty_description
            # Kept from the model by activation rules, or left out of the listing by its own.
            exact = self.spec.exclude_match == "exact"
            excluded = flag_set(fm, self.model_off, exact) or flag_set(
                fm, self.spec.exclude_fields, exact
            )
            present = skill.description is not None and self.spec.list_empty_description
            if not excluded and self.spec.require_description and not description and not present:
                excluded = "no description"
            excluded = excluded or hidden.get(skill.key, "") or self._md_unlisted(skill)
            self.items.append(
                _Prepared(
                    skill,
                    skill.qualified_name or skill.name,
                    description,
                    skill.real_path,
                    order.get(skill.root.scope, len(order)),
                    excluded,
                    precut=precut,
                )
            )
        order = self.spec.order
        templates = self.spec.entry + self.spec.entry_name_only
        if order == "category" or self.spec.group_header or "{category}" in templates:
            for item in self.items:
                item.category = skill_category(item.skill)
        if order == "name":
            self.items.sort(key=lambda p: p.name)
        elif order == "name-casefold":
            self.items.sort(key=lambda p: casefold_key(p.name, p.skill.path))
        elif order == "name-locale":
            self.items.sort(key=lambda p: locale_key(p.name))
        elif order == "load":
            slots = _load_slots(catalog)
            self.items.sort(key=lambda p: slots.get(p.skill.path, -1))
        elif order == "category":
            self.items.sort(key=lambda p: (p.category, p.name))
        elif order == "scope":
            if self.spec.scope_then == "name":
                self.items.sort(key=lambda p: (p.scope_rank, p.name, p.location))
            else:
                self.items.sort(key=lambda p: p.scope_rank)  # stable: catalog order in a scope
        self._roots_text = self._alias_roots() if self.spec.root_alias else ""
        # The listing is header, entries and footer joined by the separator (empty parts left
        # out); `_frame` is what header and footer add, each with its separator.
        self._frame_pieces = [p for p in (self.spec.header, self.spec.footer) if p]
        self._frame = sum(self._size(p) for p in self._frame_pieces) + len(
            self.spec.separator
        ) * len(self._frame_pieces)
        if self.spec.group_header:
            last = None
            for item in self.items:
                if item.excluded:
                    continue
                if item.category != last:
                    header = self.spec.group_header.format(category=item.category)
                    item.group = header + self.spec.separator
                    last = item.category
        marker = "\x00description\x00"
        aliases = self._aliases()
        for item in self.items:
            values = self._values(item)
            alias = aliases.get(id(item))
            if alias is not None:
                values["name"] = self.spec.name_alias.format(
                    name=values["name"], alias=self._esc(alias, "name")
                )
            item.name_text = self.spec.entry_name_only.format_map(values)
            if not item.description and not (
                self.spec.list_empty_description and item.skill.description is not None
            ):
                item.full_text = item.name_text  # nothing to show: the runtime lists the name only
                item.pre, item.post = item.name_text, ""
                continue
            whole = self.spec.entry.format_map({**values, "description": marker})
            if whole.count(marker) == 1:
                item.pre, _, item.post = whole.partition(marker)
                item.full_text = item.pre + self._esc(item.description) + item.post
            else:  # description used twice or not at all: render each cut in full
                item.full_text = self.spec.entry.format_map(
                    {**values, "description": self._esc(item.description)}
                )
                item.pre = item.post = ""

    def _md_unlisted(self, skill: SkillEntry) -> str:
        """Why an `*.md` skill stays out of the listing (`[tier1] md_listed_with`; "" = it is
        listed)."""
        need = self.spec.md_listed_with
        if not need or not is_md_skill(self.profile, skill.root.template, skill.path):
            return ""
        if any(skill.frontmatter.get(k) for k in need):
            return ""
        return f"an .md skill without {' or '.join(need)}: {self.profile.title} does not list it"

    def _listed(self, skill: SkillEntry, description: str) -> tuple[str, bool]:
        """The description as the listing holds it before any budget: the body's first line for a
        missing one (`description_fallback`), cut at the entry cap with the `cut_notice` after it,
        stripped (`strip_description`); and whether the cap cut it."""
        spec, b = self.spec, self.spec.budget
        left_out = 0
        if not description and spec.description_fallback and skill.body_line:
            description, left_out = skill.body_line
        cut = False
        if b.cut_notice:
            cap = b.entry_cap_chars
            if cap and len(description) > cap:
                left_out += len(description) - cap
                description, cut = description[:cap], True
            if left_out:
                name = skill.qualified_name or skill.name
                description += b.cut_notice.format(count=left_out, name=name)
        if spec.strip_description:
            description = description.strip()
        return description, cut

    # --- rendering -------------------------------------------------------------------------------

    def _alias_roots(self) -> str:
        """Give each root the listing uses an alias, numbered in the roots' own order (rank), and
        each entry its short path (`r0/name/SKILL.md`); the roots table that the header's
        {roots} stands for."""
        import os

        aliases: dict[str, str] = {}
        lines = []
        by_root = sorted(self.items, key=lambda p: p.skill.root.rank)
        for item in by_root:
            root = item.skill.root
            if item.excluded:
                continue
            if not root.exists and root.rank < 0:  # built-in: no root to name
                item.short_path = item.location
                continue
            real_root = os.path.realpath(root.path)
            alias = aliases.get(real_root)
            if alias is None:
                alias = self.spec.root_alias.format(index=len(aliases))
                aliases[real_root] = alias
                lines.append(self.spec.roots_line.format(alias=alias, root=real_root))
            rel = os.path.relpath(item.location, real_root)
            if rel == ".." or rel.startswith(".." + os.sep):  # linked in from elsewhere
                rel = os.path.relpath(item.skill.path, root.path)
            rel = rel.replace(os.sep, "/")
            item.short_path = f"{alias}/{rel}"
        return self.spec.separator.join(lines)

    def _esc(self, text: str, field: str = "description") -> str:
        escape = self.spec.escape
        if escape == "none" or field not in self.spec.escape_fields:
            return text
        out = html.escape(text, quote=escape != "xml-text")
        if escape == "xml-apos":
            return out.replace("&#x27;", "&apos;")
        return out.replace("&#x27;", "&#39;") if escape == "xml-dec" else out

    def _aliases(self) -> dict[int, str]:
        """The entries that show their frontmatter name beside the listed one (`name_alias`):
        the name is text of at most 256 letters, marks, digits and `_:.-`, differs from the
        listed name (and is not its part after a `plugin:`), no listed skill has it as its own
        name, and this is the first listed skill that has it (Claude Code 2.1.330: sOn)."""
        if not self.spec.name_alias:
            return {}
        listed = [item for item in self.items if not item.excluded]
        taken = {item.name for item in listed}
        out: dict[int, str] = {}
        seen: set[str] = set()
        for item in listed:
            alias = _alias_text(item.skill.frontmatter.get("name"))
            if (
                alias is None
                or alias == item.name
                or item.name.endswith(":" + alias)
                or alias in taken
                or alias in seen
            ):
                continue
            seen.add(alias)
            out[id(item)] = alias
        return out

    def _values(self, item: _Prepared) -> dict[str, str]:
        values = {
            "name": self._esc(item.name, "name"),
            "location": self._esc(self._home_tilde(item.location), "location"),
            "scope": item.skill.root.scope,
            "path": self._esc(self._home_tilde(item.skill.path), "path"),
            "short_path": self._esc(item.short_path, "location"),
            "folder_location": "",
            "category": item.category,
            "group": item.group,
        }
        # Resolving the folder asks the file system once per skill: only for a style that shows it.
        if (
            "{folder_location}" in self.spec.entry
            or "{folder_location}" in self.spec.entry_name_only
        ):
            values["folder_location"] = self._esc(
                self._home_tilde(_folder_location(item.skill)), "location"
            )
        return values

    def _home_tilde(self, path: str) -> str:
        """`path` as `~/...` when it lies under the home folder and the style writes it so."""
        home = self.catalog.home.rstrip("/")
        if self.spec.home_tilde and home and path.startswith(home + "/"):
            return "~" + path[len(home) :]
        return path

    def _cut_text(self, description: str, keep: int) -> str:
        """`description` cut to `keep` characters, the profile's cut suffix ("…", "...") ending
        the cut within them."""
        b = self.spec.budget
        suffix = b.cut_suffix
        if b.model == "round-robin":
            # Codex: the entry cap cuts the description (with its suffix) when it is loaded; the
            # budget then takes characters of that text, with no suffix of its own.
            cap = b.entry_cap_chars
            if cap and len(description) > cap:
                description = description[: max(0, cap - len(suffix))] + suffix[: max(0, cap)]
            return description[:keep]
        if not suffix:
            return description[:keep]
        return description[: max(0, keep - len(suffix))] + suffix[: max(0, keep)]

    def _cut(self, item: _Prepared, keep: int) -> str:
        """The full entry with its description cut to `keep` characters."""
        if keep >= len(item.description):
            return item.full_text
        cut = self._cut_text(item.description, keep)
        if item.pre or item.post:
            return item.pre + self._esc(cut) + item.post
        key = (item.skill.key, keep)
        cached = self._render_cache.get(key)
        if cached is None:
            cached = self.spec.entry.format_map(
                {**self._values(item), "description": self._esc(cut)}
            )
            self._render_cache[key] = cached
        return cached

    def _cut_len(self, item: _Prepared, keep: int) -> int:
        """The budget size of self._cut(item, keep) (its length, or its display width), without
        building the string where that is exact."""
        if keep >= len(item.description):
            return self._size(item.full_text)
        if self._size is len and self.spec.escape == "none" and (item.pre or item.post):
            return len(item.pre) + keep + len(item.post)
        return self._size(self._cut(item, keep))

    def _name_len(self, item: _Prepared) -> int:
        """The budget size of the entry without its description."""
        return self._size(item.name_text)

    def tokens(self, text: str) -> int:
        n = self._token_cache.get(text)
        if n is None:
            n = self.counter.count(text)
            self._token_cache[text] = n
        return n

    # --- budget ------------------------------------------------------------------------------------

    def limit(self, settings: BudgetSettings) -> tuple[int | None, list[str]]:
        b: BudgetSpec = self.spec.budget
        notes: list[str] = []
        if settings.budget_chars is not None:
            return settings.budget_chars, [f"fixed budget of {settings.budget_chars:,} characters"]
        if b.model == "none":
            return None, [f"{self.profile.title} puts no budget on the listing"]
        fraction = (
            settings.budget_fraction if settings.budget_fraction is not None else b.context_fraction
        )
        if settings.context_window <= 0 or fraction <= 0:
            notes.append(f"context window unknown: fallback of {b.fallback_chars:,} characters")
            return b.fallback_chars, notes
        limit = int(settings.context_window * fraction * b.chars_per_token)
        notes.append(
            f"limit = {settings.context_window:,} tokens x {fraction:g} x {b.chars_per_token:g} "
            f"chars/token = {limit:,} characters"
        )
        return limit, notes

    def compute(self, settings: BudgetSettings | None = None) -> Tier1Result:
        settings = settings or default_settings(self.spec.budget)
        spec, b = self.spec, self.spec.budget
        cap = (
            settings.entry_cap_chars if settings.entry_cap_chars is not None else b.entry_cap_chars
        )
        limit, assumptions = self.limit(settings)
        assumptions.append(f"token counts by {self.counter.name}")
        if b.model != "none" or settings.budget_chars is not None:
            assumptions.append(f"entries listed in {spec.order} order; ties: {b.tie_order}")
            if not b.count_frame:
                assumptions.append(
                    "the listing's fixed header and footer do not count against the budget"
                )
        allow = (
            None if not spec.allowlist or settings.allowlist is None else set(settings.allowlist)
        )
        # The common case (no overrides, allowlist or disabled skills) skips those checks per skill.
        personal = bool(
            settings.overrides
            or allow is not None
            or settings.disabled
            or settings.disabled_names
            or settings.disabled_globs
            or settings.permission_rules
        )

        items = self.items
        n = len(items)
        state = ["full"] * n
        reason = [""] * n
        keep = [0] * n
        listed: list[int] = []
        sep = len(spec.separator)
        total = self._frame if b.count_frame else 0
        for i, item in enumerate(items):
            why = item.excluded
            override = "on"
            if personal and not why:
                override = settings.overrides.get(item.name, "on")
                where = {item.name, item.skill.path, item.skill.real_path, item.skill.directory}
                if (
                    (settings.disabled and where & settings.disabled)
                    or item.name.lower() in settings.disabled_names
                    or any(fnmatchcase(item.name, g) for g in settings.disabled_globs)
                ):
                    why = "disabled in the runtime's settings"
                elif permission_action(settings.permission_rules, item.name) == "deny":
                    why = "denied by the runtime's permission rules"
                elif allow is not None and "*" not in allow and item.name not in allow:
                    why = (
                        "not in the agent's allowlist"
                        if allow
                        else "the agent's allowlist is empty"
                    )
                elif override in ("off", "user-invocable-only"):
                    why = f"override {override}"
            if why:
                state[i], reason[i] = "excluded", why
                continue
            listed.append(i)
            full_len = len(item.description)
            keep[i] = full_len
            if override == "name-only":
                state[i], reason[i] = "name-only", "override name-only"
                total += self._name_len(item) + sep
            elif item.precut:
                state[i] = "shortened"
                reason[i] = f"description cut to the {b.entry_cap_chars:,}-character entry cap"
                total += self._cut_len(item, full_len) + sep
            elif cap and full_len > cap and not b.cut_notice:
                keep[i] = cap
                state[i] = "shortened"
                reason[i] = f"description cut to the {cap:,}-character entry cap"
                total += self._cut_len(item, cap) + sep
            else:
                total += self._cut_len(item, full_len) + sep
        if listed or (b.count_frame and self._frame_pieces):
            total -= sep
        warnings: list[str] = []
        texts: dict[int, str] = {}  # entries the budget rewrote (the compact format)
        header, note = spec.header, ""
        if b.model == "compact" and limit is not None:
            header, note = self._compact(listed, state, reason, keep, limit, texts, warnings)
        elif b.model == "round-robin" and limit is not None:
            # Codex costs each line in tokens (its bytes / 4, rounded up): whether the listing
            # fits is decided line by line, not by the character total.
            self._round_robin(listed, state, reason, keep, settings, warnings)
        elif limit is not None and total > limit:
            self._fit(listed, state, reason, keep, limit, total, settings, warnings)

        rows: list[tuple[str, str, int, str]] = []
        parts: list[str] = []
        for i, item in enumerate(items):
            st = state[i]
            if i in texts and st != "omitted":
                shown = texts[i]
            elif st == "full":
                shown = item.full_text
            elif st == "shortened":
                shown = self._cut(item, keep[i])
            elif st == "name-only":
                shown = item.name_text
            else:
                shown = ""
            if shown:
                parts.append(shown)
            rows.append((st, reason[i], keep[i], shown))
        if parts or spec.empty == "frame":
            if spec.root_alias:
                header = header.replace("{roots}", self._roots_text)
            if spec.entries_as_one_part:
                joiner = spec.separator if spec.entry_separator is None else spec.entry_separator
                listed = spec.entries_open + joiner.join(parts) + spec.entries_close
                pieces = (header, listed if parts else "", spec.footer)
            else:
                pieces = (header, *parts, spec.footer)
            text = spec.separator.join([p for p in pieces if p])
            if spec.tidy:
                text = tidy_lines(text)
            if note:
                text = note + spec.separator + b.lead + text
        else:
            text = note or spec.empty_text  # "" unless empty = "text"
        return Tier1Result(
            self,
            rows,
            text=text,
            limit_chars=limit,
            context_window=settings.context_window,
            assumptions=tuple(assumptions),
            settings_applied=settings.applied,
            warnings=tuple(warnings),
            usage_records=settings.usage_records,
        )

    def _compact(
        self,
        listed: list[int],
        state: list[str],
        reason: list[str],
        keep: list[int],
        limit: int,
        texts: dict[int, str],
        warnings: list[str],
    ) -> tuple[str, str]:
        """OpenClaw's budget (`model = "compact"`, core/compact_budget.py): the listing's header
        and note line, with each entry's outcome (and its compact text in `texts`)."""
        b = self.spec.budget
        items = self.items
        size = self._size
        sep = len(self.spec.separator)
        frame = sum(size(p) + sep for p in (self.spec.footer,) if p) + size(b.lead)
        full = [
            size(items[i].name_text if state[i] == "name-only" else self._cut(items[i], keep[i]))
            for i in listed
        ]
        cache: dict[int, list[str]] = {}

        def entries(chars: int) -> list[str]:
            if chars not in cache:
                cache[chars] = [self._compact_text(i, state, keep, chars) for i in listed]
            return cache[chars]

        prefix: dict[int, list[int]] = {}

        def sizes(chars: int) -> list[int]:
            if chars not in prefix:
                run = [0]
                for n in full if chars == FULL else (size(t) for t in entries(chars)):
                    run.append(run[-1] + n + sep)
                prefix[chars] = run
            return prefix[chars]

        def header_of(chars: int) -> str:
            if chars == FULL:
                return self.spec.header
            return b.compact_header if chars > 0 else b.compact_header_names

        total = len(listed)

        def measured(count: int, chars: int, with_note: bool) -> int:
            catalog = size(header_of(chars)) + sizes(chars)[count] + frame if count else 0
            note = size(note_text(b, count, total, chars)) if with_note else 0
            return note + (sep if note and catalog else 0) + catalog

        plan = plan_compact(b, total, limit, measured)
        if plan.chars != FULL:
            for pos, i in enumerate(listed[: plan.count]):
                texts[i] = entries(plan.chars)[pos]
                if state[i] == "name-only":
                    continue
                if plan.chars == 0 or texts[i] == items[i].name_text:
                    state[i], reason[i] = "name-only", "description left out: compact format"
                    keep[i] = 0
                else:
                    desc = compact_description(
                        items[i].description[: keep[i]], plan.chars, b.cut_suffix, size
                    )
                    if desc != " ".join(items[i].description.split()):
                        state[i] = "shortened"
                        reason[i] = f"compact format: description cut to {plan.chars:,} characters"
                        keep[i] = len(desc)
        for i in listed[plan.count :]:
            state[i], reason[i] = "omitted", "left out: the listing is over its budget"
        note = note_text(b, plan.count, total, plan.chars) if plan.note else ""
        if note:
            warnings.append(note)
        return header_of(plan.chars), note

    def _compact_text(self, i: int, state: list[str], keep: list[int], chars: int) -> str:
        """Item `i`'s entry in the compact format at `chars` (0: its name only)."""
        item = self.items[i]
        if chars == 0 or state[i] == "name-only":
            return item.name_text
        b = self.spec.budget
        desc = compact_description(item.description[: keep[i]], chars, b.cut_suffix, self._size)
        if not desc:
            return item.name_text
        if item.pre or item.post:
            return item.pre + self._esc(desc) + item.post
        return self.spec.entry.format_map({**self._values(item), "description": self._esc(desc)})

    def _round_robin(
        self,
        listed: list[int],
        state: list[str],
        reason: list[str],
        keep: list[int],
        settings: BudgetSettings,
        warnings: list[str],
    ) -> None:
        """Codex's budget (`model = "round-robin"`): each skill line plus its line break costs
        ceil(UTF-8 bytes / 4) tokens against `context_window x context_fraction` tokens (or its
        characters against `fallback_chars` when the window is unknown), less what the roots
        table costs beyond `roots_free_bytes` (when set). Every line full when
        they all fit; else, when the lines without descriptions fit, description characters are
        handed out one at a time in listing order, a skill taking its next one while the tokens
        it adds still fit (a description cut so ends without a suffix); else the description-less
        lines are listed in order while each still fits."""
        b = self.spec.budget
        items = self.items
        fraction = (
            settings.budget_fraction if settings.budget_fraction is not None else b.context_fraction
        )
        tokens = (
            settings.budget_chars is None
            and b.unit == "tokens"
            and settings.context_window > 0
            and fraction > 0
        )
        if tokens:
            limit = max(1, int(settings.context_window * fraction))
        elif settings.budget_chars is not None:
            limit = settings.budget_chars
        else:
            limit = b.fallback_chars

        def cost(n_chars: int, n_bytes: int) -> int:
            return -(-n_bytes // 4) if tokens else n_chars

        def line_cost(text: str) -> int:
            return cost(len(text) + 1, len(text.encode("utf-8")) + 1)

        free = b.roots_free_bytes
        if free >= 0 and self._roots_text:
            # Codex 0.169.0 takes the roots table's cost beyond a fixed allowance off the budget
            # (lab: three path lengths, one to four roots).
            chars, size = len(self._roots_text), len(self._roots_text.encode("utf-8"))
            if size > free:
                limit = max(0, limit - cost(max(0, chars - free), size - free))

        rows = [i for i in listed if state[i] != "name-only"]
        fixed = [i for i in listed if state[i] == "name-only"]
        full = sum(line_cost(self._cut(items[i], keep[i])) for i in rows)
        full += sum(line_cost(items[i].name_text) for i in fixed)
        if full <= limit:
            return
        minimum = sum(line_cost(items[i].name_text) for i in listed)
        if minimum <= limit:
            remaining = limit - minimum
            extra: dict[int, list[int]] = {}
            for i in rows:
                item = items[i]
                base_chars = len(item.name_text) + 1
                base_bytes = len(item.name_text.encode("utf-8")) + 1
                base = cost(base_chars, base_bytes)
                costs, pb = [0], 0
                for n, ch in enumerate(item.description[: keep[i]], 1):
                    pb += len(ch.encode("utf-8"))
                    costs.append(cost(base_chars + n + 1, base_bytes + pb + 1) - base)
                extra[i] = costs
            given = dict.fromkeys(rows, 0)
            changed = True
            while changed:
                changed = False
                for i in rows:
                    n = given[i]
                    if n >= len(extra[i]) - 1:
                        continue
                    delta = extra[i][n + 1] - extra[i][n]
                    if delta <= remaining:
                        given[i] = n + 1
                        remaining -= delta
                        changed = True
            cut = 0
            for i in rows:
                if given[i] < keep[i]:
                    cut += keep[i] - given[i]
                    if given[i] == 0:
                        state[i], reason[i] = "name-only", "description left out to fit the budget"
                    else:
                        state[i] = "shortened"
                        reason[i] = f"description cut to {given[i]:,} characters to fit the budget"
                    keep[i] = given[i]
            if cut:
                warnings.append(
                    f"descriptions shortened by {cut:,} characters in all to fit the budget "
                    f"of {limit:,} {'tokens' if tokens else 'characters'}"
                )
            return
        used = 0
        shown = 0
        for i in listed:
            c = line_cost(items[i].name_text)
            if used + c <= limit:
                used += c
                shown += 1
                if state[i] != "name-only":
                    state[i], reason[i] = "name-only", "description left out to fit the budget"
                    keep[i] = 0
            else:
                state[i], reason[i] = "omitted", "left out: the listing is over its budget"
        if b.warning and shown < len(listed):
            warnings.append(
                b.warning.format(
                    chars=0,
                    shown=shown,
                    total=len(listed),
                    dropped=len(listed) - shown,
                    limit=limit,
                )
            )

    def _fit(
        self,
        listed: list[int],
        state: list[str],
        reason: list[str],
        keep: list[int],
        limit: int,
        total: int,
        settings: BudgetSettings,
        warnings: list[str],
    ) -> int:
        b = self.spec.budget
        chars = total  # the listing's size before anything is cut, for the warning's {chars}
        items = self.items
        sep = len(self.spec.separator)
        frame = self._frame if b.count_frame else 0
        has_frame = b.count_frame and bool(self._frame_pieces)
        if b.model == "drop-descriptions":
            # Least-used first; equal usage: the last listed goes first. Pinned skills keep theirs.
            usage = settings.usage
            pins = settings.pins
            candidates = [
                i for i in listed if state[i] != "name-only" and items[i].name not in pins
            ]
            candidates.sort(key=lambda i: (usage.get(items[i].name, 0.0), -i) if usage else -i)
            dropped = 0
            for i in candidates:
                if total <= limit:
                    break
                item = items[i]
                total -= self._cut_len(item, keep[i]) - self._name_len(item)
                state[i] = "name-only"
                reason[i] = "description dropped: the listing is over its budget"
                dropped += 1
            if dropped and b.warning:
                warnings.append(
                    _warning(b.warning, chars, dropped, len(listed), len(listed), limit)
                )
            if total > limit:
                warnings.append(
                    f"the listing is {total - limit:,} characters over budget even with names only"
                )
            return total
        if b.model == "keep-by-priority":
            # Names always stay. Name-only overrides and pinned skills keep their entry as it
            # is; the rest, most-used first (ties: listing order), each keep their description
            # only if the characters it adds still fit: a later, shorter one can fit after a
            # longer one did not.
            usage, pins = settings.usage, settings.pins
            fixed = {
                i
                for i in listed
                if state[i] == "name-only"
                or items[i].name in pins
                or (b.builtin_full and is_builtin_key(items[i].skill.key))
            }
            rest = [i for i in listed if i not in fixed]
            if not rest:
                return total
            used = frame + sep * len(listed) - (sep if (listed or has_frame) else 0)
            for i in listed:
                pinned_full = i in fixed and state[i] != "name-only"
                used += (
                    self._cut_len(items[i], keep[i]) if pinned_full else self._name_len(items[i])
                )
            room = limit - used
            rest.sort(key=lambda i: -usage.get(items[i].name, 0.0))
            dropped = 0
            for i in rest:
                extra = self._cut_len(items[i], keep[i]) - self._name_len(items[i])
                if extra <= room:
                    room -= extra
                else:
                    state[i] = "name-only"
                    reason[i] = "description dropped: it no longer fits the listing's budget"
                    dropped += 1
            if b.warning:
                warnings.append(
                    _warning(b.warning, chars, dropped, len(listed), len(listed), limit)
                )
            if room < 0:
                warnings.append(
                    f"the listing is {-room:,} characters over budget even with names only"
                )
            return limit - room
        if b.model == "trim-then-omit":
            # Cut every description to the longest common length L that fits; if even empty
            # descriptions do not fit, leave skills out from the end of the order.
            base_total = frame + sep * len(listed) - (sep if (listed or has_frame) else 0)
            descs: list[int] = []
            for i in listed:
                item = items[i]
                if state[i] == "name-only":
                    base_total += len(item.name_text)
                    continue
                k = keep[i]
                # the entry without its description (exact when nothing is escaped)
                base_total += self._cut_len(item, k) - (
                    k if self.spec.escape == "none" else len(self._esc(item.description[:k]))
                )
                descs.append(k)
            order = sorted(descs)
            prefix = [0]
            for d in order:
                prefix.append(prefix[-1] + d)

            def total_at(cut: int) -> int:
                j = bisect.bisect_right(order, cut)
                return base_total + prefix[j] + cut * (len(order) - j)

            lo = 0
            if total_at(0) <= limit:
                hi = order[-1] if order else 0
                while lo < hi:
                    mid = (lo + hi + 1) // 2
                    if total_at(mid) <= limit:
                        lo = mid
                    else:
                        hi = mid - 1
            trimmed = f"description trimmed to {lo:,} characters to fit the budget"
            for i in listed:
                if state[i] != "name-only" and keep[i] > lo:
                    keep[i] = lo
                    state[i], reason[i] = "shortened", trimmed
            total = total_at(lo)
            shown = len(listed)
            for i in reversed(listed):
                if total <= limit:
                    break
                item = items[i]
                total -= (
                    len(item.name_text) if state[i] == "name-only" else self._cut_len(item, keep[i])
                )
                total -= sep if (shown > 1 or has_frame) else 0
                state[i], reason[i] = "omitted", "left out: the listing is over its budget"
                shown -= 1
            if b.warning and (shown < len(listed) or lo < (order[-1] if order else 0)):
                warnings.append(
                    b.warning.format(
                        chars=chars,
                        shown=shown,
                        total=len(listed),
                        dropped=len(listed) - shown,
                        limit=limit,
                    )
                )
            return total
        if b.model == "exclude-overflow":
            # In listing order, a skill that would push the listing over the limit is left out;
            # a later, smaller one may still fit.
            running = frame
            shown = 0
            for i in listed:
                item = items[i]
                size = (
                    self._name_len(item)
                    if state[i] == "name-only"
                    else self._cut_len(item, keep[i])
                )
                if running + size <= limit:
                    running += size + sep
                    shown += 1
                else:
                    state[i], reason[i] = (
                        "omitted",
                        "left out: it would push the listing over its budget",
                    )
            if b.warning and shown < len(listed):
                warnings.append(
                    b.warning.format(
                        chars=chars,
                        shown=shown,
                        total=len(listed),
                        dropped=len(listed) - shown,
                        limit=limit,
                    )
                )
            return running - sep if (shown or has_frame) else 0
        return total

    def _diagnostics(
        self, entries: list[EntryOutcome], limit: int | None, used: int
    ) -> list[Diagnostic]:
        title = self.profile.title
        policy = self.catalog.reporting()
        out: list[Diagnostic | None] = []
        rules = {
            "name-only": ("description-dropped", f"{title} lists this skill by name only"),
            "shortened": ("description-shortened", f"{title} shows a shortened description"),
            "omitted": ("omitted-by-budget", f"{title} does not list this skill"),
            "excluded": ("excluded-from-listing", f"{title} does not list this skill"),
        }
        for e in entries:
            if e.outcome in rules:
                rule, effect = rules[e.outcome]
                out.append(
                    policy.report(
                        rule,
                        f"{e.name}: {e.outcome} ({e.reason})",
                        e.path,
                        effect=effect,
                        hint=_hint(e.outcome),
                    )
                )
            if e.tokens > GUIDANCE_TOKENS_PER_ENTRY and e.outcome in ("full", "shortened"):
                out.append(
                    policy.report(
                        "entry-over-guidance",
                        f"{e.name}: listing entry is {e.tokens} tokens; guidance about "
                        f"{GUIDANCE_TOKENS_PER_ENTRY}",
                        e.path,
                        effect="the listing costs more of every prompt",
                        hint="tighten the description to what it does and when to use it",
                    )
                )
        if limit is not None and used > limit:
            out.append(
                policy.report(
                    "listing-over-budget",
                    f"listing is {used:,} characters; budget {limit:,}",
                    "",
                    effect=f"{title} cannot fit the listing",
                    hint="shorten descriptions, or turn skills off for this runtime",
                )
            )
        return [d for d in out if d is not None]


def _warning(template: str, chars: int, dropped: int, shown: int, total: int, limit: int) -> str:
    """The runtime's own over-budget warning, filled in."""
    return template.format(chars=chars, dropped=dropped, shown=shown, total=total, limit=limit)


def _hint(outcome: str) -> str:
    return {
        "name-only": "shorten descriptions across the set, pin this skill, or raise the budget",
        "shortened": "put the essentials in the first sentences of the description",
        "omitted": "shorten descriptions across the set or raise the budget",
        "excluded": "see the reason; change the frontmatter or the override if unintended",
    }[outcome]
