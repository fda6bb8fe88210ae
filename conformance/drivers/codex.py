#!/usr/bin/env python3
"""Conformance driver: OpenAI Codex (npm `@openai/codex` 0.169.0, native binary).

Reads one job on stdin, prints one JSON result (see conformance/README-bin.md).

Two runs of the pinned `codex` binary in its default configuration, both offline in a fresh
network namespace, with HOME the job's temp home (CODEX_HOME unset, so ~/.codex) and the job's
cwd as working folder:

1. `codex app-server --listen stdio://`, JSON-RPC `initialize` then
   `skills/list {cwds: [cwd], forceReload: true}`: the loader's own result, every loaded skill
   (name, description, path, scope, enabled) and every rejected file (path, message).
2. `codex debug prompt-input`: the model-visible input list; the developer message holding
   `<skills_instructions>` is the exact tier-1 text.

As a user has it, Codex unpacks its bundled system skills (imagegen, openai-docs, skill-creator,
...) into `$CODEX_HOME/skills/.system` when it starts and lists them with the rest; the driver
reports them as `builtin` (the profile's `[[tier1.builtin]]`), not as fixture skills.
"""

from __future__ import annotations

import json
import os
import re
import select
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from binlab import (
    PACKAGES,
    LabError,
    binary_path,
    emit,
    fail,
    isolated_env,
    no_network_prefix,
    read_job,
    run_isolated,
)

RUNTIME = "codex"
TIMEOUT = 90


def codex_env(job: dict) -> dict[str, str]:
    # rg ships beside the binary (codex-path/); Codex looks for it on PATH.
    rg_dir = binary_path(RUNTIME).parent.parent / "codex-path"
    env = {"PATH": f"{rg_dir}:/usr/local/bin:/usr/bin:/bin"}
    env.update({k: str(v) for k, v in (job.get("env") or {}).items()})
    return env


def system_root(job: dict) -> str:
    """Where Codex unpacks its bundled skills: $CODEX_HOME/skills/.system (~/.codex by default)."""
    home = str(Path(job["home"]).resolve())
    codex_home = (job.get("env") or {}).get("CODEX_HOME") or os.path.join(home, ".codex")
    return os.path.join(codex_home, "skills", ".system")


def skills_list(job: dict, warnings: list[str]) -> dict:
    """JSON-RPC over stdio with `codex app-server`: initialize, then skills/list."""
    codex = str(binary_path(RUNTIME))
    env = isolated_env(job, codex_env(job))
    proc = subprocess.Popen(
        [*no_network_prefix(), codex, "app-server", "--listen", "stdio://"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=job["cwd"],
        env=env,
    )
    assert proc.stdin and proc.stdout
    requests = [
        {
            "id": 1,
            "method": "initialize",
            "params": {"clientInfo": {"name": "skillprism-lab", "version": "0"}},
        },
        {"method": "initialized"},
        {
            "id": 2,
            "method": "skills/list",
            "params": {"cwds": [str(Path(job["cwd"]).resolve())], "forceReload": True},
        },
    ]
    for req in requests:
        proc.stdin.write((json.dumps(req) + "\n").encode())
    proc.stdin.flush()
    result = None
    buf = b""
    deadline = time.monotonic() + TIMEOUT
    try:
        while result is None and time.monotonic() < deadline:
            ready, _, _ = select.select([proc.stdout], [], [], 1.0)
            if not ready:
                if proc.poll() is not None:
                    break
                continue
            chunk = os.read(proc.stdout.fileno(), 65536)
            if not chunk:
                break
            buf += chunk
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                try:
                    msg = json.loads(line)
                except ValueError:
                    continue
                if msg.get("id") == 2:
                    if "error" in msg:
                        raise LabError(f"skills/list failed: {msg['error']}")
                    result = msg["result"]
                elif msg.get("method") == "configWarning":
                    warnings.append("codex config warning: " + msg["params"].get("summary", ""))
    finally:
        proc.stdin.close()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    if result is None:
        err = proc.stderr.read().decode("utf-8", "replace") if proc.stderr else ""
        raise LabError(f"codex app-server gave no skills/list answer: {err[-1500:]}")
    return result


def prompt_input(job: dict) -> tuple[list, str]:
    codex = str(binary_path(RUNTIME))
    proc = run_isolated(
        [codex, "debug", "prompt-input"],
        job,
        env_extra=codex_env(job),
        timeout=TIMEOUT,
    )
    if proc.returncode != 0:
        raise LabError(f"codex debug prompt-input exited {proc.returncode}: {proc.stderr[-1500:]}")
    return json.loads(proc.stdout), proc.stderr


def tier1_text(items: list) -> str:
    """The `<skills_instructions>` developer message; "" when Codex sends none (no skills)."""
    found = []
    for item in items:
        for part in item.get("content") or []:
            text = part.get("text") if isinstance(part, dict) else None
            if isinstance(text, str) and text.startswith("<skills_instructions>"):
                found.append(text)
    if len(found) > 1:
        raise LabError(f"{len(found)} <skills_instructions> messages")
    return found[0] if found else ""


_NOISE = re.compile(r"could not create PATH aliases|bubblewrap", re.I)


def main() -> int:
    try:
        job = read_job()
        warnings: list[str] = []
        listing = skills_list(job, warnings)
        entries = listing.get("data") or []
        skills, rejected, builtin = [], [], []
        system = system_root(job) + os.sep
        for entry in entries:
            for sk in entry.get("skills") or []:
                item = {"path": sk["path"], "name": sk["name"], "description": sk["description"]}
                (builtin if sk["path"].startswith(system) else skills).append(item)
                if sk.get("enabled") is False:
                    warnings.append(f"{sk['path']}: loaded but disabled in config")
            for err in entry.get("errors") or []:
                rejected.append({"path": err["path"], "reason": err["message"]})
        items, stderr = prompt_input(job)
        for line in stderr.splitlines():
            line = line.strip()
            if line and not _NOISE.search(line):
                warnings.append(line)
        emit(
            {
                "runtime": RUNTIME,
                "release": PACKAGES[RUNTIME].release,
                "skills": skills,
                "builtin": builtin,
                "rejected": rejected,
                "warnings": warnings,
                "tier1": tier1_text(items),
            }
        )
        return 0
    except (LabError, OSError, ValueError, KeyError, subprocess.TimeoutExpired) as exc:
        return fail(RUNTIME, str(exc))


if __name__ == "__main__":
    raise SystemExit(main())
