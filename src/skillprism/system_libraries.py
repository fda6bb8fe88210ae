"""The Linux system libraries Qt loads at run time, and the Debian 12 package of each.

One table for two users: the app checks, before Qt would abort, that the X11 platform plugin's
libraries are present (and names the packages to install); the .deb build uses it to name packages
for libraries the build machine lacks. No Qt imports here."""

from __future__ import annotations

import ctypes

SONAME_PACKAGES: dict[str, str] = {
    "libEGL.so.1": "libegl1",
    "libGL.so.1": "libgl1",
    "libOpenGL.so.0": "libopengl0",
    "libX11-xcb.so.1": "libx11-xcb1",
    "libX11.so.6": "libx11-6",
    "libbrotlidec.so.1": "libbrotli1",
    "libbz2.so.1.0": "libbz2-1.0",
    "libcrypto.so.3": "libssl3",
    "libdbus-1.so.3": "libdbus-1-3",
    "libffi.so.8": "libffi8",
    "libfontconfig.so.1": "libfontconfig1",
    "libfreetype.so.6": "libfreetype6",
    "libglib-2.0.so.0": "libglib2.0-0",
    "libgssapi_krb5.so.2": "libgssapi-krb5-2",
    "libgthread-2.0.so.0": "libglib2.0-0",
    "liblzma.so.5": "liblzma5",
    "libssl.so.3": "libssl3",
    "libwayland-client.so.0": "libwayland-client0",
    "libwayland-cursor.so.0": "libwayland-cursor0",
    "libwayland-egl.so.1": "libwayland-egl1",
    "libxcb-cursor.so.0": "libxcb-cursor0",
    "libxcb-glx.so.0": "libxcb-glx0",
    "libxcb-icccm.so.4": "libxcb-icccm4",
    "libxcb-image.so.0": "libxcb-image0",
    "libxcb-keysyms.so.1": "libxcb-keysyms1",
    "libxcb-randr.so.0": "libxcb-randr0",
    "libxcb-render-util.so.0": "libxcb-render-util0",
    "libxcb-render.so.0": "libxcb-render0",
    "libxcb-shape.so.0": "libxcb-shape0",
    "libxcb-shm.so.0": "libxcb-shm0",
    "libxcb-sync.so.1": "libxcb-sync1",
    "libxcb-util.so.1": "libxcb-util1",
    "libxcb-xfixes.so.0": "libxcb-xfixes0",
    "libxcb-xkb.so.1": "libxcb-xkb1",
    "libxcb.so.1": "libxcb1",
    "libxkbcommon-x11.so.0": "libxkbcommon-x11-0",
    "libxkbcommon.so.0": "libxkbcommon0",
    "libz.so.1": "zlib1g",
    "libzstd.so.1": "libzstd1",
}

# What Qt's X11 platform plugin (libqxcb + libQt6XcbQpa) links against beyond Qt itself. When one
# is missing, Qt prints a generic message and aborts the process.
XCB_PLATFORM_LIBRARIES: tuple[str, ...] = (
    "libxcb.so.1",
    "libX11.so.6",
    "libX11-xcb.so.1",
    "libxkbcommon.so.0",
    "libxkbcommon-x11.so.0",
    "libxcb-cursor.so.0",
    "libxcb-icccm.so.4",
    "libxcb-image.so.0",
    "libxcb-keysyms.so.1",
    "libxcb-randr.so.0",
    "libxcb-render-util.so.0",
    "libxcb-render.so.0",
    "libxcb-shape.so.0",
    "libxcb-shm.so.0",
    "libxcb-sync.so.1",
    "libxcb-util.so.1",
    "libxcb-xfixes.so.0",
    "libxcb-xkb.so.1",
    "libEGL.so.1",
    "libGL.so.1",
    "libfontconfig.so.1",
    "libfreetype.so.6",
)


# Libraries the rest of Qt needs (QtCore's event loop, D-Bus), beside the X11 plugin's.
QT_RUNTIME_LIBRARIES: tuple[str, ...] = (
    *XCB_PLATFORM_LIBRARIES,
    "libglib-2.0.so.0",
    "libdbus-1.so.3",
)
# Needed at run time but not as a library: Qt draws text with a system font.
EXTRA_PACKAGES: tuple[str, ...] = ("fonts-dejavu-core",)


def loadable(soname: str) -> bool:
    """Whether the dynamic linker finds `soname` (loading a system library runs no code of
    ours; it stays loaded, as Qt would load it next anyway)."""
    try:
        ctypes.CDLL(soname)
    except OSError:
        return False
    return True


def missing_libraries(sonames: tuple[str, ...]) -> list[str]:
    return [soname for soname in sonames if not loadable(soname)]


def install_hint(sonames: list[str] | tuple[str, ...], extra: tuple[str, ...] = ()) -> str:
    """The apt-get line that installs the packages holding `sonames` (plus `extra`)."""
    packages = sorted({SONAME_PACKAGES.get(s, s) for s in sonames} | set(extra))
    return "sudo apt-get install " + " ".join(packages)
