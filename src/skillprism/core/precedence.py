"""Which copy of a name the runtime keeps: a profile's tie rule over roots and folders, copies
that reach one real folder, and the notes on a clash whose winner depends on order."""

from __future__ import annotations

import logging
import os
from typing import TYPE_CHECKING

from skillprism.core.codes import RULES
from skillprism.core.diagnostics import Diagnostic
from skillprism.core.document import Finding
from skillprism.core.policy import Policy
from skillprism.core.profiles import Profile, clash_key

if TYPE_CHECKING:  # the security pass is imported when it first runs: `check` starts faster
    pass

log = logging.getLogger(__name__)


def in_root_parts(draft: dict) -> tuple[str, ...]:
    rel = os.path.relpath(os.path.dirname(draft["path"]), draft["root"].path)
    return () if rel == "." else tuple(rel.split(os.sep))


def apply_precedence(profile: Profile, drafts: list[dict], policy: Policy) -> None:
    loadable = [d for d in drafts if d["status"] not in ("not-discovered", "skipped") and d["name"]]
    if profile.dedup_real_path:
        first_by_real: dict[str, dict] = {}
        for d in loadable:
            first = first_by_real.setdefault(d["real_path"], d)
            if first is not d:
                d["shadowed_by"] = first["path"]
                d["reason"] = f"same file as {first['path']}; it loads once"
                if profile.in_root_order == "file-system" and d["root"].path == first["root"].path:
                    # two paths in one folder: the one the file system gives first is kept
                    d["reason"] += (
                        f"; which path is kept varies (see {RULES['clash-winner-varies'].code})"
                    )
                    _note_varying_winner(profile, policy, d["qualified_name"], first, [first, d])
                _add(
                    d,
                    policy.report(
                        "same-real-path",
                        d["reason"],
                        d["path"],
                        effect=f"{profile.title} loads the file once",
                        hint="no action needed",
                    ),
                )
        loadable = [d for d in loadable if not d["shadowed_by"]]
    groups: dict[str, list[dict]] = {}
    for d in loadable:
        groups.setdefault(clash_key(profile, d["qualified_name"]), []).append(d)
    if profile.refused_take_slot:
        _refused_take_slots(profile, drafts, groups, policy)
    for group in groups.values():
        if len(group) < 2:
            continue
        name = group[0]["qualified_name"]
        if profile.tie_rule == "keep-both":
            for d in group:
                others = _some_others(group, d)
                _add(
                    d,
                    policy.report(
                        "kept-both",
                        f"{profile.title} keeps every skill named '{name}'; also at {others}",
                        d["path"],
                        effect="the model sees several entries with the same name",
                        hint="give each skill a distinct name",
                    ),
                )
            continue
        winner = group[0]
        same_root = [d for d in group if d["root"].rank == winner["root"].rank]
        if profile.tie_rule == "last-wins":
            # Inside the winning root, too, the copy discovered last is the one kept.
            winner = same_root[-1]
        contenders = _varying_contenders(profile, group, same_root)
        contending = {id(c) for c in contenders}
        if contenders:
            _note_varying_winner(profile, policy, name, winner, contenders)
        for d in group:
            if d is winner:
                continue
            # The runtime's own wording explains its scopes; for folders named on the command line
            # the order given decides, so say that instead.
            template = profile.shadow_warning
            if not template or winner["root"].explicit:
                template = "skill '{name}' at {loser} is shadowed by {winner}, which ranks higher"
            text = template.format(name=name, winner=winner["path"], loser=d["path"])
            d["shadowed_by"] = winner["path"]
            d["reason"] = f"shadowed by {winner['path']}"
            if id(d) in contending:
                d["reason"] = (
                    f"probably shadowed by {winner['path']}; which copy wins varies (see "
                    f"{RULES['clash-winner-varies'].code})"
                )
            _add(
                d,
                policy.report(
                    "shadowed",
                    text,
                    d["path"],
                    effect=f"{profile.title} uses the copy at {winner['path']}",
                    hint="rename one of the skills, or remove the copy you do not want",
                ),
            )


def _refused_take_slots(
    profile: Profile, drafts: list[dict], groups: dict[str, list[dict]], policy: Policy
) -> None:
    """`[precedence] refused_take_slot`: a skipped copy with a name ranked before the loadable
    copies of that name keeps the name, so they are shadowed by it (and leave `groups`)."""
    first_refused: dict[str, dict] = {}
    for d in drafts:
        if d["status"] == "skipped" and d["name"]:
            first_refused.setdefault(clash_key(profile, d["qualified_name"]), d)
    position = {id(d): i for i, d in enumerate(drafts)}
    for key, refused in first_refused.items():
        group = groups.get(key)
        if not group:
            continue
        ahead = position[id(refused)]
        kept = []
        for d in group:
            if position[id(d)] < ahead:
                kept.append(d)
                continue
            d["shadowed_by"] = refused["path"]
            d["reason"] = f"shadowed by {refused['path']}, which the runtime refuses"
            _add(
                d,
                policy.report(
                    "shadowed",
                    f"skill '{d['qualified_name']}' at {d['path']} is shadowed by "
                    f"{refused['path']}: {profile.title} keeps that copy for the name and then "
                    "refuses it",
                    d["path"],
                    effect=f"{profile.title} loads neither copy",
                    hint="fix or remove the refused copy, or rename one of the skills",
                ),
            )
        groups[key] = kept


def _varying_contenders(profile: Profile, group: list[dict], same_root: list[dict]) -> list[dict]:
    """The copies among which the runtime's pick is not certain: every copy when its clash order
    varies from run to run (`[precedence] winner = "varies"`), the copies in the winning root
    when it lists a root in file-system order (`in_root_order = "file-system"`); [] otherwise."""
    if profile.winner == "varies":
        return group
    if profile.in_root_order == "file-system":
        # copies in the very folder of the winner: their order is the file system's
        winner_root = same_root[-1 if profile.tie_rule == "last-wins" else 0]["root"].path
        in_folder = [d for d in same_root if d["root"].path == winner_root]
        if len(in_folder) > 1:
            return in_folder
    return []


OTHERS_NAMED = 3  # copies a clash-winner-varies message names besides its own


def _note_varying_winner(
    profile: Profile, policy: Policy, name: str, winner: dict, contenders: list[dict]
) -> None:
    why = (
        "in an order that varies from run to run"
        if profile.winner == "varies"
        else "in file-system order inside one root, which varies between file systems"
    )
    for d in contenders:
        others = _some_others(contenders, d)
        guess = "this copy" if d is winner else winner["path"]
        _add(
            d,
            policy.diagnostic(
                Finding(
                    "clash-winner-varies",
                    f"{len(contenders)} skills are named '{name}' and {profile.title} picks one "
                    f"{why}: Skill Prism shows {guess} as the winner, but any of them may load "
                    f"(also {others})",
                    hint="give each skill a distinct name",
                ),
                d["path"],
            ),
        )


def _some_others(group: list[dict], d: dict) -> str:
    """The paths of a few of `group`'s copies other than `d`, then how many more: a message
    naming thousands of copies (a hostile tree, or a link loop the runtime goes round) would
    cost memory for each copy times all of them."""
    named = [o["path"] for o in group[: OTHERS_NAMED + 1] if o is not d][:OTHERS_NAMED]
    more = len(group) - 1 - len(named)
    return ", ".join(named) + (f" and {more:,} more" if more > 0 else "")


def _add(draft: dict, diagnostic: Diagnostic | None) -> None:
    if diagnostic is not None:
        draft["diagnostics"].append(diagnostic)
