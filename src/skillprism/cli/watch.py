"""`skillprism watch`: scan like check, then keep the catalog current while files change and print
one line per update (JSON lines with --format json) until Ctrl+C. The first line lists every skill;
each update lists the skills whose state or findings changed and those that went away; a line of
its own says when the file watcher had to be restarted or fell back to polling.

SIGINT and SIGTERM end it like any interrupted command: exit code 128 + the signal's number (130
after Ctrl+C, 143 after SIGTERM), within `STOP_TIMEOUT_S` seconds even when a watcher thread does
not stop; a second signal ends it at once."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import sys
import threading
import time

from skillprism.cli.common import (
    EXIT_OK,
    UsageError,
    add_security_args,
    add_selection_args,
    error,
    open_workspace,
)

# How long a stop may take, from the signal on: the file watcher's threads get this long to end.
STOP_TIMEOUT_S = 3.0


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    watch = sub.add_parser(
        "watch",
        help="keep the catalog current while files change; print one line per update",
        description="Scan like check, then watch the folders and print one line per catalog "
        "update (JSON lines with --format json) until Ctrl+C. Ends with exit code 130 on "
        "SIGINT (Ctrl+C) and 143 on SIGTERM (128 + the signal's number).",
    )
    add_selection_args(watch, repeat_profile=False)
    add_security_args(watch)
    watch.add_argument("--format", choices=("text", "json"), default="text")
    watch.add_argument(
        "--polling", action="store_true", help="poll instead of native file events (slower)"
    )
    watch.add_argument(
        "--debounce-ms", type=int, default=75, metavar="MS", help="quiet time before an update"
    )
    watch.set_defaults(run=run)


def entries(old, new) -> list[dict]:  # type: ignore[no-untyped-def, type-arg]
    """The skills of `new` that differ from `old` (all of them without `old`), and the removed."""
    from skillprism.core.catalog import skill_changes

    changed, removed = skill_changes(old, new)
    out: list[dict] = [  # type: ignore[type-arg]
        {
            "path": s.path,
            "name": s.qualified_name or s.name,
            "status": s.status,
            "codes": sorted({d.code for d in s.diagnostics}),
        }
        for s in changed
    ]
    out.extend({"path": key, "status": "removed"} for key in removed)
    return out


def _describe(entry: dict) -> str:  # type: ignore[type-arg]
    from skillprism.core.display import display_path

    where = display_path(entry["path"])
    if entry["status"] == "removed":
        return f"  removed: {where}"
    codes = f" [{', '.join(entry['codes'])}]" if entry["codes"] else ""
    name = display_path(entry["name"]) or "(no name)"
    return f"  {entry['status']}: {name} at {where}{codes}"


def _text(record: dict) -> str:  # type: ignore[type-arg]
    from skillprism.core.display import display_path

    if "watcher" in record:
        return f"watcher {record['watcher']}: {record['reason']} (now {record['mode']})"
    if record.get("initial"):
        head = (
            f"watching {record['skills']} skill(s), {record['errors']} error(s); "
            f"scan {record['elapsed_ms']:.0f} ms ({record['mode']}"
            + (f": {record['reason']})" if record.get("reason") else ")")
        )
    else:
        paths = [display_path(p) for p in record["changed"]]
        files = ", ".join(paths[:3]) + (f" (+{len(paths) - 3} more)" if len(paths) > 3 else "")
        head = (
            f"updated in {record['elapsed_ms']:.0f} ms: {record['skills']} skill(s), "
            f"{record['errors']} error(s) <- {files}"
            + ("" if record["entries"] else "; no skill changed")
        )
    return "\n".join([head, *(_describe(e) for e in record["entries"])])


def _counts(catalog) -> tuple[int, int]:  # type: ignore[no-untyped-def]
    return len(catalog.skills), sum(1 for d in catalog.all_diagnostics() if d.severity.rank == 3)


def run(args: argparse.Namespace) -> int:
    """Initial scan, then one line per catalog update until SIGINT / SIGTERM (exit 128 + signal)."""
    from skillprism.core.watch import SkillWatcher

    started = time.monotonic()
    try:
        workspace = open_workspace(args)
        catalog = workspace.catalog()
    except UsageError as err:
        return error(str(err))
    scan_ms = round((time.monotonic() - started) * 1000, 1)
    out_lock = threading.Lock()
    done = threading.Event()
    stopped_by: list[int] = []  # the signal that ended the run
    shown = {"catalog": catalog}  # the catalog the last line described

    def write(record: dict) -> None:  # type: ignore[type-arg]
        text = json.dumps(record) if args.format == "json" else _text(record)
        try:
            print(text, flush=True)
        except (BrokenPipeError, ValueError):
            done.set()

    def emit(record: dict) -> None:  # type: ignore[type-arg]
        with out_lock:
            write(record)

    def on_change(paths: list[str]) -> None:
        try:
            update = workspace.refresh(paths)
        except Exception as err:  # keep watching; the next change may fix it
            print(f"skillprism: watch: refresh failed: {err}", file=sys.stderr, flush=True)
            return
        new = update.catalogs[0]
        skills, errors = _counts(new)
        record = {
            "changed": paths,
            "skills": skills,
            "errors": errors,
            "elapsed_ms": round((time.monotonic() - watcher.batch_started) * 1000, 1),
            "mode": watcher.mode,
            "refresh": update.refresh,
            "entries": entries(shown["catalog"], new),
        }
        shown["catalog"] = new
        emit(record)

    def on_mode(mode: str, reason: str) -> None:
        change = "restarted" if mode == previous["mode"] else mode
        previous["mode"] = mode
        emit({"watcher": change, "mode": mode, "reason": reason, "restarts": watcher.restarts})

    def on_signal(signum: int, _frame: object) -> None:
        if stopped_by:  # a second signal while stopping: end now
            os._exit(128 + stopped_by[0])
        stopped_by.append(signum)
        done.set()

    watcher = SkillWatcher(
        workspace.roots_to_watch(),
        on_change,
        debounce_ms=args.debounce_ms,
        force_polling=args.polling,
        on_mode=on_mode,
    )
    previous = {"mode": ""}
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, on_signal)
    try:
        # Held until the first line is out: no update or watcher line may come before it.
        with out_lock:
            watcher.start()
            previous["mode"] = watcher.mode
            skills, errors = _counts(catalog)
            record = {
                "initial": True,
                "skills": skills,
                "errors": errors,
                "elapsed_ms": scan_ms,
                "mode": watcher.mode,
            }
            if watcher.reason:
                record["reason"] = watcher.reason
            record["entries"] = entries(None, catalog)
            write(record)
        while not done.wait(0.5):
            pass
    finally:
        clean = watcher.stop(timeout=STOP_TIMEOUT_S)
    code = 128 + stopped_by[0] if stopped_by else EXIT_OK
    if not clean:
        # A thread that would not stop could also hold up the interpreter's exit.
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()
        os._exit(code)
    return code
