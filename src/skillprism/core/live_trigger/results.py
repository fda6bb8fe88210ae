"""Live run results: trigger rate per prompt, precision and recall, skill-creator's held-out split,
saved as JSON and compared across two saves ("did my edit help?").

As in skill-creator (anthropics/skills, scripts/run_eval.py and run_loop.py), a prompt triggers
when the share of its runs that used the intended skill reaches the threshold (0.5), and it
passes when that agrees with `should_trigger`. Runs that ended in `error` or `timeout` say
nothing about the model's choice: they are counted apart and left out of the rate (a prompt
whose every run failed has no rate). The split is skill-creator's `split_eval_set`: prompts that
should and should not trigger are shuffled apart with a seeded generator (42) and the first
`max(1, int(n x holdout))` of each are held out.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from skillprism.core.eval_sets import EvalItem
from skillprism.core.live_trigger.reader import OUTCOMES, RunOutcome
from skillprism.core.live_trigger.runner import RunResult

SCHEMA = 1
THRESHOLD = 0.5
HOLDOUT = 0.4
SEED = 42


class ResultsError(ValueError):
    """A saved result that cannot be read, with where and why."""


@dataclass(frozen=True)
class PromptResult:
    query: str
    should_trigger: bool
    outcomes: tuple[RunOutcome, ...]
    held_out: bool = False

    @property
    def counts(self) -> dict[str, int]:
        c = Counter(o.outcome for o in self.outcomes)
        return {k: c.get(k, 0) for k in OUTCOMES}

    @property
    def answered(self) -> int:
        return sum(o.outcome in ("intended", "other", "none") for o in self.outcomes)

    @property
    def rate(self) -> float | None:
        """Share of the answered runs that used the intended skill (None: none answered)."""
        n = self.answered
        return self.counts["intended"] / n if n else None

    @property
    def triggered(self) -> bool | None:
        rate = self.rate
        return None if rate is None else rate >= THRESHOLD

    @property
    def passed(self) -> bool | None:
        t = self.triggered
        return None if t is None else t == self.should_trigger

    @property
    def others(self) -> dict[str, int]:
        """The other skills used instead, with how often."""
        return dict(Counter(o.skill for o in self.outcomes if o.outcome == "other"))


@dataclass(frozen=True)
class Scores:
    prompts: int
    passed: int
    failed: int
    unanswered: int
    precision: float | None
    recall: float | None


def scores(prompts: Sequence[PromptResult]) -> Scores:
    tp = fp = fn = passed = failed = unanswered = 0
    for p in prompts:
        t = p.triggered
        if t is None:
            unanswered += 1
            continue
        passed += t == p.should_trigger
        failed += t != p.should_trigger
        tp += t and p.should_trigger
        fp += t and not p.should_trigger
        fn += (not t) and p.should_trigger
    return Scores(
        len(prompts),
        passed,
        failed,
        unanswered,
        tp / (tp + fp) if tp + fp else None,
        tp / (tp + fn) if tp + fn else None,
    )


def split_eval_set(
    items: Sequence[EvalItem], holdout: float = HOLDOUT, seed: int = SEED
) -> tuple[list[EvalItem], list[EvalItem]]:
    """(train, held out), as skill-creator's run_loop.split_eval_set (see the module)."""
    if not 0 <= holdout < 1:
        raise ValueError("holdout: a share from 0 up to (not including) 1")
    rng = random.Random(seed)
    trigger = [i for i in items if i.should_trigger]
    no_trigger = [i for i in items if not i.should_trigger]
    rng.shuffle(trigger)
    rng.shuffle(no_trigger)
    n_t = max(1, int(len(trigger) * holdout))
    n_n = max(1, int(len(no_trigger) * holdout))
    return trigger[n_t:] + no_trigger[n_n:], trigger[:n_t] + no_trigger[:n_n]


@dataclass
class LiveResults:
    """One live run over an eval set, as saved."""

    runtime: str
    release: str
    skill: str
    fingerprint: str
    date: str
    runs: int
    prompts: list[PromptResult] = field(default_factory=list)
    models: list[str] = field(default_factory=list)

    @staticmethod
    def collect(
        items: Sequence[EvalItem],
        results: Sequence[RunResult],
        held_out: Sequence[EvalItem] = (),
        **meta: Any,
    ) -> LiveResults:
        by_prompt: dict[int, list[RunOutcome]] = {i: [] for i in range(len(items))}
        for r in sorted(results, key=lambda r: (r.job.index, r.job.run)):
            by_prompt[r.job.index].append(r.outcome)
        held = {(i.query, i.should_trigger) for i in held_out}
        prompts = [
            PromptResult(
                it.query,
                it.should_trigger,
                tuple(by_prompt[n]),
                (it.query, it.should_trigger) in held,
            )
            for n, it in enumerate(items)
        ]
        models = sorted({o.model for p in prompts for o in p.outcomes if o.model})
        return LiveResults(prompts=prompts, models=models, **meta)

    def scores(self, held_out: bool | None = None) -> Scores:
        """Over every prompt, or only the training (False) or held-out (True) prompts."""
        chosen = [p for p in self.prompts if held_out is None or p.held_out == held_out]
        return scores(chosen)

    def as_dict(self) -> dict[str, Any]:
        all_scores = self.scores()
        return {
            "schema": SCHEMA,
            "runtime": self.runtime,
            "release": self.release,
            "models": self.models,
            "skill": self.skill,
            "skill_set_fingerprint": self.fingerprint,
            "date": self.date,
            "runs_per_prompt": self.runs,
            "threshold": THRESHOLD,
            "precision": all_scores.precision,
            "recall": all_scores.recall,
            "passed": all_scores.passed,
            "failed": all_scores.failed,
            "unanswered": all_scores.unanswered,
            "prompts": [
                {
                    "query": p.query,
                    "should_trigger": p.should_trigger,
                    "held_out": p.held_out,
                    "rate": p.rate,
                    "passed": p.passed,
                    "counts": p.counts,
                    "others": p.others,
                    "runs": [
                        {
                            "outcome": o.outcome,
                            "skill": o.skill,
                            "message": o.message,
                            "model": o.model,
                            "seconds": o.seconds,
                        }
                        for o in p.outcomes
                    ],
                }
                for p in self.prompts
            ],
        }

    def dumps(self) -> str:
        return json.dumps(self.as_dict(), indent=1, ensure_ascii=False) + "\n"


def loads(text: str, where: str = "results") -> LiveResults:
    """A saved result (ResultsError when it is not one)."""
    try:
        data = json.loads(text)
    except ValueError as err:
        raise ResultsError(f"{where}: not JSON ({err})") from None
    if not isinstance(data, dict) or data.get("schema") != SCHEMA:
        raise ResultsError(f"{where}: not a Skill Prism live trigger result (schema {SCHEMA})")
    try:
        prompts = [
            PromptResult(
                str(p["query"]),
                bool(p["should_trigger"]),
                tuple(
                    RunOutcome(
                        str(r["outcome"]),
                        str(r.get("skill", "")),
                        str(r.get("message", "")),
                        str(r.get("model", "")),
                        float(r.get("seconds", 0.0)),
                    )
                    for r in p["runs"]
                ),
                bool(p.get("held_out", False)),
            )
            for p in data["prompts"]
        ]
        return LiveResults(
            runtime=str(data["runtime"]),
            release=str(data["release"]),
            skill=str(data["skill"]),
            fingerprint=str(data["skill_set_fingerprint"]),
            date=str(data["date"]),
            runs=int(data["runs_per_prompt"]),
            prompts=prompts,
            models=[str(m) for m in data.get("models", [])],
        )
    except (KeyError, TypeError, ValueError) as err:
        raise ResultsError(f"{where}: a required field is missing or wrong ({err})") from None


@dataclass(frozen=True)
class Change:
    query: str
    should_trigger: bool
    before: float | None  # None: the prompt was not in that run, or no run answered
    after: float | None

    @property
    def better(self) -> bool | None:
        """Whether the rate moved the right way (None: no change or nothing to compare)."""
        if self.before is None or self.after is None or self.before == self.after:
            return None
        return (self.after > self.before) == self.should_trigger


def compare(before: LiveResults, after: LiveResults) -> list[Change]:
    """Per prompt, the trigger rate before and after (prompts of either run, after's first)."""
    old = {(p.query, p.should_trigger): p.rate for p in before.prompts}
    new = {(p.query, p.should_trigger): p.rate for p in after.prompts}
    keys = list(dict.fromkeys([*new, *old]))
    return [Change(q, s, old.get((q, s)), new.get((q, s))) for q, s in keys]
