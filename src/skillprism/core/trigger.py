"""Will a model pick this skill for this prompt? An offline estimate from what the runtime lists.

A runtime decides which skill to use from its tier-1 listing alone: each listed skill's entry as
the runtime renders it (a description cut to a budget, a name only, or nothing at all when it is
left out). This module ranks the listed skills against a prompt by BM25 over exactly those entry
texts (the `bm25s` library, English stop words, Snowball stemming), so a skill whose description
the runtime cut to its name ranks as a model would see it. It is an estimate, not a model's
choice: it rewards shared words, and a model also reads meaning. Nothing is fetched and no model
is loaded. Pairs of skills whose entries share most of their words are flagged: a model will
confuse them.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from skillprism.core.disclose import Tier1Result

ESTIMATE_NOTE = (
    "an estimate from the words the prompt shares with each skill's listing entry (BM25), "
    "not a model's choice"
)
LISTED = ("full", "shortened", "name-only")  # tier-1 outcomes a model can pick from
OVERLAP_MIN = 0.6  # share of an entry's own score the other entry's words reach, both ways


@dataclass(frozen=True)
class Candidate:
    """One skill of a listing: its key, name, tier-1 outcome and its entry as the runtime lists it
    ("" when it is not listed)."""

    key: str
    name: str
    outcome: str
    shown: str


@dataclass(frozen=True)
class Ranked:
    key: str
    name: str
    outcome: str
    score: float
    rank: int  # 1-based, among the listed skills


@dataclass(frozen=True)
class Estimate:
    """The listed skills against one prompt, best first (a skill sharing no word scores 0)."""

    prompt: str
    ranking: tuple[Ranked, ...]

    def rank_of(self, key: str) -> int | None:
        """The skill's rank, or None when it is not listed (a model cannot pick it)."""
        return next((r.rank for r in self.ranking if r.key == key), None)

    def picked(self) -> Ranked | None:
        """The skill the estimate says a model would pick: the first, when it shares a word."""
        top = self.ranking[0] if self.ranking else None
        return top if top is not None and top.score > 0 else None

    def above(self, key: str) -> tuple[Ranked, ...]:
        """The skills ranked above `key`: what competes with it for this prompt."""
        rank = self.rank_of(key)
        return self.ranking[: rank - 1] if rank else ()


@dataclass(frozen=True)
class Overlap:
    """Two listed skills whose entries share most of their words (`similarity` 0-1)."""

    first: str
    second: str
    similarity: float


def candidates(result: Tier1Result) -> list[Candidate]:
    """Every skill of a computed listing with its entry as listed."""
    return [
        Candidate(e.key, e.name, e.outcome, shown)
        for e, shown in zip(result.entries, result.shown(), strict=True)
    ]


@functools.cache
def _stemmer() -> Any:
    import Stemmer

    return Stemmer.Stemmer("english")


def tokens(texts: Sequence[str]) -> list[list[str]]:
    """The words BM25 compares: lower-case, English stop words out, stemmed."""
    import bm25s

    return bm25s.tokenize(
        list(texts),
        stopwords="en",
        stemmer=_stemmer(),
        return_ids=False,
        show_progress=False,
    )


class TriggerIndex:
    """The listed skills of one listing, indexed for ranking prompts against them."""

    def __init__(self, candidates: Sequence[Candidate]) -> None:
        import bm25s

        from skillprism.core.disclose import is_builtin_key

        self.candidates = tuple(candidates)
        self.listed = tuple(c for c in self.candidates if c.outcome in LISTED)
        # how many of them are the runtime's own skills ([[tier1.builtin]]), not the user's
        self.builtin_listed = sum(is_builtin_key(c.key) for c in self.listed)
        self._by_key = {c.key: c for c in self.candidates}
        self._docs = tokens([c.shown for c in self.listed]) if self.listed else []
        self._bm25: Any = None
        if any(self._docs):
            self._bm25 = bm25s.BM25()
            # an entry with no word left still takes its place (it scores 0)
            self._bm25.index([d or ["\0"] for d in self._docs], show_progress=False)

    def candidate(self, key: str) -> Candidate | None:
        return self._by_key.get(key)

    def _scores(self, words: list[str]) -> list[float]:
        known = [w for w in words if w in self._bm25.vocab_dict] if self._bm25 is not None else []
        if not known:
            return [0.0] * len(self.listed)
        return [float(s) for s in self._bm25.get_scores(known)]

    def estimate(self, prompt: str) -> Estimate:
        """Every listed skill against `prompt`, best first (ties in listing order)."""
        scores = self._scores(tokens([prompt])[0])
        order = sorted(range(len(self.listed)), key=lambda i: (-scores[i], i))
        return Estimate(
            prompt,
            tuple(
                Ranked(self.listed[i].key, self.listed[i].name, self.listed[i].outcome, s, n)
                for n, i in enumerate(order, 1)
                for s in (round(scores[i], 4),)
            ),
        )

    def overlaps(self, minimum: float = OVERLAP_MIN, key: str = "") -> list[Overlap]:
        """Pairs of listed skills (with `key`, when given) each of whose entries reaches at least
        `minimum` of the other's own score: their words say nearly the same thing."""
        if self._bm25 is None:
            return []
        own = functools.cache(lambda i: self._scores(self._docs[i])[i] if self._docs[i] else 0.0)
        keys = [c.key for c in self.listed]
        rows = [keys.index(key)] if key in keys else [] if key else range(len(keys))
        found: dict[tuple[int, int], float] = {}
        for i in rows:
            if not self._docs[i] or own(i) <= 0:
                continue
            reach = self._scores(self._docs[i])  # entry i's words against every entry
            for j, score in enumerate(reach):
                if j == i or score <= 0 or own(j) <= 0 or score / own(j) < minimum:
                    continue
                back = self._scores(self._docs[j])[i] / own(i)
                if back >= minimum:
                    found[(min(i, j), max(i, j))] = round(min(score / own(j), back), 3)
        return [
            Overlap(self.listed[a].key, self.listed[b].key, sim)
            for (a, b), sim in sorted(found.items(), key=lambda kv: -kv[1])
        ]


def name_match(candidates: Sequence[Candidate], prompt: str) -> list[str]:
    """A baseline: the listed skills ranked by how many of their name's words the prompt holds
    (keys, best first; ties in listing order)."""
    listed = [c for c in candidates if c.outcome in LISTED]
    words = set(tokens([prompt])[0])
    names = tokens([c.name.replace("-", " ").replace("_", " ").replace(":", " ") for c in listed])
    order = sorted(range(len(listed)), key=lambda i: (-len(words & set(names[i])), i))
    return [listed[i].key for i in order]


def random_order(candidates: Sequence[Candidate], seed: int) -> list[str]:
    """A baseline: the listed skills in a random order."""
    keys = [c.key for c in candidates if c.outcome in LISTED]
    random.Random(seed).shuffle(keys)
    return keys


@dataclass(frozen=True)
class EvalOutcome:
    """One prompt of an eval set: whether the estimate picks the intended skill (ranks it first,
    sharing at least one word), its rank, and what was picked instead."""

    query: str
    should_trigger: bool
    picked: bool
    rank: int | None
    instead: str  # the name the estimate picks when it is not the intended skill ("" = none)

    @property
    def correct(self) -> bool:
        return self.picked == self.should_trigger


@dataclass(frozen=True)
class EvalReport:
    outcomes: tuple[EvalOutcome, ...]

    def _count(self, should: bool, picked: bool) -> int:
        return sum(1 for o in self.outcomes if o.should_trigger == should and o.picked == picked)

    @property
    def accuracy(self) -> float:
        return sum(o.correct for o in self.outcomes) / len(self.outcomes) if self.outcomes else 0.0

    @property
    def precision(self) -> float | None:
        tp, fp = self._count(True, True), self._count(False, True)
        return tp / (tp + fp) if tp + fp else None

    @property
    def recall(self) -> float | None:
        tp, fn = self._count(True, True), self._count(True, False)
        return tp / (tp + fn) if tp + fn else None

    def top(self, k: int) -> tuple[int, int]:
        """Of the prompts that should trigger: how many rank the intended skill in the first `k`,
        and how many there are."""
        should = [o for o in self.outcomes if o.should_trigger]
        return sum(1 for o in should if o.rank is not None and o.rank <= k), len(should)


def run_eval_set(index: TriggerIndex, key: str, items: Sequence[Any]) -> EvalReport:
    """Each item (`query`, `should_trigger`) of an eval set for the skill `key`, estimated."""
    out = []
    for item in items:
        estimate = index.estimate(item.query)
        pick = estimate.picked()
        out.append(
            EvalOutcome(
                item.query,
                item.should_trigger,
                pick is not None and pick.key == key,
                estimate.rank_of(key),
                pick.name if pick is not None and pick.key != key else "",
            )
        )
    return EvalReport(tuple(out))
