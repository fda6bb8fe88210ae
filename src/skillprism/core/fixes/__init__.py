"""Quick fixes: for a finding with a mechanical remedy, the edits that remove it.

A `Fix` names the code it removes, the file and line, the edits (core/write_back.py's
`TextEdit`s, the smallest spans that do it), a one-line title, its confidence (`safe`: the
meaning cannot change, only how it is written; `review`: it can, e.g. a shorter description) and
the runtimes it helps. Those are not declared by the fix: `offer_fixes` applies each candidate to
the file's text in memory and checks it again under every profile it is given, and a fix helps
exactly the profiles that report the finding before and fewer of them after. A candidate that
helps none of the chosen profiles is not offered.

One module per family finds the candidates (yaml_values, names, fields, frontmatter,
descriptions, links); nothing here writes a file (the Workspace applies fixes through the
writer)."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from skillprism.core.diagnostics import Diagnostic
from skillprism.core.document import SkillDocument, parse_document
from skillprism.core.fixes.frontmatter_lines import Frontmatter, locate
from skillprism.core.policy import Policy
from skillprism.core.validate import evaluate
from skillprism.core.vocabulary import FIXABLE_CODES
from skillprism.core.write_back import Snapshot, TextEdit, WriteError

CONFIDENCES = ("safe", "review")
FIXABLE = FIXABLE_CODES  # (core/vocabulary.py: the window names them without this package)


@dataclass(frozen=True)
class Candidate:
    """A family's proposal, before it is checked: the code it should remove, where, how."""

    code: str
    line: int
    title: str
    confidence: str
    edits: tuple[TextEdit, ...]
    rename_to: str = ""  # a new name for the skill's folder (asked for explicitly)


@dataclass(frozen=True)
class Fix:
    """A checked fix (see the module doc). `snapshot` is the file as read when it was offered:
    applying it is refused if the file changed since."""

    code: str
    path: str
    line: int
    title: str
    confidence: str
    edits: tuple[TextEdit, ...]
    helps: tuple[str, ...]
    snapshot: Snapshot = field(repr=False, compare=False)
    rename: tuple[str, str] | None = None  # the skill's folder, and its new path

    def new_bytes(self) -> bytes:
        return self.snapshot.apply(self.edits)


@dataclass
class FixContext:
    """What a family looks at: the file as read and as split, its folder's name, the chosen
    profiles' findings about it (per profile name) and their policies."""

    path: str
    dir_name: str
    snapshot: Snapshot
    doc: SkillDocument
    frontmatter: Frontmatter | None
    reported: dict[str, list[Diagnostic]]
    policies: Sequence[Policy]

    def codes(self) -> set[str]:
        return {d.code for found in self.reported.values() for d in found}

    def with_code(self, code: str) -> list[tuple[Policy, Diagnostic]]:
        """Every chosen profile's finding of `code`, with the policy that reported it."""
        return [
            (p, d) for p in self.policies for d in self.reported.get(_name(p), ()) if d.code == code
        ]


def _name(policy: Policy) -> str:
    return policy.profile.name if policy.profile is not None else ""


def findings(doc: SkillDocument, policy: Policy, dir_name: str) -> list[Diagnostic]:
    """What `policy` reports about the skill file `doc` on its own (its content: parsing,
    frontmatter, body, links; not discovery, the budget or the security pass)."""
    if policy.profile is None:
        return []
    ev = evaluate(doc, policy.profile, dir_name)
    out = []
    for f in ev.findings:
        d = policy.diagnostic(f, doc.path)
        if d is not None:
            out.append(d)
    return out


Family = Callable[[FixContext], Iterable[Candidate]]


def _families() -> tuple[Family, ...]:
    from skillprism.core.fixes import descriptions, fields, frontmatter, links, names, yaml_values

    return (
        yaml_values.candidates,
        frontmatter.candidates,
        names.candidates,
        fields.candidates,
        descriptions.candidates,
        links.candidates,
    )


def offer_fixes(
    path: str,
    policies: Sequence[Policy],
    others: Sequence[Policy] = (),
    *,
    codes: Iterable[str] | None = None,
) -> list[Fix]:
    """The fixes for the skill file at `path` under the chosen `policies` (only those removing
    one of `codes`, when given). `others`: further profiles the fixes are checked under, for the
    runtimes they help beyond the chosen ones. A file that cannot be read as text offers none."""
    try:
        snap = Snapshot.read(path)
    except WriteError:
        return []
    dir_name = os.path.basename(os.path.dirname(snap.path))
    doc = parse_document(snap.path, snap.data)
    if doc.text is None or doc.text != snap.text:
        return []  # not UTF-8 text as the runtimes read it: nothing to edit safely
    reported = {_name(p): findings(doc, p, dir_name) for p in policies}
    wanted = set(codes) if codes is not None else None
    ctx = FixContext(snap.path, dir_name, snap, doc, locate(doc), reported, policies)
    present = ctx.codes()
    if wanted is not None:
        present &= wanted
    if not present:
        return []
    checked: list[Policy] = list(policies)
    seen = {_name(p) for p in checked}
    checked.extend(p for p in others if _name(p) not in seen)
    before: dict[str, Counter[str]] = {
        name: Counter(d.code for d in found) for name, found in reported.items()
    }
    out: list[Fix] = []
    for family in _families():
        for cand in family(ctx):
            if cand.code not in present or not (cand.edits or cand.rename_to):
                continue
            helps = _helps(cand, ctx, checked, before)
            if not any(_name(p) in helps for p in policies):
                continue
            out.append(
                Fix(
                    cand.code,
                    snap.path,
                    cand.line,
                    cand.title,
                    cand.confidence,
                    cand.edits,
                    helps,
                    snap,
                    _rename(snap.path, cand.rename_to),
                )
            )
    return out


def _rename(path: str, new_name: str) -> tuple[str, str] | None:
    if not new_name:
        return None
    folder = os.path.dirname(path)
    return folder, os.path.join(os.path.dirname(folder), new_name)


def _helps(
    cand: Candidate, ctx: FixContext, checked: Sequence[Policy], before: dict[str, Counter[str]]
) -> tuple[str, ...]:
    """The profiles reporting `cand.code` about the file now and fewer times once it is applied."""
    try:
        new = ctx.snapshot.apply(cand.edits)
    except WriteError:
        return ()
    new_doc = parse_document(ctx.snapshot.path, new)
    new_dir = cand.rename_to or ctx.dir_name  # the folder as renamed: only its name is read
    out = []
    for policy in checked:
        name = _name(policy)
        if name not in before:
            before[name] = Counter(d.code for d in findings(ctx.doc, policy, ctx.dir_name))
        had = before[name][cand.code]
        if not had:
            continue
        now = sum(1 for d in findings(new_doc, policy, new_dir) if d.code == cand.code)
        if now < had:
            out.append(name)
    return tuple(out)


def non_overlapping(fixes: Iterable[Fix]) -> tuple[list[Fix], list[Fix]]:
    """`fixes` split into those that can be applied together (per file, in order, the first of
    two whose edits overlap wins; identical edits are shared) and those left out."""
    taken: dict[str, list[TextEdit]] = {}
    renamed: dict[str, tuple[str, str]] = {}
    keep, skipped = [], []
    for fix in fixes:
        have = taken.setdefault(fix.path, [])
        if fix.rename is not None and renamed.get(fix.path, fix.rename) != fix.rename:
            skipped.append(fix)
            continue
        if any(
            (e != h and e.start < h.end and h.start < e.end)
            or (e != h and e.start == h.start == e.end == h.end)
            for e in fix.edits
            for h in have
        ):
            skipped.append(fix)
            continue
        have.extend(e for e in fix.edits if e not in have)
        if fix.rename is not None:
            renamed[fix.path] = fix.rename
        keep.append(fix)
    return keep, skipped


def combined_edits(fixes: Iterable[Fix]) -> list[TextEdit]:
    """The distinct edits of `fixes` (of one file, none overlapping), in order."""
    out: list[TextEdit] = []
    for fix in fixes:
        out.extend(e for e in fix.edits if e not in out)
    return sorted(out, key=lambda e: (e.start, e.end))


__all__ = [
    "CONFIDENCES",
    "Candidate",
    "Fix",
    "FixContext",
    "combined_edits",
    "findings",
    "non_overlapping",
    "offer_fixes",
]
