"""The graveyard lets go of a large structure a little at a time, and changes nothing."""

from __future__ import annotations

import gc
import weakref
from dataclasses import dataclass

from skillprism.app.release import Graveyard


class Node:
    def __init__(self, children: list[Node] | None = None) -> None:
        self.children = children or []


@dataclass(frozen=True, slots=True)
class Entry:
    name: str
    parts: tuple[object, ...]


def test_everything_buried_is_released_and_nothing_shared_is_touched() -> None:
    shared = {"kept": [1, 2, 3]}
    leaves = [Node() for _ in range(2000)]
    gone = [weakref.ref(leaf) for leaf in leaves]
    entries = tuple(Entry(f"e{i}", (leaves[i], shared)) for i in range(2000))
    root = Node([Node(list(leaves)), Node([]), Node()])
    big = {"entries": entries, "root": root, "shared": shared}
    del leaves, entries, root
    graveyard = Graveyard()
    graveyard.bury(big)
    del big
    assert graveyard
    rounds = 0
    while not graveyard.dig(0.0):  # the smallest slices: at least one object each
        rounds += 1
    assert rounds > 1  # it let go in more than one piece
    assert not graveyard
    assert all(ref() is None for ref in gone)
    assert shared == {"kept": [1, 2, 3]}


def test_cycles_are_left_to_the_collector() -> None:
    a, b = Node(), Node()
    a.children.append(b)
    b.children.append(a)
    ref = weakref.ref(a)
    graveyard = Graveyard()
    graveyard.bury(a)
    del a, b
    assert graveyard.dig(1.0)
    gc.collect()
    assert ref() is None
