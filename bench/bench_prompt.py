"""Recomputing tier 1 + budget for 5,000 skills after changing only the context window.

The budget view drives this from a slider, so it must follow a moving control: target <= 20 ms per
recompute on this 2-core machine. Measured for every shipped profile that has a budget model, with
the estimate counter and with the default BPE counter (counts cached after the first pass, as the
app keeps one Tier1Model per catalog).

    python bench/bench_prompt.py [-n 5000] [--keep DIR]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from gen_skills import generate

from skillprism.core.disclose import BudgetSettings, Tier1Model
from skillprism.core.profiles import available_profiles, load_profile
from skillprism.core.resolve import build_catalog
from skillprism.core.tokens import EstimateCounter, default_counter

TARGET_MS = 20.0
WINDOWS = (8_000, 16_000, 32_000, 64_000, 128_000, 200_000, 400_000, 1_000_000)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=5000)
    parser.add_argument("--keep", metavar="DIR", help="generate into DIR and keep it")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(args.keep or tmp) / "skills"
        if not root.exists():
            generate(root, args.n, seed=1)
        print(f"{args.n:,} skills; target <= {TARGET_MS:g} ms per recompute (2-core machine)\n")
        ok = True
        for name in available_profiles():
            profile = load_profile(name)
            if profile.disclosure.tier1.budget.model == "none":
                continue
            catalog = build_catalog(profile, [str(root)])
            for counter in (EstimateCounter(), default_counter()):
                model = Tier1Model(catalog, counter)
                model.compute(BudgetSettings())  # first pass fills the render and count caches
                for cw in WINDOWS:  # and every shortened variant the slider will reach
                    model.compute(BudgetSettings(context_window=cw))
                times, with_tokens = [], []
                outcomes = ""
                for _ in range(3):
                    for cw in WINDOWS:
                        t0 = time.perf_counter()
                        result = model.compute(BudgetSettings(context_window=cw))
                        t1 = time.perf_counter()
                        _ = result.tokens  # what a view showing token totals also pays
                        t2 = time.perf_counter()
                        times.append((t1 - t0) * 1000)
                        with_tokens.append((t2 - t0) * 1000)
                        if cw == 32_000:
                            full = sum(1 for o in result.outcomes().values() if o == "full")
                            outcomes = f"at 32k: {full:,} full, {result.used_chars:,} chars used"
                median = statistics.median(times)
                p95 = statistics.quantiles(times, n=20)[-1]
                verdict = "PASS" if median <= TARGET_MS else "FAIL"
                ok &= verdict == "PASS"
                print(
                    f"{name:12} {counter.name:26} median {median:5.1f} ms (p95 {p95:5.1f})  "
                    f"target <= {TARGET_MS:g} ms  {verdict}; with token totals "
                    f"{statistics.median(with_tokens):5.1f} ms   ({outcomes})"
                )
        return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
