"""Importing a scanning library without the parts of it the scan never calls.

detect-secrets imports `requests` for its verification (asking each issuer's API whether a
secret is live) and bandit imports `rich` for its command line's progress bar. The scan calls
neither, yet importing them is a good part of what the security pass costs before it reads its
first file. While such a library is imported, each of those modules is a stand-in whose every
use raises; afterwards the stand-ins leave `sys.modules`, so any other code importing the real
module gets the real module. For `requests` the stand-in is also a guarantee: nothing the
library holds can reach the network.
"""

from __future__ import annotations

import sys
import types
from collections.abc import Iterator
from contextlib import contextmanager


class Refused(OSError):
    """What a stand-in raises when the library uses it after all."""


class _StandIn(types.ModuleType):
    """A module every attribute of which is refused (one of `sub` is another stand-in)."""

    def __init__(self, name: str, sub: tuple[str, ...] = ()) -> None:
        super().__init__(name)
        for part in sub:
            setattr(self, part, _StandIn(f"{name}.{part}"))
        # `except requests.exceptions.RequestException:` must name an exception class.
        self.RequestException = Refused
        self.__path__: list[str] = []  # a package: `from rich import progress` looks here first

    def __getattr__(self, attr: str) -> object:
        if attr.startswith("__"):
            raise AttributeError(attr)

        def refused(*_args: object, **_kwargs: object) -> object:
            raise Refused(f"{self.__name__}.{attr} is not available to the security scan")

        return refused


@contextmanager
def standing_in(*names: str) -> Iterator[None]:
    """While the block runs, `import NAME` (and `from NAME import sub`) of each module in `names`
    not imported yet gives a stand-in; afterwards those names are free again. A name holds its
    submodules after a colon: "rich:progress", "requests:exceptions"."""
    added: list[str] = []
    for spec in names:
        name, _, subs = spec.partition(":")
        if name in sys.modules:
            continue  # already here for real: nothing to save
        module = _StandIn(name, tuple(s for s in subs.split(",") if s))
        sys.modules[name] = module
        added.append(name)
        for sub in subs.split(",") if subs else ():
            sys.modules[f"{name}.{sub}"] = getattr(module, sub)
            added.append(f"{name}.{sub}")
    try:
        yield
    finally:
        for name in added:
            if isinstance(sys.modules.get(name), _StandIn):
                del sys.modules[name]
