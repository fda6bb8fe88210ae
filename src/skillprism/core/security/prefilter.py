r"""Literal prefilters of the rules' patterns: which words a text must hold for a pattern to match.

Each pattern is reduced, once, to a conjunction of clauses, each clause a set of literal atoms
(lower case): every text the pattern matches holds, for each clause, at least one of the clause's
atoms (compared case-insensitively) once its white space is taken out (`squeeze`). One RE2 set of
every atom of every pattern, run once over a file's squeezed text, tells which atoms occur in it;
a pattern runs only on a file in which each of its clauses has an atom. Running one set of plain
words is many times faster than running the patterns, and most files of a skill hold none of the
words most patterns need.

Why squeezed: taking white space out of a text maps each match of a pattern to a piece of the
squeezed text, and the pattern's words on either side of white space (`\s+`, `\s*`, a space) join
into one atom there: `your\s+actual` needs "youractual", which far fewer texts hold than "your"
and "actual" apart, and a `| sh` needs "|sh" where "|" and "sh" alone are in nearly every text.

The reduction reads a pattern with Python's own parser of regular expressions (the patterns use
the part of RE2's syntax that Python shares) and is conservative: where it cannot tell, it leaves
a clause out, which only lets more files through to the pattern itself.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from skillprism.core.security.digest import blake2b

try:  # Python 3.11+
    from re import _constants as _c
    from re import _parser as _p
except ImportError:  # pragma: no cover - older layouts
    import sre_constants as _c  # type: ignore[no-redef]
    import sre_parse as _p  # type: ignore[no-redef]

_MAX_SET = 128  # exact strings tracked per node before giving up on exactness
_MAX_ATOM = 24  # characters per atom (longer runs are cut: a prefix is still necessary)
_INLINE_FLAGS = re.compile(r"\(\?[imsx]+\)")
# Any group of flags alone, (?i) or (?U) or (?i-s): what splitting a pattern reads flags by.
_FLAG_GROUP = re.compile(r"\(\?[a-zA-Z]*-?[a-zA-Z]+\)")


@dataclass(frozen=True, slots=True)
class _Info:
    exact: frozenset[str] | None  # every string the node can match, when few; None: too many
    clauses: tuple[frozenset[str], ...]  # each holds an atom present in every match
    # `exact` holds only how a match starts (`x+`: one x, then maybe more): what follows it in
    # a sequence cannot be joined to it.
    open_end: bool = False
    # How every match starts, when `exact` is None and that is known (`sd[a-z]`: "sd"): what
    # comes before the node in a sequence can still be joined to it.
    prefix: frozenset[str] | None = None


_ANY = _Info(None, ())
_EMPTY = _Info(frozenset({""}), ())


# The white space `squeeze` takes out: every character RE2's \s matches, and vertical tab.
SPACE_BYTES = b" \t\n\r\x0b\x0c"


def squeeze(data: bytes) -> bytes:
    """`data` without white space: the text the atoms are looked for in."""
    return data.translate(None, SPACE_BYTES)


def squeeze_atom(atom: str) -> str:
    """An atom as it stands in squeezed text (a word list's "nc " is "nc" there)."""
    return "".join(ch for ch in atom if ch not in _SPACES)


def pattern_key(pattern: str) -> str:
    """The key of `pattern` in the generated table (_prefilter_table.py)."""
    return blake2b(pattern.encode("utf-8"), digest_size=12).hexdigest()


def clauses(pattern: str, *, use_table: bool = True) -> tuple[frozenset[str], ...]:
    """The necessary clauses of `pattern` (RE2 syntax): every match holds, for each clause, one
    of its atoms (lower case, compared case-insensitively). () when nothing is known."""
    parsed = _parse(pattern)
    return () if parsed is None else _clauses_of(list(parsed))


def alternatives(pattern: str, *, use_table: bool = True) -> tuple[tuple[frozenset[str], ...], ...]:
    """The clauses of each top-level alternative of `pattern` (`a|b|c`): a match satisfies the
    clauses of at least one alternative. An alternation keeps each alternative's own clauses
    rather than merging them into weaker ones. Taken from the generated table when it holds the
    pattern (tools/gen_security_prefilter.py)."""
    if use_table:
        from skillprism.core.security._prefilter_table import CLAUSES

        known = CLAUSES.get(pattern_key(pattern))
        if known is not None:
            return tuple(
                tuple(frozenset(c.split("\x00")) for c in alt.split("\x01") if c) for alt in known
            )
    parsed = _parse(pattern)
    if parsed is None:
        return ((),)
    items = list(parsed)
    # `(?i)a|b` parses as one branch; `(?:a|b)` with nothing around it as a group holding one
    while len(items) == 1 and items[0][0] is _c.SUBPATTERN:
        items = list(items[0][1][-1])  # type: ignore[index]
    if len(items) == 1 and items[0][0] is _c.BRANCH:
        return tuple(_clauses_of(list(branch)) for branch in items[0][1][1])  # type: ignore[index]
    return (_clauses_of(items),)


def _parse(pattern: str) -> object | None:
    # Flags in the middle of a pattern (RE2 allows them, Python does not) only change case and
    # line handling, which the atoms (compared case-insensitively, never spanning a line end
    # they do not hold) do not depend on.
    text = _INLINE_FLAGS.sub("", pattern)
    try:
        return _p.parse(text, re.IGNORECASE)
    except (re.error, RecursionError, OverflowError):
        return None


def _clauses_of(items: list[tuple[object, object]]) -> tuple[frozenset[str], ...]:
    info = _sequence(items)
    out = list(info.clauses)
    if info.exact is not None:
        _flush(info.exact, out)
    return _simplify(out)


def _simplify(found: list[frozenset[str]]) -> tuple[frozenset[str], ...]:
    keep: list[frozenset[str]] = []
    for clause in found:
        if not clause or "" in clause:
            continue
        # An atom holding another atom of the same clause is implied by it: keep the shorter.
        atoms = frozenset(a for a in clause if not any(b != a and b in a for b in clause))
        if atoms not in keep:
            keep.append(atoms)
    # A clause is implied by another whose every atom holds one of its atoms: keep the other.
    # (Of two that imply each other, the first is kept.)
    return tuple(
        c
        for i, c in enumerate(keep)
        if not any(
            j != i and _implies(d, c) and (j < i or not _implies(c, d)) for j, d in enumerate(keep)
        )
    )


def _implies(c: frozenset[str], d: frozenset[str]) -> bool:
    """Every text holding an atom of `c` holds an atom of `d`."""
    return all(any(a in b for a in d) for b in c)


def _flush(exact: frozenset[str], out: list[frozenset[str]]) -> None:
    if exact and "" not in exact:
        out.append(frozenset(a[:_MAX_ATOM] for a in exact))


def _sequence(items: list[tuple[object, object]]) -> _Info:
    current: frozenset[str] | None = frozenset({""})
    found: list[frozenset[str]] = []
    exact_all = True
    prefix: frozenset[str] | None = None  # how every match starts, once the leading run ends
    leading = True
    for op, av in items:
        info = _node(op, av)
        found.extend(info.clauses)
        if info.exact is None:
            exact_all = False
            assert current is not None
            if leading:
                leading = False
                prefix = _joined(current, info.prefix)
                if prefix is not current:
                    _flush(prefix, found)  # the run before the node joined to how it starts
            _flush(current, found)
            current = frozenset({""})
            continue
        assert current is not None
        if len(current) * len(info.exact) <= _MAX_SET:
            current = frozenset(a + b for a in current for b in info.exact)
            if info.open_end:
                exact_all = False
                if leading:
                    leading, prefix = False, current
                _flush(current, found)
                current = frozenset({""})
                continue
            if max(map(len, current)) <= _MAX_ATOM * 2:
                continue
        # too many combinations: what was joined so far is one clause, the rest starts anew
        exact_all = False
        if leading:
            leading, prefix = False, current
        _flush(current, found)
        current = info.exact
        if info.open_end:  # only how the node starts: nothing after it may be joined to it
            _flush(current, found)
            current = frozenset({""})
    if exact_all:
        return _Info(current, tuple(found))
    if current is not None:
        _flush(current, found)
    if prefix is not None and (not prefix or "" in prefix):
        prefix = None
    return _Info(None, tuple(found), prefix=prefix)


def _joined(current: frozenset[str], start: frozenset[str] | None) -> frozenset[str]:
    """The strings `current` then one of `start` (how the next node starts), when few and
    `start` is known; else `current` itself."""
    if not start or "" in start or len(current) * len(start) > _MAX_SET:
        return current
    return frozenset(a + b for a in current for b in start)


def _starts(info: _Info) -> frozenset[str] | None:
    """How every match of a node starts, when known."""
    return info.exact if info.exact is not None else info.prefix


def _best(info: _Info) -> frozenset[str] | None:
    """The most selective clause of one alternative (its exact strings when known)."""
    if info.exact is not None:
        return info.exact if "" not in info.exact else None
    if not info.clauses:
        return None
    return max(info.clauses, key=lambda c: (min(map(len, c)), -len(c)))


def _node(op: object, av: object) -> _Info:
    if op is _c.LITERAL:
        if chr(av) in _SPACES:  # type: ignore[arg-type]
            return _EMPTY  # taken out of the squeezed text
        return _Info(frozenset({chr(av).lower()}), ())  # type: ignore[arg-type]
    if op is _c.AT:
        return _EMPTY
    if op is _c.CATEGORY:
        chars = _category(av)
        return _Info(chars, ()) if chars is not None else _ANY
    if op is _c.IN:
        chars = _class_chars(av)  # type: ignore[arg-type]
        return _Info(chars, ()) if chars is not None else _ANY
    if op in (_c.SUBPATTERN, getattr(_c, "ATOMIC_GROUP", None)):
        sub = av[-1] if isinstance(av, tuple) else av  # type: ignore[index]
        return _sequence(list(sub))  # type: ignore[arg-type]
    if op is _c.BRANCH:
        alternatives = [_sequence(list(p)) for p in av[1]]  # type: ignore[index]
        exacts = [a.exact for a in alternatives]
        if all(e is not None for e in exacts):
            union = frozenset().union(*exacts)  # type: ignore[arg-type]
            if len(union) <= _MAX_SET:
                return _Info(union, ())
        bests = [_best(a) for a in alternatives]
        clauses: tuple[frozenset[str], ...] = ()
        if all(b is not None for b in bests):
            clauses = (frozenset().union(*bests),)  # type: ignore[arg-type]
        starts = [_starts(a) for a in alternatives]
        if all(s and "" not in s for s in starts):
            # how each alternative starts: what comes before can still be joined to it
            union: frozenset[str] = frozenset().union(*starts)  # type: ignore[arg-type]
            for cut in (0, _MAX_ATOM, 8, 6, 4, 3):
                # (too many: each start's start, which is as necessary)
                cut_short = frozenset(s[:cut] for s in union) if cut else union
                if len(cut_short) <= _MAX_SET:
                    return _Info(cut_short, clauses, open_end=True)
        return _Info(None, clauses) if clauses else _ANY
    if op in (_c.MAX_REPEAT, _c.MIN_REPEAT, getattr(_c, "POSSESSIVE_REPEAT", None)):
        low, high, sub = av  # type: ignore[misc]
        info = _sequence(list(sub))
        if info.exact == _EMPTY.exact:
            return _EMPTY  # `\s*`, `\s+`: white space only, which squeezed text does not hold
        if low == 0:
            if high == 1 and info.exact is not None:
                # `x?`: x or nothing (or only how x starts, or nothing)
                return _Info(info.exact | {""}, (), open_end=info.open_end)
            return _ANY
        got = list(info.clauses)
        if info.exact is not None:
            if low == high == 1:
                return _Info(info.exact, info.clauses, open_end=info.open_end)
            # one repetition for certain, then more: a prefix the sequence may still join to
            return _Info(info.exact, info.clauses, open_end=True)
        return _Info(None, tuple(got), prefix=info.prefix)
    return _ANY


_SPACES = frozenset(" \t\n\r\f\v")


def _class_chars(items: list[tuple[object, object]]) -> frozenset[str] | None:
    """The characters of a small character class, lower case; None for a large one."""
    out: set[str] = set()
    for op, av in items:
        if op is _c.CATEGORY and av is _c.CATEGORY_SPACE:
            out.update(_SPACES)
        elif op is _c.LITERAL:
            out.add(chr(av).lower())  # type: ignore[arg-type]
        elif op is _c.RANGE and av[1] - av[0] < 26:  # type: ignore[index, operator]
            out.update(chr(c).lower() for c in range(av[0], av[1] + 1))  # type: ignore[index]
        else:
            return None  # a negation, a category or a wide range
    spaced = bool(out & _SPACES)
    out -= _SPACES  # a white space character is nothing in the squeezed text
    if len(out) > 26 or not (out or spaced):
        return None
    return frozenset(out) | ({""} if spaced else set())


def _category(av: object) -> frozenset[str] | None:
    return _EMPTY.exact if av is _c.CATEGORY_SPACE else None


def split_alternatives(pattern: str) -> list[str] | None:
    """The text of each top-level alternative of `pattern` (`(?i)a|b` gives `(?i)a`, `(?i)b`:
    flags that open the pattern go with every alternative), or None when the pattern does not
    read as such (a group around everything, an unbalanced bracket)."""
    flags = ""
    opening = _FLAG_GROUP.match(pattern)
    if opening:
        flags, pattern = opening.group(), pattern[opening.end() :]
    out: list[str] = []
    depth, start, i, in_class = 0, 0, 0, False
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\":
            i += 2
            continue
        if in_class:
            if ch == "]":
                in_class = False
        elif ch == "[":
            in_class = True
            if pattern[i + 1 : i + 2] == "^":
                i += 1
            if pattern[i + 1 : i + 2] == "]":
                i += 1  # a literal ']' first in a class
        elif ch == "(":
            if _FLAG_GROUP.match(pattern, i):
                return None  # flags set midway hold across a '|' in RE2: not split
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth < 0:
                return None
        elif ch == "|" and depth == 0:
            out.append(flags + pattern[start:i])
            start = i + 1
        i += 1
    if depth or in_class:
        return None
    out.append(flags + pattern[start:])
    return out
