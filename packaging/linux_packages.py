"""The Linux packages made from the one-folder build: a .deb (dpkg-deb) and a .tar.gz.

The .deb installs the app under /opt/skillprism with a launcher on PATH (/usr/bin/skillprism),
the desktop file, hicolor icons in every size, AppStream metainfo and the copyright file. Its
Depends line is computed, like dpkg-shlibdeps does: the shared libraries the bundle's ELF files
need (DT_NEEDED) that the bundle does not carry are looked up with ldconfig and dpkg. Libraries
not installed on the build machine are named in SONAME_PACKAGES; anything else unknown stops the
build, so the Depends line cannot silently miss a library.

Both archives are reproducible for one build: sorted entries, owner root, fixed timestamps.
"""

from __future__ import annotations

import gzip
import io
import os
import re
import shutil
import stat
import struct
import subprocess
import sys
import tarfile
from dataclasses import dataclass
from pathlib import Path

APP_ID = "org.skillprism.SkillPrism"
PACKAGE = "skillprism"
MAINTAINER = "Skill Prism maintainers <maintainers@skillprism.invalid>"
HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT / "src"))

# Debian 12's package for each library the bundle is known to need, used when the build machine
# does not have the library installed (so dpkg cannot say). A library missing from both stops the
# build: after a Qt or Python upgrade, add its package to the table.
from skillprism.system_libraries import EXTRA_PACKAGES, SONAME_PACKAGES  # noqa: E402

# Part of every Debian system (Essential or the C library): never listed.
IMPLIED = frozenset({"libc6", "libgcc-s1", "libstdc++6", "zlib1g"})


@dataclass(frozen=True)
class Artifact:
    path: Path
    size: int


# --- ELF: the libraries a file needs ------------------------------------------------------------


def needed_libraries(path: Path) -> list[str]:
    """DT_NEEDED entries of an ELF file ([] for anything that is not a 64/32-bit ELF)."""
    data = path.read_bytes()
    if data[:4] != b"\x7fELF":
        return []
    is64 = data[4] == 2
    end = "<" if data[5] == 1 else ">"
    if is64:
        (shoff,) = struct.unpack_from(end + "Q", data, 0x28)
        shentsize, shnum = struct.unpack_from(end + "HH", data, 0x3A)
    else:
        (shoff,) = struct.unpack_from(end + "I", data, 0x20)
        shentsize, shnum = struct.unpack_from(end + "HH", data, 0x2E)
    sections = []
    for i in range(shnum):
        base = shoff + i * shentsize
        if is64:
            _name, kind, _flags, _addr, offset, size, link = struct.unpack_from(
                end + "IIQQQQI", data, base
            )
        else:
            _name, kind, _flags, _addr, offset, size, link = struct.unpack_from(
                end + "IIIIIII", data, base
            )
        sections.append((kind, offset, size, link))
    needed = []
    for kind, offset, size, link in sections:
        if kind != 6:  # SHT_DYNAMIC
            continue
        _skind, str_offset, _ssize, _slink = sections[link]
        entry = 16 if is64 else 8
        for pos in range(offset, offset + size, entry):
            tag, value = struct.unpack_from(end + ("qQ" if is64 else "iI"), data, pos)
            if tag == 0:
                break
            if tag == 1:  # DT_NEEDED
                stop = data.index(b"\0", str_offset + value)
                needed.append(data[str_offset + value : stop].decode())
    return needed


def _elf_files(folder: Path) -> list[Path]:
    files = []
    for path in sorted(folder.rglob("*")):
        if path.is_file() and not path.is_symlink():
            with path.open("rb") as handle:
                if handle.read(4) == b"\x7fELF":
                    files.append(path)
    return files


def _system_library_paths() -> dict[str, str]:
    """soname -> path, from the dynamic linker's cache (this machine's architecture only)."""
    out = subprocess.run(
        ["/sbin/ldconfig", "-p"], capture_output=True, text=True, check=True
    ).stdout
    paths: dict[str, str] = {}
    for line in out.splitlines()[1:]:
        match = re.match(r"\s*(\S+) \(([^)]*)\) => (\S+)", line)
        if match and ("x86-64" in match.group(2)) == (os.uname().machine == "x86_64"):
            paths.setdefault(match.group(1), match.group(3))
    return paths


def _owning_package(path: str) -> str | None:
    candidates = {path, os.path.realpath(path)}
    for candidate in list(candidates):  # merged /usr: dpkg may know either spelling
        if candidate.startswith("/lib"):
            candidates.add("/usr" + candidate)
        elif candidate.startswith("/usr/lib"):
            candidates.add(candidate[4:])
    for candidate in sorted(candidates):
        result = subprocess.run(["dpkg", "-S", candidate], capture_output=True, text=True)
        if result.returncode == 0:
            return result.stdout.split(":", 1)[0].split(",")[0].strip()
    return None


def _glibc_floor(files: list[Path]) -> str:
    """The newest GLIBC_x.y symbol version any file asks for."""
    best = (2, 17)
    for path in files:
        for major, minor in re.findall(rb"GLIBC_(\d+)\.(\d+)", path.read_bytes()):
            best = max(best, (int(major), int(minor)))
    return f"{best[0]}.{best[1]}"


def compute_depends(app_dir: Path) -> list[str]:
    files = _elf_files(app_dir)
    bundled = {p.name for p in app_dir.rglob("*")}
    wanted = sorted({lib for f in files for lib in needed_libraries(f)} - bundled)
    system = _system_library_paths()
    packages: set[str] = set()
    unknown = []
    for soname in wanted:
        package = _owning_package(system[soname]) if soname in system else None
        package = package or SONAME_PACKAGES.get(soname)
        if package is None:
            unknown.append(soname)
        else:
            packages.add(package.split(":")[0])
    if unknown:
        raise SystemExit(
            "make package: no Debian package known for " + ", ".join(unknown) + ": install the "
            "library on the build machine or add it to SONAME_PACKAGES in "
            "src/skillprism/system_libraries.py"
        )
    depends = [f"libc6 (>= {_glibc_floor(files)})"]
    depends += sorted((packages | set(EXTRA_PACKAGES)) - IMPLIED)
    return depends


# --- staging and archives ------------------------------------------------------------------------


def _copyright_text() -> str:
    notices = (ROOT / "THIRD_PARTY_NOTICES.md").read_text(encoding="utf-8")
    license_text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    return (
        "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n"
        "Upstream-Name: Skill Prism\n\n"
        "Files: *\nCopyright: Skill Prism contributors\nLicense: Apache-2.0\n\n"
        "Comment: third-party software bundled under /opt/skillprism, each under its own\n"
        " licence:\n"
        + "".join(f" {line}\n" if line.strip() else " .\n" for line in notices.splitlines())
        + "\nLicense: Apache-2.0\n"
        + "".join(f" {line}\n" if line.strip() else " .\n" for line in license_text.splitlines())
    )


def install_share(icons: Path, share: Path) -> None:
    """Desktop integration files into a `share` folder: desktop file, metainfo, hicolor icons
    and the copyright file."""
    (share / "applications").mkdir(parents=True)
    shutil.copy2(HERE / "linux" / f"{APP_ID}.desktop", share / "applications")
    (share / "metainfo").mkdir(parents=True)
    shutil.copy2(HERE / "linux" / f"{APP_ID}.metainfo.xml", share / "metainfo")
    shutil.copytree(icons / "hicolor", share / "icons" / "hicolor")
    doc = share / "doc" / PACKAGE
    doc.mkdir(parents=True)
    (doc / "copyright").write_text(_copyright_text(), encoding="utf-8")


def _normalise_modes(tree: Path) -> None:
    for path in tree.rglob("*"):
        if path.is_symlink():
            continue
        mode = path.stat().st_mode
        executable = path.is_dir() or mode & stat.S_IXUSR
        path.chmod(0o755 if executable else 0o644)


def build_deb(
    app_dir: Path, icons: Path, out_dir: Path, work: Path, version: str, epoch: int
) -> Artifact:
    arch = subprocess.run(
        ["dpkg", "--print-architecture"], capture_output=True, text=True, check=True
    ).stdout.strip()
    stage = work / "deb"
    if stage.exists():
        shutil.rmtree(stage)
    shutil.copytree(app_dir, stage / "opt" / PACKAGE, symlinks=True)
    install_share(icons, stage / "usr" / "share")
    (stage / "usr" / "bin").mkdir(parents=True)
    # A symlink is enough: the frozen app finds its files from its real path (/proc/self/exe).
    (stage / "usr" / "bin" / PACKAGE).symlink_to(f"/opt/{PACKAGE}/{PACKAGE}")
    _normalise_modes(stage)
    installed_kb = (
        sum(p.lstat().st_size for p in stage.rglob("*") if p.is_file() or p.is_symlink()) // 1024
    )
    control = stage / "DEBIAN"
    control.mkdir()
    (control / "control").write_text(
        f"Package: {PACKAGE}\n"
        f"Version: {version}\n"
        f"Architecture: {arch}\n"
        f"Maintainer: {MAINTAINER}\n"
        f"Installed-Size: {installed_kb}\n"
        f"Depends: {', '.join(compute_depends(app_dir))}\n"
        "Section: devel\n"
        "Priority: optional\n"
        "Description: workbench for Agent Skills, seen the way each agent runtime sees them\n"
        " Skill Prism shows one Agent Skills set (folders with a SKILL.md) the way each agent\n"
        " runtime sees it: which copy each runtime finds and which wins a name clash, what is\n"
        " wrong and on which line, what the skill listing costs in the prompt, and what\n"
        " activating a skill produces. It updates live while you edit; `skillprism check`\n"
        " runs the same checks headless.\n",
        encoding="utf-8",
    )
    for path in stage.rglob("*"):
        if not path.is_symlink():
            os.utime(path, (epoch, epoch))
    target = out_dir / f"{PACKAGE}_{version}_{arch}.deb"
    env = {**os.environ, "SOURCE_DATE_EPOCH": str(epoch)}
    subprocess.run(
        ["dpkg-deb", "--root-owner-group", "-Zxz", "--build", str(stage), str(target)],
        check=True,
        env=env,
        stdout=subprocess.DEVNULL,
    )
    return Artifact(target, target.stat().st_size)


def build_tarball(
    app_dir: Path, icons: Path, out_dir: Path, work: Path, version: str, epoch: int
) -> Artifact:
    """skillprism-<version>-linux-<machine>.tar.gz: the app folder (run ./skillprism), with a
    share/ folder of desktop files inside, to unpack anywhere."""
    name = f"{PACKAGE}-{version}-linux-{os.uname().machine}"
    stage = work / "tar"
    if stage.exists():
        shutil.rmtree(stage)
    shutil.copytree(app_dir, stage / name, symlinks=True)
    install_share(icons, stage / name / "share")
    _normalise_modes(stage)
    target = out_dir / f"{name}.tar.gz"
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for path in [stage / name, *sorted((stage / name).rglob("*"))]:
            info = tar.gettarinfo(str(path), arcname=str(path.relative_to(stage)))
            info.uid = info.gid = 0
            info.uname = info.gname = "root"
            info.mtime = epoch
            if info.isfile():
                with path.open("rb") as handle:
                    tar.addfile(info, handle)
            else:
                tar.addfile(info)
    with (
        target.open("wb") as handle,
        gzip.GzipFile(filename="", mode="wb", fileobj=handle, mtime=epoch, compresslevel=6) as gz,
    ):
        gz.write(raw.getvalue())
    return Artifact(target, target.stat().st_size)
