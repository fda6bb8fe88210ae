"""Field fixes: a quoted "true" / "false" written as a boolean where the field is a boolean
(safe: every reader that accepts the string reads the same truth), and keys a runtime does not
define moved under `metadata` (safe when no runtime defines the key at the top level; review when
one does, or when the value has to become a string)."""

from __future__ import annotations

import re
from collections.abc import Iterator

import yaml

from skillprism.core.fixes import Candidate, FixContext
from skillprism.core.fixes.frontmatter_lines import Frontmatter, KeyBlock
from skillprism.core.validate import _all_profiles
from skillprism.core.write_back import TextEdit

_UNKNOWN = re.compile(r"unknown field '(.+?)'")
_STRING_BOOL = re.compile(r"""(["'])(true|false)\1""")


def _defined_anywhere(key: str) -> bool:
    return bool(_readers(key))


def _readers(key: str) -> list[str]:
    """The runtimes (profile names) that read `key` as a field of their own."""
    return sorted(name for name, prof in _all_profiles() if key in prof.fields)


def _scalar(block: KeyBlock, text: str) -> object:
    try:
        data = yaml.safe_load(block.block(text))
    except yaml.YAMLError:
        return None
    return data.get(block.key) if isinstance(data, dict) else None


def candidates(ctx: FixContext) -> Iterator[Candidate]:
    fm = ctx.frontmatter
    if fm is None:
        return
    text = ctx.doc.text or ""
    yield from _booleans(ctx, fm, text)
    yield from _to_metadata(ctx, fm, text)


def _booleans(ctx: FixContext, fm: Frontmatter, text: str) -> Iterator[Candidate]:
    if "SP217" not in ctx.codes():
        return
    kinds = {
        key
        for p, _d in ctx.with_code("SP217")
        if p.profile is not None
        for key, kind in p.profile.fields.items()
        if kind in ("bool", "strict-bool")
    }
    for block in fm.keys:
        m = _STRING_BOOL.fullmatch(block.value(text))
        if block.key in kinds and m and not block.more:
            yield Candidate(
                "SP217",
                block.line,
                f"write {block.key}: {m.group(2)} (a boolean, not a string)",
                "safe",
                (TextEdit(block.value_start, block.value_end, m.group(2)),),
            )


def _to_metadata(ctx: FixContext, fm: Frontmatter, text: str) -> Iterator[Candidate]:
    unknown: list[str] = []
    line = 0
    for _p, d in ctx.with_code("SP216"):
        m = _UNKNOWN.match(d.message)
        if m and m.group(1) not in unknown and m.group(1) != "metadata":
            unknown.append(m.group(1))
            line = line or d.line
    if not unknown:
        return
    meta = fm.get("metadata")
    children: dict[str, object] = {}
    if meta is not None:
        if meta.value(text):
            return  # a flow mapping or a scalar: not a block to add lines to
        try:
            data = yaml.safe_load(meta.block(text))
        except yaml.YAMLError:
            return
        value = data.get("metadata") if isinstance(data, dict) else None
        if value is not None and not isinstance(value, dict):
            return
        children = value or {}
    moved: list[str] = []
    deletions: list[TextEdit] = []
    review = False
    for key in unknown:
        block = fm.get(key)
        if block is None or block.more or key in children or not block.value(text):
            continue
        value = _scalar(block, text)
        raw = block.value(text)
        if isinstance(value, str):
            written = raw
        elif isinstance(value, (int, float, bool)):
            written = f'"{raw}"'  # metadata holds strings
            review = True
        else:
            continue
        review = review or _defined_anywhere(key)
        moved.append(f"{key}: {written}")
        deletions.append(TextEdit(block.start, block.end, ""))
    if not moved:
        return
    if meta is None:
        at = fm.end
        insert = "metadata:\n" + "".join(f"  {m}\n" for m in moved)
    else:
        indent = "  "
        if meta.more:
            first = text[meta.more[0][0] : meta.more[0][1]]
            indent = first[: len(first) - len(first.lstrip(" "))] or "  "
        at = meta.end
        insert = "".join(f"{indent}{m}\n" for m in moved)
    edits = [*deletions, TextEdit(at, at, insert)]
    keys = [m.split(":", 1)[0] for m in moved]
    names = ", ".join(keys)
    readers = sorted({r for key in keys for r in _readers(key)})
    also = ""
    if readers:
        shown = ", ".join(readers[:3]) + (
            f" and {len(readers) - 3} more" if len(readers) > 3 else ""
        )
        also = f" (read as a field by {shown}: there the skill changes)"
    yield Candidate(
        "SP216",
        line,
        f"move {names} under metadata{also}",
        "review" if review else "safe",
        tuple(sorted(edits, key=lambda e: (e.start, e.end))),
    )
