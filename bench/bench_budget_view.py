"""The budget view following a moving context-window control on 5,000 skills: the time from a
control change to the table, bar and summary being updated (the long listing text follows 150 ms
after the control settles), beside the issue's target (< 50 ms on this 2-core machine).

    QT_QPA_PLATFORM=offscreen python bench/bench_budget_view.py [-n 5000] [--keep DIR]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from gen_skills import generate

TARGET_MS = 50.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=5000)
    parser.add_argument("--keep", metavar="DIR")
    args = parser.parse_args(argv)
    from PySide6.QtWidgets import QApplication

    from skillprism.core.profiles import load_profile
    from skillprism.core.resolve import build_catalog
    from skillprism.gui.budget_view import BudgetView

    app = QApplication.instance() or QApplication([])
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(args.keep or tmp) / "skills"
        if not root.exists():
            generate(root, args.n, seed=1)
        ok = True
        for profile in ("claude-code", "codex"):
            view = BudgetView()
            view.resize(1200, 600)
            view.show()
            view.set_catalog(build_catalog(load_profile(profile), [str(root)]), tmp)
            app.processEvents()
            times = []
            for _ in range(3):
                for i in range(view.context.count()):
                    t0 = time.perf_counter()
                    view.context.setCurrentIndex(i)
                    view.bar.repaint()
                    view.table.viewport().repaint()
                    times.append((time.perf_counter() - t0) * 1000)
            median = statistics.median(times)
            verdict = "PASS" if median < TARGET_MS else "FAIL"
            ok &= verdict == "PASS"
            print(
                f"{profile:12} {args.n:,} skills: control -> view updated, median {median:5.1f} ms "
                f"(max {max(times):5.1f})  target < {TARGET_MS:g} ms  {verdict}"
            )
        return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
