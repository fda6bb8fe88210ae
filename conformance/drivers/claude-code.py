#!/usr/bin/env python3
"""Conformance driver: Claude Code (npm `@anthropic-ai/claude-code` 2.1.330, Bun binary).

Claude Code builds its skill listing only inside a model session, so the driver runs one: the
pinned binary, as a user starts it (`claude -p`, default settings, bundled skills on), in the
job's home and working folder, inside a network namespace whose only peer is the scripted model
server (conformance/netns_run.py, model_server.py: plain text, end of turn). What Claude Code
loaded is read from what it wrote and sent:

- the session transcript (`~/.claude/projects/<project>/<session>.jsonl`) holds the
  `skill_listing` attachment its loader built: `names` (the runtime's order, after its own clash
  resolution and filters) and `content` (the entries, `- name: description`);
- the request body the server received holds the tier-1 text exactly as the model gets it: the
  renderer's sentence, a blank line and the entries, in a `role: "system"` turn for models that
  take mid-conversation system messages (the default model of 2.1.330), else in a user meta
  message wrapped in `<system-reminder>`;
- `strace -f -e trace=openat` gives the SKILL.md files Claude Code opened; a listed name is
  matched to the opened file of its folder (Claude Code's command name is the folder name). When
  several opened files share that folder name (a clash), the one whose text holds the listed
  description wins; a name no opened file gives is a bundled skill, reported as `builtin`.

Nothing from a fixture is executed: the model never calls a tool, so no skill is invoked.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from binlab import PACKAGES, LabError, binary_path, emit, fail, read_job, run_isolated

HERE = Path(__file__).resolve().parent

RUNTIME = "claude-code"
PROMPT = "hello"
SENTENCE = re.compile(r"The following skills are (?:also )?available for use with the Skill tool")
# An open call as `strace -f` writes it; a call another thread interrupted ends in
# `<unfinished ...>` and its result comes on a later line, so the result is not read here: a
# SKILL.md counts when it was opened and exists.
OPENAT = re.compile(r'^\d+\s+(?:openat\(AT_FDCWD,|open\()\s*"((?:[^"\\]|\\.)*)"')


def _unescape(path: str) -> str:
    """strace's quoted path (C escapes, octal for non-ASCII bytes) as a str."""
    raw = path.encode("latin-1", "backslashreplace")
    return raw.decode("unicode_escape").encode("latin-1").decode("utf-8", "surrogateescape")


def opened_skill_files(trace: Path) -> list[str]:
    """Every SKILL.md Claude Code opened, in the order of the first open."""
    seen: dict[str, None] = {}
    for line in trace.read_text(encoding="utf-8", errors="replace").splitlines():
        m = OPENAT.match(line)
        if m and os.path.basename(m.group(1)).lower() == "skill.md":
            path = _unescape(m.group(1))
            if os.path.isfile(path):
                seen.setdefault(path, None)
    return list(seen)


def listing_attachment(home: Path) -> dict:
    """The session's first `skill_listing` attachment, from the transcript Claude Code wrote."""
    for transcript in sorted((home / ".claude" / "projects").glob("*/*.jsonl")):
        for line in transcript.read_text(encoding="utf-8").splitlines():
            try:
                record = json.loads(line)
            except ValueError:
                continue
            att = record.get("attachment") if isinstance(record, dict) else None
            if isinstance(att, dict) and att.get("type") == "skill_listing":
                return att
    raise LabError("Claude Code wrote no skill_listing attachment to its session transcript")


def split_entries(content: str, names: list[str]) -> list[tuple[str, str | None]]:
    """(name, description or None) per listed name, cut out of the listing's entries
    (`- name: description` or `- name`, joined by line breaks) in the attachment's order."""
    out: list[tuple[str, str | None]] = []
    pos = 0
    for i, name in enumerate(names):
        head = f"- {name}"
        if not content.startswith(head, pos):
            raise LabError(f"listing entry {i} is not '- {name}': {content[pos : pos + 80]!r}")
        pos += len(head)
        nxt = names[i + 1] if i + 1 < len(names) else None
        end = len(content)
        if nxt is not None:
            m = re.compile(r"\n- " + re.escape(nxt) + r"(?=: | \(|\n|$)").search(content, pos)
            if not m:
                raise LabError(f"the entry of {nxt!r} is not in the listing")
            end = m.start()
        body = content[pos:end]
        # `- folder (name): ...`: the frontmatter name, when it differs from the folder name
        # and also calls this skill, is shown beside it (sOn in 2.1.330)
        alias = re.match(r" \(([^()\n]*)\)(?=: |$)", body)
        if alias:
            body = body[alias.end() :]
        if body.startswith(": "):
            out.append((name, body[2:]))
        elif body == "":
            out.append((name, None))
        else:
            raise LabError(f"listing entry of {name!r} not understood: {body[:80]!r}")
        pos = end + 1
    return out


def tier1_text(requests: Path, content: str) -> str:
    """The listing exactly as the main request carries it to the model."""
    for line in requests.read_text(encoding="utf-8").splitlines():
        req = json.loads(line)
        body = req.get("body") or {}
        if not req.get("path", "").startswith("/v1/messages") or not body.get("tools"):
            continue
        for msg in body.get("messages") or []:
            blocks = msg.get("content")
            if isinstance(blocks, str):
                blocks = [{"type": "text", "text": blocks}]
            for block in blocks or []:
                text = block.get("text") if isinstance(block, dict) else None
                if not isinstance(text, str):
                    continue
                for m in SENTENCE.finditer(text):
                    end = text.find(":\n\n" + content, m.end())
                    if end != m.end():
                        continue
                    listing = text[m.start() : end + 3 + len(content)]
                    wrapped = f"<system-reminder>\n{listing}\n</system-reminder>"
                    start = m.start() - len("<system-reminder>\n")
                    if start >= 0 and text.startswith(wrapped, start):
                        return wrapped
                    return listing
    raise LabError("the skill listing is not in any request the model server received")


def _squash(text: str) -> str:
    return " ".join(text.split())


def match_files(
    listed: list[tuple[str, str | None]], opened: list[str]
) -> tuple[list[dict], list[dict], list[str]]:
    """Listed skills with the SKILL.md each came from; bundled ones (no file); warnings."""
    by_folder: dict[str, list[str]] = {}
    for path in opened:
        by_folder.setdefault(os.path.basename(os.path.dirname(path)), []).append(path)
    skills: list[dict] = []
    builtin: list[dict] = []
    warnings: list[str] = []
    for name, description in listed:
        folder = name.rsplit(":", 1)[-1]
        files = by_folder.get(folder, [])
        if not files:
            builtin.append({"name": name, "description": description})
            continue
        path = files[0]
        if len(files) > 1:
            want = _squash((description or "").removesuffix("\u2026"))
            fits = []
            for f in files:
                try:
                    text = Path(f).read_text(encoding="utf-8", errors="replace")
                except OSError:
                    continue
                if want and want in _squash(text):
                    fits.append(f)
            if len(fits) == 1:
                path = fits[0]
            else:
                warnings.append(
                    f"{name}: {len(files)} opened SKILL.md files share the folder name and "
                    f"{len(fits)} hold the listed description; reported {path}"
                )
        skills.append({"path": path, "name": name, "description": description})
    return skills, builtin, warnings


def run_job(job: dict) -> dict:
    claude = binary_path(RUNTIME)
    strace = shutil.which("strace")
    if strace is None:
        raise LabError("strace is needed to see which SKILL.md files Claude Code read")
    home = Path(job["home"]).resolve()
    with tempfile.TemporaryDirectory(prefix="cc-lab-") as tmp:
        work = Path(tmp)
        script = work / "script.json"
        script.write_text(json.dumps({"kind": "text", "text": "Done."}), encoding="utf-8")
        requests, trace = work / "requests.jsonl", work / "trace.txt"
        argv = [
            sys.executable,
            "-I",
            str(HERE.parent / "netns_run.py"),
            "--script",
            str(script),
            "--log",
            str(requests),
            "--env",
            "ANTHROPIC_BASE_URL={base_url}",
            "--env",
            "ANTHROPIC_API_KEY=sk-lab-not-a-key",
            "--",
            strace,
            "-f",
            "-qq",
            "-e",
            "trace=openat,open",
            "-o",
            str(trace),
            str(claude),
            "-p",
            PROMPT,
            "--output-format",
            "json",
        ]
        proc = run_isolated(argv, job, timeout=180)
        if proc.returncode != 0:
            raise LabError(
                f"claude -p exited {proc.returncode}: {(proc.stderr or proc.stdout)[-800:]}"
            )
        att = listing_attachment(home)
        names = [str(n) for n in att.get("names") or []]
        content = str(att.get("content") or "")
        listed = split_entries(content, names)
        tier1 = tier1_text(requests, content) if content else ""
        skills, builtin, warnings = match_files(listed, opened_skill_files(trace))
    return {
        "runtime": RUNTIME,
        "release": PACKAGES[RUNTIME].release,
        "skills": skills,
        "rejected": [],
        "warnings": warnings,
        "tier1": tier1,
        "builtin": builtin,
    }


def main() -> int:
    try:
        job = read_job()
        result = run_job(job)
    except (LabError, OSError, ValueError) as exc:
        return fail(RUNTIME, str(exc))
    emit(result)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
