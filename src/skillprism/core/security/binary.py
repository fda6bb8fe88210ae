"""Telling shipped programs and archives by their first bytes (magic numbers), not their names."""

from __future__ import annotations

import struct

SCRIPT_EXTENSIONS = frozenset(
    [
        ".sh",
        ".bash",
        ".zsh",
        ".ksh",
        ".fish",
        ".py",
        ".pyw",
        ".js",
        ".mjs",
        ".cjs",
        ".ts",
        ".tsx",
        ".jsx",
        ".rb",
        ".pl",
        ".pm",
        ".php",
        ".ps1",
        ".psm1",
        ".psd1",
        ".bat",
        ".cmd",
        ".lua",
        ".r",
        ".tcl",
        ".awk",
        ".swift",
        ".go",
        ".java",
        ".kt",
        ".groovy",
        ".vbs",
        ".applescript",
        ".scpt",
    ]
)
PROSE_EXTENSIONS = frozenset(
    [".md", ".markdown", ".mdx", ".txt", ".rst", ".html", ".htm", ".adoc", ".org"]
)
DOCUMENT_CONTAINERS = frozenset(
    [".docx", ".xlsx", ".pptx", ".odt", ".ods", ".odp", ".epub", ".vsdx"]
)


_MAGIC_FIRST = frozenset(b"\x7fM\xfe\xce\xcf\xca\x00\x1f\xfd\x28\x04\xed\xd0PB7R!xdS")


def may_be_binary(head: bytes) -> bool:
    """A cheap test that `head` could start a program or archive (false for almost every text)."""
    return bool(head) and (
        head[0] in _MAGIC_FIRST or head[2:4] == b"\r\n" or head[257:262] == b"ustar"
    )


def executable_kind(head: bytes) -> str:
    """The kind of native or bytecode program `head` starts, or ''."""
    if head.startswith(b"\x7fELF"):
        return "ELF executable"
    if head.startswith(b"MZ") and (b"\x00" in head[:64] or len(head) < 64):
        if len(head) >= 64:
            (off,) = struct.unpack_from("<I", head, 0x3C)
            if off + 4 <= len(head) and head[off : off + 4] != b"PE\x00\x00":
                return "DOS/Windows executable"
        return "Windows (PE) executable"
    if head[:4] in (
        b"\xfe\xed\xfa\xce",
        b"\xfe\xed\xfa\xcf",
        b"\xce\xfa\xed\xfe",
        b"\xcf\xfa\xed\xfe",
    ):
        return "Mach-O executable"
    if head.startswith(b"\xca\xfe\xba\xbe") and len(head) >= 8:
        (n,) = struct.unpack_from(">I", head, 4)
        return "Mach-O universal binary" if 0 < n < 30 else "Java class file"
    if head.startswith(b"\x00asm"):
        return "WebAssembly module"
    if (
        len(head) >= 16
        and head[2:4] == b"\r\n"
        and 3000 <= int.from_bytes(head[:2], "little") < 4000
    ):
        return "Python bytecode (.pyc)"
    if head.startswith(b"dex\n"):
        return "Android DEX bytecode"
    return ""


def archive_kind(head: bytes) -> str:
    """The kind of archive or container `head` starts, or ''."""
    if not may_be_binary(head):
        return ""  # (every magic below starts with a byte may_be_binary looks for)
    if head.startswith((b"PK\x03\x04", b"PK\x05\x06", b"PK\x07\x08")):
        return "ZIP archive (also jar, wheel, apk, Office files)"
    if head.startswith(b"\x1f\x8b"):
        return "gzip data"
    if head.startswith(b"BZh") and head[3:4].isdigit():
        return "bzip2 data"
    if head.startswith(b"\xfd7zXZ\x00"):
        return "xz data"
    if head.startswith(b"7z\xbc\xaf\x27\x1c"):
        return "7-Zip archive"
    if head.startswith(b"Rar!\x1a\x07"):
        return "RAR archive"
    if head.startswith(b"\x28\xb5\x2f\xfd"):
        return "Zstandard data"
    if head.startswith(b"\x04\x22\x4d\x18"):
        return "LZ4 data"
    if len(head) >= 262 and head[257:262] == b"ustar":
        return "tar archive"
    if head.startswith(b"MSCF"):
        return "Microsoft Cabinet archive"
    if head.startswith(b"!<arch>\n"):
        return "ar archive (e.g. .deb)"
    if head.startswith(b"\xed\xab\xee\xdb"):
        return "RPM package"
    if head.startswith(b"xar!"):
        return "XAR archive (e.g. .pkg)"
    if head.startswith(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"):
        return "OLE compound file (MSI, legacy Office; may hold macros)"
    return ""
