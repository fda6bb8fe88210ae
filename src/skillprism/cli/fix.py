"""`skillprism fix`: the quick fixes for the findings of the skills checked (core/fixes), shown as
a unified diff (`--dry-run --diff`, which `git apply` accepts) or written through the one writer
(core/write_back.py: atomic, encoding and line ends kept, a backup, undone in one step by
`--undo`).

Exit codes: 0 nothing to fix, or every fix written, or the undo done; 1 with --dry-run when
fixes are offered, else when some were not written (a file changed since it was read, or two
fixes edit the same text: run again), or the undo was refused; 2 usage or I/O problems."""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections import Counter
from typing import TYPE_CHECKING

from skillprism.cli.common import (
    EXIT_FINDINGS,
    EXIT_OK,
    EXIT_USAGE,
    UsageError,
    add_selection_args,
    error,
    open_workspace,
    tell,
)
from skillprism.formats.stream import terminal_text

if TYPE_CHECKING:
    from skillprism.core.fixes import Fix


_CODE = re.compile(r"(?i)SP\d{3}")


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    fix = sub.add_parser(
        "fix",
        help="apply the quick fixes for the findings (or show them as a diff)",
        description="Offer the quick fixes for the skills found under PATHs (as for check) and "
        "write them: each file atomically, its encoding, byte order mark and line ends kept, "
        "its previous bytes kept in the backups folder (--backups). With --dry-run nothing is "
        "written. Exit codes: 0 nothing to fix or all written; 1 fixes offered (--dry-run) or "
        "not all written; 2 usage or I/O problems.",
    )
    add_selection_args(fix, repeat_profile=True)
    fix.add_argument("--dry-run", action="store_true", help="write nothing; list (or --diff) them")
    fix.add_argument(
        "--diff",
        action="store_true",
        help="print the changes as one unified diff (a/ b/ paths relative to the current "
        "folder, for git apply)",
    )
    fix.add_argument(
        "--only",
        nargs="+",
        metavar="CODE",
        help="only the fixes for these codes (e.g. SP113 SP208)",
    )
    fix.add_argument(
        "--confidence",
        choices=("safe", "review"),
        default="review",
        help="safe: only fixes that cannot change the meaning; review (default): all of them",
    )
    fix.add_argument(
        "--rename-folders",
        action="store_true",
        help="also rename a skill's folder where its name should follow the folder's (review)",
    )
    fix.add_argument(
        "--undo", action="store_true", help="undo the last batch of fixes written, in one step"
    )
    fix.add_argument(
        "--backups", action="store_true", help="say where backups are kept and the last batch"
    )
    fix.set_defaults(run=run)


def _shown(path: str) -> str:
    rel = os.path.relpath(path)
    return (path if rel.startswith("..") else rel).replace(os.sep, "/")


def _backups() -> int:
    from skillprism.core.write_back import backups_dir, last_batch

    print(f"backups: {backups_dir()}")
    batch = last_batch()
    if batch is None:
        print("nothing to undo")
        return EXIT_OK
    files = batch.get("files", [])
    print(f"last batch: {batch.get('id', '')} ({batch.get('title', '')}; {len(files)} file(s))")
    for rec in files:
        print(f"  {rec.get('path', '')} <- {rec.get('backup', '')}")
    return EXIT_OK


def undo_last() -> int:
    from skillprism.app.workspace import Workspace, WorkspaceError
    from skillprism.core.write_back import FileChangedError

    try:
        batch = Workspace.undo_fixes()
    except WorkspaceError as err:
        cause = err.__cause__
        tell(f"skillprism: {err}")
        if isinstance(cause, FileChangedError):
            from skillprism.formats.diff import unified_diff

            shown = _shown(cause.path)
            tell("what the fix wrote (-) and what is there now (+):")
            tell(unified_diff(cause.expected.encode(), cause.current.encode(), shown))
            return EXIT_FINDINGS
        return EXIT_USAGE
    if batch is None:
        print("nothing to undo")
        return EXIT_OK
    for src, dst in batch.renamed:
        print(terminal_text(f"renamed {_shown(dst)} back to {_shown(src)}"))
    for written in batch.files:
        print(terminal_text(f"restored {_shown(written.path)}"))
    return EXIT_OK


def run(args: argparse.Namespace) -> int:
    from skillprism.app.workspace import WorkspaceError

    if args.backups:
        return _backups()
    if args.undo:
        return undo_last()
    codes = None
    if args.only:
        # `--only SP113 skills/`: what follows the codes and is not one is a PATH.
        codes = [c.upper() for c in args.only if _CODE.fullmatch(c)]
        args.paths = [*args.paths, *(c for c in args.only if not _CODE.fullmatch(c))]
        if not codes:
            return error("--only: expected codes such as SP113")
    try:
        workspace = open_workspace(args, workers=min(os.cpu_count() or 1, 4))
        fixes = workspace.fixes(
            args.paths,
            codes=codes,
            confidence=args.confidence,
            rename_folders=args.rename_folders,
        )
    except (UsageError, WorkspaceError) as err:
        return error(str(err))
    if not fixes:
        print("nothing to fix", file=sys.stderr if args.diff else sys.stdout)
        return EXIT_OK
    if args.dry_run:
        from skillprism.core.fixes import non_overlapping

        keep, skipped = non_overlapping(fixes)
        if args.diff:
            per_file: dict[str, list[Fix]] = {}
            for fix in keep:
                per_file.setdefault(fix.path, []).append(fix)
            out = []
            for path, group in per_file.items():
                out.append(file_diff(path, group))
            text = "".join(out)
            if sys.stdout.isatty():
                sys.stdout.write(terminal_text(text))
            else:
                sys.stdout.flush()
                sys.stdout.buffer.write(text.encode("utf-8"))
                sys.stdout.flush()
            for fix in skipped:
                tell(
                    f"skillprism: {_shown(fix.path)}:{fix.line}: {fix.code} left for a later run "
                    "(its edits overlap another fix's)"
                )
        else:
            for fix in fixes:
                _say(fix)
        _summary(fixes, "offered")
        return EXIT_FINDINGS
    try:
        outcome = workspace.apply_fixes(fixes)
    except WorkspaceError as err:
        return error(str(err))
    for fix in outcome.applied:
        _say(fix)
    for fix in outcome.skipped:
        tell(
            f"skillprism: {_shown(fix.path)}:{fix.line}: {fix.code} not applied: its edits "
            "overlap another fix's; run again"
        )
    for refused in outcome.refused:
        tell(f"skillprism: {refused}")
    for src, dst in outcome.batch.renamed:
        print(terminal_text(f"renamed {_shown(src)} to {_shown(dst)}"))
    files = len(outcome.batch.files)
    if files:
        print(
            f"wrote {files} file(s); previous versions in {outcome.batch.folder} "
            "(skillprism fix --undo puts them back)"
        )
    elif outcome.batch.renamed:
        print("skillprism fix --undo renames them back")
    _summary(list(outcome.applied), "applied")
    return EXIT_FINDINGS if outcome.skipped or outcome.refused else EXIT_OK


def file_diff(path: str, group: list[Fix]) -> str:
    """The diff of one skill file's fixes; when they rename its folder, every file of the folder
    is renamed in the diff too (git apply renames them)."""
    from skillprism.core.fixes import combined_edits
    from skillprism.formats.diff import renamed, unified_diff

    snap = group[0].snapshot
    new = snap.apply(combined_edits(group))
    rename = next((f.rename for f in group if f.rename is not None), None)
    if rename is None:
        return unified_diff(snap.data, new, _shown(path))
    src, dst = rename
    out = [unified_diff(snap.data, new, _shown(path), new_path=_shown(dst + path[len(src) :]))]
    for root, dirs, files in os.walk(src):
        dirs.sort()
        for name in sorted(files):
            other = os.path.join(root, name)
            if other != path:
                out.append(renamed(_shown(other), _shown(dst + other[len(src) :])))
    return "".join(out)


def _say(fix: Fix) -> None:
    helps = ", ".join(fix.helps)
    print(
        terminal_text(
            f"{_shown(fix.path)}:{fix.line}: {fix.code} {fix.title} "
            f"[{fix.confidence}; helps {helps}]"
        )
    )


def _summary(fixes: list[Fix], what: str) -> None:
    counts = Counter(f.code for f in fixes)
    parts = ", ".join(f"{code} {n}" for code, n in sorted(counts.items()))
    tell(f"{len(fixes)} fix(es) {what}: {parts}")
