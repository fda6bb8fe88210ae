"""Which installed plugins a runtime loads from its plugin cache: the install records, the known
marketplaces and the settings that enable a plugin (`[roots.registry]`, docs/profiles.md).

Claude Code keeps every plugin it ever fetched under `~/.claude/plugins/cache/<marketplace>/
<plugin>/<version>`, old versions included, and loads one folder of them only when all of these
hold (its lab experiments, conformance/plugin_lab.py):

- the plugin's id `<plugin>@<marketplace>` is enabled: `enabledPlugins[id]` is true in the merged
  settings files (later files win: user, then project, then local);
- its marketplace is known (`known_marketplaces.json`) and is not a local directory: a directory
  marketplace's enabled plugins load from that directory, at the folder its manifest
  (`.claude-plugin/marketplace.json`, `plugins[].source`) names, never from the cache
  (`directory_roots`);
- `installed_plugins.json` records this folder as the id's install (`plugins[id]`: a list of
  installs, or one install in the version-1 file, each with its `installPath`).

A records or marketplaces file that is not JSON makes the runtime load no plugin of its cache; a
settings file that is not JSON is skipped, the others still enable plugins; a directory
marketplace whose manifest is not JSON serves no plugin (the plugin lab's `*-broken` scenarios).

`plugin_roots` says, for each root folder of the cache, what keeps the runtime from loading it
("" when it loads), in words that fit "the runtime reads this root only when ...".
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from skillprism.core.structured import StructuredError, read_structured


@dataclass(frozen=True, slots=True)
class PluginRegistry:
    """Where a runtime records its installed plugins (paths are root templates: `~`, `{home}`,
    `{project}`, `{env:VAR}`); `install_below`: the root is this folder inside an install."""

    records: str
    marketplaces: str
    enabled_in: tuple[str, ...]
    enabled_key: str = "enabledPlugins"
    install_below: str = "skills"
    # In a directory marketplace: the manifest listing its plugins and their folders.
    manifest: str = ".claude-plugin/marketplace.json"


@dataclass(frozen=True, slots=True)
class RegistryState:
    """What the registry's files say, read once for a whole root."""

    installs: dict[str, str]  # real install folder -> plugin id
    enabled: dict[str, bool]
    marketplaces: dict[str, str]  # name -> source kind ("github", "directory", ...)
    directories: dict[str, str]  # directory marketplace name -> its folder
    problems: tuple[str, ...]  # records or marketplaces that cannot be read: nothing loads
    skipped: tuple[str, ...] = ()  # settings files that cannot be read, which the runtime skips


def _read(path: str, problems: list[str]) -> Any:
    if not os.path.exists(path):
        return None
    try:
        return read_structured(path, "json")
    except StructuredError as err:
        problems.append(f"{path} could not be read ({err})")
        return None


def _real(path: str) -> str:
    return os.path.realpath(os.path.normpath(path))


def read_state(
    registry: PluginRegistry, expand: Callable[[str], str], problems: list[str] | None = None
) -> RegistryState:
    """The records, marketplaces and enabled ids as the runtime reads them; `expand` turns a
    template into a path. A file that is missing counts as empty; one that cannot be read too,
    named in `problems` (records, marketplaces) or `skipped` (settings)."""
    problems = [] if problems is None else problems
    skipped: list[str] = []
    installs: dict[str, str] = {}
    doc = _read(expand(registry.records), problems)
    plugins = doc.get("plugins") if isinstance(doc, dict) else None
    for pid, entries in (plugins or {}).items() if isinstance(plugins, dict) else ():
        for entry in entries if isinstance(entries, list) else [entries]:
            path = entry.get("installPath") if isinstance(entry, dict) else None
            if isinstance(path, str) and os.path.isabs(path):
                installs[_real(path)] = pid
    enabled: dict[str, bool] = {}
    for template in registry.enabled_in:
        settings = _read(expand(template), skipped)
        table = settings.get(registry.enabled_key) if isinstance(settings, dict) else None
        if isinstance(table, dict):
            enabled.update({k: v is True for k, v in table.items()})
    known: dict[str, str] = {}
    directories: dict[str, str] = {}
    doc = _read(expand(registry.marketplaces), problems)
    for name, entry in doc.items() if isinstance(doc, dict) else ():
        source = entry.get("source") if isinstance(entry, dict) else None
        kind = source.get("source") if isinstance(source, dict) else None
        known[name] = kind if isinstance(kind, str) else ""
        where = source.get("path") if isinstance(source, dict) else None
        if kind == "directory" and isinstance(where, str) and os.path.isabs(where):
            directories[name] = where
    return RegistryState(installs, enabled, known, directories, tuple(problems), tuple(skipped))


def directory_roots(registry: PluginRegistry, state: RegistryState) -> dict[str, str]:
    """The skill folders of enabled plugins of directory marketplaces, which the runtime reads
    where the marketplace's manifest puts them (`<folder>/<source>/skills`), each with "" (the
    runtime reads it); a marketplace whose manifest cannot be read, with what must hold."""
    out: dict[str, str] = {}
    for pid, on in sorted(state.enabled.items()):
        plugin, _at, market = pid.rpartition("@")
        folder = state.directories.get(market)
        if not on or not folder:
            continue
        unread: list[str] = []
        manifest = _read(os.path.join(folder, registry.manifest), unread)
        if unread:
            out[folder] = f"its marketplace's manifest can be read ({unread[0]})"
        entries = manifest.get("plugins") if isinstance(manifest, dict) else None
        for entry in entries if isinstance(entries, list) else ():
            source = entry.get("source") if isinstance(entry, dict) else None
            if entry.get("name") == plugin and isinstance(source, str):
                path = os.path.normpath(os.path.join(folder, source, registry.install_below))
                if path.startswith(os.path.normpath(folder) + os.sep):  # never outside it
                    out[path] = ""
    return out


def folder_condition(registry: PluginRegistry, root: str, state: RegistryState) -> str:
    """What must hold for the runtime to load the plugin root folder `root`, when it does not
    hold ("" = it loads): said for the user, naming the plugin and the file to look at."""
    below = registry.install_below
    install = os.path.dirname(root) if below and os.path.basename(root) == below else root
    if state.problems:
        return f"its plugin records can be read ({'; '.join(state.problems)})"
    pid = state.installs.get(_real(install))
    if pid is None:
        return (
            f"{registry.records} records this folder as a plugin's install (it does not: an older "
            "version, or a plugin not installed through the runtime)"
        )
    market = pid.rpartition("@")[2]
    if not state.enabled.get(pid, False):
        unread = f"; {'; '.join(state.skipped)}, which the runtime skips" if state.skipped else ""
        return f"settings enable {pid} ({registry.enabled_key}; it is not enabled{unread})"
    if market not in state.marketplaces:
        return f"its marketplace {market} is known ({registry.marketplaces}; it is not)"
    if state.marketplaces[market] == "directory":
        return (
            f"its marketplace {market} is not a local directory (the runtime loads that "
            "marketplace's plugins from the directory itself)"
        )
    return ""


def plugin_roots(
    registry: PluginRegistry, found: list[str], expand: Callable[[str], str]
) -> tuple[dict[str, str], list[str]]:
    """Reading the registry's files once: `folder_condition` for each cache folder `found` and
    each folder of a directory marketplace the runtime reads besides (`directory_roots`), and
    those folders."""
    state = read_state(registry, expand)
    conditions = {root: folder_condition(registry, root, state) for root in found}
    served = directory_roots(registry, state)
    return {**conditions, **served}, list(served)
