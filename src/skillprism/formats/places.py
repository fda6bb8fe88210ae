"""How a finding's path is written: absolute, or relative to the folder the user worked from when
they named relative PATHs (as compilers do)."""

from __future__ import annotations

import os
from dataclasses import dataclass

from skillprism.core.display import display_path


@dataclass(frozen=True)
class Places:
    """`relative_to`: write paths below this folder relative to it ('' = always absolute)."""

    relative_to: str = ""

    def show(self, path: str) -> str:
        if self.relative_to and path:
            base = self.relative_to.rstrip(os.sep) + os.sep
            if path.startswith(base):
                path = path[len(base) :]
        return display_path(path)

    def where(self, path: str, line: int, column: int) -> str:
        """`path:line:col`; a finding about a whole file (or folder) points at its start."""
        return f"{self.show(path)}:{max(line, 1)}:{max(column, 1)}"


ABSOLUTE = Places()
