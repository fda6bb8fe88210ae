"""A QTextBrowser that loads nothing it should not: only local files inside the folder it is
told about (the selected skill), never network resources; links are handed to the window."""

from __future__ import annotations

import os
from typing import Any

from PySide6.QtCore import QUrl
from PySide6.QtGui import QTextDocument
from PySide6.QtWidgets import QTextBrowser, QWidget


class SafeBrowser(QTextBrowser):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setOpenLinks(False)  # the window decides: external links open only when clicked
        self.setOpenExternalLinks(False)
        self._allowed_root = ""

    def set_allowed_root(self, folder: str) -> None:
        self._allowed_root = os.path.realpath(folder) if folder else ""

    def loadResource(self, kind: int, url: QUrl | str) -> Any:
        url = QUrl(url) if isinstance(url, str) else url
        if (
            kind == QTextDocument.ResourceType.ImageResource.value
            or kind == QTextDocument.ResourceType.ImageResource
        ):
            if url.isLocalFile() and self._allowed_root:
                real = os.path.realpath(url.toLocalFile())
                if real == self._allowed_root or real.startswith(self._allowed_root + os.sep):
                    return super().loadResource(kind, url)
            return None  # remote or outside the skill: nothing is fetched or read
        return None  # style sheets, other documents: never loaded
