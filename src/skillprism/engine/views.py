"""What the engine process hands the window: prepared view data, values only.

Every class here is a plain value (named tuples and frozen dataclasses of strings, numbers and
core's value types) from modules that load nothing of the pipeline, so the window can unpickle
an answer without importing the resolver, the parser or the security pass. The window shows
these; it computes nothing from them that the CLI would compute differently
(docs/engine-protocol.md lists which request answers with which of them).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from skillprism.core.diagnostics import Diagnostic
from skillprism.core.matrix import MatrixRow
from skillprism.engine.rows import RowList

RESOURCE_SCHEME = "skillprism-file"  # a skill's file in a page's links: skillprism-file:/rel/path
COPY_SCHEME = "copy"  # a page's link that copies its path to the clipboard: copy:text

# --- what the window asks for -------------------------------------------------------------------


@dataclass(frozen=True)
class OpenSpec:
    """What the window shows: the project, the folders (empty: the runtime's own roots), the
    runtime profile and how the folders are reviewed ("" as laid out, or installed into the
    "personal" or "project" skills folder)."""

    project: str
    paths: tuple[str, ...]
    profile: str
    install_into: str = ""
    # False: the reviewer's mode, where the reviewed folder's own settings file is not applied
    project_settings: bool = True

    def workspace_key(self) -> tuple[str, tuple[str, ...], str, bool]:
        """Specs with the same key share one workspace (another runtime of the same folders)."""
        return (self.project, self.paths, self.install_into, self.project_settings)


@dataclass(frozen=True, slots=True)
class FilterQuery:
    """The window's skill filter: words that must all occur, and a set of states."""

    text: str = ""
    states: frozenset[str] = frozenset()

    @property
    def terms(self) -> list[str]:
        return self.text.lower().split()

    @property
    def active(self) -> bool:
        return bool(self.text.split() or self.states)


# --- the engine itself --------------------------------------------------------------------------


class RuntimeEntry(NamedTuple):
    """One runtime profile as the window lists it."""

    name: str
    title: str
    level: str
    release: str
    provenance: str
    broken: str = ""  # why the profile does not load ("" when it does)


@dataclass(frozen=True)
class EngineInfo:
    """What the engine says first: who it is and what it knows without being asked."""

    protocol: int
    pid: int
    version: str
    log_path: str  # where it writes the traceback of every unexpected error
    runtimes: tuple[RuntimeEntry, ...]


@dataclass(frozen=True)
class Failure:
    """A request that failed: one line for the user, and for an unexpected error the traceback
    (also written to the log) for a bug report."""

    message: str
    details: str = ""
    log_path: str = ""

    @property
    def unexpected(self) -> bool:
        return bool(self.details)


# --- a catalog, as the tree, Problems, Risks and the status bar show it ---------------------------


class RootRow(NamedTuple):
    path: str
    scope: str
    layout: str
    label: str  # the path relative to what the roots share
    exists: bool


class SkillRow(NamedTuple):
    """One skill file and its fate, as the tree and the window's actions need it."""

    key: str  # the path as found: stable across rescans and runtimes
    path: str
    directory: str
    name: str  # as shown: the qualified name, else the name, else the folder's name
    status: str
    shadowed_by: str
    reason: str
    description: str  # its beginning, for a tooltip
    root: int  # index into LoadedView.roots
    # the worst of its security findings (core/vocabulary.py RISKS); "" while not scanned yet
    risk: str = "none"


@dataclass(frozen=True)
class TreeView:
    """Which skills the tree shows, per root, under the window's filter: `groups` holds, for each
    root shown, its index in `roots`, its summary text and the indexes of its skills (in `skills`)
    in display order. `keep` is the set of keys the filter keeps (None: every skill)."""

    query: FilterQuery
    keep: frozenset[str] | None
    groups: tuple[tuple[int, str, tuple[int, ...]], ...]
    serial: int  # this tree's number; the next tree names it as `base`
    base: int = 0  # the tree the engine sent before (0: none)
    # Whether the roots and skills shown, in order, are those of tree `base`, and if so which
    # skills (keys) changed since it (None: not known).
    same_shape: bool = False
    changed: frozenset[str] | None = None


FILTER_SEP = "\x1f"  # between the parts of a row's filter text: in no key, severity or message


class ProblemRow(NamedTuple):
    """One finding as the Problems and Risks tables show it."""

    diagnostic: Diagnostic
    key: str  # the skill's key ("" for a finding about a root or the set)
    skill: str
    location: str  # path relative to the skill's folder (or as found), line and column
    file: str  # the file the finding is in (absolute; "" when it has none)
    # "key<US>severity<US>lower-case code, message and skill": what the tables' filter matches
    filter_text: str
    sort_keys: tuple[Any, ...]  # one per column
    security: bool  # a finding of the security pass (the Risks view)

    @classmethod
    def to_plain(cls, row: ProblemRow) -> tuple[Any, ...]:
        """The row as one plain tuple, its finding's fields first (the PLAIN_* places), as
        engine/rows.py's RowList keeps it: no Diagnostic or Severity object is kept in it."""
        d = row.diagnostic
        return (
            d.code, d.severity.value, d.message, d.path, d.line, d.column, d.effect, d.hint,
            d.evidence, row.key, row.skill, row.location, row.file, row.filter_text,
            row.sort_keys, row.security,
        )  # fmt: skip

    @classmethod
    def from_plain(cls, plain: tuple[Any, ...]) -> ProblemRow:
        return cls(Diagnostic.restored(*plain[:9]), *plain[9:])


# Where a ProblemRow's fields are in its plain tuple (ProblemRow.to_plain), for readers that
# need one field of many rows (a table's filter, its sort) without rebuilding each row.
PLAIN_CODE, PLAIN_SEVERITY, PLAIN_MESSAGE, PLAIN_LINE = 0, 1, 2, 4
PLAIN_EFFECT, PLAIN_HINT, PLAIN_EVIDENCE = 6, 7, 8
PLAIN_KEY, PLAIN_SKILL, PLAIN_LOCATION, PLAIN_FILE = 9, 10, 11, 12
PLAIN_FILTER, PLAIN_SORT, PLAIN_SECURITY = 13, 14, 15
# Where a SkillRow's key and risk are in its plain tuple (stored as the tuple itself).
SKILL_KEY, SKILL_RISK = SkillRow._fields.index("key"), SkillRow._fields.index("risk")


@dataclass(frozen=True)
class LoadedView:
    """A catalog ready to show. `skills`, `problems` are streamed in parts (large sets)."""

    spec: OpenSpec
    generation: int  # the engine's catalog number; pages name the one they were made from
    title: str  # the profile's title
    seconds: float
    refresh: str  # "full", "incremental" or "none": how much work the catalog needed
    summary: dict[str, Any]
    roots: tuple[RootRow, ...]
    tree: TreeView
    warnings: tuple[str, ...] = ()
    # A skill whose folder was renamed or moved: its old key -> its new one (the selection
    # follows it).
    moved: dict[str, str] = field(default_factory=dict)
    changed_paths: tuple[str, ...] = ()  # the files whose change set this refresh off
    security: bool = True  # whether the security pass ran
    # Which settings file of the project applied, what it switched off and held back (one
    # sentence each; empty when there is no settings file), and whether it relaxes the review.
    settings: tuple[str, ...] = ()
    settings_relax: bool = False
    # The security pass is on and its risks are still being scanned: this view has the
    # validation findings only; RiskFill events follow, then a view with everything.
    risks_pending: bool = False
    skills: RowList[SkillRow] = field(default_factory=lambda: RowList(SkillRow))
    problems: RowList[ProblemRow] = field(default_factory=lambda: RowList(ProblemRow))


@dataclass(frozen=True)
class RiskFill:
    """Risks scanned since the last fill (an EVENT "risks" while a view's `risks_pending`): of
    the view `generation`, `done` of `total` skills scanned, each newly scanned skill's risk
    (key, RISKS level) and its security findings as rows (plain, as a view's: the window reads
    their fields without making a row of each)."""

    generation: int
    done: int
    total: int
    risks: tuple[tuple[str, str], ...]
    problems: RowList[ProblemRow] = field(default_factory=lambda: RowList(ProblemRow))


# --- the selected skill's pages -----------------------------------------------------------------


@dataclass(frozen=True)
class PreviewPages:
    """The pages of one skill: Overview, Source (its text and findings), Files (the list, or
    the page of the file open there)."""

    key: str
    generation: int
    directory: str
    overview: str
    source: str
    diagnostics: tuple[Diagnostic, ...]
    files: str
    file_page: str = ""
    stale: bool = False  # the file changed since the findings were made (a rescan is coming)


@dataclass(frozen=True)
class FileList:
    """A skill's files as the tree lists them: (shown text, path) pairs."""

    key: str
    entries: tuple[tuple[str, str], ...]
    truncated: bool


@dataclass(frozen=True)
class Page:
    """One HTML page about a skill (a followed link, an activation, a runtime's details)."""

    key: str
    title: str
    html: str


@dataclass(frozen=True)
class WherePage:
    """Where every runtime would find a skill: a heading and one block per runtime, each with
    the words a filter matches against (the window filters as the user types)."""

    key: str
    head: str
    blocks: tuple[tuple[str, str], ...]
    error: str = ""


# --- will a model pick it: the trigger estimate -------------------------------------------------------


class TriggerRow(NamedTuple):
    """One listed skill against a prompt (core/trigger.py's Ranked)."""

    rank: int
    key: str
    name: str
    outcome: str  # its tier-1 outcome: full, shortened or name-only
    score: float
    builtin: bool  # one of the runtime's own skills ([[tier1.builtin]]), not the user's


@dataclass(frozen=True)
class TriggerView:
    """A prompt against every skill one runtime lists (an estimate, `note` says of what), seen
    from the skill `key` (its rank, what ranks above it, whose entries overlap with its entry).
    `rank` None: the runtime does not list that skill (`outcome` says why), so no model can pick
    it. An empty prompt ranks nothing (`rows` empty) but still says how the skill is listed."""

    prompt: str
    key: str
    name: str
    title: str  # the runtime's
    context_window: int
    note: str
    listed: int
    total: int
    builtin: int  # how many of the listed skills are the runtime's own
    outcome: str  # the skill's tier-1 outcome ("" when it is not in the listing at all)
    rank: int | None
    above: tuple[str, ...]  # names ranked above the skill (first ones only)
    picked: str  # the name the estimate picks ("" when no skill shares a word)
    overlaps: tuple[tuple[str, str, float], ...]  # (key, name, similarity) with the skill
    rows: RowList[TriggerRow] = field(default_factory=lambda: RowList(TriggerRow))


class EvalRow(NamedTuple):
    query: str
    should_trigger: bool
    picked: bool
    rank: int  # 0: the skill is not listed
    instead: str
    correct: bool


@dataclass(frozen=True)
class EvalView:
    """An eval set (skill-creator's format) run against the estimate for the skill `key`."""

    path: str
    key: str
    name: str
    title: str
    accuracy: float
    precision: float | None
    recall: float | None
    top1: tuple[int, int]
    top3: tuple[int, int]
    rows: tuple[EvalRow, ...]
    # the file's text as read (None: the set was not read from the file now, it was edited)
    source: str | None = None


# --- quick fixes -----------------------------------------------------------------------------------


class FixRow(NamedTuple):
    """One fix the engine offers (it keeps the fix itself under `id` until the next offer)."""

    id: int
    code: str
    key: str  # the skill's key (its file's path as found)
    path: str  # the file the fix edits
    line: int
    title: str
    confidence: str  # "safe": the meaning cannot change; "review": it can
    helps: str  # the runtimes (profile names) whose finding it removes, comma-separated
    diff: str  # what it changes, as a unified diff


@dataclass(frozen=True)
class FixesView:
    """The fixes offered for one skill (`key`) or for every skill (""), for one code or all ("")."""

    key: str
    code: str
    title: str  # the runtime's the fixes were offered under
    rows: Sequence[FixRow] = ()  # (streamed in parts: each row carries its diff)


@dataclass(frozen=True)
class FixesDone:
    """What applying (or undoing) fixes did: one sentence each, the files it wrote, and for a
    refused file its path and what differs (the text as read against the text now, a diff)."""

    summary: str
    paths: tuple[str, ...]
    refused: tuple[tuple[str, str], ...] = ()
    backups: str = ""


@dataclass(frozen=True)
class TogglePlan:
    """A planned change of a runtime's own settings file that turns a skill off (or on): the
    file, what is set, the change as a diff, and the change itself (sent back to apply or undo
    it; nothing is written before)."""

    title: str  # the runtime's
    name: str
    enable: bool
    path: str
    entry: str
    diff: str
    change: Any  # core.toggle.ToggleChange


@dataclass(frozen=True)
class InstallPlanView:
    """A planned install (core/install.py) as the window shows it: the plan's text (per runtime
    each skill's target, verdict and clashes side by side), its counts and the folders it would
    write. The engine keeps the plan itself by `plan_id` (apply_install names it); nothing is
    written before."""

    plan_id: int
    source: str
    scope: str
    mode: str
    text: str
    todo: int  # folders to write
    blocked: int  # folders not written (a clash at the target, a refusal)
    clashes: int  # clashes shown (every runtime)
    targets: tuple[str, ...]


# --- the budget -----------------------------------------------------------------------------------


class OutcomeRow(NamedTuple):
    name: str
    key: str
    path: str
    outcome: str
    kept_chars: int
    chars: int
    tokens: int
    reason: str
    # the priority the runtime gives the skill from the use it records locally (0: none), and
    # that use in words ("" when the runtime records none for it)
    usage: float = 0.0
    used: str = ""


@dataclass(frozen=True)
class Tier1View:
    """The tier-1 listing of a runtime under a budget, and what it keeps of each skill."""

    title: str
    text: str
    used_chars: int
    limit_chars: int | None
    headroom_chars: int | None
    counter: str
    warnings: tuple[str, ...]
    settings_applied: tuple[str, ...]
    assumptions: tuple[str, ...]
    unread: tuple[str, ...]  # runtime settings files that could not be read
    entries: RowList[OutcomeRow] = field(default_factory=lambda: RowList(OutcomeRow))

    def by_outcome(self, outcome: str) -> list[OutcomeRow]:
        return [e for e in self.entries if e.outcome == outcome]


@dataclass(frozen=True)
class MatrixData:
    """Skills x runtimes: each row's cells (core/matrix.py), the skill column's labels (the name,
    and where the skill lives when copies share it) and each runtime column's distinct texts,
    longest first (the window sizes columns from them). `labels` and `rows` are streamed."""

    profiles: tuple[str, ...]
    titles: tuple[str, ...]
    texts: tuple[tuple[str, ...], ...]
    labels: list[str] = field(default_factory=list)
    rows: RowList[MatrixRow] = field(default_factory=lambda: RowList(MatrixRow))


@dataclass(frozen=True)
class LivePlanView:
    """What a live trigger run would do before it runs (core/live_trigger/plan.py): `problem`
    says why it cannot run ("" when it can); `unverified` why the runtime's live mode was not
    checked in the lab ("" when it was)."""

    title: str  # the runtime's
    skill: str
    prompts: int
    runs: int
    calls: int
    listing_tokens: int
    tokens_per_call: int
    input_tokens: int
    cost_usd: float | None
    price_source: str
    text: str  # the plan in one sentence, as the CLI prints it
    program: str  # the CLI that would run ("" when none was found)
    skills: int  # skills copied into the throwaway project
    unverified: str
    problem: str


class LiveRow(NamedTuple):
    """One prompt of a live run: its trigger rate over the runs that got an answer."""

    query: str
    should_trigger: bool
    held_out: bool
    rate: float | None  # None: no run got an answer
    passed: bool | None
    intended: int
    other: int
    none: int
    error: int
    timeout: int
    others: str  # "name x2, name x1": the other skills used instead
    message: str  # the first error's message


@dataclass(frozen=True)
class LiveRunView:
    """A finished live run; `saved` is the result as `skillprism trigger --live --save` writes
    it (the window saves it where the user chooses, and compares two)."""

    title: str
    skill: str
    release: str
    models: tuple[str, ...]
    date: str
    fingerprint: str
    precision: float | None
    recall: float | None
    passed: int
    failed: int
    unanswered: int
    rows: tuple[LiveRow, ...]
    saved: str


@dataclass(frozen=True)
class LiveComparison:
    """A finished live run against a saved one (core/live_trigger/results.py `compare`): each
    prompt's rate in the saved run, and how many prompts moved the right or the wrong way."""

    path: str
    before: tuple[tuple[str, bool, float | None], ...]  # (query, should trigger, saved rate)
    better: int
    worse: int


@dataclass(frozen=True)
class AdviceView:
    """The budget advisor's two plans for the runtime shown under the budget's inputs: the plan
    as text; the description cuts offered as quick fixes (their ids, applied with `apply_fixes`,
    and their diff); the runtime settings change that turns the plan's skills off (applied with
    `apply_toggle`), or why there is none."""

    title: str  # the runtime's
    already_full: bool
    text: str
    shorten_ids: tuple[int, ...]
    shorten_diff: str
    disable: TogglePlan | None
    disable_count: int
    disable_problem: str
