"""Trigger eval sets: prompts that should and should not make a model pick one skill.

The format is skill-creator's (anthropics/skills), so existing sets load as they are: a JSON array
of objects `{"query": "...", "should_trigger": true}`. Unknown keys are kept out of the way, not
refused. A set that cannot be read says what is wrong and where, in one line.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

MAX_BYTES = 4 * 1024 * 1024  # an eval set larger than this is not a hand-written set


class EvalSetError(ValueError):
    """An eval set that cannot be used, with what is wrong and where."""


@dataclass(frozen=True)
class EvalItem:
    query: str
    should_trigger: bool


def parse_eval_set(text: str, where: str = "eval set") -> tuple[EvalItem, ...]:
    """The items of an eval set in skill-creator's format (EvalSetError when it is not one)."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise EvalSetError(
            f"{where}:{err.lineno}:{err.colno}: not JSON ({err.msg}); expected an array of "
            '{"query": "...", "should_trigger": true|false}'
        ) from None
    if isinstance(data, dict) and isinstance(data.get("evals"), list):
        data = data["evals"]  # a set wrapped in an object, as some tools write it
    if not isinstance(data, list):
        raise EvalSetError(
            f'{where}: expected a JSON array of {{"query": ..., "should_trigger": ...}}, '
            f"found {type(data).__name__}"
        )
    items = []
    for n, entry in enumerate(data, 1):
        if not isinstance(entry, dict):
            raise EvalSetError(f"{where}: item {n} is not an object")
        query, should = entry.get("query"), entry.get("should_trigger")
        if not isinstance(query, str) or not query.strip():
            raise EvalSetError(f"{where}: item {n} has no text in 'query'")
        if not isinstance(should, bool):
            raise EvalSetError(
                f"{where}: item {n}: 'should_trigger' must be true or false, "
                f"not {json.dumps(should)}"
            )
        items.append(EvalItem(query, should))
    return tuple(items)


def read_eval_set(path: str) -> tuple[EvalItem, ...]:
    """The eval set in the file `path` (EvalSetError when it cannot be read or used)."""
    return load_eval_set(path)[1]


def load_eval_set(path: str) -> tuple[str, tuple[EvalItem, ...]]:
    """The text of the file `path` and the eval set it holds (EvalSetError when it cannot be
    read or used): the text tells, when the set is saved again, whether the file changed since."""
    try:
        with open(path, "rb") as f:
            raw = f.read(MAX_BYTES + 1)
    except OSError as err:
        raise EvalSetError(f"{path}: cannot read the eval set: {err.strerror or err}") from None
    if len(raw) > MAX_BYTES:
        raise EvalSetError(f"{path}: larger than {MAX_BYTES // (1024 * 1024)} MiB")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise EvalSetError(f"{path}: the eval set is not UTF-8 text") from None
    return text, parse_eval_set(text, path)


def eval_set_text(items: Sequence[EvalItem]) -> str:
    """The set in skill-creator's format, as a file holds it."""
    rows = [{"query": i.query, "should_trigger": i.should_trigger} for i in items]
    return json.dumps(rows, indent=2, ensure_ascii=False) + "\n"
