"""The rules over one file's text: what a skill's file says or does that could harm its user.

The engine (core/security/engine.py) calls `scan_file` for each file it has no cached result
for. The pass over a file is: one run of one RE2 set of plain words (prefilter.py) to learn
which words occur; then only the patterns whose words all occur run, each over the whole file;
then the analysers that cost more run only where what they look for can be: Unicode folding on
text that holds a disguised letter, Markdown structure where `<`, `<!--` or `]:` occur, Python's
syntax tree on Python scripts that can run, load or fetch something, shell de-obfuscation on
scripts with quoting tricks, secret formats where their prefixes occur.

Where a match stands decides how much it matters (context.py): a phrase a sentence forbids or
quotes, a line that documents an option, a licence, code shown in a document rather than code a
script runs. Severities: an error is what a reviewer should block the skill for; a warning asks
for a look; info is context.
"""

from __future__ import annotations

import html
import ipaddress
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import re2

from skillprism.core.diagnostics import Severity
from skillprism.core.security import (
    activation,
    archives,
    binary,
    context,
    markup,
    patterns,
    pyscan,
    secrets,
)
from skillprism.core.security.model import SecurityLimits
from skillprism.core.security.prefilter import (
    alternatives,
    split_alternatives,
    squeeze,
    squeeze_atom,
)
from skillprism.core.security.shellnorm import needs_normalising, normalise
from skillprism.core.security.sink import Sink
from skillprism.core.security.text import (
    Locator,
    View,
    disguised,
    disguised_lines,
    evidence,
    fold,
    fold_lines,
    may_disguise,
)
from skillprism.core.security.texts import effect_hint
from skillprism.core.security.unicode_rules import may_hide, scan_unicode

E, W, INFO = Severity.ERROR, Severity.WARNING, Severity.INFO
_RANK = {INFO: 1, W: 2, E: 3}

# --- file kinds --------------------------------------------------------------------------------------

_SHEBANG = re.compile(rb"^#!\s*(?:/usr)?(?:/local)?/bin/(?:env\s+(?:-\S+\s+)*)?([A-Za-z0-9_.-]+)")
_LICENCE_NAME = re.compile(
    r"(?i)(?:^|/)(?:[\w.-]*[-_.])?(?:licen[cs]e|copying|notice|ofl|copyright|unlicense|patents)"
    r"(?:[-_.][\w.-]*)?(?:\.(?:txt|md|markdown|rst))?$"
)
_SHELLS = ("sh", "bash", "zsh", "ksh", "dash", "fish")


def kind_of(rel: str, is_skill: bool, head: bytes) -> tuple[str, str]:
    """(kind, language) of a text file. Kinds: skill (the skill file: instructions the agent
    follows), prose (documents it reads), licence (legal text), script (code that runs), data."""
    if is_skill:
        return "skill", "markdown"
    slash = rel.rfind("/")
    dot = rel.rfind(".")
    ext = rel[dot:].lower() if dot > slash + 1 else ""
    if rel.startswith(".git/hooks/") or rel == ".git/config":
        return "script", "shell"  # git runs hooks, and the commands its configuration names
    if _LICENCE_NAME.search(rel) and ext in ("", ".txt", ".md", ".markdown", ".rst"):
        return "licence", "text"
    if ext == ".md" and not head.startswith(b"#!"):
        return "prose", "markdown"
    m = _SHEBANG.match(head) if head.startswith(b"#!") else None
    interp = m.group(1).decode("ascii", "replace") if m else ""
    if ext in (".py", ".pyw") or interp.startswith("python"):
        return "script", "python"
    if ext in (".sh", ".bash", ".zsh", ".ksh", ".fish") or interp in _SHELLS:
        return "script", "shell"
    if ext in (".ps1", ".psm1", ".psd1"):
        return "script", "powershell"
    if ext in binary.SCRIPT_EXTENSIONS or interp:
        return "script", ext.lstrip(".") or interp
    if ext in binary.PROSE_EXTENSIONS:
        return "prose", "markdown" if ext in (".md", ".markdown", ".mdx") else "text"
    return "data", ext.lstrip(".")


# --- the rules and their prefilter -----------------------------------------------------------------


@dataclass(slots=True)
class _Rule:
    spec: patterns.Pattern
    regex: re2._Regexp
    # Per alternative of the pattern, its clauses as bit masks of atom indices: the rule runs
    # where every clause of one alternative has a bit present.
    need: tuple[tuple[int, ...], ...]
    # The first clause of every alternative together (-1 when an alternative has none): a text
    # holding none of these atoms satisfies no alternative.
    first: int
    gate: _Gate  # `need` as checked
    # The bit of `scarce_in` that stands for the alternatives no atom can gate (each looked for
    # itself in that one set pass; they are not in `need`); 0 when there are none.
    probe: int = 0


@dataclass(frozen=True, slots=True)
class _Gate:
    """Alternatives of clauses (see `_Rule.need`) as checked: the alternatives of one clause are
    merged into one mask, any of whose atoms satisfies them (a gate of many such alternatives
    costs one test)."""

    any_of: int
    rest: tuple[tuple[int, ...], ...]  # the other alternatives (one without clauses: always)

    def open(self, present: int) -> bool:
        return bool(self.any_of & present) or _satisfied(self.rest, present)


def _gate(need: tuple[tuple[int, ...], ...]) -> _Gate:
    any_of = 0
    rest = []
    for alternative in need:
        if len(alternative) == 1:
            any_of |= alternative[0]
        else:
            rest.append(alternative)
    return _Gate(any_of, tuple(rest))


# Detectors other than the phrase and command rules, each gated by its own regex's atoms.
_DETECTORS: dict[str, str] = {
    "cred0": patterns.CREDENTIALS[0][0],
    "cred1": patterns.CREDENTIALS[1][0],
    "cred2": patterns.CREDENTIALS[2][0],
    "exfil": patterns.EXFIL_HOSTS,
    "url": patterns.URLS,
    "outside": patterns.PATH_OUTSIDE,
    "activation": patterns.ACTIVATION.decode(),
    "python-shown": r"(?i)shell\s*=\s*True",
}
# The network words a line needs for a numeric address on it to be a place contacted.
_IP_WORDS = (
    "://", "@", "curl", "wget", "nc ", "ncat", "netcat", "ssh", "scp", "ping", "telnet", "ftp",
    "socat", "connect", "socket", "host", "server", "addr", "url", "endpoint", "proxy",
    "requests", "urlopen", "fetch", "http", "tcp", "udp",
)  # fmt: skip


_MIN_ATOM = 3


def all_patterns() -> list[str]:
    """Every pattern the prefilter reduces (tools/gen_security_prefilter.py tables them)."""
    return [p.regex for p in patterns.TEXT_RULES] + list(_DETECTORS.values())


def _build() -> tuple[re2.Set, int, list[_Rule], dict[str, _Gate], list[str]]:
    """The atom set, its size, the rules, the detectors' gates, and the probes (the atomless
    alternatives the scarce set pass looks for itself, in the order of their bits)."""
    atoms: dict[str, int] = {}
    probes: list[str] = []

    def ids(found: Iterable[frozenset[str]]) -> tuple[int, ...]:
        # A clause with an atom under 3 characters is left out: so short an atom occurs in
        # nearly every text, and it slows the set's one pass down more than all the others.
        # The likeliest to fail first (long atoms, few of them): the check stops at a clause
        # with no atom present.
        kept = sorted(
            (c for c in found if min(map(len, c)) >= _MIN_ATOM),
            key=lambda c: (-min(map(len, c)), len(c), sorted(c)),
        )
        return tuple(sum(1 << atoms.setdefault(a, len(atoms)) for a in sorted(c)) for c in kept)

    def first(need: tuple[tuple[int, ...], ...]) -> int:
        mask = 0
        for alternative in need:
            if not alternative:
                return -1
            mask |= alternative[0]
        return mask

    rules = []
    for p in patterns.TEXT_RULES:
        need = tuple(ids(alt) for alt in alternatives(p.regex))
        probe = 0
        texts = split_alternatives(p.regex) if () in need else None
        if texts is not None and len(texts) == len(need):
            # An alternative with no atom to look for would open the rule on every text: the
            # set pass of the scarce patterns looks for that alternative itself.
            probes.append("|".join(t for t, n in zip(texts, need, strict=True) if not n))
            probe = 1 << (_SCARCE_COUNT + len(probes) - 1)
            need = tuple(n for n in need if n)
        regex = patterns.compile_bytes(p.regex)
        rules.append(_Rule(p, regex, need, first(need), _gate(need), probe))
    needs = {name: tuple(ids(alt) for alt in alternatives(rx)) for name, rx in _DETECTORS.items()}
    # (word lists, looked for in squeezed text like every atom)
    needs["ipv4"] = (ids([frozenset(map(squeeze_atom, _IP_WORDS))]),)
    needs["secret"] = (ids([frozenset(map(squeeze_atom, secrets.ATOMS))]),)
    needs["obfuscated"] = ((),)  # letters split by spaces or markup: nothing to look for first
    gates = {name: _gate(need) for name, need in needs.items()}
    s = re2.Set.SearchSet(patterns._options(max_mem=8 << 20))  # one pass over every byte
    for atom in sorted(atoms, key=atoms.__getitem__):
        s.Add(b"(?i)" + re2.escape(atom.encode("utf-8")))
    s.Add(rb"\z")  # (the end of the text: found unless the pass gave up, see present_atoms)
    s.Compile()
    return s, len(atoms), rules, gates, probes


# What the one set pass of `scarce_in` looks for: the five scarce patterns (the _HAS_ bits), then
# the alternatives of rules that no atom can gate (`_Rule.probe`), then the end of the text.
_SCARCE_COUNT = 5
_ATOM_SET, _ATOM_COUNT, _RULES, _GATES, _PROBES = _build()
_ATOMS_END = 1 << _ATOM_COUNT  # the bit of the end of the text (see present_atoms)
_PROBED = tuple((i, rule) for i, rule in enumerate(_RULES) if rule.probe)


def _rules_by_atom() -> tuple[dict[int, tuple[int, ...]], tuple[int, ...]]:
    """For each atom, the rules (by index) whose first clauses hold it; and the rules that wait
    for no atom (their `first` is -1)."""
    by_atom: dict[int, list[int]] = {}
    always = []
    for i, rule in enumerate(_RULES):
        if rule.first == -1:
            always.append(i)
            continue
        bits = rule.first
        while bits:
            low = bits & -bits
            by_atom.setdefault(low.bit_length() - 1, []).append(i)
            bits ^= low
    return {k: tuple(v) for k, v in by_atom.items()}, tuple(always)


_RULES_BY_ATOM, _RULES_ALWAYS = _rules_by_atom()
# A text holding at most this many atoms looks its rules up by them; one holding more goes
# through every rule (a text holds few of the atoms: a generated skill's file five or so, a
# real collection's twenty or so).
_FEW_ATOMS = 16
_DETECTOR_GATES = tuple(
    _GATES[name]
    for name in ("cred0", "cred1", "cred2", "exfil", "url", "ipv4", "outside", "secret")
)
_OPENED: dict[int, tuple[tuple[tuple[int, _Rule], ...], tuple[bool, ...]]] = {}
_OPENED_MAX = 4096


def _opened(present: int) -> tuple[tuple[tuple[int, _Rule], ...], tuple[bool, ...]]:
    """What the atoms `present` open: the rules (index, rule) whose gates open, in order, and
    whether each of _DETECTOR_GATES opens. Kept for up to _OPENED_MAX sets of atoms (then
    started afresh): texts of one collection often hold the same few (files of one template)."""
    known = _OPENED.get(present)
    if known is not None:
        return known
    if present.bit_count() <= _FEW_ATOMS:
        wanted = set(_RULES_ALWAYS)
        bits = present
        while bits:
            low = bits & -bits
            wanted.update(_RULES_BY_ATOM.get(low.bit_length() - 1, ()))
            bits ^= low
        order: Iterable[int] = sorted(wanted)
    else:
        order = range(len(_RULES))
    rules = tuple(
        (i, _RULES[i]) for i in order if _RULES[i].first & present and _RULES[i].gate.open(present)
    )
    known = rules, tuple(gate.open(present) for gate in _DETECTOR_GATES)
    if len(_OPENED) >= _OPENED_MAX:
        _OPENED.clear()
    _OPENED[present] = known
    return known


_ATOM_MATCH = _ATOM_SET._set.Match  # the binding's C++ call, without its Python wrapper
_DETECTOR_RX = {name: patterns.compile_bytes(rx) for name, rx in _DETECTORS.items()}
_BASE64_RUN = patterns.compile_bytes(patterns.BASE64_RUN)
# The escape runs in one pattern (each kind starts with its own characters, so no run of one kind
# starts inside a run of another and one pass finds what a pass per kind would); the character
# code runs apart (one may start inside another).
_ESCAPE_ANY = patterns.compile_bytes(
    "|".join(rx.decode() for marker, rx in patterns.ESCAPE_RUNS if marker != b"ch").encode()
)
_CHAR_RUNS = tuple(patterns.compile_bytes(rx) for m, rx in patterns.ESCAPE_RUNS if m == b"ch")
_CHAR_WORD = patterns.compile_bytes(rb"(?i)cha?r")
_UNIT = {b"\\x": 4, b"\\u": 6, b"\\": 4, b"%": 3, b"&#": 1}


def _escape_marker(run: bytes) -> bytes:
    if run[:1] == b"\\":
        return run[:2] if run[1:2] in (b"x", b"u") else b"\\"
    return run[:2] if run[:1] == b"&" else run[:1]


def _blob_runs(data: bytes, limits: SecurityLimits, scarce: int) -> list[tuple[int, bytes]]:
    """(offset, text) of each run that may encode something: base64 or hex (32 letters or more;
    with '-' or '_', base64url, 80 or more), escapes and character codes (8 or more, 12 percent
    escapes). What a run decodes to decides whether it is a finding. `scarce`: what
    `scarce_in(data)` says."""
    out: list[tuple[int, bytes]] = []
    cap = limits.max_findings_per_rule * 4
    if not scarce & (_HAS_BASE64 | _HAS_ESCAPE | _HAS_CHAR_WORD):
        return out
    for m in _BASE64_RUN.finditer(data) if scarce & _HAS_BASE64 else ():
        run = m.group()
        body = run.rstrip(b"=")
        url_safe = b"-" in body or b"_" in body
        if url_safe and (len(body) < 80 or b"/" in body or b"+" in body):
            continue  # too short for base64url, or a path: no alphabet mixes '/' with '-' or '_'

        out.append((m.start(), run))
        if len(out) >= cap:
            return out
    if scarce & _HAS_ESCAPE:
        for m in _ESCAPE_ANY.finditer(data):
            run = m.group()
            marker = _escape_marker(run)
            count = run.count(b";") if marker == b"&#" else len(run) // _UNIT[marker]
            if count >= patterns.ESCAPE_MIN[marker]:
                out.append((m.start(), run))
                if len(out) >= cap:
                    return out
    if scarce & _HAS_CHAR_WORD:
        for rx in _CHAR_RUNS:
            for m in rx.finditer(data):
                run = m.group()
                if len(re.findall(rb"\d{2,3}", run)) >= patterns.ESCAPE_MIN[b"ch"]:
                    out.append((m.start(), run))
                    if len(out) >= cap:
                        return out
    return sorted(out)


_IPV4 = patterns.compile_bytes(patterns.IPV4)
_NET_CONTEXT = re.compile(patterns.NET_CONTEXT)

# Patterns that most texts hold nowhere, each run over every text: one pass of a set of them
# says which a text holds at all, and only those run over it one by one.
_HAS_BASE64, _HAS_ESCAPE, _HAS_CHAR_WORD, _HAS_IPV4, _HAS_SQUEEZED = 1, 2, 4, 8, 16
_scarce_match: Any = None


def scarce_in(data: bytes) -> int:
    """Which of the scarce patterns `data` holds somewhere (a mask of the _HAS_ bits), and which
    alternatives that rules are probed for (their `_Rule.probe` bits). Every bit, when the one
    pass could not run to the end (out of memory): then everything runs."""
    global _scarce_match
    if _scarce_match is None:
        found = re2.Set.SearchSet(patterns._options(max_mem=4 << 20))
        for rx in (_BASE64_RUN, _ESCAPE_ANY, _CHAR_WORD, _IPV4, _SQUEEZE_FIND):
            found.Add(rx.pattern)  # (in the order of the bits)
        for probe in _PROBES:
            found.Add(probe.encode())
        found.Add(rb"\z")
        found.Compile()
        _scarce_match = found._set.Match
    mask = 0
    for i in _scarce_match(data) or ():
        mask |= 1 << i
    if not mask >> (_SCARCE_COUNT + len(_PROBES)):
        return -1  # (the end of the text is always found, unless the pass gave up)
    return mask


_BLOCK = 8192  # bytes per block of a large text (see FileScan.run_view)
_OVERLAP = 1024  # bytes each block reaches into the next


def _blocks(data: bytes) -> list[tuple[int, int]]:
    """(start, end) of overlapping blocks of whole lines covering `data`: each about _BLOCK
    bytes, reaching _OVERLAP bytes (to a line end) into the next; a longer line is one block."""
    out = []
    n = len(data)
    a = 0
    while a < n:
        cut = data.find(b"\n", min(n, a + _BLOCK))
        b = n if cut < 0 else cut + 1
        reach = data.find(b"\n", min(n, b + _OVERLAP))
        out.append((a, n if reach < 0 else reach + 1))
        a = b
    return out


def _satisfied(need: tuple[tuple[int, ...], ...], present: int) -> bool:
    """Whether every clause of one alternative has an atom in `present`."""
    for alternative in need:
        for clause in alternative:
            if not clause & present:
                break
        else:
            return True
    return False


def present_atoms(data: bytes) -> int:
    """The atoms `data` holds (with its white space taken out), as a bit mask of their indices;
    every atom when the set's pass could not run to the end (out of memory): then every gate
    opens, instead of none."""
    mask = 0
    for i in _ATOM_MATCH(squeeze(data)) or ():
        mask |= 1 << i
    if not mask & _ATOMS_END:
        return _ATOMS_END - 1
    return mask ^ _ATOMS_END


# --- severity by kind and context ------------------------------------------------------------------

_INJECTION = frozenset(
    ("injection-override", "injection-role-claim", "injection-conceal", "injection-disable-safety")
)
# Command rules: in a script the severity the pattern gives; in a document (code shown, not run)
# at most this.
_SHOWN_CAP = {
    "download-execute": W,
    "decode-execute": E,
    "dynamic-eval": INFO,
    "destructive-command": W,
    "permission-change": W,
    "persistence": W,
    "reverse-shell": E,
    "data-upload": W,
    "path-outside": INFO,
}
# Severity of permission and persistence matches in documents, when they are only information.
_SHOWN_QUIET = re.compile(
    rb"(?i)chmod\s+(?:-\S+\s+)*(?:0?777|0?666|a\+w|o\+w|a\+rwx|ugo\+rwx)|>>?\s*~?/?\.(?:bashrc|"
    rb"zshrc|profile|bash_profile|zprofile)|systemctl\s+(?:--user\s+)?enable|/etc/systemd/system/|"
    rb"launchctl\s+load|core\.hookspath\s*=\s*/dev/null|\|\s*(?:nc|ncat)\s+-u\b"
)


_DISABLE_VERB = re.compile(
    rb"(?i)(?:disabl|turn|deactivat|bypass|circumvent|skip|ignor|overrid|switch|get\s+around|"
    rb"work\s+around|evad|suppress)"
)
_SELF_NEGATED = re.compile(rb"(?i)(?:do\s+not|don'?t|never|without|no\s+need)\b")
_SAFETY_FLAG = re.compile(
    rb"(?i)--dangerously|--yolo|bypassPermissions|permission[-_]?mode|approval[-_]policy|"
    rb"sandbox[-_]mode|--trust-all-tools|--allow-all-tools"
)


# What writes a start-up location (as opposed to naming or reading it).
_WRITES = re.compile(
    rb"(?i)>|\btee\b|\bcp\b|\bmv\b|\bln\b|\binstall\b|\bwrite|\becho\b|\bprintf\b|\bcat\s*<<|"
    rb"\bcopy|\breg(?:\.exe)?\s+add\b|set-itemproperty|new-itemproperty|new-item|add-content|"
    rb"set-content|out-file|\bschtasks|register-scheduledtask|new-scheduledtask|\bcrontab\b|"
    rb"@reboot|\bsystemctl\b|\blaunchctl\b|\bloginctl\b|\bsed\s+-i|open\s*\(|appendfile|"
    rb"writefile|hookspath|prompt_command\s*=|\bgit\s+config\b|\bchmod\b"
)


_SYSTEM_AFTER = re.compile(
    rb"(?:\.\./)*(?:etc|usr|root|home|proc|sys|var|boot|Users|\.ssh|\.aws|\.config)/"
)


def _line(data: bytes, pos: int) -> bytes:
    start = data.rfind(b"\n", 0, pos) + 1
    end = data.find(b"\n", pos)
    return data[start : len(data) if end < 0 else end]


def _in_fence(data: bytes, pos: int) -> bool:
    """`pos` is inside a fenced code block."""
    return markup.code_map(data).inside(pos)


def _max(a: Severity, b: Severity) -> Severity:
    return a if _RANK[a] >= _RANK[b] else b


def _min(a: Severity, b: Severity) -> Severity:
    return a if _RANK[a] <= _RANK[b] else b


class FileScan:
    """The rules over one text file (and the texts derived from it)."""

    def __init__(self, sink: Sink, rel: str, kind: str, lang: str, limits: SecurityLimits) -> None:
        self.sink, self.rel, self.kind, self.lang, self.limits = sink, rel, kind, lang, limits
        self.decode_depth = 0
        self.loudest = INFO  # the most severe finding so far (derived texts use it)
        self._headings: dict[int, context.Headings] = {}
        # Set while scanning text decoded from a place that only talks about attacks (a
        # teaching section, a quoted example): what it hides is talked about too.
        self.quiet = False

    def teaching(self, data: bytes, pos: int) -> bool:
        """`pos` is in a reference document's section about attacks (a threat model, red flags).
        Not the skill file: its title must not excuse its instructions."""
        if self.kind != "prose":
            return False
        headings = self._headings.get(id(data))
        if headings is None:
            headings = self._headings[id(data)] = context.Headings(data)
        return context.teaching_section(headings, pos)

    def add(
        self, rule: str, line: int, col: int, message: str, ev: str, sev: Severity | None = None
    ) -> None:
        effect, hint = effect_hint(rule)
        self.sink.add(rule, self.rel, line, col, message, effect, hint, ev, sev)
        if sev is not None and _RANK[sev] > _RANK[self.loudest]:
            self.loudest = sev

    @property
    def shown(self) -> bool:
        """Text a document shows (instructions, references), as opposed to code a script runs."""
        return self.kind in ("skill", "prose", "licence", "data")

    # -- one view -------------------------------------------------------------------------------------
    def run_view(self, view: View, present: int | None = None, scarce: int | None = None) -> int:
        """Every rule over one view; returns the atoms the view holds (a bit mask). `present`
        and `scarce`: what `present_atoms` and `scarce_in` said of the view, when asked
        already."""
        data = view.data
        if scarce is None:
            scarce = scarce_in(data)
        if len(data) <= _BLOCK * 2:
            if present is None:
                present = present_atoms(data)
            self._rules_over(view, present, 0, len(data), None, scarce)
            self._extras(view, present, scarce)
            return present
        # A large text is read in blocks of whole lines (overlapping, so a phrase across a
        # block's end is whole in the next): a rule runs on a block only where every one of its
        # clauses has an atom in that block, which words spread over a long file rarely do.
        seen: set[tuple[int, int]] = set()
        union = 0
        for a, b in _blocks(data):
            block = present_atoms(data[a:b])
            union |= block
            self._rules_over(view, block, a, b, seen, scarce)
        self._extras(view, union, scarce)
        return union

    def _rules_over(
        self,
        view: View,
        present: int,
        a: int,
        b: int,
        seen: set[tuple[int, int]] | None,
        scarce: int,
    ) -> None:
        for i, rule in _opened(present)[0]:
            self._candidate(view, rule, i, a, b, seen)
        for i, rule in _PROBED:
            if rule.probe & scarce and not (rule.first & present and rule.gate.open(present)):
                self._candidate(view, rule, i, a, b, seen)

    def _candidate(
        self,
        view: View,
        rule: _Rule,
        i: int,
        a: int,
        b: int,
        seen: set[tuple[int, int]] | None,
    ) -> None:
        if self.sink.full(rule.spec.rule, self.rel):
            return  # as many as a file lists: the rest would only be counted
        if self.kind not in rule.spec.scopes:
            return
        if self.kind == "licence" and rule.spec.rule in _INJECTION:
            return  # legal text: "permission is granted" is the licence, not a claim
        self._text_rule(view, rule, i, a, b, seen)

    def _text_rule(
        self,
        view: View,
        rule: _Rule,
        index: int = 0,
        a: int = 0,
        b: int | None = None,
        seen: set[tuple[int, int]] | None = None,
    ) -> None:
        spec = rule.spec
        n = 0
        data = view.data
        for m in rule.regex.finditer(data, a, len(data) if b is None else b):
            start, end = m.start(), m.end()
            if seen is not None:
                if (index, start) in seen:
                    continue  # found already in the block before (they overlap)
                seen.add((index, start))
            if spec.check is not None and not spec.check(data, start, end):
                continue
            if view.keep is not None and not view.keep(start, end):
                continue
            n += 1
            if n > self.limits.max_findings_per_rule:
                break
            sev = self._judge(spec.rule, spec.severity, data, start, end, spec.in_documents)
            if sev is None:
                continue
            line, col = view.where(start)
            text = m.group().decode("utf-8", "replace")
            shown = " ".join(text.split())[:160]
            msg = spec.what.replace("{m}", shown) + view.note
            self.add(spec.rule, line, col, msg, self._evidence(view, start, text), sev)

    def _judge(
        self,
        rule: str,
        sev: Severity,
        data: bytes,
        start: int,
        end: int,
        spec_cap: Severity | None = None,
    ) -> Severity | None:
        """The severity a match deserves where it stands (None: it says nothing at all)."""
        if self.quiet:
            return INFO
        if rule in _INJECTION:
            text = data[start:end]
            if _SELF_NEGATED.match(text) is None and context.negated(data, start):
                return INFO  # "never ignore ...", "MUST NOT fix security by disabling ..."
            if rule == "injection-disable-safety" and context.conditional(data, start):
                return INFO  # "unless permission is granted"
            if _SAFETY_FLAG.search(text):
                # a flag is how a command is written (quotes and backticks say nothing); in a
                # reference or a data file it is a setting a reader may copy
                if self.shown and (
                    context.guidance(data, start, end) or context.named_value(data, start, end)
                ):
                    return INFO  # talked about, or a mode named in a list of modes
                return W if self.shown else sev
            if (
                context.quoted(data, start, end)
                or context.in_inline_code(data, start)
                or context.quoted_line(data, start)
            ):
                return INFO  # the phrase is named, not said
            if self.kind in ("script", "data") and context.in_string_literal(data, start):
                return INFO  # a string a program holds (a prompt, a detection pattern): data
            if context.definition_line(data, start):
                return INFO  # it documents an option or a field
            if self.shown and (
                context.guidance(data, start, end)
                or self.teaching(data, start)
                or context.listed_example(data, start, end)
            ):
                return INFO
            if (
                rule == "injection-disable-safety"
                and _DISABLE_VERB.match(text)
                and not context.imperative(data, start)
            ):
                return INFO  # says what someone does, does not tell the agent to do it
            if rule == "injection-role-claim" and self.shown and _in_fence(data, start):
                return INFO  # a prompt's format shown in an example
            return sev
        if spec_cap is not None and self.shown:
            if context.guidance(data, start, end) or self.teaching(data, start):
                return INFO
            return _min(sev, spec_cap)
        if rule in _SHOWN_CAP and self.shown:
            if (
                context.guidance(data, start, end)
                or context.negated(data, start)
                or context.pattern_argument(data, start, end)
                or self.teaching(data, start)
                or context.listed_example(data, start, end)
            ):
                return INFO
            if rule == "persistence" and not _WRITES.search(_line(data, start)):
                return INFO  # a start-up location named or read (forensics), not written
            if rule in ("permission-change", "persistence", "data-upload") and _SHOWN_QUIET.search(
                data, start, min(len(data), end + 40)
            ):
                return INFO
            return _min(sev, _SHOWN_CAP[rule])
        if rule == "persistence" and not _WRITES.search(_line(data, start)):
            return INFO
        if rule == "data-upload" and self.kind == "script":
            if _DETECTOR_RX["exfil"].search(_line(data, start)):
                return E  # local data to a service made for receiving it
            return _max(sev, W)
        if rule == "dynamic-eval" and self.kind == "script" and self.lang not in _SHELL_LANGS:
            return _min(sev, W)
        return sev

    def _evidence(self, view: View, offset: int, focus: str) -> str:
        if view.line_text is not None:
            return evidence(view.line_text(offset), focus)
        return evidence(view.data.decode("utf-8", "replace")[:400], focus)

    # -- detectors beside the phrase and command rules ------------------------------------------------
    def _extras(self, view: View, present: int, scarce: int) -> None:
        cred0, cred1, cred2, exfil_on, url_on, ipv4_on, outside_on, secret_on = _opened(present)[1]
        data = view.data
        for n, on in enumerate((cred0, cred1, cred2)):
            if on:
                self._credentials(view, _DETECTOR_RX[f"cred{n}"], patterns.CREDENTIALS[n][1])
        if exfil_on:
            for m in _limit(_DETECTOR_RX["exfil"].finditer(data), self.limits):
                if view.keep is not None and not view.keep(m.start(), m.end()):
                    continue
                line, col = view.where(m.start())
                host = m.group().decode("utf-8", "replace")
                sev = W if self.kind == "script" or view.note else INFO
                if self.shown and context.guidance(data, m.start(), m.end()):
                    sev = INFO
                self.add(
                    "network-endpoint",
                    line,
                    col,
                    f"names '{host}', a service often used to receive stolen data or tunnel "
                    "traffic" + view.note,
                    self._evidence(view, m.start(), host),
                    sev,
                )
        if (self.kind == "script" or view.note) and url_on:
            for m in _limit(_DETECTOR_RX["url"].finditer(data), self.limits):
                if view.keep is not None and not view.keep(m.start(), m.end()):
                    continue
                url = m.group()[:300].decode("utf-8", "replace")
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
        if scarce & _HAS_IPV4 and ipv4_on:
            self._ips(view)
        if outside_on and self.kind in ("skill", "prose", "script"):
            for m in _limit(_DETECTOR_RX["outside"].finditer(data), self.limits):
                if view.keep is not None and not view.keep(m.start(), m.end()):
                    continue
                what = m.group().decode("utf-8", "replace")
                climbs = what.count("../")
                if climbs and climbs <= self.rel.count("/") + 1:
                    continue
                line, col = view.where(m.start())
                after = data[m.end() : m.end() + 40]
                writes = not what.lstrip().startswith("../") or bool(
                    _SYSTEM_AFTER.match(after)
                    and _acts_on(view.line_text(m.start()) if view.line_text else "", what)
                )
                self.add(
                    "path-outside",
                    line,
                    col,
                    f"reaches outside the skill folder: '{what.strip()[:120]}'" + view.note,
                    self._evidence(view, m.start(), what),
                    W if self.kind == "script" and writes else INFO,
                )
        if self.kind != "licence":
            self._blobs(view, scarce)
        if secret_on and self.kind != "licence" and not view.note:
            self._secrets(view)

    def _credentials(self, view: View, r: re2._Regexp, sev: Severity) -> None:
        data = view.data
        for m in _limit(r.finditer(data), self.limits):
            if view.keep is not None and not view.keep(m.start(), m.end()):
                continue
            what = m.group().decode("utf-8", "replace").strip().strip("\"'(=/").strip()
            line, col = view.where(m.start())
            line_text = view.line_text(m.start()) if view.line_text else what
            dotenv = what.startswith(".env")
            path_like = "/" in what or what.startswith(".")
            acted = _acts_on(line_text, what) or bool(
                _CRED_COMMAND.match(what)
                and not (
                    self.kind == "script"
                    and context.in_string_literal(data, m.start())
                    and not _RUNS_PROCESS.search(_line(data, m.start()))
                )
            )
            if self.kind == "script":
                # A script that names a credential store and reads, copies or sends it on that
                # line; a name alone (a detection rule's string, a .gitignore template) is
                # information.
                severity = sev if acted else INFO
                if context.pattern_argument(data, m.start(), m.end()):
                    severity = INFO
            else:
                # In a document a path is often just named; it counts when the sentence tells the
                # agent to act on it (a verb before the path, not negated).
                severity = W if acted and sev is E and path_like else INFO
                if context.guidance(data, m.start(), m.end()) or self.teaching(data, m.start()):
                    severity = INFO
            if dotenv or re.search(r"(?i)\.ssh/(?:config|known_hosts)|\.pub\b", line_text):
                severity = INFO  # a project's own settings, or public parts of ssh
            elif sev is not E:
                severity = _min(severity, W)
            self.add(
                "credential-access",
                line,
                col,
                f"touches a credential location: '{what[:80]}'" + view.note,
                evidence(line_text, what),
                severity,
            )

    def _ips(self, view: View) -> None:
        data = view.data
        for m in _limit(_IPV4.finditer(data), self.limits):
            ip = m.group().decode("ascii", "replace")
            start, end = m.start(), m.end()
            if view.keep is not None and not view.keep(start, end):
                continue
            before = data[max(0, start - 1) : start]
            after = data[end : end + 1]
            if before in (b".", b"-") or after in (b".",) or before.isalnum():
                continue  # a version number or part of a longer dotted name
            line_text = view.line_text(start) if view.line_text else ip
            if not _NET_CONTEXT.search(line_text.encode("utf-8", "replace")):
                continue
            try:
                addr = ipaddress.ip_address(ip)
            except ValueError:
                continue
            if (
                addr.is_loopback
                or (addr.is_private and not _doc_range(addr))
                or addr.is_unspecified
                or addr.is_multicast
                or addr.is_link_local
            ):
                continue  # not a host on the internet
            line, col = view.where(start)
            self.add(
                "raw-ip-address",
                line,
                col,
                f"contacts the numeric address {ip}" + view.note,
                evidence(line_text, ip),
                W if self.kind == "script" or view.note else INFO,
            )

    def _blobs(self, view: View, scarce: int) -> None:
        data = view.data
        for start, blob in _blob_runs(data, self.limits, scarce):
            end = start + len(blob)
            if view.keep is not None and not view.keep(start, end):
                continue
            prefix = data[max(0, start - 24) : start].lower()
            if re.search(
                rb"sha(?:1|256|384|512)-$|integrity|data:image/|data:font/|checksum|hash|"
                rb"sha\d*[\"': =]+$|/$",
                prefix,
            ):
                continue
            if b"/" in blob and not blob.endswith(b"=") and blob.count(b"/") > len(blob) // 16:
                continue  # a path or URL, not an encoding
            decoded = secrets.decode_blob(blob)
            if decoded is None:
                continue
            how, raw = decoded
            inflated = secrets.inflate(raw)
            if inflated is not None:
                how, raw = how + " + compressed", inflated
            exe = binary.executable_kind(raw[:512]) or binary.archive_kind(raw[:512])
            printable = (
                not exe
                and secrets.printable_ratio(raw) >= 0.9
                and len(raw) >= 8
                and secrets.wordy(raw)
            )
            if not (exe or printable or (len(blob) >= 120 and self.kind == "script")):
                continue  # (most runs decode to nothing to report: where they are is not asked)
            line, col = view.where(start)
            ev = self._evidence(view, start, blob[:20].decode("ascii", "replace"))
            if exe:
                self.add(
                    "encoded-blob",
                    line,
                    col,
                    f"{len(blob):,} characters of {how} that decode to a {exe}" + view.note,
                    ev,
                    E if binary.executable_kind(raw[:512]) and self.kind == "script" else W,
                )
                continue
            if printable:
                text = raw.decode("utf-8", "replace")
                before = self.loudest
                self.loudest = INFO
                was_quiet = self.quiet
                self.quiet = (
                    was_quiet
                    or self.teaching(data, start)
                    or (self.shown and context.guidance(data, start, end))
                )
                if self.decode_depth < self.limits.max_decode_depth:
                    self.decode_depth += 1
                    self.scan_derived(text, line, col, f" (inside {how} text)")
                    self.decode_depth -= 1
                self.quiet = was_quiet
                hidden_risk = self.loudest
                self.loudest = max(before, hidden_risk, key=_RANK.__getitem__)
                sev = W if self.kind == "script" or _RANK[hidden_risk] >= 2 else INFO
                self.add(
                    "encoded-blob",
                    line,
                    col,
                    f"{len(blob):,} characters of {how} hide readable text: "
                    f'"{" ".join(text.split())[:160]}"' + view.note,
                    ev,
                    sev,
                )
                continue
            if len(blob) >= 120 and secrets.entropy(blob) >= 4.0 and self.kind == "script":
                self.add(
                    "encoded-blob",
                    line,
                    col,
                    f"{len(blob):,} characters of high-entropy {how} data" + view.note,
                    ev,
                    INFO,
                )

    def _secrets(self, view: View) -> None:
        for s in secrets.find_secrets(view.data, self.kind, self.limits.max_secret_lines):
            line, col = view.where(s.offset)
            self.add(
                "hardcoded-secret",
                line,
                col,
                f"{s.kind}: {secrets.mask(s.value)}",
                "",
                s.severity,
            )

    # -- derived views --------------------------------------------------------------------------------
    def scan_derived(self, text: str, line: int, col: int, note: str) -> None:
        """Scan text a file hides (decoded, de-obfuscated, hidden by markup), reported at
        (line, col) of the file, after undoing Unicode disguises in it."""
        data = text.encode("utf-8", "replace")[: self.limits.max_file_bytes]
        if not data.isascii() and may_disguise(data):  # (else folding leaves it as it is)
            folded, _changed = fold_lines(data.decode("utf-8", "replace"))
            data = folded.encode("utf-8", "replace")
        first = data.split(b"\n", 1)[0].decode("utf-8", "replace")
        self.run_view(View(data, lambda _o: (line, col), note, lambda _o: first))


_READ_VERB = re.compile(patterns.CREDENTIAL_READ.decode())
# Credential matches that are themselves a command reading a secret store.
_RUNS_PROCESS = re.compile(rb"(?i)subprocess|\bsystem\s*\(|popen|\bexec|\bspawn|\brun\s*\(|`|\$\(")
_CRED_COMMAND = re.compile(
    r"(?i)security\s+(?:find|dump)-|dump-keychain|secret-tool|kwallet-query|cmdkey|vaultcmd|"
    r"mimikatz"
)
_NEGATION = re.compile(r"(?i)\b(?:never|not|n't|no|without|exclude|excluding)\b")
_SHELL_LANGS = ("shell", "powershell", "bat", "cmd")


def _acts_on(line: str, what: str) -> bool:
    at = line.find(what)
    head = line[: at if at >= 0 else len(line)]
    for sep in (". ", "; ", "! ", "? "):
        i = head.rfind(sep)
        if i >= 0:
            head = head[i + 2 :]
    verbs = list(_READ_VERB.finditer(head))
    return bool(verbs) and not _NEGATION.search(head[: verbs[-1].start()])


_DOC_NETS = tuple(
    ipaddress.ip_network(n)
    for n in ("192.0.2.0/24", "198.51.100.0/24", "203.0.113.0/24", "2001:db8::/32")
)


def _doc_range(addr: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    """Documentation ranges (RFC 5737, RFC 3849) stand for hosts on the internet: in a script
    they count as one (a planted sample uses them for an attacker's host); in a document any
    numeric address is information."""
    return any(addr.version == n.version and addr in n for n in _DOC_NETS)


def _limit(it, limits: SecurityLimits):  # type: ignore[no-untyped-def]
    for n, m in enumerate(it):
        if n >= limits.max_findings_per_rule * 4:
            return
        yield m


# --- one file --------------------------------------------------------------------------------------


def scan_text_file(
    sink: Sink,
    rel: str,
    data: bytes,
    kind: str,
    lang: str,
    limits: SecurityLimits,
    *,
    line_offset: int = 0,
    whole: bool = True,
    note: str = "",
) -> None:
    """Every rule over one text file (or one window of a large one: `line_offset` lines come
    before it, `whole` says it is the file entire and the analysers of structure may run)."""
    fs = FileScan(sink, rel, kind, lang, limits)
    present = present_atoms(data) if len(data) <= _BLOCK * 2 else None
    loc = Locator(data, line_offset)
    scarce = scarce_in(data)
    present = fs.run_view(View(data, loc.position, note, loc.line_text), present, scarce)
    if not data.isascii():
        _unicode(fs, data, loc, line_offset, note)
    if not whole:
        return
    if _GATES["obfuscated"].open(present) and kind != "licence":
        if scarce & _HAS_SQUEEZED:
            _squeezed(fs, data, loc)
        if b"&" in data:
            _entities(fs, data, loc)
    if kind in ("skill", "prose") and (b"<" in data or b"]:" in data):
        _markup(fs, data, loc)
    if kind == "skill" and (
        _GATES["activation"].open(present) or data.find(b"allowed", 0, 65536) >= 0
    ):
        _skill_file(fs, data, loc, _GATES["activation"].open(present))
    if (
        kind == "script"
        and lang == "shell"  # (its disguises are shell syntax: in other languages they are code)
        and needs_normalising(data[:200_000].decode("utf-8", "replace"))
    ):
        _shell(fs, data, limits)
    if lang == "python" and kind == "script":
        if pyscan.worth_parsing(data):
            _python(fs, data, limits)
    elif kind in ("skill", "prose") and _GATES["python-shown"].open(present):
        _python_shown(fs, data, loc)


def _unicode(fs: FileScan, data: bytes, loc: Locator, line_offset: int, note: str) -> None:
    """Invisible characters, then the rules over the lines whose disguises folding undoes (each
    asked of the bytes first: most text is decoded for neither)."""
    hides, disguises = may_hide(data), may_disguise(data)
    if not (hides or disguises):
        return
    text = data.decode("utf-8", "replace")
    if hides:
        decoded: list[tuple[int, int, str]] = []
        scan_unicode(text, fs.rel, fs.sink, decoded, line_offset)
        for line, col, hidden in decoded:
            fs.scan_derived(hidden, line, col, " (in hidden Unicode characters)")
    changed = disguised_lines(text) if disguises else []
    if not changed:
        return
    # Only the lines folding changed (and their neighbours, for phrases across a line end) are
    # scanned again; a finding counts only where the match itself held a disguised character.
    lines = text.split("\n")
    keep_lines = sorted({j for i in changed for j in (i - 1, i, i + 1) if 0 <= j < len(lines)})
    if not keep_lines:
        return
    chunk_lines = [fold(lines[j]) for j in keep_lines]
    chunk = "\n".join(chunk_lines).encode("utf-8", "replace")
    starts = [0]
    for ln in chunk_lines:
        starts.append(starts[-1] + len(ln.encode("utf-8", "replace")) + 1)

    def index(o: int) -> int:
        lo, hi = 0, len(keep_lines) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if starts[mid] <= o:
                lo = mid
            else:
                hi = mid - 1
        return lo

    def char_col(k: int, o: int) -> int:
        return len(chunk[starts[k] : o].decode("utf-8", "replace"))

    def where(o: int) -> tuple[int, int]:
        k = index(o)
        j = keep_lines[k]
        original = disguised(lines[j], char_col(k, o), char_col(k, o) + 1)[1]
        return line_offset + j + 1, original + 1

    def line_text(o: int) -> str:
        return lines[keep_lines[index(o)]]

    def keep(a: int, b: int) -> bool:
        k = index(a)
        j = keep_lines[k]
        end_k = index(max(a, b - 1))
        if end_k != k:
            return True  # across lines: keep (rare), the raw view did not see it either
        return disguised(lines[j], char_col(k, a), char_col(k, b))[0]

    fs.run_view(View(chunk, where, " (after undoing Unicode look-alikes)" + note, line_text, keep))


_SQUEEZE_NOISE = re.compile(rb"<!--.*?-->|<[^>\n]{0,40}>|&#?[a-z0-9]{2,8};", re.S)
_SQUEEZE_FIND = patterns.compile_bytes(
    r"(?i)\b[a-z][ .*|/\\-]{1,3}[a-z][ .*|/\\-]{1,3}[a-z][ .*|/\\-]{1,3}[a-z][ .*|/\\-]{1,3}[a-z]\b|"
    r"[a-z](?:\*\*|__|~~|<[a-z/][^>\n]*>|&#?[a-z0-9]{2,8};)[a-z]|&#x?[0-9a-f]{2,6};"
)
_SQUEEZE_PHRASES = patterns.compile_bytes(
    r"ignore(?:all|the|any)*(?:previous|prior|above|earlier|preceding|your)(?:instructions?|prompts?|"
    r"rules|guidelines)|disregard(?:all|the|any)*(?:previous|prior|above|earlier|your)(?:instructions?|"
    r"prompts?|rules)|forget(?:all|everything)(?:above|before|previous|youweretold)|"
    r"(?:donot|dont|never)(?:tell|inform|notify)(?:the)?user|withouttelling(?:the)?user|"
    r"(?:disable|bypass|skip)(?:all|the|any)*(?:safety|sandbox|confirmations?|guardrails|"
    r"permissionprompts?)|(?:youarenow|enter)(?:in)?(?:developer|dan|god|jailbreak)mode|"
    r"curl[a-z0-9:/.\-]{0,200}?sh\b"
)


def _squeezed(fs: FileScan, data: bytes, loc: Locator) -> None:
    """Phrases split letter by letter or by markup inside words: matched on the letters alone,
    in a window around each place such splitting was seen, and mapped back letter by letter."""
    done = -1
    for n, m in enumerate(_SQUEEZE_FIND.finditer(data)):
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


def _entities(fs: FileScan, data: bytes, loc: Locator) -> None:
    """Each line an HTML entity changes, decoded (only the lines holding '&' are looked at)."""
    at = data.find(b"&")
    seen = 0
    while at >= 0 and seen <= 100_000:
        start = data.rfind(b"\n", 0, at) + 1
        end = data.find(b"\n", at)
        end = len(data) if end < 0 else end
        line = data[start:end].decode("utf-8", "replace")
        decoded = html.unescape(line)
        if decoded != line:
            fs.scan_derived(decoded, loc.line_of(start), 1, " (after decoding HTML entities)")
        seen += 1
        at = data.find(b"&", end)


def _markup(fs: FileScan, data: bytes, loc: Locator) -> None:
    """Text a renderer hides: information, unless what it hides is itself a risk (then the
    finding inside is reported, and the hiding is a warning)."""
    for rule, start, _end, what, text in markup.hidden_regions(data):
        line, col = loc.position(start)
        before = fs.loudest
        fs.loudest = INFO
        fs.scan_derived(text, line, col, f" (hidden: {what})")
        hidden_risk = fs.loudest
        fs.loudest = max(before, hidden_risk, key=_RANK.__getitem__)
        shown = " ".join(text.split())
        fs.add(
            rule,
            line,
            col,
            f'{what} hides text from the rendered view: "{shown[:200]}"',
            evidence(loc.line_text(start)),
            W if _RANK[hidden_risk] >= 2 or markup.classify(text) is W else INFO,
        )


def _skill_file(fs: FileScan, data: bytes, loc: Locator, has_activation: bool) -> None:
    span = activation.frontmatter_span(data)
    body_from = 0
    if span is not None:
        a, b = span
        body_from = b
        fm = data[a:b]
        if b"allowed" in fm:
            first_line = loc.line_offset + data.count(b"\n", 0, a) + 1
            for line, col, tool in activation.allowed_tools(
                fm.decode("utf-8", "replace"), first_line
            ):
                verdict = activation.tool_grant(tool)
                if verdict is None:
                    continue
                sev, what = verdict
                fs.add("broad-tool-grant", line, col, what, evidence(tool), sev)
    if has_activation:
        for n, m in enumerate(_DETECTOR_RX["activation"].finditer(data[body_from:])):
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
            # The command runs: the command rules judge it as a script's line.
            script = FileScan(fs.sink, fs.rel, "script", "shell", fs.limits)
            cmd_data = m.group(1)
            script.run_view(View(cmd_data, lambda _o, p=(line, col): p, " (run at activation)"))


def _shell(fs: FileScan, data: bytes, limits: SecurityLimits) -> None:
    text = data.decode("utf-8", "replace")
    for line_no, line in normalise(text, limits.max_deobfuscate_lines):
        fs.scan_derived(line, line_no, 1, " (after undoing shell quoting and variables)")


def _python(fs: FileScan, source: bytes, limits: SecurityLimits) -> None:
    if len(source) > limits.max_python_bytes:
        fs.sink.limited(
            fs.rel,
            f"Python source over {limits.max_python_bytes:,} bytes: its syntax tree was not "
            "analysed (the text rules ran on all of it)",
            Severity.INFO,
        )
        return
    try:
        result = pyscan.analyse(source)
    except Exception as err:  # a hostile tree must end only this analysis
        fs.sink.limited(fs.rel, f"Python analysis failed ({type(err).__name__})", Severity.INFO)
        return
    if result.why:
        fs.sink.limited(fs.rel, result.why, Severity.INFO)
    for f in result.folded[:200]:
        fs.scan_derived(f.text, f.line, f.column, f" (in a string the script {f.how})")
    for fl in result.flows:
        rule = {"download": "download-execute", "decode": "decode-execute"}.get(
            fl.kind, "dynamic-eval"
        )
        fs.add(
            rule,
            fl.line,
            fl.column,
            f"{fl.call}() runs {fl.source}",
            "",
            E if fl.kind != "dynamic" else W,
        )
    for issue in result.risks:
        fs.add(issue.rule, issue.line, issue.column, issue.message, "", issue.severity)


_PY_FENCE = re.compile(rb"(?m)^ {0,3}(?:`{3,}|~{3,})[ \t]*(?:python3?|py)\b")
_SHELL_TRUE = re.compile(
    rb"(?:subprocess\.)?(?:run|call|Popen|check_output|check_call)\(\s*(?:f[\"']|[\"'][^\"'\n]*"
    rb"[\"']\s*(?:\+|%)|[A-Za-z_][\w.]*\s*[,)+%])[^\n]*shell\s*=\s*True"
)


def _python_shown(fs: FileScan, data: bytes, loc: Locator) -> None:
    """Python shown in a document (never run as it stands): only a shell command built from
    values, as information, for whoever copies it."""
    if not _PY_FENCE.search(data):
        return
    for m in _SHELL_TRUE.finditer(data):
        line, col = loc.position(m.start())
        fs.add(
            "python-risk",
            line,
            col,
            "an example runs a shell command built from values (shell=True): whoever copies it "
            "must quote the values",
            evidence(loc.line_text(m.start())),
            INFO,
        )


def scan_file(
    sink: Sink,
    rel: str,
    data: bytes,
    *,
    is_skill: bool,
    executable: bool,
    limits: SecurityLimits,
    windows: Callable[[], Iterable[tuple[int, bytes]]] | None = None,
    note: str = "",
    size: int | None = None,
    depth: int = 0,
) -> None:
    """Every finding of one regular file of `size` bytes whose first bytes (or whole text) are
    `data`. `windows` yields (line offset, bytes) of the rest of a file too large to hold at
    once. `depth`: how many archives this file is inside."""
    head = data[:512]
    size = len(data) if size is None else size
    if binary.may_be_binary(head):
        if binary.archive_kind(head) and depth == 0 and len(data) >= size:
            _archive(sink, rel, data, size, limits)
            return
        if _shipped_binary(sink, rel, head, size):
            return
    if data.find(b"\x00", 0, 8192) >= 0:
        return  # binary data: no text rule applies
    kind, lang = kind_of(rel, is_skill, head)
    if executable and kind != "script" and not is_skill:
        effect, hint = effect_hint("executable-bit")
        sink.add(
            "executable-bit",
            rel,
            0,
            0,
            "marked executable but is not a script",
            effect,
            hint,
            severity=INFO if kind == "licence" else W,
        )
    scan_text_file(sink, rel, data, kind, lang, limits, whole=windows is None, note=note)
    if windows is not None:
        for line_offset, chunk in windows():
            scan_text_file(
                sink,
                rel,
                chunk,
                kind,
                lang,
                limits,
                line_offset=line_offset,
                whole=False,
                note=note,
            )


def _archive(sink: Sink, rel: str, data: bytes, size: int, limits: SecurityLimits) -> None:
    """An archive's files, scanned as its scripts would unpack them (archives.py); the archive
    itself is information when all of it was read, a warning naming what was not."""
    kind = binary.archive_kind(data[:512])
    listing = archives.read_archive(data, kind, rel)
    for m in listing.members:
        member = f"{rel}!{m.name}"
        scan_file(
            sink,
            member,
            m.data,
            is_skill=False,
            executable=bool(m.mode & 0o111),
            limits=limits,
            size=m.size,
            depth=1,
        )
        if m.size > len(m.data):
            sink.limited(
                member, f"{m.size:,} bytes unpacked; only the first {len(m.data):,} were read"
            )
    effect, hint = effect_hint("shipped-archive")
    if listing.error or listing.cut:
        why = listing.error or listing.cut
        sink.add(
            "shipped-archive",
            rel,
            0,
            0,
            f"a {kind} ({size:,} bytes): {why}",
            effect,
            hint,
            severity=W,
        )
    else:
        sink.add(
            "shipped-archive",
            rel,
            0,
            0,
            f"a {kind} ({size:,} bytes) of {len(listing.members):,} file(s), scanned here as "
            "if unpacked",
            "its files are reviewed here only in unpacked form; a reader of the folder does not "
            "see them",
            "ship the files unpacked",
            severity=INFO,
        )
    for name in listing.escaping[: limits.max_findings_per_rule]:
        sink.add(
            "shipped-archive",
            f"{rel}!{name}",
            0,
            0,
            f"a member of {rel} is a link or would unpack outside the folder: '{name}'",
            "unpacking it writes or points outside the skill's folder (a file of the user's "
            "replaced, say)",
            hint,
            severity=W,
        )


def _shipped_binary(sink: Sink, rel: str, head: bytes, size: int) -> bool:
    """Report a program or archive that `head` starts (True), or nothing (False)."""
    exe = binary.executable_kind(head)
    if exe:
        effect, hint = effect_hint("shipped-executable")
        sink.add("shipped-executable", rel, 0, 0, f"a {exe} ({size:,} bytes)", effect, hint)
        return True
    arc = binary.archive_kind(head)
    if arc:
        effect, hint = effect_hint("shipped-archive")
        ext = rel[rel.rfind(".") :].lower() if "." in rel else ""
        sev = INFO if ext in binary.DOCUMENT_CONTAINERS else W
        sink.add(
            "shipped-archive",
            rel,
            0,
            0,
            f"a {arc} ({size:,} bytes)",
            effect,
            hint,
            severity=sev,
        )
        return True
    return False
