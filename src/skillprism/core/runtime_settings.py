"""Reading a runtime's own configuration that changes its skill listing.

Which files and environment variables matter, and which of their keys map onto which budget knob,
is profile data (`[settings]`); this module only reads them, safely and never writing anything.
Everything found is reported as applied; what could not be read is reported too.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from skillprism.core.disclose import PERMISSION_ACTIONS, BudgetSettings
from skillprism.core.disclosure_spec import SettingsSpec
from skillprism.core.roots import expand_template
from skillprism.core.structured import StructuredError, read_structured
from skillprism.core.vocabulary import OVERRIDES

MAX_SETTINGS_BYTES = 1024 * 1024


def _lookup(data: Any, dotted: str) -> Any:
    for part in dotted.split("."):
        if not isinstance(data, dict) or part not in data:
            return None
        data = data[part]
    return data


def _read(path: str, fmt: str) -> tuple[Any, str]:
    try:
        return read_structured(path, fmt, cap=MAX_SETTINGS_BYTES), ""
    except StructuredError as err:
        return None, str(err)


def apply_runtime_settings(
    spec: SettingsSpec,
    base: BudgetSettings,
    *,
    project: str,
    home: str,
    env: Mapping[str, str],
) -> tuple[BudgetSettings, list[str]]:
    """`base` with every setting the runtime would apply folded in (files in the listed order, so a
    later file overrides an earlier one; environment variables last). Returns the new settings and
    problems met (unreadable or invalid files, values of the wrong type)."""
    settings = base
    applied = list(base.applied)
    problems: list[str] = []

    def knob(name: str, value: Any, source: str) -> None:
        nonlocal settings
        if name == "overrides":
            if not isinstance(value, dict):
                problems.append(f"{source}: expected a map of skill name to {'/'.join(OVERRIDES)}")
                return
            good = {k: v for k, v in value.items() if isinstance(v, str) and v in OVERRIDES}
            for k in sorted(set(value) - set(good)):
                problems.append(
                    f"{source}: override for '{k}' is {value[k]!r}, not one of {', '.join(OVERRIDES)}"
                )
            settings = replace(settings, overrides={**settings.overrides, **good})
            applied.append(f"{source}: {len(good)} skill override(s)")
        elif name in ("budget_fraction",):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= 1:
                problems.append(f"{source}: expected a fraction between 0 and 1, got {value!r}")
                return
            settings = replace(settings, budget_fraction=float(value))
            applied.append(f"{source} = {value}")
        elif name in ("budget_chars", "entry_cap_chars", "context_window"):
            try:
                number = int(str(value).strip())
            except ValueError:
                problems.append(f"{source}: expected a whole number, got {value!r}")
                return
            if number <= 0:
                problems.append(f"{source}: expected a positive number, got {number}")
                return
            settings = replace(settings, **{name: number})
            applied.append(f"{source} = {number:,}")
        elif name == "disabled_skills":
            items = value if isinstance(value, list) else []
            off = {
                str(i.get("path") or i.get("name"))
                for i in items
                if isinstance(i, dict)
                and i.get("enabled") is False
                and (i.get("path") or i.get("name"))
            }
            if off:
                settings = replace(settings, disabled=settings.disabled | frozenset(off))
                applied.append(f"{source}: {len(off)} skill(s) disabled")

        elif name in ("disabled_list", "minus_entries", "disabled_globs"):
            # a list of names or paths, each exact (case kept): disabled_list; pi's overrides,
            # whose '-<path>' entries exclude that skill file or folder (its '+' and '!' forms
            # are not modelled): minus_entries; name patterns: disabled_globs
            items = value if isinstance(value, list) else None
            if items is None or not all(isinstance(i, str) for i in items):
                problems.append(f"{source}: expected a list of strings, got {value!r}")
                return
            if name == "minus_entries":
                items = [i[1:] for i in items if i.startswith("-") and len(i) > 1]
            if name == "disabled_globs":
                if items:
                    globs = (*settings.disabled_globs, *items)
                    settings = replace(settings, disabled_globs=globs)
                    applied.append(f"{source}: {len(items)} skill name pattern(s) disabled")
            elif items:
                settings = replace(settings, disabled=settings.disabled | frozenset(items))
                applied.append(f"{source}: {len(items)} skill(s) disabled")

        elif name == "disabled_flags":
            # OpenClaw's skills.entries: skill key -> {enabled: false, ...}
            if not isinstance(value, dict):
                problems.append(f"{source}: expected a map of skill name to its settings")
                return
            off = {
                str(k)
                for k, v in value.items()
                if isinstance(v, dict) and v.get("enabled") is False
            }
            if off:
                settings = replace(settings, disabled=settings.disabled | frozenset(off))
                applied.append(f"{source}: {len(off)} skill(s) disabled")

        elif name == "disabled_names":
            items = value if isinstance(value, list) else None
            if items is None or not all(isinstance(i, str) for i in items):
                problems.append(f"{source}: expected a list of skill names, got {value!r}")
                return
            if items:
                # matched case-insensitively, merged across files (Qwen Code: UNION)
                names = frozenset(i.lower() for i in items)
                settings = replace(settings, disabled_names=settings.disabled_names | names)
                applied.append(f"{source}: {len(names)} skill name(s) disabled")

        elif name == "permission_rules":
            # OpenCode: one action for every skill, or pattern -> action in order (the last
            # matching rule decides, core/disclose.permission_action)
            rules = {"*": value} if isinstance(value, str) else value
            if not isinstance(rules, dict) or not all(
                isinstance(a, str) and a in PERMISSION_ACTIONS for a in rules.values()
            ):
                problems.append(
                    f"{source}: expected {'/'.join(PERMISSION_ACTIONS)} or a map of skill name "
                    f"pattern to one of them, got {value!r}"
                )
                return
            settings = replace(
                settings, permission_rules=(*settings.permission_rules, *rules.items())
            )
            denied = sum(1 for a in rules.values() if a == "deny")
            applied.append(f"{source}: {len(rules)} rule(s), {denied} deny")

    for file in spec.files:
        path = expand_template(file.path, project, home, env)
        if not os.path.lexists(path):
            continue
        data, problem = _read(path, file.format)
        if problem:
            problems.append(f"{path}: {problem}; ignored")
            continue
        for key, name in spec.keys.items():
            value = _lookup(data, key)
            if value is not None:
                knob(name, value, f"{path}: {key}")
    for var, name in spec.env.items():
        value = env.get(var)
        if value:
            knob(name, value, f"${var}")
    return replace(settings, applied=tuple(applied)), problems
