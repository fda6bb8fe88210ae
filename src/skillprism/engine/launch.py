"""How the window starts its engine process, and how every process of Skill Prism keeps out of
the folders it reviews.

The engine runs the interpreter isolated (`-I`: the current folder is not put on `sys.path`, and
no PYTHON* variable or user site folder is read), so starting the window inside a folder of
booby-trapped modules (`threading.py`, `re.py`, `skillprism.py`) imports none of them; the fork
server and resource tracker it starts for its worker pool inherit the flag. The frozen app's
bootloader only ever puts its own bundle on `sys.path`. No Qt here: the window imports this.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
from dataclasses import dataclass

TEMP_PREFIX = "skillprism-engine-"


def engine_command(fd: int) -> list[str]:
    """The command line of an engine that talks over the inherited socket `fd`."""
    if getattr(sys, "frozen", False):
        return [sys.executable, "engine", "--fd", str(fd)]
    return [sys.executable, "-I", "-m", "skillprism", "engine", "--fd", str(fd)]


def engine_environment(temp_dir: str) -> dict[str, str]:
    """The engine's environment: the window's, with a temporary folder of its own (its worker
    pool's sockets live there, and the window removes it whatever way the engine ends)."""
    env = dict(os.environ)
    env["TMPDIR"] = temp_dir
    return env


def private_temp_dir() -> str:
    """A new temporary folder for one engine process (mode 0700)."""
    return tempfile.mkdtemp(prefix=TEMP_PREFIX)


def remove_private_temp() -> None:
    """In the engine, at exit: the temporary folder the window made for it, with whatever the
    worker pool left in it (only a folder of that name, never another TMPDIR)."""
    temp = os.environ.get("TMPDIR", "")
    if os.path.basename(temp.rstrip(os.sep)).startswith(TEMP_PREFIX):
        shutil.rmtree(temp, ignore_errors=True)


@dataclass
class Launched:
    """An engine process, the window's end of its socket and its private temporary folder."""

    process: subprocess.Popen[bytes]
    sock: socket.socket
    temp: str


def launch_engine() -> Launched:
    """Start an engine process (OSError when it cannot be started; nothing is left behind)."""
    mine, theirs = socket.socketpair()
    temp = private_temp_dir()
    try:
        process = subprocess.Popen(
            engine_command(theirs.fileno()),
            pass_fds=(theirs.fileno(),),
            env=engine_environment(temp),
            stdin=subprocess.DEVNULL,
        )
    except OSError:
        mine.close()
        shutil.rmtree(temp, ignore_errors=True)
        raise
    finally:
        theirs.close()
    return Launched(process, mine, temp)


_early: Launched | None = None


def prestart() -> None:
    """Start the window's engine now, before the window loads Qt: the engine's own start-up
    (an interpreter, the workspace's modules) runs while the window's does. Without a window
    taking it, it ends when this process does (its socket closes)."""
    global _early
    if _early is None:
        try:
            _early = launch_engine()
        except OSError:
            _early = None  # the window starts one itself, and says why if it cannot


def take_prestarted() -> Launched | None:
    """The engine `prestart` started, once (None when there is none, or it has ended)."""
    global _early
    early, _early = _early, None
    if early is not None and early.process.poll() is not None:
        early.sock.close()
        shutil.rmtree(early.temp, ignore_errors=True)
        return None
    return early
