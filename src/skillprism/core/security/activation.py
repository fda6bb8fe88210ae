"""What a skill makes happen before the model even reads it, or lets happen without asking:
inline `!`command`` lines (Claude Code runs them when the skill is invoked) and `allowed-tools`
grants, each stated as exactly what it permits."""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache

from skillprism.core.diagnostics import Severity

# Commands whose only effect is to print something about the project or the machine.
_READ_ONLY = re.compile(
    r"^(?:git\s+(?:status|log|diff|show|branch|rev-parse|describe|remote(?:\s+-v)?|tag(?:\s+-l|"
    r"\s+--list)?|config\s+--get)\b|ls|pwd|date|whoami|uname|hostname|wc|head|tail|cat|echo|which|"
    r"(?:node|npm|python3?|go|cargo|rustc|java)\s+--?version|gh\s+(?:pr|issue|repo)\s+(?:view|list|"
    r"status)\b|tree|find\s+\.)(?:\s|$)"
)
_META = re.compile(r"[;&|<>`$()\\]")
_EXPOSES_ENV = re.compile(r"^(?:env|printenv|set|export\s+-p)\b")


def activation_severity(cmd: str) -> tuple[Severity, str]:
    """(severity, what it permits) of one inline activation command."""
    cmd = cmd.strip()
    if _EXPOSES_ENV.match(cmd):
        return (
            Severity.WARNING,
            "it prints the environment, so every secret in environment variables goes into the "
            "prompt (and to the model's provider)",
        )
    if _READ_ONLY.match(cmd) and not _META.search(cmd):
        return Severity.INFO, "a read-only command; its output goes into the prompt"
    return (
        Severity.WARNING,
        "it runs with the user's permissions, without a permission prompt beyond the skill's "
        "allowed-tools, every time the skill is invoked",
    )


def frontmatter_span(data: bytes) -> tuple[int, int] | None:
    """Byte offsets (start, end) of the frontmatter text between the `---` lines, or None."""
    if not data.startswith(b"---"):
        return None
    first_nl = data.find(b"\n")
    if first_nl < 0 or data[:first_nl].strip() != b"---":
        return None
    end = data.find(b"\n---", first_nl)
    while end >= 0:
        after = data.find(b"\n", end + 4)
        tail = data[end + 4 : after if after >= 0 else len(data)]
        if not tail.strip():
            return first_nl + 1, end + 1
        end = data.find(b"\n---", end + 4)
    return None


_KEY_LINE = re.compile(r"(?m)^(allowed[-_]tools)[^\S\n]*:[^\S\n]*(.*)$")
_TOOL = re.compile(r"^([A-Za-z_][\w.-]*|mcp__[\w-]+(?:__[\w*-]+)?)(?:\((.*)\))?$", re.S)


def allowed_tools(fm: str, first_line: int) -> Iterator[tuple[int, int, str]]:
    """(line, column, tool) of each entry of `allowed-tools` (string, flow list or block list),
    read line by line: no YAML parser, so no YAML trick can hide an entry from it."""
    for m in _KEY_LINE.finditer(fm):
        line_no = first_line + fm.count("\n", 0, m.start())
        value = m.group(2).strip()
        if value and not value.startswith(("|", ">")):
            inner = value.strip("[]").strip()
            line = fm[m.start() : m.end()]
            pos = line.find(inner) + 1 if inner else m.start(2) - m.start() + 1
            for tool in _split_tools(inner):
                yield line_no, pos + max(0, inner.find(tool)), tool
            continue
        following = fm[m.end() + 1 :].split("\n", 500)[:499]
        for j, item in enumerate(following, 1):
            if not item.strip():
                continue
            if not item.startswith((" ", "\t", "-")):
                break
            stripped = item.strip()
            if stripped.startswith("- "):
                stripped = stripped[2:].strip()
            elif stripped == "-":
                continue
            for tool in _split_tools(stripped):
                yield line_no + j, item.find(tool) + 1, tool


_PLAIN_SEPARATORS = re.compile(r"[,\s]+")


@lru_cache(maxsize=4096)  # skills of one author or collection repeat the same grants
def _split_tools(text: str) -> tuple[str, ...]:
    """Tools of one allowed-tools string: separated by commas or spaces outside parentheses."""
    if "(" not in text:
        return tuple(t.strip("'\"") for t in _PLAIN_SEPARATORS.split(text) if t.strip("'\""))
    out, depth, cur = [], 0, []
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth = max(0, depth - 1)
        if depth == 0 and (ch == "," or ch.isspace()):
            if cur:
                out.append("".join(cur))
                cur = []
            continue
        cur.append(ch)
    if cur:
        out.append("".join(cur))
    return tuple(t.strip("'\"") for t in out if t.strip("'\""))


_INTERPRETERS = (
    "sh", "bash", "zsh", "dash", "ksh", "fish", "python", "python3", "node", "deno", "bun", "perl",
    "ruby", "php", "pwsh", "powershell", "eval", "exec", "env", "xargs", "npx", "uvx", "pipx",
    "sudo", "su", "doas", "ssh", "docker", "kubectl", "osascript", "awk", "find", "make", "npm",
    "yarn", "pnpm", "cargo", "go",
)  # fmt: skip
_NETWORK = (
    "curl",
    "wget",
    "nc",
    "ncat",
    "netcat",
    "scp",
    "rsync",
    "ftp",
    "sftp",
    "telnet",
    "socat",
)
_DESTRUCTIVE = ("rm", "dd", "mkfs", "shred", "chmod", "chown", "truncate")


_SCRIPT_ARG = re.compile(
    r"""^(?:python[0-9.]*|node|bash|sh|zsh|ruby|perl|deno|bun|uv\s+run)\s+["']?"""
    r"""([^\s"'*-][^\s"'*]*\.(?:py|js|mjs|cjs|ts|sh|bash|rb|pl))["']?(?:\s|:|$)"""
)


def _fixed_script(cmd: str) -> str:
    """The script path a grant runs through an interpreter (`python3 scripts/x.py *`), or ''."""
    m = _SCRIPT_ARG.match(cmd)
    return m.group(1) if m else ""


@lru_cache(maxsize=4096)
def tool_grant(tool: str) -> tuple[Severity, str] | None:
    """(severity, what the grant permits) of one allowed-tools entry, or None when it is narrow."""
    t = tool.strip()
    # A grant permits; it does nothing by itself: a warning at most (what the skill then does
    # with it is for the other rules).
    if t in ("*", "all", "All") or (t.endswith("(*)") and t[:-3] in ("", "*")):
        return Severity.WARNING, f"'{t}' allows every tool without asking"
    m = _TOOL.match(t)
    if not m:
        if "*" in t:
            return Severity.WARNING, f"'{t}' is a wildcard: it allows every tool it matches"
        return None
    name, spec = m.group(1), m.group(2)
    if name.startswith("mcp__") and name.endswith(("__*", "*")):
        return Severity.WARNING, f"'{t}' allows every tool of that MCP server without asking"
    if name in ("Bash", "Shell", "run_shell_command", "shell", "Terminal", "PowerShell"):
        if spec is None or spec.strip() in ("", "*", ":*", "**"):
            return (
                Severity.WARNING,
                f"'{t}' lets the agent run any shell command with the user's permissions, without "
                "asking",
            )
        cmd = spec.strip()
        prog = re.split(r"[\s:]", cmd, maxsplit=1)[0].strip("*")
        base = prog.rsplit("/", 1)[-1]
        if not prog or prog.startswith("*"):
            return Severity.WARNING, f"'{t}' starts with a wildcard: it matches any command"
        script = _fixed_script(cmd)
        if script:
            return (
                Severity.INFO,
                f"'{t}' allows the script {script} (reviewed with the skill) with any arguments",
            )
        if base == "find" and "*" in cmd:
            return (
                Severity.WARNING,
                f"'{t}' has a wildcard, which lets '-exec' or '-delete' through: find can then run "
                "or delete anything",
            )
        if base in _INTERPRETERS or re.match(r"^python[0-9.]*$", base):
            return (
                Severity.WARNING,
                f"'{t}' allows any '{base}' command without asking, and '{base}' can run "
                "arbitrary code (e.g. '-c', a script, or a subcommand), so this is close to "
                "unrestricted shell",
            )
        if base in _NETWORK:
            return (
                Severity.WARNING,
                f"'{t}' allows any '{base}' command without asking: downloads and uploads to any "
                "host",
            )
        if base in _DESTRUCTIVE:
            return Severity.WARNING, f"'{t}' allows any '{base}' command without asking"
        if cmd.endswith(("*", ":*")) and " " not in cmd.rstrip(":*").strip():
            return (
                Severity.INFO,
                f"'{t}' allows every '{base}' command without asking (any subcommand and "
                "arguments)",
            )
        return None
    if spec is not None and spec.strip() in ("*", "**", "/**", "~/**", "//**"):
        return Severity.WARNING, f"'{t}' allows {name} on any path without asking"
    if "*" in name:
        return Severity.WARNING, f"'{t}' is a wildcard: it allows every tool it matches"
    return None
