"""The one record every finding is reported as, and its severities."""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum


class Severity(StrEnum):
    """How bad a finding is; ordered error > warning > info."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    @property
    def rank(self) -> int:
        return {"error": 3, "warning": 2, "info": 1}[self.value]


_SEVERITY_OF = {s.value: s for s in Severity}


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """One finding: what (code, message), where (path, 1-based line/column), what the runtime does
    about it (effect) and how to fix it (hint). `line`/`column` are 0 when the finding has no position."""

    code: str
    severity: Severity
    message: str
    path: str = ""
    line: int = 0
    column: int = 0
    effect: str = ""
    hint: str = ""
    evidence: str = ""  # the offending text, invisible characters made visible (security)

    def __reduce__(self) -> tuple[type[Diagnostic], tuple[object, ...]]:
        # Rebuilt from its fields in one call: the window unpickles thousands of these, and a
        # slotted dataclass's default state restore looks its fields up for every object.
        return (
            Diagnostic,
            (
                self.code,
                self.severity,
                self.message,
                self.path,
                self.line,
                self.column,
                self.effect,
                self.hint,
                self.evidence,
            ),
        )

    @classmethod
    def restored(
        cls,
        code: str,
        severity: str,
        message: str,
        path: str,
        line: int,
        column: int,
        effect: str,
        hint: str,
        evidence: str,
    ) -> Diagnostic:
        """A finding made before, from its fields with the severity's value (as a front end
        keeps it in plain tuples); a new finding is built by the policy alone."""
        return cls(
            code, _SEVERITY_OF[severity], message, path, line, column, effect, hint, evidence
        )

    def at(self, path: str) -> Diagnostic:
        return replace(self, path=path)

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {
            "code": self.code,
            "severity": self.severity.value,
            "message": self.message,
            "line": self.line,
            "column": self.column,
            "effect": self.effect,
            "hint": self.hint,
        }
        if self.evidence:
            out["evidence"] = self.evidence
        return out


def worst(diagnostics: object) -> Severity | None:
    """The highest severity among `diagnostics`, or None for none."""
    best: Severity | None = None
    for d in diagnostics:  # type: ignore[attr-defined]
        if best is None or d.severity.rank > best.rank:
            best = d.severity
    return best
