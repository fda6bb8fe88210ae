"""Shared plumbing for the conformance drivers of the runtimes shipped as binaries.

Codex (`@openai/codex`), OpenCode (`opencode-ai`), Kilo Code (`@kilocode/cli`, an OpenCode fork)
and Claude Code (`@anthropic-ai/claude-code`) ship as native executables inside npm packages.
This module knows the pinned releases, where `install_bin.py` put them, how to run one fully
isolated (temp HOME, no network), and how to read the JavaScript that
Bun-compiled executables (OpenCode, Kilo Code, Claude Code) embed, so a driver can extract one
function at run time without the runtime's code ever being committed here.

Nothing here executes anything from a fixture: the runtimes are started with a minimal
environment, inside a fresh network namespace (`unshare -n`), with git told to ignore the
fixture's own config hooks (fsmonitor, hooksPath).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Package:
    runtime: str
    spec: str  # what npm installs, pinned exactly
    release: str
    binary: str  # path of the native executable below the cache folder of this runtime


PACKAGES: dict[str, Package] = {
    "codex": Package(
        "codex",
        "@openai/codex@0.169.0",
        "0.169.0",
        "node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex",
    ),
    "opencode": Package(
        "opencode",
        "opencode-ai@1.18.33",
        "1.18.33",
        "node_modules/opencode-linux-x64/bin/opencode",
    ),
    "claude-code": Package(
        "claude-code",
        "@anthropic-ai/claude-code@2.1.330",
        "2.1.330",
        "node_modules/@anthropic-ai/claude-code-linux-x64/claude",
    ),
    "amp": Package(
        "amp",
        "@sourcegraph/amp@0.0.1790142911-g7618fb",
        "0.0.1790142911-g7618fb",
        # @sourcegraph/amp depends on @ampcode/cli, whose optionalDependencies hold the binary.
        "node_modules/@ampcode/cli-linux-x64/amp",
    ),
    # @factory/cli 0.225.1 is a shim whose platform package @factory/cli-linux-x64@0.225.1 is not
    # on the registry: the binary is the platform package's next release, pinned directly.
    "factory-droid": Package(
        "factory-droid",
        "@factory/cli-linux-x64@0.225.2",
        "0.225.2",
        "node_modules/@factory/cli-linux-x64/bin/droid",
    ),
    # Kilo Code's CLI, an OpenCode fork. 7.7.7: the newest release whose linux-x64 platform
    # package the npm registry had on 2026-11-26 (@kilocode/cli 7.8.1 had none there).
    "kilo-code": Package(
        "kilo-code",
        "@kilocode/cli@7.7.7",
        "7.7.7",
        "node_modules/@kilocode/cli-linux-x64/bin/kilo",
    ),
}


def _releases_from_env() -> None:
    """`SKILLPRISM_LAB_RELEASES=codex=0.170.0,...`: the lab runs another release than the pinned
    one (make conformance-latest); the drivers report that release."""
    for item in os.environ.get("SKILLPRISM_LAB_RELEASES", "").split(","):
        name, _, version = item.strip().partition("=")
        if name in PACKAGES and version:
            pkg = PACKAGES[name]
            PACKAGES[name] = Package(
                pkg.runtime, f"{pkg.spec.rsplit('@', 1)[0]}@{version}", version, pkg.binary
            )


_releases_from_env()


class LabError(RuntimeError):
    """The lab cannot do what was asked (missing install, no isolation, unexpected output)."""


def cache_root() -> Path:
    env = os.environ.get("SKILLPRISM_LAB_CACHE")
    return Path(env).resolve() if env else HERE / ".cache"


def package_dir(runtime: str) -> Path:
    return cache_root() / runtime


def binary_path(runtime: str) -> Path:
    pkg = PACKAGES[runtime]
    path = package_dir(runtime) / pkg.binary
    if not path.is_file():
        raise LabError(
            f"{pkg.spec} is not installed at {path}; run: python3 conformance/install_bin.py "
            f"--runtime {runtime}"
        )
    return path


# ---------------------------------------------------------------------------------------------
# Isolation


def read_job() -> dict:
    """The driver protocol: one JSON job on stdin."""
    job = json.loads(sys.stdin.read() or "{}")
    for key in ("home", "project"):
        if not job.get(key):
            raise LabError(f"job needs '{key}'")
    job.setdefault("cwd", job["project"])
    job.setdefault("env", {})
    return job


def isolated_env(job: dict, extra: dict[str, str] | None = None) -> dict[str, str]:
    """A minimal environment: the job's temp HOME and XDG folders, never the real home."""
    home = str(Path(job["home"]).resolve())
    env = {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": home,
        "USER": "lab",
        "LOGNAME": "lab",
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "TERM": "dumb",
        "NO_COLOR": "1",
        # As a user has it: HOME only; each runtime finds ~/.config, ~/.codex, ... by default.
        "TMPDIR": os.path.join(home, ".tmp"),
        # git may be run by the runtimes (worktree detection); a fixture's .git/config must not
        # be able to run anything (core.fsmonitor, hooks), and no user/system git config is read.
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": "/dev/null",
        "GIT_CONFIG_COUNT": "2",
        "GIT_CONFIG_KEY_0": "core.fsmonitor",
        "GIT_CONFIG_VALUE_0": "false",
        "GIT_CONFIG_KEY_1": "core.hooksPath",
        "GIT_CONFIG_VALUE_1": "/dev/null",
        "GIT_TERMINAL_PROMPT": "0",
    }
    env.update(extra or {})
    env.update({str(k): str(v) for k, v in (job.get("env") or {}).items()})
    Path(env["TMPDIR"]).mkdir(parents=True, exist_ok=True)
    return env


_NETNS: list[str] | None = None


def no_network_prefix() -> list[str]:
    """`unshare -n` (root) or `unshare -rn` (user namespace): a namespace with no network."""
    global _NETNS
    if _NETNS is None:
        unshare = shutil.which("unshare") or "/usr/bin/unshare"
        for prefix in ([unshare, "-n"], [unshare, "-rn"]):
            try:
                ok = subprocess.run([*prefix, "true"], capture_output=True, timeout=20)
            except (OSError, subprocess.TimeoutExpired):
                continue
            if ok.returncode == 0:
                _NETNS = prefix
                break
        else:
            raise LabError(
                "cannot create a network namespace (unshare -n / -rn failed); "
                "the runtimes must not reach the network"
            )
    return list(_NETNS)


def run_isolated(
    argv: list[str],
    job: dict,
    *,
    env_extra: dict[str, str] | None = None,
    stdin: str | None = None,
    timeout: float = 120,
    stdout_file: bool = False,
) -> subprocess.CompletedProcess[str]:
    """Run `argv` isolated (see isolated_env). `stdout_file`: its output goes to a file, read back
    afterwards: a Bun binary that exits right after writing loses what a pipe had not taken yet
    (Kilo Code cut its JSON at 64 KiB)."""
    env = isolated_env(job, env_extra)
    if not stdout_file:
        return subprocess.run(
            [*no_network_prefix(), *argv],
            input=stdin,
            capture_output=True,
            text=True,
            cwd=job["cwd"],
            env=env,
            timeout=timeout,
        )
    with tempfile.TemporaryFile() as out:
        proc = subprocess.run(
            [*no_network_prefix(), *argv],
            input=stdin,
            stdout=out,
            stderr=subprocess.PIPE,
            text=True,
            cwd=job["cwd"],
            env=env,
            timeout=timeout,
        )
        out.seek(0)
        proc.stdout = out.read().decode("utf-8", "replace")
    return proc


def memo(binary: Path, name: str, compute: Callable[[], Any]) -> Any:
    """`compute()` (a JSON value read out of `binary`), kept beside the binary in the lab cache
    and keyed by its size and modification time: a driver that runs once per case reads a
    150-250 MB executable once, not once per case."""
    st = binary.stat()
    path = binary.with_name(f"{binary.name}.skillprism-{name}-{st.st_size}-{int(st.st_mtime)}.json")
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        pass
    value = compute()
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(value), encoding="utf-8")
    os.replace(tmp, path)  # several drivers may write it at once: the last whole file stays
    return value


def emit(obj: dict) -> None:
    sys.stdout.write(json.dumps(obj, ensure_ascii=False) + "\n")
    sys.stdout.flush()


def fail(runtime: str, message: str) -> int:
    """On failure a driver still prints one JSON object, with skills = null and the reason."""
    emit(
        {
            "runtime": runtime,
            "release": PACKAGES[runtime].release,
            "skills": None,
            "rejected": [],
            "warnings": [f"driver failed: {message}"],
            "tier1": None,
        }
    )
    return 1


# ---------------------------------------------------------------------------------------------
# Bun standalone executables: the embedded module graph


_TRAILER = b"\n---- Bun! ----\n"
_RECORD = 52  # CompiledModuleGraphFile in the Bun 1.3 builds used by both runtimes


@dataclass(frozen=True)
class Module:
    name: str  # /$bunfs/root/chunk-xxxx.js
    offset: int  # byte offset of the source text in the executable
    length: int

    def text(self, blob: bytes) -> str:
        return blob[self.offset : self.offset + self.length].decode("utf-8", "replace")


class BunImage:
    """The JavaScript sources embedded in a `bun build --compile` executable.

    Layout (Bun's StandaloneModuleGraph): the payload ends with an `Offsets` record (u64 byte
    count, modules pointer {u32 offset, u32 length}, u32 entry point, exec-argv pointer, u32
    flags) and the trailer `\\n---- Bun! ----\\n`. The modules pointer addresses a table of
    52-byte records whose first two pointers are the module's name and its source text.
    """

    def __init__(self, path: Path):
        self.path = path
        self.blob = path.read_bytes()
        end = self.blob.rfind(_TRAILER)
        if end < 0:
            raise LabError(f"{path}: no Bun module graph trailer")
        byte_count, mods_off, mods_len, _entry, _a, _b, _flags = struct.unpack(
            "<QIIIIII", self.blob[end - 32 : end]
        )
        for start in (end - 32 - byte_count, end - byte_count, end + 16 - byte_count):
            name_off, _ = struct.unpack_from("<II", self.blob, start + mods_off)
            if self.blob[start + name_off : start + name_off + 13] == b"/$bunfs/root/":
                break
        else:
            raise LabError(f"{path}: Bun module table not found")
        self.modules: list[Module] = []
        for i in range(mods_len // _RECORD):
            rec = start + mods_off + i * _RECORD
            n_off, n_len, c_off, c_len = struct.unpack_from("<IIII", self.blob, rec)
            name = self.blob[start + n_off : start + n_off + n_len].decode("utf-8", "replace")
            self.modules.append(Module(name, start + c_off, c_len))

    def module_at(self, offset: int) -> Module:
        for mod in self.modules:
            if mod.offset <= offset < mod.offset + mod.length:
                return mod
        raise LabError(f"offset {offset} is in no embedded module")

    def find(self, pattern: bytes | re.Pattern[bytes], start: int = 0) -> re.Match[bytes] | None:
        rx = pattern if isinstance(pattern, re.Pattern) else re.compile(re.escape(pattern))
        return rx.search(self.blob, start)

    def find_all(self, pattern: bytes | re.Pattern[bytes]) -> list[re.Match[bytes]]:
        rx = pattern if isinstance(pattern, re.Pattern) else re.compile(re.escape(pattern))
        return list(rx.finditer(self.blob))


# ---------------------------------------------------------------------------------------------
# Minified JavaScript: cut one function out of a module


_REGEX_PRECEDERS = set("(,=:[!&|?{};+-*%<>~^")
_REGEX_KEYWORDS = ("return", "typeof", "case", "do", "else", "in", "of", "void", "yield")


def _skip_string(src: str, i: int) -> int:
    quote = src[i]
    i += 1
    while i < len(src):
        c = src[i]
        if c == "\\":
            i += 2
            continue
        if c == quote:
            return i + 1
        i += 1
    raise LabError("unterminated string literal")


def _skip_template(src: str, i: int) -> int:
    i += 1  # past `
    while i < len(src):
        c = src[i]
        if c == "\\":
            i += 2
            continue
        if c == "`":
            return i + 1
        if c == "$" and src.startswith("${", i):
            i = _skip_balanced(src, i + 1, "{", "}")
            continue
        i += 1
    raise LabError("unterminated template literal")


def _skip_regex(src: str, i: int) -> int:
    i += 1
    in_class = False
    while i < len(src):
        c = src[i]
        if c == "\\":
            i += 2
            continue
        if c == "[":
            in_class = True
        elif c == "]":
            in_class = False
        elif c == "/" and not in_class:
            i += 1
            while i < len(src) and (src[i].isalnum() or src[i] == "_"):
                i += 1
            return i
        elif c == "\n":
            raise LabError("newline in regular expression literal")
        i += 1
    raise LabError("unterminated regular expression literal")


def _regex_allowed(src: str, i: int) -> bool:
    j = i - 1
    while j >= 0 and src[j] in " \t\n":
        j -= 1
    if j < 0 or src[j] in _REGEX_PRECEDERS:
        return True
    word = re.search(r"[A-Za-z_$][\w$]*$", src[: j + 1])
    return bool(word and word.group(0) in _REGEX_KEYWORDS)


def _skip_balanced(src: str, i: int, open_: str, close: str) -> int:
    """From src[i] == open_, return the index just past the matching close."""
    assert src[i] == open_, (src[i], open_)
    depth = 0
    while i < len(src):
        c = src[i]
        if c in "\"'":
            i = _skip_string(src, i)
            continue
        if c == "`":
            i = _skip_template(src, i)
            continue
        if c == "/" and i + 1 < len(src):
            nxt = src[i + 1]
            if nxt == "/":
                i = src.index("\n", i)
                continue
            if nxt == "*":
                i = src.index("*/", i) + 2
                continue
            if _regex_allowed(src, i):
                i = _skip_regex(src, i)
                continue
        if c in "({[":
            depth += 1
        elif c in ")}]":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    raise LabError(f"unbalanced {open_}{close}")


def function_source(src: str, name: str) -> tuple[str, int]:
    """`function name(...){...}` from minified source, and its index in src."""
    m = re.search(r"(?<![\w$.])function " + re.escape(name) + r"\(", src)
    if not m:
        raise LabError(f"function {name} not found")
    params_end = _skip_balanced(src, m.end() - 1, "(", ")")
    body_end = _skip_balanced(src, params_end, "{", "}")
    return src[m.start() : body_end], m.start()


_JS_KEYWORDS = {
    "if",
    "for",
    "while",
    "switch",
    "catch",
    "function",
    "return",
    "typeof",
    "new",
    "await",
    "yield",
    "void",
    "delete",
    "in",
    "of",
    "do",
    "else",
    "case",
    "throw",
    "super",
    "import",
}


def called_names(fn_src: str) -> set[str]:
    """Identifiers called as plain functions inside fn_src (candidates for dependencies)."""
    return set(re.findall(r"(?<![\w$.])([A-Za-z_$][\w$]*)\(", fn_src)) - _JS_KEYWORDS


def byte_offset(module: Module, src: str, index: int) -> int:
    """Byte offset in the executable of character `index` of the module's source text."""
    return module.offset + len(src[:index].encode("utf-8"))


# ---------------------------------------------------------------------------------------------
# Running an extracted function


def run_js(script: str, *, engine: list[str] | None = None, timeout: float = 60) -> str:
    """Run a small generated script (never fixture code) and return its stdout.

    `engine` defaults to node; the OpenCode driver passes the OpenCode executable itself with
    BUN_BE_BUN=1, so the listing runs on the runtime's own JavaScript engine.
    """
    engine = engine or [shutil.which("node") or "node"]
    tmp = Path(os.environ.get("TMPDIR", "/tmp"))
    path = tmp / f"skillprism-lab-{os.getpid()}.mjs"
    path.write_text(script, encoding="utf-8")
    try:
        env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp), "BUN_BE_BUN": "1", "LANG": "C.UTF-8"}
        proc = subprocess.run(
            [*no_network_prefix(), *engine, str(path)],
            capture_output=True,
            text=True,
            timeout=timeout,
            env=env,
            cwd=tmp,
        )
    finally:
        path.unlink(missing_ok=True)
    if proc.returncode != 0:
        raise LabError(f"extracted JavaScript failed: {proc.stderr.strip()[:2000]}")
    return proc.stdout
