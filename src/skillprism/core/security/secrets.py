"""Hard-coded secrets (Yelp's detect-secrets, as a library, offline) and encoded blobs (decoded,
so what they hide is shown and scanned).

detect-secrets runs only on lines a cheap RE2 pre-filter picks (a keyword or a known token
prefix), each cut to 1,000 characters, at most `max_secret_lines` per file; its verification
(which would call the issuers' APIs) is never used. The entropy plugins are left out: long random
strings are the blob rule's business, which decodes them first.
"""

from __future__ import annotations

import base64
import binascii
import html
import logging
import math
import re
import zlib
from collections import Counter
from dataclasses import dataclass

from skillprism.core.security.lean_import import standing_in
from skillprism.core.security.patterns import compile_bytes

HINT = (
    r"(?i)(?:api[_-]?key|apikey|secret|token|passw(?:or)?d|passwd|pwd|auth[_-]?(?:token|key)|"
    r"authorization|bearer|credentials?|private[_-]?key|access[_-]?key|client[_-]?secret|"
    r"signing[_-]?key)|\b(?:AKIA|ASIA)[0-9A-Z]{16}|\bgh[pousr]_[A-Za-z0-9]|github_pat_|glpat-|"
    r"xox[abposr]-|\b[sr]k_live_|\bsk-[A-Za-z0-9_-]{16}|-----BEGIN [A-Z ]*PRIVATE KEY|\bAIza[0-9A-Za-z_-]"
    r"|ya29\.|\bnpm_[A-Za-z0-9]{20}|pypi-AgE|\bSG\.[A-Za-z0-9_-]{16}|AccountKey=|hooks\.slack\.com|"
    r"://[^/\s:@]+:[^/\s:@]+@"
)
_HINT = compile_bytes(HINT)
_LINE_CAP = 1000
_EXCLUDED_PLUGINS = {"Base64HighEntropyString", "HexHighEntropyString", "IPPublicDetector"}
_PLACEHOLDER = re.compile(
    r"(?i)^(?:x+|\*+|\.+|<[^>]*>|\$\{?[a-z_][a-z0-9_]*\}?|%\(?[a-z_]+\)?s?|\{\{[^}]*\}\}|"
    r".*(?:example|sample|dummy|placeholder|changeme|change-me|your[_-]?|xxxx|redacted|"
    r"replace|insert|fake|test|todo).*)$"
)


@dataclass(frozen=True, slots=True)
class Secret:
    line: int
    kind: str
    value: str


_PLUGIN_CONFIG: list[dict[str, str]] | None = None


def _plugins() -> list[dict[str, str]]:
    global _PLUGIN_CONFIG
    if _PLUGIN_CONFIG is None:
        logging.getLogger("detect-secrets").setLevel(logging.CRITICAL)
        # Its verification (calls to the issuers' APIs) is never used: `requests` stands in while
        # detect-secrets loads its plugins and filters (the first scan loads the filters).
        with standing_in("requests:exceptions"):
            from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class
            from detect_secrets.core.scan import scan_line
            from detect_secrets.settings import transient_settings

            config = [
                {"name": cls.__name__}
                for cls in get_mapping_from_secret_type_to_class().values()
                if cls.__name__ not in _EXCLUDED_PLUGINS
            ]
            with transient_settings({"plugins_used": config}):
                list(scan_line('password = "loaded"'))
        _PLUGIN_CONFIG = config
    return _PLUGIN_CONFIG


def candidate_lines(data: bytes, limit: int) -> list[tuple[int, str]]:
    """(1-based line, text) of the lines the pre-filter picks, at most `limit`."""
    out: list[tuple[int, str]] = []
    last_line_start = -1
    line_no = 1
    pos = 0
    for m in _HINT.finditer(data):
        start = data.rfind(b"\n", 0, m.start()) + 1
        if start == last_line_start:
            continue
        line_no += data.count(b"\n", pos, start)
        pos = start
        last_line_start = start
        end = data.find(b"\n", m.start())
        end = len(data) if end < 0 else end
        out.append((line_no, data[start : min(end, start + _LINE_CAP)].decode("utf-8", "replace")))
        if len(out) >= limit:
            break
    return out


def find_secrets(lines: list[tuple[int, str]]) -> list[Secret]:
    if not lines:
        return []
    plugins = _plugins()  # first: it imports detect-secrets
    from detect_secrets.core.scan import scan_line
    from detect_secrets.settings import transient_settings

    found: list[Secret] = []
    with transient_settings({"plugins_used": plugins}):
        for line_no, text in lines:
            try:
                for secret in scan_line(text):
                    value = secret.secret_value or ""
                    if _PLACEHOLDER.match(value.strip("'\"")):
                        continue
                    found.append(Secret(line_no, secret.type, value))
            except Exception:  # a plugin failing on odd input must not end the scan
                continue
    return found


def mask(value: str) -> str:
    """A secret shown without giving it away: its first 4 characters and its length."""
    return value[:4] + "…" + f"({len(value)} characters)" if len(value) > 6 else "…"


# --- blobs -----------------------------------------------------------------------------------------


def entropy(data: bytes) -> float:
    """Shannon entropy in bits per symbol."""
    if not data:
        return 0.0
    n = len(data)
    return -sum(c / n * math.log2(c / n) for c in Counter(data).values())


def printable_ratio(data: bytes) -> float:
    if not data:
        return 0.0
    good = sum(1 for b in data if 32 <= b < 127 or b in (9, 10, 13))
    return good / len(data)


_CHR_NUMS = re.compile(rb"\d{2,3}")


def decode_blob(blob: bytes) -> tuple[str, bytes] | None:
    """(encoding, decoded bytes) of a blob, or None when it decodes to nothing."""
    try:
        if blob.startswith((b"\\x", b"\\X")):
            return "hex escapes", bytes.fromhex(
                blob.replace(b"\\x", b"").replace(b"\\X", b"").decode()
            )
        if blob.startswith(b"\\u"):
            return "unicode escapes", blob.decode("unicode_escape").encode("utf-8", "replace")
        if blob.startswith(b"\\") and blob[1:2].isdigit():
            return "octal escapes", bytes(int(x, 8) for x in blob.split(b"\\")[1:] if x)
        if blob.startswith(b"%"):
            return "percent-encoding", bytes.fromhex(blob.replace(b"%", b"").decode())
        if blob.startswith(b"&#"):
            return "HTML entities", html.unescape(blob.decode("ascii")).encode("utf-8", "replace")
        if blob.lower().startswith((b"chr", b"char", b"string.fromcharcode", b"[char]")):
            nums = [int(x) for x in _CHR_NUMS.findall(blob)]
            if nums and all(n < 256 for n in nums):
                return "character codes", bytes(nums)
        if len(blob) % 2 == 0 and all(c in b"0123456789abcdefABCDEF" for c in blob):
            return "hex", binascii.unhexlify(blob)
        text = blob.rstrip(b"=")
        pad = b"=" * (-len(text) % 4)
        if b"-" in text or b"_" in text:
            return "base64url", base64.urlsafe_b64decode(text + pad)
        return "base64", base64.b64decode(text + pad)
    except (ValueError, binascii.Error, UnicodeError):
        return None


def inflate(data: bytes, cap: int = 1 << 20) -> bytes | None:
    """gzip / zlib data decompressed to at most `cap` bytes, or None."""
    if not data.startswith((b"\x1f\x8b", b"x\x9c", b"x\x01", b"x\xda", b"x^")):
        return None
    try:
        return zlib.decompressobj(zlib.MAX_WBITS | 32).decompress(data, cap)
    except zlib.error:
        return None
