"""Look-alike skill names across a set: a name, or a name-like word of a description, spelled
with characters of other scripts (or ASCII look-alikes such as `rn` for `m`) so that it reads as
another skill's name. Uses the confusables data of Unicode (UTS #39) as shipped by the
confusable-homoglyphs package, and its script table for mixed-script words.

Linear in the set: every name is reduced to a skeleton once and grouped by it.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

from skillprism.core.diagnostics import Severity
from skillprism.core.security.model import RiskFinding
from skillprism.core.security.text import confusable_map, is_invisible, visible
from skillprism.core.security.texts import effect_hint

_ASCII_PAIRS = (("rn", "m"), ("vv", "w"), ("cl", "d"), ("0", "o"), ("1", "l"), ("i", "l"))
_ASCII_SEPARATORS = re.compile(r"[\s_\-]+")
_SEPARATORS = re.compile(r"[\s_\-‐-―−]+")
_WORD = re.compile(r"[^\s,.;:!?()\[\]{}\"'`<>/\u3000-\u303f\uff01-\uff0f\uff1a-\uff20]{3,64}")
# Scripts with letters that pass for Latin ones: a name mixing one of them with Latin is a
# look-alike; Latin beside Han, Kana, Hangul, Arabic, ... is just two languages side by side.
_LOOKALIKE_SCRIPTS = frozenset(
    {"CYRILLIC", "GREEK", "ARMENIAN", "CHEROKEE", "COPTIC", "LISU", "GEORGIAN", "OLD_ITALIC"}
)


def skeleton(name: str) -> str:
    """A form in which look-alike spellings of a name coincide: invisible characters dropped,
    NFKC, case folded, each confusable letter replaced by the ASCII letter it imitates, then the
    ASCII look-alikes (rn/m, 0/o, 1/l, ...) folded together and separators unified."""
    if name.isascii():
        s = name.lower()  # casefold, for ASCII
        for a, b in _ASCII_PAIRS:
            s = s.replace(a, b)
        return _ASCII_SEPARATORS.sub("-", s)
    table = confusable_map()
    out = []
    for ch in unicodedata.normalize("NFKC", name):
        if is_invisible(ch):
            continue
        ch = table.get(ch, ch)
        out.append(ch)
    s = unicodedata.normalize("NFKC", "".join(out)).casefold()
    s = "".join(table.get(c, c) for c in s)
    for a, b in _ASCII_PAIRS:
        s = s.replace(a, b)
    return _SEPARATORS.sub("-", s)


def scripts_of(word: str) -> set[str]:
    """The scripts of the letters of `word` (Common and Inherited left out)."""
    from confusable_homoglyphs.categories import unique_aliases

    return set(unique_aliases(word)) - {"COMMON", "INHERITED"}


def _mixed(word: str) -> set[str]:
    if word.isascii():
        return set()
    letters = "".join(c for c in word if c.isalpha())
    s = scripts_of(letters) if letters else set()
    if len(s) > 1:
        return s if s & _LOOKALIKE_SCRIPTS else set()
    return s if (s and "LATIN" not in s and _has_latin_lookalike(letters)) else set()


def _has_latin_lookalike(letters: str) -> bool:
    """A word with no Latin letter that still imitates a Latin one (all-Cyrillic 'раураl')."""
    table = confusable_map()
    return all(c.isascii() or c in table for c in letters) and len(letters) >= 3


def cross_skill_findings(skills: Sequence[tuple[str, str, str]]) -> list[RiskFinding]:
    """Findings for (path, name, description) triples of one skill set: names that look like
    another skill's name, names that mix scripts, and description words that are a look-alike
    of another skill's name."""
    out: list[RiskFinding] = []
    by_skeleton: dict[str, list[tuple[str, str]]] = {}
    for path, name, _desc in skills:
        if name:
            by_skeleton.setdefault(skeleton(name), []).append((path, name))
    names = {name for _p, name, _d in skills if name}
    effect, hint = effect_hint("confusable-name")
    for group in by_skeleton.values():
        spellings = {n for _p, n in group}
        if len(spellings) < 2:
            continue
        for path, name in group:
            others = sorted(n for n in spellings if n != name)
            plain = name.isascii() and all(not o.isascii() for o in others)
            if plain:
                continue  # the original: its imitators carry the finding
            out.append(
                RiskFinding(
                    "confusable-name",
                    Severity.ERROR,
                    path,
                    "",
                    0,
                    0,
                    f"the name '{visible(name)}' looks like the skill name "
                    + ", ".join(f"'{visible(o)}'" for o in others)
                    + (f" ({_spell(name)})" if not name.isascii() else ""),
                    effect,
                    hint,
                    visible(name),
                )
            )
    for path, name, desc in skills:
        scripts = _mixed(name) if name else set()
        if scripts:
            out.append(
                RiskFinding(
                    "mixed-script-name",
                    Severity.WARNING,
                    path,
                    "",
                    0,
                    0,
                    f"the name '{visible(name)}' mixes scripts ({', '.join(sorted(scripts))}): "
                    + _spell(name),
                    "a reader sees a familiar name; the runtime and other tools see a different "
                    "string, so the skill can pass for another one",
                    "spell the name with ASCII letters only (the specification allows a-z, 0-9 "
                    "and '-')",
                    visible(name),
                )
            )
        if not desc or desc.isascii():
            continue
        for m in _WORD.finditer(desc[:10_000]):
            word = m.group()
            if word.isascii() or word in names:
                continue
            sk = skeleton(word)
            match = [n for _p, n in by_skeleton.get(sk, []) if n != word]
            mixed = _mixed(word)
            if match:
                msg = (
                    f"the description names '{visible(word)}', a look-alike of the skill "
                    f"'{match[0]}' ({_spell(word)})"
                )
                rule, sev = "confusable-name", Severity.ERROR
            elif mixed:
                msg = (
                    f"the description has the word '{visible(word)}' mixing scripts "
                    f"({', '.join(sorted(mixed))}): {_spell(word)}"
                )
                rule, sev = "mixed-script-name", Severity.WARNING
            else:
                continue
            e, h = effect_hint(rule)
            out.append(RiskFinding(rule, sev, path, "", 0, 0, msg, e, h, visible(word)))
    return out


def _spell(word: str) -> str:
    """Which characters of `word` are not ASCII, by code point and name."""
    parts = []
    for ch in dict.fromkeys(word):
        if not ch.isascii():
            parts.append(f"U+{ord(ch):04X} {unicodedata.name(ch, '?')}")
    return ", ".join(parts[:6]) or "ASCII look-alike letters"
