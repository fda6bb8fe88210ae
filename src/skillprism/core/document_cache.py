"""Parsed skill files and their evaluations, kept while each file is unchanged, so a rescan after
one change re-reads only that file (the live catalog, the window's engine and `check` share it)."""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable
from typing import TYPE_CHECKING

from skillprism.core.document import FileStamp, SkillDocument, file_stamp, parse_document
from skillprism.core.validate import Evaluation

if TYPE_CHECKING:  # the security pass is imported when it first runs: `check` starts faster
    from skillprism.core.security import RiskFinding

log = logging.getLogger(__name__)


class DocumentCache:
    """Parsed documents, and profile evaluations of them, keyed by path and reused while the file's
    stamp (inode, mtime, ctime, size, mode: see `file_stamp`) is unchanged: a rescan after one file
    changed re-parses and re-evaluates only that file, including when the first scan ran in worker
    processes, and a permission change is seen like an edit."""

    def __init__(self) -> None:
        self._docs: dict[str, tuple[FileStamp, SkillDocument]] = {}
        # path -> profile key -> stored evaluation: forgetting a path is one lookup, however many
        # files and profiles are stored (a reload forgets every file of the set).
        self._evaluations: dict[str, dict[int, tuple[FileStamp, Evaluation]]] = {}
        self._risks: dict[str, tuple[FileStamp, list[RiskFinding]]] = {}

    @staticmethod
    def _stamp(path: str) -> FileStamp | None:
        try:
            return file_stamp(os.stat(path))
        except OSError:
            return None

    def get(self, path: str) -> SkillDocument:
        stamp = self._stamp(path)
        if stamp is not None:
            cached = self._docs.get(path)
            if cached is not None and cached[0] == stamp:
                return cached[1]
        doc = parse_document(path)
        if stamp is not None and doc.stamp == stamp:
            self._docs[path] = (stamp, doc)
        return doc

    def evaluation(self, path: str, profile_key: int) -> Evaluation | None:
        """A stored evaluation of `path` under the profile, if the file is unchanged since. (Not
        its real path: links on the way to an unchanged file may have changed.)"""
        cached = self._evaluations.get(path, {}).get(profile_key)
        if cached is None or self._stamp(path) != cached[0]:
            return None
        return cached[1]

    def risks(self, path: str) -> list[RiskFinding] | None:
        """The security findings of the skill whose file is `path`, if its file is unchanged
        since (a change elsewhere in the skill folder is forgotten by the live catalog)."""
        cached = self._risks.get(path)
        if cached is None or self._stamp(path) != cached[0]:
            return None
        return cached[1]

    def evaluated_stamp(self, path: str) -> FileStamp | None:
        """The stamp of the file `path` as it was when its stored findings were made (None when
        none are stored)."""
        stored = self._evaluations.get(path)
        return next(iter(stored.values()))[0] if stored else None

    def store_risks(self, path: str, stamp: FileStamp | None, risks: list[RiskFinding]) -> None:
        if stamp is not None:
            self._risks[path] = (stamp, risks)

    def store_evaluation(
        self, path: str, profile_key: int, stamp: FileStamp | None, evaluation: Evaluation
    ) -> None:
        if stamp is not None:
            self._evaluations.setdefault(path, {})[profile_key] = (stamp, evaluation)

    def forget(self, paths: Iterable[str]) -> None:
        for p in paths:
            self._docs.pop(p, None)
            self._risks.pop(p, None)
            self._evaluations.pop(p, None)
