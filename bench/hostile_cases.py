"""Hostile inputs for `skillprism check`, shared by tests/test_hostile.py and bench/bench_hostile.py.

Each case builds its input below a fresh folder `base` and returns the folder to check. Nothing is
committed: everything is made on the fly (FIFOs, device links, undecodable names, sparse files).

Also here: `tree_fingerprint`, a digest of a folder's names, bytes and link targets that never reads
FIFOs or devices and never follows links, so "the input tree is byte-identical afterwards" can be
asserted cheaply.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

MiB = 1024 * 1024


@dataclass(frozen=True)
class Case:
    id: str
    build: Callable[[Path], Path]
    codes: tuple[str, ...]  # every one of these codes must be reported
    needs: str = ""  # "fifo", "dev", "bytes-names": platform feature the case needs
    marker: str = ""  # a file (relative to base) that must NOT exist afterwards
    args: tuple[str, ...] = ()  # extra `check` arguments; "{base}" is replaced by the case folder


def skill_text(
    name: str = "demo",
    description: str = "Does a thing. Use when a thing is needed.",
    extra: str = "",
    body: str = "# Demo\n\nDo the thing.\n",
) -> str:
    return f"---\nname: {name}\ndescription: {description}\n{extra}---\n\n{body}"


def _skill(base: Path, folder: str, data: bytes | str) -> Path:
    """Write `data` as `base/tree/<folder>/SKILL.md`; return `base/tree`."""
    tree = base / "tree"
    d = tree / folder
    d.mkdir(parents=True, exist_ok=True)
    raw = data.encode() if isinstance(data, str) else data
    (d / "SKILL.md").write_bytes(raw)
    return tree


def _fm(frontmatter: str, body: str = "# Demo\n\nBody.\n") -> str:
    return f"---\n{frontmatter}\n---\n\n{body}"


# --- the cases -----------------------------------------------------------------------------------


def billion_laughs(base: Path) -> Path:
    lines = ['a0: &a0 "lol"']
    for i in range(1, 10):
        prev = f"*a{i - 1}"
        lines.append(f"a{i}: &a{i} [{', '.join([prev] * 9)}]")
    fm = "name: demo\ndescription: Laughs. Use when laughing.\n" + "\n".join(lines)
    return _skill(base, "demo", _fm(fm))


def deep_flow(base: Path) -> Path:
    n = 100_000
    fm = "name: demo\ndescription: Deep. Use when deep.\nk: " + "[" * n + "]" * n
    return _skill(base, "demo", _fm(fm))


def deep_flow_unclosed(base: Path) -> Path:
    fm = "name: demo\ndescription: Deep. Use when deep.\nk: " + "[" * 100_000
    return _skill(base, "demo", _fm(fm))


def deep_flow_mapping(base: Path) -> Path:
    n = 40_000
    fm = "name: demo\ndescription: Deep. Use when deep.\nk: " + "{a: " * n + "1" + "}" * n
    return _skill(base, "demo", _fm(fm))


def deep_block_mapping(base: Path) -> Path:
    n = 300
    nest = "\n".join("  " * i + "a:" for i in range(n)) + " 1"
    fm = "name: demo\ndescription: Deep. Use when deep.\n" + nest
    return _skill(base, "demo", _fm(fm))


def deep_dash_line(base: Path) -> Path:
    fm = "name: demo\ndescription: Deep. Use when deep.\nk:\n  " + "- " * 60_000 + "x"
    return _skill(base, "demo", _fm(fm))


def huge_scalar(base: Path) -> Path:
    fm = "name: demo\ndescription: " + "x" * (2 * MiB - 200)
    return _skill(base, "demo", _fm(fm, "Body.\n"))


def big_scalar_parsed(base: Path) -> Path:
    # Just under the frontmatter cap, so it is parsed, typed and measured.
    fm = "name: demo\ndescription: " + "word " * 50_000
    return _skill(base, "demo", _fm(fm))


def over_cap(base: Path) -> Path:
    return _skill(base, "demo", skill_text(body="x" * (3 * MiB)))


def sparse_huge(base: Path) -> Path:
    tree = _skill(base, "demo", b"")
    with open(tree / "demo" / "SKILL.md", "r+b") as fh:
        fh.truncate(10 * 1024 * MiB)  # 10 GiB, sparse: costs no disk
    return tree


def _python_tag(tag_line: str) -> Callable[[Path], Path]:
    def build(base: Path) -> Path:
        marker = base / "MARKER"
        fm = "name: demo\ndescription: Tags. Use when tagged.\n" + tag_line.format(
            marker=str(marker)
        )
        return _skill(base, "demo", _fm(fm))

    return build


def fifo(base: Path) -> Path:
    tree = base / "tree"
    (tree / "demo").mkdir(parents=True)
    os.mkfifo(tree / "demo" / "SKILL.md")
    return tree


def _device_link(device: str) -> Callable[[Path], Path]:
    def build(base: Path) -> Path:
        tree = base / "tree"
        (tree / "demo").mkdir(parents=True)
        os.symlink(device, tree / "demo" / "SKILL.md")
        return tree

    return build


def symlink_loop_folders(base: Path) -> Path:
    tree = _skill(base, "a", skill_text("a"))
    _skill(base, "b", skill_text("b"))
    os.symlink("../b", tree / "a" / "to-b")
    os.symlink("../a", tree / "b" / "to-a")
    os.symlink(".", tree / "a" / "self")
    os.symlink("..", tree / "b" / "up")
    return tree


def symlink_self_file(base: Path) -> Path:
    tree = base / "tree"
    (tree / "demo").mkdir(parents=True)
    os.symlink("SKILL.md", tree / "demo" / "SKILL.md")
    return tree


def broken_symlink(base: Path) -> Path:
    tree = base / "tree"
    (tree / "demo").mkdir(parents=True)
    os.symlink("does-not-exist.md", tree / "demo" / "SKILL.md")
    return tree


def newline_folder(base: Path) -> Path:
    return _skill(base, "bad\nname", skill_text("bad-name"))


def undecodable_folder(base: Path) -> Path:
    tree = base / "tree"
    tree.mkdir()
    folder = os.path.join(os.fsencode(tree), b"caf\xe9-\xff\xfe")
    os.mkdir(folder)
    with open(os.path.join(folder, b"SKILL.md"), "wb") as fh:
        fh.write(skill_text("cafe").encode())
    return tree


def invalid_utf8(base: Path) -> Path:
    return _skill(base, "demo", skill_text().encode() + b"\xff\xfe\xc3\x28 broken\n")


def nul_bytes(base: Path) -> Path:
    return _skill(base, "demo", skill_text().encode() + b"\x00\x00binary\x00\n")


def long_line(base: Path) -> Path:
    return _skill(base, "demo", skill_text(body="a" * MiB))


def long_line_brackets(base: Path) -> Path:
    # A megabyte of '[' that ends in '](': bait for a backtracking Markdown-link regex.
    return _skill(base, "demo", skill_text(body="[" * MiB + "](x"))


def long_line_links(base: Path) -> Path:
    return _skill(base, "demo", skill_text(body="[a](references/missing.md) " * 40_000))


def only_dashes(base: Path) -> Path:
    return _skill(base, "demo", "---")


def only_two_dashes(base: Path) -> Path:
    return _skill(base, "demo", "---\n---\n")


def many_files(base: Path) -> Path:
    body = "# Demo\n\nSee [the guide](references/missing.md).\n"
    tree = _skill(base, "demo", skill_text(body=body))
    d = tree / "demo"
    (d / "references").mkdir()
    for i in range(10_000):
        (d / f"file-{i:05d}.txt").write_bytes(b"x")
        (d / "references" / f"ref-{i:05d}.md").write_bytes(b"# ref\n")
    return tree


def many_keys(base: Path) -> Path:
    keys = "\n".join(f"key{i}: value {i}" for i in range(10_000))
    return _skill(base, "demo", _fm("name: demo\ndescription: Keys. Use when keyed.\n" + keys))


def many_unknown_keys(base: Path) -> Path:
    # Below the node bound, so every key is read and reported as an unknown field.
    keys = "\n".join(f"key{i}: value {i}" for i in range(4_000))
    return _skill(base, "demo", _fm("name: demo\ndescription: Keys. Use when keyed.\n" + keys))


def fallback_blank_run(base: Path) -> Path:
    # Broken YAML read by a profile that falls back to `key: value` lines, with a 250,000-blank run
    # in one line: bait for a backtracking trailing-blank regex. The profile is written to `base`.
    from skillprism.paths import shipped_profiles_dir

    shipped = (shipped_profiles_dir() / "agentskills.toml").read_text(encoding="utf-8")
    assert 'yaml_errors = "skip"' in shipped
    (base / "fallback.toml").write_text(
        shipped.replace('yaml_errors = "skip"', 'yaml_errors = "fallback-lines"'), encoding="utf-8"
    )
    fm = "name: demo" + " " * 250_000 + "x\ndescription: Use when: it breaks YAML"
    return _skill(base, "demo", _fm(fm))


def deep_folders(base: Path) -> Path:
    tree = base / "tree"
    deep = tree.joinpath(*(["d"] * 200))
    deep.mkdir(parents=True)
    (deep / "SKILL.md").write_text(skill_text("d"), encoding="utf-8")
    return tree


CASES: tuple[Case, ...] = (
    Case("billion-laughs", billion_laughs, ("SP116",)),
    Case("deep-flow-seq-100k", deep_flow, ("SP116",)),
    Case("deep-flow-seq-unclosed", deep_flow_unclosed, ("SP116",)),
    Case("deep-flow-map-40k", deep_flow_mapping, ("SP116",)),
    Case("deep-block-mapping", deep_block_mapping, ("SP116",)),
    Case("deep-dash-one-line", deep_dash_line, ("SP116",)),
    Case("multi-megabyte-scalar", huge_scalar, ("SP119",)),
    Case("250k-scalar-parsed", big_scalar_parsed, ("SP212",)),
    Case("file-over-cap", over_cap, ("SP102",)),
    Case("sparse-10GiB", sparse_huge, ("SP102",)),
    Case(
        "python-apply-os-system",
        _python_tag("x: !!python/object/apply:os.system ['touch {marker}']\n"),
        ("SP117",),
        marker="MARKER",
    ),
    Case(
        "python-new-popen",
        _python_tag("x: !!python/object/new:subprocess.Popen [['touch', '{marker}']]\n"),
        ("SP117",),
        marker="MARKER",
    ),
    Case(
        "python-name-and-module",
        _python_tag("x: !!python/name:os.system\ny: !!python/module:os\n"),
        ("SP117",),
    ),
    Case(
        "python-tag-as-key",
        _python_tag("? !!python/object/apply:os.system ['touch {marker}']\n: 1\n"),
        ("SP117",),
        marker="MARKER",
    ),
    Case("fifo-skill-md", fifo, ("SP101",), needs="fifo"),
    Case("link-to-dev-zero", _device_link("/dev/zero"), ("SP304",), needs="dev"),
    Case("link-to-dev-urandom", _device_link("/dev/urandom"), ("SP304",), needs="dev"),
    Case("symlink-loop-folders", symlink_loop_folders, ("SP304",)),
    Case("symlink-self-loop-file", symlink_self_file, ("SP100",)),
    Case("broken-symlink", broken_symlink, ("SP100",)),
    Case("newline-in-folder-name", newline_folder, ("SP208",)),
    Case("undecodable-folder-name", undecodable_folder, ("SP208",), needs="bytes-names"),
    Case("invalid-utf8", invalid_utf8, ("SP105",)),
    Case("nul-bytes", nul_bytes, ("SP104",)),
    Case("1mb-single-line", long_line, ("SP602",)),
    Case("1mb-line-of-brackets", long_line_brackets, ("SP602",)),
    Case("1mb-line-of-links", long_line_links, ("SP501",)),
    Case("frontmatter-only-dashes", only_dashes, ("SP110",)),
    Case("frontmatter-empty", only_two_dashes, ("SP201", "SP210")),
    Case("20k-files-in-skill", many_files, ("SP501",)),
    Case("10k-frontmatter-keys", many_keys, ("SP116",)),
    Case("4k-unknown-keys", many_unknown_keys, ("SP216",)),
    Case(
        "fallback-250k-blank-run",
        fallback_blank_run,
        ("SP121",),
        args=("--profile", "{base}/fallback.toml"),
    ),
    Case("200-nested-folders", deep_folders, ("SP303",)),
)


def unsupported(case: Case) -> str:
    """Why `case` cannot run on this platform ('' when it can)."""
    if case.needs == "fifo" and not hasattr(os, "mkfifo"):
        return "no FIFOs on this platform"
    if case.needs == "dev" and not (os.path.exists("/dev/zero") and hasattr(os, "symlink")):
        return "no /dev/zero"
    if case.needs == "bytes-names" and (sys.platform in ("darwin", "win32")):
        return "the file system refuses undecodable names"
    return ""


# --- checking and fingerprinting -----------------------------------------------------------------


def tree_fingerprint(root: str | os.PathLike[str]) -> str:
    """Digest of every name, type, size, mtime, file content and link target below `root`. Links
    are never followed; FIFOs, sockets and devices are lstat'ed, never opened."""
    h = hashlib.sha256()
    top = os.fsencode(root)
    stack = [top]
    while stack:
        folder = stack.pop()
        for name in sorted(os.listdir(folder)):
            path = os.path.join(folder, name)
            st = os.lstat(path)
            h.update(os.path.relpath(path, top) + b"\0")
            h.update(f"{stat.S_IFMT(st.st_mode)}:{stat.S_IMODE(st.st_mode)}\0".encode())
            if stat.S_ISLNK(st.st_mode):
                h.update(os.readlink(path) + b"\0")
            elif stat.S_ISDIR(st.st_mode):
                stack.append(path)
            elif stat.S_ISREG(st.st_mode):
                h.update(f"{st.st_size}:{st.st_mtime_ns}\0".encode())
                if st.st_size <= 64 * MiB:  # the sparse 10 GiB file: size and mtime suffice
                    with open(path, "rb") as fh:
                        h.update(hashlib.sha256(fh.read()).digest())
    return h.hexdigest()


@dataclass
class Run:
    returncode: int
    stdout: str
    stderr: str
    seconds: float


def case_args(case: Case, base: Path) -> tuple[str, ...]:
    return tuple(a.replace("{base}", str(base)) for a in case.args)


def run_check(
    target: str | os.PathLike[str],
    *,
    cwd: str | os.PathLike[str],
    timeout: float = 60,
    extra: tuple[str, ...] = (),
) -> Run:
    """`python -m skillprism check --format json [EXTRA] TARGET` in a subprocess (the hang guard is
    `timeout`; subprocess.TimeoutExpired propagates)."""
    cmd = [sys.executable, "-m", "skillprism", "check", "--format", "json", *extra]
    cmd.append(os.fspath(target))
    t0 = time.perf_counter()
    proc = subprocess.run(
        cmd, cwd=cwd, capture_output=True, timeout=timeout, stdin=subprocess.DEVNULL
    )
    seconds = time.perf_counter() - t0
    return Run(
        proc.returncode,
        proc.stdout.decode("utf-8", "replace"),
        proc.stderr.decode("utf-8", "replace"),
        seconds,
    )


def reported_codes(doc: dict) -> set[str]:
    """Every diagnostic code in a `check --format json` document."""
    codes: set[str] = set()
    for result in doc["results"]:
        codes.update(d["code"] for d in result["diagnostics"])
        for s in result["skills"]:
            codes.update(d["code"] for d in s["diagnostics"])
    return codes


def problems(
    case: Case, base: Path, target: Path, before: str, run: Run, codes: bool = True
) -> list[str]:
    """Everything wrong with one run of `case` ([] when it held); `codes=False` skips the check
    of the expected codes (for runs under profiles other than the case's own)."""
    out: list[str] = []
    if run.returncode not in (0, 1):
        out.append(f"exit code {run.returncode}")
    if "Traceback" in run.stderr or run.stderr.strip():
        out.append(f"stderr: {run.stderr.strip()[-600:]}")
    try:
        doc = json.loads(run.stdout)
    except ValueError as err:
        out.append(f"stdout is not JSON: {err}")
        doc = None
    if doc is not None and codes:
        missing = [c for c in case.codes if c not in reported_codes(doc)]
        if missing:
            out.append(f"missing code(s) {missing}; got {sorted(reported_codes(doc))}")
    if case.marker and os.path.lexists(base / case.marker):
        out.append(f"marker {case.marker} was created: a YAML tag ran code")
    if tree_fingerprint(target) != before:
        out.append("the input tree changed")
    return out
