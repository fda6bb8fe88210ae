"""Live skill sets: a catalog that rebuilds only what a batch of changed paths touches.

`LiveCatalog` holds one profile's skill set and its DocumentCache. `refresh(changed)` re-evaluates
only the skills whose folders the changes are in, together with every skill their precedence or
nesting depends on, and rescans the roots only when the set of skill files may have changed.

The paths come from the file watcher (`SkillWatcher`, core/watcher.py, re-exported here): the
window and `skillprism watch` wire one to the other. No Qt here: the GUI adapts the callbacks to
queued signals.
"""

from __future__ import annotations

import bisect
import functools
import os
import stat
import threading
from collections.abc import Iterable, Mapping, Sequence

from skillprism.core.catalog import Catalog, SkillEntry
from skillprism.core.codes import RULES
from skillprism.core.document_cache import DocumentCache
from skillprism.core.evaluator import evaluate_file
from skillprism.core.policy import Policy
from skillprism.core.profiles import Profile, clash_key
from skillprism.core.resolve import Located, build_catalog, plugin_name, resolve_located
from skillprism.core.risk_diagnostics import with_cross_skill_risks
from skillprism.core.roots import expand_template, profile_roots
from skillprism.core.scan import ARCHIVE_SUFFIXES, DEFAULT_MAX_DEPTH, SKILL_FILE_LOWER, FoundFile
from skillprism.core.validate import Evaluation

# The watcher lives in its own module; these names stay importable from here.
from skillprism.core.watcher import (
    DEFAULT_MAX_DELAY_MS,
    SkillWatcher,
    _is_under,
    _listable,
    is_noise,
)

__all__ = ["DEFAULT_MAX_DELAY_MS", "LiveCatalog", "SkillWatcher", "is_noise"]

_TRUNCATED_CODE = RULES["scan-truncated"].code
_UNLISTED_CODE = RULES["folder-unreadable"].code


class _Index:
    """Lookups over one catalog for planning an incremental refresh."""

    def __init__(self, catalog: Catalog) -> None:
        self.files: dict[str, SkillEntry] = {}
        self.dirs: dict[str, list[str]] = {}
        self.by_name: dict[str, list[str]] = {}
        self.by_real: dict[str, list[str]] = {}
        # Names as they clash under the profile (clash_key): a change to one copy re-resolves all.
        self.key = functools.partial(clash_key, catalog.profile)
        for s in catalog.skills:
            self.files[s.path] = s
            self.dirs.setdefault(s.directory, []).append(s.path)
            if s.qualified_name:
                self.by_name.setdefault(self.key(s.qualified_name), []).append(s.path)
            self.by_real.setdefault(s.real_path, []).append(s.path)
        self.sorted_dirs = sorted(self.dirs)
        # A truncated scan depends on how many folders exist: any change may move the cut.
        self.truncated = any(d.code == _TRUNCATED_CODE for d in catalog.diagnostics)
        # Folders the scan could not list: a change there may bring their skills back.
        self.unlisted = frozenset(d.path for d in catalog.diagnostics if d.code == _UNLISTED_CODE)

    def update(self, entries: Iterable[SkillEntry]) -> None:
        """Take in re-resolved entries of known skill files (same paths, folders and real paths;
        only names and states may differ), instead of indexing all of a new catalog again."""
        for new in entries:
            old = self.files[new.path]
            self.files[new.path] = new
            if old.qualified_name != new.qualified_name:
                if old.qualified_name:
                    before = self.key(old.qualified_name)
                    self.by_name[before].remove(new.path)
                    if not self.by_name[before]:
                        del self.by_name[before]
                if new.qualified_name:
                    self.by_name.setdefault(self.key(new.qualified_name), []).append(new.path)

    def below(self, folder: str) -> list[str]:
        """Skill folders strictly below `folder`."""
        prefix = folder.rstrip(os.sep) + os.sep
        out = []
        i = bisect.bisect_left(self.sorted_dirs, prefix)
        while i < len(self.sorted_dirs) and self.sorted_dirs[i].startswith(prefix):
            out.append(self.sorted_dirs[i])
            i += 1
        return out

    def containing(self, path: str) -> list[str]:
        """Skill folders equal to or above `path`."""
        out = []
        cur = path
        while True:
            if cur in self.dirs:
                out.append(cur)
            parent = os.path.dirname(cur)
            if parent == cur:
                return out
            cur = parent


class _Evaluations:
    """Stands in for resolve's evaluator: results computed up front, the rest on demand."""

    def __init__(
        self,
        profile: Profile,
        cache: DocumentCache,
        done: dict,
        security: bool,  # type: ignore[type-arg]
    ) -> None:
        self.profile, self.cache, self.done, self.security = profile, cache, done, security

    def results(self, items: list[tuple[str, str, bool]]) -> dict[str, tuple[Evaluation, str]]:
        for path, real, *_ in items:  # (path, real path, regular file): see resolve._Item
            if path not in self.done:
                self.done[path] = _evaluate(path, self.profile, self.cache, real, self.security)
        return self.done


def _evaluate(
    path: str, profile: Profile, cache: DocumentCache, real: str = "", security: bool = False
) -> tuple[Evaluation, str]:
    """Parse (through the cache) and evaluate one skill file, as build_catalog does."""
    evaluation, _stamp = evaluate_file(path, profile, cache, security=security)
    return evaluation, real or os.path.realpath(path)


class LiveCatalog:
    """One profile's skill set kept current: `refresh(changed)` returns a new immutable Catalog."""

    def __init__(
        self,
        profile: Profile,
        paths: Sequence[str] | None = None,
        *,
        project: str | None = None,
        home: str | None = None,
        env: Mapping[str, str] | None = None,
        max_depth: int = DEFAULT_MAX_DEPTH,
        policy: Policy | None = None,
        security: bool = False,
        install_into: str = "",
        cache: DocumentCache | None = None,
        catalog: Catalog | None = None,
    ) -> None:
        self.profile = profile
        self.paths = [os.path.abspath(p) for p in paths] if paths else []
        self.project = os.path.abspath(project or os.getcwd())
        self.home = home or os.path.expanduser("~")
        self.env = dict(os.environ if env is None else env)
        self.max_depth = max_depth
        self.policy = policy or Policy(profile)
        self.cache = cache or DocumentCache()
        # Full rebuilds may use worker processes (the GUI passes "forkserver": its process has
        # threads); incremental refreshes evaluate the few changed skills in-process.
        self.workers = 1
        self.start_method = "fork"
        self.security = security
        # "personal" or "project": review the PATHs (repositories) as installed there
        # (core/installed.py); "" = as laid out.
        self.install_into = install_into
        self._lock = threading.RLock()
        self._catalog = catalog
        self._index: _Index | None = None
        self._index_of: Catalog | None = None
        self.last_refresh = "initial"  # "full", "incremental" or "none" after a refresh

    @property
    def current(self) -> Catalog | None:
        """The catalog built so far, without building one (None before the first build)."""
        return self._catalog

    @property
    def catalog(self) -> Catalog:
        with self._lock:
            if self._catalog is None:
                self._catalog = self._build()
            return self._catalog

    def _build(self) -> Catalog:
        install = None
        if self.install_into:
            from skillprism.core.installed import Install, find_units

            units = tuple(u for path in self.paths for u in find_units(path))
            install = Install(units, self.install_into)
        return build_catalog(
            self.profile,
            self.paths or None,
            install=install,
            project=self.project,
            home=self.home,
            env=self.env,
            max_depth=self.max_depth,
            cache=self.cache,
            policy=self.policy,
            workers=self.workers,
            start_method=self.start_method,
            security=self.security,
        )

    def roots_to_watch(self) -> list[str]:
        """The folders a SkillWatcher should watch: the PATHs given (a SKILL.md's folder for a
        file) or the profile's roots. Missing ones are included: the watcher waits for them on
        their nearest existing parent. A glob root also names its fixed prefix, where new
        matches appear."""
        out: dict[str, None] = {}
        if self.paths:
            for p in self.paths:
                out[os.path.dirname(p) if os.path.isfile(p) else p] = None
        if not self.paths or self.install_into:
            for root in profile_roots(self.profile, self.project, self.home, self.env):
                out[root.path] = None
            for template in self.profile.roots:
                if "*" in template.path:
                    expanded = expand_template(template.path, self.project, self.home, self.env)
                    prefix = expanded.split("*", 1)[0]
                    out[os.path.dirname(prefix) if not prefix.endswith(os.sep) else prefix] = None
        return [os.path.normpath(p) for p in out]

    def refresh(self, changed: Iterable[str] = ()) -> Catalog:
        """Forget `changed` paths, rebuild what they touch and return the new Catalog."""
        with self._lock:
            changed = sorted({os.path.normpath(os.path.abspath(p)) for p in changed})
            old = self.catalog
            if self._index is None or self._index_of is not old:
                self._index, self._index_of = _Index(old), old
            index = self._index
            self._forget(changed, index)
            # A repository reviewed as installed places each unit in a runtime's root: the
            # incremental path locates files as laid out, so a change there rebuilds (from the
            # cache: only the changed files are read again).
            if not changed or self.install_into:
                new = self._build()
                self.last_refresh = "full"
            else:
                affected = self._plan(changed, index)
                if affected is None:
                    new = self._build()
                    self.last_refresh = "full"
                elif not affected:
                    new = old
                    self.last_refresh = "none"
                else:
                    spliced = self._incremental(old, index, affected)
                    if spliced is None:
                        new = self._build()
                        self.last_refresh = "full"
                    else:
                        new, entries = spliced
                        index.update(entries)
                        self._index_of = new  # the index now describes the new catalog
                        self.last_refresh = "incremental"
            self._catalog = new
            return new

    def _forget(self, changed: list[str], index: _Index) -> None:
        drop: list[str] = []
        for p in changed:
            drop.append(p)
            for name in (SKILL_FILE_LOWER, "SKILL.md"):
                drop.append(os.path.join(p, name))
            # The skills holding `p` too: a resource coming or going changes their evaluation.
            for d in index.containing(p):
                drop.extend(index.dirs[d])
            for d in index.below(p):
                drop.extend(index.dirs[d])
        # And every other path to the same files (a symlinked alias of a skill folder): the change
        # is theirs as well, though it was reported under one path only.
        for path in list(drop):
            entry = index.files.get(path)
            if entry is not None:
                drop.extend(index.by_real.get(entry.real_path, ()))
        self.cache.forget(drop)

    def _plan(self, changed: list[str], index: _Index) -> set[str] | None:
        """The skill files to re-evaluate, or None when the set of skill files may have changed
        (new, deleted or moved SKILL.md or folders, anything outside a skill folder): then the
        roots are rescanned."""
        if index.truncated:
            return None
        affected: set[str] = set()
        for p in changed:
            if p in index.unlisted or any(_is_under(p, u) for u in index.unlisted):
                return None  # a folder the scan could not list may be listable now
            try:
                st: os.stat_result | None = os.lstat(p)
            except OSError:
                st = None
            if p in index.files:
                if st is None or not stat.S_ISREG(st.st_mode):
                    return None  # deleted, or replaced by a link or folder
                affected.add(p)
                continue
            holders = index.containing(p)
            if not holders:
                return None  # outside every known skill: maybe a new skill, root or manifest
            if p in index.dirs:
                if st is None or not stat.S_ISDIR(st.st_mode) or not _listable(p):
                    return None  # the skill folder went away, or the scan can no longer see in
                affected.update(index.dirs[p])
                continue
            name = os.path.basename(p).lower()
            if name == SKILL_FILE_LOWER or name.endswith(ARCHIVE_SUFFIXES):
                return None  # a nested skill appears or goes
            if st is None:
                if index.below(p):
                    return None  # a deleted folder that held skills
            elif not stat.S_ISREG(st.st_mode):
                return None  # a new folder or link may bring skills of its own
            for d in holders:
                affected.update(index.dirs[d])
        if self.security:
            # A skill's security scan reads every file below its folder, a nested skill's too:
            # whatever changed, every skill folder holding it is scanned again.
            for p in changed:
                for d in index.containing(p):
                    affected.update(index.dirs[d])
        return affected

    def _incremental(
        self, old: Catalog, index: _Index, affected: set[str]
    ) -> tuple[Catalog, tuple[SkillEntry, ...]] | None:
        """Re-resolve the affected skills plus every skill that shares a name or real file with
        one of them (precedence) or lies below one (nesting), and splice the result into `old`.
        None when a skill was renamed under a profile that orders each root by name: the order
        of the whole root may change, and only a rebuild sorts it as resolve does."""
        profile = self.profile
        done: dict[str, tuple[Evaluation, str]] = {}
        plugins: dict[str, str] = {}
        members: set[str] = set()
        todo = list(affected)
        while todo:
            key = todo.pop()
            if key in members:
                continue
            members.add(key)
            entry = index.files[key]
            plugin = ""
            if entry.root.namespace == "plugin":
                plugin = plugin_name(entry.root.path, profile.plugin_marker)
            plugins[key] = plugin
            names = {entry.qualified_name}
            if key in affected:
                ev, _real = done[key] = _evaluate(key, profile, self.cache, "", self.security)
                if ev.name:
                    names.add(f"{plugin}:{ev.name}" if plugin else ev.name)
            for n in names:
                if n:
                    todo.extend(index.by_name.get(index.key(n), ()))
            todo.extend(index.by_real.get(entry.real_path, ()))
            for d in index.below(entry.directory):
                todo.extend(index.dirs[d])
        located = []
        for key in members:
            entry = index.files[key]
            parts = tuple(os.path.relpath(key, entry.root.path).split(os.sep))
            found = FoundFile(key, entry.root.path, parts, entry.real_path)
            located.append(Located(found, entry.root, parts, plugins[key]))
        sub = resolve_located(
            profile,
            list(old.roots),
            located,
            [],
            _Evaluations(profile, self.cache, done, self.security),
            self.policy,
        )
        fresh = {s.key: s for s in sub.skills}
        if profile.in_root_order == "name" and any(
            s.name != index.files[s.key].name for s in sub.skills
        ):
            return None
        skills = tuple(fresh.get(s.key, s) for s in old.skills)
        new = Catalog(
            profile=profile,
            roots=old.roots,
            skills=skills,
            diagnostics=old.diagnostics,
            policy=self.policy,
            security=self.security,
            home=old.home,
            suppressed=old.suppressed,
        )
        if self.security:
            new = with_cross_skill_risks(new)
            fresh = {s.key: s for s in new.skills}
            return new, tuple(fresh[s.key] for s in sub.skills)
        return new, sub.skills
