"""The labelled review of the security pass on real collections (tests/data/security-review.tsv).

Scans each collection the way `check` does (the agentskills profile, security on, no cache) and
lists every security finding at warning or error. The review file labels each one: `true` (a
risk a reviewer should look at or block), or `false` (a false alarm), with a one-line reason.
tests/test_security_review.py holds the figures (no false alarm at error level; at least 90 % of
the warnings true) and, where the collections are on this machine, that the review covers every
finding the pass makes now.

    python bench/security_review.py                 # print the findings the review lacks
    python bench/security_review.py --update        # add them (label '?'), drop stale rows
    python bench/security_review.py --sets DIR      # collections under DIR (default below)

The collections are laid out by ../shared/realsets/export (sets.tsv pins them); the review names
paths inside them and quotes short evidence, never their files.
"""

from __future__ import annotations

import argparse
import csv
import os
import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
REVIEW = REPO / "tests" / "data" / "security-review.tsv"
DEFAULT_SETS = Path(os.environ.get("SKILLPRISM_REALSETS", "/work/realsets"))
COLLECTIONS = (
    "anthropics-skills",
    "claude-plugins-official",
    "composio-awesome",
    "openai-skills",
    "superpowers",
    "vercel-agent-skills",
)
FIELDS = ("collection", "path", "line", "rule", "severity", "label", "reason", "evidence")


@dataclass(frozen=True)
class Row:
    collection: str
    path: str
    line: int
    rule: str
    severity: str
    label: str = "?"
    reason: str = ""
    evidence: str = ""

    @property
    def key(self) -> tuple[str, str, int, str]:
        return (self.collection, self.path, self.line, self.rule)


def read_review(path: Path = REVIEW) -> list[Row]:
    if not path.exists():
        return []
    with path.open(encoding="utf-8", newline="") as fh:
        rows = [r for r in csv.reader(fh, delimiter="\t") if r and not r[0].startswith("#")]
    out = []
    for r in rows[1:] if rows and rows[0][0] == "collection" else rows:
        c, p, line, rule, sev, label, reason, ev = (r + [""] * 8)[:8]
        out.append(Row(c, p, int(line), rule, sev, label, reason, ev))
    return out


def write_review(rows: list[Row], path: Path = REVIEW) -> None:
    rows = sorted(rows, key=lambda r: r.key)
    with path.open("w", encoding="utf-8", newline="") as fh:
        fh.write(
            "# The security pass's findings at warning and error on six public collections, "
            "each labelled by a\n# reviewer: true (a risk to look at or block) or false (a "
            "false alarm), with the reason.\n# Made and checked by bench/security_review.py "
            "and tests/test_security_review.py.\n"
        )
        w = csv.writer(fh, delimiter="\t", lineterminator="\n")
        w.writerow(FIELDS)
        for r in rows:
            w.writerow(
                [r.collection, r.path, r.line, r.rule, r.severity, r.label, r.reason, r.evidence]
            )


def scan(sets: Path, names: tuple[str, ...] = COLLECTIONS) -> list[Row]:
    """Every security finding at warning or error of the collections, as `check` reports them."""
    from skillprism.app.workspace import Workspace
    from skillprism.core.codes import CODES

    out: dict[tuple[str, str, int, str], Row] = {}
    for name in names:
        root = sets / name
        if not root.is_dir():
            continue
        ws = Workspace(str(root), [str(root)], ["agentskills"], security=True, cache=False)
        for cat in ws.catalogs():
            diags = [d for s in cat.skills for d in s.diagnostics] + list(cat.diagnostics)
            for d in diags:
                info = CODES[d.code]
                if info.category != "security" or d.severity.value not in ("error", "warning"):
                    continue
                rel = os.path.relpath(d.path, root).replace(os.sep, "/")
                ev = " ".join((d.evidence or d.message).split())[:120].replace("\t", " ")
                row = Row(name, rel, d.line, info.rule, d.severity.value, evidence=ev)
                out.setdefault(row.key, row)
    return sorted(out.values(), key=lambda r: r.key)


def figures(rows: list[Row]) -> dict[str, tuple[int, int, int]]:
    """Per severity: (true, false, unlabelled)."""
    out = {}
    for sev in ("error", "warning"):
        sub = [r for r in rows if r.severity == sev]
        out[sev] = (
            sum(1 for r in sub if r.label == "true"),
            sum(1 for r in sub if r.label == "false"),
            sum(1 for r in sub if r.label not in ("true", "false")),
        )
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", type=Path, default=DEFAULT_SETS)
    parser.add_argument("--update", action="store_true")
    args = parser.parse_args(argv)
    found = scan(args.sets)
    known = {r.key: r for r in read_review()}
    merged = []
    for row in found:
        old = known.get(row.key)
        if old is not None and old.severity == row.severity:
            merged.append(Row(*row.key, row.severity, old.label, old.reason, row.evidence))
        else:
            merged.append(row)
    new = [r for r in merged if r.label not in ("true", "false")]
    stale = set(known) - {r.key for r in found}
    for r in new:
        print(f"? {r.severity:7} {r.collection}/{r.path}:{r.line} {r.rule} | {r.evidence}")
    print(f"{len(found)} findings, {len(new)} unlabelled, {len(stale)} stale rows")
    for sev, (t, f, u) in figures(merged).items():
        total = t + f
        share = f"{t / total:.1%} true" if total else "-"
        print(f"  {sev:7}: {t} true, {f} false, {u} unlabelled ({share})")
    if args.update:
        write_review(merged)
        print(f"wrote {REVIEW}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
