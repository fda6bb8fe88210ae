"""What a live run will cost, shown before anything runs.

prompts x runs = model calls (at least one each: a run that uses a skill makes more). The input
tokens of a call are estimated from what the runtime sends that Skill Prism knows: its tier-1
listing of the skill set and the prompt (its own system prompt and tools come on top and are not
known here, so the figure is a floor). A cost is given only for a model whose price is in
resources/live-prices.toml, with that row's source and date; otherwise it is None ("unknown").
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from skillprism.core.structured import StructuredError, read_structured
from skillprism.core.tokens import estimate_tokens
from skillprism.paths import resources_dir

PRICES_FILE = "live-prices.toml"


@dataclass(frozen=True)
class Price:
    model: str
    usd_per_million: float
    source: str
    date: str


@dataclass(frozen=True)
class LivePlan:
    prompts: int
    runs: int
    calls: int
    listing_tokens: int
    tokens_per_call: int  # the mean over the prompts: listing + prompt
    input_tokens: int  # over every call
    model: str  # "" when the runtime's own default (unknown here)
    cost_usd: float | None
    price: Price | None

    def as_dict(self) -> dict[str, Any]:
        return {
            "prompts": self.prompts,
            "runs": self.runs,
            "calls": self.calls,
            "listing_tokens": self.listing_tokens,
            "tokens_per_call": self.tokens_per_call,
            "input_tokens": self.input_tokens,
            "input_tokens_note": "at least: the runtime's own system prompt and tools add more",
            "model": self.model or None,
            "cost_usd": self.cost_usd,
            "price": None
            if self.price is None
            else {
                "usd_per_million_input_tokens": self.price.usd_per_million,
                "source": self.price.source,
                "date": self.price.date,
            },
        }

    def text(self) -> str:
        cost = (
            f"about ${self.cost_usd:.4f} (price of {self.price.model}, {self.price.source}, "
            f"{self.price.date})"
            if self.cost_usd is not None and self.price is not None
            else "cost unknown (no price known for "
            + (self.model or "the runtime's default model")
            + ")"
        )
        return (
            f"{self.prompts} prompt(s) x {self.runs} run(s) = {self.calls} model call(s) at "
            f"least; about {self.tokens_per_call:,} input tokens each (listing "
            f"{self.listing_tokens:,} + prompt; the runtime's own prompt comes on top), "
            f"{self.input_tokens:,} in all; {cost}"
        )


def load_prices(path: str | None = None) -> dict[str, Price]:
    """Model -> price from the shipped price file (empty when it cannot be read)."""
    try:
        data = read_structured(path or str(resources_dir() / PRICES_FILE), "toml")
    except StructuredError:
        return {}
    out = {}
    for row in data.get("price", []) if isinstance(data, dict) else []:
        try:
            out[str(row["model"])] = Price(
                str(row["model"]),
                float(row["usd_per_million_input_tokens"]),
                str(row["source"]),
                str(row["date"]),
            )
        except (KeyError, TypeError, ValueError):
            continue
    return out


def make_plan(
    prompts: Sequence[str],
    runs: int,
    listing: str,
    model: str = "",
    count: Callable[[str], int] = estimate_tokens,
    prices: dict[str, Price] | None = None,
) -> LivePlan:
    """The plan for `runs` runs of each prompt against a runtime listing `listing`."""
    if runs < 1:
        raise ValueError("runs: at least 1")
    listing_tokens = count(listing) if listing else 0
    per_prompt = [listing_tokens + count(p) for p in prompts]
    total = sum(per_prompt) * runs
    calls = len(prompts) * runs
    price = (prices if prices is not None else load_prices()).get(model) if model else None
    return LivePlan(
        prompts=len(prompts),
        runs=runs,
        calls=calls,
        listing_tokens=listing_tokens,
        tokens_per_call=round(sum(per_prompt) / len(per_prompt)) if per_prompt else 0,
        input_tokens=total,
        model=model,
        cost_usd=None if price is None else total * price.usd_per_million / 1_000_000,
        price=price,
    )
