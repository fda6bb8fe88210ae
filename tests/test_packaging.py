"""The packaging pieces that can be checked without a frozen build: icons generated from the SVG
master (.png sizes, .ico and .icns containers), the desktop file and AppStream metainfo, the ELF
reader behind the .deb's Depends line, and the .deb and .tar.gz layouts built from a stand-in app
folder. `make package` builds the real thing and runs its self-test."""

from __future__ import annotations

import configparser
import shutil
import struct
import subprocess
import sys
import tarfile
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from skillprism import APP_ID, APP_NAME, __version__

ROOT = Path(__file__).resolve().parent.parent
PACKAGING = ROOT / "packaging"
sys.path.insert(0, str(PACKAGING))

import linux_packages  # noqa: E402
import make_icons  # noqa: E402


@pytest.fixture(scope="module")
def icons(qapp, tmp_path_factory: pytest.TempPathFactory) -> Path:  # type: ignore[no-untyped-def]
    # pytest-qt's QApplication first: a QGuiApplication made here would outlive this module and
    # make every later QWidget in the process abort.
    pytest.importorskip("PySide6.QtSvg")
    out = tmp_path_factory.mktemp("icons")
    make_icons.generate(out)
    return out


def _png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    return struct.unpack(">II", data[16:24])


def test_hicolor_pngs_have_their_sizes(icons: Path) -> None:
    for size in make_icons.HICOLOR_SIZES:
        png = icons / "hicolor" / f"{size}x{size}" / "apps" / f"{APP_ID}.png"
        assert _png_size(png.read_bytes()) == (size, size)
    scalable = icons / "hicolor" / "scalable" / "apps" / f"{APP_ID}.svg"
    assert scalable.read_bytes() == make_icons.MASTER.read_bytes()


def test_icons_are_not_blank(icons: Path) -> None:
    from PySide6.QtGui import QImage

    image = QImage(str(icons / "hicolor" / "64x64" / "apps" / f"{APP_ID}.png"))
    colours = {image.pixel(x, y) for x in range(0, 64, 4) for y in range(0, 64, 4)}
    assert len(colours) > 8  # a drawn picture, not an empty or single-colour square
    assert image.pixelColor(0, 0).alpha() == 0  # rounded corners stay transparent


def test_ico_container(icons: Path) -> None:
    data = (icons / f"{APP_ID}.ico").read_bytes()
    reserved, kind, count = struct.unpack_from("<HHH", data, 0)
    assert (reserved, kind, count) == (0, 1, len(make_icons.ICO_SIZES))
    seen = []
    for i in range(count):
        width, height, _c, _r, planes, bits, length, offset = struct.unpack_from(
            "<BBBBHHII", data, 6 + 16 * i
        )
        size = width or 256
        assert (width, planes, bits) == (height, 1, 32)
        assert _png_size(data[offset : offset + length]) == (size, size)
        seen.append(size)
    assert seen == sorted(make_icons.ICO_SIZES)


def test_icns_container(icons: Path) -> None:
    data = (icons / f"{APP_ID}.icns").read_bytes()
    assert data[:4] == b"icns"
    assert struct.unpack(">I", data[4:8])[0] == len(data)
    pos, found = 8, {}
    while pos < len(data):
        ostype = data[pos : pos + 4].decode("ascii")
        length = struct.unpack(">I", data[pos + 4 : pos + 8])[0]
        found[ostype] = _png_size(data[pos + 8 : pos + length])
        pos += length
    assert pos == len(data)
    assert found == {ostype: (size, size) for ostype, size in make_icons.ICNS_ENTRIES}


def test_desktop_file_names_the_app_id() -> None:
    path = PACKAGING / "linux" / f"{APP_ID}.desktop"
    parser = configparser.ConfigParser(interpolation=None)
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    parser.read(path, encoding="utf-8")
    entry = parser["Desktop Entry"]
    assert entry["Type"] == "Application"
    assert entry["Name"] == APP_NAME
    assert entry["Icon"] == APP_ID
    assert entry["StartupWMClass"] == APP_ID
    assert entry["Exec"].split()[0] == "skillprism"
    assert entry["Categories"].endswith(";")
    validator = shutil.which("desktop-file-validate")
    if validator:
        result = subprocess.run([validator, str(path)], capture_output=True, text=True)
        assert result.returncode == 0, result.stdout + result.stderr


def test_metainfo_matches_the_app() -> None:
    path = PACKAGING / "linux" / f"{APP_ID}.metainfo.xml"
    root = ET.parse(path).getroot()
    assert root.get("type") == "desktop-application"
    assert root.findtext("id") == APP_ID
    assert root.findtext("name") == APP_NAME
    assert root.findtext("launchable") == f"{APP_ID}.desktop"
    assert root.findtext("project_license") == "Apache-2.0"
    releases = [r.get("version") for r in root.iter("release")]
    assert releases[0] == __version__, "add a <release> for the new version"
    validator = shutil.which("appstreamcli")
    if validator:
        result = subprocess.run(
            [validator, "validate", "--no-net", str(path)], capture_output=True, text=True
        )
        assert result.returncode == 0, result.stdout + result.stderr


def test_needed_libraries_reads_elf_dynamic_sections() -> None:
    qtcore = pytest.importorskip("PySide6.QtCore")
    needed = linux_packages.needed_libraries(Path(qtcore.__file__))
    assert any(lib.startswith("libQt6Core.so") for lib in needed)
    assert "libc.so.6" in linux_packages.needed_libraries(Path(shutil.which("true") or "/bin/true"))
    assert linux_packages.needed_libraries(make_icons.MASTER) == []


def test_known_sonames_are_sonames() -> None:
    for soname, package in linux_packages.SONAME_PACKAGES.items():
        assert ".so." in soname and package == package.lower(), soname


def _stand_in_app(folder: Path) -> Path:
    """An app folder shaped like PyInstaller's: an ELF executable and an _internal folder."""
    app = folder / "skillprism"
    (app / "_internal" / "skillprism").mkdir(parents=True)
    shutil.copy2(shutil.which("true") or "/bin/true", app / "skillprism")
    (app / "_internal" / "skillprism" / "data.txt").write_text("x", encoding="utf-8")
    (app / "_internal" / "link").symlink_to("skillprism/data.txt")
    return app


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux packages")
def test_tarball_layout_is_reproducible(icons: Path, tmp_path: Path) -> None:
    app = _stand_in_app(tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    first = linux_packages.build_tarball(app, icons, out, tmp_path / "w1", "9.9", 1_700_000_000)
    data = first.path.read_bytes()
    second = linux_packages.build_tarball(app, icons, out, tmp_path / "w2", "9.9", 1_700_000_000)
    assert second.path.read_bytes() == data  # same inputs, same bytes
    with tarfile.open(first.path) as tar:
        members = {m.name: m for m in tar.getmembers()}
    top = first.path.name.removesuffix(".tar.gz")
    assert members[f"{top}/skillprism"].mode & 0o111
    assert members[f"{top}/_internal/link"].issym()
    assert f"{top}/share/applications/{APP_ID}.desktop" in members
    assert f"{top}/share/icons/hicolor/256x256/apps/{APP_ID}.png" in members
    assert f"{top}/share/doc/skillprism/copyright" in members
    assert all(m.uid == 0 and m.mtime == 1_700_000_000 for m in members.values())


@pytest.mark.skipif(shutil.which("dpkg-deb") is None, reason="needs dpkg-deb")
def test_deb_layout_and_control(icons: Path, tmp_path: Path) -> None:
    app = _stand_in_app(tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    deb = linux_packages.build_deb(app, icons, out, tmp_path / "work", "9.9", 1_700_000_000)
    info = subprocess.run(
        ["dpkg-deb", "-f", str(deb.path)], capture_output=True, text=True, check=True
    ).stdout
    fields = dict(line.split(": ", 1) for line in info.splitlines() if ": " in line)
    assert fields["Package"] == "skillprism" and fields["Version"] == "9.9"
    depends = fields["Depends"].split(", ")
    assert depends[0].startswith("libc6 (>= 2.")
    assert "fonts-dejavu-core" in depends
    listing = subprocess.run(
        ["dpkg-deb", "-c", str(deb.path)], capture_output=True, text=True, check=True
    ).stdout
    assert "./usr/bin/skillprism -> /opt/skillprism/skillprism" in listing
    for path in (
        "./opt/skillprism/skillprism",
        f"./usr/share/applications/{APP_ID}.desktop",
        f"./usr/share/metainfo/{APP_ID}.metainfo.xml",
        f"./usr/share/icons/hicolor/16x16/apps/{APP_ID}.png",
        f"./usr/share/icons/hicolor/512x512/apps/{APP_ID}.png",
        f"./usr/share/icons/hicolor/scalable/apps/{APP_ID}.svg",
        "./usr/share/doc/skillprism/copyright",
    ):
        assert path in listing, path
    assert " root/root " in listing.splitlines()[0]


def test_copyright_names_every_bundled_component() -> None:
    text = linux_packages._copyright_text()
    for component in ("Qt 6", "PyYAML", "Python-Markdown", "Pygments", "watchdog", "toktok-rs"):
        assert component in text
    assert "PyInstaller" in text and "ICU" in text
    assert text.startswith("Format: https://www.debian.org/doc/packaging-manuals/copyright-format/")
