"""Hard-coded secrets and encoded blobs.

Secrets: the token formats issuers publish (each with its own prefix and length, so a match is a
key of that issuer, not a guess), private key blocks, passwords in URLs, and values assigned to
names such as `password` or `api_key`. What makes a reviewer throw a finding out is a
placeholder: documentation shows `AKIAIOSFODNN7EXAMPLE`, `sk_live_...`, `my-secret`,
`postgres://user:password@host`. A value is a secret only when it is not one (no placeholder
word, not a run of one character, random enough for its length). Issuer formats are errors
anywhere; a password or key assigned by name is a warning in a script or data file and only
information in a document, where values are nearly always examples.

Blobs: long base64, hex or escaped runs are decoded so what they hide is shown and scanned.
Nothing is ever verified against an issuer: the scan never uses the network.
"""

from __future__ import annotations

import base64
import binascii
import html
import math
import re
import zlib
from collections import Counter
from dataclasses import dataclass

import re2

from skillprism.core.diagnostics import Severity
from skillprism.core.security.patterns import _options, compile_bytes

E, W, INFO = Severity.ERROR, Severity.WARNING, Severity.INFO

# Atoms a text needs for any secret detector to match it (the prefilter's gate).
ATOMS = (
    "akia", "asia", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "glpat-", "xox",
    "hooks.slack.com", "k_live_", "sk-", "aiza", "npm_", "pypi-age", "sg.", "private key",
    "accountkey=", "eyj", "://", "pass", "pwd", "secret", "token", "key",
)  # fmt: skip

# (kind, the lower-case prefixes of which the text must hold one, pattern; group 1 is the secret
# value)
_FORMATS: tuple[tuple[str, tuple[bytes, ...], re2._Regexp], ...] = tuple(
    (kind, prefix if isinstance(prefix, tuple) else (prefix,), compile_bytes(rx))
    for kind, prefix, rx in (
        ("AWS access key", (b"akia", b"asia"), rb"\b((?:AKIA|ASIA)[0-9A-Z]{16})\b"),
        (
            "GitHub token",
            (b"ghp_", b"gho_", b"ghu_", b"ghs_", b"ghr_"),
            rb"\b(gh[pousr]_[A-Za-z0-9]{36,255})\b",
        ),
        ("GitHub token", b"github_pat_", rb"\b(github_pat_[A-Za-z0-9_]{60,255})\b"),
        ("GitLab token", b"glpat-", rb"\b(glpat-[A-Za-z0-9_\-]{20,})\b"),
        ("Slack token", b"xox", rb"\b(xox[baprs]-[0-9A-Za-z][0-9A-Za-z\-]{9,})\b"),
        (
            "Slack webhook",
            b"hooks.slack.com",
            rb"(https://hooks\.slack\.com/services/T[A-Z0-9]{6,}/B[A-Z0-9]{6,}/[A-Za-z0-9]{20,})",
        ),
        ("Stripe secret key", b"k_live_", rb"\b([sr]k_live_[0-9A-Za-z]{20,})\b"),
        (
            "OpenAI key",
            b"sk-",
            rb"\b(sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}T3BlbkFJ[A-Za-z0-9_\-]{20,})",
        ),
        ("OpenAI key", b"sk-proj-", rb"\b(sk-proj-[A-Za-z0-9_\-]{80,})"),
        ("Anthropic key", b"sk-ant-", rb"\b(sk-ant-(?:api|admin)\d\d-[A-Za-z0-9_\-]{80,})"),
        ("Google API key", b"aiza", rb"\b(AIza[0-9A-Za-z_\-]{35})(?:[^0-9A-Za-z_\-]|$)"),
        ("npm token", b"npm_", rb"\b(npm_[A-Za-z0-9]{36})\b"),
        ("PyPI token", b"pypi-age", rb"\b(pypi-AgE[A-Za-z0-9_\-]{50,})"),
        ("SendGrid key", b"sg.", rb"\b(SG\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43})\b"),
        ("Azure storage key", b"accountkey=", rb"AccountKey=([A-Za-z0-9+/]{86}==)"),
        (
            "JSON web token",
            b"eyj",
            rb"\b(eyJ[A-Za-z0-9_\-]{10,}\.eyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{20,})",
        ),
    )
)
_PRIVATE_KEY = compile_bytes(
    rb"-----BEGIN ((?:RSA |EC |DSA |OPENSSH |PGP |ENCRYPTED )?PRIVATE KEY(?: BLOCK)?)-----"
    rb"\s*((?:[A-Za-z0-9+/=:\-, ]+\s*){3,})"
)
# (No counted repetitions: RE2 runs these over whole files fastest without; lengths are checked
# in code.)
_URL_PASSWORD = compile_bytes(rb"://([^/\s:@'\"<>`]+):([^/\s@'\"<>`]+)@[A-Za-z0-9.\-]+")
_ASSIGNED = compile_bytes(
    rb"(?i)(?:passw(?:or)?d|passwd|pwd|secret|token|api[_\-]?key|apikey|access[_\-]?key|"
    rb"private[_\-]?key|client[_\-]?secret|auth[_\-]?token|signing[_\-]?key)[a-z0-9_]*[\"']?"
    rb"[ \t]*(?::=|=|:|=>)[ \t]*[a-z]?[\"']([^\"'\s]+)[\"']"
)
_NAME_BEFORE = re.compile(rb"[A-Za-z0-9_.\-]*$")
_ASSIGNED_WORDS = (b"pass", b"pwd", b"secret", b"token", b"key")

# Every word the detectors above look for first, in one RE2 set: one pass over a text tells
# which of them it holds (compared case-insensitively).
_WORDS = sorted(
    {p for _kind, prefixes, _rx in _FORMATS for p in prefixes}
    | set(_ASSIGNED_WORDS)
    | {b"private key"}
)
_WORD_SET = re2.Set.SearchSet(_options())
for _word in _WORDS:
    _WORD_SET.Add(b"(?i)" + re2.escape(_word))
_WORD_SET.Compile()
_WORD_MATCH = _WORD_SET._set.Match  # the binding's C++ call, without its Python wrapper


def _words_in(data: bytes) -> frozenset[bytes]:
    return frozenset(_WORDS[i] for i in _WORD_MATCH(data) or ())


_PLACEHOLDER = re.compile(
    r"(?i)example|sample|dummy|placeholder|changeme|change[-_]?me|your|xxx|\*\*\*|redacted|"
    r"replace|insert|fake|test|todo|fixme|secret|password|passwd|token|api[-_]?key|"
    r"mykey|my[-_]|\.\.\.|…|<|>|\{|\}|\$|%\(|\[|\]|^(?:none|null|nil|true|false|undefined)$|"
    r"0123|1234|abcd|qwerty|letmein|hunter2|admin|root|default|^x+$|"
    r"^(?:user|pass|pw|guest|postgres|mysql|demo|local|localhost|dev|prod|staging)\w{0,6}$"
)
_LOOKS_CODE = re.compile(r"^[A-Za-z_][\w]*(?:[.(\[][\w.()\[\]'\"]*)+$|^[a-z]+(?:[_\-][a-z]+)+$")


@dataclass(frozen=True, slots=True)
class Secret:
    offset: int  # byte offset of the value in the text scanned
    kind: str
    value: str
    severity: Severity


def entropy(data: bytes | str) -> float:
    """Shannon entropy in bits per symbol."""
    if not data:
        return 0.0
    n = len(data)
    return -sum(c / n * math.log2(c / n) for c in Counter(data).values())


def placeholder(value: str) -> bool:
    """A value documentation uses in place of a secret, or one too plain to be one."""
    v = value.strip("'\"`")
    if len(set(v)) <= 3 or _PLACEHOLDER.search(v):
        return True
    body = re.sub(r"^[A-Za-z]{2,6}[_\-]", "", v)  # a format's prefix carries no randomness
    return entropy(body) < 3.0


def _random(value: str) -> bool:
    """Random enough to be a generated key: long, varied, several kinds of character."""
    if len(value) < 12 or _LOOKS_CODE.match(value):
        return False
    kinds = sum(
        1 for test in (str.islower, str.isupper, str.isdigit) if any(test(c) for c in value)
    ) + (1 if re.search(r"[^A-Za-z0-9]", value) else 0)
    return kinds >= 3 and entropy(value) >= 3.5


def find_secrets(data: bytes, kind: str, limit: int) -> list[Secret]:
    """Secrets in `data`, a file of `kind` (skill, prose, script, data); at most `limit`."""
    found: list[Secret] = []
    document = kind in ("skill", "prose", "licence")
    words = _words_in(data)
    for what, prefixes, rx in _FORMATS:
        if words.isdisjoint(prefixes):
            continue
        for m in rx.finditer(data):
            value = m.group(1).decode("ascii", "replace")
            if placeholder(value[:80]):
                continue
            # a web token in a skill is nearly always a sample (and expires): information
            sev = INFO if what == "JSON web token" else E
            found.append(Secret(m.start(1), what, value, sev))
    if document:
        # In a document a password in a URL or a value assigned to 'password' is an example
        # (and would be information at most): only issuers' formats count there.
        pass
    elif b"://" in data and b"@" in data:
        for m in _URL_PASSWORD.finditer(data):
            value = m.group(2).decode("utf-8", "replace")
            if len(m.group(1)) > 64 or len(value) > 128:
                continue
            if placeholder(value) or not _random(value):
                continue
            found.append(Secret(m.start(2), "Password in a URL", value, INFO if document else W))
    if not document and not words.isdisjoint(_ASSIGNED_WORDS):
        for m in _ASSIGNED.finditer(data):
            raw = m.group(1)
            if not 8 <= len(raw) <= 200:
                continue
            value = raw.decode("utf-8", "replace")
            if placeholder(value) or not _random(value):
                continue
            head = _NAME_BEFORE.search(data, max(0, m.start() - 60), m.start())
            name = (data[head.start() : m.start()] if head else b"").decode("utf-8", "replace")
            name += m.group().split(b"=")[0].split(b":")[0].decode("utf-8", "replace").strip("\"' ")
            found.append(
                Secret(
                    m.start(1), f"Value assigned to '{name[:40]}'", value, INFO if document else W
                )
            )
            if len(found) >= limit:
                break
    if b"private key" in words:
        for m in _PRIVATE_KEY.finditer(data):
            body = re.sub(rb"\s", b"", m.group(2))
            if len(body) >= 64 and not placeholder(body[:80].decode("ascii", "replace")):
                found.append(Secret(m.start(), "Private key", m.group(1).decode(), E))
    return found[:limit]


def mask(value: str) -> str:
    """A secret shown without giving it away: its first 4 characters and its length."""
    return value[:4] + "…" + f"({len(value)} characters)" if len(value) > 6 else "…"


# --- blobs -----------------------------------------------------------------------------------------


# Counted by deleting them (bytes.translate): a decoded blob can be megabytes (an image in a
# notebook), and a loop over its bytes in Python costs more than decoding it.
_PRINTABLE = bytes([*range(32, 127), 9, 10, 13])
_LETTERS_OR_SPACE = bytes(b for b in range(256) if 97 <= (b | 32) <= 122 or b == 32)


def printable_ratio(data: bytes) -> float:
    """The share of `data` that is printable ASCII, tab or a line break."""
    if not data:
        return 0.0
    good = len(data) - len(data.translate(None, _PRINTABLE))
    return good / len(data)


_WORD = re.compile(rb"[A-Za-z]{2,}")


def wordy(data: bytes) -> bool:
    """Decoded bytes that read as text or a command (words and spaces, not random characters)."""
    letters = len(data) - len(data.translate(None, _LETTERS_OR_SPACE))
    return letters >= len(data) * 0.5 and _WORD.search(data) is not None


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
        if blob.lower().startswith(
            (b"chr", b"char", b"string.fromcharcode", b"fromcharcode", b"[char]")
        ):
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
