"""Generate every application icon from the one SVG master in resources/icons/.

Writes, into the output folder (default build/icons):
- hicolor/<N>x<N>/apps/org.skillprism.SkillPrism.png for the sizes freedesktop themes use, plus
  hicolor/scalable/apps/org.skillprism.SkillPrism.svg (the master itself);
- org.skillprism.SkillPrism.ico (Windows: PNG-compressed entries, 16-256 px);
- org.skillprism.SkillPrism.icns (macOS: PNG entries, 16-1024 px).

Qt's SVG renderer draws the master; the .ico and .icns containers are written here, because
PySide6-Essentials ships no writer for them. Both formats accept PNG payloads, which keeps this
small. Run offscreen: `QT_QPA_PLATFORM=offscreen python packaging/make_icons.py [OUT]`.
"""

from __future__ import annotations

import os
import shutil
import struct
import sys
from pathlib import Path

APP_ID = "org.skillprism.SkillPrism"
ROOT = Path(__file__).resolve().parent.parent
MASTER = ROOT / "resources" / "icons" / f"{APP_ID}.svg"

HICOLOR_SIZES = (16, 22, 24, 32, 48, 64, 96, 128, 256, 512)
ICO_SIZES = (16, 24, 32, 48, 64, 128, 256)
# (OSType, pixel size): the PNG-capable icns entries, including the @2x ones.
ICNS_ENTRIES = (
    ("icp4", 16),
    ("icp5", 32),
    ("icp6", 64),
    ("ic07", 128),
    ("ic08", 256),
    ("ic09", 512),
    ("ic10", 1024),
    ("ic11", 32),
    ("ic12", 64),
    ("ic13", 256),
    ("ic14", 512),
)


def render_png(renderer, size: int) -> bytes:  # type: ignore[no-untyped-def]
    """The master drawn at size x size, as PNG bytes."""
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice
    from PySide6.QtGui import QImage, QPainter

    image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(0)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
    renderer.render(painter)
    painter.end()
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    if not image.save(buffer, "PNG"):
        raise RuntimeError(f"could not encode the {size} px icon as PNG")
    return bytes(data.data())


def ico_bytes(pngs: dict[int, bytes]) -> bytes:
    """An ICO file holding PNG-compressed images (supported since Windows Vista)."""
    sizes = sorted(pngs)
    header = struct.pack("<HHH", 0, 1, len(sizes))
    offset = 6 + 16 * len(sizes)
    directory = b""
    payload = b""
    for size in sizes:
        data = pngs[size]
        edge = 0 if size >= 256 else size  # 0 means 256 in an ICO directory entry
        directory += struct.pack("<BBBBHHII", edge, edge, 0, 0, 1, 32, len(data), offset)
        payload += data
        offset += len(data)
    return header + directory + payload


def icns_bytes(pngs: dict[int, bytes]) -> bytes:
    """An ICNS file: big-endian 'icns' header, then (OSType, length, PNG) entries."""
    body = b""
    for ostype, size in ICNS_ENTRIES:
        data = pngs[size]
        body += ostype.encode("ascii") + struct.pack(">I", 8 + len(data)) + data
    return b"icns" + struct.pack(">I", 8 + len(body)) + body


def generate(out: Path) -> list[Path]:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtGui import QGuiApplication
    from PySide6.QtSvg import QSvgRenderer

    _app = QGuiApplication.instance() or QGuiApplication(sys.argv[:1])
    renderer = QSvgRenderer(str(MASTER))
    if not renderer.isValid():
        raise RuntimeError(f"{MASTER}: Qt could not read the SVG master")
    sizes = sorted({*HICOLOR_SIZES, *ICO_SIZES, *(size for _, size in ICNS_ENTRIES)})
    pngs = {size: render_png(renderer, size) for size in sizes}
    written: list[Path] = []
    for size in HICOLOR_SIZES:
        target = out / "hicolor" / f"{size}x{size}" / "apps" / f"{APP_ID}.png"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(pngs[size])
        written.append(target)
    scalable = out / "hicolor" / "scalable" / "apps" / f"{APP_ID}.svg"
    scalable.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(MASTER, scalable)
    written.append(scalable)
    for suffix, data in (
        (".ico", ico_bytes({s: pngs[s] for s in ICO_SIZES})),
        (".icns", icns_bytes(pngs)),
    ):
        target = out / f"{APP_ID}{suffix}"
        target.write_bytes(data)
        written.append(target)
    return written


def main(argv: list[str]) -> int:
    out = Path(argv[0]) if argv else ROOT / "build" / "icons"
    written = generate(out)
    print(f"make_icons: {len(written)} files in {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
