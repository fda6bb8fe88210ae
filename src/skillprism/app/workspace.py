"""The one front door to the pipeline: a `Workspace` is one project, the folders looked at and the
runtime profiles chosen, with everything the front ends ask of them.

Both front ends (the CLI and the window) go through it and through nothing else, so for the same
folders and settings they give the same findings, listing, budget outcomes, matrix and report. It:

* reads the project settings (`.skillprism.toml` or `[tool.skillprism]`) once, or only notes
  them (`project_settings=False`, the reviewer's mode: the reviewed folder does not control its
  review), and reports which file applied and what it held back (`settings_report`);
* loads each profile once, and builds every finding through one `Policy` per profile (the
  profile's rules and the project's `ignore_codes` / `ignore_paths`);
* keeps one live catalog per profile over one shared document cache, refreshed from changed
  paths (`refresh`) into an `Update` that names the skills that changed;
* merges the tier-1 budget inputs with each runtime's own settings files by one rule:
  the profile's defaults, then the runtime's settings files and variables, then what the user
  set explicitly;
* owns the token counter, builds the matrix and the report and writes files atomically.

No Qt here. A Workspace is used by one thread at a time (the window's controller runs it in its
worker thread). See docs/architecture.md.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from skillprism.core.activate import Activation, ActivationError, activate, find_skill
from skillprism.core.advisor import Plan, advise
from skillprism.core.budget_inputs import BudgetInputs
from skillprism.core.catalog import Catalog, skill_changes
from skillprism.core.compare import Matrix, matrix_per_profile
from skillprism.core.diagnostics import Diagnostic
from skillprism.core.disclose import BudgetSettings, Tier1Model, Tier1Result, default_settings
from skillprism.core.document import SkillDocument
from skillprism.core.document_cache import DocumentCache
from skillprism.core.fixes import CONFIDENCES, Fix, combined_edits, non_overlapping, offer_fixes
from skillprism.core.fixes.descriptions import shorten_in
from skillprism.core.install import (
    Applied,
    InstallError,
    InstallPlan,
    apply_install,
    plan_install,
    undo_install,
)
from skillprism.core.install_files import TreeError
from skillprism.core.install_state import Status, plan_update, stale
from skillprism.core.placement import WhereReport, where
from skillprism.core.policy import Policy
from skillprism.core.profiles import Profile, ProfileError, available_profiles, load_profile
from skillprism.core.runtime_settings import apply_runtime_settings
from skillprism.core.scan import DEFAULT_MAX_DEPTH, path_problem
from skillprism.core.settings import (
    ProjectSettings,
    SettingsError,
    SettingsReport,
    load_project_settings,
)
from skillprism.core.tier3 import ResourceResult, resolve_reference, resolve_skill_url
from skillprism.core.toggle import ToggleChange, ToggleError, plan_toggle, plan_toggles, read_text
from skillprism.core.tokens import TokenCounter, default_counter, get_counter
from skillprism.core.usage import LocalUsage, read_usage
from skillprism.core.watch import LiveCatalog
from skillprism.core.write_back import (
    Batch,
    FileChangedError,
    Snapshot,
    WriteError,
    new_file_mode,
    replace_atomically,
    undo_last_batch,
    write_batch,
)

if TYPE_CHECKING:  # loaded when a prompt is first ranked (it brings numpy)
    from skillprism.core.trigger import TriggerIndex

DEFAULT_PROFILE = "agentskills"
REPORT_FORMATS = {".html": "html", ".htm": "html", ".md": "markdown"}


class WorkspaceError(Exception):
    """A problem with what the workspace was asked to open or do, in one line for the user
    (the CLI exits 2 with it; the window shows it)."""


@dataclass(frozen=True)
class RiskProgress:
    """One skill scanned by `Workspace.scan_risks`: `done` of `total`, the skill's `key` (its
    path as found) and its security findings as each chosen profile reports them."""

    done: int
    total: int
    key: str
    diagnostics: Mapping[str, tuple[Diagnostic, ...]]


@dataclass(frozen=True)
class Update:
    """The outcome of a refresh: the catalogs of the chosen profiles, and which skills (by key)
    are new or changed in any of them, or gone from all of them."""

    catalogs: tuple[Catalog, ...]
    changed_keys: frozenset[str]
    removed_keys: frozenset[str]
    refresh: str  # "full", "incremental" or "none" (the most work any catalog needed)


@dataclass(frozen=True)
class FixOutcome:
    """What `Workspace.apply_fixes` did: the fixes written, those left out (their edits overlap
    an earlier fix's), the files refused because they changed since they were read, and the
    batch (its backups folder, for undo)."""

    applied: tuple[Fix, ...]
    skipped: tuple[Fix, ...]
    refused: tuple[FileChangedError, ...]
    batch: Batch


class Workspace:
    """One project, its folders and the chosen runtime profiles (see the module doc).

    `paths`: folders or skill files to look at (empty: the settings file's `roots`, else each
    profile's own roots for `project` and `home`). `profiles`: names or paths of profiles (empty:
    the settings file's `profiles`, else agentskills). `install_into` ("personal" or "project"):
    review the `paths` (repositories of skills) as installed into each runtime's personal or
    project skills folder, beside what is already there (core/installed.py); "" = as laid out.
    `project_settings` False: the project's settings file is not applied (nor can a broken one
    stop the review); `settings_report` still names it and what it would set."""

    def __init__(
        self,
        project: str | None = None,
        paths: Sequence[str] = (),
        profiles: Sequence[str] = (),
        *,
        home: str | None = None,
        env: Mapping[str, str] | None = None,
        max_depth: int = DEFAULT_MAX_DEPTH,
        workers: int = 1,
        start_method: str = "fork",
        install_into: str = "",
        project_settings: bool = True,
        security: bool | None = None,
        cache: bool | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.project = os.path.abspath(project or os.getcwd())
        # "Today" for usage that decays with time (the runtime's own records); a test pins it.
        self.clock = clock
        self._usage_memo: dict[tuple[str, str], object] = {}
        if not os.path.isdir(self.project):
            raise WorkspaceError(f"project {project}: not a folder")
        if max_depth < 0:
            raise WorkspaceError("the search depth must be 0 or more")
        self.project_settings = project_settings
        # What the settings file says, applied or not, and why it could not be read.
        self._found_settings, self._settings_problem = ProjectSettings(), ""
        try:
            self._found_settings = load_project_settings(self.project)
        except SettingsError as err:
            if project_settings:
                raise WorkspaceError(str(err)) from None
            self._found_settings = ProjectSettings(source=err.path)
            self._settings_problem = str(err)
        self.settings: ProjectSettings = (
            self._found_settings if project_settings else ProjectSettings()
        )
        self.home = home or os.path.expanduser("~")
        self.env: Mapping[str, str] = dict(os.environ if env is None else env)
        self.max_depth = max_depth
        if install_into not in ("", "personal", "project"):
            raise WorkspaceError(f"install into {install_into!r}: expected personal or project")
        self.install_into = install_into
        self.workers = workers
        self.start_method = start_method
        # The security pass: on unless the settings file turns it off; `security` (the CLI's
        # --security/--no-security) decides over the settings file.
        self.security: bool = self.settings.security if security is None else security
        self._security_given = security is not None
        if cache is not None:
            # The security pass's cache in the user's cache folder (process-wide, like the
            # SKILLPRISM_NO_CACHE variable it stands for; worker processes are told too).
            from skillprism.core.security import cache as security_cache

            security_cache.set_enabled(cache)
        self.given_paths = tuple(paths)
        self.paths = tuple(paths) or self.settings.roots
        self.cache = DocumentCache()
        self._profiles: dict[str, Profile] = {}
        self._every_policy: list[Policy] | None = None  # for quick fixes: every profile
        self._live: dict[str, LiveCatalog] = {}
        self._counter: TokenCounter | None = None
        self._trigger: tuple[tuple[str, str, int], TriggerIndex, Catalog] | None = None
        self.chosen: tuple[str, ...] = ()
        self.choose(profiles or self._settings_profiles() or (DEFAULT_PROFILE,))

    # --- profiles --------------------------------------------------------------------------------

    def _settings_profiles(self) -> tuple[str, ...]:
        """The settings file's profiles; a path in it is relative to the file, like its roots."""
        if not self.settings.source:
            return ()
        base = os.path.dirname(os.path.abspath(self.settings.source))
        known = set(available_profiles())
        return tuple(
            os.path.join(base, spec)
            if spec not in known
            and (spec.endswith(".toml") or "/" in spec)
            and not os.path.isabs(os.path.expanduser(spec))
            else spec
            for spec in self.settings.profiles
        )

    def profile(self, spec: str) -> Profile:
        """The profile named (or at the path) `spec`, loaded once."""
        loaded = self._profiles.get(spec)
        if loaded is None:
            try:
                loaded = load_profile(spec)
            except ProfileError as err:
                raise WorkspaceError(str(err)) from None
            self._profiles[spec] = loaded
        return loaded

    def choose(self, specs: Sequence[str]) -> None:
        """The profiles the workspace is about (the CLI's --profile, the window's runtime)."""
        for spec in specs:
            self.profile(spec)
        self.chosen = tuple(specs)
        self._every_policy = None

    @property
    def profiles(self) -> list[Profile]:
        return [self.profile(spec) for spec in self.chosen]

    def policy(self, spec: str) -> Policy:
        """How findings are reported for profile `spec` in this project."""
        return Policy(
            self.profile(spec),
            self.settings.ignore_codes,
            self.settings.ignore_paths,
            self.project,
        )

    def settings_report(
        self, specs: Sequence[str] | None = None, *, security: bool | None = None
    ) -> SettingsReport:
        """Which settings file of the project applied (or was found and not applied), what it
        switched off, and what it held back from the catalog of each profile of `specs`
        (default: the chosen ones), in that order; `security` as for `live`."""
        found = self._found_settings
        held = []
        if self.project_settings and found.source:
            for spec in self.chosen if specs is None else specs:
                codes, files = self.catalog(spec, security=security).suppression()
                held.append((self.profile(spec).name or spec, codes, files))
        return SettingsReport(
            file=found.source,
            applied=self.project_settings and bool(found.source),
            # with --security/--no-security the file decides nothing about the pass
            settings=replace(found, security=True) if self._security_given else found,
            problem=self._settings_problem,
            held_back=tuple(held),
        )

    # --- catalogs --------------------------------------------------------------------------------

    def path_problems(self) -> list[str]:
        """Why a folder or file looked at cannot be read (missing ones are reported by the scan
        as SP310, with the rest of the findings)."""
        return [
            path_problem(path)
            for path in self.paths
            if os.path.lexists(path) and path_problem(path)
        ]

    def _live_key(self, spec: str, security: bool | None) -> str:
        """Where the live catalog of `spec` with or without the security pass is kept."""
        on = self.security if security is None else security
        return spec if on == self.security else f"{spec}\0{'risks' if on else 'no-risks'}"

    def live(self, spec: str, *, security: bool | None = None) -> LiveCatalog:
        """The live catalog of profile `spec` (made on first use; every one shares the cache).
        `security` False: the catalog without the security pass, kept beside the one with it
        (see `scan_risks`); None: as the workspace says."""
        on = self.security if security is None else security
        key = self._live_key(spec, security)
        live = self._live.get(key)
        if live is None:
            profile = self.profile(spec)
            live = LiveCatalog(
                profile,
                list(self.paths) or None,
                project=self.project,
                home=self.home,
                env=self.env,
                max_depth=self.max_depth,
                policy=self.policy(spec),
                cache=self.cache,
                security=on,
                install_into=self.install_into if self.paths else "",
            )
            live.workers = self.workers
            live.start_method = self.start_method
            self._live[key] = live
        return live

    def catalog(self, spec: str | None = None, *, security: bool | None = None) -> Catalog:
        """The current catalog of profile `spec` (default: the first chosen); `security` as for
        `live`."""
        return self.live(spec or self.chosen[0], security=security).catalog

    def catalogs(self, *, security: bool | None = None) -> list[Catalog]:
        """The current catalogs of the chosen profiles, in the order chosen. With `security`
        False they come without the security pass (a window shows them first, then calls
        `scan_risks`); None: as the workspace says."""
        return [self.catalog(spec, security=security) for spec in self.chosen]

    def _catalog_for_listing(self, spec: str) -> Catalog:
        """A catalog of `spec` for what the security pass never changes (states, the listing,
        activation, resources): the one with the pass when it is built, else one without it
        that is built (a window whose risks are still being scanned), else as the workspace
        says."""
        for security in (None, False):
            live = self._live.get(self._live_key(spec, security))
            if live is not None and live.current is not None:
                return live.catalog
        return self.catalog(spec)

    def scan_risks(
        self,
        progress: Callable[[RiskProgress], None] | None = None,
        cancelled: Callable[[], bool] | None = None,
    ) -> bool:
        """Scan every skill of the chosen profiles for risks, one skill at a time, reporting
        each as it is done; True when every skill is scanned, False when `cancelled()` said to
        stop (what was scanned is kept: the next call goes on from there). Afterwards
        `catalogs()` (with the security pass) is built from what was scanned, without reading a
        file again, and equals a fresh check. Each skill's risks come from the security pass's
        cache where it knows the skill's files (core/security/cache.py), so a repeated scan
        reads nothing it read before.

        `progress` gets a `RiskProgress` after each skill: how many are done of how many, the
        skill's key (its path as found, as in the catalogs) and its security findings as each
        chosen profile reports them."""
        from skillprism.core.evaluator import skill_risks
        from skillprism.core.risk_diagnostics import risk_diagnostics
        from skillprism.core.security import cache as security_cache
        from skillprism.core.security.engine import ScanCancelled

        paths = sorted({s.path for c in self.catalogs(security=False) for s in c.skills if s.path})
        policies = {spec: self.policy(spec) for spec in self.chosen}
        try:
            for done, path in enumerate(paths, 1):
                if cancelled is not None and cancelled():
                    return False
                try:
                    risks = skill_risks(path, self.cache.get(path), self.cache, cancelled)
                except ScanCancelled:
                    return False
                except Exception:  # the full build reports it (internal-error) on that skill
                    risks = []
                if progress is not None:
                    progress(
                        RiskProgress(
                            done,
                            len(paths),
                            path,
                            {
                                spec: tuple(risk_diagnostics(policy, risks))
                                for spec, policy in policies.items()
                            },
                        )
                    )
        finally:
            security_cache.flush()
        return True

    def refresh(
        self, changed: Sequence[str] = (), *, cold: bool = False, security: bool | None = None
    ) -> Update:
        """Bring every live catalog up to date with `changed` paths (nothing: rescan everything;
        `cold`: forget every cached document first) and say what changed in the chosen ones.
        `security` False: only the catalogs without the security pass are brought up to date
        and returned (a window whose risks are still being scanned); those with it are
        forgotten, to be built again from the scan (`scan_risks`). None: as the workspace says."""
        if cold:
            self.cache = DocumentCache()
            self._live.clear()
        wanted = {self._live_key(spec, security): spec for spec in self.chosen}
        for spec in self.chosen:
            self.live(spec, security=security)  # the chosen ones exist, refreshed with the rest
        before = {key: live.current for key, live in self._live.items()}
        changed_keys: set[str] = set()
        removed: set[str] = set()
        kinds = []
        for key, live in list(self._live.items()):
            if security is False and live.security:
                del self._live[key]  # not kept up to date: built afresh when asked for
                continue
            if live.current is None:
                new = live.catalog
                kinds.append("full")
            else:
                new = live.refresh(changed)
                kinds.append(live.last_refresh)
            if key in wanted:
                diff, gone = skill_changes(before.get(key), new)
                changed_keys.update(s.key for s in diff)
                removed.update(gone)
        catalogs = self.catalogs(security=security)
        still = {s.key for c in catalogs for s in c.skills}
        kind = "full" if "full" in kinds else "incremental" if "incremental" in kinds else "none"
        if self.security:
            from skillprism.core.security import cache as security_cache

            security_cache.flush()
        return Update(tuple(catalogs), frozenset(changed_keys), frozenset(removed - still), kind)

    # --- quick fixes -----------------------------------------------------------------------------

    def _all_policies(self) -> list[Policy]:
        """A policy for every profile that loads (the chosen first): the runtimes a fix is
        checked under, to say which it helps."""
        if self._every_policy is None:
            policies = [self.policy(spec) for spec in self.chosen]
            names = {p.profile.name for p in policies if p.profile is not None}
            for spec in available_profiles():
                try:
                    profile = self.profile(spec)
                except WorkspaceError:
                    continue
                if profile.name not in names:
                    names.add(profile.name)
                    policies.append(self.policy(spec))
            self._every_policy = policies
        return self._every_policy

    def fix_files(self, paths: Sequence[str] = ()) -> list[str]:
        """The skill files of the chosen profiles' catalogs (real paths, each once), limited to
        those at or under one of `paths` when given."""
        under = [os.path.realpath(p) for p in paths]
        out: dict[str, None] = {}
        for catalog in self.catalogs(security=False):
            for entry in catalog.skills:
                real = entry.real_path or os.path.realpath(entry.path)
                if under and not any(real == u or real.startswith(u + os.sep) for u in under):
                    continue
                out.setdefault(real, None)
        return list(out)

    def fixes(
        self,
        paths: Sequence[str] = (),
        *,
        codes: Sequence[str] | None = None,
        confidence: str = "review",
        rename_folders: bool = False,
    ) -> list[Fix]:
        """The quick fixes offered for the loaded skills under the chosen profiles (core/fixes):
        only for files at or under `paths` and findings of `codes` when given; `confidence`
        "safe" leaves out the fixes to review; the fixes that rename a skill's folder only with
        `rename_folders`. Nothing is written."""
        if confidence not in CONFIDENCES:
            raise WorkspaceError(f"confidence {confidence!r}: expected one of {CONFIDENCES}")
        chosen = [self.policy(spec) for spec in self.chosen]
        every = self._all_policies()
        out = []
        for path in self.fix_files(paths):
            for fix in offer_fixes(path, chosen, every, codes=codes):
                if fix.rename is not None and not rename_folders:
                    continue
                if confidence == "review" or fix.confidence == "safe":
                    out.append(fix)
        return out

    def apply_fixes(self, fixes: Sequence[Fix], title: str = "") -> FixOutcome:
        """Write `fixes` as one batch (core/write_back.py): per file, a fix whose edits overlap
        an earlier one's is left out; a file changed since its fixes were offered is refused
        (nothing written to it); the rest is written with a backup, undone in one step by
        `undo_fixes`. Only an explicit call writes."""
        keep, skipped = non_overlapping(fixes)
        per_file: dict[str, list[Fix]] = {}
        for fix in keep:
            per_file.setdefault(fix.path, []).append(fix)
        changes = []
        renames: list[tuple[str, str]] = []
        applied: list[Fix] = []
        refused: list[FileChangedError] = []
        for path, group in per_file.items():
            snap = group[0].snapshot
            if any(f.snapshot.sha256 != snap.sha256 for f in group):
                skipped.extend(group)  # offered from different reads of the file
                continue
            try:
                now = Snapshot.read(path)
            except WriteError:
                now = None
            if now is None or now.data != snap.data:
                refused.append(FileChangedError(path, snap.raw, now.raw if now is not None else ""))
                continue
            changes.append((snap, snap.apply(combined_edits(group))))
            renames.extend(f.rename for f in group if f.rename is not None)
            applied.extend(group)
        try:
            batch = write_batch(changes, title or f"{len(applied)} quick fix(es)", renames)
        except WriteError as err:
            raise WorkspaceError(str(err)) from err
        return FixOutcome(tuple(applied), tuple(skipped), tuple(refused), batch)

    def advise(self, spec: str, inputs: BudgetInputs, style: str | None = None) -> Plan:
        """The budget advisor's plans for `spec`'s listing under `inputs` (core/advisor.py):
        which descriptions to shorten by how much, or which skills to disable, for every listed
        skill to keep its full description, checked with the runtime's own budget model."""
        settings, _unread = self.budget_settings(spec, inputs)
        model = self.tier1_model(spec, style)
        return advise(
            model.catalog, settings, lambda catalog: Tier1Model(catalog, self.counter, model.spec)
        )

    def plan_fixes(self, plan: Plan) -> list[Fix]:
        """The plan's description cuts as fixes (applied with `apply_fixes`, undone with
        `undo_fixes`), one per skill file, each helping the plan's runtime."""
        out = []
        for cut in plan.shorten or ():
            try:
                snap = Snapshot.read(os.path.realpath(cut.path))
            except WriteError:
                continue
            edit = shorten_in(snap, cut.keep)
            if edit is None:
                continue
            out.append(
                Fix(
                    "SP402",
                    snap.path,
                    0,
                    f"shorten the description by {cut.by:,} characters",
                    "review",
                    (edit,),
                    (plan.profile,),
                    snap,
                )
            )
        return out

    @staticmethod
    def undo_fixes() -> Batch | None:
        """Undo the last batch of fixes in one step (None: nothing to undo); WorkspaceError
        (a FileChangedError as its cause) when a file changed since the batch wrote it."""
        try:
            return undo_last_batch()
        except WriteError as err:
            raise WorkspaceError(str(err)) from err

    def roots_to_watch(self) -> list[str]:
        """The folders a file watcher should watch for every live catalog."""
        out: dict[str, None] = {}
        for spec in self.chosen:
            self.live(spec)
        for live in list(self._live.values()):
            for path in live.roots_to_watch():
                out[path] = None
        return list(out)

    # --- tokens, budget, listing -----------------------------------------------------------------

    @property
    def counter(self) -> TokenCounter:
        if self._counter is None:
            self._counter = default_counter()
        return self._counter

    def use_counter(self, name: str | None) -> None:
        """Count tokens with counter `name` (None: the default, o200k)."""
        try:
            self._counter = get_counter(name) if name else default_counter()
        except (KeyError, ValueError) as err:
            raise WorkspaceError(f"token counter {name}: {err}") from None

    def budget_settings(self, spec: str, inputs: BudgetInputs) -> tuple[BudgetSettings, list[str]]:
        """The budget the runtime of `spec` would work with, by one rule: the profile's defaults,
        then the runtime's own settings files and variables, then the user's explicit inputs.
        Also returns what could not be read (unreadable or invalid settings files)."""
        problems = inputs.problems()
        if problems:
            raise WorkspaceError(problems[0])
        usage = self.local_usage(spec) if inputs.local_usage else LocalUsage()
        disclosure = self.profile(spec).disclosure
        base = replace(
            default_settings(disclosure.tier1.budget),
            usage={**usage.priorities(), **inputs.usage},
            pins=inputs.pins,
            allowlist=inputs.allowlist,
            applied=(usage.summary(),) if usage.summary() else (),
            usage_records=usage.records,
        )
        settings, unread = apply_runtime_settings(
            disclosure.settings,
            base,
            project=self.project,
            home=self.home,
            env=self.env,
        )
        unread = [*usage.problems, *unread]
        if inputs.usage:
            settings = replace(
                settings,
                applied=(*settings.applied, f"usage set here: {len(inputs.usage)} skill(s)"),
            )
        if inputs.overrides:
            settings = replace(
                settings,
                overrides={**settings.overrides, **inputs.overrides},
                applied=(
                    *settings.applied,
                    f"overrides set here: {len(inputs.overrides)} skill(s)",
                ),
            )
        if inputs.budget_chars is not None or inputs.budget_fraction is not None:
            settings = replace(
                settings, budget_chars=inputs.budget_chars, budget_fraction=inputs.budget_fraction
            )
        if inputs.context_window is not None and inputs.context_window != settings.context_window:
            settings = replace(
                settings,
                context_window=inputs.context_window,
                applied=(
                    *settings.applied,
                    f"context window set here: {inputs.context_window:,} tokens",
                ),
            )
        return settings, unread

    def local_usage(self, spec: str) -> LocalUsage:
        """The usage `spec`'s runtime records for this home (its profile's `[usage]`), weighed at
        the Workspace's clock; read only, never written or sent anywhere."""
        return read_usage(
            self.profile(spec).disclosure.usage,
            project=self.project,
            home=self.home,
            env=self.env,
            now=self.clock(),
            memo=self._usage_memo,
        )

    # --- enable and disable through the runtime's own setting -------------------------------------

    def plan_toggle(self, spec: str, name: str, *, enable: bool) -> ToggleChange:
        """The change of `spec`'s runtime settings file that turns skill `name` off (or back on),
        by its profile's `[toggle]`; nothing is written. WorkspaceError when the runtime has no
        such setting, the skill is not in this set, or the file cannot be read or edited."""
        profile = self.profile(spec)
        toggle = profile.disclosure.toggle
        if not toggle.present:
            raise WorkspaceError(
                f"Skill Prism cannot turn one skill off for {profile.title}: {toggle.note}"
                if toggle.note
                else f"the {profile.name} profile describes no setting of {profile.title} that "
                "turns one skill off; to hide a skill from it, move the skill's folder out of "
                "its skill folders"
            )
        try:
            skill = find_skill(self.catalog(spec), name)
        except ActivationError as err:
            raise WorkspaceError(f"{profile.title}: {err}") from None
        try:
            return plan_toggle(
                toggle,
                name=skill.qualified_name or skill.name,
                skill_file=skill.path,
                enable=enable,
                project=self.project,
                home=self.home,
                env=self.env,
                profile_title=profile.title,
            )
        except ToggleError as err:
            raise WorkspaceError(str(err)) from None

    def plan_disable(self, spec: str, plan: Plan) -> ToggleChange:
        """The advisor's disable plan as one change of `spec`'s runtime settings file (its
        profile's `[toggle]`), turning off every skill the plan names; nothing is written.
        WorkspaceError when the runtime has no such setting or the file cannot be edited."""
        profile = self.profile(spec)
        toggle = profile.disclosure.toggle
        if not toggle.present:
            raise WorkspaceError(
                f"Skill Prism cannot turn skills off for {profile.title}"
                + (f": {toggle.note}" if toggle.note else "")
                + "; shorten the descriptions instead, or move skills out of its skill folders"
            )
        by_path = {s.path: s for s in self.catalog(spec).skills}
        skills = []
        for item in plan.disable or ():
            skill = by_path.get(item.path)
            name = (skill.qualified_name or skill.name) if skill is not None else item.name
            skills.append((name, item.path))
        try:
            return plan_toggles(
                toggle,
                skills,
                enable=False,
                project=self.project,
                home=self.home,
                env=self.env,
                profile_title=profile.title,
            )
        except ToggleError as err:
            raise WorkspaceError(str(err)) from None

    @staticmethod
    def apply_change(change: ToggleChange) -> None:
        """Write `change` (the user asked for it), unless its file changed since it was read."""
        _replace_text(change.path, expect=change.before, text=change.after)

    @staticmethod
    def undo_change(change: ToggleChange) -> None:
        """Put back what `change` replaced, unless the file changed since it was written."""
        _replace_text(change.path, expect=change.after, text=change.before)

    # --- install, update ---------------------------------------------------------------------------

    def plan_install(
        self,
        source: str,
        specs: Sequence[str] | None = None,
        *,
        scope: str,
        mode: str = "copy",
        replace: bool = False,
    ) -> InstallPlan:
        """Where each skill of `source` (a skill folder or a repository) would go for each runtime
        (`specs`, default the chosen ones) in `scope`, with the runtime's verdict and every clash
        (core/install.py); nothing is written."""
        profiles = self.profiles if specs is None else [self.profile(s) for s in specs]
        try:
            return plan_install(
                source,
                profiles,
                scope,
                mode,
                project=self.project,
                home=self.home,
                env=self.env,
                replace=replace,
            )
        except (InstallError, OSError) as err:
            raise WorkspaceError(str(err)) from None

    @staticmethod
    def apply_install(plan: InstallPlan) -> Applied:
        """Do what `plan` allows (the user asked for it); WorkspaceError, nothing written, when a
        source or target changed since it was planned."""
        try:
            return apply_install(plan)
        except (InstallError, TreeError, OSError) as err:
            raise WorkspaceError(str(err)) from None

    @staticmethod
    def undo_install() -> Applied | None:
        """Take back the last install or update (None: nothing to undo)."""
        try:
            return undo_install()
        except (InstallError, OSError) as err:
            raise WorkspaceError(str(err)) from None

    def installed(self, specs: Sequence[str] = ()) -> list[Status]:
        """Every copy Skill Prism installed (for the runtimes `specs`, when given) and how it
        stands against its source (core/install_state.py)."""
        names = [self.profile(s).name for s in specs]
        return stale(names)

    def plan_update(self, specs: Sequence[str] = ()) -> tuple[InstallPlan, list[Status]]:
        """The update of every stale installed copy (of the runtimes `specs`), and the status of
        each installed copy it looked at."""
        statuses = self.installed(specs)
        return plan_update(statuses, project=self.project, home=self.home), statuses

    def tier1_model(self, spec: str, style: str | None = None) -> Tier1Model:
        """The prepared listing of `spec` (in the profile's alternative `style`, if named)."""
        catalog = self._catalog_for_listing(spec)
        layout = catalog.profile.disclosure.tier1
        if style:
            if style not in layout.styles:
                known = ", ".join(sorted(layout.styles)) or "none"
                raise WorkspaceError(
                    f"style {style}: profile {catalog.profile.name} has styles: {known}"
                )
            layout = layout.with_style(style)
        return Tier1Model(catalog, self.counter, spec=layout)

    def tier1(self, spec: str, inputs: BudgetInputs, style: str | None = None) -> Tier1Result:
        settings, _unread = self.budget_settings(spec, inputs)
        return self.tier1_model(spec, style).compute(settings)

    def trigger_index(self, spec: str, inputs: BudgetInputs) -> TriggerIndex:
        """The skills `spec`'s runtime lists under `inputs`, each with its entry as listed,
        indexed for ranking prompts against them (core/trigger.py: an offline estimate). Kept
        while the catalog and the inputs are the same."""
        from skillprism.core.trigger import TriggerIndex, candidates

        catalog = self._catalog_for_listing(spec)
        key = (spec, repr(inputs), id(catalog))
        if self._trigger is None or self._trigger[0] != key:
            index = TriggerIndex(candidates(self.tier1(spec, inputs)))
            self._trigger = (key, index, catalog)  # the catalog too: its id stays unique
        return self._trigger[1]

    # --- activation and resources ----------------------------------------------------------------

    def activate(
        self,
        spec: str,
        name: str,
        *,
        args: str = "",
        invoker: str = "model",
        path: str | None = None,
        first_activation: bool = True,
    ) -> Activation:
        """Activate skill `name` (or the copy at `path`) as profile `spec`'s runtime would;
        ActivationError when there is no such skill."""
        catalog = self._catalog_for_listing(spec)
        skill = find_skill(catalog, name, path)
        return activate(
            catalog,
            skill,
            args=args,
            invoker=invoker,
            first_activation=first_activation,
            counter=self.counter,
        )

    def resource(
        self, spec: str, name: str, reference: str, *, path: str | None = None
    ) -> ResourceResult:
        """Read `reference` of skill `name` (or a `skill://` URL) as the runtime's tier 3 does."""
        catalog = self._catalog_for_listing(spec)
        tier3 = catalog.profile.disclosure.tier3
        if reference.startswith("skill://"):
            skills = {s.qualified_name: s.directory for s in catalog.skills if s.loaded}
            return resolve_skill_url(
                reference,
                skills,
                only_listed=tier3.only_listed,
                max_bytes=tier3.max_bytes,
                count_tokens=self.counter.count,
                policy=catalog.reporting(),
            )
        skill = find_skill(catalog, name, path)
        return resolve_reference(
            skill.directory,
            reference,
            skill_name=skill.name,
            only_listed=tier3.only_listed,
            max_bytes=tier3.max_bytes,
            count_tokens=self.counter.count,
            policy=catalog.reporting(),
        )

    def document(self, path: str) -> tuple[SkillDocument, bool]:
        """Skill file `path` read once for a preview (from the cache while unchanged), and
        whether it changed since its findings were made (a refresh is then on its way)."""
        doc = self.cache.get(path)
        made = self.cache.evaluated_stamp(path)
        return doc, made is not None and doc.stamp != made

    def where(self, skill_dir: str, specs: Sequence[str] | None = None) -> WhereReport:
        """For a skill folder: the folders each runtime (`specs`, default the chosen ones)
        would need it in, and whether it finds it where it is now (PlacementError for a folder
        without a skill file)."""
        profiles = self.profiles if specs is None else [self.profile(s) for s in specs]
        return where(skill_dir, profiles, project=self.project, home=self.home, env=self.env)

    # --- matrix and report -----------------------------------------------------------------------

    def matrix(self, specs: Sequence[str], inputs: BudgetInputs) -> Matrix:
        """Skills x runtimes, each runtime with its own budget settings. Cells are outcomes and
        reasons, never token counts, so the listing pass uses the cheap estimate."""
        catalogs = [self._catalog_for_listing(spec) for spec in specs]
        return matrix_per_profile(
            catalogs, [self.budget_settings(spec, inputs)[0] for spec in specs]
        )

    @staticmethod
    def generated_stamp(now: float | None = None) -> str:
        """The report's time stamp, in UTC; SOURCE_DATE_EPOCH (reproducible-builds.org) pins it,
        so a report can be diffed."""
        epoch = os.environ.get("SOURCE_DATE_EPOCH", "")
        stamp = int(epoch) if epoch.isdigit() else (time.time() if now is None else now)
        return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(stamp))

    def report(
        self,
        fmt: str,
        specs: Sequence[str],
        inputs: BudgetInputs,
        *,
        title: str = "Skill Prism report",
        generated: str | None = None,
    ) -> str:
        """The review report (`fmt` "html" or "markdown") of profiles `specs`."""
        from skillprism.render.report import report_html, report_markdown

        catalogs = [self.catalog(spec) for spec in specs]
        results = [
            self.tier1_model(spec).compute(self.budget_settings(spec, inputs)[0]) for spec in specs
        ]
        render = report_markdown if fmt == "markdown" else report_html
        return render(
            catalogs,
            self.matrix(specs, inputs),
            results,
            title=title,
            generated=generated or self.generated_stamp(),
            paths=[os.path.abspath(p) for p in self.given_paths],
            project=self.project,
            settings=self.settings_report(specs),
        )

    @staticmethod
    def report_format(path: str) -> str:
        """The report format a file name asks for ("html" or "markdown")."""
        fmt = REPORT_FORMATS.get(os.path.splitext(path)[1].lower())
        if fmt is None:
            raise WorkspaceError(f"{path}: unknown report format; use .html or .md")
        return fmt


def _replace_text(path: str, *, expect: str | None, text: str | None) -> None:
    """Make `path` hold `text` (None: no file) if it still holds `expect` (None: no file);
    WorkspaceError, with nothing written, when someone changed it in between. The one place
    enable/disable writes a runtime's settings, through the one atomic replace
    (core/write_back.py); a settings file may hold tokens and be private (0600): the new one
    keeps its mode from the start."""
    try:
        current = read_text(path)
    except ToggleError as err:
        raise WorkspaceError(str(err)) from None
    if current != expect:
        raise WorkspaceError(
            f"{path} changed since Skill Prism read it; nothing was written (look again and retry)"
        )
    if text == current:
        return
    if text is None:
        os.unlink(path)
        return
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    try:
        replace_atomically(path, text.encode("utf-8"))  # (its mode kept, or a new file's)
    except WriteError as err:
        raise WorkspaceError(str(err)) from None


def write_atomically(path: str, text: str) -> None:
    """Write `text` (UTF-8, "\n" line ends) to `path` through the one atomic replace
    (core/write_back.py): a reader never sees half a file and a failed write leaves the old one
    alone. The file gets the mode an ordinary new file would (0666 less the umask)."""
    try:
        replace_atomically(path, text.encode("utf-8"), new_file_mode())
    except WriteError as err:
        raise WorkspaceError(str(err)) from None


__all__ = [
    "ActivationError",
    "BudgetInputs",
    "Fix",
    "FixOutcome",
    "RiskProgress",
    "Update",
    "Workspace",
    "WorkspaceError",
    "write_atomically",
]
