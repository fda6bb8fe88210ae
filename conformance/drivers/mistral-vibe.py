"""Conformance driver for Mistral Vibe (PyPI mistral-vibe, pinned in conformance/runtimes.py).

Runs the runtime's own code, composed as a Vibe session composes it (`vibe/app_server/_runtime.py`
derives every session's skills this way):

* plugins, as a session resolves them: `vibe.app_server._plugins.resolve_session_plugins(
  harness_files)` (the packaged built-in `vibe` plugin and any installed one; no MCP catalog and
  no connector registry, so no tool materializes). Its skills (`vibe:skill-creator`, ...) are the
  default configuration's built-in skills, reported as `builtin`;
* discovery and parsing: `vibe.app_server._skills.discover_session_skills(config, harness_files=...,
  plugin_skills=<the plugins' skills>, plugin_contexts=core_plugins(plugins),
  skill_tool_available=True)`, which builds
  `vibe.core.skills.manager.SkillManager(config, include_builtins=False)` (search paths from
  `HarnessFilesManager`: the trusted working folder's `.vibe/skills` and `.agents/skills`, then
  `$VIBE_HOME/skills` and `~/.agents/skills`; one level, `SKILL.md`; `parse_skill_markdown`, the
  pydantic `SkillMetadata`; first wins) and `project_core_skills` (each skill checked again as a
  `RustSkillDefinition`; skills with `disable-model-invocation` kept out of the definitions);
* the working folder is trusted for the session (`TrustedFoldersManager.trust_for_session`), the
  config is `VibeConfigSchema` with its defaults (no skill_paths, no enabled/disabled filters, no
  registry skills);
* tier 1: the native harness (`mistralai_vibe_local_harness._native.HarnessSession`) configured as
  the Host's `_core_config` with the projected skill definitions and plugin contexts (the plugin
  skills are listed through them); one user message makes it emit
  its first model call, and the system message of that call holds the listing. The harness writes
  the listing in two parts: the `## Available Skills` section among its guidance sections and the
  `<available-skills>` block at the end of the message. The driver reports the two joined by one
  blank line ("" when the harness writes neither: no skill is listed). No model is called: the
  driver stops at the model-call action.

`skills` is the session's catalogue (every skill that loaded, in discovery order; a
`disable-model-invocation` skill is in it, with a warning, but not in the listing). `rejected` are
the `config_issues` ("Failed to load: ...") and the skills `project_core_skills` dropped.

Vibe computes `~/.vibe` (`vibe.utils.vibe_home._DEFAULT_VIBE_HOME`) and `~/.agents`
(`vibe.core.paths._agents_home._DEFAULT_AGENTS_HOME`) from `Path.home()` when those modules are
imported; the driver imports them once under a scratch home (so importing writes nothing into a
fixture tree: the trust store is created there) and, per job, sets HOME and computes the two
values again exactly as the modules do. The parse cache (`manager._parsed_skill_files`) is
emptied per job, so every job reads its files afresh.

Protocol: one JSON job on stdin -> one JSON result; a JSON array of jobs -> an array of results.
Nothing from a fixture is executed: the runtime only reads files.
"""

from __future__ import annotations

import json
import logging
import os
import re
import shutil
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

DROPPED = re.compile(r"^Dropped skill '(.+?)' at (.+?): (.*)$", re.S)
# The environment variables Vibe reads (VIBE_HOME, VIBE_* settings, MISTRAL_* keys): only the
# job's own are kept.
OWN_PREFIXES = ("VIBE_", "MISTRAL_", "XDG_")


def _setup() -> str:
    site = os.environ.get("SKILLPRISM_LAB_PYTHONPATH")
    if site:
        sys.path.insert(0, site)
    for key in list(os.environ):
        if key.startswith(OWN_PREFIXES):
            del os.environ[key]
    scratch = tempfile.mkdtemp(prefix="skillprism-vibe-")
    os.environ["HOME"] = scratch
    return scratch


def _apply(job: dict) -> None:
    for key in list(os.environ):
        if key.startswith(OWN_PREFIXES):
            del os.environ[key]
    os.environ["HOME"] = job["home"]
    for key, value in (job.get("env") or {}).items():
        os.environ[key] = str(value)
    os.chdir(job["cwd"])
    # The two import-time defaults, computed again the way their modules compute them.
    from vibe.core.paths import _agents_home
    from vibe.utils import vibe_home

    vibe_home._DEFAULT_VIBE_HOME = Path.home() / ".vibe"
    _agents_home._DEFAULT_AGENTS_HOME = Path.home() / ".agents"


class _Collect(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.levelno >= logging.WARNING:
            self.records.append(record)


def _tier1(definitions: list, plugins: list) -> str:
    """The listing the native harness writes into the system message for these skills."""
    from mistralai_vibe_local_harness._native import HarnessSession
    from mistralai_vibe_local_harness.protocol import (
        RustAcceptedApplyResult,
        RustActionsNextAction,
        RustDeterminismContext,
        RustDispatchActionDirective,
        RustHarnessCapabilitySet,
        RustHarnessInput,
        RustLLMCallAction,
        RustTextContentBlock,
        RustUserMessageEvent,
        parse_apply_result,
    )
    from mistralai_vibe_local_harness.vibe._host import _core_config

    config = _core_config("skillprism-lab").model_copy(
        update={
            "capabilities": RustHarnessCapabilitySet(skills=list(definitions)),
            "plugins": list(plugins),
        }
    )
    session = HarnessSession.create(config.model_dump_json(exclude_none=True), "[]")
    event = RustHarnessInput(
        input_id=1,
        determinism=RustDeterminismContext(time_unix_ms=0, random_seed=0),
        command=RustUserMessageEvent(
            turn_id="turn-1", content=[RustTextContentBlock(text="hello")], mode="queue"
        ),
    )
    result = parse_apply_result(
        session.apply(event.model_dump_json(exclude_none=False, by_alias=True))
    )
    if not isinstance(result, RustAcceptedApplyResult):
        raise RuntimeError(f"the harness refused the user message: {result!r}")
    nxt = result.transition.next
    calls = [
        d.action
        for d in (nxt.directives if isinstance(nxt, RustActionsNextAction) else [])
        if isinstance(d, RustDispatchActionDirective) and isinstance(d.action, RustLLMCallAction)
    ]
    if not calls:
        raise RuntimeError("the harness asked for no model call")
    system = next(
        m for m in calls[0].model_input.messages.messages if getattr(m, "role", "") == "system"
    )
    text = "".join(getattr(block, "text", "") for block in system.content)
    return _listing(text)


def _listing(system: str) -> str:
    """The `## Available Skills` section and the `<available-skills>` block, one blank line apart."""
    parts = []
    start = system.find("## Available Skills\n")
    if start >= 0:
        end = system.find("\n\n#", start)
        parts.append(system[start : end if end >= 0 else len(system)])
    # The block opens on a line of its own; the guidance above names the tag in a sentence.
    block = re.search(r"^<available-skills>\n.*?^</available-skills>$", system, re.M | re.S)
    if block:
        parts.append(block.group(0))
    return "\n\n".join(parts)


def run_job(job: dict, collect: _Collect) -> dict:
    from importlib.metadata import version

    _apply(job)
    collect.records.clear()

    from vibe.app_server._skills import discover_session_skills
    from vibe.core.config.harness_files import _harness_manager
    from vibe.core.config.vibe_schema import VibeConfigSchema
    from vibe.core.skills import manager as skill_manager
    from vibe.core.trusted_folders import trusted_folders_manager

    skill_manager._parsed_skill_files.clear()
    _harness_manager.reset_harness_files_manager()
    _harness_manager.init_harness_files_manager("user", "project")
    trust = trusted_folders_manager.for_session()
    trust.trust_for_session(Path(job["project"]))
    harness_files = _harness_manager.get_harness_files_manager().for_session(Path(job["cwd"]))
    harness_files = replace(harness_files, trust_store=trust)
    import asyncio

    config = VibeConfigSchema.model_validate({})
    if job.get("settings"):
        # Vibe's own configuration stack (user ~/.vibe/config.toml, the trusted project's
        # .vibe/config.toml, VIBE_* variables) as every CLI session builds it.
        from vibe.core.config.default_orchestrator import build_default_orchestrator

        config = asyncio.run(build_default_orchestrator(harness_files=harness_files)).config
        setting_notes = [f"settings: disabled_skills = {list(config.disabled_skills)}"]
        if config.enabled_skills:
            setting_notes.append(f"settings: enabled_skills = {list(config.enabled_skills)}")
    else:
        setting_notes = []

    from vibe.app_server._plugins import (
        core_plugins,
        packaged_builtin_plugin_roots,
        resolve_session_plugins,
    )

    plugins = asyncio.run(resolve_session_plugins(harness_files))
    builtin_roots = [str(p) + os.sep for p in packaged_builtin_plugin_roots()]
    issues, projection = discover_session_skills(
        lambda: config,
        harness_files=harness_files,
        plugin_skills=plugins.materialized.resolution.skills,
        plugin_contexts=core_plugins(plugins),
        skill_tool_available=True,
    )
    rejected = [{"path": issue.file, "reason": issue.message} for issue in issues]
    warnings: list[str] = list(setting_notes)
    for record in collect.records:
        message = record.getMessage()
        m = DROPPED.match(message)
        if m:
            rejected.append({"path": m.group(2), "reason": m.group(3).splitlines()[0]})
        elif not message.startswith("Failed to parse skill at "):  # already an issue
            warnings.append(f"log: {message}")
    listed = {d.path for d in projection.definitions}
    listed |= {s.path for c in projection.plugin_contexts for s in c.capabilities.skills}
    skills, builtin = [], []
    for info in projection.catalogue:
        path = str(info.skill_path)
        item = {"path": path, "name": info.name, "description": info.description}
        (builtin if path.startswith(tuple(builtin_roots)) else skills).append(item)
        if path not in listed:
            warnings.append(f"not in <available-skills> (model invocation off): {path}")
    return {
        "runtime": "mistral-vibe",
        "release": version("mistral-vibe"),
        "skills": skills,
        "builtin": builtin,
        "rejected": rejected,
        "warnings": warnings,
        "tier1": _tier1(list(projection.definitions), list(projection.plugin_contexts)),
    }


def main() -> int:
    scratch = _setup()
    data = json.load(sys.stdin)
    jobs = data if isinstance(data, list) else [data]
    # Vibe's modules may print; keep stdout for the JSON answer alone.
    real_stdout = os.dup(1)
    os.dup2(2, 1)
    collect = _Collect()
    root = logging.getLogger()
    root.addHandler(collect)
    root.setLevel(logging.WARNING)
    try:
        # Imported once, under the scratch home (see the module docstring).
        import mistralai_vibe_local_harness.vibe._host  # noqa: F401
        import vibe.app_server._skills  # noqa: F401

        results = [run_job(job, collect) for job in jobs]
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    out = results if isinstance(data, list) else results[0]
    os.write(real_stdout, (json.dumps(out) + "\n").encode("utf-8"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
