"""`skillprism self-test`: check that this installation works, offscreen, without touching the
user's settings or skills."""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import TextIO

from skillprism import APP_NAME, __version__
from skillprism.cli.common import EXIT_FINDINGS
from skillprism.cli.selftest_steps import SelfTestFailure, SelfTestWarning, Steps


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    selftest = sub.add_parser(
        "self-test",
        help="check that this installation works (offscreen window, profiles, watcher)",
        description="Check that this installation works, without a screen and without touching "
        "your settings or skills: bundled data, every profile, the tokenizer, rendering, the "
        "main window on the demo set and a file-watch round trip in a temporary folder. "
        "Exit status 0 when every check passes, 1 otherwise.",
    )
    selftest.add_argument("--screenshot", metavar="FILE", help="also save the window as a PNG")
    selftest.add_argument(
        "--verbose", action="store_true", help="print a traceback for unexpected failures"
    )
    selftest.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from skillprism.gui.app import qt_or_explain

    if not qt_or_explain():
        return EXIT_FINDINGS
    return run_self_test(screenshot=args.screenshot or "", verbose=args.verbose)


def _build_kind() -> str:
    if getattr(sys, "frozen", False):
        return f"frozen build in {os.path.dirname(sys.executable)}"
    return f"Python {sys.version.split()[0]} at {sys.executable}"


@dataclass
class StepResult:
    name: str
    ok: bool
    detail: str
    seconds: float
    warning: bool = False


class SelfTest:
    """The checks in order; the window checks share one QApplication and one MainWindow."""

    def __init__(self, out: TextIO, *, screenshot: str = "", verbose: bool = False) -> None:
        self.out = out
        self.screenshot = screenshot
        self.verbose = verbose
        self.results: list[StepResult] = []
        self._tmp = tempfile.TemporaryDirectory(prefix="skillprism-self-test-")
        self.steps = Steps(self._tmp.name)
        from skillprism.gui.selftest import WindowChecks  # Qt only when the self-test runs

        self.window = WindowChecks(self._tmp.name, SelfTestFailure, screenshot)

    # --- driver ----------------------------------------------------------------------------------

    def run(self) -> int:
        started = time.perf_counter()
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")  # no screen needed, none used
        print(f"{APP_NAME} {__version__} self-test ({_build_kind()})", file=self.out)
        steps: list[tuple[str, Callable[[], str]]] = [
            ("bundle", self.steps.check_bundle),
            ("profiles", self.steps.check_profiles),
            ("check", self.steps.check_demo_set),
            ("tokenizer", self.steps.check_tokenizer),
            ("security", self.steps.check_security),
            ("trigger", self.steps.check_trigger),
            ("render", self.steps.check_render),
            ("processes", self.steps.check_processes),
            ("binding", self.window.check_binding),
            ("window", self.window.check_window),
            ("preview", self.window.check_preview),
            ("watcher", self.window.check_watcher),
        ]
        try:
            for name, step in steps:
                self._run_step(name, step)
        finally:
            self.window.close()
            self._tmp.cleanup()
        failed = [r for r in self.results if not r.ok]
        warned = sum(r.warning for r in self.results)
        total = time.perf_counter() - started
        verdict = "passed" if not failed else "FAILED"
        warnings = f", {warned} with a warning" if warned else ""
        print(
            f"self-test {verdict}: {len(self.results) - len(failed)} of {len(self.results)} "
            f"checks ok{warnings} ({total:.2f} s)",
            file=self.out,
        )
        return 1 if failed else 0

    def _run_step(self, name: str, step: Callable[[], str]) -> None:
        start = time.perf_counter()
        warning = False
        try:
            detail, ok = step(), True
        except SelfTestWarning as err:
            detail, ok, warning = str(err), True, True
        except SelfTestFailure as err:
            detail, ok = str(err), False
        except Exception as err:  # a broken build must still produce a verdict, not a trace
            detail, ok = f"unexpected {type(err).__name__}: {err}", False
            if self.verbose:
                traceback.print_exc(file=self.out)
        seconds = time.perf_counter() - start
        self.results.append(StepResult(name, ok, detail, seconds, warning))
        mark = "warn" if warning else "ok  " if ok else "FAIL"
        print(f"  {mark} {name:<10} {detail} [{seconds:.2f} s]", file=self.out, flush=True)


def run_self_test(*, screenshot: str = "", verbose: bool = False, out: TextIO | None = None) -> int:
    return SelfTest(out or sys.stdout, screenshot=screenshot, verbose=verbose).run()
