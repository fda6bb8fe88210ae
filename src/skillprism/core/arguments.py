"""Argument substitution in a skill body at activation time (tier 2), as a runtime does it.

Every choice is data in `SubstitutionRules`, so a profile switches rules on and off instead of
branching in code. The defaults follow Claude Code (code.claude.com/docs/en/skills, "Available
string substitutions"; its `argumentSubstitution.ts`; issue reports that probed it):

- `$ARGUMENTS` is the argument string exactly as typed (quotes included).
- `$ARGUMENTS[N]` and the shorthand `$N` are 0-based, on arguments split with shell-style quoting.
  `$N` takes every digit that follows (`$10` is argument ten) and does not match when a word
  character follows (`$1abc` stays text); `$0.01` is `$0` followed by `.01`.
- An index with no argument stays as written (docs, anthropics/claude-code#94709, and
  melodic-software/claude-code-plugins#3540; older releases made it empty: `missing_index`).
- `$name` for names declared in the frontmatter `arguments` list maps to the argument at the same
  position; it does not match when `[` or a word character follows. A declared name with no
  argument becomes empty text (#3540, #3543), unlike `$N`. Undeclared `$name` stays as written.
- `${NAME}` variables (`CLAUDE_SKILL_DIR`, `CLAUDE_SESSION_ID`, ...) come from `variables`.
- A backslash right before a placeholder keeps it literal and is removed (`\\$0` -> `$0`), with or
  without arguments (#78759, #3540). Assumption, the sources being silent: the same holds for
  `\\$ARGUMENTS`, `\\$ARGUMENTS[N]`, `\\$name` and `\\${NAME}`; one backslash escapes, a backslash
  before anything that is not a placeholder is left alone, and `\\\\$0` yields `\\$0`.
- When no argument placeholder received a value and the arguments are not blank, Claude Code
  appends `"\\n\\nARGUMENTS: " + args` (two newlines, then the raw string; `argumentSubstitution.ts`).
  Escapes, variables and placeholders left as written do not count as received.
- Substitution is plain text replacement over the whole body, fenced code blocks included
  (#78759: "replaced throughout the whole command/skill body, including inside code fences").
- One pass: a value that itself contains `$1` or `$ARGUMENTS` is never substituted again.
  (Claude Code runs one `replace` per kind in sequence, so a named value containing `$0` could be
  re-substituted there; we treat that as an accident, not a rule worth modelling.)

Nothing here runs a command: `shell_injections` only lists the `` !`cmd` `` lines and ```` ```! ````
blocks that Claude Code would execute before the model sees the body.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Literal, NamedTuple

Quoting = Literal["shell", "whitespace"]
MissingIndex = Literal["keep", "empty"]
Kind = Literal["arguments", "indexed", "positional", "named", "variable", "escape", "appended"]

QUOTINGS: tuple[str, ...] = ("shell", "whitespace")
MISSING_INDEX: tuple[str, ...] = ("keep", "empty")
CLAUDE_CODE_APPEND = "\n\nARGUMENTS: {args}"

# JavaScript's \w and \d are ASCII-only; Python's are Unicode. Spell them out to match the runtime.
_WORD = "A-Za-z0-9_"
_VARIABLE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
# Claude Code's promptShellExecution.ts: BLOCK_PATTERN and INLINE_PATTERN (JS lookbehind
# `(?<=^|\s)` rewritten for Python's fixed-width lookbehind).
_SHELL_BLOCK = re.compile(r"```!\s*\n?([\s\S]*?)\n?```")
_SHELL_INLINE = re.compile(r"(?:(?<=\s)|^)!`([^`]+)`", re.MULTILINE)


@dataclass(frozen=True)
class SubstitutionRules:
    """Which substitutions a runtime applies. Defaults: Claude Code."""

    arguments: bool = True  # `$ARGUMENTS` -> the whole argument string as typed
    indexed: bool = True  # `$ARGUMENTS[N]`, 0-based
    positional: bool = True  # `$N`, shorthand for `$ARGUMENTS[N]`
    named: bool = True  # `$name` for names in the frontmatter `arguments` list
    escapes: bool = True  # `\$0` -> literal `$0`
    # Suffix added when no argument placeholder received a value and args are not blank;
    # "{args}" is replaced by the raw argument string. "" = never append.
    append_when_absent: str = CLAUDE_CODE_APPEND
    variables: Mapping[str, str] = field(default_factory=dict)  # written `${NAME}`
    quoting: Quoting = "shell"
    missing_index: MissingIndex = "keep"  # `$N` / `$ARGUMENTS[N]` beyond the last argument

    def __post_init__(self) -> None:
        if self.quoting not in QUOTINGS:
            raise ValueError(f"quoting must be one of {QUOTINGS}, not {self.quoting!r}")
        if self.missing_index not in MISSING_INDEX:
            raise ValueError(
                f"missing_index must be one of {MISSING_INDEX}, not {self.missing_index!r}"
            )
        for name, value in self.variables.items():
            if not isinstance(name, str) or not _VARIABLE_NAME.match(name):
                raise ValueError(f"variable name {name!r} is not a valid ${{NAME}} identifier")
            if not isinstance(value, str):
                raise ValueError(f"variable {name} must be a string, not {type(value).__name__}")
        # Frozen means frozen: a caller's dict mutated later must not change these rules.
        object.__setattr__(self, "variables", MappingProxyType(dict(self.variables)))

    def __hash__(self) -> int:
        return hash(
            (
                self.arguments,
                self.indexed,
                self.positional,
                self.named,
                self.escapes,
                self.append_when_absent,
                tuple(sorted(self.variables.items())),
                self.quoting,
                self.missing_index,
            )
        )

    @classmethod
    def from_mapping(cls, data: Mapping[str, object]) -> SubstitutionRules:
        """Build rules from a profile table (e.g. TOML `[tier2.substitution]`).

        Unknown keys and wrongly typed values raise `ValueError` naming the key, because a user
        writing a profile deserves to hear about a typo rather than get silent defaults.
        """
        bools = ("arguments", "indexed", "positional", "named", "escapes")
        strings = ("append_when_absent", "quoting", "missing_index")
        kwargs: dict[str, object] = {}
        for key, value in data.items():
            if key in bools:
                if not isinstance(value, bool):
                    raise ValueError(f"substitution.{key} must be true or false")
            elif key in strings:
                if not isinstance(value, str):
                    raise ValueError(f"substitution.{key} must be a string")
            elif key == "variables":
                if not isinstance(value, Mapping):
                    raise ValueError("substitution.variables must be a table of strings")
                value = dict(value)
            else:
                raise ValueError(f"unknown key substitution.{key}")
            kwargs[key] = value
        return cls(**kwargs)  # type: ignore[arg-type]


@dataclass(frozen=True)
class Substitution:
    """One replaced span. `start:end` index the output text, `source_start:source_end` the body.

    For kind "escape" the value is the literal placeholder left after removing the backslash;
    for kind "appended" the value is the whole appended suffix and the source span is empty.
    """

    start: int
    end: int
    placeholder: str
    value: str
    kind: Kind
    source_start: int
    source_end: int


@dataclass(frozen=True)
class SubstitutionResult:
    text: str
    substitutions: tuple[Substitution, ...]
    appended: bool
    unmatched: tuple[str, ...]  # placeholders left as written, unique, in order of appearance
    notes: tuple[str, ...]
    arguments: tuple[str, ...] = ()  # the split arguments `$N` indexes into


class ArgumentSplit(NamedTuple):
    values: tuple[str, ...]
    note: str | None  # set when shell parsing failed and whitespace splitting was used


def split_arguments(args: str, quoting: Quoting = "shell") -> ArgumentSplit:
    """Split an argument string the way `$N` sees it.

    "shell": POSIX shell words (quotes group words and are removed, a backslash escapes the next
    character, `$VAR` stays literal text, no comments). Claude Code uses the shell-quote package
    and falls back to a plain whitespace split when parsing fails; here an unmatched quote or a
    trailing backslash triggers that fallback, and the note says so. Empty words (`""`) are dropped,
    as Claude Code filters empty tokens. "whitespace": split on runs of whitespace.
    """
    if not args.strip():
        return ArgumentSplit((), None)
    if quoting == "whitespace":
        return ArgumentSplit(tuple(args.split()), None)
    if quoting != "shell":
        raise ValueError(f"quoting must be one of {QUOTINGS}, not {quoting!r}")
    try:
        words = shlex.split(args, comments=False, posix=True)
    except ValueError as exc:
        note = (
            f"arguments could not be split shell-style ({str(exc).lower()}); "
            "split on whitespace instead, as Claude Code falls back to"
        )
        return ArgumentSplit(tuple(args.split()), note)
    return ArgumentSplit(tuple(w for w in words if w), None)


def _declared_names(named: Sequence[str]) -> list[str]:
    """Usable names in declaration order; the position in this list is the argument index.

    Like Claude Code's parseArgumentNames: non-strings, empty and all-digit names are dropped
    before positions are counted (digits would clash with `$0`, `$1`, ...). A repeated name keeps
    its first position.
    """
    out: list[str] = []
    for name in named:
        if not isinstance(name, str):
            continue
        name = name.strip()
        if name and not name.isdigit() and name not in out:
            out.append(name)
    return out


def _pattern(rules: SubstitutionRules, names: Sequence[str]) -> re.Pattern[str] | None:
    alternatives: list[str] = []
    if rules.variables:
        keys = sorted(rules.variables, key=len, reverse=True)
        alternatives.append(r"\{(?P<var>" + "|".join(map(re.escape, keys)) + r")\}")
    if rules.named and names:
        # Longest first, so `$file` never takes the front of `$filename`.
        longest = sorted(names, key=len, reverse=True)
        alternatives.append("(?P<named>" + "|".join(map(re.escape, longest)) + rf")(?![\[{_WORD}])")
    if rules.indexed:
        alternatives.append(r"ARGUMENTS\[(?P<idx>[0-9]+)\]")
    if rules.positional:
        alternatives.append(rf"(?P<pos>[0-9]+)(?![{_WORD}])")
    if rules.arguments:
        # Plain text match, as Claude Code's replaceAll: `$ARGUMENTSX` is `$ARGUMENTS` + "X".
        alternatives.append("(?P<all>ARGUMENTS)")
    if not alternatives:
        return None
    escape = r"(?P<esc>\\)?" if rules.escapes else ""
    return re.compile(escape + r"\$(?:" + "|".join(alternatives) + ")")


def substitute(
    body: str, args: str, rules: SubstitutionRules, named: Sequence[str] = ()
) -> SubstitutionResult:
    """Apply `rules` to `body` for an activation with the argument string `args`, in one pass."""
    split = split_arguments(args, rules.quoting)
    values = split.values
    notes: list[str] = [split.note] if split.note else []
    names = _declared_names(named)
    position = {name: i for i, name in enumerate(names)}
    pattern = _pattern(rules, names)

    pieces: list[str] = []
    subs: list[Substitution] = []
    unmatched: dict[str, None] = {}  # a dict keeps first-seen order without duplicates
    empty_names: dict[str, None] = {}
    escaped = 0
    received = False  # did any argument placeholder take a value (decides the append)
    out_len = 0
    last = 0

    def emit(text: str) -> None:
        nonlocal out_len
        pieces.append(text)
        out_len += len(text)

    for m in pattern.finditer(body) if pattern else ():
        emit(body[last : m.start()])
        last = m.end()
        placeholder = m.group(0)
        groups = m.groupdict()
        kind: Kind
        value: str | None
        if groups.get("esc"):
            kind, value = "escape", placeholder[1:]
            escaped += 1
        elif groups.get("var") is not None:
            kind, value = "variable", rules.variables[groups["var"]]
        elif groups.get("named") is not None:
            kind = "named"
            index = position[groups["named"]]
            value = values[index] if index < len(values) else ""
            if index >= len(values):
                empty_names[placeholder] = None
            received = True
        elif groups.get("all") is not None:
            kind, value = "arguments", args
            received = True
        else:
            is_indexed = groups.get("idx") is not None
            kind = "indexed" if is_indexed else "positional"
            index = int(groups["idx"] if is_indexed else groups["pos"])
            if index < len(values):
                value = values[index]
                received = True
            elif rules.missing_index == "empty":
                value = ""
                received = True
            else:
                value = None
        if value is None:
            unmatched[placeholder] = None
            emit(placeholder)
            continue
        start, end = m.span()
        subs.append(
            Substitution(out_len, out_len + len(value), placeholder, value, kind, start, end)
        )
        emit(value)
    emit(body[last:])

    appended = False
    if rules.append_when_absent and args.strip() and not received:
        suffix = rules.append_when_absent.replace("{args}", args)
        subs.append(
            Substitution(
                out_len, out_len + len(suffix), "", suffix, "appended", len(body), len(body)
            )
        )
        emit(suffix)
        appended = True

    if escaped:
        notes.append(f"{escaped} escaped placeholder(s) kept literal; the backslash is removed")
    for placeholder in empty_names:
        notes.append(f"{placeholder} is declared but has no argument: replaced by empty text")
    if unmatched:
        notes.append(f"{len(values)} argument(s) given; left as written: " + ", ".join(unmatched))

    return SubstitutionResult(
        text="".join(pieces),
        substitutions=tuple(subs),
        appended=appended,
        unmatched=tuple(unmatched),
        notes=tuple(notes),
        arguments=values,
    )


def shell_injections(body: str) -> list[tuple[int, str]]:
    """Commands Claude Code would run while loading the body: (1-based line, command).

    Inline `` !`cmd` `` where `!` starts the text or follows whitespace, and fenced blocks
    opened by ```` ```! ```` (the line is that of the fence; the command is the block's text).
    Inline matches inside such a block are part of the block, not listed twice. Empty commands
    are skipped, as the runtime skips them. Nothing is executed.
    """
    found: list[tuple[int, int, str]] = []
    blocks: list[tuple[int, int]] = []
    for m in _SHELL_BLOCK.finditer(body):
        blocks.append(m.span())
        command = m.group(1).strip()
        if command:
            found.append((m.start(), body.count("\n", 0, m.start()) + 1, command))
    if "!`" in body:
        for m in _SHELL_INLINE.finditer(body):
            if any(s < m.end() and m.start() < e for s, e in blocks):
                continue
            command = m.group(1).strip()
            if command:
                found.append((m.start(), body.count("\n", 0, m.start()) + 1, command))
    found.sort()
    return [(line, command) for _, line, command in found]
