"""Parsing and evaluating skill files for a build: in this process for small sets, in a pool of
worker processes (core/workers.py) for large ones or with the security pass, fed while the
folder search still runs; stored evaluations are reused while a file is unchanged."""

from __future__ import annotations

import contextlib
import logging
import os
import sys
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from skillprism.core.cancel import checkpoint
from skillprism.core.document import FileStamp, Finding, SkillDocument, parse_document
from skillprism.core.document_cache import DocumentCache
from skillprism.core.profiles import Profile
from skillprism.core.scan import (
    FoundFile,
    TreeListing,
)
from skillprism.core.validate import Evaluation, evaluate

if TYPE_CHECKING:  # the security pass is imported when it first runs: `check` starts faster
    from skillprism.core.security import RiskFinding
    from skillprism.core.workers import Job, WorkerPool

log = logging.getLogger(__name__)


# A skill file to evaluate: its path, its real path if known ("" if not) and whether the scan saw
# a regular file (see FoundFile); the Evaluator adds whether whoever evaluates it also looks its
# risks up in the security pass's cache, and the listings of its folders.
EvalItem = tuple[str, str, bool]

# Below this many skills a process pool costs more (fork, pickling) than it saves.
PARALLEL_MIN_SKILLS = 400
# The same with workers started by a fork server (a process with threads: the window's engine):
# a worker must wait for the server to start and load its modules, and a job handed over before
# then blocks this process, so evaluating here wins for longer.
PARALLEL_MIN_SKILLS_FORKSERVER = 1500
# With the security pass a skill costs many times more (every file of it is read and scanned):
# from this many on the workers scan, in jobs of SCAN_BATCH skills (small, so that the skills
# with many files spread over the workers).
PARALLEL_MIN_SKILLS_SECURITY = 10
SCAN_BATCH = 8
# While the set is small the cache is asked about the skills found in groups of this many: one
# question for a few costs about what one costs alone, and a group small enough keeps the
# workers' start close to the search's first finds.
LOOKUP_BATCH = 16
# A scan job also ends once its skills hold this many files: a job is its worker's until done,
# so a few large skills in one job would keep one worker busy while the other idles.
SCAN_JOB_FILES = 48
# While this process evaluates a batch itself it hands out waiting scans every so many skills.
FEED_EVERY = 8
_pool_profile: Profile | None = None


def _real_path(path: str, known: str = "") -> str:
    if known:
        return known
    try:
        return os.path.realpath(path)
    except (OSError, ValueError):
        return path


def evaluate_file(
    path: str,
    profile: Profile,
    cache: DocumentCache | None = None,
    *,
    regular: bool = False,
    security: bool = False,
) -> tuple[Evaluation, FileStamp | None]:
    """Parse (through `cache`, if given) and evaluate one skill file, with the stamp of the file
    read; `security`: also scan the skill for risks (once per skill: the result does not depend on
    the profile, and the cache keeps it). An unexpected error in Skill Prism itself stays here: it
    becomes an `internal-error` finding on this one skill, and every other skill is checked as
    usual."""
    try:
        doc = cache.get(path) if cache is not None else parse_document(path, regular=regular)
        evaluation = evaluate(doc, profile, os.path.basename(os.path.dirname(path)))
    except Exception as err:  # one bad skill must never take the whole set down
        return _internal_error(path, err), None
    if security:
        # A scan that fails costs only the risks, as in a worker (`_pool_scan`): the evaluation
        # stands, with the failure reported once.
        try:
            evaluation.risks = skill_risks(path, doc, cache)
        except Exception as err:
            evaluation.findings.extend(_internal_error(path, err).findings)
            evaluation.risks = []
    return evaluation, doc.stamp


def _internal_error(path: str, err: BaseException) -> Evaluation:
    log.warning("evaluating %s failed", path, exc_info=True)
    detail = f"{type(err).__name__}: {err}" if str(err) else type(err).__name__
    return Evaluation(
        findings=[
            Finding(
                "internal-error",
                f"Skill Prism failed while checking this file ({detail[:200]})",
                hint="please report this file to Skill Prism; other skills are unaffected",
            )
        ]
    )


def skill_risks(
    path: str,
    doc: SkillDocument,
    cache: DocumentCache | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> list[RiskFinding]:
    """The security findings of the skill whose file is `path`: kept in `cache` while the skill
    file's stamp holds, and otherwise from the security pass, which keeps per-file results in
    the user's cache folder (core/security/cache.py), so only changed files are read again.
    `cancelled` is asked between files (core.security.engine.ScanCancelled when it says so)."""
    if cache is not None:
        known = cache.risks(path)
        if known is not None:
            return known
    from skillprism.core.security import scan_skill

    risks = scan_skill(os.path.dirname(path), path, cancelled=cancelled)
    if cache is not None:
        cache.store_risks(path, doc.stamp, risks)
    return risks


def _evaluate_one(
    item: EvalItem, profile: Profile, cache: DocumentCache | None, security: bool = False
) -> tuple[Evaluation, str, FileStamp | None]:
    path, known_real, regular = item[:3]
    # Worker processes parse directly: a cache that dies with the process would only add a stat.
    evaluation, stamp = evaluate_file(path, profile, cache, regular=regular, security=security)
    return evaluation, _real_path(path, known_real), stamp


def _pool_init(
    profile: Profile, security: bool, cache_on: bool | None = None, load_rules: bool = False
) -> None:
    global _pool_profile
    _pool_profile = profile
    if security:
        # Loaded here, while the process that started this one walks the folders: that process
        # leaves every scan to its workers. With `load_rules` (a first worker whose siblings are
        # forked from it) the rules load here too, before its first job, while that process
        # goes on; otherwise they are loaded already (by the process that forked this one or
        # by the fork server), or load when a file the cache does not know first needs them: a
        # repeated check never does. A worker from a fork server learns the cache switch here.
        from skillprism.core.security import cache as security_cache

        security_cache.set_enabled(cache_on)
        import skillprism.core.security.engine

        if load_rules:
            import skillprism.core.security.preload  # noqa: F401


def _pool_idle() -> None:
    """A worker with no job left writes what its security cache holds: the process that started
    it stops it without running its exit handlers."""
    from skillprism.core.security import cache as security_cache

    security_cache.flush()


def _pool_evaluate(batch: list[EvalItem]) -> list[tuple[Evaluation, str, FileStamp | None]]:
    """Evaluate a batch in a worker (its security scans are jobs of their own). The risks of an
    item marked to be looked up come from the security pass's cache when it knows the skill as
    it is now, and stay None (to be scanned) when it does not."""
    assert _pool_profile is not None
    out = [_evaluate_one(item, _pool_profile, None) for item in batch]
    wanted = [at for at, item in enumerate(batch) if _looked_up_with_evaluation(item)]
    for at, risks in zip(wanted, looked_up_risks([batch[at] for at in wanted]), strict=True):
        out[at][0].risks = risks
    return out


def _looked_up_with_evaluation(item: EvalItem) -> bool:
    return len(item) > 3 and bool(item[3])  # type: ignore[misc]


def looked_up_risks(items: list[EvalItem]) -> list[list[RiskFinding] | None]:
    """The risks of each item from the security pass's cache (no rule loaded, no file read);
    None where the cache does not know the skill as it is now, or could not be asked."""
    if not items:
        return []
    from skillprism.core.security.engine import cached_findings_many

    try:
        return cached_findings_many(
            [
                (
                    os.path.dirname(item[0]),
                    item[0],
                    item[4] if len(item) > 4 else None,  # type: ignore[misc]
                    os.path.dirname(item[1]) if item[1] else "",
                )
                for item in items
            ]
        )
    except Exception:  # scanned instead, where a failure is reported
        log.warning("the security cache could not be asked", exc_info=True)
        return [None] * len(items)


def _pool_scan(
    scans: list[tuple[str, TreeListing | None, str]],
) -> list[list[RiskFinding] | None]:
    """The security scan of the skill of each (skill file, the listings the search made of its
    folders, its real path), in a worker: the cache is asked once for all of them (a skill it
    knows as it is now costs no read), the rest are scanned; None where the scan failed (the
    process that asked scans that skill again itself and reports the failure)."""
    from skillprism.core.security import scan_skill
    from skillprism.core.security.engine import cached_findings_many

    try:
        known = cached_findings_many(
            [
                (os.path.dirname(path), path, tree, os.path.dirname(real) if real else "")
                for path, tree, real in scans
            ]
        )
    except Exception:  # scanned below, where a failure is reported
        known = [None] * len(scans)
    from skillprism.core.workers import run_urgent

    out: list[list[RiskFinding] | None] = []
    for (path, tree, real), found in zip(scans, known, strict=True):
        run_urgent()  # (a sibling to fork waits for one skill, not for the whole job)
        if found is not None:
            out.append(found)
            continue
        try:
            real_dir = os.path.dirname(real) if real else ""
            out.append(scan_skill(os.path.dirname(path), path, listing=tree, real_dir=real_dir))
        except Exception:  # one bad skill must never take the whole set down
            out.append(None)
    # Written to the cache when the worker is idle (`_pool_idle`), and meanwhile every so often:
    # a check stopped early ends its workers without a word, and what they held is lost.
    from skillprism.core.security import cache as security_cache

    with contextlib.suppress(Exception):
        security_cache.flush(security_cache.FLUSH_AFTER_S)
    return out


def _file_count(tree: TreeListing | None) -> int:
    """How many entries the listings of a skill's folders hold (1 when it was not listed)."""
    if not tree:
        return 1
    return sum(listing.count("\0") + 1 for listing in tree.values() if listing)


def _scan_jobs(
    scans: list[tuple[str, TreeListing | None, str]], skills: int, files: int
) -> list[list[tuple[str, TreeListing | None, str]]]:
    """The scans in jobs of at most `skills` skills, each ending early once its skills hold
    `files` files."""
    jobs: list[list[tuple[str, TreeListing | None, str]]] = []
    job: list[tuple[str, TreeListing | None, str]] = []
    weight = 0
    for scan in scans:
        job.append(scan)
        weight += _file_count(scan[1])
        if len(job) >= skills or weight >= files:
            jobs.append(job)
            job, weight = [], 0
    if job:
        jobs.append(job)
    return jobs


class Evaluator:
    """Parses and evaluates skill files. Large sets (`workers` > 1) go to worker processes in
    batches *while the search is still running*, so reading, YAML and body checks overlap the
    folder walk; small sets evaluate in-process. Unchanged files reuse their stored evaluation
    either way. The CLI forks; the GUI, whose process has threads, asks for a fork server (forking
    a threaded process can deadlock the child).

    The workers are never handed more than a few batches ahead: once the search is done this
    process takes the batches still waiting and evaluates them itself, alongside the workers,
    instead of idling until they are through. So the pool has one process fewer than `workers`
    (and than there are cores): the walk, and then this process, keep the last one busy.

    With the security pass, each batch's scans are a job of their own, handed to the pool as soon
    as the batch is complete and ahead of any evaluation: a worker runs scans back to back, not
    interleaved with parsing (each runs faster with the other's data out of the processor's
    caches), and this process, which walks and evaluates, scans nothing. A forked pool scans
    with one worker (which loads the rules as it starts) while this process evaluates; once this
    process is on its last batch the first worker forks the others (`_grow`), which start with
    the rules loaded and the automaton states it built for these texts: a worker forked from
    here would build those again. (A fork server's workers all start at once, the rules loaded
    by the server.) While
    scans are outstanding the pool is busy, so this process evaluates the waiting batches. A skill
    the pass's cache knows as it is now is looked up here as the search finds it (a few at a
    time) and never handed out (while the set is below the size that has workers evaluate): a
    check of an unchanged set starts workers only if it is large enough without the pass."""

    BATCH = 100
    AHEAD = 1  # batches handed to each worker process beyond the one it is on

    def __init__(
        self,
        profile: Profile,
        cache: DocumentCache,
        workers: int,
        start_method: str = "fork",
        security: bool = False,
    ) -> None:
        self.profile = profile
        self.security = security
        self.profile_key = hash(repr(profile))
        self.cache = cache
        self.start_method = start_method
        # Whether processes can be had is asked only when a pool is needed: importing
        # multiprocessing costs more than checking a small set takes.
        self.workers = max(workers, 1)
        self.processes = 0
        self.planned = 0  # the processes the pool will have once grown (see _grow)
        self.pending: list[EvalItem] = []
        self.scan_pending: list[tuple[str, TreeListing | None, str]] = []
        # Scan jobs not yet handed to the pool: a worker is handed the next one when it has
        # room, so one that finishes early takes more instead of the first idling while the
        # other works through a queue of its own.
        self.scan_waiting: deque[list[tuple[str, TreeListing | None, str]]] = deque()
        self.scan_files = 0  # the files of the skills in scan_pending
        self.waiting: deque[list[EvalItem]] = deque()  # batches not yet handed to the pool
        self.seen = 0
        self.pool: WorkerPool | None = None
        self.jobs: list[tuple[list[EvalItem], Job]] = []
        self.scans: list[tuple[list[str], Job]] = []
        self.in_flight: list[Job] = []  # handed to the pool and not done yet
        self.known_risks: dict[str, list[RiskFinding]] = {}  # from the cache, looked up here
        self.scans_wanted = False  # a skill the cache does not know was found
        # Skills found while the set is small, to be looked up in the cache with the next few.
        self.unsure: list[tuple[FoundFile, TreeListing | None]] = []

    def search_callbacks(self) -> dict[str, Callable[..., None]]:
        """What `search` should call with each skill file it finds: with the security pass, once
        it has listed the skill's folders, so the scan (in a worker) need not list them again."""
        if self.security and self.workers > 1:
            return {"on_tree": self.add}
        return {"on_file": self.add}

    def add(self, found: FoundFile, tree: TreeListing | None = None) -> None:
        checkpoint()
        if self.workers == 1 or self.cache.evaluation(found.path, self.profile_key) is not None:
            return
        # A set this small is evaluated here: a skill the pass's cache knows is looked up here
        # too (with the next few found), so an unchanged set starts no worker. In a larger set
        # the workers, which start anyway, look them up alongside the search.
        want_risks = look_up = False
        if self.security and self.cache.risks(found.path) is None:
            if self.seen < PARALLEL_MIN_SKILLS:
                self.unsure.append((found, tree))
            elif self.scans_wanted:
                want_risks = True
            else:
                # Every skill so far was known: this one is looked up by whoever evaluates it,
                # with no scan job and no extra worker, and scanned only if it turns out unknown.
                look_up = True
        self.pending.append((found.path, found.real, found.regular, look_up, tree))  # type: ignore[arg-type]
        if want_risks:
            self._want_scan(found.path, tree, found.real)
        self.seen += 1
        # (also when the set has just become large enough for scan workers, or for workers
        # that look skills up: either decision waits for what the cache says of these)
        if len(self.unsure) >= LOOKUP_BATCH or self.seen in (
            PARALLEL_MIN_SKILLS_SECURITY,
            PARALLEL_MIN_SKILLS,
        ):
            self._look_up_unsure()
        self._hand_out()

    def _want_scan(self, path: str, tree: TreeListing | None, real: str) -> None:
        self.scan_pending.append((path, tree, real))
        self.scan_files += _file_count(tree)
        self.scans_wanted = True

    def _hand_out(self) -> None:
        """Queue for the pool what is ready, once the set is large enough to be worth it."""
        if self.workers == 1:
            return  # (no processes could be had: evaluated here)
        # Scans are worth workers from a few skills on; evaluations alone only from many.
        wanted = PARALLEL_MIN_SKILLS_SECURITY if self.scans_wanted else self._parallel_min()
        if self.seen < wanted:
            return
        if len(self.scan_pending) >= SCAN_BATCH or self.scan_files >= SCAN_JOB_FILES:
            self._submit_scans()
        if len(self.pending) >= self.BATCH:
            self._submit()

    def _parallel_min(self) -> int:
        """From how many skills evaluations alone are worth the pool."""
        if self.start_method == "forkserver":
            return PARALLEL_MIN_SKILLS_FORKSERVER
        return PARALLEL_MIN_SKILLS

    def _look_up_unsure(self) -> None:
        """Ask the security pass's cache, once for all of them, whether it knows the folders of
        the skills found and not yet looked up as they are now: then their findings are taken
        here (a lookup and a stat per file, no rule loaded, nothing read) and no worker is
        started for them, so a repeated check of an unchanged set starts none. The others are
        to be scanned."""
        if not self.unsure:
            return
        unsure, self.unsure = self.unsure, []
        items = [(found.path, found.real, found.regular, True, tree) for found, tree in unsure]
        for (found, tree), risks in zip(unsure, looked_up_risks(items), strict=True):  # type: ignore[arg-type]
            if risks is None:
                self._want_scan(found.path, tree, found.real)
            else:
                self.known_risks[found.path] = risks

    def _submit_scans(self, last: bool = False) -> None:
        """Queue the scans found so far for the pool, ahead of any evaluation. The `last` ones
        (the search is done) go in smaller jobs, so the workers finish together."""
        if self.pool is None and not self._start_pool():
            return
        if last:
            scans = [item for chunk in self.scan_waiting for item in chunk] + self.scan_pending
            self.scan_waiting.clear()
            size = max(1, min(SCAN_BATCH, len(scans) // (2 * self.planned)))
            files = SCAN_JOB_FILES // 2
        else:
            scans, size, files = self.scan_pending, SCAN_BATCH, SCAN_JOB_FILES
        self.scan_pending = []
        self.scan_files = 0
        self.scan_waiting.extend(_scan_jobs(scans, size, files))
        self._feed()

    def _submit(self) -> None:
        if self.scan_pending:
            self._submit_scans()
        if self.pool is None and not self._start_pool():
            return
        batch, self.pending = self.pending, []
        self.waiting.append(batch)
        self._feed()

    def _start_pool(self) -> bool:
        import multiprocessing

        from skillprism.core.workers import WorkerPool

        if not start_method_available(self.start_method):
            self.workers = 1  # evaluate here instead
            self.pending.clear()
            self.scan_pending.clear()
            return False
        # This process only hands out jobs and evaluates while it waits; with the security pass,
        # the scans (most of the work) keep every core busy.
        cores = min(self.workers, os.cpu_count() or 1)
        self.processes = max(1, cores if self.scans_wanted else cores - 1)
        self.planned = self.processes
        # Scans start with one worker while this process evaluates; the others are forked from
        # it once this process has nothing left to evaluate (`_grow`), so they start with the
        # automaton states and patterns it built for these texts instead of building them again.
        spares = 0
        if self.start_method == "fork" and self.scans_wanted and self.processes > 1:
            spares, self.processes = self.processes - 1, 1
        try:
            ctx = multiprocessing.get_context(self.start_method)
            if self.start_method == "forkserver":
                # The fork server loads these once for every worker it starts.
                ctx.set_forkserver_preload(forkserver_preload(self.security))
            elif self.scans_wanted and not spares:
                # Files are to be scanned: the rules load here once, before the workers are
                # forked, instead of once in each of them. (A first worker with spares loads
                # them itself, its siblings get them from it, and this process goes on.)
                import skillprism.core.security.preload  # noqa: F401
            cache_on = None
            if self.security:
                from skillprism.core.security import cache as security_cache

                cache_on = security_cache.enabled()
            self.pool = WorkerPool(
                ctx,
                self.processes,
                _pool_init,
                (self.profile, self.security, cache_on, bool(spares)),
                _pool_idle if self.security else None,
                spares,
            )
        except (OSError, ValueError):
            self.workers = 1  # no processes to be had: evaluate here instead
            self.pending.clear()
            self.scan_pending.clear()
            return False
        return True

    def _feed(self) -> None:
        """Hand waiting batches to the pool while it has fewer than AHEAD + 1 jobs per process
        (scans included) not done yet."""
        assert self.pool is not None
        self.pool.collect()
        self.in_flight = [job for job in self.in_flight if not job.done]
        room = self.processes * (self.AHEAD + 1)
        while self.scan_waiting and len(self.in_flight) < room:
            chunk = self.scan_waiting[0]
            job = self._hand(_pool_scan, chunk)
            if job is None:
                return  # no worker left: scanned here (results)
            self.scan_waiting.popleft()
            self.scans.append(([item[0] for item in chunk], job))
            self.in_flight.append(job)
        while self.waiting and len(self.in_flight) < room:
            job = self._hand(_pool_evaluate, self.waiting[0])
            if job is None:
                return
            self.jobs.append((self.waiting.popleft(), job))
            self.in_flight.append(job)

    def _grow(self) -> None:
        """With scans still waiting and nothing left for this process to evaluate, fork the
        pool's spare workers from its first one (see `_start_pool`) and hand them scans."""
        assert self.pool is not None
        while self.scan_waiting and self.processes < self.planned and self.pool.add_sibling():
            self.processes += 1
        self._feed()

    def _hand(self, func: Callable[[Any], Any], arg: Any) -> Job | None:
        """The job of `func(arg)` in the pool; None once no worker is left (what the pool does
        not get is evaluated here)."""
        from skillprism.core.workers import WorkerDied

        assert self.pool is not None
        try:
            return self.pool.submit(func, arg)
        except WorkerDied:
            return None

    def results(self, items: list[EvalItem]) -> dict[str, tuple[Evaluation, str]]:
        done: dict[str, tuple[Evaluation, str]] = {}
        if self.unsure:
            self._look_up_unsure()
            self._hand_out()
        if self.pool is not None:
            stamps: dict[str, FileStamp | None] = {}
            try:
                if self.scan_pending or self.scan_waiting:
                    self._submit_scans(last=True)
                if self.pending:
                    self._submit()
                # Share the batches the pool has not been handed yet: take the last one here
                # while the workers work through theirs, until none is left.
                while self.waiting:
                    self._feed()
                    if self.waiting:
                        batch = self.waiting.pop()
                        if not self.waiting:
                            # the last batch: the first worker forks the others meanwhile
                            # (between two skills of the scan it is on, see workers.run_urgent)
                            self._grow()
                        for n, item in enumerate(batch, 1):
                            ev, real, stamp = _evaluate_one(item, self.profile, None)
                            done[item[0]] = (ev, real)
                            stamps[item[0]] = stamp
                            if n % FEED_EVERY == 0 and self.scan_waiting:
                                self._feed()  # a worker that is through waits for no batch
                        self._look_up(batch, done)
                # Then hand the scans still waiting to the workers as they finish theirs.
                self._grow()
                while self.scan_waiting and self.pool.alive():
                    self.pool.collect(None)
                    self._feed()
                # A job whose worker died or that failed is evaluated (or scanned) here below;
                # every other job's results are kept.
                for batch, job in self.jobs:
                    try:
                        answers = self.pool.result(job)
                    except Exception:
                        log.warning("a worker's batch failed; evaluating it here", exc_info=True)
                        continue
                    for item, (ev, real, stamp) in zip(batch, answers, strict=True):
                        done[item[0]] = (ev, real)
                        stamps[item[0]] = stamp
                        if ev.risks is None and _looked_up_with_evaluation(item):
                            self.scan_pending.append((item[0], item[4], item[1]))  # type: ignore[misc]
                # Skills a lookup did not know are scanned by the workers too.
                if self.scan_pending:
                    self._submit_scans(last=True)
                    self._grow()
                while self.scan_waiting and self.pool.alive():
                    self.pool.collect(None)
                    self._feed()
                for paths, job in self.scans:
                    try:
                        found = self.pool.result(job)
                    except Exception:
                        log.warning("a worker's scans failed; scanning here", exc_info=True)
                        continue
                    for path, risks in zip(paths, found, strict=True):
                        if path in done:
                            done[path][0].risks = risks
            finally:
                # Every result is in (or a worker failed): stop the workers now rather than
                # waiting for them to wind down.
                self.pool.close()
                self.pool = None
            for path, stamp in stamps.items():
                self._store(path, stamp, done[path][0])
        for item in items:
            path = item[0]
            if path in done:
                continue
            checkpoint()
            stored = self.cache.evaluation(path, self.profile_key)
            if stored is not None:
                done[path] = (stored, _real_path(path, item[1]))
                continue
            # (the risks of a skill the cache knew are those looked up: not asked for again)
            scan = self.security and path not in self.known_risks
            ev, real, stamp = _evaluate_one(item, self.profile, self.cache, scan)
            done[path] = (ev, real)
            self.cache.store_evaluation(path, self.profile_key, stamp, ev)
        if self.security:
            for path, (ev, _real) in done.items():
                if ev.risks is None:  # evaluated without: its scan is in the cache, or made now
                    looked_up = self.known_risks.get(path)
                    if looked_up is not None:
                        ev.risks = looked_up
                        self.cache.store_risks(path, self.cache.evaluated_stamp(path), looked_up)
                        continue
                    known = self.cache.risks(path)
                    if known is not None:
                        ev.risks = known  # (without parsing the document here again)
                        continue
                    try:
                        ev.risks = skill_risks(path, self.cache.get(path), self.cache)
                    except Exception as err:  # never the whole set for one skill
                        ev.findings.extend(_internal_error(path, err).findings)
                        ev.risks = []
        return done

    def _look_up(self, batch: list[EvalItem], done: dict[str, tuple[Evaluation, str]]) -> None:
        """The risks of the batch's items marked to be looked up, evaluated here: from the
        cache, or queued for the workers to scan."""
        wanted = [item for item in batch if _looked_up_with_evaluation(item)]
        for item, risks in zip(wanted, looked_up_risks(wanted), strict=True):
            if risks is not None:
                done[item[0]][0].risks = risks
            else:
                self.scan_pending.append((item[0], item[4], item[1]))  # type: ignore[misc]

    def close(self) -> None:
        """Stop the workers, if any are still running."""
        if self.pool is not None:
            self.pool.close()
            self.pool = None

    def _store(self, path: str, stamp: FileStamp | None, ev: Evaluation) -> None:
        self.cache.store_evaluation(path, self.profile_key, stamp, ev)
        if ev.risks is not None:
            self.cache.store_risks(path, stamp, ev.risks)


def forkserver_preload(security: bool) -> list[str]:
    """The modules the fork server loads once for every worker it starts."""
    preload = ["skillprism.core.evaluator", "skillprism.core.workers"]
    if security:
        preload.append("skillprism.core.security.preload")
    return preload


def warm_forkserver() -> None:
    """Start the fork server the worker pool will use, with every module a worker may need
    (the security pass's too), before a pool is asked for: a process that waits for its first
    request (the window's engine) starts it while it waits. The first preload set is the one
    the server keeps."""
    if not start_method_available("forkserver"):
        return
    import multiprocessing
    from multiprocessing import forkserver

    multiprocessing.get_context("forkserver").set_forkserver_preload(forkserver_preload(True))
    with contextlib.suppress(OSError):  # the pool says so when asked for, and works in-process
        forkserver.ensure_running()


def evaluator_scans(evaluator: object) -> bool:
    """Whether `evaluator` (an Evaluator, or a live catalog's) runs the security pass."""
    return bool(getattr(evaluator, "security", False))


def start_method_available(method: str) -> bool:
    import multiprocessing

    return method in multiprocessing.get_all_start_methods() and sys.platform.startswith("linux")
