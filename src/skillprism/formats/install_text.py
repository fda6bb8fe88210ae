"""Text for `skillprism install`, `update` and `installed`: the plan (what goes where, per
runtime, with every clash side by side) and the status of installed copies. No Qt."""

from __future__ import annotations

from collections.abc import Sequence

from skillprism.core.install import Clash, InstallPlan, Placed
from skillprism.core.install_state import Status


def _size(n: int) -> str:
    return f"{n / (1024 * 1024):.1f} MiB" if n >= 1024 * 1024 else f"{n / 1024:.0f} KiB"


def _clash_lines(clash: Clash, installed: bool) -> list[str]:
    where = {
        "target": "already at the target",
        "root": "same name elsewhere",
        "install": "same folder in this install",
    }.get(clash.where, clash.where)
    if clash.where == "target":
        # both copies have the same path: which one is there after depends on the write alone
        picks = "uses the new copy" if installed else "keeps using the skill already there"
    elif not clash.picks:
        picks = "keeps both (the model sees both)"
    elif clash.picks == clash.new_path:
        picks = "uses the new copy"
    else:
        picks = f"uses {clash.picks}"
    lines = [
        f"      clash ({where}): {clash.name}",
        f"        there: {clash.path} [{clash.scope}{', ' + clash.status_after if clash.status_after else ''}]",
        f"               {clash.description or '(no description)'}",
        f"        new:   {clash.new_path}",
        f"               {clash.new_description or '(no description)'}",
        f"        after the install the runtime {picks}",
    ]
    if clash.note:
        lines.append(f"        note: {clash.note}")
    return lines


def render_plan(plan: InstallPlan, *, applied: bool = False) -> str:
    """The plan as text: per runtime each skill, its target and verdict, its clashes; then the
    writes (one per folder) and what is not done."""
    lines = []
    if plan.source:
        lines.append(f"install {plan.source} ({plan.scope}, {plan.mode})")
    by_profile: dict[str, list[Placed]] = {}
    for placed in plan.placed:
        by_profile.setdefault(placed.title, []).append(placed)
    for title, rows in by_profile.items():
        ok = sum(1 for r in rows if r.installed)
        lines.append(f"{title}: {ok} of {len(rows)} skill(s) installed")
        for r in rows:
            mark = "+" if r.installed else "!"
            lines.append(f"  {mark} {r.name or r.target}  ->  {r.target}")
            lines.append(f"      {r.status}{': ' + r.reason if r.reason else ''}")
            for note in r.notes:
                lines.append(f"      note: {note}")
            for clash in r.clashes:
                lines.extend(_clash_lines(clash, r.installed))
    for _profile, message in plan.homeless:
        lines.append(f"! {message}")
    verb = "written" if applied else "to write"
    lines.append(f"{len(plan.todo)} folder(s) {verb}, {len(plan.blocked)} not:")
    for a in plan.actions:
        what = "link to" if a.mode == "link" else f"copy of ({a.files} files, {_size(a.size)})"
        head = "replace" if a.replace else "new"
        if a.done:
            lines.append(f"  {head} {a.target}: {what} {a.source} [{', '.join(a.profiles)}]")
        else:
            lines.append(f"  not done {a.target}: {a.blocked}")
        for rel, why in a.left_out:
            lines.append(f"      left out {rel}: {why}")
    return "\n".join(lines) + "\n"


def render_status(statuses: Sequence[Status]) -> str:
    """Installed copies, one line each with its state, and what changed."""
    if not statuses:
        return "nothing installed by Skill Prism\n"
    width = max(len(s.state) for s in statuses)
    lines = []
    for s in statuses:
        lines.append(f"{s.state:<{width}}  {s.target}  <- {s.source} ({s.mode}, {s.date})")
        if s.detail and s.state not in ("up-to-date",):
            shown = ", ".join(s.changed[:5]) + (" ..." if len(s.changed) > 5 else "")
            lines.append(f"{'':<{width}}    {s.detail}{': ' + shown if shown else ''}")
    return "\n".join(lines) + "\n"
