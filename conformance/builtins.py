"""Print a runtime's built-in skills as the `[[tier1.builtin]]` tables of its profile.

    .venv/bin/python -m conformance.builtins codex          # TOML on stdout
    .venv/bin/python -m conformance.builtins qwen-code --json

Runs the runtime's driver (as `run.py` does, default configuration) on an empty fixture tree and
takes what it reports as `builtin`: name and description exactly as the runtime read them, the
root of the profile they sit in (a `[[roots]]` table with `builtin = true`) and their path inside
it, and the frontmatter fields the profile's listing reads (`[tier1] description_fields`, the
exclusions). When a release moves and the lab reports built-in skills that differ from the
profile's, this prints the tables to review and paste.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from conformance import fixtures
from conformance.run import run_driver
from conformance.runtimes import RUNTIMES


def _toml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    return json.dumps(str(value), ensure_ascii=False)


def listed_fields(profile: Any) -> set[str]:
    t1 = profile.disclosure.tier1
    names = set(t1.description_fields) - {"description"}
    names |= set(t1.exclude_fields)
    if t1.model_invocation_excludes:
        names |= set(profile.disclosure.tier2.model_invocation_off)
    return names


def builtins_of(runtime: str) -> tuple[list[dict], Any, dict[str, str]]:
    """The runtime's built-in skills from one driver run, its profile, the job environment."""
    from skillprism.core.roots import expand_template

    rt = RUNTIMES[runtime]
    profile = fixtures.shipped_profile(rt.profile)
    with tempfile.TemporaryDirectory(prefix="skillprism-builtins-") as work:
        tree = fixtures.materialize(
            fixtures.Case("builtins", "builtins", ()), profile, os.path.join(work, "t")
        )
        tree.env.update(rt.extra_job_env())
        result = run_driver(rt, [tree.job()], os.path.join(work, "t"))[0]
        roots = {
            r.path: expand_template(r.path, tree.project, tree.home, tree.env)
            for r in profile.roots
            if r.builtin
        }
        out = []
        from skillprism.core.document import parse_document
        from skillprism.core.framing import frame
        from skillprism.core.reading import frontmatter_data

        wanted = listed_fields(profile)
        for b in result.get("builtin") or []:
            item: dict[str, Any] = {"name": b["name"], "description": b["description"]}
            path = str(b.get("path") or "")
            for template, folder in roots.items():
                if path.startswith(folder.rstrip("/") + "/"):
                    item["root"] = template
                    item["location"] = os.path.relpath(path, folder)
                    break
            else:
                if path:
                    item["location"] = path
            if path and os.path.isfile(path) and wanted:
                doc = frame(parse_document(path), profile.framing)
                data, _ = frontmatter_data(doc, profile, [])
                extra = {k: v for k, v in (data or {}).items() if k in wanted}
                if extra:
                    item["frontmatter"] = extra
            out.append(item)
    return out, profile, tree.env


def as_toml(items: list[dict], scope: str = "") -> str:
    blocks = []
    for item in items:
        lines = ["[[tier1.builtin]]"]
        for key in ("name", "description", "root", "location"):
            if key in item:
                lines.append(f"{key} = {_toml(item[key])}")
        if scope:
            lines.append(f"scope = {_toml(scope)}")
        if item.get("frontmatter"):
            pairs = ", ".join(
                f"{json.dumps(k)} = {_toml(v)}" for k, v in sorted(item["frontmatter"].items())
            )
            lines.append(f"frontmatter = {{ {pairs} }}")
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks) + ("\n" if blocks else "")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runtime", choices=sorted(RUNTIMES))
    parser.add_argument("--json", action="store_true", help="print JSON instead of TOML")
    args = parser.parse_args(argv)
    rt = RUNTIMES[args.runtime]
    if not rt.installed():
        print(f"{rt.name} is not installed: run conformance/install.py", file=sys.stderr)
        return 2
    items, profile, _env = builtins_of(args.runtime)
    if args.json:
        print(json.dumps(items, indent=1, ensure_ascii=False))
        return 0
    scopes = {r.path: r.scope for r in profile.roots}
    scope = next((scopes[i["root"]] for i in items if i.get("root") in scopes), "")
    sys.stdout.write(as_toml(items, scope))
    return 0


if __name__ == "__main__":
    sys.exit(main())
