"""Command-line front end on the core: check, prompt, activate, resource, watch, report, gui and
self-test.
No subcommand opens the desktop window. Headless commands never import Qt."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from skillprism import __version__

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2


def _build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="skillprism",
        description="Skill Prism: see one Agent Skills set the way each agent runtime sees it.",
    )
    parser.add_argument("--version", action="version", version=f"skillprism {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    check = sub.add_parser(
        "check",
        help="discover, parse, resolve and validate skills; exit 1 on findings",
        description="Check skills under one or more runtime profiles. A PATH is a folder to "
        "search, a skill folder or a SKILL.md; without PATHs the profile's own roots for --project "
        "and your home are scanned.",
    )
    check.add_argument("paths", nargs="*", metavar="PATH")
    check.add_argument(
        "--profile",
        action="append",
        metavar="NAME|PATH",
        help="runtime profile (repeatable; default agentskills)",
    )
    check.add_argument("--project", metavar="DIR", help="project folder (default: current folder)")
    check.add_argument("--format", choices=("text", "json", "sarif"), default="text")
    check.add_argument("--fail-on", choices=("error", "warning"), default="error")
    check.add_argument(
        "--max-depth",
        type=int,
        default=10,
        metavar="N",
        help="how deep to search folders given as PATH (default 10)",
    )
    check.add_argument("--no-color", action="store_true", help="never colour text output")
    check.add_argument(
        "--list-profiles", action="store_true", help="list available profiles and exit"
    )

    prompt = sub.add_parser(
        "prompt",
        help="print the tier-1 skill listing a runtime puts in the prompt, with its budget",
        description="Print exactly the tier-1 listing the profile's runtime puts in the prompt "
        "(text), or the listing with each skill's budget outcome (json).",
    )
    _add_selection_args(prompt, repeat_profile=False)
    _add_budget_args(prompt)
    prompt.add_argument(
        "--usage",
        metavar="FILE",
        help='JSON {"skill": count, ...} or {"usage": {...}, "pins": [...]}',
    )
    prompt.add_argument(
        "--override",
        action="append",
        metavar="NAME=MODE",
        help="on | name-only | user-invocable-only | off (repeatable)",
    )
    prompt.add_argument(
        "--allowlist",
        metavar="A,B",
        help="the agent's skill allowlist where the runtime has one ('*' = all, '' = none)",
    )
    prompt.add_argument("--counter", metavar="NAME", help="token counter (see docs/tokens.md)")
    prompt.add_argument("--format", choices=("text", "json"), default="text")
    prompt.add_argument(
        "--style",
        metavar="STYLE",
        help="alternative layout from the profile, e.g. 'reference' (skills-ref to-prompt)",
    )

    act = sub.add_parser(
        "activate",
        help="print exactly what the model receives when a skill is activated",
        description="Simulate activating skill NAME with arguments, as the profile's runtime does: "
        "prints the delivered content; a refusal prints the runtime's text on stderr and exits 1.",
    )
    act.add_argument("name", metavar="NAME")
    _add_selection_args(act, repeat_profile=False)
    act.add_argument("--args", default="", metavar="STR", help="arguments as typed after /NAME")
    act.add_argument(
        "--as",
        dest="invoker",
        choices=("model", "user"),
        default="model",
        help="model tool call (default) or user slash command",
    )
    act.add_argument("--path", metavar="SKILL_DIR", help="activate this copy instead of the winner")
    act.add_argument(
        "--repeat",
        action="store_true",
        help="a repeat activation in the same session (consent already given)",
    )
    act.add_argument("--counter", metavar="NAME", help="token counter (see docs/tokens.md)")
    act.add_argument("--format", choices=("text", "json"), default="text")

    res = sub.add_parser(
        "resource",
        help="read one of a skill's files as the runtime would (tier 3), with its guards",
        description="Resolve REL_PATH (relative to skill NAME's folder, or a skill:// URL) the way "
        "the runtime does; a refusal (escape, missing, not listed) is printed on stderr, exit 1.",
    )
    res.add_argument("name", metavar="NAME")
    res.add_argument("rel_path", metavar="REL_PATH")
    _add_selection_args(res, repeat_profile=False)
    res.add_argument("--path", metavar="SKILL_DIR", help="use this copy instead of the winner")
    res.add_argument("--counter", metavar="NAME", help="token counter (see docs/tokens.md)")
    res.add_argument("--format", choices=("text", "json"), default="text")

    watch = sub.add_parser(
        "watch",
        help="keep the catalog current while files change; print one line per update",
        description="Scan like check, then watch the folders and print one line per catalog "
        "update (JSON lines with --format json) until Ctrl+C.",
    )
    _add_selection_args(watch, repeat_profile=False)
    watch.add_argument("--format", choices=("text", "json"), default="text")
    watch.add_argument(
        "--polling", action="store_true", help="poll instead of native file events (slower)"
    )
    watch.add_argument(
        "--debounce-ms", type=int, default=75, metavar="MS", help="quiet time before an update"
    )

    rep = sub.add_parser(
        "report",
        help="write a review report (HTML or Markdown) for one or more runtime profiles",
        description="Check skills like `check`, compute each profile's tier-1 budget and the "
        "runtime matrix, and write them to FILE: .html/.htm (one self-contained page with SVG "
        "charts) or .md (tables for a pull request). Exit codes as for check.",
    )
    _add_selection_args(rep, repeat_profile=True)
    rep.add_argument("-o", "--output", required=True, metavar="FILE", help="report file to write")
    rep.add_argument("--fail-on", choices=("error", "warning"), default="error")
    _add_budget_args(rep)
    rep.add_argument("--counter", metavar="NAME", help="token counter (see docs/tokens.md)")
    rep.add_argument("--title", default="Skill Prism report", metavar="TEXT")
    rep.set_defaults(usage=None, override=None, allowlist=None)

    gui = sub.add_parser("gui", help="open the desktop window (the default)")
    gui.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="folders or skills to show (replace the saved roots for this run)",
    )
    gui.add_argument("--profile", metavar="NAME|PATH")
    gui.add_argument("--palette", choices=("light", "dark"), help="force a palette")
    gui.add_argument(
        "--screenshot",
        metavar="FILE",
        help="render the window at 1440x900 to FILE (PNG) once scanned, then exit",
    )
    gui.add_argument(
        "--exit-when-ready",
        action="store_true",
        help="quit once the window shows the first scan, printing a line (start-up benchmarks)",
    )

    from skillprism import cli_where

    cli_where.add_parser(sub)

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
    return parser


def _add_selection_args(parser: argparse.ArgumentParser, *, repeat_profile: bool) -> None:
    parser.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="folders to search, skill folders or SKILL.md files (as for check)",
    )
    if repeat_profile:
        parser.add_argument("--profile", action="append", metavar="NAME|PATH")
    else:
        parser.add_argument(
            "--profile",
            metavar="NAME|PATH",
            default=None,
            help="runtime profile (default agentskills)",
        )
    parser.add_argument("--project", metavar="DIR", help="project folder (default: current folder)")
    parser.add_argument("--max-depth", type=int, default=10, metavar="N")


def _add_budget_args(parser: argparse.ArgumentParser) -> None:
    """The tier-1 budget inputs `prompt` and `report` share."""
    parser.add_argument(
        "--context-window",
        type=int,
        default=200_000,
        metavar="N",
        help="model context window in tokens (default 200000; 0 = unknown)",
    )
    parser.add_argument(
        "--budget-chars", type=int, metavar="N", help="fixed listing budget in characters"
    )
    parser.add_argument(
        "--budget-fraction",
        type=float,
        metavar="F",
        help="listing budget as a fraction of the context window",
    )


def _error(message: str) -> int:
    print(f"skillprism: error: {message}", file=sys.stderr)
    return EXIT_USAGE


class _UsageError(Exception):
    """A problem with the command line or its inputs: exit 2 with the message."""


def _load_catalogs(
    args: argparse.Namespace, *, workers: int = 1, report_missing: bool = False
) -> tuple[list, str]:  # type: ignore[type-arg]
    """The catalogs the command works on (one per profile) and the project folder, following the
    shared PATH / --profile / --project / settings-file rules of `check`."""
    from skillprism.core.profiles import ProfileError, available_profiles, load_profile
    from skillprism.core.resolve import DocumentCache, build_catalog
    from skillprism.core.scan import path_problem
    from skillprism.core.settings import SettingsError, load_project_settings

    max_depth = getattr(args, "max_depth", 10)
    if max_depth < 0:
        raise _UsageError("--max-depth must be 0 or more")
    project = os.path.abspath(args.project or os.getcwd())
    if not os.path.isdir(project):
        raise _UsageError(f"--project {args.project}: not a folder")
    try:
        settings = load_project_settings(project)
    except SettingsError as err:
        raise _UsageError(str(err)) from None
    # A profile path in the settings file is relative to that file, like its roots.
    base = os.path.dirname(os.path.abspath(settings.source)) if settings.source else project
    given = (
        args.profile if isinstance(args.profile, list) else ([args.profile] if args.profile else [])
    )
    profile_specs = given or [
        os.path.join(base, spec)
        if spec not in available_profiles()
        and (spec.endswith(".toml") or "/" in spec)
        and not os.path.isabs(os.path.expanduser(spec))
        else spec
        for spec in settings.profiles
    ]
    profile_specs = profile_specs or ["agentskills"]
    try:
        profiles = [load_profile(spec) for spec in profile_specs]
    except ProfileError as err:
        raise _UsageError(str(err)) from None
    paths = args.paths or list(settings.roots)
    for path in paths:
        # A missing PATH is reported by the scan itself (SP310); an unreadable one stops here.
        problem = path_problem(path) if os.path.lexists(path) else ""
        if problem:
            raise _UsageError(problem)
    cache = DocumentCache()
    catalogs = [
        build_catalog(
            profile,
            paths or None,
            project=project,
            max_depth=max_depth,
            cache=cache,
            ignore_codes=settings.ignore_codes,
            ignore_paths=settings.ignore_paths,
            workers=workers,
        )
        for profile in profiles
    ]
    if not report_missing:
        # A PATH that does not exist is a usage error for every command but `check`, which
        # reports it (SP310) with its other findings and then exits 2 as well.
        missing = [d.message for c in catalogs for d in c.diagnostics if d.code == "SP310"]
        if missing:
            raise _UsageError(missing[0])
    return catalogs, project


def cmd_check(args: argparse.Namespace) -> int:
    from skillprism.core.check_output import (
        emit,
        format_json,
        format_sarif,
        format_text,
        want_color,
    )
    from skillprism.core.profiles import available_profiles

    if args.list_profiles:
        from skillprism.core.profiles import ProfileError, load_profile

        for name in available_profiles():
            try:
                print(f"{name}: {load_profile(name).provenance}")
            except ProfileError as err:
                print(f"{name}: cannot be loaded: {err}")
        return EXIT_OK
    try:
        catalogs, _project = _load_catalogs(
            args, workers=min(os.cpu_count() or 1, 4), report_missing=True
        )
    except _UsageError as err:
        return _error(str(err))
    if args.format == "json":
        text = format_json(catalogs)
    elif args.format == "sarif":
        text = format_sarif(catalogs)
    else:
        text = format_text(catalogs, color=want_color(sys.stdout, args.no_color))
    emit(text, sys.stdout)
    all_diags = [d for c in catalogs for d in c.all_diagnostics()]
    if any(d.code == "SP310" for d in all_diags):
        return EXIT_USAGE
    threshold = 3 if args.fail_on == "error" else 2
    return EXIT_FINDINGS if any(d.severity.rank >= threshold for d in all_diags) else EXIT_OK


def _budget_settings(args: argparse.Namespace, profile, project: str):  # type: ignore[no-untyped-def]
    """BudgetSettings from the command line, then the runtime's own settings files and variables
    folded in (reported as applied; unreadable ones reported on stderr)."""
    import json
    import math

    from skillprism.core.disclose import OVERRIDES, BudgetSettings
    from skillprism.core.document import read_bytes_safely
    from skillprism.core.runtime_settings import apply_runtime_settings

    if args.context_window < 0:
        raise _UsageError("--context-window must be 0 (unknown) or more")
    fraction = getattr(args, "budget_fraction", None)
    if fraction is not None and not (math.isfinite(fraction) and 0 < fraction <= 1):
        raise _UsageError("--budget-fraction must be a number above 0 and at most 1")
    fixed = getattr(args, "budget_chars", None)
    if fixed is not None and fixed <= 0:
        raise _UsageError("--budget-chars must be a positive number of characters")
    usage: dict[str, float] = {}
    pins: set[str] = set()
    if getattr(args, "usage", None):
        raw, _st, problem = read_bytes_safely(args.usage, 4 * 1024 * 1024)
        if problem is not None or raw is None:
            raise _UsageError(
                f"--usage {args.usage}: {problem.message if problem else 'unreadable'}"
            )
        try:
            data = json.loads(raw.decode("utf-8-sig"))
        except (UnicodeDecodeError, ValueError) as err:
            raise _UsageError(f"--usage {args.usage}: not JSON: {err}") from None
        shape = '{"skill-name": count, ...} or {"usage": {...}, "pins": ["skill-name", ...]}'
        counts = data.get("usage", data) if isinstance(data, dict) else None
        raw_pins = data.get("pins", []) if isinstance(data, dict) and "usage" in data else []
        if (
            not isinstance(counts, dict)
            or not all(
                isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
                for v in counts.values()
            )
            or not (isinstance(raw_pins, list) and all(isinstance(p, str) for p in raw_pins))
        ):
            raise _UsageError(f"--usage {args.usage}: expected {shape}")
        usage = {str(k): float(v) for k, v in counts.items()}
        pins = set(raw_pins)
    overrides = {}
    for item in args.override or []:
        name, _, mode = item.partition("=")
        if mode not in OVERRIDES or not name:
            raise _UsageError(f"--override {item}: expected NAME=" + "|".join(OVERRIDES))
        overrides[name] = mode
    allowlist = None
    if args.allowlist is not None:
        allowlist = tuple(n.strip() for n in args.allowlist.split(",") if n.strip())
    base = BudgetSettings(
        context_window=args.context_window,
        budget_chars=args.budget_chars,
        budget_fraction=args.budget_fraction,
        usage=usage,
        pins=frozenset(pins),
        allowlist=allowlist,
    )
    settings, problems = apply_runtime_settings(
        profile.disclosure.settings,
        base,
        project=project,
        home=os.path.expanduser("~"),
        env=os.environ,
    )
    for problem in problems:
        print(f"skillprism: warning: {problem}", file=sys.stderr)
    if overrides:  # the command line wins over settings files
        from dataclasses import replace

        settings = replace(
            settings,
            overrides={**settings.overrides, **overrides},
            applied=(*settings.applied, f"--override: {len(overrides)} skill(s)"),
        )
    if args.budget_chars is not None or args.budget_fraction is not None:
        from dataclasses import replace

        settings = replace(
            settings,
            budget_chars=args.budget_chars
            if args.budget_chars is not None
            else settings.budget_chars,
            budget_fraction=args.budget_fraction
            if args.budget_fraction is not None
            else settings.budget_fraction,
        )
    return settings


def _counter(name: str | None):  # type: ignore[no-untyped-def]
    from skillprism.core.tokens import default_counter, get_counter

    if not name:
        return default_counter()
    try:
        return get_counter(name)
    except (KeyError, ValueError) as err:
        raise _UsageError(f"--counter {name}: {err}") from None


def cmd_prompt(args: argparse.Namespace) -> int:
    import json

    from skillprism.core.check_output import emit
    from skillprism.core.disclose import Tier1Model

    if args.budget_chars is not None and args.budget_fraction is not None:
        return _error("use either --budget-chars or --budget-fraction, not both")
    try:
        (catalog,), project = _load_catalogs(args)
        spec = catalog.profile.disclosure.tier1
        if args.style:
            if args.style not in spec.styles:
                known = ", ".join(sorted(spec.styles)) or "none"
                raise _UsageError(
                    f"--style {args.style}: profile {catalog.profile.name} has styles: {known}"
                )
            spec = spec.with_style(args.style)
        settings = _budget_settings(args, catalog.profile, project)
        model = Tier1Model(catalog, _counter(args.counter), spec=spec)
    except _UsageError as err:
        return _error(str(err))
    result = model.compute(settings)
    if args.format == "json":
        doc = {
            "schema": 1,
            "profile": catalog.profile.name,
            "budget": {
                "context_window": result.context_window,
                "limit_chars": result.limit_chars,
                "used_chars": result.used_chars,
                "headroom_chars": result.headroom_chars,
                "tokens": result.tokens,
                "counter": result.counter,
                "assumptions": [*result.assumptions, *catalog.profile.assumptions],
                "settings_applied": list(result.settings_applied),
            },
            "skills": [
                {
                    "name": e.name,
                    "path": e.path,
                    "outcome": e.outcome,
                    "reason": e.reason,
                    "kept_chars": e.kept_chars,
                    "chars": e.chars,
                    "tokens": e.tokens,
                }
                for e in result.entries
            ],
            "warnings": list(result.warnings),
            "diagnostics": [{"path": d.path, **d.to_json()} for d in result.diagnostics],
            "text": result.text,
        }
        emit(json.dumps(doc, ensure_ascii=True, indent=1) + "\n", sys.stdout)
    else:
        emit(result.text + ("\n" if result.text else ""), sys.stdout)
        for warning in result.warnings:
            print(f"skillprism: {catalog.profile.name}: {warning}", file=sys.stderr)
    return EXIT_OK


def _activation_json(a) -> dict:  # type: ignore[no-untyped-def]
    return {
        "schema": 1,
        "name": a.name,
        "path": a.path,
        "invoker": a.invoker,
        "allowed": a.allowed,
        "refusal": a.refusal,
        "mechanism": a.mechanism,
        "content": a.content,
        "chars": a.chars,
        "tokens": a.tokens,
        "counter": a.counter,
        "guidance_tokens": a.guidance_tokens,
        "over_guidance": a.over_guidance,
        "compaction_keep_tokens": a.compaction_keep_tokens,
        "compaction_kept_chars": a.compaction_kept_chars,
        "fork": a.fork,
        "agent": a.agent,
        "model": a.model,
        "allowed_tools": list(a.allowed_tools),
        "consent": a.consent,
        "would_run": [{"line": line, "command": cmd} for line, cmd in a.would_run],
        "substitutions": [
            {
                "start": s.start,
                "end": s.end,
                "placeholder": s.placeholder,
                "value": s.value,
                "kind": s.kind,
            }
            for s in a.substitutions
        ],
        "appended": a.appended,
        "unmatched": list(a.unmatched),
        "notes": list(a.notes),
    }


def cmd_activate(args: argparse.Namespace) -> int:
    import json

    from skillprism.core.activate import ActivationError, activate, find_skill
    from skillprism.core.check_output import emit

    try:
        (catalog,), _project = _load_catalogs(args)
        counter = _counter(args.counter)
    except _UsageError as err:
        return _error(str(err))
    try:
        skill = find_skill(catalog, args.name, args.path)
        result = activate(
            catalog,
            skill,
            args=args.args,
            invoker=args.invoker,
            first_activation=not args.repeat,
            counter=counter,
        )
    except ActivationError as err:
        print(f"skillprism: {catalog.profile.name}: {err}", file=sys.stderr)
        return EXIT_FINDINGS
    if args.format == "json":
        emit(json.dumps(_activation_json(result), ensure_ascii=True, indent=1) + "\n", sys.stdout)
        return EXIT_OK if result.allowed else EXIT_FINDINGS
    if not result.allowed:
        print(result.refusal, file=sys.stderr)
        return EXIT_FINDINGS
    emit(result.content + ("" if result.content.endswith("\n") else "\n"), sys.stdout)
    for note in result.notes:
        print(f"skillprism: note: {note}", file=sys.stderr)
    for line, cmd in result.would_run:
        print(f"skillprism: line {line} would run (not run here): {cmd}", file=sys.stderr)
    return EXIT_OK


def cmd_resource(args: argparse.Namespace) -> int:
    import json

    from skillprism.core.activate import ActivationError, find_skill
    from skillprism.core.check_output import emit
    from skillprism.core.tier3 import resolve_reference, resolve_skill_url

    try:
        (catalog,), _project = _load_catalogs(args)
        counter = _counter(args.counter)
    except _UsageError as err:
        return _error(str(err))
    spec = catalog.profile.disclosure.tier3
    try:
        if args.rel_path.startswith("skill://"):
            skills = {s.qualified_name: s.directory for s in catalog.skills if s.loaded}
            result = resolve_skill_url(
                args.rel_path,
                skills,
                only_listed=spec.only_listed,
                max_bytes=spec.max_bytes,
                count_tokens=counter.count,
            )
        else:
            skill = find_skill(catalog, args.name, args.path)
            result = resolve_reference(
                skill.directory,
                args.rel_path,
                skill_name=skill.name,
                only_listed=spec.only_listed,
                max_bytes=spec.max_bytes,
                count_tokens=counter.count,
            )
    except ActivationError as err:
        print(f"skillprism: {catalog.profile.name}: {err}", file=sys.stderr)
        return EXIT_FINDINGS
    if args.format == "json":
        doc = {
            "schema": 1,
            "ok": result.ok,
            "reference": result.reference,
            "path": result.path,
            "kind": result.kind,
            "media_type": result.media_type,
            "size": result.size,
            "truncated": result.truncated,
            "description": result.description,
            "content": result.content,
            "chars": result.chars,
            "tokens": result.tokens,
            "counter": counter.name,
            "refusal": result.refusal.to_json() if result.refusal else None,
            "notes": [n.to_json() for n in result.notes],
        }
        emit(json.dumps(doc, ensure_ascii=True, indent=1) + "\n", sys.stdout)
        return EXIT_OK if result.ok else EXIT_FINDINGS
    if not result.ok:
        r = result.refusal
        detail = f" ({r.code}; hint: {r.hint})" if r is not None and r.hint else ""
        print(f"{r.message if r is not None else 'refused'}{detail}", file=sys.stderr)
        return EXIT_FINDINGS
    if result.content is not None:
        emit(result.content + ("" if result.content.endswith("\n") else "\n"), sys.stdout)
    else:
        print(result.description)
    for n in result.notes:
        print(f"skillprism: {n.code}: {n.message}", file=sys.stderr)
    return EXIT_OK


def cmd_watch(args: argparse.Namespace) -> int:
    """Initial scan, then one line per catalog update; SIGINT / SIGTERM stop it with exit 0."""
    import json
    import signal
    import threading
    import time

    from skillprism.core.catalog import skill_changes
    from skillprism.core.check_output import display_path
    from skillprism.core.settings import SettingsError, load_project_settings
    from skillprism.core.watch import LiveCatalog, SkillWatcher

    started = time.monotonic()
    try:
        (catalog,), project = _load_catalogs(args)
        settings = load_project_settings(project)
    except (_UsageError, SettingsError) as err:
        return _error(str(err))
    scan_ms = round((time.monotonic() - started) * 1000, 1)
    live = LiveCatalog(
        catalog.profile,
        args.paths or list(settings.roots) or None,
        project=project,
        max_depth=args.max_depth,
        ignore_codes=settings.ignore_codes,
        ignore_paths=settings.ignore_paths,
        catalog=catalog,
    )
    out_lock = threading.Lock()
    done = threading.Event()
    shown = {"catalog": catalog}  # the catalog the last line described

    def counts(cat) -> tuple[int, int]:  # type: ignore[no-untyped-def]
        return len(cat.skills), sum(1 for d in cat.all_diagnostics() if d.severity.rank == 3)

    def entries(old, new) -> list[dict]:  # type: ignore[no-untyped-def, type-arg]
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

    def describe(entry: dict) -> str:  # type: ignore[type-arg]
        where = display_path(entry["path"])
        if entry["status"] == "removed":
            return f"  removed: {where}"
        codes = f" [{', '.join(entry['codes'])}]" if entry["codes"] else ""
        name = display_path(entry["name"]) or "(no name)"
        return f"  {entry['status']}: {name} at {where}{codes}"

    def emit(record: dict) -> None:  # type: ignore[type-arg]
        if args.format == "json":
            text = json.dumps(record)
        else:
            if record.get("initial"):
                head = (
                    f"watching {record['skills']} skill(s), {record['errors']} error(s); "
                    f"scan {record['elapsed_ms']:.0f} ms ({record['mode']}"
                    + (f": {record['reason']})" if record.get("reason") else ")")
                )
            else:
                paths = [display_path(p) for p in record["changed"]]
                files = ", ".join(paths[:3]) + (
                    f" (+{len(paths) - 3} more)" if len(paths) > 3 else ""
                )
                head = (
                    f"updated in {record['elapsed_ms']:.0f} ms: {record['skills']} skill(s), "
                    f"{record['errors']} error(s) <- {files}"
                    + ("" if record["entries"] else "; no skill changed")
                )
            text = "\n".join([head, *(describe(e) for e in record["entries"])])
        with out_lock:
            try:
                print(text, flush=True)
            except (BrokenPipeError, ValueError):
                done.set()

    def on_change(paths: list[str]) -> None:
        try:
            cat = live.refresh(paths)
        except Exception as err:  # keep watching; the next change may fix it
            print(f"skillprism: watch: refresh failed: {err}", file=sys.stderr, flush=True)
            return
        skills, errors = counts(cat)
        record = {
            "changed": paths,
            "skills": skills,
            "errors": errors,
            "elapsed_ms": round((time.monotonic() - watcher.batch_started) * 1000, 1),
            "mode": watcher.mode,
            "refresh": live.last_refresh,
            "entries": entries(shown["catalog"], cat),
        }
        shown["catalog"] = cat
        emit(record)

    watcher = SkillWatcher(
        live.roots_to_watch(),
        on_change,
        debounce_ms=args.debounce_ms,
        force_polling=args.polling,
    )
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: done.set())
    watcher.start()
    try:
        skills, errors = counts(catalog)
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
        emit(record)
        while not done.wait(0.5):
            pass
    finally:
        watcher.stop()
    return EXIT_OK


def _report_matrix(catalogs, settings, counter):  # type: ignore[no-untyped-def]
    """The runtime matrix with each profile's own budget settings (build_matrix takes one set;
    with several, one matrix per profile is merged column by column)."""
    from skillprism.core.compare import Matrix, MatrixCell, MatrixRow, build_matrix

    if all(s == settings[0] for s in settings):
        return build_matrix(catalogs, settings[0], counter)
    parts = [build_matrix([c], s, counter) for c, s in zip(catalogs, settings, strict=True)]
    names: dict[str, str] = {}
    columns: list[dict[str, MatrixCell]] = []
    for m in parts:
        columns.append({row.key: row.cells[0] for row in m.rows})
        for row in m.rows:
            names.setdefault(row.key, row.name)
    absent = MatrixCell(
        "not-discovered", "not under any of this runtime's roots", "not-discovered", ""
    )
    rows = tuple(
        MatrixRow(key, names[key], tuple(col.get(key, absent) for col in columns))
        for key in sorted(names, key=lambda k: (names[k].lower(), k))
    )
    return Matrix(
        profiles=tuple(c.profile.name for c in catalogs),
        titles=tuple(c.profile.title for c in catalogs),
        rows=rows,
    )


def _write_atomically(path: str, text: str) -> None:
    """Write `text` (UTF-8) to `path` through a temporary file in the same folder and a rename, so
    a reader never sees half a report and a failed run leaves the old file alone."""
    import contextlib
    import tempfile

    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".skillprism-report-", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes 0600; a report is an ordinary file
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def cmd_report(args: argparse.Namespace) -> int:
    import time

    from skillprism.core.check_output import display_path
    from skillprism.core.disclose import Tier1Model
    from skillprism.render.report import report_html, report_markdown

    ext = os.path.splitext(args.output)[1].lower()
    if ext not in (".html", ".htm", ".md"):
        return _error(f"-o {display_path(args.output)}: unknown report format; use .html or .md")
    if args.budget_chars is not None and args.budget_fraction is not None:
        return _error("use either --budget-chars or --budget-fraction, not both")
    folder = os.path.dirname(os.path.abspath(args.output))
    if not os.path.isdir(folder):
        return _error(f"-o {display_path(args.output)}: folder {display_path(folder)} not found")
    try:
        catalogs, project = _load_catalogs(args, workers=min(os.cpu_count() or 1, 4))
        counter = _counter(args.counter)
        settings = [_budget_settings(args, c.profile, project) for c in catalogs]
    except _UsageError as err:
        return _error(str(err))
    results = [Tier1Model(c, counter).compute(s) for c, s in zip(catalogs, settings, strict=True)]
    # Cells are outcomes and reasons, never token counts: the matrix's own listing pass uses the
    # cheap estimate instead of tokenizing all entries a second time.
    matrix = _report_matrix(catalogs, settings, None)
    # SOURCE_DATE_EPOCH (reproducible-builds.org) pins the date, so a report can be diffed.
    epoch = os.environ.get("SOURCE_DATE_EPOCH", "")
    stamp = int(epoch) if epoch.isdigit() else time.time()
    generated = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(stamp))
    render = report_markdown if ext == ".md" else report_html
    text = render(
        catalogs,
        matrix,
        results,
        title=args.title,
        generated=generated,
        paths=[os.path.abspath(p) for p in args.paths],
        project=project,
    )
    try:
        _write_atomically(args.output, text)
    except OSError as err:
        return _error(f"-o {display_path(args.output)}: {err.strerror or err}")
    print(
        f"wrote {display_path(args.output)} ({len(matrix.rows)} skills, {len(catalogs)} profiles)"
    )
    all_diags = [d for c in catalogs for d in c.all_diagnostics()]
    if any(d.code == "SP310" for d in all_diags):
        return EXIT_USAGE
    threshold = 3 if args.fail_on == "error" else 2
    return EXIT_FINDINGS if any(d.severity.rank >= threshold for d in all_diags) else EXIT_OK


def cmd_gui(args: argparse.Namespace) -> int:
    from skillprism.gui.app import run_gui

    return run_gui(
        list(args.paths), args.profile, args.palette, args.screenshot, args.exit_when_ready
    )


def cmd_self_test(args: argparse.Namespace) -> int:
    from skillprism.gui.app import qt_or_explain

    if not qt_or_explain():
        return EXIT_FINDINGS
    from skillprism.gui.selftest import run_self_test

    return run_self_test(screenshot=args.screenshot or "", verbose=args.verbose)


def main(argv: Sequence[str] | None = None) -> int:
    parser = _build_parser()
    # PATHs may follow options (`activate NAME --args X DIR`); argparse leaves such trailing
    # positionals unrecognised once NAME is filled, so they are taken as further PATHs here.
    args, extra = parser.parse_known_args(argv)
    if extra:
        if not hasattr(args, "paths") or any(e.startswith("-") and e != "-" for e in extra):
            parser.error(f"unrecognized arguments: {' '.join(extra)}")
        args.paths = [*args.paths, *extra]
    try:
        if args.command == "check":
            return cmd_check(args)
        if args.command == "prompt":
            return cmd_prompt(args)
        if args.command == "activate":
            return cmd_activate(args)
        if args.command == "resource":
            return cmd_resource(args)
        if args.command == "watch":
            return cmd_watch(args)
        if args.command == "report":
            return cmd_report(args)
        if args.command == "self-test":
            return cmd_self_test(args)
        if args.command == "where":
            from skillprism import cli_where

            return cli_where.run(args)
        return cmd_gui(
            args
            if args.command == "gui"
            else argparse.Namespace(
                paths=[], profile=None, palette=None, screenshot=None, exit_when_ready=False
            )
        )
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # Output piped into `head` and friends: not an error worth a traceback.
        sys.stderr.close()
        return EXIT_OK


if __name__ == "__main__":
    raise SystemExit(main())
