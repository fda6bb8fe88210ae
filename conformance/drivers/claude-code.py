#!/usr/bin/env python3
"""Conformance driver: Claude Code (npm `@anthropic-ai/claude-code` 2.1.330, Bun binary).

Claude Code builds its skill listing only inside a model session (network and login), so this
driver cannot list the skills of a fixture: it prints `skills: null` and, instead, `facts`: the
listing and budget code read from the pinned binary and checked against the claude-code profile
(conformance/claude_code_facts.py, one entry per fact with the byte offset where it was found).
The job on stdin is read and validated, and nothing is run in its folders.
"""

from __future__ import annotations

import os
import sys
from dataclasses import asdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from binlab import PACKAGES, LabError, emit, fail, read_job
from claude_code_facts import collect

RUNTIME = "claude-code"


def main() -> int:
    try:
        read_job()
        # With SKILLPRISM_LAB_SKILLPRISM (the `skillprism` command, set by conformance/run.py)
        # the extracted listing's texts are compared with `skillprism prompt --profile claude-code`.
        facts = collect(os.environ.get("SKILLPRISM_LAB_SKILLPRISM") or None)
    except (LabError, OSError, ValueError) as exc:
        return fail(RUNTIME, str(exc))
    emit(
        {
            "runtime": RUNTIME,
            "release": PACKAGES[RUNTIME].release,
            "skills": None,
            "rejected": [],
            "warnings": [
                "Claude Code lists skills only in a model session; facts read from the binary "
                "instead (see conformance/README-bin.md)"
            ],
            "tier1": None,
            "facts": [asdict(f) for f in facts],
        }
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
