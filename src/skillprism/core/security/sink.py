"""Collecting one skill's findings: caps per rule and file, and no duplicates."""

from __future__ import annotations

import os

from skillprism.core.diagnostics import Severity
from skillprism.core.security.model import RiskFinding, SecurityLimits, severity_of


class Sink:
    """Findings of one skill. A finding repeating (rule, file, line) is dropped, whichever view of
    the text found it; past `max_findings_per_rule` for one rule and file the rest are counted and
    summed up in one info finding at the end."""

    def __init__(self, skill_dir: str, limits: SecurityLimits) -> None:
        self.skill_dir = skill_dir
        self.limits = limits
        self.findings: list[RiskFinding] = []
        self._seen: set[tuple[str, str, int]] = set()
        self._counts: dict[tuple[str, str], int] = {}
        self._over: dict[tuple[str, str], int] = {}

    def path_of(self, rel_path: str) -> str:
        if not rel_path:
            return self.skill_dir
        return os.path.join(self.skill_dir, *rel_path.split("/"))

    def add(
        self,
        rule: str,
        rel_path: str,
        line: int,
        column: int,
        message: str,
        effect: str,
        hint: str,
        evidence: str = "",
        severity: Severity | None = None,
    ) -> None:
        key = (rule, rel_path, line)
        if key in self._seen and (line or rule == "security-scan-limited"):
            if rule == "security-scan-limited":
                self._merge_limited(rel_path, message, severity)
            return
        self._seen.add(key)
        count_key = (rule, rel_path)
        n = self._counts.get(count_key, 0)
        if n >= self.limits.max_findings_per_rule:
            self._over[count_key] = self._over.get(count_key, 0) + 1
            return
        self._counts[count_key] = n + 1
        self.findings.append(
            RiskFinding(
                rule,
                severity or severity_of(rule),
                self.path_of(rel_path),
                rel_path,
                line,
                column,
                message,
                effect,
                hint,
                evidence,
            )
        )

    def _merge_limited(self, rel_path: str, message: str, severity: Severity | None) -> None:
        """One 'not fully scanned' finding per file: a second reason joins the first."""
        for i, f in enumerate(self.findings):
            if f.rule == "security-scan-limited" and f.rel_path == rel_path and not f.line:
                if message in f.message:
                    return
                worse = (
                    severity if severity is not None and severity.rank > f.severity.rank else None
                )
                extra = message.removeprefix("not fully scanned: ")
                self.findings[i] = RiskFinding(
                    f.rule,
                    worse or f.severity,
                    f.path,
                    f.rel_path,
                    0,
                    0,
                    f"{f.message}; {extra}",
                    f.effect if worse is None else "risks in the part not scanned are not reported",
                    f.hint,
                    f.evidence,
                )
                return

    def full(self, rule: str, rel_path: str) -> bool:
        """Whether `rule` has as many findings in the file as it may list (more are only
        counted): a scan may skip looking for more."""
        return self._counts.get((rule, rel_path), 0) >= self.limits.max_findings_per_rule

    def has(self, rule: str, rel_path: str, line: int) -> bool:
        return (rule, rel_path, line) in self._seen

    def limited(self, rel_path: str, why: str, severity: Severity = Severity.WARNING) -> None:
        """A bound cut the scan short. A warning when content was left unread (`why` names it),
        so a gate on warnings fails; info when only an analysis of structure was left out and
        the text rules read everything."""
        self.add(
            "security-scan-limited",
            rel_path,
            0,
            0,
            f"not fully scanned: {why}",
            "risks in the part not scanned are not reported"
            if severity is not Severity.INFO
            else "the text rules read all of it; only a deeper analysis was left out",
            "review the rest by hand, or keep the skill's files small and few",
            severity=severity,
        )

    def finish(self) -> list[RiskFinding]:
        for (rule, rel_path), extra in sorted(self._over.items()):
            self.findings.append(
                RiskFinding(
                    "security-scan-limited",
                    Severity.INFO,
                    self.path_of(rel_path),
                    rel_path,
                    0,
                    0,
                    f"{extra:,} more '{rule}' findings in this file are not listed",
                    "the first ones listed show the kind of risk",
                    "fix the listed ones and scan again",
                )
            )
        return self.findings
