"""How the window words a runtime profile's level: grouped by how well each is known (verified by
the conformance lab, partly verified, documented, modelled from a specification), so the level is
visible wherever a runtime is named. The runtimes themselves come from the engine
(EngineInfo.runtimes)."""

from __future__ import annotations

LEVEL_GROUPS = {
    "verified": "Verified against the runtime's code",
    "partial": "Partly verified (known differences listed)",
    "documented": "Documented only (code not run)",
    "specified": "Modelled from a specification",
}
LEVEL_BADGES = {
    "verified": "verified",
    "partial": "partly verified",
    "documented": "documented",
    "specified": "specified",
}
