"""The budget advisor: what it takes for every skill a runtime lists to keep its full
description, computed with that runtime's own budget model (core/disclose.py), never estimated
beside it.

Two plans, for the user to choose from:

* **shorten**: cut every description longer than one cap to that cap (at a sentence or word
  boundary, as the description quick fix cuts), with the largest cap at which the model shows
  every listed entry in full; per skill, how many characters go. None when even descriptions of
  `MIN_CAP` characters do not fit (the names alone overflow, or nearly);
* **disable**: the fewest skills to disable (through the runtime's own disable setting, which
  the model already applies) so that every other one is listed in full, least loss first: the
  least-used skills (the usage the runtime ranks by, when given), then the ones whose entries
  take the most room, then by name.

Each plan is checked by computing the listing it leads to (`verified`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from skillprism.core.catalog import Catalog
from skillprism.core.disclose import BudgetSettings, Tier1Model, Tier1Result

MIN_CAP = 40  # below this a description says too little to be worth keeping over disabling


def cut_description(text: str, cap: int) -> str:
    """`text` cut to at most `cap` characters at a sentence or word boundary (the description
    quick fix's cut)."""
    from skillprism.core.fixes.descriptions import cut_text

    return cut_text(text, cap)


@dataclass(frozen=True)
class Shorten:
    """One description to shorten: the skill, its SKILL.md, its length now, the text to keep."""

    name: str
    path: str
    chars: int
    keep: str

    @property
    def by(self) -> int:
        return self.chars - len(self.keep)


@dataclass(frozen=True)
class Disable:
    name: str
    path: str
    usage: float
    entry_chars: int


@dataclass(frozen=True)
class Plan:
    """What the advisor found: the listing now (counts per outcome), and each plan (None when
    it cannot make every entry full), each verified by the model."""

    profile: str
    listed: int
    outcomes: dict[str, int]
    already_full: bool
    cap: int | None
    shorten: tuple[Shorten, ...] | None
    disable: tuple[Disable, ...] | None
    verified: bool
    context_window: int = 0  # the window the listing was computed for, in tokens (0: unknown)


def all_full(result: Tier1Result) -> bool:
    """Whether every entry the listing has is shown with its full description."""
    return all(e.outcome in ("full", "excluded") for e in result.entries)


def _with_descriptions(catalog: Catalog, cut: dict[str, str]) -> Catalog:
    skills = tuple(
        replace(s, description=cut[s.key]) if s.key in cut else s for s in catalog.skills
    )
    return replace(catalog, skills=skills)


def advise(
    catalog: Catalog,
    settings: BudgetSettings,
    model: Callable[[Catalog], Tier1Model],
) -> Plan:
    """The plans for `catalog` under `settings`; `model` prepares a catalog's listing the way the
    Workspace does (its counter and style)."""
    base = model(catalog)
    now = base.compute(settings)
    entries = [e for e in now.entries if e.outcome != "excluded"]
    outcomes: dict[str, int] = {}
    for e in now.entries:
        outcomes[e.outcome] = outcomes.get(e.outcome, 0) + 1
    name = catalog.profile.name
    if all_full(now):
        return Plan(name, len(entries), outcomes, True, None, (), (), True, settings.context_window)
    listed_keys = {e.key for e in entries}
    descs = {
        s.key: s.description or "" for s in catalog.skills if s.key in listed_keys and s.description
    }

    def cuts(cap: int) -> dict[str, str]:
        return {k: cut_description(d, cap) for k, d in descs.items() if len(d) > cap}

    def fits(cap: int) -> bool:
        return all_full(model(_with_descriptions(catalog, cuts(cap))).compute(settings))

    longest = max((len(d) for d in descs.values()), default=0)
    cap: int | None = None
    if longest > MIN_CAP and fits(MIN_CAP):
        lo, hi = MIN_CAP, longest  # fits(lo) holds; find the largest cap that fits
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if fits(mid):
                lo = mid
            else:
                hi = mid - 1
        cap = lo
    shorten = None
    verified = True
    if cap is not None:
        by_key = {s.key: s for s in catalog.skills}
        shorten = tuple(
            Shorten(by_key[k].name, by_key[k].path, len(descs[k]), keep)
            for k, keep in sorted(cuts(cap).items(), key=lambda kv: by_key[kv[0]].name)
        )
        verified = verified and fits(cap)
    # Disabling: least used first, then the largest entries, then by name.
    usage = settings.usage
    order = sorted(
        entries,
        key=lambda e: (usage.get(e.name, 0.0), -e.full_chars, e.name),
    )

    def without(k: int) -> BudgetSettings:
        gone = frozenset(e.path for e in order[:k])
        return replace(settings, disabled=settings.disabled | gone)

    lo, hi = 0, len(order)  # with every skill disabled the listing is trivially full
    while lo < hi:
        mid = (lo + hi) // 2
        if all_full(base.compute(without(mid))):
            hi = mid
        else:
            lo = mid + 1
    disable = tuple(
        Disable(e.name, e.path, usage.get(e.name, 0.0), e.full_chars) for e in order[:lo]
    )
    verified = verified and all_full(base.compute(without(lo)))
    return Plan(
        name,
        len(entries),
        outcomes,
        False,
        cap,
        shorten,
        disable,
        verified,
        settings.context_window,
    )
