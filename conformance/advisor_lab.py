#!/usr/bin/env python3
"""The budget advisor's plans checked in the runtimes' own listings (issue #28).

    python3 conformance/advisor_lab.py [--collection DIR] [--runtime codex|claude-code]...
                                       [--window N]... [--plan shorten|disable]... [--json]

For each runtime, context window and plan: the collection is copied into a temporary home as an
installer would lay it out for that runtime (core/installed.py `install_plan`: every skill in the
runtime's first personal skill folder); the window is set where the runtime reads it when its
profile names such a setting (`[settings]` key mapped to `context_window`: Codex's
`model_context_window` in config.toml), else handed to the runtime's listing code; then
`skillprism advise --apply --plan P` carries out the plan (shorten: the description cuts through
the one writer; disable: the runtime's own disable setting, `[toggle]`), and the listing is
checked twice, before and after:

* Skill Prism's: `skillprism advise --format json` (its listing's outcome per skill);
* the runtime's own:
  - Codex (0.169.0): the lab driver (`codex app-server` skills/list and `codex debug
    prompt-input`): an entry is full when its description in the `<skills_instructions>` text is
    the one the loader reports for it; the skills Codex loads but lists without one (or leaves
    out) are not;
  - Claude Code (2.1.330): the listing function `r5n` with its entry cut and budget cut out of
    the binary (claude_code_facts.py) and run under node on the skills the binary's own listing
    predicate keeps (`FSe`/`Aae`, also cut out of the binary), with the context window as the
    budget function's argument. What cannot run there (the loader, the settings merge) is
    replaced: the skills are those Skill Prism's catalog loads, in its listing order, and the
    override lookup reads `skillOverrides` of the settings file `skillprism` wrote (own
    properties by name, as `ID`/`ko` do).

Needs the pinned binaries (install_bin.py or SKILLPRISM_LAB_CACHE) and node; a runtime that is
not there is reported as skipped with the reason. Nothing from the collection is executed.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from dataclasses import asdict, dataclass
from pathlib import Path

LAB = Path(__file__).resolve().parent
sys.path.insert(0, str(LAB))

from binlab import BunImage, LabError, binary_path, function_source, run_js  # noqa: E402

COLLECTION = "/work/realsets/composio-awesome"
RUNTIMES = ("codex", "claude-code")
WINDOWS = (200_000, 32_000)
PLANS = ("shorten", "disable")
SKILLPRISM = [sys.executable, "-m", "skillprism"]


@dataclass
class Row:
    runtime: str
    window: int
    plan: str
    skills: int  # skills the runtime's listing has (Skill Prism's count)
    planned: int  # descriptions cut or skills disabled
    cap: int | None
    sp_before: tuple[int, int]  # (full, listed) in Skill Prism's listing
    sp_after: tuple[int, int]
    rt_before: tuple[int, int] | None  # (full, listed) in the runtime's own listing
    rt_after: tuple[int, int] | None
    note: str = ""

    @property
    def ok(self) -> bool:
        if self.note.startswith("no such plan"):
            return True  # the advisor says so itself (e.g. the names alone overflow)
        full = self.sp_after[0] == self.sp_after[1]
        if self.rt_after is not None:
            full = full and self.rt_after[0] == self.rt_after[1]
        return full


# --- the home, as the runtime reads it -------------------------------------------------------


def lay_out(collection: str, runtime: str, tmp: Path) -> tuple[Path, Path]:
    """A fresh home and project (an empty git repository) with every skill of `collection`
    copied where an installer would put it for `runtime` (its first personal skill folder)."""
    from skillprism.core.installed import PERSONAL, Install, find_units, install_plan
    from skillprism.core.profiles import load_profile

    home, project = tmp / "home", tmp / "proj"
    home.mkdir(parents=True)
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    profile = load_profile(runtime)
    env = {"HOME": str(home)}
    units = find_units(collection)
    placed, homeless = install_plan(
        profile, Install(tuple(units), PERSONAL), [], str(project), str(home), env
    )
    if homeless:
        raise LabError(f"{runtime}: no personal skill folder for {len(homeless)} unit(s)")
    for found, root, _plugin in placed:
        dst = Path(root.path) / found.parts[0]
        if not dst.exists():  # a second skill of the same folder name: the first stays
            shutil.copytree(os.path.dirname(found.path), dst, symlinks=True)
    return home, project


def window_setting(runtime: str) -> tuple[str, str, str] | None:
    """(file, format, dotted key) of the runtime's own context-window setting, from its
    profile's `[settings]` (a key mapped to `context_window`); None when it has none."""
    from skillprism.core.profiles import load_profile

    spec = load_profile(runtime).disclosure.settings
    key = next((k for k, knob in spec.keys.items() if knob == "context_window"), None)
    if key is None or not spec.files:
        return None
    return spec.files[0].path, spec.files[0].format, key


def set_window(runtime: str, window: int, home: Path, project: Path) -> bool:
    """Write `window` where the runtime reads it; False when its profile names no such place."""
    import tomlkit

    from skillprism.core.roots import expand_template

    found = window_setting(runtime)
    if found is None:
        return False
    template, fmt, key = found
    path = Path(expand_template(template, str(project), str(home), {"HOME": str(home)}))
    path.parent.mkdir(parents=True, exist_ok=True)
    if fmt != "toml" or "." in key:
        raise LabError(f"{runtime}: writing {fmt} key {key} is not supported by the lab")
    doc = tomlkit.parse(path.read_text()) if path.exists() else tomlkit.document()
    doc[key] = window
    path.write_text(tomlkit.dumps(doc))
    return True


def sp_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CODEX_", "CLAUDE_"))}
    env.pop("SLASH_COMMAND_TOOL_CHAR_BUDGET", None)
    env.update(
        HOME=str(home),
        XDG_CONFIG_HOME=str(home / ".config"),
        XDG_STATE_HOME=str(home / ".local" / "state"),
        XDG_CACHE_HOME=str(home / ".cache"),
        XDG_DATA_HOME=str(home / ".local" / "share"),
    )
    return env


def skillprism(args: list[str], home: Path, project: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*SKILLPRISM, *args],
        capture_output=True,
        text=True,
        env=sp_env(home),
        cwd=project,
        timeout=1800,
    )


def sp_profile(runtime: str, folder: Path) -> str:
    """The profile Skill Prism's side uses: Claude Code's without its bundled skills
    ([[tier1.builtin]]), which the listing code cut out of the binary is not given either."""
    if runtime != "claude-code":
        return runtime
    import claude_code_facts

    return str(claude_code_facts.profile_without_builtins(folder))


def advise(runtime: str, window: int, home: Path, project: Path, extra=()) -> dict:  # type: ignore[no-untyped-def]
    proc = skillprism(
        [
            "advise",
            "--profile",
            sp_profile(runtime, home.parent),
            "--project",
            str(project),
            "--context-window",
            str(window),
            "--no-usage",
            "--format",
            "json",
            *extra,
        ],
        home,
        project,
    )
    if proc.returncode not in (0, 1):
        raise LabError(f"skillprism advise failed ({proc.returncode}): {proc.stderr[-1500:]}")
    return json.loads(proc.stdout)


def sp_counts(plan: dict) -> tuple[int, int]:
    """(full, listed) in Skill Prism's listing: outcomes other than 'excluded' are listed."""
    out = plan["outcomes"]
    listed = sum(n for o, n in out.items() if o != "excluded")
    return out.get("full", 0), listed


# --- Codex's own listing -----------------------------------------------------------------------


def codex_counts(home: Path, project: Path) -> tuple[int, int]:
    """(full, loaded and enabled) skills in Codex's own listing (its bundled ones too)."""
    job = {"home": str(home), "project": str(project), "cwd": str(project), "env": {}}
    proc = subprocess.run(
        [sys.executable, str(LAB / "drivers" / "codex.py")],
        input=json.dumps(job),
        capture_output=True,
        text=True,
        timeout=600,
    )
    result = json.loads(proc.stdout)
    if result.get("skills") is None:
        raise LabError(f"codex driver: {result.get('warnings')}")
    off = {
        w.split(": loaded but disabled in config")[0]
        for w in result["warnings"]
        if w.endswith(": loaded but disabled in config")
    }
    # the bundled system skills are listed (and disabled) like the rest: counted too
    loaded = [*result["skills"], *(result.get("builtin") or [])]
    # by (name, description): two skills of one name are two entries (Codex keeps both)
    wanted = Counter(
        (s["name"], s["description"])
        for s in loaded
        if s["path"] not in off and not _not_implicit(s["path"])
    )
    shown: Counter = Counter()
    for line in result["tier1"].splitlines():
        m = re.fullmatch(r"- (.+?): (.*?) ?\(file: [^)]*\)", line)
        if m:
            shown[(m.group(1), m.group(2))] += 1
    full = sum(min(n, shown[key]) for key, n in wanted.items() if key[1])
    return full, sum(wanted.values())


def _not_implicit(skill_file: str) -> bool:
    """Codex never lists a skill whose agents/openai.yaml sets policy.allow_implicit_invocation
    false (its bundled review-agent does; the codex profile's notes)."""
    sidecar = Path(skill_file).parent / "agents" / "openai.yaml"
    try:
        text = sidecar.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    return re.search(r"(?m)^\s*allow_implicit_invocation:\s*false\b", text) is not None


# --- Claude Code's own listing code --------------------------------------------------------------


class ClaudeListing:
    """Claude Code 2.1.330's listing (`r5n`, budget `JZt`) and listing predicate (`FSe`,
    `Aae`), cut out of the pinned binary."""

    def __init__(self) -> None:
        import claude_code_facts as facts

        self.facts = facts
        image = BunImage(binary_path("claude-code"))
        self.ex = facts.Extractor(image)
        _found, self.parts = facts.gather(self.ex, facts.load_profile())
        # what the attachment builder passes for the session's model (NS(loopModel))
        self.chars_per_token = facts.model_chars_per_token(image, facts.DEFAULT_MODEL) or 4
        pred = image.find(
            re.compile(
                rb'function ([\w$]+)\(e\)\{return e\.type==="prompt"&&'
                rb"!e\.disableModelInvocation&&!([\w$]+)\(e\)"
            )
        )
        if not pred:
            raise LabError("the listing predicate moved")
        src = image.module_at(pred.start()).text(image.blob)
        self.pred_fn, self.off_fn = pred.group(1).decode(), pred.group(2).decode()
        self.pred_src = function_source(src, self.pred_fn)[0]
        off_src = function_source(src, self.off_fn)[0]
        lookup = re.search(r"let n=([\w$]+)\(e\);", off_src)
        if not lookup:
            raise LabError(f"{self.off_fn} shape not recognised")
        self.override_fn = lookup.group(1)
        self.off_src = off_src

    def listing(self, cmds: list[dict], window: int, overrides: dict) -> str:
        script = self.facts.listing_script(self.ex, self.parts, cmds, None)
        call = f"{self.parts['list_fn']}(__cmds, () => 0, undefined, undefined)"
        if call not in script:
            raise LabError("listing call not found in the generated script")
        keep = f"const __overrides = {json.dumps(overrides)};\n{self.off_src}\n{self.pred_src}\n"
        script = script.replace("const __cmds = ", keep + "const __all = ").replace(
            call,
            f"{self.parts['list_fn']}(__all.filter({self.pred_fn}), () => 0, {int(window)}, "
            f"{self.chars_per_token})",
        )
        # the override lookup (w -> K -> ID(Et().skillOverrides, name)), which the listing
        # script stubs: the settings file's skillOverrides, own properties only (as ID/ko do)
        stub = f"const {self.override_fn} = (e) => e.__override ?? 'on';"
        if stub not in script:
            raise LabError(f"the override stub {self.override_fn} is not in the listing script")
        script = script.replace(
            stub,
            f"const {self.override_fn} = (e) => "
            "(Object.hasOwn(__overrides, e.name) ? __overrides[e.name] : 'on');",
        )
        script = script.replace(
            "const __all = __skills.map((s) => ({type: 'prompt', source: 'userSettings', ",
            "const __all = __skills.map((s) => ({type: 'prompt', source: 'userSettings', "
            "disableModelInvocation: !!s.dmi, ",
        )
        return json.loads(run_js(script))

    def counts(self, home: Path, project: Path, window: int) -> tuple[int, int]:
        """(full, listed) of the collection's skills in Claude Code's listing."""
        cmds, overrides = claude_inputs(home, project)
        text = self.listing(cmds, window, overrides)
        lines = set(text.splitlines())
        listed = [c for c in cmds if not c["dmi"] and overrides.get(c["name"]) not in _HIDDEN]
        full = 0
        for c in listed:
            desc = c["description"] + (f" - {c['when_to_use']}" if c.get("when_to_use") else "")
            if f"- {c['name']}: {desc}" in lines:
                full += 1
        return full, len(listed)


_HIDDEN = ("off", "user-invocable-only")


def claude_inputs(home: Path, project: Path) -> tuple[list[dict], dict]:
    """The skills as Claude Code loads them (Skill Prism's catalog: name, description,
    when_to_use, disable-model-invocation, in its listing order) and the skillOverrides of the
    personal settings file."""
    from skillprism.app.workspace import Workspace

    ws = Workspace(
        str(project), [], ["claude-code"], home=str(home), env={"HOME": str(home)}, security=False
    )
    cmds = []
    for s in ws.catalog("claude-code").skills:
        if not s.loaded or s.shadowed_by:
            continue
        fm = s.frontmatter or {}
        when = fm.get("when_to_use") if isinstance(fm.get("when_to_use"), str) else None
        cmds.append(
            {
                "name": s.qualified_name or s.name,
                "description": s.description or "",
                "when_to_use": when,
                "dmi": fm.get("disable-model-invocation") is True,
            }
        )
    settings = home / ".claude" / "settings.json"
    overrides = {}
    if settings.exists():
        overrides = json.loads(settings.read_text()).get("skillOverrides") or {}
    return cmds, overrides


# --- one cell of the table -----------------------------------------------------------------------


def run_cell(collection: str, runtime: str, window: int, plan_kind: str, claude=None) -> Row:  # type: ignore[no-untyped-def]
    with tempfile.TemporaryDirectory(prefix=f"advlab-{runtime}-") as tmp:
        home, project = lay_out(collection, runtime, Path(tmp))
        note = ""
        if set_window(runtime, window, home, project):
            note = "window set in the runtime's settings"
        else:
            note = "window handed to the listing code"

        def runtime_counts() -> tuple[int, int] | None:
            if runtime == "codex":
                return codex_counts(home, project)
            if runtime == "claude-code" and claude is not None:
                return claude.counts(home, project, window)
            return None

        before = advise(runtime, window, home, project)
        rt_before = runtime_counts()
        if before["already_full"]:
            return Row(
                runtime,
                window,
                plan_kind,
                before["listed"],
                0,
                None,
                sp_counts(before),
                sp_counts(before),
                rt_before,
                rt_before,
                note,
            )
        chosen = before["shorten"] if plan_kind == "shorten" else before["disable"]
        if chosen is None:
            return Row(
                runtime,
                window,
                plan_kind,
                before["listed"],
                0,
                None,
                sp_counts(before),
                sp_counts(before),
                rt_before,
                rt_before,
                "no such plan: " + note,
            )
        applied = skillprism(
            [
                "advise",
                "--profile",
                sp_profile(runtime, home.parent),
                "--project",
                str(project),
                "--context-window",
                str(window),
                "--no-usage",
                "--apply",
                "--plan",
                plan_kind,
            ],
            home,
            project,
        )
        if applied.returncode != 0:
            raise LabError(f"advise --apply failed: {applied.stderr[-1500:]}")
        after = advise(runtime, window, home, project)
        rt_after = runtime_counts()
        return Row(
            runtime,
            window,
            plan_kind,
            before["listed"],
            len(chosen),
            before.get("cap"),
            sp_counts(before),
            sp_counts(after),
            rt_before,
            rt_after,
            note,
        )


def table(rows: list[Row]) -> str:
    head = (
        "| runtime | window | skills | plan | planned | Skill Prism full before -> after "
        "| runtime full before -> after | every listed full |\n|---|---|---|---|---|---|---|---|"
    )
    out = [head]
    for r in rows:
        what = (
            f"shorten {r.planned} (cap {r.cap})" if r.plan == "shorten" else f"disable {r.planned}"
        )

        def pair(p):  # type: ignore[no-untyped-def]
            return "n/a" if p is None else f"{p[0]}/{p[1]}"

        rt = "not run" if r.rt_after is None else f"{pair(r.rt_before)} -> {pair(r.rt_after)}"
        if r.note.startswith("no such plan"):
            what = "none (the advisor: even 40-character descriptions do not fit)"
        out.append(
            f"| {r.runtime} | {r.window:,} | {r.skills} | {r.plan} | {what} | "
            f"{pair(r.sp_before)} -> {pair(r.sp_after)} | {rt} | "
            + ("n/a" if r.note.startswith("no such plan") else "yes" if r.ok else "NO")
            + " |"
        )
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--collection", default=COLLECTION)
    ap.add_argument("--runtime", action="append", choices=RUNTIMES)
    ap.add_argument("--window", action="append", type=int)
    ap.add_argument("--plan", action="append", choices=PLANS)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    claude = None
    skipped = []
    runtimes = args.runtime or list(RUNTIMES)
    if "claude-code" in runtimes:
        try:
            if shutil.which("node") is None:
                raise LabError("node is not installed")
            claude = ClaudeListing()
        except LabError as err:
            skipped.append(f"claude-code's own listing: {err}")
    if "codex" in runtimes:
        try:
            binary_path("codex")
        except LabError as err:
            skipped.append(f"codex's own listing: {err}")
    rows = []
    for runtime in runtimes:
        for window in args.window or list(WINDOWS):
            for plan in args.plan or list(PLANS):
                rows.append(run_cell(args.collection, runtime, window, plan, claude))
                print(f"done: {runtime} {window} {plan}", file=sys.stderr)
    if args.json:
        print(json.dumps({"rows": [asdict(r) for r in rows], "skipped": skipped}, indent=2))
    else:
        print(table(rows))
        for s in skipped:
            print(f"skipped: {s}")
    return 0 if all(r.ok for r in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
