"""The wheel ships the profiles, resources and demo skills, and `check` works from a fresh venv
with no checkout in sight."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_wheel_installs_into_a_fresh_venv_and_checks(tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    build = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(dist), str(ROOT)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert build.returncode == 0, build.stderr[-2000:]
    wheel = next(dist.glob("skillprism-*.whl"))

    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    py = env_dir / "bin" / "python"
    # The check command needs only PyYAML; the Qt stack is not needed to prove the data ships.
    install = subprocess.run(
        [str(py), "-m", "pip", "install", "--quiet", "--no-deps", str(wheel), "PyYAML"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert install.returncode == 0, install.stderr[-2000:]

    work = tmp_path / "elsewhere"
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH",)}
    probe = subprocess.run(
        [
            str(py),
            "-c",
            "from skillprism.paths import demo_skills_dir, shipped_profiles_dir;"
            "print(demo_skills_dir()); print(shipped_profiles_dir())",
        ],
        capture_output=True,
        text=True,
        cwd=work,
        env=env,
        timeout=120,
    )
    assert probe.returncode == 0, probe.stderr
    skills_dir, profiles_dir = probe.stdout.split()
    assert str(env_dir) in skills_dir and str(env_dir) in profiles_dir
    assert (Path(profiles_dir) / "agentskills.toml").is_file()

    run = subprocess.run(
        [str(env_dir / "bin" / "skillprism"), "check", "--format", "json", skills_dir],
        capture_output=True,
        text=True,
        cwd=work,
        env=env,
        timeout=120,
    )
    assert run.returncode in (0, 1), run.stderr
    result = json.loads(run.stdout)["results"][0]
    assert result["profile"] == "agentskills"
    assert result["skills"], "the demo skills ship inside the wheel"
    listed = subprocess.run(
        [str(env_dir / "bin" / "skillprism"), "check", "--list-profiles"],
        capture_output=True,
        text=True,
        cwd=work,
        env=env,
        timeout=120,
    )
    assert "agentskills:" in listed.stdout.split()
    version = subprocess.run(
        [str(env_dir / "bin" / "skillprism"), "--version"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert version.stdout.startswith("skillprism ")
