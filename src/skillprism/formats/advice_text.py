"""The budget advisor's plans (core/advisor.py) as text, for `skillprism advise` and the window:
the listing now, then either the descriptions to shorten (by how many characters each) or the
skills to turn off, least loss first. No Qt."""

from __future__ import annotations

import os

from skillprism.core.advisor import Plan


def render_advice(plan: Plan, window: int, *, relative: bool = True) -> str:
    """The plan as lines of text; paths relative to the current folder when `relative`."""

    def where(path: str) -> str:
        return os.path.relpath(path) if relative else path

    now = ", ".join(f"{n} {o}" for o, n in sorted(plan.outcomes.items()))
    out = [f"{plan.profile} at a {window:,}-token context window: {plan.listed} listed ({now})"]
    if plan.already_full:
        out.append("every listed skill keeps its full description: nothing to do")
        return "\n".join(out) + "\n"
    if plan.shorten is None:
        out.append("shorten: not enough (even descriptions of 40 characters do not all fit)")
    else:
        total = sum(s.by for s in plan.shorten)
        out.append(
            f"either shorten {len(plan.shorten)} description(s) to at most {plan.cap:,} "
            f"characters ({total:,} characters in all):"
        )
        out.extend(
            f"  {s.name}: -{s.by:,} ({s.chars:,} -> {len(s.keep):,})  {where(s.path)}"
            for s in plan.shorten
        )
    disable = plan.disable or ()
    out.append(f"or disable {len(disable)} skill(s), least used first:")
    out.extend(f"  {d.name}  {where(d.path)}" for d in disable)
    if not plan.verified:
        out.append("warning: the runtime's model did not confirm this plan")
    return "\n".join(out) + "\n"
