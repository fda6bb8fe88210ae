#!/usr/bin/env python3
"""Conformance driver: Factory Droid (npm `@factory/cli-linux-x64` 0.225.2, Bun-compiled binary).

Reads one job on stdin, prints one JSON result (see conformance/README-bin.md).

`@factory/cli` 0.225.1 (the `droid` command) is a JavaScript shim: its binary comes from the
optional dependency `@factory/cli-linux-x64@0.225.1`, which the registry does not have; the
newest platform package, 0.225.2 (published the same day), is the one pinned. Droid has no
command that lists skills without a model session, so the driver runs Droid's own modules:

1. Once per cache, the JavaScript modules embedded in the binary (Bun's module graph, 654 files)
   are written to `<cache>/factory-droid/extracted/root/`, with their `/$bunfs/root/` imports
   pointed at that folder, and the bundler's `import.meta.require` of text assets (the built-in
   skills' SKILL.md) turned into a file read. Nothing else is changed; nothing is committed.
2. A generated script, run by the Droid binary itself as Bun (`BUN_BE_BUN=1`) offline in a fresh
   network namespace with HOME the job's temp home and cwd = the job's cwd, calls Droid's CLI
   bootstrap (`bootstrapLightweight({skipAuth: true})`, reported as a setting), with the
   built-in skills on as by default (reported as `builtin`), then the skill resolver (`II`: every settings level,
   its skill folders, clash resolution by bucket, validation) and the listing (`ck` = the valid,
   enabled, model-invocable skills, `pk` = the `<system-reminder>` text the session injects,
   for a context window of 200,000 tokens, Skill Prism's default: floor(200,000 x 4 x 0.015)).

`skills` = the resolver's records with status `enabled`, in its order; `invalid` and `disabled`
records are `rejected`; `shadowed` ones are warnings.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from binlab import (
    PACKAGES,
    BunImage,
    LabError,
    binary_path,
    emit,
    fail,
    package_dir,
    read_job,
    run_isolated,
)

RUNTIME = "factory-droid"
# The context window (tokens) the listing's budget is computed for: Skill Prism's default
# (skillprism.core.disclose.DEFAULT_CONTEXT_WINDOW), so both sides budget alike.
CONTEXT_WINDOW = 200_000
_BUNFS = "/$bunfs/root/"
# The bundler's helper `b = import.meta.require`, used to inline text assets: a file read for
# the asset types the bundle requires that way, the original call for everything else.
_REQUIRE = "b=import.meta.require;"
_REQUIRE_TEXT = (
    'b=(x)=>/\\.(md|py|sha256|txt)$/.test(x)?import.meta.require("fs").readFileSync(x,"utf8")'
    ":import.meta.require(x);"
)


def module_text(image: BunImage, start: int, length: int) -> str:
    """A module's source: Bun stores a module holding non-Latin-1 text as UTF-16LE."""
    raw = image.blob[start : start + length]
    if len(raw) > 8 and raw[1] == 0 and raw[3] == 0:
        return raw.decode("utf-16-le", "replace")
    return raw.decode("utf-8", "replace")


def extracted_root() -> Path:
    """The binary's modules written out once (idempotent; a marker names the release)."""
    root = package_dir(RUNTIME) / "extracted"
    marker = root / "release.txt"
    release = PACKAGES[RUNTIME].release
    if marker.is_file() and marker.read_text(encoding="utf-8").strip() == release:
        return root / "root"
    image = BunImage(binary_path(RUNTIME))
    # The lab starts several drivers at once: each extracts into its own folder, and the
    # first to finish renames it into place; the others find it there and drop theirs.
    staging = root.with_name(f"extracted.tmp-{os.getpid()}")
    shutil.rmtree(staging, ignore_errors=True)
    target = str(root / "root") + "/"
    patched = 0
    for mod in image.modules:
        rel = mod.name[len(_BUNFS) :] if mod.name.startswith(_BUNFS) else mod.name.lstrip("/")
        path = staging / "root" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if not rel.endswith((".js", ".mjs", ".cjs")):
            path.write_bytes(image.blob[mod.offset : mod.offset + mod.length])
            continue
        text = module_text(image, mod.offset, mod.length).replace(f'"{_BUNFS}', f'"{target}')
        # The bytecode the pragma names is not written out: Bun compiles the source instead.
        text = re.sub(r"^// @bun @bytecode", "// @bun", text)
        if _REQUIRE in text and "export{m,L,iZ,cn,NU,b}" in text:
            text = text.replace(_REQUIRE, _REQUIRE_TEXT)
            patched += 1
        path.write_text(text, encoding="utf-8")
    if patched != 1:
        raise LabError(f"bundler helper import.meta.require found {patched} times, expected 1")
    (staging / "release.txt").write_text(release + "\n", encoding="utf-8")
    if root.exists() and not (
        marker.is_file() and marker.read_text(encoding="utf-8").strip() == release
    ):
        shutil.rmtree(root, ignore_errors=True)  # an older release's modules
    try:
        staging.rename(root)
    except OSError:
        shutil.rmtree(staging, ignore_errors=True)
        if not marker.is_file():
            raise
    return root / "root"


def exported(text: str, local: str) -> str:
    """The name under which a module exports its local binding `local`."""
    m = re.search(r"export\{([^}]*)\}", text)
    if m:
        for item in m.group(1).split(","):
            parts = item.strip().split(" as ")
            if parts[0] == local:
                return parts[-1]
    raise LabError(f"{local} is not exported")


def locate(root: Path) -> dict[str, str]:
    """The hashed chunks (and export names) of the bootstrap, the resolver and the listing."""
    found: dict[str, str] = {}
    for path in sorted(root.glob("*.js")):
        text = path.read_text(encoding="utf-8")
        if "as bootstrapLightweight}" in text:
            found["bootstrap"] = str(path)
        if 'dd="Available skills (invoke by exact name' in text:
            m = re.search(r"async function ([\w$]+)\(e=\{\}\)\{let\{excludeDynamic:", text)
            p = re.search(r'import\{[^}]*?\bp\b[^}]*\}from"([^"]+)"', text)
            if not m or not p:
                raise LabError("skill resolver shape not recognised")
            found["resolver"], found["resolve"] = str(path), exported(text, m.group(1))
            found["session"] = p.group(1)
        lst = re.search(
            r"function ([\w$]+)\(e,i=\{\}\)\{let r=[\w$]+\(e\);if\(r\.length===0\)"
            r'return"";return`\$\{[\w$]+\}\n\$\{dd\}',
            text,
        )
        if lst:
            ck = re.search(r"async function ([\w$]+)\(e,i\)\{[^}]*?invalidateResolvedCache", text)
            if not ck:
                raise LabError("listing skill source not recognised")
            found["listing"] = str(path)
            found["render"], found["listed"] = (
                exported(text, lst.group(1)),
                exported(text, ck.group(1)),
            )
    missing = {"bootstrap", "resolver", "listing"} - set(found)
    if missing:
        raise LabError(f"not found in the binary's modules: {', '.join(sorted(missing))}")
    return found


def script(found: dict[str, str], out: str) -> str:
    """The generated script: Droid's own functions, in the order its session calls them."""
    return f"""import fs from "fs";
const res = {{records: [], listed: [], tier1: null, error: null}};
try {{
  const boot = await import({json.dumps(found["bootstrap"])});
  await boot.bootstrapLightweight({{skipAuth: true}});
  const session = await import({json.dumps(found["session"])});
  const resolver = await import({json.dumps(found["resolver"])});
  const all = await resolver.{found["resolve"]}({{excludeDynamic: true}});
  res.records = all.records.map((r) => ({{
    path: r.skill.filePath, name: r.skill.metadata.name,
    description: r.skill.metadata.description, status: r.status, bucket: r.bucket,
    source: r.sourceLabel, shadowedBy: r.shadowedBy ?? null, disabledBy: r.disabledBy ?? null,
    errors: r.skill.validationResult?.errors ?? [], warnings: r.skill.validationResult?.warnings ?? [],
  }}));
  const listing = await import({json.dumps(found["listing"])});
  const listed = await listing.{found["listed"]}(false);
  res.listed = listed.map((s) => s.filePath);
  // The session passes the model's context window; the lab's is Skill Prism's default.
  res.tier1 = listing.{found["render"]}(listed, {{workingTokenLimit: {CONTEXT_WINDOW}}});
}} catch (e) {{ res.error = String((e && e.stack) || e); }}
fs.writeFileSync({json.dumps(out)}, JSON.stringify(res));
process.exit(0);
"""


def run(job: dict) -> dict:
    root = extracted_root()
    found = locate(root)
    work = Path(job["home"]).resolve() / ".tmp" / "skillprism-lab-droid"
    work.mkdir(parents=True, exist_ok=True)
    out = work / "result.json"
    js = work / "driver.mjs"
    js.write_text(script(found, str(out)), encoding="utf-8")
    proc = run_isolated(
        [str(binary_path(RUNTIME)), str(js)], job, env_extra={"BUN_BE_BUN": "1"}, timeout=120
    )
    if not out.is_file():
        raise LabError(f"droid (as bun) exited {proc.returncode}: {proc.stderr[-1500:]}")
    res = json.loads(out.read_text(encoding="utf-8"))
    if res.get("error"):
        raise LabError(f"Droid's resolver failed: {res['error'][:1500]}")
    return res


def main() -> int:
    try:
        job = read_job()
        res = run(job)
        skills, rejected, warnings, builtin = [], [], [], []
        for rec in res["records"]:
            status = rec["status"]
            item = {"path": rec["path"], "name": rec["name"], "description": rec["description"]}
            if rec.get("bucket") == "builtin" or rec.get("source") == "builtin":
                if status == "enabled":
                    builtin.append(item)
                continue
            if status == "enabled":
                skills.append(item)
            elif status == "shadowed":
                by = rec.get("shadowedBy") or {}
                warnings.append(
                    f"{rec['path']}: '{rec['name']}' shadowed by the {by.get('sourceLabel')} copy"
                )
            else:
                why = "; ".join(rec.get("errors") or []) or json.dumps(rec.get("disabledBy"))
                rejected.append({"path": rec["path"], "reason": f"{status}: {why}"})
            for w in rec.get("warnings") or []:
                warnings.append(f"{rec['path']}: {w}")
        emit(
            {
                "runtime": RUNTIME,
                "release": PACKAGES[RUNTIME].release,
                "skills": skills,
                "builtin": builtin,
                "rejected": rejected,
                "warnings": warnings,
                "tier1": res.get("tier1"),
                # Droid lists skills only in a model session: the lab runs its start-up without
                # a login (no organisation skills) and its listing for a 200,000-token window.
                "settings": [
                    {
                        "setting": "bootstrapLightweight({skipAuth: true})",
                        "value": "no login",
                        "reason": "the skill resolver runs without a model session",
                    }
                ],
            }
        )
        return 0
    except (LabError, OSError, ValueError, KeyError, subprocess.TimeoutExpired) as exc:
        return fail(RUNTIME, str(exc))


if __name__ == "__main__":
    raise SystemExit(main())
