"""The disclosure part of a runtime profile, as data: the tier-1 listing template and exclusions,
the prompt budget model, tier-2 activation, and which runtime settings change them.

Parsed from the profile's `[tier1]`, `[tier1.budget]`, `[tier2]`, `[settings]`, `[usage]` and
`[toggle]` tables
(documented in docs/profiles.md). `profiles.parse_profile` calls `parse_disclosure`.
"""

from __future__ import annotations

import string
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from skillprism.core.local_state_spec import ToggleSpec, UsageSpec, parse_toggle, parse_usage

ESCAPES = ("none", "xml", "xml-apos", "xml-dec", "xml-text")
ESCAPE_FIELDS = ("name", "description", "location", "path")
EMPTY = ("omit", "frame", "text")
ORDERS = ("catalog", "name", "name-casefold", "name-locale", "scope", "load", "category")
SCOPE_THEN = ("catalog", "name")
LINE_BREAKS = ("fold", "keep", "collapse")
BUDGET_MODELS = (
    "none",
    "drop-descriptions",
    "keep-by-priority",
    "trim-then-omit",
    "round-robin",
    "exclude-overflow",
    "compact",
)
LIMIT_UNITS = ("chars", "tokens")
# What the budget counts: characters, or terminal cells (core/textwidth.py: wide characters two).
# `utf16`: JavaScript string length (a character beyond U+FFFF counts two; OpenClaw).
MEASURES = ("chars", "display-width", "utf16")
KNOBS = (
    "context_window",
    "overrides",
    "budget_fraction",
    "budget_chars",
    "entry_cap_chars",
    "disabled_skills",
    "disabled_names",
    "disabled_list",
    "minus_entries",
    "disabled_flags",
    "disabled_globs",
    "permission_rules",
)
SETTINGS_FORMATS = ("json", "jsonc", "toml", "yaml")
CONSENT = ("none", "first-activation")


@dataclass(frozen=True, slots=True)
class BudgetSpec:
    """How the runtime limits the tier-1 listing. `limit = context_window x context_fraction`
    in `unit` (converted to characters with `chars_per_token`), or `fallback_chars` when the
    context window is unknown."""

    model: str = "none"
    unit: str = "chars"
    context_fraction: float = 0.0
    chars_per_token: float = 4.0
    fallback_chars: int = 0
    # The context window (tokens) of the model the runtime uses by default, when the user sets
    # none and the runtime's own settings name none; 0: Skill Prism's DEFAULT_CONTEXT_WINDOW.
    default_context_window: int = 0
    entry_cap_chars: int = 0
    warning: str = ""
    tie_order: str = "last-listed dropped first"
    count_frame: bool = True  # whether the listing's fixed header/footer count against the limit
    cut_suffix: str = ""  # appended to a description cut at entry_cap_chars (within the cap)
    # Appended after a description cut at entry_cap_chars (beyond the cap), and after a body line
    # standing in for a description when more body follows; {count} = the characters left out,
    # {name} = the skill's name (OpenHands' to_prompt). Only with model = "none".
    cut_notice: str = ""
    # keep-by-priority: the runtime's built-in skills always keep their description (Factory
    # Droid's builtin location, Claude Code's bundled skills), as a pinned skill does.
    builtin_full: bool = False
    measure: str = "chars"  # how an entry's size is counted against the limit (MEASURES)
    # model = "compact" (core/compact_budget.py, OpenClaw): at most `max_entries` skills (0: no
    # cap); the text the runtime's listing starts with before the prompt trims it (counted);
    # the compact format's header with descriptions and with names only; the note line before a
    # compact listing and before a cut one ({detail}: `truncated_detail` in the compact format);
    # the words {descriptions} stands for (shortened, omitted); the common description length's
    # search range.
    # round-robin (Codex 0.169.0): the roots table's bytes beyond this many cost tokens (bytes / 4,
    # rounded up) off the budget; -1 = the table costs nothing.
    roots_free_bytes: int = -1
    max_entries: int = 0
    lead: str = ""
    compact_header: str = ""
    compact_header_names: str = ""
    compact_note: str = ""
    truncated_note: str = ""
    truncated_detail: str = ""
    descriptions_words: tuple[str, ...] = ()
    compact_min_chars: int = 0
    compact_max_chars: int = 0


@dataclass(frozen=True, slots=True)
class BuiltinSkill:
    """A skill the runtime always has, whatever is on disk (OpenCode's own, Codex's bundled ones).

    Without `root` it has no file: `location` is what the listing shows. With `root` (a
    `[[roots]]` path of the profile, the folder the runtime keeps its own skills in) `location`
    is the SKILL.md's path inside that root: the skill is listed there, with that root's scope
    and alias, whether or not the folder exists yet (Codex unpacks its bundled skills at start).
    `listed = false`: the runtime has it but keeps it out of the listing. `frontmatter`: its other
    fields that the listing reads (`when_to_use`, `disable-model-invocation`, ...)."""

    name: str
    description: str
    location: str = "<built-in>"
    scope: str = "built-in"
    root: str = ""
    listed: bool = True
    frontmatter: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Tier1Spec:
    header: str = "<available_skills>"
    footer: str = "</available_skills>"
    entry: str = (
        "<skill>\n<name>{name}</name>\n<description>{description}</description>\n"
        "<location>{location}</location>\n</skill>"
    )
    entry_name_only: str = "<skill>\n<name>{name}</name>\n<location>{location}</location>\n</skill>"
    separator: str = "\n"
    escape: str = "xml"
    empty: str = "omit"
    exclude_fields: Mapping[str, Any] = field(default_factory=dict)
    exclude_match: str = "loose"
    # Skills kept from the model ([tier2] model_invocation_off) are left out of this listing too.
    model_invocation_excludes: bool = (
        True  # loose: 'true' matches true; exact: the YAML value and type
    )
    require_description: bool = True
    # Paths under the home folder are written '~/...' ({location}, {path}, {folder_location}):
    # OpenClaw's compactPromptSkills.
    home_tilde: bool = False
    list_empty_description: bool = False  # an empty (but present) description is still listed
    allowlist: bool = False
    order: str = "catalog"
    scope_order: tuple[str, ...] = ()
    description_fields: tuple[str, ...] = ("description",)
    description_joiner: str = " "
    budget: BudgetSpec = field(default_factory=BudgetSpec)
    styles: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    escape_fields: tuple[str, ...] = ("name", "description")
    # What the listing shows for a description left empty (after line_breaks): "" = the name-only
    # entry; Factory Droid writes 'No description provided'.
    empty_description: str = ""
    line_breaks: str = "fold"  # fold: line breaks in a description become spaces; keep
    tidy: bool = False  # the prompt formatter's pass: line ends trimmed, blank-line runs dropped
    scope_then: str = "catalog"  # order inside one scope when order = "scope"
    builtin: tuple[BuiltinSkill, ...] = ()
    root_alias: str = ""  # e.g. "r{index}": entries may use {short_path}, the header {roots}
    roots_line: str = "- `{alias}` = `{root}`"
    # Written before the first listed entry of each category as `{group}` (Hermes Agent's index).
    group_header: str = ""
    # How an entry writes its name when the frontmatter `name` differs from it and also calls the
    # skill ("{name} ({alias})": Claude Code's sOn); "" = never.
    name_alias: str = ""
    # The entries as one part of the listing, only when there are any: `entries_open`, the
    # entries joined by `entry_separator`, `entries_close` (Cline's ' Available skills: a, b.').
    # None: each entry is a part of its own, joined by `separator` like header and footer.
    entry_separator: str | None = None
    entries_open: str = ""
    entries_close: str = ""
    # With empty = "text": the whole listing when no skill is listed (Qwen Code's "No skills are
    # currently available." reminder).
    empty_text: str = ""
    # What the listing shows for a missing or empty description: nothing more (""), or the body's
    # first line that is not blank or a '#' heading ("first-body-line", with the budget's
    # cut_notice when more body follows: OpenHands' to_prompt).
    description_fallback: str = ""
    # The listing strips the description's edge white space after any cut (the skill keeps it).
    strip_description: bool = False
    # An `*.md` skill (`[[roots]] md_files`) is listed only when its frontmatter gives one of
    # these fields a value (OpenHands lists a legacy skill only with triggers or inputs, and puts
    # the others' whole text in the prompt's repository context); empty = listed like any skill.
    md_listed_with: tuple[str, ...] = ()

    @property
    def entries_as_one_part(self) -> bool:
        return self.entry_separator is not None or bool(self.entries_open or self.entries_close)

    def with_style(self, style: str) -> Tier1Spec:
        """This listing in an alternative layout named in `[tier1.styles.<style>]` (KeyError when
        the profile has no such style)."""
        from dataclasses import replace

        return replace(self, **self.styles[style])


STYLE_KEYS = (
    "header",
    "footer",
    "entry",
    "entry_name_only",
    "separator",
    "escape",
    "empty",
    "line_breaks",
    "exclude_fields",
    "model_invocation_excludes",
)


@dataclass(frozen=True, slots=True)
class Tier2Spec:
    mechanism: str = "read the SKILL.md file"
    user_command: str = ""
    strip_frontmatter: bool = True
    trim_body: bool = False  # surrounding white space removed from the body
    wrapper: str = "{body}"
    arguments: bool = False
    indexed: bool = False
    positional: bool = False
    named: bool = False
    append_when_absent: str = ""
    variables: Mapping[str, str] = field(default_factory=dict)
    # Frontmatter values by which the runtime keeps a skill from the model (it is then also left
    # out of the tier-1 listing) or from the user's slash command; empty = the runtime honours no
    # such flag. Each maps a field to the value that switches the invocation off.
    model_invocation_off: Mapping[str, Any] = field(default_factory=dict)
    user_invocation_off: Mapping[str, Any] = field(default_factory=dict)
    model_refusal: str = ""
    user_refusal: str = ""
    # Lines `!`cmd`` in the body run in a shell when the skill is activated (Claude Code); they
    # are listed as "would run", never run.
    shell_injection: bool = False
    consent: str = "none"
    fork_field: str = ""
    compaction_keep_tokens: int = 0
    guidance_tokens: int = 5000


@dataclass(frozen=True, slots=True)
class Tier3Spec:
    """How resources are reached: `only_listed` = only files listed when the skill was discovered
    (autopoiesis); `max_bytes` = what one read returns at most."""

    only_listed: bool = False
    max_bytes: int = 256 * 1024


@dataclass(frozen=True, slots=True)
class SettingsFile:
    path: str
    format: str


@dataclass(frozen=True, slots=True)
class SettingsSpec:
    files: tuple[SettingsFile, ...] = ()
    keys: Mapping[str, str] = field(default_factory=dict)
    env: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class DisclosureSpec:
    tier1: Tier1Spec = field(default_factory=Tier1Spec)
    tier2: Tier2Spec = field(default_factory=Tier2Spec)
    tier3: Tier3Spec = field(default_factory=Tier3Spec)
    settings: SettingsSpec = field(default_factory=SettingsSpec)
    usage: UsageSpec = field(default_factory=UsageSpec)
    toggle: ToggleSpec = field(default_factory=ToggleSpec)


class _Table(Protocol):
    data: Mapping[str, Any]

    def get(self, k: str, kind: Any, default: Any = ..., choices: tuple = ()) -> Any: ...
    def strings(self, k: str, default: tuple[str, ...] = ()) -> tuple[str, ...]: ...
    def table(self, k: str) -> _Table: ...
    def fail(self, k: str, msg: str) -> Exception: ...
    def check_unknown(self) -> None: ...


def check_template(t: _Table, key: str, text: str, fields: tuple[str, ...]) -> str:
    """`text` if it is a valid template using only `fields` (`{name}` style, `{{` for a brace);
    else a ProfileError naming the key, so a broken user profile fails when loaded, not later."""
    try:
        parts = list(string.Formatter().parse(text))
    except ValueError as err:
        raise t.fail(
            key, f"broken template: {err} (write {{{{ and }}}} for literal braces)"
        ) from None
    for _literal, field_name, spec, conversion in parts:
        if field_name is None:
            continue
        if field_name not in fields or spec or conversion:
            raise t.fail(
                key,
                f"unknown placeholder {{{field_name}}}; allowed: "
                + ", ".join(f"{{{f}}}" for f in fields),
            )
    return text


ENTRY_FIELDS = (
    "name",
    "description",
    "location",
    "scope",
    "path",
    "short_path",
    "folder_location",
    "category",
    "group",
)
HEADER_FIELDS = (*ENTRY_FIELDS, "roots")
WRAPPER_FIELDS = ("name", "body", "base_dir", "resources", "args")
MESSAGE_FIELDS = ("name", "base_dir", "args")
BUDGET_WARNING_FIELDS = ("dropped", "shown", "total", "limit", "chars")
CUT_NOTICE_FIELDS = ("count", "name")
DESCRIPTION_FALLBACKS = ("", "first-body-line")


def _string_map(t: _Table, key: str, allowed: tuple[str, ...] = ()) -> dict[str, str]:
    raw = t.get(key, dict, {})
    out = {}
    for k, v in raw.items():
        if not isinstance(v, str):
            raise t.fail(f"{key}.{k}", f"expected a string, got {v!r}")
        if allowed and v not in allowed:
            raise t.fail(f"{key}.{k}", f"expected one of {', '.join(allowed)}; got {v!r}")
        out[k] = v
    return out


def parse_disclosure(top: _Table) -> DisclosureSpec:
    t1 = top.table("tier1")
    b = t1.table("budget")
    styles: dict[str, dict[str, str]] = {}
    for style, raw in t1.get("styles", dict, {}).items():
        if not isinstance(raw, dict) or set(raw) - set(STYLE_KEYS):
            raise t1.fail(f"styles.{style}", f"expected a table of {', '.join(STYLE_KEYS)}")
        kinds = {"exclude_fields": dict, "model_invocation_excludes": bool}
        if not all(isinstance(v, kinds.get(k, str)) for k, v in raw.items()):
            raise t1.fail(
                f"styles.{style}", "every value must be a string (exclude_fields a table)"
            )
        if raw.get("line_breaks", "fold") not in LINE_BREAKS:
            raise t1.fail(
                f"styles.{style}.line_breaks", f"expected one of {', '.join(LINE_BREAKS)}"
            )
        for k in ("header", "footer", "entry", "entry_name_only"):
            if k in raw:
                check_template(t1, f"styles.{style}.{k}", raw[k], ENTRY_FIELDS)
        styles[style] = dict(raw)
    d1 = Tier1Spec()
    db = BudgetSpec()
    budget = BudgetSpec(
        model=b.get("model", str, db.model, BUDGET_MODELS),
        unit=b.get("unit", str, db.unit, LIMIT_UNITS),
        context_fraction=float(b.get("context_fraction", (int, float), db.context_fraction)),
        chars_per_token=float(b.get("chars_per_token", (int, float), db.chars_per_token)),
        fallback_chars=b.get("fallback_chars", int, db.fallback_chars),
        default_context_window=b.get("default_context_window", int, db.default_context_window),
        entry_cap_chars=b.get("entry_cap_chars", int, db.entry_cap_chars),
        warning=check_template(
            b, "warning", b.get("warning", str, db.warning), BUDGET_WARNING_FIELDS
        ),
        tie_order=b.get("tie_order", str, db.tie_order),
        count_frame=b.get("count_frame", bool, db.count_frame),
        cut_suffix=b.get("cut_suffix", str, db.cut_suffix),
        cut_notice=check_template(
            b, "cut_notice", b.get("cut_notice", str, db.cut_notice), CUT_NOTICE_FIELDS
        ),
        builtin_full=b.get("builtin_full", bool, db.builtin_full),
        measure=b.get("measure", str, db.measure, MEASURES),
        roots_free_bytes=b.get("roots_free_bytes", int, db.roots_free_bytes),
        max_entries=b.get("max_entries", int, db.max_entries),
        lead=b.get("lead", str, db.lead),
        compact_header=check_template(
            b, "compact_header", b.get("compact_header", str, db.compact_header), ()
        ),
        compact_header_names=check_template(
            b, "compact_header_names", b.get("compact_header_names", str, ""), ()
        ),
        compact_note=check_template(
            b, "compact_note", b.get("compact_note", str, db.compact_note), ("descriptions",)
        ),
        truncated_note=check_template(
            b,
            "truncated_note",
            b.get("truncated_note", str, db.truncated_note),
            ("shown", "total", "detail"),
        ),
        truncated_detail=check_template(
            b,
            "truncated_detail",
            b.get("truncated_detail", str, db.truncated_detail),
            ("descriptions",),
        ),
        descriptions_words=b.strings("descriptions_words"),
        compact_min_chars=b.get("compact_min_chars", int, db.compact_min_chars),
        compact_max_chars=b.get("compact_max_chars", int, db.compact_max_chars),
    )
    b.check_unknown()
    if budget.default_context_window < 0:
        raise b.fail("default_context_window", "must be 0 (Skill Prism's default) or more tokens")
    if budget.roots_free_bytes >= 0 and budget.model != "round-robin":
        raise b.fail("roots_free_bytes", 'only with model = "round-robin"')
    if budget.model == "compact":
        if not budget.compact_header or not budget.compact_header_names:
            raise b.fail(
                "compact_header", 'model = "compact" needs compact_header and compact_header_names'
            )
        if len(budget.descriptions_words) != 2:
            raise b.fail("descriptions_words", "expected two: shortened, omitted")
        if not 0 < budget.compact_min_chars <= budget.compact_max_chars:
            raise b.fail("compact_min_chars", "expected 0 < compact_min_chars <= compact_max_chars")
        if budget.measure == "display-width":
            raise b.fail("measure", 'compact counts characters: "chars" or "utf16"')
    if budget.cut_notice and (budget.model != "none" or budget.cut_suffix):
        # the notice is added once, when the listing is prepared; a budget that cuts again would
        # need it counted per cut, which no runtime modelled so far does
        raise b.fail("cut_notice", 'needs model = "none" and no cut_suffix')
    if budget.chars_per_token <= 0:
        raise b.fail("chars_per_token", "must be greater than 0")
    if budget.measure != "chars" and budget.model in ("trim-then-omit", "round-robin"):
        # trimming finds one common description length, which only a count of characters gives
        raise b.fail("measure", f'{budget.model} counts characters; use measure = "chars"')
    escape_fields = t1.strings("escape_fields", d1.escape_fields)
    for i, f in enumerate(escape_fields):
        if f not in ESCAPE_FIELDS:
            raise t1.fail(f"escape_fields[{i}]", f"expected one of {', '.join(ESCAPE_FIELDS)}")
    builtin = []
    for i, raw in enumerate(t1.get("builtin", list, [])):
        kinds = {"listed": bool, "frontmatter": dict}
        if not isinstance(raw, dict) or not all(
            isinstance(v, kinds.get(k, str)) for k, v in raw.items()
        ):
            raise t1.fail(
                f"builtin[{i}]",
                "expected a table of strings (name, description, ...), listed a bool, "
                "frontmatter a table",
            )
        extra = set(raw) - {"name", "description", "location", "scope", "root", "listed"}
        extra -= {"frontmatter"}
        if extra or not raw.get("name") or "description" not in raw:
            raise t1.fail(
                f"builtin[{i}]",
                "needs name and description; may set location, scope, root, listed, frontmatter",
            )
        if raw.get("root") and not raw.get("location"):
            raise t1.fail(f"builtin[{i}]", "with root, location is the SKILL.md's path inside it")
        builtin.append(BuiltinSkill(**raw))
    root_alias = t1.get("root_alias", str, d1.root_alias)
    if root_alias and "{index}" not in root_alias:
        raise t1.fail("root_alias", "must contain {index}, e.g. 'r{index}'")
    tier1 = Tier1Spec(
        header=check_template(t1, "header", t1.get("header", str, d1.header), HEADER_FIELDS),
        footer=check_template(t1, "footer", t1.get("footer", str, d1.footer), ENTRY_FIELDS),
        entry=check_template(t1, "entry", t1.get("entry", str, d1.entry), ENTRY_FIELDS),
        entry_name_only=check_template(
            t1, "entry_name_only", t1.get("entry_name_only", str, d1.entry_name_only), ENTRY_FIELDS
        ),
        separator=t1.get("separator", str, d1.separator),
        escape=t1.get("escape", str, d1.escape, ESCAPES),
        empty=t1.get("empty", str, d1.empty, EMPTY),
        exclude_fields=t1.get("exclude_fields", dict, {}),
        exclude_match=t1.get("exclude_match", str, d1.exclude_match, ("loose", "exact")),
        model_invocation_excludes=t1.get(
            "model_invocation_excludes", bool, d1.model_invocation_excludes
        ),
        require_description=t1.get("require_description", bool, d1.require_description),
        home_tilde=t1.get("home_tilde", bool, d1.home_tilde),
        list_empty_description=t1.get("list_empty_description", bool, d1.list_empty_description),
        allowlist=t1.get("allowlist", bool, d1.allowlist),
        order=t1.get("order", str, d1.order, ORDERS),
        scope_order=t1.strings("scope_order"),
        description_fields=t1.strings("description_fields", d1.description_fields),
        description_joiner=t1.get("description_joiner", str, d1.description_joiner),
        budget=budget,
        styles=styles,
        escape_fields=escape_fields,
        line_breaks=t1.get("line_breaks", str, d1.line_breaks, LINE_BREAKS),
        empty_description=t1.get("empty_description", str, d1.empty_description),
        tidy=t1.get("tidy", bool, d1.tidy),
        scope_then=t1.get("scope_then", str, d1.scope_then, SCOPE_THEN),
        builtin=tuple(builtin),
        root_alias=root_alias,
        roots_line=check_template(
            t1, "roots_line", t1.get("roots_line", str, d1.roots_line), ("alias", "root")
        ),
        group_header=check_template(
            t1, "group_header", t1.get("group_header", str, d1.group_header), ("category",)
        ),
        name_alias=check_template(
            t1, "name_alias", t1.get("name_alias", str, d1.name_alias), ("name", "alias")
        ),
        entry_separator=t1.get("entry_separator", str, None),
        entries_open=t1.get("entries_open", str, d1.entries_open),
        entries_close=t1.get("entries_close", str, d1.entries_close),
        empty_text=t1.get("empty_text", str, d1.empty_text),
        description_fallback=t1.get(
            "description_fallback", str, d1.description_fallback, DESCRIPTION_FALLBACKS
        ),
        strip_description=t1.get("strip_description", bool, d1.strip_description),
        md_listed_with=t1.strings("md_listed_with"),
    )
    if (tier1.empty == "text") != bool(tier1.empty_text):
        raise t1.fail("empty_text", 'set empty_text exactly when empty = "text"')
    if tier1.entries_as_one_part and tier1.budget.model != "none":
        # The budget models count each entry with the separator before it; entries joined apart
        # from the frame are not costed that way, and no runtime with a budget lists them so.
        raise t1.fail(
            "entry_separator",
            "entry_separator, entries_open and entries_close need [tier1.budget] model = "
            f'"none" (not "{tier1.budget.model}")',
        )
    if tier1.group_header and tier1.budget.model != "none":
        # The header rides on its category's first listed entry: a budget that leaves entries
        # out would take the header with them, which no runtime modelled so far does.
        raise t1.fail(
            "group_header",
            f'a group header needs [tier1.budget] model = "none" (not "{tier1.budget.model}")',
        )
    t1.check_unknown()

    t2 = top.table("tier2")
    d2 = Tier2Spec()
    tier2 = Tier2Spec(
        mechanism=t2.get("mechanism", str, d2.mechanism),
        user_command=check_template(
            t2, "user_command", t2.get("user_command", str, d2.user_command), MESSAGE_FIELDS
        ),
        strip_frontmatter=t2.get("strip_frontmatter", bool, d2.strip_frontmatter),
        trim_body=t2.get("trim_body", bool, d2.trim_body),
        wrapper=check_template(t2, "wrapper", t2.get("wrapper", str, d2.wrapper), WRAPPER_FIELDS),
        arguments=t2.get("arguments", bool, d2.arguments),
        indexed=t2.get("indexed", bool, d2.indexed),
        positional=t2.get("positional", bool, d2.positional),
        named=t2.get("named", bool, d2.named),
        append_when_absent=t2.get("append_when_absent", str, d2.append_when_absent),
        variables={
            k: check_template(t2, f"variables.{k}", v, MESSAGE_FIELDS)
            for k, v in _string_map(t2, "variables").items()
        },
        model_invocation_off=t2.get("model_invocation_off", dict, {}),
        user_invocation_off=t2.get("user_invocation_off", dict, {}),
        model_refusal=check_template(
            t2, "model_refusal", t2.get("model_refusal", str, d2.model_refusal), MESSAGE_FIELDS
        ),
        user_refusal=check_template(
            t2, "user_refusal", t2.get("user_refusal", str, d2.user_refusal), MESSAGE_FIELDS
        ),
        shell_injection=t2.get("shell_injection", bool, d2.shell_injection),
        consent=t2.get("consent", str, d2.consent, CONSENT),
        fork_field=t2.get("fork_field", str, d2.fork_field),
        compaction_keep_tokens=t2.get("compaction_keep_tokens", int, d2.compaction_keep_tokens),
        guidance_tokens=t2.get("guidance_tokens", int, d2.guidance_tokens),
    )
    t2.check_unknown()

    t3 = top.table("tier3")
    tier3 = Tier3Spec(
        only_listed=t3.get("only_listed", bool, False),
        max_bytes=t3.get("max_bytes", int, Tier3Spec().max_bytes),
    )
    t3.check_unknown()
    if tier3.max_bytes <= 0:
        raise t3.fail("max_bytes", "must be greater than 0")

    st = top.table("settings")
    files = []
    for i, raw in enumerate(st.get("files", list, [])):
        if not isinstance(raw, dict) or not isinstance(raw.get("path"), str):
            raise st.fail(f"files[{i}]", "expected a table with a 'path' string")
        fmt = raw.get("format", "json")
        if fmt not in SETTINGS_FORMATS or set(raw) - {"path", "format"}:
            raise st.fail(
                f"files[{i}]", f"expected path and format ({', '.join(SETTINGS_FORMATS)})"
            )
        files.append(SettingsFile(raw["path"], fmt))
    settings = SettingsSpec(
        files=tuple(files),
        keys=_string_map(st, "keys", KNOBS),
        env=_string_map(st, "env", KNOBS),
    )
    st.check_unknown()
    return DisclosureSpec(
        tier1=tier1,
        tier2=tier2,
        tier3=tier3,
        settings=settings,
        usage=parse_usage(top.table("usage")),
        toggle=parse_toggle(top.table("toggle")),
    )


def flag_set(frontmatter: Mapping[str, Any], flags: Mapping[str, Any], exact: bool = False) -> str:
    """Which of `flags` (field -> switching value) the frontmatter sets, as 'field: value' (''
    when none). A value matches itself, or (unless `exact`: the same YAML value and type only)
    its text in any letter case ('true' for true)."""
    for name, value in flags.items():
        if name not in frontmatter:
            continue
        got = frontmatter[name]
        if (got == value and type(got) is type(value)) or (
            not exact and str(got).lower() == str(value).lower()
        ):
            return f"{name}: {str(value).lower()}"
    return ""
