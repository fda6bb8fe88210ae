#!/usr/bin/env python3
"""Plugin lab: which plugins from its cache Claude Code loads, against the claude-code profile.

Claude Code keeps every plugin it fetched under `~/.claude/plugins/cache/<marketplace>/<plugin>/
<version>` and loads a folder of it only when its install records, its known marketplaces and
the settings that enable plugins say so (`[roots.registry]`, src/skillprism/core/plugin_registry.py).
Each scenario here lays out one home (two versions of one plugin in the cache, and the records,
marketplaces and settings the scenario names), runs the pinned binary on it through the
conformance driver (`claude -p` against the scripted model server, conformance/drivers/
claude-code.py), and compares the plugin skills it listed with the skills Skill Prism's catalog
of the same home, read before the run, calls loaded. Claude Code may write its records during
the run (a plugin enabled but not recorded is recorded for the next session), so the catalog is
always built first.

    .venv/bin/python conformance/plugin_lab.py [--keep] [SCENARIO...]

Prints one line per scenario and exits 1 when one disagrees. Nothing from a fixture runs.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DRIVER = ROOT / "conformance" / "drivers" / "claude-code.py"
PLUGIN, MARKET = "kit", "mk"
PID = f"{PLUGIN}@{MARKET}"
VERSIONS = {"1.0.0": "kit-new", "0.9.0": "kit-old"}  # version -> the one skill it holds


@dataclass(frozen=True)
class Scenario:
    name: str
    note: str
    record: str | None = None  # the version installed_plugins.json records
    record_v1: bool = False  # the version-1 file (one install per id, not a list)
    market: str | None = None  # "github" or "directory": known_marketplaces.json names mk
    enabled: dict[str, bool] = field(default_factory=dict)  # settings file -> enabledPlugins[id]
    broken: tuple[str, ...] = ()  # files written as text that is not JSON: see BROKEN


SCENARIOS = (
    Scenario("nothing", "the cache alone: no record, no marketplace, not enabled"),
    Scenario("no-market", "recorded and enabled, marketplace unknown", "1.0.0", enabled={"user": True}),
    Scenario("recorded", "recorded, enabled, GitHub marketplace", "1.0.0", market="github", enabled={"user": True}),
    Scenario("old-version", "the older version recorded", "0.9.0", market="github", enabled={"user": True}),
    Scenario("version-1-file", "a version-1 records file", "0.9.0", True, "github", {"user": True}),
    Scenario("not-enabled", "recorded, marketplace known, not enabled", "1.0.0", market="github"),
    Scenario("disabled", "enabledPlugins false", "1.0.0", market="github", enabled={"user": False}),
    Scenario("project-enables", "enabled in the project's settings", "1.0.0", market="github", enabled={"project": True}),
    Scenario("local-disables", "enabled by the user, disabled locally", "1.0.0", market="github", enabled={"user": True, "local": False}),
    Scenario("not-recorded", "enabled, marketplace known, no record", None, market="github", enabled={"user": True}),
    Scenario("directory-market", "a directory marketplace: loaded from there, not the cache", "1.0.0", market="directory", enabled={"user": True}),
    Scenario("records-broken", "installed_plugins.json is not JSON", "1.0.0", market="github", enabled={"user": True}, broken=("records",)),
    Scenario("markets-broken", "known_marketplaces.json is not JSON", "1.0.0", market="github", enabled={"user": True}, broken=("markets",)),
    Scenario("settings-broken", "enabled in the project's settings; the user's settings.json is not JSON", "1.0.0", market="github", enabled={"user": True, "project": True}, broken=("user",)),
    Scenario("manifest-broken", "a directory marketplace whose marketplace.json is not JSON", "1.0.0", market="directory", enabled={"user": True}, broken=("manifest",)),
)  # fmt: skip
BROKEN_TEXT = '{"plugins": '  # cut short, as a write that was interrupted leaves it


def _skill(folder: Path, name: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: The {name} skill of the plugin lab.\n---\n\nBody.\n"
    )


def lay_out(s: Scenario, base: Path) -> tuple[Path, Path]:
    """The scenario's home and project under `base`."""
    home, project = base / "home", base / "project"
    (project / ".git").mkdir(parents=True)
    plugins = home / ".claude" / "plugins"
    for version, skill in VERSIONS.items():
        folder = plugins / "cache" / MARKET / PLUGIN / version
        (folder / ".claude-plugin").mkdir(parents=True)
        (folder / ".claude-plugin" / "plugin.json").write_text(
            json.dumps({"name": PLUGIN, "version": version})
        )
        _skill(folder / "skills" / skill, skill)
    if s.record:
        install = {
            "scope": "user",
            "installPath": str(plugins / "cache" / MARKET / PLUGIN / s.record),
            "version": s.record,
            "installedAt": "2026-01-01T00:00:00.000Z",
            "lastUpdated": "2026-01-01T00:00:00.000Z",
        }
        doc = (
            {"version": 1, "plugins": {PID: install}}
            if s.record_v1
            else {"version": 2, "plugins": {PID: [install]}}
        )
        (plugins / "installed_plugins.json").write_text(json.dumps(doc))
    if s.market:
        market = base / "market"
        (market / ".claude-plugin").mkdir(parents=True)
        (market / ".claude-plugin" / "marketplace.json").write_text(
            json.dumps(
                {
                    "name": MARKET,
                    "owner": {"name": "lab"},
                    "plugins": [{"name": PLUGIN, "source": f"./{PLUGIN}", "version": "1.0.0"}],
                }
            )
        )
        (market / PLUGIN / ".claude-plugin").mkdir(parents=True)
        (market / PLUGIN / ".claude-plugin" / "plugin.json").write_text(
            json.dumps({"name": PLUGIN, "version": "1.0.0"})
        )
        _skill(market / PLUGIN / "skills" / "kit-market", "kit-market")
        source = (
            {"source": "github", "repo": "lab/mk"}
            if s.market == "github"
            else {"source": "directory", "path": str(market)}
        )
        (plugins / "known_marketplaces.json").write_text(
            json.dumps(
                {
                    MARKET: {
                        "source": source,
                        "installLocation": str(market),
                        "lastUpdated": "2026-01-01T00:00:00.000Z",
                    }
                }
            )
        )
    files = {
        "user": home / ".claude" / "settings.json",
        "project": project / ".claude" / "settings.json",
        "local": project / ".claude" / "settings.local.json",
    }
    for where, value in s.enabled.items():
        files[where].parent.mkdir(parents=True, exist_ok=True)
        files[where].write_text(json.dumps({"enabledPlugins": {PID: value}}))
    files["records"] = plugins / "installed_plugins.json"
    files["markets"] = plugins / "known_marketplaces.json"
    files["manifest"] = base / "market" / ".claude-plugin" / "marketplace.json"
    for which in s.broken:
        files[which].write_text(BROKEN_TEXT)
    return home, project


def skill_prism_loads(home: Path, project: Path) -> list[str]:
    """The plugin skills the claude-code profile says Claude Code loads from this home."""
    from skillprism.core.profiles import load_profile
    from skillprism.core.resolve import build_catalog

    catalog = build_catalog(
        load_profile("claude-code"),
        None,
        project=str(project),
        home=str(home),
        env={"HOME": str(home)},
    )
    return sorted(s.qualified_name for s in catalog.skills if s.loaded and ":" in s.qualified_name)


def claude_code_loads(home: Path, project: Path) -> list[str]:
    """The plugin skills Claude Code 2.1.330 listed in a `claude -p` session on this home."""
    job = {"home": str(home), "project": str(project)}
    run = subprocess.run(
        [sys.executable, str(DRIVER)],
        input=json.dumps(job),
        capture_output=True,
        text=True,
        timeout=300,
    )
    try:
        report = json.loads(run.stdout)
    except ValueError:
        raise RuntimeError(f"the driver failed: {run.stderr.strip()[-500:]}") from None
    if report.get("error"):
        raise RuntimeError(f"the driver failed: {report['error']}")
    return sorted(
        s["name"] for s in report.get("skills", []) if not s.get("builtin") and ":" in s["name"]
    )


@dataclass(frozen=True)
class Outcome:
    scenario: Scenario
    runtime: list[str]
    skillprism: list[str]

    @property
    def agrees(self) -> bool:
        return self.runtime == self.skillprism


def run_scenario(s: Scenario, keep: bool = False) -> Outcome:
    base = Path(tempfile.mkdtemp(prefix=f"plugin-lab-{s.name}-"))
    try:
        home, project = lay_out(s, base)
        ours = skill_prism_loads(home, project)  # before Claude Code writes its records
        theirs = claude_code_loads(home, project)
        return Outcome(s, theirs, ours)
    finally:
        if not keep:
            shutil.rmtree(base, ignore_errors=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("scenarios", nargs="*", help="names (default: all)")
    parser.add_argument("--keep", action="store_true", help="keep the laid-out homes")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT / "src"))
    chosen = [s for s in SCENARIOS if not args.scenarios or s.name in args.scenarios]
    bad = 0
    for s in chosen:
        out = run_scenario(s, args.keep)
        bad += not out.agrees
        mark = "agree" if out.agrees else "DIFFER"
        print(f"{mark:6} {s.name:17} claude-code {out.runtime!s:28} skill prism {out.skillprism}")
    print(f"{len(chosen) - bad}/{len(chosen)} scenarios agree")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
