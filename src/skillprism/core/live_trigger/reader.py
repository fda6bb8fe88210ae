"""Reading a runtime's own event stream (JSON lines) into the outcome of one run.

The rules come from the profile (spec.py); this module knows no runtime. A run's outcome is:

- `intended`: the stream shows the intended skill being used (a skill tool call naming it, or a
  read of its SKILL.md), whatever else it used;
- `other`: it used another skill of the set (the first one is named), not the intended one;
- `none`: it used no skill and ended without an error;
- `error`: the runtime reported an error (an error event, or a nonzero exit), with its message;
- `timeout`: it did not finish in time (decided by the runner).

A use seen before an error still counts: the model picked the skill.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from skillprism.core.live_trigger.spec import LiveSpec, Rule

OUTCOMES = ("intended", "other", "none", "error", "timeout")
MESSAGE_MAX = 500


@dataclass(frozen=True)
class RunOutcome:
    outcome: str
    skill: str = ""  # the skill used (`other`: which one)
    message: str = ""  # `error` / `timeout`: what the runtime said
    model: str = ""  # the model the stream names, "" when it names none
    seconds: float = 0.0


def dig(obj: Any, path: str) -> Any:
    """The value at a dotted path (`message.content`), None when any step is missing."""
    for step in path.split(".") if path else ():
        if isinstance(obj, dict):
            obj = obj.get(step)
        elif isinstance(obj, list) and step.isdigit() and int(step) < len(obj):
            obj = obj[int(step)]
        else:
            return None
    return obj


def _match(obj: Any, pattern: tuple[tuple[str, Any], ...]) -> bool:
    return all(dig(obj, path) == want for path, want in pattern)


def _items(event: Any, rule: Rule) -> list[Any]:
    if not _match(event, rule.event):
        return []
    found = dig(event, rule.each) if rule.each else event
    items = found if isinstance(found, list) else [found] if found is not None else []
    return [i for i in items if _match(i, rule.where)]


class StreamReader:
    """Feed it the stream's lines; `outcome()` says what the run did.

    `skills` maps each skill name of the set to its folder name, which a read of its SKILL.md
    shows (`.../<folder>/SKILL.md`)."""

    def __init__(self, spec: LiveSpec, intended: str, skills: Mapping[str, str]) -> None:
        self.spec = spec
        self.intended = intended
        self.skills = dict(skills)
        self._by_file = [
            (name, re.compile(r"(?:^|[/\\\s'\"`])" + re.escape(folder) + r"[/\\]SKILL\.md"))
            for name, folder in self.skills.items()
        ]
        self.used: list[str] = []
        self.errors: list[str] = []
        self.model = ""
        self.events = 0

    def feed(self, line: str) -> list[str]:
        """Read one line of the stream; the skills it shows being used (a line that is not a
        JSON object, such as a log line, is passed over)."""
        line = line.strip()
        if not line.startswith("{"):
            return []
        try:
            event = json.loads(line)
        except ValueError:
            return []
        self.events += 1
        used = [s for rule in self.spec.use for s in self._skills(event, rule)]
        self.used.extend(used)
        for rule in self.spec.errors:  # the first rule that reads a message wins
            messages = [dig(item, rule.value) for item in _items(event, rule)]
            messages = [m for m in messages if m is not None]
            if messages:
                text = messages[0] if isinstance(messages[0], str) else json.dumps(messages[0])
                self.errors.append(text[:MESSAGE_MAX])
                break
        if not self.model:
            for rule in self.spec.models:
                for item in _items(event, rule):
                    value = dig(item, rule.value)
                    if isinstance(value, str) and value:
                        self.model = value
                        break
        return used

    def feed_all(self, lines: Iterable[str]) -> StreamReader:
        for line in lines:
            self.feed(line)
        return self

    def _skills(self, event: Any, rule: Rule) -> list[str]:
        out = []
        for item in _items(event, rule):
            if rule.name:
                value = dig(item, rule.name)
                if isinstance(value, str) and value.strip():
                    out.append(value.strip().lstrip("/"))
            else:
                value = dig(item, rule.path)
                text = value if isinstance(value, str) else json.dumps(value)
                out.extend(name for name, rx in self._by_file if rx.search(text))
        return out

    def outcome(self, exit_code: int | None, stderr: str = "", seconds: float = 0.0) -> RunOutcome:
        """The run's outcome once the process ended with `exit_code`."""
        if self.intended in self.used:
            return RunOutcome("intended", self.intended, model=self.model, seconds=seconds)
        if self.used:
            return RunOutcome("other", self.used[0], model=self.model, seconds=seconds)
        if self.errors or exit_code:
            message = self.errors[-1] if self.errors else _last_line(stderr)
            if not message:
                message = f"exited with status {exit_code}"
            return RunOutcome("error", message=message, model=self.model, seconds=seconds)
        if not self.events:
            return RunOutcome(
                "error",
                message="the runtime printed no event: " + (_last_line(stderr) or "no output"),
                model=self.model,
                seconds=seconds,
            )
        return RunOutcome("none", model=self.model, seconds=seconds)


def _last_line(text: str) -> str:
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    return lines[-1][:MESSAGE_MAX] if lines else ""
