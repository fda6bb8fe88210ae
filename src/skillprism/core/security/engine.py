"""One skill's static security scan: read its files safely, classify each, run the rules.

The fast path, taken by almost every file of an ordinary skill, is: one read, `bytes.isascii`,
and one pass of one RE2 set holding every pattern; only the patterns that occur are then run to
find their positions. Everything else (Unicode folding, Markdown structure, bandit, decoding
blobs, shell de-obfuscation, detect-secrets) runs only on files where a pattern called for it.
"""

from __future__ import annotations

import html
import ipaddress
import os
import re

import re2

from skillprism.core.diagnostics import Severity
from skillprism.core.security import activation, binary, markup, patterns, pyscan, secrets
from skillprism.core.security.files import FileItem, Listing, walk_skill
from skillprism.core.security.model import DEFAULT_LIMITS, RiskFinding, SecurityLimits
from skillprism.core.security.shellnorm import needs_normalising, normalise
from skillprism.core.security.sink import Sink
from skillprism.core.security.text import (
    Locator,
    StrLocator,
    View,
    evidence,
    fold,
)
from skillprism.core.security.texts import effect_hint
from skillprism.core.security.unicode_rules import scan_unicode

E, W, INFO = Severity.ERROR, Severity.WARNING, Severity.INFO

# --- the one set -------------------------------------------------------------------------------------
_PY_WORDS = (
    r"(?:\b(?:import|exec|eval|compile|__import__|subprocess|system|popen|pickle|marshal|yaml|"
    r"requests|urllib|urlopen|socket|b64decode|codecs|zlib|getattr|password|passwd|secret|token|"
    r"assert|tempfile|mktemp|chmod|shell|tarfile|hashlib|random|ssl|verify)\b|0\.0\.0\.0|/tmp)"
)
_PY_WORDS_RX = re.compile(_PY_WORDS.encode())
# Every pattern below goes into the one set. Patterns whose full form would slow the set down
# (long counted runs: blobs, IP addresses) enter it as cheap triggers; their full regex then runs
# only on files that hold a trigger, and always on scripts and data files (small, and where
# blobs and addresses matter most).
_EXTRA: list[tuple[str, str]] = [
    ("cred0", patterns.CREDENTIALS[0][0]),
    ("cred1", patterns.CREDENTIALS[1][0]),
    ("cred2", patterns.CREDENTIALS[2][0]),
    ("exfil", patterns.EXFIL_HOSTS),
    ("url", r"://"),
    (
        "ipv4",
        r"(?i)(?:://|@|\b(?:curl|wget|nc|ncat|ssh|scp|ping|telnet|socat|connect|host|server|"
        r"addr|proxy)\b[^\n]*)\d\.|\d\.\d+\.\d+\.\d+:\d",
    ),
    ("outside", patterns.PATH_OUTSIDE),
    (
        "blob",
        r"(?i)base64|base32|b64|atob|decode|encoded|\\x[0-9a-f]{2}\\x|%[0-9a-f]{2}%|&#|"
        r"fromcharcode|\bchr\s*\(|\[char\]|hex",
    ),
    ("secret", secrets.HINT),
    ("activation", r"!`[^`\n]"),
    (
        "markup",
        r"(?i)<!--|<[a-z][a-z0-9-]*\b[^>\n]*(?:hidden|display|visibility|font-size|"
        r"opacity|color|height|text-indent|left|title|alt|data-|aria-|content|placeholder|label)|"
        r"<(?:script|style|template|noscript|textarea|title|xmp)\b|(?m)^ {0,3}\[[^\]\n]+\]:",
    ),
    (
        "obfuscated",
        r"(?i)\b[a-z][ .*|/\\-]{1,3}[a-z][ .*|/\\-]{1,3}[a-z][ .*|/\\-]{1,3}[a-z]"
        r"[ .*|/\\-]{1,3}[a-z]\b|[a-z](?:\*\*|__|~~|<[a-z/][^>\n]*>|&#?[a-z0-9]{2,8};)[a-z]|"
        r"&#x?[0-9a-f]{2,6};",
    ),
    # A fenced Python block in Markdown holding a word bandit or the folder cares about.
    ("python", r"(?im)^ {0,3}(?:`{3,}|~{3,})[ \t]*(?:python3?|py)\b[^`~]*" + _PY_WORDS),
]
_FULL = {
    "blob": patterns.compile_bytes(patterns.BLOBS),
    "ipv4": patterns.compile_bytes(patterns.IPV4),
    "url": patterns.compile_bytes(patterns.URLS),
}
_TEXT_COUNT = len(patterns.COMPILED)
# What each full regex above needs at least (a superset of their matches): a script or data file
# holding none of it has nothing for them to find, so they are not run on it.
_FULL_TRIGGER = patterns.compile_bytes(
    r"://|\d\.\d|[A-Za-z0-9+/_\-]{32}|\\[xu0-7]|%[0-9a-fA-F]{2}|&#|chr|char|fromCharCode"
)


def _build() -> tuple[re2.Set, dict[str, int], list[re2._Regexp]]:
    s = re2.Set.SearchSet(patterns._options())
    every = [p.regex for p in patterns.TEXT_RULES]
    index = {}
    regexes = []
    for i, (name, rx) in enumerate(_EXTRA):
        every.append(rx)
        index[name] = _TEXT_COUNT + i
        regexes.append(patterns.compile_bytes(rx))
    for rx in every:
        s.Add(rx.encode())
    s.Compile()
    return s, index, regexes


_SET, _IDX, _EXTRA_RX = _build()


_SET_MATCH = _SET._set.Match  # the binding's C++ call, without its Python wrapper


def hits_of(data: bytes) -> list[int]:
    """Indices of the set's patterns that occur in `data`."""
    return _SET_MATCH(data) or []


_PY_BLOCK = patterns.compile_bytes(r"(?m)^ {0,3}(?:`{3,}|~{3,})[ \t]*(?:python3?|py)\b[^\n]*\n")
_SHEBANG = re.compile(rb"^#!\s*(?:/usr)?(?:/local)?/bin/(?:env\s+(?:-\S+\s+)*)?([A-Za-z0-9_.-]+)")
_SQUEEZE_PHRASES = patterns.compile_bytes(
    r"ignore(?:all|the|any)*(?:previous|prior|above|earlier|preceding|your)(?:instructions?|prompts?|"
    r"rules|guidelines)|disregard(?:all|the|any)*(?:previous|prior|above|earlier|your)(?:instructions?|"
    r"prompts?|rules)|forget(?:all|everything)(?:above|before|previous|youweretold)|"
    r"(?:donot|dont|never)(?:tell|inform|notify)(?:the)?user|withouttelling(?:the)?user|"
    r"(?:disable|bypass|skip)(?:all|the|any)*(?:safety|sandbox|confirmations?|guardrails|"
    r"permissionprompts?)|(?:youarenow|enter)(?:in)?(?:developer|dan|god|jailbreak)mode|"
    r"curl[a-z0-9:/.\-]{0,200}?sh\b"
)


def _kind_of(rel: str, is_skill: bool, head: bytes) -> tuple[str, str]:
    """(kind, language) of a text file: kind is skill | prose | script | data."""
    if is_skill:
        return "skill", "markdown"
    dot = rel.rfind(".")
    ext = rel[dot:].lower() if dot > rel.rfind("/") + 0 else ""
    if ext == ".md" and not head.startswith(b"#!"):
        return "prose", "markdown"
    m = _SHEBANG.match(head) if head.startswith(b"#!") else None
    interp = m.group(1).decode("ascii", "replace") if m else ""
    if ext in (".py", ".pyw") or interp.startswith("python"):
        return "script", "python"
    if ext in (".sh", ".bash", ".zsh", ".ksh", ".fish") or interp in (
        "sh",
        "bash",
        "zsh",
        "ksh",
        "dash",
    ):
        return "script", "shell"
    if ext in binary.SCRIPT_EXTENSIONS or interp:
        return "script", ext.lstrip(".") or interp
    if ext in binary.PROSE_EXTENSIONS:
        return "prose", "markdown" if ext in (".md", ".markdown", ".mdx") else "text"
    return "data", ext.lstrip(".")


class _FileScan:
    """The rules over one text file (and the views derived from it)."""

    def __init__(self, sink: Sink, rel: str, kind: str, lang: str, limits: SecurityLimits) -> None:
        self.sink, self.rel, self.kind, self.lang, self.limits = sink, rel, kind, lang, limits
        self.decode_depth = 0

    def add(
        self, rule: str, line: int, col: int, message: str, ev: str, sev: Severity | None = None
    ) -> None:
        effect, hint = effect_hint(rule)
        self.sink.add(rule, self.rel, line, col, message, effect, hint, ev, sev)

    # -- the pass over one view ------------------------------------------------------------------------
    def run_view(
        self, view: View, hits: list[int] | None = None, *, extras: bool = True
    ) -> list[int]:
        if hits is None:
            hits = hits_of(view.data)
        for i in hits:
            if i < _TEXT_COUNT:
                self._text_rule(view, patterns.COMPILED[i])
        if extras and (
            hits or (self.kind in ("script", "data") and _FULL_TRIGGER.search(view.data))
        ):
            self._extras(view, set(hits))
        return hits

    def _text_rule(self, view: View, comp: patterns.Compiled) -> None:
        spec = comp.spec
        if self.kind not in spec.scopes:
            return
        n = 0
        for m in comp.regex.finditer(view.data):
            if spec.check is not None and not spec.check(view.data, m.start(), m.end()):
                continue
            n += 1
            if n > self.limits.max_findings_per_rule:
                break
            line, col = view.where(m.start())
            text = m.group().decode("utf-8", "replace")
            shown = " ".join(text.split())[:160]
            msg = spec.what.replace("{m}", shown) + view.note
            ev = self._evidence(view, m.start(), text)
            self.add(spec.rule, line, col, msg, ev, spec.severity)

    def _evidence(self, view: View, offset: int, focus: str) -> str:
        if view.line_text is not None:
            return evidence(view.line_text(offset), focus)
        return evidence(view.data.decode("utf-8", "replace")[:400], focus)

    def _extras(self, view: View, hits: set[int]) -> None:
        full_scan = self.kind in ("script", "data")

        def rx(name: str) -> re2._Regexp | None:
            i = _IDX[name]
            if name in _FULL:
                return _FULL[name] if i in hits or full_scan else None
            return _EXTRA_RX[i - _TEXT_COUNT] if i in hits else None

        for n in range(3):
            r = rx(f"cred{n}")
            if r is not None:
                self._credentials(view, r, patterns.CREDENTIALS[n][1])
        r = rx("exfil")
        if r is not None:
            for m in _limit(r.finditer(view.data), self.limits):
                line, col = view.where(m.start())
                host = m.group().decode("utf-8", "replace")
                self.add(
                    "network-endpoint",
                    line,
                    col,
                    f"names '{host}', a service often used to receive stolen data or tunnel "
                    "traffic" + view.note,
                    self._evidence(view, m.start(), host),
                    W,
                )
        if self.kind == "script" or view.note:
            r = rx("url")
            if r is not None:
                for m in _limit(r.finditer(view.data), self.limits):
                    url = m.group().decode("utf-8", "replace")
                    line, col = view.where(m.start())
                    host = re.sub(r"^[a-z]+://", "", url, flags=re.I).split("/", 1)[0]
                    self.add(
                        "network-endpoint",
                        line,
                        col,
                        f"contacts {host} ({url[:120]})" + view.note,
                        self._evidence(view, m.start(), url),
                        INFO,
                    )
        r = rx("ipv4")
        if r is not None:
            self._ips(view, r)
        r = rx("outside")
        if r is not None and self.kind in ("skill", "prose", "script"):
            for m in _limit(r.finditer(view.data), self.limits):
                line, col = view.where(m.start())
                what = m.group().decode("utf-8", "replace")
                climbs = what.count("../")
                if climbs and climbs <= self.rel.count("/") + 1:
                    continue
                self.add(
                    "path-outside",
                    line,
                    col,
                    f"reaches outside the skill folder: '{what.strip()[:120]}'" + view.note,
                    self._evidence(view, m.start(), what),
                    W,
                )
        r = rx("blob")
        if r is not None:
            self._blobs(view, r)
        if rx("secret") is not None and not view.note:
            self._secrets(view)

    def _credentials(self, view: View, r: re2._Regexp, sev: Severity) -> None:
        for m in _limit(r.finditer(view.data), self.limits):
            what = m.group().decode("utf-8", "replace").strip(" \"'(=/")
            line, col = view.where(m.start())
            line_text = view.line_text(m.start()) if view.line_text else what
            severity = sev
            if self.kind not in ("script",):
                # In prose a path is often just documentation; it counts when the sentence tells
                # the agent to act on it (a verb before the path, not negated).
                severity = sev if _acts_on(line_text, what) else INFO
            elif what.startswith(".env") or what == ".env":
                severity = W
            if re.search(r"(?i)\.ssh/(?:config|known_hosts)|\.pub\b", line_text) and sev is W:
                severity = INFO
            self.add(
                "credential-access",
                line,
                col,
                f"touches a credential location: '{what[:80]}'" + view.note,
                evidence(line_text, what),
                severity,
            )

    def _ips(self, view: View, r: re2._Regexp) -> None:
        for m in _limit(r.finditer(view.data), self.limits):
            ip = m.group().decode("ascii", "replace")
            start, end = m.start(), m.end()
            before = view.data[max(0, start - 1) : start]
            after = view.data[end : end + 1]
            if before in (b".", b"-") or after in (b".",) or before.isalnum():
                continue  # a version number or part of a longer dotted name
            line_text = view.line_text(start) if view.line_text else ip
            if not re.search(patterns.NET_CONTEXT.decode(), line_text):
                continue
            try:
                addr = ipaddress.ip_address(ip)
            except ValueError:
                continue
            line, col = view.where(start)
            if (
                addr.is_loopback
                or (addr.is_private and not _doc_range(addr))
                or addr.is_unspecified
            ):
                continue
            self.add(
                "raw-ip-address",
                line,
                col,
                f"contacts the numeric address {ip}" + view.note,
                evidence(line_text, ip),
                W
                if self.kind == "script" or view.note or "://" in line_text or "@" in line_text
                else INFO,
            )

    def _blobs(self, view: View, r: re2._Regexp) -> None:
        for m in _limit(r.finditer(view.data), self.limits):
            blob = m.group()
            start = m.start()
            prefix = view.data[max(0, start - 24) : start].lower()
            if re.search(
                rb"sha(?:1|256|384|512)-$|integrity|data:image/|data:font/|checksum|hash|"
                rb"sha\d*[\"': =]+$",
                prefix,
            ):
                continue
            decoded = secrets.decode_blob(blob)
            line, col = view.where(start)
            ev = self._evidence(view, start, blob[:20].decode("ascii", "replace"))
            if decoded is None:
                continue
            how, raw = decoded
            inflated = secrets.inflate(raw)
            if inflated is not None:
                how, raw = how + " + compressed", inflated
            exe = binary.executable_kind(raw[:512]) or binary.archive_kind(raw[:512])
            if exe:
                self.add(
                    "encoded-blob",
                    line,
                    col,
                    f"{len(blob):,} characters of {how} that decode to a {exe}" + view.note,
                    ev,
                    E if binary.executable_kind(raw[:512]) else W,
                )
                continue
            if secrets.printable_ratio(raw) >= 0.9 and len(raw) >= 8:
                text = raw.decode("utf-8", "replace")
                self.add(
                    "encoded-blob",
                    line,
                    col,
                    f"{len(blob):,} characters of {how} hide readable text: "
                    f'"{" ".join(text.split())[:160]}"' + view.note,
                    ev,
                    W,
                )
                if self.decode_depth < self.limits.max_decode_depth:
                    self.decode_depth += 1
                    self.scan_derived(text, line, col, f" (inside {how} text)")
                    self.decode_depth -= 1
                continue
            if len(blob) >= 120 and secrets.entropy(blob) >= 4.0:
                self.add(
                    "encoded-blob",
                    line,
                    col,
                    f"{len(blob):,} characters of high-entropy {how} data" + view.note,
                    ev,
                    W if self.kind == "script" else INFO,
                )

    def _secrets(self, view: View) -> None:
        lines = secrets.candidate_lines(view.data, self.limits.max_secret_lines)
        for s in secrets.find_secrets(lines):
            self.add(
                "hardcoded-secret",
                s.line,
                1,
                f"{s.kind}: {secrets.mask(s.value)}",
                "",
                E,
            )

    # -- derived views ---------------------------------------------------------------------------------
    def scan_derived(self, text: str, line: int, col: int, note: str) -> None:
        """Scan text a file hides (decoded, folded, de-obfuscated), reported at (line, col)."""
        data = text.encode("utf-8", "replace")[: self.limits.max_file_bytes]
        if not data.isascii():
            folded, _ = fold(data.decode("utf-8", "replace"))
            data = folded.encode("utf-8", "replace")
        first = data.split(b"\n", 1)[0].decode("utf-8", "replace")
        view = View(data, lambda _o: (line, col), note, lambda _o: first)
        self.run_view(view)


_READ_VERB = re.compile(patterns.CREDENTIAL_READ.decode())
_NEGATION = re.compile(r"(?i)\b(?:never|not|n't|no|without)\b")


def _acts_on(line: str, what: str) -> bool:
    at = line.find(what)
    head = line[: at if at >= 0 else len(line)]
    for sep in (". ", "; ", "! ", "? "):
        i = head.rfind(sep)
        if i >= 0:
            head = head[i + 2 :]
    verbs = list(_READ_VERB.finditer(head))
    return bool(verbs) and not _NEGATION.search(head[: verbs[-1].start()])


def _doc_range(addr: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    """Documentation ranges (TEST-NET): treated as public, they stand for real hosts in examples."""
    return any(
        addr in ipaddress.ip_network(n)
        for n in ("192.0.2.0/24", "198.51.100.0/24", "203.0.113.0/24")
    )


def _limit(it, limits: SecurityLimits):  # type: ignore[no-untyped-def]
    for n, m in enumerate(it):
        if n >= limits.max_findings_per_rule * 4:
            return
        yield m


def _scan_text(
    sink: Sink, item: FileItem, data: bytes, kind: str, lang: str, limits: SecurityLimits
) -> None:
    hits = hits_of(data)
    ascii_only = data.isascii()
    if not hits and ascii_only and kind in ("skill", "prose") and lang != "python":
        if kind == "skill" and data.find(b"allowed", 0, 65536) >= 0:
            _skill_file(
                _FileScan(sink, item.rel_path, kind, lang, limits), data, Locator(data), False
            )
        return  # the fast path: nothing any rule looks for
    if not hits and ascii_only and lang == "python" and not _FULL_TRIGGER.search(data):
        # The same for a Python script; only bandit and the constant folder may find something.
        if _PY_WORDS_RX.search(data):
            _python(_FileScan(sink, item.rel_path, kind, lang, limits), data, 0, limits)
        return
    fs = _FileScan(sink, item.rel_path, kind, lang, limits)
    loc = Locator(data)
    raw = View(data, loc.position, "", loc.line_text)
    fs.run_view(raw, hits)
    hitset = set(hits)
    if not ascii_only:
        text = data.decode("utf-8", "replace")
        decoded: list[tuple[int, str]] = []
        scan_unicode(text, item.rel_path, sink, decoded)
        sloc = StrLocator(text)
        for offset, hidden in decoded:
            line, col = sloc.position(offset)
            fs.scan_derived(hidden, line, col, " (in hidden Unicode characters)")
        folded, index = fold(text)
        if folded != text:
            fdata = folded.encode("utf-8", "replace")
            if fdata.isascii():

                def where(o: int, index: list[int] = index) -> tuple[int, int]:
                    return sloc.position(index[min(o, len(index) - 1)] if index else 0)

                def line_text(o: int, index: list[int] = index) -> str:
                    return sloc.line_text(index[min(o, len(index) - 1)] if index else 0)

                fs.run_view(View(fdata, where, " (after undoing Unicode look-alikes)", line_text))
            else:
                fs.scan_derived(folded, 1, 1, " (after undoing Unicode look-alikes)")
    if _IDX["obfuscated"] in hitset:
        _squeezed(fs, data, loc)
        if b"&" in data:
            _entities(fs, data, loc)
    if kind in ("skill", "prose") and _IDX["markup"] in hitset:
        _markup(fs, data, loc)
    if kind == "skill" and (_IDX["activation"] in hitset or data.find(b"allowed", 0, 65536) >= 0):
        _skill_file(fs, data, loc, _IDX["activation"] in hitset)
    if (
        kind == "script"
        and lang != "python"
        and needs_normalising(data[:200_000].decode("utf-8", "replace"))
    ):
        _shell(fs, data, limits)
    if lang == "python":
        if _PY_WORDS_RX.search(data):
            _python(fs, data, 0, limits)
    elif _IDX["python"] in hitset and kind in ("skill", "prose"):
        for start, end, first_line in _python_blocks(data):
            if _PY_WORDS_RX.search(data, start, end):
                _python(fs, data[start:end], first_line - 1, limits)


_SQUEEZE_NOISE = re.compile(rb"<!--.*?-->|<[^>\n]{0,40}>|&#?[a-z0-9]{2,8};", re.S)


def _squeezed(fs: _FileScan, data: bytes, loc: Locator) -> None:
    """Phrases split letter by letter or by markup inside words: matched on the letters alone,
    in a window around each place such splitting was seen, and mapped back letter by letter."""
    r = _EXTRA_RX[_IDX["obfuscated"] - _TEXT_COUNT]
    done = -1
    for n, m in enumerate(r.finditer(data)):
        if n > 200:
            break
        if m.start() < done:
            continue
        lo = data.rfind(b"\n", 0, max(0, m.start() - 300)) + 1
        hi = data.find(b"\n", min(len(data), m.end() + 300))
        hi = len(data) if hi < 0 else hi
        done = hi
        window = _SQUEEZE_NOISE.sub(lambda x: b" " * len(x.group()), data[lo:hi].lower())
        where = [i for i, c in enumerate(window) if 97 <= c <= 122]
        keep = bytes(window[i] for i in where)
        for pm in _SQUEEZE_PHRASES.finditer(keep):
            a, b = lo + where[pm.start()], lo + where[pm.end() - 1] + 1
            original = data[a:b]
            words = len(re.findall(rb"[A-Za-z]+", original))
            if words <= len(_spaced(pm.group()).split()) + 1:
                continue  # the phrase is written plainly (the word rules judge it)
            line, col = loc.position(a)
            phrase = pm.group().decode()
            fs.add(
                _squeezed_rule(phrase),
                line,
                col,
                f"phrase hidden by splitting its letters: '{phrase}'",
                evidence(loc.line_text(a)),
                E,
            )


_BREAKS = re.compile(
    rb"all|the|any|previous|prior|above|earlier|your|instructions?|user|tell|safety|sandbox|mode|"
    rb"everything|ignore|disregard|forget|not|dont|never"
)


def _spaced(phrase: bytes) -> bytes:
    """A squeezed phrase with its likely word breaks put back, to count its words."""
    return _BREAKS.sub(lambda m: b" " + m.group() + b" ", phrase)


def _squeezed_rule(phrase: str) -> str:
    if phrase.startswith(("ignore", "disregard", "forget")):
        return "injection-override"
    if phrase.startswith(("donot", "dont", "never", "without")):
        return "injection-conceal"
    if phrase.startswith(("disable", "bypass", "skip")):
        return "injection-disable-safety"
    if phrase.startswith("curl"):
        return "download-execute"
    return "injection-role-claim"


def _entities(fs: _FileScan, data: bytes, loc: Locator) -> None:
    text = data.decode("utf-8", "replace")
    decoded = html.unescape(text)
    if decoded == text:
        return
    for i, (a, b) in enumerate(zip(text.split("\n"), decoded.split("\n"), strict=False)):
        if a != b:
            fs.scan_derived(b, i + 1, 1, " (after decoding HTML entities)")
        if i > 100_000:
            break


def _markup(fs: _FileScan, data: bytes, loc: Locator) -> None:
    for rule, start, _end, what, text in markup.hidden_regions(data):
        line, col = loc.position(start)
        sev = markup.classify(text)
        shown = " ".join(text.split())
        fs.add(
            rule,
            line,
            col,
            f'{what} hides text from the rendered view: "{shown[:200]}"',
            evidence(loc.line_text(start)),
            sev,
        )


def _skill_file(fs: _FileScan, data: bytes, loc: Locator, has_activation: bool) -> None:
    span = activation.frontmatter_span(data)
    body_from = 0
    if span is not None:
        a, b = span
        body_from = b
        fm = data[a:b]
        if b"allowed" in fm:
            first_line = data.count(b"\n", 0, a) + 1
            for line, col, tool in activation.allowed_tools(
                fm.decode("utf-8", "replace"), first_line
            ):
                verdict = activation.tool_grant(tool)
                if verdict is None:
                    continue
                sev, what = verdict
                fs.add("broad-tool-grant", line, col, what, evidence(tool), sev)
    if has_activation:
        for n, m in enumerate(re2.finditer(patterns.ACTIVATION, data[body_from:])):
            if n >= fs.limits.max_findings_per_rule:
                break
            cmd = m.group(1).decode("utf-8", "replace")
            sev, what = activation.activation_severity(cmd)
            pos = body_from + m.start()
            line, col = loc.position(pos)
            fs.add(
                "activation-shell",
                line,
                col,
                f"Claude Code runs `{cmd[:160]}` when the skill is invoked and puts its output in "
                f"the prompt: {what}",
                evidence(loc.line_text(pos), cmd),
                sev,
            )


def _shell(fs: _FileScan, data: bytes, limits: SecurityLimits) -> None:
    text = data.decode("utf-8", "replace")
    for line_no, line in normalise(text, limits.max_deobfuscate_lines):
        fs.scan_derived(line, line_no, 1, " (after undoing shell quoting and variables)")


def _python_blocks(data: bytes) -> list[tuple[int, int, int]]:
    out = []
    for m in _PY_BLOCK.finditer(data):
        start = m.end()
        fence = data[m.start() : m.end()].lstrip()[:3]
        end = data.find(b"\n" + fence, start - 1)
        end = len(data) if end < 0 else end + 1
        out.append((start, end, data.count(b"\n", 0, start) + 1))
        if len(out) >= 200:
            break
    return out


_BANDIT_WARN = {
    "B102", "B307", "B301", "B302", "B104", "B103", "B201", "B501", "B502", "B503", "B504",
    "B507", "B508", "B509", "B323", "B202", "B612", "B614", "B615",
}  # fmt: skip


def _python(fs: _FileScan, source: bytes, line_offset: int, limits: SecurityLimits) -> None:
    if len(source) > limits.max_python_bytes:
        fs.sink.limited(
            fs.rel, f"Python source over {limits.max_python_bytes:,} bytes: bandit skipped"
        )
        return
    try:
        folded, flows, why = pyscan.analyse(source)
    except Exception as err:  # a hostile tree must end only this analysis
        folded, flows, why = [], [], f"analysis failed ({type(err).__name__})"
    if why and line_offset == 0:
        fs.sink.limited(fs.rel, why)
    for f in folded[:200]:
        fs.scan_derived(
            f.text, f.line + line_offset, f.column, f" (in a string the script {f.how})"
        )
    for fl in flows:
        rule = {"download": "download-execute", "decode": "decode-execute"}.get(
            fl.kind, "dynamic-eval"
        )
        fs.add(
            rule,
            fl.line + line_offset,
            fl.column,
            f"{fl.call}() runs {fl.source}",
            "",
            E if fl.kind != "dynamic" else W,
        )
    if why:
        return
    try:
        issues = pyscan.bandit_issues(source, fs.sink.path_of(fs.rel))
    except Exception as err:  # bandit failing on odd input must not end the scan
        fs.sink.limited(fs.rel, f"bandit failed ({type(err).__name__})")
        return
    for issue in issues:
        sev = INFO
        if issue.test_id in _BANDIT_WARN or (
            issue.test_id in ("B602", "B605") and issue.severity == "HIGH"
        ):
            sev = W
        if issue.test_id == "B613":
            sev = E
        fs.add(
            "python-risk",
            issue.line + line_offset,
            issue.column,
            f"bandit {issue.test_id} ({issue.test_name}): {issue.text}",
            "",
            sev,
        )


def scan_skill(
    skill_dir: str,
    skill_file: str,
    *,
    limits: SecurityLimits = DEFAULT_LIMITS,
    listing: Listing | None = None,
) -> list[RiskFinding]:
    """Every risk found in the skill folder `skill_dir` whose skill file is `skill_file`. Nothing
    from the skill is executed, imported or fetched. The skill file is read here too, as bytes:
    what is on disk, not a decoded text that may have dropped something (a byte-order mark).
    `listing`: listings of the skill's folders made already (see `walk_skill`)."""
    sink = Sink(skill_dir, limits)
    prefix = os.path.join(skill_dir, "")
    if skill_file.startswith(prefix):
        skill_rel = skill_file[len(prefix) :].replace(os.sep, "/")
    else:
        skill_rel = os.path.relpath(skill_file, skill_dir).replace(os.sep, "/")
    files = walk_skill(skill_dir, limits, listing)
    for rel, why in files.limited:
        sink.limited(rel, why)
    for item in files.items:
        try:
            _scan_item(sink, item, item.rel_path == skill_rel, limits)
        except RecursionError:
            sink.limited(item.rel_path, "too deeply nested to analyse")
    return sorted(sink.finish(), key=lambda f: (f.rel_path, f.line, f.column, f.rule))


def _scan_item(
    sink: Sink,
    item: FileItem,
    is_skill: bool,
    limits: SecurityLimits,
) -> None:
    rel = item.rel_path
    if item.kind == "symlink":
        if item.link_outside:
            effect, hint = effect_hint("symlink-outside")
            sink.add(
                "symlink-outside",
                rel,
                0,
                0,
                f"symlink to '{item.link_target}', outside the skill folder",
                effect,
                hint,
                f"{rel} -> {item.link_target}",
            )
        return
    if item.kind == "special":
        sink.limited(rel, item.error or "not a regular file")
        return
    data = item.data
    head = item.head if data is None else data[:512]
    if binary.may_be_binary(head) and _shipped_binary(sink, item, head):
        return
    if data is None:
        sink.limited(rel, "the skill's byte budget was spent; only the file's type was checked")
        return
    if item.truncated:
        sink.limited(rel, f"{item.size:,} bytes; only the first {len(data):,} were analysed")
    if data.find(b"\x00", 0, 8192) >= 0:
        return  # binary data: no text rule applies
    kind, lang = _kind_of(rel, is_skill, head)
    if item.mode & 0o111 and kind != "script" and not is_skill:
        effect, hint = effect_hint("executable-bit")
        sink.add("executable-bit", rel, 0, 0, "marked executable but is not a script", effect, hint)
    _scan_text(sink, item, data, kind, lang, limits)


def _shipped_binary(sink: Sink, item: FileItem, head: bytes) -> bool:
    """Report a program or archive that `head` starts (True), or nothing (False)."""
    rel = item.rel_path
    exe = binary.executable_kind(head)
    if exe:
        effect, hint = effect_hint("shipped-executable")
        sink.add("shipped-executable", rel, 0, 0, f"a {exe} ({item.size:,} bytes)", effect, hint)
        return True
    arc = binary.archive_kind(head)
    if arc:
        effect, hint = effect_hint("shipped-archive")
        ext = os.path.splitext(rel)[1].lower()
        sev = INFO if ext in binary.DOCUMENT_CONTAINERS else W
        sink.add(
            "shipped-archive",
            rel,
            0,
            0,
            f"a {arc} ({item.size:,} bytes)",
            effect,
            hint,
            severity=sev,
        )
        return True
    return False


def scan_text(
    text: str | bytes,
    rel_path: str = "SKILL.md",
    *,
    kind: str = "skill",
    limits: SecurityLimits = DEFAULT_LIMITS,
) -> list[RiskFinding]:
    """The text rules over one text alone (for tests and previews): `kind` is skill | prose |
    script | data; a script's language is taken from `rel_path`'s extension or shebang."""
    data = text.encode("utf-8", "replace") if isinstance(text, str) else text
    data = data[: limits.max_file_bytes]
    sink = Sink("", limits)
    item = FileItem(rel_path, rel_path, "file", len(data), 0o644, data, data[:512])
    k, lang = _kind_of(rel_path, kind == "skill", data[:512])
    _scan_text(sink, item, data, kind if kind != "script" else k, lang, limits)
    return sink.finish()
