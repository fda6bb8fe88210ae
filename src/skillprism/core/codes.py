"""The registry of diagnostic codes: one stable code per rule, its readable rule name (what profiles
use in their `[rules]` table), its default action and its documentation.

Actions say what a runtime does about a finding: `skip` (refuses to load the skill), `error`,
`warning`, `info` (reported, skill still loaded) or `ignore` (not reported). Every code has a
`category`, given by its range (`parse`, `frontmatter`, `discovery`, `budget`, `resources`,
`style`, `security`); security codes also carry a `security_severity` score (0.0-10.0, the number
GitHub code scanning reads from SARIF's `security-severity` property). `docs/diagnostics.md` is
generated from these tables, and a test keeps the two equal.
"""

from __future__ import annotations

from dataclasses import dataclass

ACTIONS = ("skip", "error", "warning", "info", "ignore")
# The category of a code, by its range (the hundreds digit).
CATEGORIES = {
    "1": "parse",
    "2": "frontmatter",
    "3": "discovery",
    "4": "budget",
    "5": "resources",
    "6": "style",
    "7": "security",
}


@dataclass(frozen=True, slots=True)
class CodeInfo:
    code: str
    rule: str
    action: str
    title: str
    doc: str
    category: str = ""
    security_severity: float | None = None  # security codes only: 0.0-10.0, as SARIF's property


_TABLE: tuple[tuple[str, str, str, str, str], ...] = (
    # --- SP1xx: reading and parsing the file -------------------------------------------------
    (
        "SP100",
        "file-unreadable",
        "skip",
        "File cannot be read",
        "The SKILL.md could not be opened or read (permissions, I/O error, broken link).",
    ),
    (
        "SP101",
        "not-regular-file",
        "skip",
        "Not a regular file",
        "A FIFO, socket or device is named like a skill file. It is never opened.",
    ),
    (
        "SP102",
        "file-too-large",
        "skip",
        "File too large",
        "The file is larger than the reading cap; skill files are small Markdown documents.",
    ),
    ("SP103", "empty-file", "skip", "Empty file", "The skill file has no content at all."),
    (
        "SP104",
        "binary-content",
        "skip",
        "Binary content",
        "The file contains NUL bytes or other binary data, not Markdown text.",
    ),
    (
        "SP105",
        "invalid-utf8",
        "skip",
        "Invalid UTF-8",
        "The file is not valid UTF-8. Runtimes read skills as UTF-8 text.",
    ),
    (
        "SP106",
        "bom",
        "warning",
        "Byte order mark",
        "The file starts with a UTF-8 byte order mark. Several loaders then miss the opening `---`.",
    ),
    ("SP107", "crlf", "info", "CRLF line ends", "Lines end with CR LF (Windows style)."),
    (
        "SP108",
        "cr-only",
        "warning",
        "CR-only line ends",
        "Lines end with a bare CR (classic Mac style); line-based parsers see one single line.",
    ),
    (
        "SP109",
        "no-frontmatter",
        "skip",
        "No frontmatter",
        "The file does not start with a `---` line opening YAML frontmatter.",
    ),
    (
        "SP110",
        "frontmatter-unclosed",
        "skip",
        "Frontmatter not closed",
        "The opening `---` has no closing `---` line.",
    ),
    (
        "SP111",
        "leading-blank-lines",
        "warning",
        "Blank lines before frontmatter",
        "Blank lines come before the opening `---`; loaders that test byte 0 miss the frontmatter.",
    ),
    (
        "SP112",
        "delimiter-trailing-space",
        "info",
        "Spaces after a `---` delimiter",
        "A frontmatter delimiter line has trailing white space.",
    ),
    ("SP113", "yaml-error", "skip", "YAML syntax error", "The frontmatter is not valid YAML."),
    (
        "SP114",
        "frontmatter-not-mapping",
        "skip",
        "Frontmatter is not a mapping",
        "The frontmatter parses, but to a list or a scalar instead of `key: value` pairs.",
    ),
    (
        "SP115",
        "duplicate-key",
        "warning",
        "Duplicate key",
        "A key appears twice in one mapping; YAML forbids it and loaders differ on which wins.",
    ),
    (
        "SP116",
        "yaml-too-complex",
        "skip",
        "YAML refused: too complex",
        "Alias expansion, nesting depth or node count exceeds safe bounds; it is not expanded.",
    ),
    (
        "SP117",
        "yaml-unsupported-tag",
        "error",
        "Unsupported YAML tag",
        "A value carries a tag such as `!!python/object`; it is never constructed.",
    ),
    (
        "SP118",
        "git-lfs-pointer",
        "skip",
        "Git LFS pointer",
        "The file is a Git LFS pointer, not the skill itself (the LFS object was not fetched).",
    ),
    (
        "SP119",
        "frontmatter-too-large",
        "skip",
        "Frontmatter too large",
        "The frontmatter block is far larger than any runtime expects; it is not parsed.",
    ),
    (
        "SP120",
        "non-string-key",
        "error",
        "Key is not a string",
        "A frontmatter key is a number, boolean, list or mapping instead of a string.",
    ),
    (
        "SP121",
        "yaml-fallback",
        "warning",
        "YAML recovered by a fallback parser",
        "The YAML is invalid, and the runtime's line-based fallback recovers name and description.",
    ),
    (
        "SP122",
        "internal-error",
        "error",
        "Skill Prism could not evaluate this file",
        "Checking this skill file raised an unexpected error in Skill Prism itself. Only this skill "
        "is affected: every other skill is checked as usual. Please report it with the file.",
    ),
    (
        "SP123",
        "delimiter-lenient",
        "warning",
        "Delimiter accepted by a prefix match",
        "A frontmatter delimiter line is not exactly `---` (`-----`, `---x`, `--- x`), and this "
        "runtime accepts it because it only looks at the first three characters. Most runtimes "
        "need a line of exactly `---`.",
    ),
    (
        "SP124",
        "yaml-repaired",
        "info",
        "YAML repaired before reading",
        "The frontmatter is not valid YAML as written; the runtime repairs it (tabs to spaces, "
        "quotes around a value that holds `: `, the description line the error is on rewritten "
        "as a quoted string) and reads the repaired text.",
    ),
    (
        "SP190",
        "refval-rejects-file",
        "info",
        "Reference validator rejects this file",
        "The reference validator (skills-ref) rejects a file this profile accepts, or the reverse.",
    ),
    (
        "SP191",
        "refval-crashes",
        "info",
        "Reference validator crashes on this file",
        "skills-ref raises an unhandled exception on this input (for example invalid UTF-8).",
    ),
    (
        "SP192",
        "refval-flow-style",
        "info",
        "Reference validator rejects flow-style YAML",
        "skills-ref parses with strictyaml, which refuses flow style such as `[a, b]` or `{a: b}`.",
    ),
    # --- SP2xx: frontmatter fields ----------------------------------------------------------
    ("SP201", "name-missing", "error", "Missing name", "The frontmatter has no `name` field."),
    (
        "SP202",
        "name-not-string",
        "error",
        "Name is empty or not a string",
        "`name` must be a non-empty string.",
    ),
    ("SP203", "name-length", "error", "Name too long", "`name` is longer than the profile allows."),
    (
        "SP204",
        "name-lowercase",
        "error",
        "Name not lowercase",
        "`name` contains upper-case letters.",
    ),
    (
        "SP205",
        "name-hyphen-edge",
        "error",
        "Name starts or ends with a hyphen",
        "`name` may not start or end with `-`.",
    ),
    (
        "SP206",
        "name-double-hyphen",
        "error",
        "Name has consecutive hyphens",
        "`name` may not contain `--`.",
    ),
    (
        "SP207",
        "name-characters",
        "error",
        "Name has invalid characters",
        "`name` contains characters outside the profile's pattern (spec: `a-z`, `0-9`, `-`).",
    ),
    (
        "SP208",
        "name-directory-mismatch",
        "error",
        "Name differs from its directory",
        "`name` must equal the skill's directory name (both NFKC-normalised).",
    ),
    (
        "SP209",
        "name-sanitized",
        "info",
        "Name rewritten by the runtime",
        "The runtime replaces some characters of the name, so it is listed under another name.",
    ),
    (
        "SP210",
        "description-missing",
        "skip",
        "Missing description",
        "The frontmatter has no `description`; the model cannot know when to use the skill.",
    ),
    (
        "SP211",
        "description-not-string",
        "error",
        "Description is empty or not a string",
        "`description` must be a non-empty string.",
    ),
    (
        "SP212",
        "description-length",
        "error",
        "Description too long",
        "`description` is longer than the profile allows.",
    ),
    (
        "SP213",
        "compatibility-invalid",
        "error",
        "Compatibility invalid",
        "`compatibility` must be a string of 1-500 characters.",
    ),
    (
        "SP214",
        "metadata-shape",
        "error",
        "Metadata is not a string map",
        "`metadata` must map string keys to string values.",
    ),
    (
        "SP215",
        "allowed-tools-form",
        "warning",
        "allowed-tools in another form",
        "`allowed-tools` is written in a form this runtime does not expect (list vs string, "
        "commas vs spaces).",
    ),
    (
        "SP216",
        "unknown-field",
        "error",
        "Unknown frontmatter field",
        "A top-level key this runtime does not define.",
    ),
    (
        "SP217",
        "field-type",
        "error",
        "Field has the wrong type",
        "A known field has a value of the wrong type (e.g. a list where a boolean is expected).",
    ),
    (
        "SP218",
        "field-value",
        "error",
        "Field value not allowed",
        "A known field has a value outside its allowed set (e.g. `context: fork|inline`).",
    ),
    (
        "SP219",
        "required-metadata",
        "error",
        "Required metadata missing",
        "The profile requires a metadata entry (autopoiesis: `metadata.version`, `metadata.tags`).",
    ),
    (
        "SP220",
        "field-collapsed",
        "info",
        "Multi-line value collapsed",
        "The runtime collapses a multi-line name or description to one line.",
    ),
    (
        "SP221",
        "description-defaulted",
        "info",
        "Description taken from the body",
        "No `description` in the frontmatter: the runtime uses the body's first paragraph.",
    ),
    (
        "SP222",
        "name-defaulted",
        "info",
        "Name taken from the directory",
        "No `name` in the frontmatter: the runtime uses the directory name.",
    ),
    (
        "SP223",
        "name-empty",
        "error",
        "Name is empty",
        "The `name` is empty, null or only white space. Runtimes that default a missing name to the "
        "directory usually do so for an empty one too; `name-not-string` covers numbers and lists.",
    ),
    (
        "SP224",
        "disabled-in-frontmatter",
        "skip",
        "Disabled in its frontmatter",
        "A frontmatter value the runtime reads as an off switch (`enabled: false`, profile key "
        "`skip_fields`) keeps the skill from loading.",
    ),
    (
        "SP225",
        "description-empty",
        "error",
        "Description is empty",
        "The `description` is an empty string (or only white space, for runtimes that trim it). "
        "`description-not-string` covers numbers, lists and white space a runtime keeps.",
    ),
    (
        "SP226",
        "name-not-text",
        "error",
        "Name the runtime cannot turn into text",
        "A runtime that turns a non-string `name` into text (profile key `non_strings`) cannot turn "
        "this one (a mapping, for JavaScript's String()). Split from `name-not-string`, whose action "
        "covers the numbers and lists it can read.",
    ),
    (
        "SP227",
        "description-not-text",
        "error",
        "Description the runtime cannot turn into text",
        "A runtime that turns a non-string `description` into text (profile key `non_strings`) "
        "cannot turn this one (a mapping, for JavaScript's String(): Qwen Code throws and skips "
        "the skill). Split from `description-not-string`, whose action covers the numbers and "
        "lists it can read.",
    ),
    (
        "SP290",
        "refval-accepts-name",
        "info",
        "Reference validator accepts this name",
        "skills-ref accepts Unicode letters in names; the specification allows only `a-z0-9-`.",
    ),
    # --- SP3xx: discovery and precedence ----------------------------------------------------
    (
        "SP300",
        "not-discovered",
        "info",
        "Not discovered by this runtime",
        "The runtime's roots and layout would never find this skill file.",
    ),
    (
        "SP301",
        "shadowed",
        "warning",
        "Shadowed by another copy",
        "Another skill with the same name wins; this copy is never used.",
    ),
    (
        "SP302",
        "same-real-path",
        "info",
        "Same file reached twice",
        "A symlink reaches a skill that is already loaded; it loads once.",
    ),
    (
        "SP303",
        "scan-truncated",
        "warning",
        "Scan cut by a bound",
        "A search stopped at its depth or directory bound; skills beyond it are not seen. An "
        "error when the bound stopped the search before it found any skill file: nothing was "
        "checked.",
    ),
    (
        "SP304",
        "symlink-problem",
        "warning",
        "Broken or looping symlink",
        "A symlink points nowhere, back into its own ancestors, or into /proc, /sys or /dev (the "
        "machine's and other processes' files); it is not followed. A runtime whose profile says "
        'it follows a loop (`link_loops = "follow"`) goes round it until the system refuses '
        "the path and lists the skills below it under those longer paths; Skill Prism does the "
        "same and says so here.",
    ),
    (
        "SP305",
        "archive-beside-skills",
        "info",
        "Archive not unpacked",
        "A .zip or .skill archive sits among skills; runtimes only read unpacked folders.",
    ),
    (
        "SP306",
        "nested-skill",
        "info",
        "Skill inside another skill",
        "A skill folder contains another SKILL.md; its files are also part of the outer skill.",
    ),
    (
        "SP307",
        "kept-both",
        "warning",
        "Same name loaded twice",
        "The runtime keeps both copies of a name; the model sees two entries it cannot tell apart.",
    ),
    (
        "SP308",
        "root-missing",
        "info",
        "No skill folder of the runtime exists",
        "None of the profile's root folders exists for this project and home, so the runtime "
        "loads no skills at all here.",
    ),
    (
        "SP309",
        "filtered-out",
        "info",
        "Excluded by a filter",
        "An include/ignore filter or setting leaves this skill out.",
    ),
    (
        "SP310",
        "path-not-found",
        "error",
        "Path not found",
        "A path given on the command line does not exist.",
    ),
    (
        "SP311",
        "no-skill-file",
        "warning",
        "No skill file",
        "A folder given on the command line holds no skill file at any depth searched.",
    ),
    (
        "SP312",
        "resources-truncated",
        "info",
        "Resource listing cut by a bound",
        "The skill folder holds more files than are listed.",
    ),
    (
        "SP313",
        "folder-unreadable",
        "warning",
        "Folder cannot be listed",
        "A folder below a skills root cannot be listed (permissions, I/O error); the runtime cannot "
        "see the skills inside it either.",
    ),
    (
        "SP314",
        "root-off-by-default",
        "info",
        "Root read only when enabled",
        "The runtime reads this root only when a setting turns it on (profile key `enabled_by`) "
        "or while an environment variable is unset (`unless_env`); its skills are shown as not "
        "discovered.",
    ),
    (
        "SP315",
        "clash-winner-varies",
        "warning",
        "Clash winner may vary",
        "Several skills share a name and the runtime picks one in an order that can change from run "
        "to run or machine to machine (file-system order, parse completion): which copy it uses "
        "is not certain.",
    ),
    (
        "SP316",
        "not-installable",
        "warning",
        "Cannot be installed into this runtime",
        "Reviewing a repository as installed: the runtime has no skills folder of the kind chosen "
        "(personal or project), so these skills would not be installed there.",
    ),
    (
        "SP317",
        "nothing-checked",
        "error",
        "Nothing was checked",
        "No skill file is left to check: none was found where the runtime (or the PATHs) look, "
        "or the project's settings left out every one. A check that checked nothing does not "
        "pass; the hint says what to try (another runtime whose folders are there, or "
        "`--install-into project` for a repository of skills).",
    ),
    (
        "SP318",
        "link-outside-scope",
        "skip",
        "Linked in from outside the allowed folder",
        "The skill file's real path (after symlinks) leaves the folder the runtime reads this root "
        "within (profile key `[[roots]] links_within`: the project's repository, or the root), "
        "and the runtime refuses it.",
    ),
    (
        "SP319",
        "root-limit",
        "skip",
        "Past the runtime's limit of skills per root",
        "The runtime loads at most a set number of skills from one root (profile key "
        "`[discovery] max_loaded_per_root`; OpenClaw: 200), in the root's own order, and does not "
        "read the rest: this skill comes after that many in its root. Move skills to another "
        "root the runtime reads, or remove ones you do not use.",
    ),
    # --- SP4xx: tier-1 listing, budget and disclosure ------------------------------------------
    (
        "SP401",
        "description-dropped",
        "warning",
        "Description dropped by the budget",
        "The listing is over its budget; this skill is listed by name only.",
    ),
    (
        "SP402",
        "description-shortened",
        "warning",
        "Description shortened",
        "The description is cut to fit the per-entry cap or the budget.",
    ),
    (
        "SP403",
        "omitted-by-budget",
        "warning",
        "Left out of the listing by the budget",
        "The listing is over its budget and this skill is not listed at all.",
    ),
    (
        "SP404",
        "excluded-from-listing",
        "info",
        "Excluded from the listing by a rule",
        "A rule or setting keeps this skill out of the listing (disable-model-invocation, an "
        "override, an allowlist, no description).",
    ),
    (
        "SP405",
        "listing-over-budget",
        "warning",
        "Listing over budget even with names only",
        "Even with every description dropped the listing does not fit its budget.",
    ),
    (
        "SP406",
        "entry-over-guidance",
        "info",
        "Listing entry over the guidance",
        "The specification suggests about 100 tokens per skill in the listing.",
    ),
    (
        "SP407",
        "activation-over-guidance",
        "warning",
        "Activated content over the guidance",
        "The activated skill is over the 5,000-token guidance for tier 2.",
    ),
    (
        "SP408",
        "activation-refused",
        "error",
        "Activation refused",
        "The runtime refuses this activation (who may invoke the skill).",
    ),
    # --- SP5xx: references from the body to files ----------------------------------------------
    (
        "SP501",
        "reference-missing",
        "warning",
        "Referenced file missing",
        "The body links to a file that does not exist in the skill folder.",
    ),
    (
        "SP502",
        "reference-absolute",
        "warning",
        "Absolute reference",
        "The body links to an absolute path; references must be relative to the skill root.",
    ),
    (
        "SP503",
        "reference-escapes",
        "error",
        "Reference leaves the skill folder",
        "The body links outside the skill folder (`..`, or a symlink whose target is outside).",
    ),
    (
        "SP504",
        "reference-deep",
        "info",
        "Reference more than one level deep",
        "The spec asks for references one level deep from SKILL.md (e.g. `references/x.md`).",
    ),
    (
        "SP505",
        "reference-invalid",
        "error",
        "Reference cannot name a file",
        "The reference is empty, over-long, or holds NUL or control characters; nothing is opened.",
    ),
    (
        "SP506",
        "resource-not-listed",
        "warning",
        "Resource not among the discovered files",
        "The runtime serves only files listed when the skill was discovered (autopoiesis).",
    ),
    (
        "SP507",
        "resource-binary",
        "info",
        "Binary resource",
        "The resource is binary (NUL bytes or invalid UTF-8); it is described, not shown.",
    ),
    (
        "SP508",
        "resource-truncated",
        "info",
        "Resource cut at the size cap",
        "The resource is larger than the reading cap; only its beginning is shown.",
    ),
    (
        "SP509",
        "resource-unreadable",
        "error",
        "Resource cannot be read",
        "A FIFO, socket or device, a symlink loop, or a permission error; it is never opened.",
    ),
    (
        "SP510",
        "skill-url-invalid",
        "error",
        "Malformed or unknown skill:// URL",
        "The URL is not `skill://name[/path]`, or no skill has exactly that name.",
    ),
    (
        "SP511",
        "mentioned-file-missing",
        "warning",
        "A file named in inline code or allowed-tools is missing",
        "Inline code in the instructions (`python scripts/fill.py`) or an `allowed-tools` entry "
        "names a file under scripts/, references/, assets/ (or templates/, examples/, "
        "resources/) of the skill that is not there: the agent would be told to run or read a "
        "file that does not exist. Links are checked by SP501.",
    ),
    # --- SP6xx: style -------------------------------------------------------------------------
    (
        "SP601",
        "body-lines",
        "warning",
        "Body over the line guidance",
        "The spec recommends keeping SKILL.md under 500 lines; move detail to references/.",
    ),
    (
        "SP602",
        "body-tokens",
        "warning",
        "Body over the token guidance",
        "The spec recommends keeping the body under about 5,000 tokens (estimated as chars / 4).",
    ),
    (
        "SP603",
        "body-empty",
        "warning",
        "Empty body",
        "The skill has no instructions below the frontmatter.",
    ),
)

# --- SP7xx: security risks (static analysis; the engine is core/security) --------------------
# (code, rule, default action, title, doc, security-severity)
_SECURITY_TABLE: tuple[tuple[str, str, str, str, str, float], ...] = (
    (
        "SP700",
        "security-scan-limited",
        "warning",
        "Security scan cut by a bound",
        "A bound (files per skill, folder depth, bytes per file or per skill) left content unread: "
        "the finding names it, as a warning. Info when only a deeper analysis (a syntax tree) was "
        "left out and the text rules read everything.",
        0.0,
    ),
    (
        "SP701",
        "bidi-control",
        "error",
        "Bidirectional control character",
        "A bidi override or isolate reorders how text is displayed, so what a reviewer reads differs "
        "from what the agent or a shell gets (Trojan Source).",
        8.0,
    ),
    (
        "SP702",
        "zero-width-character",
        "warning",
        "Zero-width character",
        "An invisible zero-width character splits or joins words, hiding text from a reader or from "
        "keyword checks.",
        5.5,
    ),
    (
        "SP703",
        "unicode-tag-smuggling",
        "error",
        "Invisible Unicode tag characters",
        "Characters U+E0000-E007F are invisible but models read them as ASCII: a hidden message. "
        "The decoded text is shown.",
        9.0,
    ),
    (
        "SP704",
        "variation-selector-payload",
        "error",
        "Variation selectors used as data",
        "A run of variation selectors encodes hidden bytes (one selector per byte) after a visible "
        "character. The decoded bytes are shown.",
        8.5,
    ),
    (
        "SP705",
        "invisible-character",
        "warning",
        "Other invisible or control character",
        "A format (Cf) character, invisible filler or terminal control sequence that hides or "
        "disguises text.",
        5.0,
    ),
    (
        "SP706",
        "confusable-name",
        "error",
        "Look-alike of another skill's name",
        "A skill's name, or a name in its description, looks like another skill's name but is "
        "spelled with other characters (Unicode confusables).",
        8.0,
    ),
    (
        "SP707",
        "mixed-script-name",
        "warning",
        "Name mixes scripts",
        "A name or a word of a description mixes letters of several scripts (e.g. Latin with "
        "Cyrillic look-alikes).",
        6.0,
    ),
    (
        "SP710",
        "hidden-comment",
        "warning",
        "Text hidden in an HTML comment",
        "An HTML comment is invisible in the rendered view but the agent reads it.",
        5.0,
    ),
    (
        "SP711",
        "hidden-element",
        "warning",
        "Text hidden by markup",
        "An element a renderer hides (`hidden`, `display:none`, `<script>`, `<template>`, ...) "
        "holds text the agent reads.",
        6.0,
    ),
    (
        "SP712",
        "hidden-link-definition",
        "warning",
        "Link reference definition used as a comment",
        "A link reference definition (`[//]: # (...)`) is never rendered; its text reaches the "
        "agent only.",
        5.0,
    ),
    (
        "SP713",
        "hidden-attribute-text",
        "warning",
        "Prose hidden in an HTML attribute",
        "Sentences in an attribute (`title`, `alt`, `data-*`) are not shown in the rendered view.",
        5.0,
    ),
    (
        "SP720",
        "injection-override",
        "error",
        "Prompt injection: overrides earlier instructions",
        "Text tells the agent to ignore, forget or override its earlier instructions.",
        8.5,
    ),
    (
        "SP721",
        "injection-role-claim",
        "error",
        "Prompt injection: claims to be the system",
        "Text poses as a system, developer or vendor message, or opens a fake chat-template role.",
        8.0,
    ),
    (
        "SP722",
        "injection-conceal",
        "error",
        "Prompt injection: hides actions from the user",
        "Text tells the agent to keep what it does from the user.",
        8.5,
    ),
    (
        "SP723",
        "injection-disable-safety",
        "error",
        "Prompt injection: disables safety checks",
        "Text tells the agent to skip confirmations, permission prompts or safety checks.",
        8.5,
    ),
    (
        "SP730",
        "activation-shell",
        "warning",
        "Shell command run at activation",
        "A `!`-prefixed inline command in SKILL.md: Claude Code runs it when the skill is invoked and "
        "puts its output in the prompt.",
        6.5,
    ),
    (
        "SP731",
        "broad-tool-grant",
        "warning",
        "Broad tool permission",
        "`allowed-tools` lets the agent use a tool without asking, unrestricted or through a "
        "wildcard or an interpreter that can run anything.",
        7.0,
    ),
    (
        "SP740",
        "download-execute",
        "error",
        "Downloads and runs code",
        "Code fetched from the network is piped into or run by an interpreter (`curl ... | sh`).",
        9.5,
    ),
    (
        "SP741",
        "decode-execute",
        "error",
        "Decodes and runs hidden code",
        "Encoded text (base64, hex, escapes) is decoded and run, hiding what runs from review.",
        9.0,
    ),
    (
        "SP742",
        "dynamic-eval",
        "error",
        "Runs text built at run time",
        "`eval`, `exec`, `source` or a shell pipe runs text that is computed, fetched or decoded.",
        8.0,
    ),
    (
        "SP743",
        "destructive-command",
        "error",
        "Destructive command",
        "A command that deletes or overwrites the user's files or disks (`rm -rf ~`, `mkfs`, `dd "
        "of=/dev/...`).",
        9.0,
    ),
    (
        "SP744",
        "permission-change",
        "warning",
        "Weakens permissions",
        "Makes files world-writable or setuid, or grants rights through sudoers.",
        7.0,
    ),
    (
        "SP745",
        "persistence",
        "error",
        "Installs itself to run later",
        "Writes crontab entries, shell start-up files, git hooks, systemd or launchd units or "
        "autostart entries.",
        8.0,
    ),
    (
        "SP746",
        "credential-access",
        "error",
        "Reads credentials",
        "Reads keys, tokens or passwords (`~/.ssh`, `~/.aws`, `.netrc`, `.env`, browser profiles, "
        "keychains).",
        8.5,
    ),
    (
        "SP747",
        "network-endpoint",
        "info",
        "Network endpoint",
        "A script or command contacts this address.",
        2.0,
    ),
    (
        "SP748",
        "raw-ip-address",
        "warning",
        "Raw IP address",
        "A script or command contacts a numeric IP address instead of a named host.",
        5.5,
    ),
    (
        "SP749",
        "encoded-blob",
        "warning",
        "Encoded or high-entropy blob",
        "A long base64, hex or escaped string whose content is not readable as written; its "
        "decoded form is shown and scanned.",
        5.0,
    ),
    (
        "SP750",
        "hardcoded-secret",
        "error",
        "Hard-coded secret",
        "A key, token or password is written into a file of the skill: an issuer's token format "
        "(error), or a random value assigned to a name like `password` in a script (warning); "
        "placeholders and examples are left out.",
        7.5,
    ),
    (
        "SP751",
        "python-risk",
        "warning",
        "Risky Python construct",
        "A Python script unpickles data, loads YAML unsafely, turns off TLS checks, splices values "
        "into a shell command, unpacks an archive over system folders (read from its syntax tree, "
        "never imported).",
        5.0,
    ),
    (
        "SP752",
        "data-upload",
        "error",
        "Sends local data out",
        "Uploads files or the environment to a network endpoint (`curl -d @file`, `nc host`, "
        "`/dev/tcp`).",
        8.5,
    ),
    (
        "SP753",
        "reverse-shell",
        "error",
        "Reverse shell",
        "Connects a shell's input and output to a remote host, handing it control of the machine.",
        9.8,
    ),
    (
        "SP760",
        "shipped-executable",
        "error",
        "Native executable shipped",
        "A compiled program (ELF, PE, Mach-O, WebAssembly, Java class, Python bytecode) is in the "
        "skill; its behaviour cannot be reviewed as text.",
        8.0,
    ),
    (
        "SP761",
        "shipped-archive",
        "warning",
        "Archive shipped",
        "An archive (zip, jar, tar, gzip, 7z, ...) hides its files from review until unpacked.",
        5.5,
    ),
    (
        "SP762",
        "executable-bit",
        "warning",
        "Executable bit on a non-script",
        "A file that is neither a script nor a program is marked executable.",
        4.0,
    ),
    (
        "SP763",
        "symlink-outside",
        "error",
        "Symlink leaves the skill",
        "A symlink in the skill points outside its folder: reading the skill reads that file.",
        7.5,
    ),
    (
        "SP764",
        "path-outside",
        "warning",
        "Path outside the skill",
        "A script or instruction reaches above the skill folder (`../..`) or writes to system "
        "locations.",
        5.0,
    ),
)

CODES: dict[str, CodeInfo] = {
    **{row[0]: CodeInfo(*row, category=CATEGORIES[row[0][2]]) for row in _TABLE},
    **{
        row[0]: CodeInfo(*row[:5], category="security", security_severity=row[5])
        for row in _SECURITY_TABLE
    },
}
RULES: dict[str, CodeInfo] = {info.rule: info for info in CODES.values()}


def rule(name: str) -> CodeInfo:
    """The code registered for rule `name` (KeyError for an unknown rule: a programming error)."""
    return RULES[name]


_SECTIONS = (
    ("SP1", "Reading and parsing (SP1xx)"),
    ("SP2", "Frontmatter fields (SP2xx)"),
    ("SP3", "Discovery and precedence (SP3xx)"),
    ("SP4", "Tier-1 budget and disclosure (SP4xx)"),
    ("SP5", "References to files (SP5xx)"),
    ("SP6", "Style (SP6xx)"),
    ("SP7", "Security risks (SP7xx)"),
)


def reference_markdown() -> str:
    """The diagnostics reference page (docs/diagnostics.md), generated from the registry."""
    lines = [
        "# Diagnostics reference",
        "",
        "Every finding Skill Prism reports has a stable code. The *default action* is what a runtime",
        "does when its profile does not say otherwise: `skip` (the runtime refuses to load the skill,",
        "reported as an error and the skill's state is `skipped`), `error`, `warning`, `info`, or",
        "`ignore`. Profiles override actions per rule in their `[rules]` table, by the rule name.",
        "",
        "Each diagnostic carries the file, 1-based line and column where it has a position, the",
        "*effect* (what the runtime does about it) and a *hint* (how to fix it).",
        "",
        "Each code has a *category*, given by its range: `parse` (SP1xx), `frontmatter` (SP2xx),",
        "`discovery` (SP3xx), `budget` (SP4xx), `resources` (SP5xx), `style` (SP6xx) and",
        "`security` (SP7xx). Security findings come from a static scan that never runs, imports or",
        "fetches anything from a skill; each code carries a *security-severity* from 0.0 to 10.0,",
        "the score GitHub code scanning reads from SARIF (9.0 and over critical, 7.0 high, 4.0",
        "medium, under 4.0 low). For these the *effect* says what the risk could do to the user",
        "who installs the skill.",
        "",
        "This page is generated from `src/skillprism/core/codes.py`; a test keeps them equal.",
    ]
    for prefix, heading in _SECTIONS:
        rows = [c for c in CODES.values() if c.code.startswith(prefix)]
        lines += ["", f"## {heading}", ""]
        if not rows:
            lines.append("No codes yet: the disclosure engine will add them.")
            continue
        if prefix == "SP7":
            lines += [
                "| code | rule | default action | security-severity | title | meaning |",
                "|---|---|---|---|---|---|",
            ]
            for c in rows:
                lines.append(
                    f'| <a id="{c.code.lower()}"></a>`{c.code}` | `{c.rule}` | {c.action} | '
                    f"{c.security_severity:.1f} | {c.title} | {c.doc} |"
                )
            continue
        lines += ["| code | rule | default action | title | meaning |", "|---|---|---|---|---|"]
        for c in rows:
            lines.append(
                f'| <a id="{c.code.lower()}"></a>`{c.code}` | `{c.rule}` | {c.action} | {c.title} | {c.doc} |'
            )
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(reference_markdown(), end="")
