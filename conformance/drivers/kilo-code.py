#!/usr/bin/env python3
"""Conformance driver: Kilo Code CLI (npm `@kilocode/cli` 7.7.7, a Bun-compiled OpenCode fork).

Reads one job on stdin, prints one JSON result (see conformance/README-bin.md).

Kilo's CLI keeps OpenCode's skill service, so this driver does what drivers/opencode.py does,
with Kilo's names:

1. `kilo debug skill --pure --print-logs --log-level DEBUG`, offline in a fresh network namespace,
   HOME the job's temp home, cwd = the job's cwd, KILO_PURE=1 (no plugin, configured
   or found in a fixture's .kilo folder, is loaded). stdout is the JSON list of loaded skills
   (Skill.all(): name, description, location, content); the log on stderr gives the `duplicate
   skill name` warnings and `failed to load skill` errors.
2. Tier 1: the JavaScript of `Skill.fmt` and the two sentences of `SystemPrompt.skills` are cut
   out of the binary's embedded module graph at run time (never committed), with the OpenCode
   driver's extractor (the code is the same shape), and run on the skills of step 1 with the Kilo
   binary's own Bun engine (BUN_BE_BUN=1; node if that fails).

The built-in skill `kilo-config` (location `builtin`) is part of tier 1 and is reported as
`builtin` (it has no SKILL.md); the switches set are reported as `settings`.
"""

from __future__ import annotations

import importlib.util
import sys
import types
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from binlab import LabError

RUNTIME = "kilo-code"
# Kilo renamed OpenCode's OPENCODE_* switches to KILO_* (Flag in the binary); the same ones are
# set: no plugins, no update check, no model list download, no LSP download, no sharing.
ENV = {
    "KILO_PURE": "1",
    "KILO_DISABLE_AUTOUPDATE": "1",
    "KILO_DISABLE_MODELS_FETCH": "1",
    "KILO_DISABLE_LSP_DOWNLOAD": "1",
    "KILO_DISABLE_SHARE": "1",
    # Kilo's default telemetry level sends events; nothing can leave the namespace anyway, but
    # the client then does not even try.
    "KILO_TELEMETRY_LEVEL": "off",
}
# Skill.BUILTIN_LOCATION in 7.7.7 (OpenCode 1.18.33 says "<built-in>").
BUILTIN_LOCATION = "builtin"


def _opencode_driver() -> types.ModuleType:
    """drivers/opencode.py (its name is not importable as a package module): the log-line
    parser and the Skill.fmt / SystemPrompt.skills extractor are shared, not copied."""
    path = Path(__file__).resolve().parent / "opencode.py"
    spec = importlib.util.spec_from_file_location("skillprism_lab_opencode_driver", path)
    if spec is None or spec.loader is None:
        raise LabError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


OPENCODE = _opencode_driver()


def main() -> int:
    # About 5 s a job on an idle machine (Bun parses the 170 MB binary's JS); the lab runs several
    # at once, and a loaded machine has been seen to take 10 times as long.
    return OPENCODE.drive(
        RUNTIME, "Kilo", ENV, BUILTIN_LOCATION, "the last one parsed wins", timeout=600
    )


if __name__ == "__main__":
    raise SystemExit(main())
