#!/usr/bin/env python3
"""Conformance driver: OpenCode (npm `opencode-ai` 1.18.33, Bun-compiled binary).

Reads one job on stdin, prints one JSON result (see conformance/README-bin.md).

1. `opencode debug skill --pure --print-logs --log-level DEBUG`, offline in a fresh network
   namespace, HOME the job's temp home, cwd = the job's cwd, OPENCODE_PURE=1 (no
   plugin, whether configured or found in a fixture's .opencode/plugin, is loaded). stdout is
   the JSON list of loaded skills (Skill.all(): name, description, location, content); the log
   on stderr gives the `duplicate skill name` warnings and `failed to load skill` errors.
2. Tier 1: the JavaScript of `Skill.fmt` and of the `SystemPrompt.skills` section is cut out
   of the binary's embedded module graph at run time (never committed) and run on the skills of
   step 1 with the OpenCode binary's own Bun engine (BUN_BE_BUN=1; node if that fails).

When the job names an agent (`"agent": "build"`, the default agent), the skills that agent may
use are OpenCode's own `Skill.available(agent)`: the agent's permission rules as OpenCode merges
them from its configuration files (`debug agent <name> --pure`), and the binary's own
`Permission.evaluate` with its `Wildcard.match`, cut out and run on its Bun, for each skill;
a skill the rules deny is reported in `warnings` (`<path>: denied by the permission of agent
<name>`) and left out of tier 1, as `SystemPrompt.skills` does. Without `agent` the driver lists
every loaded skill (no configuration in the fixtures sets a permission).

The built-in skill `customize-opencode` (location `<built-in>`) is part of tier 1 and is reported
as `builtin` (it has no SKILL.md), not among `skills`. The switches the lab sets are reported as
`settings`: `--pure` keeps external plugins (code) from loading, the others keep the CLI from the
network it has no access to anyway.
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from binlab import (
    PACKAGES,
    BunImage,
    LabError,
    binary_path,
    byte_offset,
    called_names,
    emit,
    fail,
    function_source,
    memo,
    read_job,
    run_isolated,
    run_js,
)

RUNTIME = "opencode"
ENV = {
    "OPENCODE_PURE": "1",
    "OPENCODE_DISABLE_AUTOUPDATE": "1",
    "OPENCODE_DISABLE_MODELS_FETCH": "1",
    "OPENCODE_DISABLE_LSP_DOWNLOAD": "1",
    "OPENCODE_DISABLE_SHARE": "1",
}

_JS_BUILTINS = {"String", "Array", "Object", "JSON", "Number", "Math", "Error", "Set", "Map"}


def lab_settings(env: dict[str, str]) -> list[dict[str, str]]:
    """The switches the lab sets, each reported as a setting of its own (not the default)."""
    out = [
        {
            "setting": "--pure",
            "value": "on (" + ", ".join(k for k in env if k.endswith("_PURE")) + ")",
            "reason": "external plugins are code; debug skill would load a configured one",
        }
    ]
    offline = sorted(k for k in env if not k.endswith("_PURE"))
    if offline:
        out.append(
            {
                "setting": "network features off",
                "value": ", ".join(offline),
                "reason": "the lab runs offline (no network namespace interface)",
            }
        )
    return out


def debug_skill(
    job: dict, runtime: str = RUNTIME, env: dict[str, str] = ENV, timeout: float = 120
) -> tuple[list[dict], str]:
    """`<binary> debug skill --pure` of `runtime` (OpenCode or a fork of it, such as Kilo Code):
    the loaded skills (stdout, through a file: Bun exits before a pipe has taken a large JSON)
    and the log (stderr)."""
    binary = binary_path(runtime)
    proc = run_isolated(
        [str(binary), "debug", "skill", "--pure", "--print-logs", "--log-level", "DEBUG"],
        job,
        env_extra=env,
        timeout=timeout,
        stdout_file=True,
    )
    if proc.returncode != 0:
        raise LabError(f"{binary.name} debug skill exited {proc.returncode}: {proc.stderr[-1500:]}")
    start = proc.stdout.find("[")
    if start < 0:
        raise LabError(f"{binary.name} debug skill printed no JSON: {proc.stdout[:500]}")
    return json.loads(proc.stdout[start:]), proc.stderr


def parse_log_line(line: str) -> dict[str, str]:
    """`timestamp=... level=WARN message="duplicate skill name" name=dup ...` -> dict."""
    try:
        parts = shlex.split(line)
    except ValueError:
        return {}
    out = {}
    for part in parts:
        key, sep, value = part.partition("=")
        if sep:
            out[key] = value
    return out


def agent_permission(
    job: dict, runtime: str, env: dict[str, str], agent: str, timeout: float
) -> list[dict]:
    """The permission rules of `agent` as the runtime merges them (`debug agent NAME --pure`)."""
    binary = binary_path(runtime)
    proc = run_isolated(
        [str(binary), "debug", "agent", agent, "--pure"],
        job,
        env_extra=env,
        timeout=timeout,
        stdout_file=True,
    )
    if proc.returncode != 0:
        raise LabError(f"{binary.name} debug agent exited {proc.returncode}: {proc.stderr[-800:]}")
    start = proc.stdout.find("{")
    if start < 0:
        raise LabError(f"{binary.name} debug agent printed no JSON: {proc.stdout[:500]}")
    rules = json.loads(proc.stdout[start:]).get("permission")
    if not isinstance(rules, list):
        raise LabError(f"{binary.name} debug agent: no permission rules")
    return rules


def extract_evaluate_code(image: BunImage) -> str:
    """JS defining `evaluate` (Permission.evaluate) with the Wildcard.match it calls."""
    ns = image.find(re.compile(rb"\{[^{}]*evaluate:\(\)=>([\w$]+),disabled:\(\)=>[\w$]+"))
    if not ns:
        raise LabError("Permission.evaluate export not found in the embedded modules")
    module = image.module_at(ns.start())
    src = module.text(image.blob)
    ev_name = ns.group(1).decode()
    ev_src, _ = function_source(src, ev_name)
    wild = re.search(r"([\w$]+)\.match\(", ev_src)
    wm = image.find(re.compile(rb"\{match:\(\)=>([\w$]+),Wildcard:\(\)=>"))
    if not wild or not wm:
        raise LabError("Wildcard.match not found in the embedded modules")
    match_name = wm.group(1).decode()
    match_src, _ = function_source(image.module_at(wm.start()).text(image.blob), match_name)
    return (
        f"const evaluate = (() => {{ {match_src}\n const {wild.group(1)} = {{match: {match_name}}};"
        f"\n {ev_src}\n return {ev_name}; }})();"
    )


def denied_skills(binary: Path, names: list[str], rules: list[dict]) -> set[str]:
    """The names `Skill.available` leaves out: evaluate('skill', name, rules).action is 'deny'."""
    code = extract_evaluate_code(BunImage(binary))
    script = (
        code
        + f"\nconst rules = {json.dumps(rules)};\nconst names = {json.dumps(names)};\n"
        + "process.stdout.write(JSON.stringify(names.filter("
        + "(n) => evaluate('skill', n, rules).action === 'deny')));\n"
    )
    try:
        out = run_js(script, engine=[str(binary)])
    except (LabError, OSError, subprocess.TimeoutExpired):
        out = run_js(script)
    return set(json.loads(out))


# --- tier 1, from the binary ------------------------------------------------------------------


def extract_tier1_code(image: BunImage) -> tuple[str, dict]:
    """JS that defines `fmt` (Skill.fmt with its helpers) and the SystemPrompt.skills lines."""
    m = image.find(re.compile(rb"fmt:\(\)=>([\w$]+),Skill:\(\)=>"))
    if not m:
        raise LabError("Skill.fmt export not found in the embedded modules")
    fmt_name = m.group(1).decode()
    module = image.module_at(m.start())
    src = module.text(image.blob)
    fmt_src, fmt_at = function_source(src, fmt_name)
    deps = []
    for name in sorted(called_names(fmt_src) - _JS_BUILTINS - {fmt_name}):
        try:
            dep_src, _ = function_source(src, name)
        except LabError:
            continue  # a method call on a value, not a module-level helper
        deps.append(dep_src)
    sp = image.find(
        re.compile(
            rb'SystemPrompt\.skills"\)\(function\*\([\w$]+\)\{.{0,300}?return\['
            rb'("(?:[^"\\]|\\.)*"),("(?:[^"\\]|\\.)*"),[\w$]+\.fmt\([\w$]+,\{verbose:!0\}\)\]'
            rb"\.join\(`\n`\)"
        )
    )
    if not sp:
        raise LabError("SystemPrompt.skills not found in the embedded modules")
    lines = [json.loads(sp.group(1)), json.loads(sp.group(2))]
    where = {
        "fmt": f"{module.name} function {fmt_name} at byte {byte_offset(module, src, fmt_at)}",
        "system_prompt_skills": f"byte {sp.start()}",
    }
    code = "\n".join([*deps, fmt_src])
    return f"const fmt = (() => {{ {code}\n return {fmt_name}; }})();", {
        "lines": lines,
        **where,
    }


def render_tier1(
    binary: Path, label: str, skills: list[dict], warnings: list[str], permission_read: bool = False
) -> str | None:
    """Tier 1 by the listing code cut out of `binary` (OpenCode's, or a fork's such as Kilo Code's),
    run on that binary's own Bun (node when it will not run a script); `label` names it."""
    code, info = memo(binary, "tier1", lambda: list(extract_tier1_code(BunImage(binary))))
    script = (
        code
        + "\nconst skills = "
        + json.dumps(skills, ensure_ascii=False)
        + ";\nconst lines = "
        + json.dumps(info["lines"], ensure_ascii=False)
        + ";\nprocess.stdout.write(JSON.stringify([...lines, fmt(skills, {verbose: true})]"
        + '.join("\\n")));\n'
    )
    try:
        out = run_js(script, engine=[str(binary)])
        engine = f"the {label} binary's Bun (BUN_BE_BUN=1)"
    except (LabError, OSError, subprocess.TimeoutExpired):
        out = run_js(script)
        engine = f"node (the {label} binary's Bun did not run the script)"
    warnings.append(
        f"tier1 rendered by {engine} from Skill.fmt ({info['fmt']}) and SystemPrompt.skills "
        f"({info['system_prompt_skills']})"
        + ("" if permission_read else ", skill permission assumed not 'deny'")
    )
    return json.loads(out)


def drive(
    runtime: str,
    label: str,
    env: dict[str, str],
    builtin_location: str,
    clash_rule: str,
    timeout: float = 120,
) -> int:
    """One job of `runtime` (OpenCode or a fork with its skill service): its `debug skill` list
    and log, then tier 1 by its own listing code. `builtin_location` marks built-in skills (no
    SKILL.md, left out of `skills`); `clash_rule` says which copy of a name the runtime keeps."""
    try:
        job = read_job()
        loaded, log = debug_skill(job, runtime, env, timeout)
        warnings: list[str] = []
        rejected = []
        for line in log.splitlines():
            rec = parse_log_line(line)
            msg = rec.get("message", "")
            if msg == "duplicate skill name":
                warnings.append(
                    f"duplicate skill name '{rec.get('name')}': {rec.get('duplicate')} replaces "
                    f"{rec.get('existing')} ({clash_rule})"
                )
            elif msg == "failed to load skill":
                rejected.append({"path": rec.get("skill", ""), "reason": rec.get("error", msg)})
            elif msg == "skill path not found" or (
                rec.get("level") in ("WARN", "ERROR") and "skill" in msg
            ):
                warnings.append(line.strip())
        agent = job.get("agent")
        if agent:
            rules = agent_permission(job, runtime, env, str(agent), timeout)
            denied = denied_skills(binary_path(runtime), [sk["name"] for sk in loaded], rules)
            for sk in loaded:
                if sk["name"] in denied:
                    warnings.append(f"{sk['location']}: denied by the permission of agent {agent}")
        else:
            denied = set()
        skills, builtin = [], []
        for sk in loaded:
            item = {
                "path": sk["location"],
                "name": sk["name"],
                "description": sk.get("description"),
            }
            (builtin if sk.get("location") == builtin_location else skills).append(item)
        try:
            available = [sk for sk in loaded if sk["name"] not in denied]
            text = render_tier1(
                binary_path(runtime), label, available, warnings, permission_read=bool(agent)
            )
        except (LabError, OSError, ValueError, subprocess.TimeoutExpired) as exc:
            warnings.append(f"tier1 not obtained: {exc}")
            text = None
        emit(
            {
                "runtime": runtime,
                "release": PACKAGES[runtime].release,
                "skills": skills,
                "builtin": builtin,
                "settings": lab_settings(env),
                "rejected": rejected,
                "warnings": warnings,
                "tier1": text,
            }
        )
        return 0
    except (LabError, OSError, ValueError, KeyError, subprocess.TimeoutExpired) as exc:
        return fail(runtime, str(exc))


def main() -> int:
    return drive(RUNTIME, "OpenCode", ENV, "<built-in>", "last to finish loading wins")


if __name__ == "__main__":
    raise SystemExit(main())
