"""The window paints on its GUI thread alone: Qt's raster engine would hand large fills to a
thread pool and wait for it, and under load (live runs keep the cores busy) the window stood
still while those threads waited for a core. Checked in a fresh process, as Qt reads the
setting at its first fill."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

pytest.importorskip("PySide6.QtWidgets")

PAINT = """
import os
from PySide6.QtCore import QPointF
from PySide6.QtGui import QColor, QImage, QPainter
from skillprism.gui.app import make_application

app = make_application()
image = QImage(800, 600, QImage.Format.Format_ARGB32_Premultiplied)
painter = QPainter(image)
painter.setRenderHint(QPainter.RenderHint.Antialiasing)
painter.setBrush(QColor(10, 200, 30, 180))
painter.drawEllipse(QPointF(400, 300), 390, 290)  # 580 spans: a fill Qt would split up
painter.end()
for tid in os.listdir("/proc/self/task"):
    with open(f"/proc/self/task/{tid}/comm", encoding="ascii") as f:
        print(f.read().strip())
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="threads listed from /proc")
def test_a_large_fill_starts_no_paint_threads(tmp_path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "QT_NO_GUI_THREADPOOL"}
    env["QT_QPA_PLATFORM"] = "offscreen"
    done = subprocess.run(
        [sys.executable, "-c", PAINT],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    threads = done.stdout.split("\n")
    assert threads[0] and "Thread (pooled)" not in threads, threads
