"""Which folders of Claude Code's plugin cache it loads (`[roots.registry]`): the install records,
the known marketplaces and the settings that enable a plugin, on fixture homes. The same rules
against the real binary are conformance/plugin_lab.py (tests/test_plugin_lab.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from skillprism.core.profiles import ProfileError, load_profile, parse_profile
from skillprism.core.resolve import build_catalog

PID = "kit@mk"


def _skill(folder: Path, name: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "SKILL.md").write_text(f"---\nname: {name}\ndescription: The {name} skill.\n---\n")


def _home(tmp_path: Path) -> tuple[Path, Path]:
    home, project = tmp_path / "home", tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    for version, skill in (("1.0.0", "kit-new"), ("0.9.0", "kit-old")):
        folder = home / ".claude/plugins/cache/mk/kit" / version
        (folder / ".claude-plugin").mkdir(parents=True)
        (folder / ".claude-plugin/plugin.json").write_text(json.dumps({"name": "kit"}))
        _skill(folder / "skills" / skill, skill)
    return home, project


def _write(path: Path, doc: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc) if not isinstance(doc, str) else doc)


def _record(home: Path, version: str, v1: bool = False) -> None:
    install = {"scope": "user", "installPath": str(home / ".claude/plugins/cache/mk/kit" / version)}
    plugins = {PID: install} if v1 else {PID: [install]}
    _write(home / ".claude/plugins/installed_plugins.json", {"version": 2, "plugins": plugins})


def _market(home: Path, kind: str = "github", folder: Path | None = None) -> None:
    source = (
        {"source": kind, "repo": "lab/mk"}
        if kind != "directory"
        else {
            "source": "directory",
            "path": str(folder),
        }
    )
    _write(home / ".claude/plugins/known_marketplaces.json", {"mk": {"source": source}})


def _enable(path: Path, value: bool) -> None:
    _write(path, {"enabledPlugins": {PID: value}})


def _plugins(home: Path, project: Path) -> dict[str, tuple[str, str]]:
    catalog = build_catalog(
        load_profile("claude-code"), None, project=str(project), home=str(home), env={}
    )
    return {
        s.qualified_name: (s.status, s.reason)
        for s in catalog.skills
        if s.qualified_name.startswith("kit:")
    }


def loaded(home: Path, project: Path) -> list[str]:
    return sorted(
        n for n, (status, _r) in _plugins(home, project).items() if status != "not-discovered"
    )


def test_the_recorded_enabled_version_of_a_known_marketplace_loads(tmp_path: Path) -> None:
    home, project = _home(tmp_path)
    assert loaded(home, project) == []  # the cache alone loads nothing
    _record(home, "1.0.0")
    _enable(home / ".claude/settings.json", True)
    assert loaded(home, project) == []  # its marketplace is not known
    _market(home)
    assert loaded(home, project) == ["kit:kit-new"]
    old = _plugins(home, project)["kit:kit-old"]
    assert old[0] == "not-discovered" and "installed_plugins.json records this folder" in old[1]
    _record(home, "0.9.0", v1=True)  # the version-1 file: one install per id
    assert loaded(home, project) == ["kit:kit-old"]


def test_settings_enable_a_plugin_user_then_project_then_local(tmp_path: Path) -> None:
    home, project = _home(tmp_path)
    _record(home, "1.0.0")
    _market(home)
    status, reason = _plugins(home, project)["kit:kit-new"]
    assert status == "not-discovered" and f"settings enable {PID}" in reason
    _enable(project / ".claude/settings.json", True)
    assert loaded(home, project) == ["kit:kit-new"]
    _enable(project / ".claude/settings.local.json", False)
    assert loaded(home, project) == []
    _enable(home / ".claude/settings.json", True)  # the user's file comes first: local still wins
    assert loaded(home, project) == []


def test_a_directory_marketplace_serves_its_plugins_from_itself(tmp_path: Path) -> None:
    home, project = _home(tmp_path)
    market = tmp_path / "market"
    _write(
        market / ".claude-plugin/marketplace.json",
        {
            "name": "mk",
            "plugins": [{"name": "kit", "source": "./kit"}, {"name": "x", "source": "../../etc"}],
        },
    )
    _write(market / "kit/.claude-plugin/plugin.json", {"name": "kit"})
    _skill(market / "kit/skills/kit-market", "kit-market")
    _record(home, "1.0.0")
    _market(home, "directory", market)
    _enable(home / ".claude/settings.json", True)
    assert loaded(home, project) == ["kit:kit-market"]
    cached = _plugins(home, project)["kit:kit-new"]
    assert cached[0] == "not-discovered" and "not a local directory" in cached[1]


def test_unreadable_records_load_nothing_and_say_why(tmp_path: Path) -> None:
    home, project = _home(tmp_path)
    _write(home / ".claude/plugins/installed_plugins.json", "{not json")
    _market(home)
    _enable(home / ".claude/settings.json", True)
    status, reason = _plugins(home, project)["kit:kit-new"]
    assert status == "not-discovered" and "could not be read" in reason


def test_a_settings_file_that_cannot_be_read_is_skipped_the_others_still_enable(
    tmp_path: Path,
) -> None:
    home, project = _home(tmp_path)
    _record(home, "1.0.0")
    _market(home)
    _write(home / ".claude/settings.json", '{"enabledPlugins": ')
    status, reason = _plugins(home, project)["kit:kit-new"]
    assert status == "not-discovered" and f"settings enable {PID}" in reason
    assert "settings.json could not be read" in reason and "the runtime skips" in reason
    _enable(project / ".claude/settings.json", True)
    assert loaded(home, project) == ["kit:kit-new"]


def test_a_directory_marketplace_whose_manifest_cannot_be_read_serves_nothing_and_says_why(
    tmp_path: Path,
) -> None:
    home, project = _home(tmp_path)
    market = tmp_path / "market"
    _write(market / ".claude-plugin/marketplace.json", '{"plugins": ')
    _skill(market / "kit/skills/kit-market", "kit-market")
    _record(home, "1.0.0")
    _market(home, "directory", market)
    _enable(home / ".claude/settings.json", True)
    assert loaded(home, project) == []
    catalog = build_catalog(
        load_profile("claude-code"), None, project=str(project), home=str(home), env={}
    )
    (root,) = [r for r in catalog.roots if r.path == str(market)]
    assert "manifest can be read" in root.enabled_by and "marketplace.json" in root.enabled_by


def test_a_registry_needs_a_settings_file() -> None:
    base = {
        "schema": 1,
        "name": "t",
        "roots": [
            {
                "scope": "plugin",
                "path": "~/p/*/skills",
                "registry": {"records": "~/r.json", "marketplaces": "~/m.json", "enabled_in": []},
            }
        ],
    }
    with pytest.raises(ProfileError, match="enabled_in"):
        parse_profile(base, "t.toml")
