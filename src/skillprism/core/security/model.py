"""The records of the security engine: what one risk finding says, and the bounds of a scan."""

from __future__ import annotations

from dataclasses import dataclass

from skillprism.core.codes import RULES
from skillprism.core.diagnostics import Severity


@dataclass(frozen=True, slots=True)
class SecurityLimits:
    """Bounds that keep one skill's scan cheap whatever its files hold. A bound that leaves
    content unread is reported as a warning naming what was not read (so `--fail-on warning`
    fails); one that only leaves out a deeper analysis of text the rules did read is info."""

    max_files: int = 5000  # files looked at per skill (sorted walk order)
    max_depth: int = 16  # folder levels below the skill folder
    max_file_bytes: int = 8 * 1024 * 1024  # a text file up to this size is analysed whole
    max_stream_bytes: int = 64 * 1024 * 1024  # larger ones: the text rules read this much
    max_total_bytes: int = 256 * 1024 * 1024  # bytes read per skill; later files only sniffed
    sniff_bytes: int = 64  # bytes read from a file to tell its type by magic
    max_python_bytes: int = 1024 * 1024  # Python's syntax tree is analysed up to this size
    max_secret_lines: int = 2000  # lines looked at for secrets per file (pre-filtered)
    max_deobfuscate_lines: int = 20_000  # lines normalised for shell obfuscation per file
    max_findings_per_rule: int = 20  # per rule and file; the rest are summed up in one line
    max_decode_depth: int = 2  # encoded text inside encoded text is decoded this many levels


DEFAULT_LIMITS = SecurityLimits()


@dataclass(frozen=True, slots=True)
class RiskFinding:
    """One risk. `path` is the file (the skill folder for a finding about the skill as a whole),
    `rel_path` the same relative to the skill folder with '/' separators ('' for the folder).
    `line`/`column` are 1-based (0 when the finding has no position). `message` says what the risk
    is, `effect` what it could do to the user who installs the skill, `hint` how to confirm or
    remove it. `evidence` is the offending text with invisible characters made visible.
    `severity` is the engine's suggestion for this occurrence (it may be below the code's default
    action, e.g. a read-only command); `security_severity` is the code's 0.0-10.0 score."""

    rule: str
    severity: Severity
    path: str
    rel_path: str
    line: int
    column: int
    message: str
    effect: str
    hint: str
    evidence: str = ""

    @property
    def code(self) -> str:
        return RULES[self.rule].code

    @property
    def category(self) -> str:
        return "security"

    @property
    def security_severity(self) -> float:
        score = RULES[self.rule].security_severity
        return 0.0 if score is None else score

    def to_json(self) -> dict[str, object]:
        return {
            "code": self.code,
            "rule": self.rule,
            "category": self.category,
            "severity": self.severity.value,
            "security_severity": self.security_severity,
            "path": self.path,
            "rel_path": self.rel_path,
            "line": self.line,
            "column": self.column,
            "message": self.message,
            "effect": self.effect,
            "hint": self.hint,
            "evidence": self.evidence,
        }


def severity_of(rule: str) -> Severity:
    """The default severity suggestion of a rule: its code's default action."""
    action = RULES[rule].action
    return Severity.ERROR if action in ("error", "skip") else Severity(action)
