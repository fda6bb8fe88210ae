"""The one place a finding becomes a Diagnostic.

Everything that reports something (parsing, discovery, precedence, the tier-1 budget, activation,
tier-3 resources) hands a `Finding` (rule name, message, position, hint) to a `Policy`. The policy
applies, once and for every code:

1. the profile's rule table (`[rules]` in the profile): the action (`skip`, `error`, `warning`,
   `info`, `ignore`) gives the severity, its `effect` and `hint` replace the defaults;
2. the project's settings (`.skillprism.toml` / `[tool.skillprism]`): `ignore_codes` drops any
   code, `ignore_paths` (globs relative to the project) drops findings about those paths.

A dropped finding is gone everywhere: the state it would have caused, the output, the window. What
the project's settings drop is counted, though (`counting`): the project is often the very folder
under review, and every output says what its settings held back (core/settings.py). See
docs/architecture.md for where the policy sits in the pipeline.
"""

from __future__ import annotations

import contextlib
import fnmatch
import os
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field, replace

from skillprism.core.codes import RULES
from skillprism.core.diagnostics import Diagnostic, Severity
from skillprism.core.document import Finding
from skillprism.core.profiles import Profile, RuleSetting

SEVERITY_OF_ACTION = {
    "skip": Severity.ERROR,
    "error": Severity.ERROR,
    "warning": Severity.WARNING,
    "info": Severity.INFO,
}

# Findings about paths, scans and listings, not about one skill's content, need their own wording:
# "invalid under <runtime>" would be wrong for a folder that does not exist.
RULE_EFFECTS = {
    "path-not-found": "nothing is scanned for this path",
    "folder-unreadable": "skills inside it are not seen (the runtime cannot list it either)",
    "internal-error": "this skill's result is unknown; every other skill is checked as usual",
    "scan-truncated": "skills beyond the bound are not seen",
    "symlink-problem": "the link is not followed",
    "archive-beside-skills": "the archive is not loaded",
    "nested-skill": "the inner skill's files are also resources of the outer skill",
    "root-missing": "there is nothing for the runtime to load here",
    "no-skill-file": "nothing is loaded from this path",
    "resources-truncated": "files beyond the bound are not listed",
    "refval-rejects-file": "no effect under this profile; skills-ref reports it differently",
    "refval-crashes": "no effect under this profile; skills-ref fails on it",
    "refval-flow-style": "no effect under this profile; skills-ref rejects the file",
    "refval-accepts-name": "no effect under this profile; skills-ref accepts the name",
}


def default_effect(title: str, action: str) -> str:
    """What a runtime does about a finding of `action`, in words."""
    return {
        "skip": f"{title} does not load this skill",
        "error": f"invalid under {title}",
        "warning": f"{title} loads the skill anyway",
        "info": "no effect on loading",
        "ignore": "no effect on loading",
    }[action]


@dataclass(frozen=True, slots=True)
class _RuleView:
    code: str
    severity: Severity
    profile_effect: str
    fallback_effect: str
    hint: str
    dropped: bool
    by_settings: bool  # dropped by the project's ignore_codes, not by the profile's rules
    profile_set: bool  # the profile's [rules] table names this rule


@dataclass(eq=False)  # told apart by identity: nested tallies may hold the same counts
class Tally:
    """What the project's settings held back while a tally was open (`Policy.counting`):
    findings per owner (the skill file they are about, or the folder for findings about no
    skill) and code, and skill files left out by `ignore_paths`."""

    findings: dict[str, Counter[str]] = field(default_factory=dict)
    files: int = 0

    def add(self, owner: str, code: str) -> None:
        self.findings.setdefault(owner, Counter())[code] += 1

    def take(self, owner: str) -> tuple[tuple[str, int], ...]:
        """The counts per code held back about `owner` (sorted by code), forgotten here."""
        counts = self.findings.pop(owner, None)
        return tuple(sorted(counts.items())) if counts else ()

    def add_all(self, other: Tally) -> None:
        """Add what `other` counted."""
        for owner, counts in other.findings.items():
            self.findings.setdefault(owner, Counter()).update(counts)
        self.files += other.files

    def take_all(self) -> tuple[tuple[str, int], ...]:
        """Every count held back, per code (sorted), forgotten here."""
        total: Counter[str] = Counter()
        for counts in self.findings.values():
            total.update(counts)
        self.findings.clear()
        return tuple(sorted(total.items()))


@dataclass(frozen=True)
class Policy:
    """How findings are reported for one profile in one project. Without a profile the registry's
    default actions apply (reading a resource outside any catalog, for instance)."""

    profile: Profile | None = None
    ignore_codes: frozenset[str] = frozenset()
    ignore_paths: tuple[str, ...] = ()
    base: str = ""  # the folder `ignore_paths` are relative to (the project)
    _title: str = field(default="", init=False, repr=False, compare=False)
    # rule -> (code, severity, effect, hint, dropped): what the settings make of it, worked out
    # once per rule (a file with 40,000 broken links asks 40,000 times).
    _rules: dict[str, _RuleView] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )
    # The open tallies, innermost last; shared with the copies `for_profile` makes.
    _tallies: list[Tally] = field(default_factory=list, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(
            self, "_title", self.profile.title if self.profile is not None else "the runtime"
        )

    def _rule(self, rule: str) -> _RuleView:
        known = self._rules.get(rule)
        if known is None:
            info = RULES[rule]
            setting = self.action(rule)
            action = setting.action if setting.action != "ignore" else info.action
            if action == "ignore":
                action = "info"
            known = _RuleView(
                code=info.code,
                severity=SEVERITY_OF_ACTION[action],
                profile_effect=setting.effect,
                fallback_effect=RULE_EFFECTS.get(rule, "") or default_effect(self.title, action),
                hint=setting.hint,
                dropped=setting.action == "ignore" or info.code in self.ignore_codes,
                by_settings=setting.action != "ignore" and info.code in self.ignore_codes,
                profile_set=self.profile is not None and rule in self.profile.rules,
            )
            self._rules[rule] = known
        return known

    @property
    def title(self) -> str:
        return self._title

    def for_profile(self, profile: Profile) -> Policy:
        """This policy for another profile (a root's own rule settings), counting into the
        same tallies."""
        other = replace(self, profile=profile)
        object.__setattr__(other, "_tallies", self._tallies)
        return other

    @contextlib.contextmanager
    def counting(self) -> Iterator[Tally]:
        """Count what the project's settings drop while the block runs (into this tally only,
        when tallies nest). Findings made outside any tally (a listing, an activation) are not
        counted: they are not part of a check's result."""
        tally = Tally()
        self._tallies.append(tally)
        try:
            yield tally
        finally:
            for i in range(len(self._tallies) - 1, -1, -1):
                if self._tallies[i] is tally:
                    del self._tallies[i]
                    break

    def leaves_out(self, path: str) -> bool:
        """Whether the settings' `ignore_paths` leave the skill file at `path` out altogether
        (counted in the open tally)."""
        if not self.ignores_path(path):
            return False
        if self._tallies:
            self._tallies[-1].files += 1
        return True

    def action(self, rule: str) -> RuleSetting:
        """What the runtime does about `rule`: the profile's setting, else the registry default."""
        if self.profile is not None:
            return self.profile.action(rule)
        return RuleSetting(RULES[rule].action)

    def skips(self, rule: str) -> bool:
        """Whether a finding of `rule` makes the runtime refuse to load the skill."""
        return self.action(rule).action == "skip"

    def ignores_path(self, path: str) -> bool:
        if not self.ignore_paths or not path:
            return False
        rel = os.path.relpath(path, self.base or os.getcwd()).replace(os.sep, "/")
        return any(fnmatch.fnmatch(rel, pattern) for pattern in self.ignore_paths)

    def diagnostic(
        self,
        finding: Finding,
        path: str,
        *,
        effect: str = "",
        always: bool = False,
        severity: Severity | None = None,
        evidence: str = "",
        owner: str = "",
    ) -> Diagnostic | None:
        """`finding` about `path` as this policy reports it, or None when the profile or the
        project settings drop it. `always`: the diagnostic explains a result (a refusal) and is
        kept even where it would be dropped as a finding. `severity`: the finding's own severity
        (a security rule judges each occurrence), used unless the profile sets the rule's action;
        `evidence`: the offending text, shown beside the message. `owner`: the skill file the
        finding belongs to, if not `path` (a risk in one of its scripts), for the tally."""
        # Inlined lookups: a file with 40,000 broken links asks 40,000 times per profile.
        view = self._rules.get(finding.rule) or self._rule(finding.rule)
        if not always and (view.dropped or (self.ignore_paths and self.ignores_path(path))):
            if self._tallies and (view.by_settings or not view.dropped):
                self._tallies[-1].add(owner or path, view.code)
            return None
        return Diagnostic(
            code=view.code,
            severity=view.severity if severity is None or view.profile_set else severity,
            message=finding.message,
            path=path,
            line=finding.line,
            column=finding.column,
            effect=view.profile_effect or effect or view.fallback_effect,
            hint=view.hint or finding.hint,
            evidence=evidence,
        )

    def report(
        self,
        rule: str,
        message: str,
        path: str,
        *,
        line: int = 0,
        column: int = 0,
        effect: str = "",
        hint: str = "",
        always: bool = False,
    ) -> Diagnostic | None:
        """Shorthand for `diagnostic(Finding(rule, message, line, column, hint), path, ...)`."""
        return self.diagnostic(
            Finding(rule, message, line, column, hint), path, effect=effect, always=always
        )
