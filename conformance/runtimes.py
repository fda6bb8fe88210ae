"""The runtimes the lab drives: which release each pins, where it is installed, how its driver runs.

A driver (`conformance/drivers/<runtime>.<ext>`) reads ONE JSON job on stdin,
`{"home": ..., "project": ..., "cwd": ..., "env": {...}}`, and prints ONE JSON object,
`{"runtime", "release", "skills": [{"path", "name", "description"}], "rejected": [{"path",
"reason"}], "warnings": [...], "tier1": str | null}`. It exits non-zero (message on stderr) only
when the driver itself fails.

The drivers written here also accept a JSON *array* of jobs and then print an array of results in
the same order (`batch = True` below): a runtime whose start-up costs seconds runs a hundred
fixture trees in one process. A runtime that freezes its home folder at import time (oh-my-pi)
runs one process per job instead.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

LAB = Path(__file__).resolve().parent
DRIVERS = LAB / "drivers"


def cache_dir() -> Path:
    """Where pinned runtimes are installed: $SKILLPRISM_LAB_CACHE or conformance/.cache."""
    env = os.environ.get("SKILLPRISM_LAB_CACHE")
    return Path(env).expanduser().resolve() if env else LAB / ".cache"


@dataclass(frozen=True)
class Runtime:
    name: str  # the driver's "runtime" value
    release: str  # the release the lab pins
    profile: str  # Skill Prism profile compared with it
    driver: str  # file name under conformance/drivers/
    kind: str  # "node" | "bun" | "python": how the driver is started
    npm: dict[str, str] = field(default_factory=dict)  # exact npm pins (package -> version)
    pypi: dict[str, str] = field(default_factory=dict)  # exact PyPI pins
    # Requirements of the pinned packages that the registry no longer serves as written, each
    # replaced by the one it does serve (old -> new); install.py then installs the pins without
    # their dependencies and those dependencies itself (see install.install_pypi).
    pypi_replace: dict[str, str] = field(default_factory=dict)
    package: str = ""  # the runtime's own package (its folder is passed as SKILLPRISM_LAB_PKG)
    style: str = ""  # tier-1 style of the profile to compare with ("" = the profile's own)
    batch: bool = True  # the driver accepts a JSON array of jobs
    clashes: bool = True  # the runtime resolves name clashes (skills-ref does not: it has no roots)
    # Root templates of the profile the driver cannot exercise (with why); fixtures skip them.
    unchecked_roots: dict[str, str] = field(default_factory=dict)
    npm_omit_optional: bool = False
    notes: tuple[str, ...] = ()
    python: str = ""  # a PyPI runtime that needs a newer Python than the lab's, e.g. "3.12"
    # A native executable below install_dir that must be present (runtimes shipped as binaries).
    binary: str = ""
    # The runtime cannot list a fixture (Claude Code lists skills only in a model session): its
    # driver runs once and reports `facts` read from the binary, each compared with the profile.
    facts_only: bool = False
    # What the lab cannot run of this runtime, said once (a facts-only runtime's loader).
    limit: str = ""
    # The runtime's listing order can change from one run to the next (concurrent reads): the
    # batch check compares a job's result alone and in the batch as sets.
    order_varies: bool = False
    # The context window (tokens) of the runtime's default model, when its listing is budgeted by
    # it and the lab cannot choose another: Skill Prism's side is computed for the same window.
    context_window: int = 0
    # npm pins that take another pin's version when the lab moves to the newest releases
    # (make conformance-latest): package -> the package whose version it takes.
    same_version: tuple[tuple[str, str], ...] = ()
    # Environment both sides of every job get, `{pkg}` standing for package_dir: where the
    # runtime keeps its built-in skills in this install, for the profile's built-in root.
    job_env: tuple[tuple[str, str], ...] = ()
    workers: int = 0  # parallel driver processes for a non-batch runtime (0 = by CPU count)
    # Under `run.py --ci`, one case in this many of each group (see run.ci_sample): a runtime
    # whose every case starts a large executable or bundle (seconds of CPU each) would otherwise
    # hold CI far past its time budget. The full lab (`make conformance`) runs every case.
    ci_every: int = 1

    @property
    def install_dir(self) -> Path:
        return cache_dir() / self.name

    @property
    def package_dir(self) -> Path:
        if self.pypi:
            return self.install_dir
        return self.install_dir / "node_modules" / self.package

    def installed(self) -> bool:
        """The pinned release is present in the cache (no network needed to run)."""
        return not self.missing()

    def missing(self) -> str:
        """What of the pinned release the cache lacks ("" when nothing): said when an install
        does not give it (a newer release whose platform package is named differently, say)."""
        if self.pypi:
            return _pypi_missing(self)
        pkg = self.package_dir / "package.json"
        if not pkg.is_file():
            return f"{pkg} is not there"
        import json

        try:
            version = json.loads(pkg.read_text(encoding="utf-8")).get("version")
        except (OSError, ValueError) as err:
            return f"{pkg} cannot be read ({err})"
        if version != self.npm.get(self.package):
            return f"{self.package} is {version}, not {self.npm.get(self.package)}"
        if self.binary and not (self.install_dir / self.binary).is_file():
            return f"the program {self.binary} is not there (its platform package did not install)"
        if self.kind == "bun" and not bun_path(self).is_file():
            return f"Bun is not there ({bun_path(self)})"
        return ""

    def command(self) -> list[str]:
        """The command that starts the driver (run with the job's cwd)."""
        driver = str(DRIVERS / self.driver)
        if self.kind == "node":
            return ["node", driver]
        if self.kind == "bun":
            # --no-install: never fetch a missing module at run time.
            return [str(bun_path(self)), "--no-install", driver]
        return [python_for(self), "-I", driver]

    def extra_job_env(self) -> dict[str, str]:
        return {k: v.replace("{pkg}", str(self.package_dir)) for k, v in self.job_env}

    def process_env(self) -> dict[str, str]:
        """Variables the driver needs besides the job's own (HOME, XDG_*, ... are the job's)."""
        env = {"SKILLPRISM_LAB_PKG": str(self.package_dir)}
        if self.kind == "bun":
            env["BUN_RUNTIME_TRANSPILER_CACHE_PATH"] = str(self.install_dir / ".bun-transpiler")
            env["NODE_PATH"] = str(self.install_dir / "node_modules")
        if self.pypi:
            env["SKILLPRISM_LAB_PYTHONPATH"] = str(self.install_dir / "site")
        if self.binary:
            # conformance/binlab.py finds the install through the cache folder; unshare and git
            # (which the runtimes call) come from the system PATH.
            env["SKILLPRISM_LAB_CACHE"] = str(cache_dir())
            env["SKILLPRISM_LAB_RELEASES"] = f"{self.name}={self.release}"
        return env


def python_for(rt: Runtime) -> str:
    """The interpreter for a Python runtime: the lab's own, or one at least `rt.python`
    ($SKILLPRISM_LAB_PYTHON, else python3.N on PATH, else a pyenv-installed version)."""
    if not rt.python:
        return sys.executable
    want = tuple(int(x) for x in rt.python.split("."))
    if sys.version_info[:2] >= want:
        return sys.executable
    import glob
    import shutil
    import subprocess

    candidates = [os.environ.get("SKILLPRISM_LAB_PYTHON", "")]
    for minor in range(want[1], want[1] + 4):
        candidates.append(shutil.which(f"python{want[0]}.{minor}") or "")
        for pyenv in _pyenv_roots():
            candidates += sorted(glob.glob(f"{pyenv}/versions/{want[0]}.{minor}.*/bin/python3"))
    for exe in filter(None, candidates):
        try:
            out = subprocess.run(
                [exe, "-c", "import sys; print(*sys.version_info[:2])"],
                capture_output=True,
                text=True,
                timeout=30,
            )
        except (OSError, subprocess.TimeoutExpired):
            continue
        if out.returncode == 0 and tuple(map(int, out.stdout.split())) >= want:
            return exe
    raise SystemExit(f"{rt.name} needs Python >= {rt.python}: set SKILLPRISM_LAB_PYTHON")


def _pyenv_roots() -> list[str]:
    """$PYENV_ROOT, ~/.pyenv, and the login user's own ~/.pyenv (HOME may be a test's folder)."""
    import contextlib
    import pwd

    roots = [os.environ.get("PYENV_ROOT", ""), os.path.expanduser("~/.pyenv")]
    with contextlib.suppress(KeyError, OSError):
        roots.append(os.path.join(pwd.getpwuid(os.getuid()).pw_dir, ".pyenv"))
    return list(dict.fromkeys(r for r in roots if r))


def bun_path(rt: Runtime) -> Path:
    return rt.install_dir / "node_modules" / "@oven" / "bun-linux-x64" / "bin" / "bun"


def _pypi_missing(rt: Runtime) -> str:
    site = rt.install_dir / "site"
    for name, version in rt.pypi.items():
        dist = name.replace("-", "_")
        if not (site / f"{dist}-{version}.dist-info").is_dir():
            return f"{name} {version} is not installed in {site}"
    return ""


RUNTIMES: dict[str, Runtime] = {
    rt.name: rt
    for rt in (
        Runtime(
            name="gemini-cli",
            release="0.61.0",
            profile="gemini-cli",
            driver="gemini-cli.mjs",
            kind="node",
            npm={"@google/gemini-cli-core": "0.61.0"},
            package="@google/gemini-cli-core",
            unchecked_roots={
                "~/.gemini/extensions/*/skills": "extension skills are loaded by the @google/gemini-cli "
                "extension manager, not by gemini-cli-core's SkillManager",
            },
            job_env=(("SKILLPRISM_GEMINI_CLI_BUILTIN_SKILLS", "{pkg}/dist/src/skills/builtin"),),
            # glob lists a root's files as the concurrent reads of their folders complete
            order_varies=True,
            notes=(
                "The workspace is trusted (discoverSkills(..., isTrusted=true)).",
                "Built-in skills on, as by default (dist/src/skills/builtin of the package).",
            ),
        ),
        Runtime(
            name="pi",
            release="0.73.1",
            profile="pi",
            driver="pi.mjs",
            kind="node",
            npm={"@mariozechner/pi-coding-agent": "0.73.1"},
            package="@mariozechner/pi-coding-agent",
        ),
        Runtime(
            name="oh-my-pi",
            release="18.2.3",
            profile="oh-my-pi",
            driver="oh-my-pi.ts",
            kind="bun",
            npm={
                "@oh-my-pi/pi-coding-agent": "18.2.3",
                # Its native addon, an optional dependency of pi-natives: the other optional
                # dependencies (speech, local models, 1 GB) are left out with --omit=optional.
                "@oh-my-pi/pi-natives-linux-x64": "18.2.3",
                "@oven/bun-linux-x64": "1.4.2",
            },
            package="@oh-my-pi/pi-coding-agent",
            same_version=(("@oh-my-pi/pi-natives-linux-x64", "@oh-my-pi/pi-coding-agent"),),
            # bun 1.4.2: the newest bun when 18.2.3 was published (2026-09-20); it asks bun >= 1.3.14.
            batch=False,  # pi-utils freezes the home folder when it is imported
            npm_omit_optional=True,
            ci_every=2,  # a Bun process per case (about 1 CPU-second)
        ),
        Runtime(
            name="qwen-code",
            release="0.24.4",
            profile="qwen-code",
            driver="qwen-code.mjs",
            kind="node",
            npm={"@qwen-code/qwen-code": "0.24.4"},
            package="@qwen-code/qwen-code",
            job_env=(("SKILLPRISM_QWEN_CODE_BUNDLED_SKILLS", "{pkg}/bundled"),),
        ),
        Runtime(
            name="cline",
            release="0.0.86",
            profile="cline",
            driver="cline.mjs",
            kind="node",
            npm={"@cline/core": "0.0.86"},
            package="@cline/core",
        ),
        Runtime(
            name="copilot-cli",
            release="1.0.102",
            profile="copilot-cli",
            driver="copilot-cli.mjs",
            kind="node",
            npm={"@github/copilot-linux-x64": "1.0.102"},
            package="@github/copilot-linux-x64",
        ),
        Runtime(
            name="openclaw",
            release="2026.9.6",
            profile="openclaw",
            driver="openclaw.mjs",
            kind="node",
            npm={"openclaw": "2026.9.6"},
            package="openclaw",
        ),
        Runtime(
            name="continue",
            release="1.5.47",
            profile="continue",
            driver="continue.mjs",
            kind="node",
            npm={"@continuedev/cli": "1.5.47"},
            package="@continuedev/cli",
            batch=False,  # env.continueHome is computed once, when the bundle initialises
            ci_every=4,  # a Node process loading the CLI's bundle per case
        ),
        Runtime(
            name="hermes-agent",
            release="0.19.0",
            profile="hermes-agent",
            driver="hermes-agent.py",
            kind="python",
            pypi={"hermes-agent": "0.19.0"},
            package="agent",
        ),
        Runtime(
            name="openhands",
            release="1.58.2",
            profile="openhands",
            driver="openhands.py",
            kind="python",
            pypi={"openhands-sdk": "1.58.2"},
            package="openhands",
            ci_every=4,  # a Python 3.12 process importing the SDK per case
            python="3.12",
            notes=(
                "load_project_skills(work_dir) then load_user_skills(), merged as "
                "AgentContext does (project first, a name once); tier 1 = to_prompt(skills).",
            ),
        ),
        Runtime(
            name="mistral-vibe",
            release="3.0.3",
            profile="mistral-vibe",
            driver="mistral-vibe.py",
            kind="python",
            pypi={"mistral-vibe": "3.0.3"},
            # 3.0.3 pins every dependency exactly; certifi 2026.10.19 is served only as its
            # .post1 re-release (same certificates), which pip would refuse against the pin.
            pypi_replace={"certifi==2026.10.19": "certifi==2026.10.19.post1"},
            package="vibe",
            python="3.12",
            job_env=(
                (
                    "SKILLPRISM_MISTRAL_VIBE_BUILTIN_SKILLS",
                    "{pkg}/site/vibe/plugins/builtins/vibe/skills",
                ),
            ),
            notes=(
                "discover_session_skills (SkillManager, project_core_skills) with the working "
                "folder trusted for the session; tier 1 = the '## Available Skills' section and "
                "the <available-skills> block of the native harness's system message.",
            ),
        ),
        Runtime(
            name="skills-ref",
            release="0.1.1",
            profile="agentskills",
            driver="skills-ref.py",
            kind="python",
            pypi={"skills-ref": "0.1.1"},
            package="skills_ref",
            style="reference",
            clashes=False,
            notes=(
                "skills-ref has no discovery: the driver hands it every folder one level below the "
                "agentskills profile's roots (the client guide's layout), and it lists them all.",
            ),
        ),
        # Runtimes shipped as native executables in npm packages (conformance/README-bin.md).
        # npm installs the platform package (the binary) through optionalDependencies.
        Runtime(
            name="codex",
            release="0.169.0",
            profile="codex",
            driver="codex.py",
            kind="python",
            npm={"@openai/codex": "0.169.0"},
            package="@openai/codex",
            binary="node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex",
            batch=False,
            ci_every=4,  # its executable started per case
            # debug prompt-input budgets for the default model of the binary's own catalogue
            # (gpt-6.1-sol in 0.169.0: "context_window": 272000).
            context_window=272_000,
            notes=(
                "codex app-server skills/list and codex debug prompt-input, offline, with the "
                "bundled system skills switched off (skills.bundled.enabled=false).",
            ),
        ),
        Runtime(
            name="opencode",
            release="1.18.33",
            profile="opencode",
            driver="opencode.py",
            kind="python",
            npm={"opencode-ai": "1.18.33"},
            package="opencode-ai",
            binary="node_modules/opencode-linux-x64/bin/opencode",
            batch=False,
            ci_every=4,  # its executable started per case
            notes=(
                "opencode debug skill --pure, and Skill.fmt / SystemPrompt.skills cut out of the "
                "binary and run on its own Bun.",
            ),
        ),
        Runtime(
            name="kilo-code",
            release="7.7.7",
            profile="kilo-code",
            driver="kilo-code.py",
            kind="python",
            npm={"@kilocode/cli": "7.7.7"},
            package="@kilocode/cli",
            binary="node_modules/@kilocode/cli-linux-x64/bin/kilo",
            batch=False,
            ci_every=4,  # its executable started per case
            notes=(
                "kilo debug skill --pure (Kilo's CLI is an OpenCode fork), and Skill.fmt / "
                "SystemPrompt.skills cut out of the binary and run on its own Bun.",
            ),
        ),
        Runtime(
            name="claude-code",
            release="2.1.330",
            profile="claude-code",
            driver="claude-code.py",
            kind="python",
            npm={"@anthropic-ai/claude-code": "2.1.330"},
            package="@anthropic-ai/claude-code",
            binary="node_modules/@anthropic-ai/claude-code-linux-x64/claude",
            batch=False,
            # One `claude -p` session per case (about 1-2 s): two at a time on a 2-CPU machine.
            workers=2,
            ci_every=4,
            # The listing's budget is taken of the session model's context window: the default
            # model of 2.1.330, claude-opus-5-5, has 1,000,000 tokens (its `modelUsage` in the
            # run's result), which the lab does not change.
            context_window=1_000_000,
            notes=(
                "claude -p in the job's home and folder against the scripted model server "
                "(no network): the session transcript's skill_listing attachment (names, "
                "entries), the request body's listing (tier 1) and the SKILL.md files it opened "
                "(strace).",
            ),
        ),
        Runtime(
            name="amp",
            release="0.0.1790142911-g7618fb",
            profile="amp",
            driver="amp.py",
            kind="python",
            npm={"@sourcegraph/amp": "0.0.1790142911-g7618fb"},
            package="@sourcegraph/amp",
            binary="node_modules/@ampcode/cli-linux-x64/amp",
            batch=False,
            ci_every=4,  # its executable started per case
            notes=(
                "amp skill list --json, offline, with a placeholder API key and the server URL "
                "on a closed local port; tier 1 is written by Amp's server (not obtainable).",
            ),
        ),
        Runtime(
            name="factory-droid",
            release="0.225.2",
            profile="factory-droid",
            driver="factory-droid.py",
            kind="python",
            # @factory/cli 0.225.1 (the droid shim) needs @factory/cli-linux-x64@0.225.1, which
            # the registry lacks; the binary package's 0.225.2 is pinned on its own.
            npm={"@factory/cli-linux-x64": "0.225.2"},
            package="@factory/cli-linux-x64",
            binary="node_modules/@factory/cli-linux-x64/bin/droid",
            batch=False,
            ci_every=4,  # its executable started per case
            notes=(
                "Droid's skill resolver and listing, from the binary's embedded modules, run by "
                "the binary as Bun offline; built-in skills off (--disable-builtin-skills).",
            ),
        ),
    )
}

# Runtimes whose install is large (native binaries of 350-400 MB each); `--quick` leaves the
# ones named here out unless asked for by --runtime (see conformance/README.md, "CI").
BINARY_RUNTIMES = tuple(rt.name for rt in RUNTIMES.values() if rt.binary)


def selected(names: list[str] | None) -> list[Runtime]:
    if not names:
        return list(RUNTIMES.values())
    unknown = [n for n in names if n not in RUNTIMES]
    if unknown:
        raise SystemExit(f"unknown runtime(s): {', '.join(unknown)}; known: {', '.join(RUNTIMES)}")
    return [RUNTIMES[n] for n in names]
