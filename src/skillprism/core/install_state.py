"""What Skill Prism installed, and whether each installed copy is still what its source is.

The manifest (`$XDG_STATE_HOME/skillprism/installed.json`, one record per target folder: source,
mode, scope, the runtimes it was installed for, the content hash of every file, the date) is
written by `core/install.py` after each apply and put back by its undo.

`stale(...)` compares each record with the two folders as they are now:

| state | meaning |
|---|---|
| `up-to-date` | the installed copy and its source both hold what was installed |
| `stale` | the source changed since: `update` copies it again |
| `changed-here` | the installed copy was edited: never overwritten by `update` |
| `source-gone` | the source folder is no longer there (or a link now points nowhere) |
| `missing` | the installed copy (or link) is no longer there |
| `linked` | a link: it always shows its source, so it is never stale |

`plan_update(...)` is an install plan (core/install.py) that replaces each stale copy with its
source, checked and applied (and undone) through the same path as an install.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from skillprism.core.install_files import TreeError, hash_tree, list_tree
from skillprism.paths import user_state_dir

if TYPE_CHECKING:
    from skillprism.core.install import InstallPlan

MANIFEST_NAME = "installed.json"
STATES = ("up-to-date", "stale", "changed-here", "source-gone", "missing", "linked")


def _manifest_path() -> str:
    return str(user_state_dir() / MANIFEST_NAME)


def read_manifest() -> dict[str, dict[str, Any]]:
    """target folder -> its record ({} when nothing was installed or the file is unreadable)."""
    try:
        with open(_manifest_path(), encoding="utf-8") as fh:
            data = json.load(fh)
    except (OSError, ValueError):
        return {}
    records = data.get("installs", []) if isinstance(data, dict) else []
    return {
        str(r["target"]): r
        for r in records
        if isinstance(r, dict) and isinstance(r.get("target"), str)
    }


def _write_manifest(records: Mapping[str, Mapping[str, Any]]) -> None:
    from skillprism.core.write_back import replace_atomically

    path = _manifest_path()
    os.makedirs(os.path.dirname(path), exist_ok=True)
    data = {"version": 1, "installs": [records[k] for k in sorted(records)]}
    replace_atomically(path, (json.dumps(data, indent=1) + "\n").encode("utf-8"), 0o600)


def record(items: Iterable[Mapping[str, Any]]) -> None:
    """Keep what an apply installed (core/install.py's journal items)."""
    records = read_manifest()
    now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    for item in items:
        target = str(item["target"])
        old = records.get(target, {})
        profiles = list(dict.fromkeys([*old.get("profiles", []), *item.get("profiles", [])]))
        records[target] = {
            "target": target,
            "source": item["source"],
            "mode": item["mode"],
            "scope": item.get("scope", ""),
            "profiles": profiles,
            "files": {} if item["mode"] == "link" else dict(item.get("hashes", {})),
            "date": now,
        }
    _write_manifest(records)


def restore(before: Mapping[str, Any]) -> None:
    """Put the records of these targets back as they were (None: no record) — an undo."""
    records = read_manifest()
    for target, old in before.items():
        if old is None:
            records.pop(target, None)
        else:
            records[target] = dict(old)
    _write_manifest(records)


@dataclass(frozen=True)
class Status:
    """One installed copy and how it stands against its source."""

    target: str
    source: str
    mode: str
    scope: str
    profiles: tuple[str, ...]
    date: str
    state: str
    detail: str = ""
    changed: tuple[str, ...] = ()  # files that differ (installed copy or source, per state)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _hashes(folder: str) -> dict[str, str] | str:
    try:
        return hash_tree(list_tree(folder))
    except TreeError as err:
        return str(err)


def _diff(a: Mapping[str, str], b: Mapping[str, str]) -> tuple[str, ...]:
    return tuple(sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k)))


def status_of(rec: Mapping[str, Any]) -> Status:
    target, source, mode = str(rec["target"]), str(rec["source"]), str(rec.get("mode", "copy"))

    def make(state: str, detail: str = "", changed: Sequence[str] = ()) -> Status:
        return Status(
            target,
            source,
            mode,
            str(rec.get("scope", "")),
            tuple(rec.get("profiles", [])),
            str(rec.get("date", "")),
            state,
            detail,
            tuple(changed),
        )

    if mode == "link":
        if not os.path.islink(target):
            return make("missing", "the link is no longer there")
        if os.readlink(target) != source:
            return make("changed-here", f"the link now points to {os.readlink(target)}")
        if not os.path.isdir(source):
            return make("source-gone", "the link points to a folder that is gone")
        return make("linked", "a link shows its source as it is")
    if not os.path.isdir(target) or os.path.islink(target):
        return make("missing", "the installed copy is no longer there")
    installed = rec.get("files", {})
    here = _hashes(target)
    if isinstance(here, str):
        return make("changed-here", here)
    edited = _diff(installed, here)
    if edited:
        return make("changed-here", "the installed copy was edited", edited)
    if not os.path.isdir(source):
        return make("source-gone", "the source folder is gone")
    there = _hashes(source)
    if isinstance(there, str):
        return make("source-gone", there)
    changed = _diff(installed, there)
    if changed:
        return make("stale", "the source changed since it was installed", changed)
    return make("up-to-date")


def stale(profiles: Sequence[str] = ()) -> list[Status]:
    """Every installed copy (for any of `profiles`, when given) and how it stands."""
    wanted = set(profiles)
    out = []
    for _target, rec in sorted(read_manifest().items()):
        if wanted and not wanted & set(rec.get("profiles", [])):
            continue
        out.append(status_of(rec))
    return out


def plan_update(statuses: Sequence[Status], *, project: str = "", home: str = "") -> InstallPlan:
    """An install plan (core/install.py) replacing every `stale` copy of `statuses` with its
    source; the others are not touched."""
    from skillprism.core.install import COPY, Action, InstallPlan, target_state

    actions = []
    for st in statuses:
        if st.state != "stale":
            continue
        try:
            tree = list_tree(st.source)
        except TreeError as err:
            actions.append(
                Action(
                    st.source,
                    st.target,
                    COPY,
                    st.profiles,
                    os.path.basename(st.target),
                    st.scope,
                    blocked=str(err),
                )
            )
            continue
        actions.append(
            Action(
                source=st.source,
                target=st.target,
                mode=COPY,
                profiles=st.profiles,
                name=os.path.basename(st.target),
                scope=st.scope,
                replace=True,
                source_state=tree.fingerprint(),
                target_state=target_state(st.target),
                files=tree.files,
                size=tree.size,
                left_out=tree.left_out,
            )
        )
    return InstallPlan(
        source="",
        scope="",
        mode=COPY,
        project=project,
        home=home,
        actions=tuple(actions),
        title="update",
    )
