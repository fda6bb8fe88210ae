"""The one place a finding becomes a Diagnostic.

Everything that reports something (parsing, discovery, precedence, the tier-1 budget, activation,
tier-3 resources) hands a `Finding` (rule name, message, position, hint) to a `Policy`. The policy
applies, once and for every code:

1. the profile's rule table (`[rules]` in the profile): the action (`skip`, `error`, `warning`,
   `info`, `ignore`) gives the severity, its `effect` and `hint` replace the defaults;
2. the project's settings (`.skillprism.toml` / `[tool.skillprism]`): `ignore_codes` drops any
   code, `ignore_paths` (globs relative to the project) drops findings about those paths.

A dropped finding is gone everywhere: the state it would have caused, the output, the window. See
docs/architecture.md for where the policy sits in the pipeline.
"""

from __future__ import annotations

import fnmatch
import os
from dataclasses import dataclass, field

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
            )
            self._rules[rule] = known
        return known

    @property
    def title(self) -> str:
        return self._title

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
        self, finding: Finding, path: str, *, effect: str = "", always: bool = False
    ) -> Diagnostic | None:
        """`finding` about `path` as this policy reports it, or None when the profile or the
        project settings drop it. `always`: the diagnostic explains a result (a refusal) and is
        kept even where it would be dropped as a finding."""
        view = self._rule(finding.rule)
        if (view.dropped or self.ignores_path(path)) and not always:
            return None
        return Diagnostic(
            code=view.code,
            severity=view.severity,
            message=finding.message,
            path=path,
            line=finding.line,
            column=finding.column,
            effect=view.profile_effect or effect or view.fallback_effect,
            hint=view.hint or finding.hint,
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
