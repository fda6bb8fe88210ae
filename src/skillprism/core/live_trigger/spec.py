"""The `[live_trigger]` table of a runtime profile: how to drive its CLI and read its stream.

Everything that differs between runtimes is data here, read by one reader (reader.py):

- `command`: the CLI's arguments for one prompt (`{prompt}` is replaced); the first item is the
  program, replaced by the path the user gives (`--runtime-cli`);
- `version`: the arguments that print its release;
- `base_url`: the setting through which the runtime talks to another model server (the lab uses
  it; the user's own configuration is left alone);
- `[[live_trigger.use]]`: events that show a skill being used. `event` matches the event (dotted
  path -> value), `each` names a list inside it to look through, `where` matches an item, and
  either `name` (the path of the skill's name) or `path` (the path of a text that names a
  SKILL.md file of the set, such as a Read's file path or a shell command) says which skill;
- `[[live_trigger.error]]`: events that report an error, with `message` (the path of its text);
- `[[live_trigger.model]]`: events that name the model, with `value` (its path);
- `env`: variables the runtime needs to run in the throwaway workspace (such as trusting that
  folder), added to the user's own environment;
- `verified`: "lab" when tests/test_live_trigger_lab.py drives the pinned release against the
  scripted model server, else "unverified" with `reason`;
- `[live_trigger.lab]`: what the lab adds (arguments, environment with `{base_url}`) and the tool
  call that uses skill `{skill}` (`tool`, `input`), for conformance/ only.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


class LiveSpecError(ValueError):
    """A `[live_trigger]` table that cannot be used, with the key at fault."""


@dataclass(frozen=True)
class Rule:
    """One event pattern: `event` and `where` are dotted path -> value matches."""

    event: tuple[tuple[str, Any], ...]
    each: str = ""
    where: tuple[tuple[str, Any], ...] = ()
    name: str = ""  # path of a skill name
    path: str = ""  # path of a text naming a SKILL.md file
    value: str = ""  # path of the value (error message, model)


@dataclass(frozen=True)
class LabSpec:
    args: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()
    tool: str = ""
    tool_input: Mapping[str, Any] = field(default_factory=dict)
    files: tuple[tuple[str, str], ...] = ()  # "~/..." -> text, written into the lab's home


@dataclass(frozen=True)
class LiveSpec:
    command: tuple[str, ...]
    version: tuple[str, ...]
    base_url: str
    use: tuple[Rule, ...]
    errors: tuple[Rule, ...]
    models: tuple[Rule, ...]
    env: tuple[tuple[str, str], ...]
    verified: str  # "lab" or "unverified"
    reason: str
    sources: tuple[str, ...]
    lab: LabSpec

    @property
    def program(self) -> str:
        return self.command[0]

    def argv(
        self, prompt: str, program: str | None = None, extra: tuple[str, ...] = ()
    ) -> list[str]:
        """The CLI's arguments for one prompt (`program` replaces the command's own name);
        `extra` arguments go before the prompt (before its flag, when it follows one)."""
        args = list(self.command[1:])
        at = next(i for i, a in enumerate(args) if "{prompt}" in a)
        if at > 0 and args[at - 1].startswith("-"):
            at -= 1
        args[at:at] = extra
        return [program or self.command[0], *(a.replace("{prompt}", prompt) for a in args)]


def _matches(table: Any, where: str) -> tuple[tuple[str, Any], ...]:
    if not isinstance(table, dict):
        raise LiveSpecError(f"{where}: expected a table of dotted path = value")
    return tuple(sorted(table.items()))


def _strings(value: Any, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise LiveSpecError(f"{where}: expected a list of strings")
    return tuple(value)


def _rules(data: Any, where: str, target: tuple[str, ...]) -> tuple[Rule, ...]:
    if data is None:
        return ()
    if not isinstance(data, list):
        raise LiveSpecError(f"{where}: expected an array of tables")
    rules = []
    for i, item in enumerate(data):
        here = f"{where}[{i}]"
        if not isinstance(item, dict):
            raise LiveSpecError(f"{here}: expected a table")
        unknown = set(item) - {"event", "each", "where", *target}
        if unknown:
            raise LiveSpecError(f"{here}: unknown key {sorted(unknown)[0]!r}")
        picked = [k for k in target if item.get(k)]
        if len(picked) != 1:
            raise LiveSpecError(f"{here}: needs exactly one of {', '.join(target)}")
        rules.append(
            Rule(
                event=_matches(item.get("event", {}), f"{here}.event"),
                each=str(item.get("each", "")),
                where=_matches(item.get("where", {}), f"{here}.where"),
                **{picked[0]: str(item[picked[0]])},
            )
        )
    return tuple(rules)


def parse_live_spec(data: Mapping[str, Any], where: str) -> LiveSpec | None:
    """The profile's `[live_trigger]` table (None when it has none)."""
    if not data:
        return None
    here = f"{where}: key 'live_trigger"
    known = {"command", "version", "base_url", "use", "error", "model", "verified", "reason"}
    known |= {"sources", "lab", "env"}
    unknown = set(data) - known
    if unknown:
        raise LiveSpecError(f"{here}.{sorted(unknown)[0]}': is not a known key")
    command = _strings(data.get("command"), f"{here}.command'")
    if not command or not any("{prompt}" in a for a in command):
        raise LiveSpecError(f"{here}.command': needs the program and a '{{prompt}}' argument")
    verified = data.get("verified", "unverified")
    if verified not in ("lab", "unverified"):
        raise LiveSpecError(f"{here}.verified': expected 'lab' or 'unverified'")
    if verified == "unverified" and not data.get("reason"):
        raise LiveSpecError(f"{here}.reason': an unverified live mode says why")
    lab = data.get("lab", {})
    if not isinstance(lab, dict):
        raise LiveSpecError(f"{here}.lab': expected a table")
    tool = lab.get("tool", {})
    env = lab.get("env", {})
    files = lab.get("files", {})
    run_env = data.get("env", {})
    if not all(isinstance(t, dict) for t in (tool, env, files, run_env)):
        raise LiveSpecError(f"{here}': 'env', 'lab.tool', 'lab.env' and 'lab.files' are tables")
    return LiveSpec(
        command=command,
        version=_strings(data.get("version", [command[0], "--version"]), f"{here}.version'"),
        base_url=str(data.get("base_url", "")),
        use=_rules(data.get("use"), f"{here}.use'", ("name", "path")),
        errors=_rules(data.get("error"), f"{here}.error'", ("value",)),
        models=_rules(data.get("model"), f"{here}.model'", ("value",)),
        env=tuple((str(k), str(v)) for k, v in run_env.items()),
        verified=verified,
        reason=str(data.get("reason", "")),
        sources=_strings(data.get("sources", []), f"{here}.sources'"),
        lab=LabSpec(
            args=_strings(lab.get("args", []), f"{here}.lab.args'"),
            env=tuple((str(k), str(v)) for k, v in env.items()),
            tool=str(tool.get("name", "")),
            tool_input=tool.get("input", {}),
            files=tuple((str(k), str(v)) for k, v in files.items()),
        ),
    )
