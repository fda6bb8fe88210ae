"""Tier 2: what activating one skill delivers to the model, exactly as a runtime does it.

Permission (model tool call vs user slash command), the body with or without frontmatter, argument
substitution (`core.arguments`), the runtime's wrapper, the cost against the 5,000-token guidance,
what survives compaction, fork vs inline, consent, and shell-injection lines listed as "would run"
(never run). All runtime differences come from the profile's `[tier2]` data.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from skillprism.core.arguments import (
    Substitution,
    SubstitutionRules,
    shell_injections,
    substitute,
)
from skillprism.core.catalog import Catalog, SkillEntry
from skillprism.core.diagnostics import Diagnostic
from skillprism.core.disclosure_spec import flag_set
from skillprism.core.document import parse_document
from skillprism.core.profiles import Profile
from skillprism.core.resources import list_resources
from skillprism.core.tokens import EstimateCounter, TokenCounter

INVOKERS = ("model", "user")


MAX_NAMES_LISTED = 30  # a not-found message lists the names up to this many, else the closest


class ActivationError(Exception):
    """The request cannot be simulated (unknown skill, unreadable file); the message says why."""


@dataclass(frozen=True, slots=True)
class Activation:
    """One simulated activation. `content` is exactly what the model receives (empty if refused)."""

    name: str
    path: str
    invoker: str
    allowed: bool
    refusal: str
    mechanism: str
    content: str
    substitutions: tuple[Substitution, ...]  # offsets within `content`
    appended: bool
    unmatched: tuple[str, ...]
    notes: tuple[str, ...]
    chars: int
    tokens: int
    counter: str
    guidance_tokens: int
    compaction_keep_tokens: int
    compaction_kept_chars: int | None  # characters that survive compaction (None: all / no rule)
    fork: bool
    agent: str
    model: str
    allowed_tools: tuple[str, ...]
    consent: str  # "" | "risky: asks for confirmation" | "safe: already consented"
    would_run: tuple[tuple[int, str], ...]  # (line in SKILL.md, command) never executed
    diagnostics: tuple[Diagnostic, ...] = field(default=())

    @property
    def over_guidance(self) -> bool:
        return bool(self.guidance_tokens) and self.tokens > self.guidance_tokens


def _tools(value: Any) -> tuple[str, ...]:
    """Tool patterns from `allowed-tools`: a list, or a string split on spaces or commas outside
    parentheses, so `Bash(git log:*) Read` is two tools."""
    if isinstance(value, list):
        return tuple(str(v).strip() for v in value if str(v).strip())
    if not isinstance(value, str):
        return ()
    tools, current, depth = [], [], 0
    for ch in value:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth = max(depth - 1, 0)
        if depth == 0 and (ch.isspace() or ch == ","):
            if current:
                tools.append("".join(current))
                current = []
            continue
        current.append(ch)
    if current:
        tools.append("".join(current))
    return tuple(tools)


def _declared_arguments(value: Any) -> tuple[str, ...]:
    if isinstance(value, list):
        return tuple(str(v) for v in value if isinstance(v, (str, int)))
    if isinstance(value, str):
        return tuple(value.replace(",", " ").split())
    return ()


def resources_tree(skill_dir: str, limit: int = 200) -> str:
    """The skill folder as an indented tree (what Gemini CLI lists under available_resources)."""
    listing = list_resources(skill_dir, limit=limit)
    lines: list[str] = []
    shown_dirs: set[str] = set()
    for item in listing.items:
        parts = item.rel_path.split("/")
        for depth in range(len(parts) - 1):
            folder = "/".join(parts[: depth + 1])
            if folder not in shown_dirs:
                shown_dirs.add(folder)
                lines.append("  " * depth + parts[depth] + "/")
        lines.append("  " * (len(parts) - 1) + parts[-1])
    if listing.truncated:
        lines.append(f"... (more than {limit} files)")
    return "\n".join(lines)


class BuiltinSkillError(ActivationError):
    """The skill asked for is one of the runtime's own: listed, but its body is not on disk."""


def find_skill(catalog: Catalog, name: str, path: str | None = None) -> SkillEntry:
    """The copy the runtime would activate for `name` (the winner), or the copy at `path`."""
    if path:
        want = os.path.abspath(path)
        for s in catalog.skills:
            if want in (s.path, s.directory, s.real_path, os.path.dirname(s.real_path)):
                return s
        raise ActivationError(f"no skill at {path} in this skill set")
    for s in catalog.skills:
        if s.loaded and not s.shadowed_by and name in (s.qualified_name, s.name):
            return s
    builtin = next((b for b in catalog.profile.disclosure.tier1.builtin if b.name == name), None)
    if builtin is not None:
        runtime = catalog.profile.runtime
        release = f" {runtime.release}" if runtime.release else ""
        raise BuiltinSkillError(
            f'"{name}" is built into {catalog.profile.title}{release}: the runtime lists it '
            f"({builtin.description[:120]}) and delivers its own body, which ships inside the "
            "runtime and is not available here"
        )
    visible = sorted({s.qualified_name for s in catalog.skills if s.loaded})
    visible += [b.name for b in catalog.profile.disclosure.tier1.builtin]
    if len(visible) <= MAX_NAMES_LISTED:
        shown = ", ".join(visible) if visible else "none"
        message = f'Skill "{name}" not found. Visible skills: {shown}'
    else:
        import difflib

        close = difflib.get_close_matches(name, visible, n=5, cutoff=0.5)
        message = (
            f'Skill "{name}" not found among {len(visible)} visible skills'
            + (f"; did you mean {', '.join(close)}?" if close else "")
            + " (`skillprism prompt` lists every one)"
        )
    other = next((s for s in catalog.skills if name in (s.qualified_name, s.name)), None)
    if other is not None:
        message += f" ({name} exists at {other.path} but is {other.status}: {other.reason})"
    raise ActivationError(message)


def activate(
    catalog: Catalog,
    skill: SkillEntry,
    *,
    args: str = "",
    invoker: str = "model",
    first_activation: bool = True,
    counter: TokenCounter | None = None,
) -> Activation:
    """Simulate activating `skill` (an entry of `catalog`) with `args` by the model or a user."""
    if invoker not in INVOKERS:
        raise ActivationError(f"invoker must be one of {', '.join(INVOKERS)}")
    spec = catalog.profile.disclosure.tier2
    counter = counter or EstimateCounter()
    fm = skill.frontmatter
    name = skill.qualified_name or skill.name or os.path.basename(skill.directory)
    notes: list[str] = []
    diagnostics: list[Diagnostic] = []
    values = {"name": name, "base_dir": skill.directory, "args": args}

    refusal = ""
    model_off = flag_set(fm, spec.model_invocation_off)
    user_off = flag_set(fm, spec.user_invocation_off)
    if invoker == "model" and model_off:
        refusal = spec.model_refusal or f"{name} can only be invoked by the user ({model_off})"
    elif invoker == "user" and user_off:
        refusal = spec.user_refusal or f"{name} cannot be invoked by the user ({user_off})"
    elif invoker == "user" and not spec.user_command:
        refusal = f"{catalog.profile.title} has no user command for skills"
    if refusal:
        refusal = refusal.format_map(values)
        refused = catalog.reporting().report(
            "activation-refused",
            refusal,
            skill.path,
            effect=f"{catalog.profile.title} refuses the activation",
            hint="invoke it the other way, or change the frontmatter flag",
            always=True,  # the refusal is the result: always explained
        )
        diagnostics.append(refused)  # type: ignore[arg-type]
    if not skill.loaded or skill.shadowed_by:
        notes.append(
            f"this copy is {skill.status}: {skill.reason or 'not the one the runtime uses'}"
            + (f" (the runtime uses {skill.shadowed_by})" if skill.shadowed_by else "")
        )
    elif skill.status == "error":
        notes.append(
            f"{catalog.profile.title} loads and lists this copy, though it breaks a rule "
            "(see its findings)"
        )

    doc = parse_document(skill.path)
    if doc.text is None:
        raise ActivationError(
            f"cannot read {skill.path}: " + "; ".join(f.message for f in doc.findings)
        )
    body = doc.body if spec.strip_frontmatter else doc.text
    first_line = 1  # the SKILL.md line that `body` starts on
    if spec.strip_frontmatter:
        stripped = body.lstrip("\n")
        first_line = doc.body_first_line + len(body) - len(stripped)
        body = stripped
    if spec.trim_body:
        stripped = body.lstrip()
        first_line += body.count("\n", 0, len(body) - len(stripped))
        body = stripped.rstrip()

    rules = SubstitutionRules(
        arguments=spec.arguments,
        indexed=spec.indexed,
        positional=spec.positional,
        named=spec.named,
        append_when_absent=spec.append_when_absent,
        variables={k: v.format_map(values) for k, v in spec.variables.items()},
    )
    if not (spec.arguments or spec.indexed or spec.positional or spec.named or spec.variables):
        if args.strip():
            notes.append(f"{catalog.profile.title} passes no arguments to skills; they are ignored")
        result = substitute(body, "", rules)
    else:
        result = substitute(body, args, rules, _declared_arguments(fm.get("arguments")))
    notes.extend(result.notes)

    wrapper = spec.wrapper
    values["resources"] = resources_tree(skill.directory) if "{resources}" in wrapper else ""
    head, sep, _tail = wrapper.partition("{body}")
    content = wrapper.format_map({**values, "body": result.text})
    offset = len(head.format_map({**values, "body": ""})) if sep else 0
    subs = tuple(
        Substitution(
            s.start + offset,
            s.end + offset,
            s.placeholder,
            s.value,
            s.kind,
            s.source_start,
            s.source_end,
        )
        for s in result.substitutions
    )
    tokens = counter.count(content) if not refusal else 0
    kept: int | None = None
    if spec.compaction_keep_tokens and tokens > spec.compaction_keep_tokens:
        kept = int(len(content) * spec.compaction_keep_tokens / tokens)
        notes.append(
            f"after compaction {catalog.profile.title} keeps only the first "
            f"{spec.compaction_keep_tokens:,} tokens (about {kept:,} of {len(content):,} characters)"
        )
    if spec.guidance_tokens and tokens > spec.guidance_tokens:
        over = catalog.reporting().report(
            "activation-over-guidance",
            f"activated content is {tokens:,} tokens ({counter.name}); guidance: under "
            f"{spec.guidance_tokens:,}",
            skill.path,
            effect="the activation takes a large share of the context",
            hint="move detail into references/ that the body links to",
        )
        if over is not None:
            diagnostics.append(over)
    fork = bool(spec.fork_field) and str(fm.get(spec.fork_field, "")).strip().lower() == "fork"
    if fork:
        notes.append(
            "runs as a spawned sub-task (context: fork): the content becomes the task's input "
            "and the conversation receives only its result"
        )
    consent = ""
    if spec.consent == "first-activation":
        consent = "risky: asks for confirmation" if first_activation else "safe: already consented"
    return Activation(
        name=name,
        path=skill.path,
        invoker=invoker,
        allowed=not refusal,
        refusal=refusal,
        mechanism=(
            spec.user_command.format_map(values)
            if invoker == "user" and spec.user_command
            else spec.mechanism
        ),
        content="" if refusal else content,
        substitutions=() if refusal else subs,
        appended=result.appended,
        unmatched=result.unmatched,
        notes=tuple(notes),
        chars=0 if refusal else len(content),
        tokens=tokens,
        counter=counter.name,
        guidance_tokens=spec.guidance_tokens,
        compaction_keep_tokens=spec.compaction_keep_tokens,
        compaction_kept_chars=kept,
        fork=fork,
        agent=str(fm.get("agent", "") or ""),
        model=str(fm.get("model", "") or ""),
        allowed_tools=_tools(fm.get("allowed-tools")),
        consent=consent,
        would_run=tuple((first_line - 1 + line, cmd) for line, cmd in shell_injections(body))
        if spec.shell_injection
        else (),
        diagnostics=tuple(diagnostics),
    )


def invocation_rules(profile: Profile) -> str:
    """Who may start a skill under `profile`, in words, from its tier-2 data."""
    spec = profile.disclosure.tier2

    def flags(fields: Mapping[str, Any]) -> str:
        return " or ".join(f"{k}: {str(v).lower()}" for k, v in fields.items())

    parts = []
    if spec.model_invocation_off:
        parts.append(
            f"A skill with {flags(spec.model_invocation_off)} can only be started by the user "
            "(and is left out of the listing the model sees)."
        )
    if spec.user_invocation_off:
        parts.append(f"One with {flags(spec.user_invocation_off)} only by the model.")
    if not spec.user_command:
        parts.append(
            f"{profile.title} has no slash command for skills: only the model starts them."
        )
    if not parts:
        return f"{profile.title} honours no frontmatter flag that limits who may start a skill."
    return f"Under {profile.title}: " + " ".join(parts)
