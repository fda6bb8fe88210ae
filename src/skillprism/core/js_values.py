"""Frontmatter values as a JavaScript runtime turns them into text (String(value), JSON.stringify),
for the profiles whose runtime reads YAML into JavaScript values."""

from __future__ import annotations

import json
import re
from decimal import Decimal
from typing import Any

_EXPONENT = re.compile(r"e([+-])0*(\d)")


def non_string_text(value: Any, mode: str) -> str | None:
    """What a runtime whose profile says `non_strings = mode` reads a number, boolean, list or
    mapping as (None = refused): `js-string` = JavaScript's String(); `js-json` = String() for a
    number or boolean, JSON.stringify() for a list or mapping (OpenClaw); `js-keep` = the runtime
    keeps the value itself and only its String() is ever text (Amp's name pattern)."""
    if mode == "js-json" and isinstance(value, (list, dict)):
        return js_json(value)
    if mode in ("js-string", "js-json", "js-keep"):
        return js_string(value)
    return None


def held_value(frontmatter: dict[str, Any], field: str, text: Any, mode: str) -> Any:
    """The value a runtime holds as the skill's `field`: the frontmatter's own YAML value (a
    number, boolean, list or mapping) where its profile says `non_strings = "js-keep"`, else
    `text`, the name or description Skill Prism shows."""
    value = frontmatter.get(field)
    if mode == "js-keep" and value is not None and not isinstance(value, str):
        return value
    return text


def js_json(value: Any) -> str | None:
    """JavaScript's JSON.stringify() of a YAML list or mapping (None for a value it cannot write
    the way JavaScript would, such as a date)."""
    if value is None:
        return "null"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, (bool, int, float)):
        if isinstance(value, float) and (value != value or value in (float("inf"), float("-inf"))):
            return "null"
        return js_string(value)
    if isinstance(value, list):
        parts = [js_json(item) for item in value]
        return None if None in parts else "[" + ",".join(parts) + "]"  # type: ignore[arg-type]
    if isinstance(value, dict):
        out = []
        for key, item in value.items():
            text = js_json(item)
            if text is None:
                return None
            out.append(
                f"{json.dumps(key if isinstance(key, str) else js_string(key), ensure_ascii=False)}:{text}"
            )
        return "{" + ",".join(out) + "}"
    return None


def js_string(value: Any) -> str | None:
    """What JavaScript's String() makes of a YAML number, boolean or list; None for anything else
    (the yaml package's mappings have no prototype: String() throws on them, in a list too).
    Numbers follow Number.prototype.toString: integers beyond 2**53 become the nearest double,
    plain digits from 1e-6 up to 1e21, the shortest exponent form outside."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        if abs(value) < 2**53:
            return str(value)
        try:
            value = float(value)
        except OverflowError:
            return "Infinity" if value > 0 else "-Infinity"
    if isinstance(value, float):
        if value != value:
            return "NaN"
        if value in (float("inf"), float("-inf")):
            return "Infinity" if value > 0 else "-Infinity"
        if value == 0:
            return "0"
        if 1e-6 <= abs(value) < 1e21:
            # Python's repr is the shortest round-trip digits, as JavaScript's; only the form
            # differs (JavaScript writes no exponent in this range).
            text = format(Decimal(repr(value)), "f")
            return text[:-2] if text.endswith(".0") else text
        return _EXPONENT.sub(r"e\1\2", repr(value))
    if isinstance(value, list):
        # Array.prototype.toString: the items' strings joined by ',', null as ''.
        parts = []
        for item in value:
            if item is None:
                parts.append("")
                continue
            text = item if isinstance(item, str) else js_string(item)
            if text is None:
                return None
            parts.append(text)
        return ",".join(parts)
    return None
