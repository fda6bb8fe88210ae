"""BLAKE2b, the one hash of the security pass (cache keys, pattern keys, large files' digests).

Taken from CPython's own `_blake2` module where it is there: `hashlib` loads OpenSSL when first
imported, which costs each process (the check and every worker) megabytes of memory for a hash
that `_blake2` provides the same.
"""

from __future__ import annotations

try:
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - an interpreter built without it
    from hashlib import blake2b

__all__ = ["blake2b"]
