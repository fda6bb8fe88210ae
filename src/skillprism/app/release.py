"""Letting go of a large structure a little at a time.

When the last reference to a big object graph goes (a workspace of 10,000 skills: its caches,
catalogs and documents), CPython frees the whole graph in one cascade of deallocations that holds
the interpreter lock from start to end, tens of milliseconds during which no other thread runs
Python. A `Graveyard` takes such a graph instead and releases it from the top down: each object
it holds the last reference to is opened (its items or attributes go on a stack) before it is
freed, so every single free is small and the loop that does them lets other threads in between.
Nothing is modified: an object someone else still references is only let go, never opened.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterable

# What is opened: a collection of more than BIG items at any depth up to MAX_DEPTH (a catalog's
# skills, a cache's documents), any other object only near the top (a workspace, its catalogs).
# Below that each piece is freed whole: a skill's document or entry is small.
BIG = 16
OBJECT_DEPTH = 3
MAX_DEPTH = 8
_OPENED = (dict, list, tuple, set, frozenset)


def _worth_opening(obj: object, depth: int) -> bool:
    if type(obj) in _OPENED:
        return depth <= OBJECT_DEPTH or (depth <= MAX_DEPTH and len(obj) > BIG)  # type: ignore[arg-type]
    return depth <= OBJECT_DEPTH


def _children(obj: object) -> Iterable[object]:
    kind = type(obj)
    if kind is dict:
        return [*obj.keys(), *obj.values()]  # type: ignore[attr-defined]
    if kind in _OPENED:
        return list(obj)  # type: ignore[call-overload]
    if kind.__module__ == "builtins":
        return ()  # strings, numbers, bytes, functions: nothing worth opening
    out: list[object] = []
    attrs = getattr(obj, "__dict__", None)
    if type(attrs) is dict:
        out.extend(attrs.values())
    for cls in kind.__mro__:
        for slot in cls.__dict__.get("__slots__", ()):
            if slot not in ("__dict__", "__weakref__"):
                value = getattr(obj, slot, None)
                if value is not None:
                    out.append(value)
    return out


class Graveyard:
    """Objects to release gradually: `bury` them, then `dig` whenever there is time."""

    def __init__(self) -> None:
        self._stack: list[tuple[object, int]] = []

    def bury(self, obj: object) -> None:
        self._stack.append((obj, 0))

    def __bool__(self) -> bool:
        return bool(self._stack)

    def dig(self, seconds: float) -> bool:
        """Release for about `seconds`; True when everything buried is released."""
        deadline = time.perf_counter() + seconds
        stack = self._stack
        done = 0
        while stack:
            obj, depth = stack.pop()
            # Two references: `obj` here and getrefcount's own argument. More means someone
            # else holds it: letting go frees nothing, so there is nothing to open.
            if sys.getrefcount(obj) <= 2 and _worth_opening(obj, depth):
                stack.extend((child, depth + 1) for child in _children(obj))
            del obj
            done += 1
            if not done & 255 and time.perf_counter() > deadline:
                return not stack
        return True
