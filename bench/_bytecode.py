"""Benchmarks measure Skill Prism as installed: pip (and the frozen app) ship compiled bytecode,
but an editable checkout under PYTHONDONTWRITEBYTECODE=1 never caches it, so each run would
recompile every module. Compile it once before timing, and say so."""

from __future__ import annotations

import compileall
import os
from pathlib import Path

import skillprism


def ensure_bytecode() -> str:
    package = Path(skillprism.__file__).resolve().parent
    compileall.compile_dir(str(package), quiet=1)
    note = "bytecode compiled before timing (as an installed package has it)"
    if os.environ.get("PYTHONDONTWRITEBYTECODE"):
        note += "; PYTHONDONTWRITEBYTECODE is set here, so it would not be cached otherwise"
    return note
