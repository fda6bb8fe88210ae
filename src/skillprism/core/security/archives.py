"""The files inside a shipped archive (zip, tar, gzip, bzip2, xz), read in memory as the skill's
scripts would unpack them, so the security rules see them too; nothing is written to disk.

Bounded like the rest of the scan: at most `MAX_MEMBERS` members, `MAX_MEMBER_BYTES` read per
member and `MAX_TOTAL_BYTES` in all (an archive that inflates past them, a zip bomb, is cut and
says so). Member names that would unpack outside the folder (absolute, `..`), and links, are
findings of their own.
"""

from __future__ import annotations

import io
import zlib
from dataclasses import dataclass

MAX_MEMBERS = 1000
MAX_MEMBER_BYTES = 2 * 1024 * 1024
MAX_TOTAL_BYTES = 32 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class Member:
    name: str
    data: bytes  # its first MAX_MEMBER_BYTES bytes
    size: int  # its size unpacked
    mode: int  # permission bits (0 when the archive keeps none)


@dataclass(slots=True)
class Listing:
    members: list[Member]
    escaping: list[str]  # names that unpack outside the folder, or links
    cut: str  # what a bound left unread ('' when nothing)
    error: str  # why the archive could not be read ('' when it could)


def _escapes(name: str) -> bool:
    n = name.replace("\\", "/")
    return n.startswith("/") or (len(n) > 1 and n[1] == ":") or ".." in n.split("/")


def read_archive(data: bytes, kind: str, name: str = "") -> Listing:
    """The members of an archive whose bytes are `data` (`kind` as binary.archive_kind says);
    `name`, the archive's file name, names what a compressed single file holds (`x.sh.gz`
    holds `x.sh`)."""
    # The archive modules load here, when a skill first ships an archive.
    import lzma
    import tarfile
    import zipfile

    out = Listing([], [], "", "")
    try:
        if kind.startswith("ZIP"):
            _zip(data, out)
        elif kind.startswith(("gzip", "bzip2", "xz", "tar")):
            _tar_or_single(data, kind, out, name)
        else:
            out.error = f"{kind.split(' (')[0]} archives are not unpacked by the scan"
    except (OSError, EOFError, ValueError, zipfile.BadZipFile, tarfile.TarError, zlib.error,
            lzma.LZMAError, NotImplementedError, RuntimeError) as err:  # fmt: skip
        out.error = f"the archive cannot be read ({type(err).__name__})"
    return out


def _budget(out: Listing) -> int:
    return MAX_TOTAL_BYTES - sum(len(m.data) for m in out.members)


def _zip(data: bytes, out: Listing) -> None:
    import zipfile

    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        infos = zf.infolist()
        for n, info in enumerate(infos):
            if n >= MAX_MEMBERS:
                out.cut = f"{len(infos) - n:,} of its {len(infos):,} members were not read"
                return
            if info.is_dir():
                continue
            mode = (info.external_attr >> 16) & 0o177777
            if _escapes(info.filename) or (mode & 0o170000) == 0o120000:
                out.escaping.append(info.filename)
                continue
            left = _budget(out)
            if left <= 0:
                out.cut = f"members after '{info.filename}' were not read (too much unpacked data)"
                return
            if info.flag_bits & 0x1:
                out.cut = f"'{info.filename}' is encrypted and was not read"
                continue
            with zf.open(info) as fh:
                body = fh.read(min(MAX_MEMBER_BYTES, left))
            out.members.append(Member(info.filename, body, info.file_size, mode & 0o7777))


def _tar_or_single(data: bytes, kind: str, out: Listing, name: str = "") -> None:
    import tarfile

    inner = _decompress(data, kind)
    if inner is None:
        out.error = "the compressed data cannot be read"
        return
    if (len(inner) >= 262 and inner[257:262] == b"ustar") or kind.startswith("tar"):
        with tarfile.open(fileobj=io.BytesIO(inner), mode="r:") as tf:
            for n, info in enumerate(tf):
                if n >= MAX_MEMBERS:
                    out.cut = f"members after the first {MAX_MEMBERS:,} were not read"
                    return
                if info.isdir():
                    continue
                if info.issym() or info.islnk() or _escapes(info.name):
                    out.escaping.append(info.name)
                    continue
                if not info.isfile():
                    continue
                left = _budget(out)
                if left <= 0:
                    out.cut = f"members after '{info.name}' were not read (too much unpacked data)"
                    return
                fh = tf.extractfile(info)
                body = fh.read(min(MAX_MEMBER_BYTES, left)) if fh is not None else b""
                out.members.append(Member(info.name, body, info.size, info.mode & 0o7777))
        return
    base = name.rsplit("/", 1)[-1]
    for suffix in (".gz", ".gzip", ".bz2", ".xz", ".z"):
        if base.lower().endswith(suffix) and len(base) > len(suffix):
            base = base[: -len(suffix)]
            break
    else:
        base = "(its content)"
    out.members.append(Member(base, inner[:MAX_MEMBER_BYTES], len(inner), 0))


def _decompress(data: bytes, kind: str) -> bytes | None:
    """The first MAX_TOTAL_BYTES bytes `data` inflates to (tar: `data` itself)."""
    import bz2
    import lzma

    if kind.startswith("tar"):
        return data
    try:
        if kind.startswith("gzip"):
            return zlib.decompressobj(zlib.MAX_WBITS | 16).decompress(data, MAX_TOTAL_BYTES)
        if kind.startswith("bzip2"):
            return bz2.BZ2Decompressor().decompress(data, MAX_TOTAL_BYTES)
        if kind.startswith("xz"):
            return lzma.LZMADecompressor().decompress(data, MAX_TOTAL_BYTES)
    except (OSError, EOFError, zlib.error, lzma.LZMAError, ValueError):
        return None
    return None
