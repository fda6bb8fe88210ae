"""Starting the desktop app: early checks before Qt, application identity, palette, the window,
and `--screenshot` mode (1440x900, PNG written once the scan result is shown, then exit)."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

from skillprism import APP_ID, APP_NAME, ORGANIZATION, __version__

if TYPE_CHECKING:
    from skillprism.engine.views import LoadedView


def qt_or_explain() -> bool:
    """Import Qt, or print what is missing and how to install it (no traceback)."""
    try:
        from PySide6 import QtGui, QtWidgets  # noqa: F401
    except ImportError as err:
        from skillprism.system_libraries import (
            EXTRA_PACKAGES,
            QT_RUNTIME_LIBRARIES,
            install_hint,
        )

        print(
            f"{APP_NAME}: the Qt libraries could not be loaded ({err}).\n"
            "On Debian or Ubuntu, install the system libraries Qt needs with:\n  "
            f"{install_hint(QT_RUNTIME_LIBRARIES, EXTRA_PACKAGES)}",
            file=sys.stderr,
        )
        return False
    return True


def _x11_libraries_or_explain() -> bool:
    """On X11, check the libraries of Qt's X11 platform plugin first: without one, Qt aborts with
    a message that does not say what to install."""
    if sys.platform != "linux" or (os.environ.get("QT_QPA_PLATFORM") or "xcb") != "xcb":
        return True
    if os.environ.get("WAYLAND_DISPLAY") and not os.environ.get("QT_QPA_PLATFORM"):
        return True  # Qt picks its Wayland plugin
    from skillprism.system_libraries import (
        XCB_PLATFORM_LIBRARIES,
        install_hint,
        missing_libraries,
    )

    missing = missing_libraries(XCB_PLATFORM_LIBRARIES)
    if not missing:
        return True
    print(
        f"{APP_NAME}: cannot open a window on X11: these libraries are missing: "
        f"{', '.join(missing)}.\nOn Debian or Ubuntu, install them with:\n  "
        f"{install_hint(missing)}\n(`skillprism check` works without them.)",
        file=sys.stderr,
    )
    return False


def _display_or_explain(screenshot: bool) -> bool:
    if os.environ.get("QT_QPA_PLATFORM") or sys.platform != "linux":
        return True
    if os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"):
        return True
    if screenshot:
        os.environ["QT_QPA_PLATFORM"] = "offscreen"  # a screenshot needs no screen
        return True
    print(
        f"{APP_NAME}: no display found (DISPLAY and WAYLAND_DISPLAY are unset).\n"
        "Run it in a desktop session, or use `skillprism check` for headless checks "
        "(QT_QPA_PLATFORM=offscreen with --screenshot FILE renders the window to a PNG).",
        file=sys.stderr,
    )
    return False


def _uses_xcb() -> bool:
    """Whether Qt will pick its X11 platform plugin here."""
    if sys.platform != "linux":
        return False
    platform = os.environ.get("QT_QPA_PLATFORM")
    if platform:
        return platform.split(":", 1)[0] == "xcb"
    return not os.environ.get("WAYLAND_DISPLAY")


def x_server_problem(display: str, timeout: float = 2.0) -> str:
    """Why no X server answers at `display` ('' when one does). Only the socket is tried: Qt's
    own failure is an abort with a message that does not say which display was meant."""
    import re
    import socket

    m = re.fullmatch(r"(?P<host>[^:]*):(?P<number>\d+)(?:\.\d+)?", display)
    if m is None:
        return f"DISPLAY={display!r} is not a display name such as ':0'"
    host, number = m.group("host"), int(m.group("number"))
    try:
        if host in ("", "unix"):
            path = f"/tmp/.X11-unix/X{number}"
            last: OSError | None = None
            for address in (path, "\0" + path):  # the file socket, then Linux's abstract one
                with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
                    sock.settimeout(timeout)
                    try:
                        sock.connect(address)
                        return ""
                    except OSError as err:
                        last = err
            raise last or OSError("no socket")
        with socket.create_connection((host, 6000 + number), timeout=timeout):
            return ""
    except OSError as err:
        return f"no X server answers at DISPLAY={display} ({err.strerror or err})"


def _x_server_or_explain() -> bool:
    display = os.environ.get("DISPLAY", "")
    if not display or not _uses_xcb():
        return True
    problem = x_server_problem(display)
    if problem:
        print(
            f"{APP_NAME}: cannot open a window: {problem}. Start the desktop session (or Xvfb) "
            "first, or use `skillprism check` headless.",
            file=sys.stderr,
        )
        return False
    return True


def dark_palette():  # type: ignore[no-untyped-def]
    from PySide6.QtGui import QColor, QPalette

    p = QPalette()
    roles = QPalette.ColorRole
    for role, color in (
        (roles.Window, "#25272b"),
        (roles.WindowText, "#e6e6e6"),
        (roles.Base, "#1e1f22"),
        (roles.AlternateBase, "#2b2d31"),
        (roles.ToolTipBase, "#2b2d31"),
        (roles.ToolTipText, "#e6e6e6"),
        (roles.Text, "#e6e6e6"),
        (roles.Button, "#2f3136"),
        (roles.ButtonText, "#e6e6e6"),
        (roles.BrightText, "#ff6b6b"),
        (roles.Link, "#6cb6ff"),
        (roles.Highlight, "#2f6feb"),
        (roles.HighlightedText, "#ffffff"),
        (roles.PlaceholderText, "#8b8f96"),
    ):
        p.setColor(role, QColor(color))
    disabled = QPalette.ColorGroup.Disabled
    for role in (roles.Text, roles.WindowText, roles.ButtonText):
        p.setColor(disabled, role, QColor("#80848b"))
    return p


def contrast_style(base: str = "Fusion"):  # type: ignore[no-untyped-def]
    """`base` with check-box and radio-button indicators given a visible edge on a dark palette:
    Fusion draws their edge a shade darker than the window, which a dark window swallows, so an
    unchecked box is invisible there."""
    from PySide6.QtGui import QColor, QPainter, QPen
    from PySide6.QtWidgets import QProxyStyle, QStyle, QStyleFactory

    class _ContrastStyle(QProxyStyle):
        def drawPrimitive(self, element, option, painter, widget=None):  # type: ignore[no-untyped-def]
            super().drawPrimitive(element, option, painter, widget)
            edged = (
                QStyle.PrimitiveElement.PE_IndicatorCheckBox,
                QStyle.PrimitiveElement.PE_IndicatorRadioButton,
                QStyle.PrimitiveElement.PE_IndicatorItemViewItemCheck,
            )
            if element not in edged:
                return
            if option.palette.color(option.palette.ColorRole.Window).lightness() >= 128:
                return
            painter.save()
            painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
            painter.setPen(QPen(QColor("#9aa0a8"), 1))
            painter.setBrush(QColor(0, 0, 0, 0))
            rect = option.rect.adjusted(1, 1, -1, -1)
            if element == QStyle.PrimitiveElement.PE_IndicatorRadioButton:
                painter.drawEllipse(rect)
            else:
                painter.drawRoundedRect(rect, 2, 2)
            painter.restore()

    return _ContrastStyle(QStyleFactory.create(base))


def light_palette():  # type: ignore[no-untyped-def]
    from PySide6.QtGui import QColor, QPalette

    p = QPalette()
    roles = QPalette.ColorRole
    for role, color in (
        (roles.Window, "#f3f4f6"),
        (roles.WindowText, "#1f2328"),
        (roles.Base, "#ffffff"),
        (roles.AlternateBase, "#f6f8fa"),
        (roles.ToolTipBase, "#ffffe0"),
        (roles.ToolTipText, "#1f2328"),
        (roles.Text, "#1f2328"),
        (roles.Button, "#eef0f3"),
        (roles.ButtonText, "#1f2328"),
        (roles.Link, "#0b5cad"),
        (roles.Highlight, "#2f6feb"),
        (roles.HighlightedText, "#ffffff"),
        (roles.PlaceholderText, "#6e7781"),
    ):
        p.setColor(role, QColor(color))
    disabled = QPalette.ColorGroup.Disabled
    for role in (roles.Text, roles.WindowText, roles.ButtonText):
        p.setColor(disabled, role, QColor("#8c959f"))
    return p


def set_application_identity() -> None:
    """Name the app for the desktop before QApplication exists.

    The application id is the desktop file's name (Wayland app_id through setDesktopFileName) and
    the X11 window class, which Qt takes from the application name; people see the display name.
    QSettings are opened with explicit names, so the id does not move the user's settings."""
    from PySide6.QtGui import QGuiApplication

    QGuiApplication.setApplicationName(APP_ID)
    QGuiApplication.setApplicationDisplayName(APP_NAME)
    QGuiApplication.setOrganizationName(ORGANIZATION)
    QGuiApplication.setApplicationVersion(__version__)
    QGuiApplication.setDesktopFileName(APP_ID)


# Messages Qt platform plugins print that say nothing to a user (the offscreen plugin cannot
# propagate size hints to a window manager it does not have).
_PLATFORM_NOISE = ("This plugin does not support propagateSizeHints()",)


def quiet_platform_noise() -> None:
    """Drop the platform plugins' meaningless warnings; pass every other Qt message on."""
    from PySide6.QtCore import QtMsgType, qInstallMessageHandler

    def handler(kind: QtMsgType, _context: object, message: str) -> None:
        if message in _PLATFORM_NOISE:
            return
        if kind != QtMsgType.QtDebugMsg:
            print(message, file=sys.stderr)

    qInstallMessageHandler(handler)


# Qt's raster engine hands every fill of 96 spans or more (a progress bar's stripes, a table's
# grid) to a thread pool of its own and waits for it on the GUI thread. While live runs keep
# the cores busy those threads wait for one, and the window stands still with them, off the
# processor (bench/bench_live_window.py); widget-sized fills cost less done where they are.
SERIAL_FILLS = ("QT_NO_GUI_THREADPOOL", "1")


def make_application():  # type: ignore[no-untyped-def]
    """The QApplication (created once), with the app's identity and icon; Qt paints on the GUI
    thread alone (SERIAL_FILLS)."""
    os.environ.setdefault(*SERIAL_FILLS)  # read by Qt at its first fill: before any window
    from PySide6.QtWidgets import QApplication

    from skillprism.gui.icons import app_icon
    from skillprism.gui.none_guard import guard_none

    guard_none()  # before the first window: a leaking binding must not get to abort the app
    set_application_identity()
    quiet_platform_noise()
    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setWindowIcon(app_icon())
    return app


def run_gui(
    paths: list[str],
    profile: str | None,
    palette: str | None,
    screenshot: str | None,
    exit_when_ready: bool = False,
    *,
    install_into: str = "",
) -> int:
    """Open the window. `screenshot`: write a PNG once the first scan is shown, then quit.
    `exit_when_ready`: print a line once the first scan is shown, then quit (start-up benchmark).
    The PATHs and the profile are checked before (cli/gui.py)."""
    if not _display_or_explain(bool(screenshot) or exit_when_ready) or not qt_or_explain():
        return 2
    if not _x11_libraries_or_explain() or not _x_server_or_explain():
        return 2
    from PySide6.QtCore import QSettings, QTimer

    app = make_application()
    settings = QSettings(ORGANIZATION, APP_NAME)
    if palette:
        app.setStyle(contrast_style("Fusion"))
        app.setPalette(dark_palette() if palette == "dark" else light_palette())
    from skillprism.gui.main_window import MainWindow

    install_logging()
    project = os.getcwd()
    # No runtime chosen, now or before: the one whose own folders the set is laid out with.
    choose_profile = not profile and not settings.contains("profile") and not paths
    profile = profile or settings.value("profile", "agentskills", str)
    dark = app.palette().color(app.palette().ColorRole.Window).lightness() < 128
    # Without PATHs the engine chooses the folders (saved, the runtime's own, the demo set).
    window = MainWindow(
        roots=None,
        profile=profile,
        project=project,
        dark=dark,
        settings=settings,
        choose_profile=choose_profile,
    )
    if screenshot or exit_when_ready:
        window.live = False  # one picture: no file watch to set up
        window.resize(1440, 900)
    else:
        window.resize(1360, 860)
        window.restore_state()
    window.show()
    outcome = {"code": 0}
    if screenshot:

        def grab() -> None:
            if not window.grab().save(screenshot, "PNG"):
                print(
                    f"{APP_NAME}: could not write the screenshot to {screenshot}", file=sys.stderr
                )
                outcome["code"] = 2
            app.quit()

        def done(_loaded: object) -> None:
            window.sig_catalog_applied.disconnect(done)
            key = window.selected_key  # the last session's selection, if it is still there
            if not key:
                first = next(
                    (s for s in window.skills.values() if s.status in ("ok", "warning")), None
                )
                key = first.key if first is not None else ""
            if not key:
                QTimer.singleShot(150, grab)
                return
            # the skill's pages are prepared in the background: take the picture once shown
            window.sig_skill_shown.connect(lambda _key: QTimer.singleShot(150, grab))
            if window.selected_key != key:
                window.select_skill(key)

        def failed(_message: str) -> None:
            outcome["code"] = 1
            QTimer.singleShot(50, grab)

        window.sig_catalog_applied.connect(done)
        window.sig_scan_failed.connect(failed)
    elif exit_when_ready:

        def ready(loaded: LoadedView) -> None:
            print(
                f"{APP_NAME}: window ready ({loaded.summary['skills']} skills; the engine took {loaded.seconds:.2f} s)",
                flush=True,
            )
            app.quit()

        def not_ready(message: str) -> None:
            print(f"{APP_NAME}: scan failed: {message}", file=sys.stderr, flush=True)
            outcome["code"] = 1
            app.quit()

        window.sig_catalog_applied.connect(ready)
        window.sig_scan_failed.connect(not_ready)
    # The window appears first; the scan runs in the engine.
    if paths:
        QTimer.singleShot(0, lambda: window.open_paths(paths, install_into or None))
    else:
        # As installed or as laid out: as given, else as the saved folders were shown last time.
        saved = settings.value("install_into", "", str) if settings.value("roots", [], list) else ""
        mode = install_into or saved
        if mode in ("personal", "project"):
            window.set_install_mode(mode)
        QTimer.singleShot(0, window.reload)
    code = app.exec()
    if screenshot or exit_when_ready:
        window.shutdown()
        return outcome["code"]
    return code


def install_logging() -> None:
    """Unexpected errors in the window go to its log under the user's state folder (with their
    traceback) as well as to stderr."""
    import logging
    import logging.handlers

    from skillprism.paths import user_state_dir

    logger = logging.getLogger("skillprism")
    if logger.handlers:
        return
    try:
        folder = user_state_dir()
        folder.mkdir(parents=True, exist_ok=True)
        handler: logging.Handler = logging.handlers.RotatingFileHandler(
            folder / "window.log", maxBytes=1_000_000, backupCount=2, encoding="utf-8"
        )
    except OSError:
        handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(
        logging.Formatter("%(asctime)s window[%(process)d] %(levelname)s %(name)s: %(message)s")
    )
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    previous = sys.excepthook

    def hook(kind, value, tb):  # type: ignore[no-untyped-def]
        logger.error("unexpected error in the window", exc_info=(kind, value, tb))
        previous(kind, value, tb)

    sys.excepthook = hook
