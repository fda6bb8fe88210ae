"""A small thread-safe LRU for rendered HTML, bounded by entries and by total characters.

Keys are built from the sha256 of the input plus the options, so a 2 MB body costs 64 bytes of key,
and equal texts from different skills share one entry. `functools.lru_cache` cannot be keyed by a
hash while still receiving the text, hence this class.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable


def digest(text: str) -> str:
    """sha256 of `text` (UTF-8, lone surrogates kept) as hex."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


class HtmlCache:
    """Least-recently-used mapping key -> HTML string."""

    def __init__(self, max_entries: int = 128, max_chars: int = 48_000_000) -> None:
        self.max_entries = max_entries
        self.max_chars = max_chars
        self._data: OrderedDict[Hashable, str] = OrderedDict()
        self._chars = 0
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def get_or_make(self, key: Hashable, make: Callable[[], str]) -> str:
        with self._lock:
            found = self._data.get(key)
            if found is not None:
                self._data.move_to_end(key)
                self.hits += 1
                return found
            self.misses += 1
        # Rendering happens outside the lock: two threads may render the same text once each,
        # which is cheaper than serialising every render behind one lock.
        value = make()
        with self._lock:
            if key not in self._data and len(value) <= self.max_chars:
                self._data[key] = value
                self._chars += len(value)
                while len(self._data) > self.max_entries or self._chars > self.max_chars:
                    _, old = self._data.popitem(last=False)
                    self._chars -= len(old)
        return value

    def clear(self) -> None:
        with self._lock:
            self._data.clear()
            self._chars = 0
            self.hits = self.misses = 0

    def __len__(self) -> int:
        return len(self._data)
