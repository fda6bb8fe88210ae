"""How often the offline trigger estimate (core/trigger.py) picks the skill a prompt was written
for, on the committed hand-labelled prompt set (bench/trigger_prompts: 5 prompts that should and 5
that should not trigger each skill), beside two baselines measured in the same run:

- name match: the listed skill whose name shares the most words with the prompt;
- random: the listed skills in a random order (the mean over 20 seeds).

Per runtime listing (each collection installed into a project as one skill set, each skill's
entry as that runtime renders it) at two context windows, it prints for the should-trigger prompts the share that rank the
intended skill first (top-1) and in the first three (top-3), and for the should-not prompts the
share for which the estimate does not pick the skill; then the time one prompt takes to rank on
the largest listing. A skill the runtime leaves out of the listing counts as a miss: no prompt can
pick it. Targets: the estimate beats both baselines on top-1 and top-3 in every listing.

    python bench/bench_trigger.py [--sets DIR] [--profile NAME ...] [--window N ...]

Exits 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT / "src"))

from skillprism.app.workspace import Workspace  # noqa: E402
from skillprism.core.budget_inputs import BudgetInputs  # noqa: E402
from skillprism.core.eval_sets import read_eval_set  # noqa: E402
from skillprism.core.trigger import name_match, random_order  # noqa: E402

PROMPTS = HERE / "trigger_prompts"
SEEDS = 20


def _collection_root(collection: str, sets: Path) -> Path:
    return ROOT / "skills" if collection == "demo" else sets / collection


def _rank(order: list[str], key: str) -> int | None:
    return order.index(key) + 1 if key in order else None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", default="/work/realsets", help="the realsets export folder")
    parser.add_argument("--profile", action="append", help="runtime profiles (claude-code, codex)")
    parser.add_argument("--window", action="append", type=int, help="context windows in tokens")
    args = parser.parse_args()
    profiles = args.profile or ["claude-code", "codex"]
    windows = args.window or [200_000, 32_000]
    manifest = json.loads((PROMPTS / "manifest.json").read_text(encoding="utf-8"))
    sets = Path(args.sets)
    by_collection: dict[str, list[dict[str, str]]] = {}
    for entry in manifest:
        by_collection.setdefault(entry["collection"], []).append(entry)
    missing = [c for c in by_collection if not _collection_root(c, sets).is_dir()]
    if missing:
        print(f"not laid out here: {', '.join(missing)} (../shared/realsets/export)")
        return 2
    n_prompts = sum(10 for _ in manifest)
    print(
        f"{len(manifest)} skills in {len(by_collection)} collections, {n_prompts} prompts "
        f"(half should trigger); profiles {', '.join(profiles)}; windows {windows}"
    )
    print(
        f"{'listing':32} {'skills':>6} {'listed':>6} | {'top-1':>6} {'top-3':>6} {'not':>6} | "
        f"{'name top-1':>10} {'top-3':>6} | {'random top-1':>12} {'top-3':>6}"
    )
    failed = False
    slowest: list[float] = []
    for profile in profiles:
        for window in windows:
            tally = {k: 0 for k in ("n", "t1", "t3", "neg", "negok", "n1", "n3")}
            r1: list[float] = []
            r3: list[float] = []
            skills_total = listed_total = 0
            for collection, entries in sorted(by_collection.items()):
                root = _collection_root(collection, sets)
                # a collection is a repository: reviewed as installed into a project (each
                # runtime's own project folder), as a user would have it; the demo set as it is
                ws = Workspace(
                    str(root),
                    [str(root)],
                    [profile],
                    security=False,
                    install_into="" if collection == "demo" else "project",
                )
                index = ws.trigger_index(profile, BudgetInputs(context_window=window))
                skills_total += len(index.candidates)
                listed_total += len(index.listed)
                by_path = {c.key: c for c in index.candidates}
                rand = [random_order(index.candidates, seed) for seed in range(SEEDS)]
                for entry in entries:
                    key = str(root / entry["path"])
                    items = read_eval_set(str(PROMPTS / entry["prompts"]))
                    if key not in by_path:
                        key = ""  # not found under this runtime: every prompt misses
                    for item in items:
                        start = time.perf_counter()
                        estimate = index.estimate(item.query)
                        slowest.append(time.perf_counter() - start)
                        rank = estimate.rank_of(key) if key else None
                        if not item.should_trigger:
                            tally["neg"] += 1
                            pick = estimate.picked()
                            tally["negok"] += pick is None or pick.key != key
                            continue
                        tally["n"] += 1
                        tally["t1"] += rank == 1
                        tally["t3"] += rank is not None and rank <= 3
                        nm = _rank(name_match(index.candidates, item.query), key)
                        tally["n1"] += nm == 1
                        tally["n3"] += nm is not None and nm <= 3
                        ranks = [_rank(order, key) for order in rand]
                        r1.append(sum(r == 1 for r in ranks) / SEEDS)
                        r3.append(sum(r is not None and r <= 3 for r in ranks) / SEEDS)
            n = tally["n"] or 1
            top1, top3 = tally["t1"] / n, tally["t3"] / n
            name1, name3 = tally["n1"] / n, tally["n3"] / n
            rand1, rand3 = statistics.fmean(r1 or [0]), statistics.fmean(r3 or [0])
            not_picked = tally["negok"] / (tally["neg"] or 1)
            label = f"{profile} @ {window // 1000}k"
            print(
                f"{label:32} {skills_total:>6} {listed_total:>6} | {top1:>6.1%} {top3:>6.1%} "
                f"{not_picked:>6.1%} | {name1:>10.1%} {name3:>6.1%} | {rand1:>12.1%} {rand3:>6.1%}"
            )
            if not (top1 > max(name1, rand1) and top3 > max(name3, rand3)):
                failed = True
                print(f"  MISSED: the estimate does not beat both baselines in {label}")
    slowest.sort()
    p99 = slowest[int(len(slowest) * 0.99)] if slowest else 0.0
    print(
        f"ranking one prompt: median {statistics.median(slowest) * 1000:.2f} ms, "
        f"p99 {p99 * 1000:.2f} ms over {len(slowest)} rankings (target: under 100 ms)"
    )
    if p99 > 0.1:
        failed = True
    print("targets:", "MISSED" if failed else "met")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
