"""Token counting: one small interface, a documented estimate and real BPE tokenizers, all offline.

Every token number Skill Prism shows carries the name of the counter that made it (`TokenCount`),
because the same text is 100 tokens by one counter and 137 by another.

Counters (names are stable; the GUI and the CLI show them verbatim):

- ``estimate chars/4`` (`EstimateCounter`): ``ceil(len(text) / 4)``. This is the rule Claude Code's
  skill-listing budget assumes (a character budget derived from the context window at 4 characters
  per token), so it is the right number to compare with *that* budget. It is not a tokenizer: on
  one-paragraph English descriptions it is about 25-35 % above o200k_base, on Markdown with code and
  tables around even or below (see docs/tokens.md). ``len`` counts code points; JavaScript
  runtimes count UTF-16 units, which differs only outside the Basic Multilingual Plane (emoji).
- ``o200k_base (toktok-rs)`` (default) and ``cl100k_base (toktok-rs)``: OpenAI's BPE encodings
  (o200k_base: GPT-4o / GPT-4.1 / GPT-5, what Codex runs on; cl100k_base: GPT-4), counted by the
  ``toktok-rs`` package, whose vocabularies are compiled into its extension module: nothing is read
  from disk or the network at run time. Counts are identical to tiktoken's.
- ``legacy Claude BPE (anthropic-tokenizer)``: only when the optional ``anthropic-tokenizer``
  package is installed. Its embedded vocabulary is the Claude 1/2-era one (65,000 tokens); current
  Claude models tokenize differently and Anthropic publishes no offline tokenizer for them, so this
  is for comparison only. The package also ships an ``ApiTokenizer`` that POSTs the text to
  api.anthropic.com whenever ``ANTHROPIC_API_KEY`` is set: Skill Prism never touches it and calls
  only the compiled local ``count_tokens`` function (checked to be a built-in before use).

The BPE packages are imported lazily (on the first `get_counter` / `available_counters` call), so
``import skillprism.core.tokens`` stays cheap. When a package is missing, `get_counter` returns the
estimate with a `note` saying which counter was asked for and why it is unavailable; the app keeps
working.

Cost (2-core machine, see docs/tokens.md): the first count with a toktok-rs encoding loads its
vocabulary (o200k_base about 0.5 s and ~65 MB, cl100k_base about 0.2 s and ~40 MB), so warm a
counter on a worker thread (`warm()`). After that, one ``count`` of a typical ~470-character
description costs about 2-3 us, a cache hit about 0.1 us; counting 5,000 fresh descriptions takes
about 5-10 ms. Counts are cached per counter keyed by the text itself (Python caches a string's
hash, so a hit costs one dict lookup; hashing the text with a digest would cost as much as counting
it). The cache is bounded and simply emptied when full. All counters are safe to call from several
threads.
"""

from __future__ import annotations

import importlib
import re
import threading
import types
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

ESTIMATE = "estimate chars/4"
O200K = "o200k_base (toktok-rs)"
CL100K = "cl100k_base (toktok-rs)"
CLAUDE_LEGACY = "legacy Claude BPE (anthropic-tokenizer)"

# Short names accepted by `get_counter` (CLI flags, settings files) besides the full names above.
ALIASES: dict[str, str] = {
    "estimate": ESTIMATE,
    "chars/4": ESTIMATE,
    "o200k_base": O200K,
    "o200k": O200K,
    "cl100k_base": CL100K,
    "cl100k": CL100K,
    "claude-legacy": CLAUDE_LEGACY,
    "anthropic-tokenizer": CLAUDE_LEGACY,
}

# Preference order: the first available one is the default.
KNOWN: tuple[str, ...] = (O200K, CL100K, CLAUDE_LEGACY, ESTIMATE)

# Cache bounds per counter: entries and total characters held (the keys are the texts themselves).
CACHE_MAX_ENTRIES = 50_000
CACHE_MAX_CHARS = 32_000_000
# Texts shorter than this are counted directly: the lookup would cost about as much as the count.
_CACHE_MIN_CHARS = 16

_SURROGATE = re.compile("[\ud800-\udfff]")


@runtime_checkable
class TokenCounter(Protocol):
    """Anything that counts tokens. `name` is shown next to every number the counter produces."""

    name: str

    def count(self, text: str) -> int:
        """Number of tokens in `text` (0 for the empty string)."""
        ...


@dataclass(frozen=True, slots=True)
class TokenCount:
    """A token number together with the counter that made it; `str()` is the display form."""

    tokens: int
    counter: str
    exact: bool

    def __str__(self) -> str:
        approx = "" if self.exact else "~"
        unit = "token" if self.tokens == 1 else "tokens"
        return f"{approx}{self.tokens:,} {unit} ({self.counter})"


def _sanitize(text: str) -> str:
    # Lone surrogates (undecodable bytes read with surrogateescape) cannot be encoded as UTF-8, which
    # the tokenizers need. A runtime decoding the same bytes would see U+FFFD, so count that.
    return _SURROGATE.sub("\ufffd", text)


class _CountCache:
    """Bounded text -> count memo. Emptied when full: cheaper than LRU bookkeeping on every hit."""

    __slots__ = ("_chars", "_data", "_lock")

    def __init__(self) -> None:
        self._data: dict[str, int] = {}
        self._chars = 0
        self._lock = threading.Lock()

    def get(self, text: str) -> int | None:
        return self._data.get(text)

    def put(self, text: str, n: int) -> None:
        with self._lock:
            if len(self._data) >= CACHE_MAX_ENTRIES or self._chars + len(text) > CACHE_MAX_CHARS:
                self._data.clear()
                self._chars = 0
            if len(text) <= CACHE_MAX_CHARS and text not in self._data:
                self._data[text] = n
                self._chars += len(text)

    def clear(self) -> None:
        with self._lock:
            self._data.clear()
            self._chars = 0

    def __len__(self) -> int:
        return len(self._data)


class EstimateCounter:
    """``ceil(len(text) / 4)``: the estimate Claude Code's listing budget assumes. Not a tokenizer.

    `note` is empty when the estimate was asked for, and says why otherwise (a BPE counter was asked
    for but its package is missing).
    """

    name = ESTIMATE
    exact = False

    def __init__(self, note: str = "") -> None:
        self.note = note

    def count(self, text: str) -> int:
        return -(-len(text) // 4)

    def count_many(self, texts: Iterable[str]) -> list[int]:
        return [-(-len(t) // 4) for t in texts]

    def __repr__(self) -> str:
        return f"EstimateCounter(note={self.note!r})"


class _CachedCounter:
    """Shared caching and batching for the exact counters; subclasses set `_one` and `_batch`."""

    name: str
    exact = True
    note: str

    def __init__(self) -> None:
        self._cache = _CountCache()
        self._one_fn: Callable[[str], int] | None = None
        self._init_lock = threading.Lock()

    # Subclasses: count one text / many texts, uncached; may raise UnicodeEncodeError.
    def _resolve_one(self) -> Callable[[str], int]:
        raise NotImplementedError

    def _batch(self, texts: list[str]) -> list[int]:
        one = self._one()
        return [one(t) for t in texts]

    def _one(self) -> Callable[[str], int]:
        fn = self._one_fn
        if fn is None:
            with self._init_lock:
                if self._one_fn is None:
                    self._one_fn = self._resolve_one()
                fn = self._one_fn
        return fn

    def _raw(self, text: str) -> int:
        try:
            return self._one()(text)
        except UnicodeEncodeError:
            return self._one()(_sanitize(text))

    def count(self, text: str) -> int:
        if len(text) < _CACHE_MIN_CHARS:
            return self._raw(text) if text else 0
        n = self._cache.get(text)
        if n is None:
            n = self._raw(text)
            self._cache.put(text, n)
        return n

    def count_many(self, texts: Iterable[str]) -> list[int]:
        """Counts for `texts`, in order; cache misses are counted in one batch call."""
        texts = list(texts)
        out: list[int | None] = [self._cache.get(t) for t in texts]
        miss = [i for i, n in enumerate(out) if n is None]
        if miss:
            todo = [texts[i] for i in miss]
            try:
                counted = self._batch(todo)
            except UnicodeEncodeError:
                counted = self._batch([_sanitize(t) for t in todo])
            for i, n in zip(miss, counted, strict=True):
                out[i] = n
                if len(texts[i]) >= _CACHE_MIN_CHARS:
                    self._cache.put(texts[i], n)
        return [n for n in out if n is not None]

    def warm(self) -> None:
        """Load the vocabulary now (it otherwise loads on the first count); call from a worker."""
        self._one()

    def clear_cache(self) -> None:
        self._cache.clear()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"


class ToktokCounter(_CachedCounter):
    """An OpenAI BPE encoding counted by toktok-rs (vocabularies compiled in; no files, no network).

    Raises ImportError when toktok-rs is not installed, KeyError for an encoding it does not have.
    """

    def __init__(self, encoding: str) -> None:
        super().__init__()
        self._toktok: Any = _import("toktok")
        self.encoding = encoding
        self.name = f"{encoding} (toktok-rs)"
        version = getattr(self._toktok, "__version__", "?")
        self.note = f"exact {encoding} BPE, toktok-rs {version}, vocabulary compiled in"

    def _resolve_one(self) -> Callable[[str], int]:
        tk = self._toktok
        probe = (
            "Skill <|endoftext|> prism\n"  # special-token text counted as text, like batch_count
        )
        expected = tk.batch_count([probe], self.encoding, threads=1)[0]
        # batch_count([text]) costs ~35 us per call (batch set-up); the encoding object behind it,
        # which toktok's README points to for the full tokenizer, counts one text in ~2 us. Use it
        # only if it exists and agrees with the public API, so a toktok change cannot skew counts.
        get = getattr(tk, "_encoding", None)
        if callable(get):
            try:
                fn = get(self.encoding).count
                if fn(probe) == expected:
                    return fn
            except Exception:
                pass
        enc = self.encoding
        return lambda text: tk.batch_count([text], enc, threads=1)[0]

    def _batch(self, texts: list[str]) -> list[int]:
        # threads=1: on small machines the pool costs more than it saves for descriptions, and the
        # GUI should not take every core from the user's editor.
        return list(self._toktok.batch_count(texts, self.encoding, threads=1))


class ClaudeLegacyCounter(_CachedCounter):
    """The Claude 1/2-era BPE embedded in anthropic-tokenizer, local counting only.

    Never uses the package's ApiTokenizer (which sends the text to api.anthropic.com when
    ANTHROPIC_API_KEY is set): only the compiled ``count_tokens`` built-in is called.
    """

    name = CLAUDE_LEGACY

    def __init__(self) -> None:
        super().__init__()
        native = _import("anthropic_tokenizer.anthropic_tokenizer")
        fn = getattr(native, "count_tokens", None)
        # A Python-level function here could be a wrapper with an API path: refuse it.
        if fn is None or not isinstance(fn, types.BuiltinFunctionType):
            raise ImportError("anthropic-tokenizer: compiled local count_tokens not found")
        self._local: Callable[[str], int] = fn
        self.note = (
            "Claude 1/2-era vocabulary (65,000 tokens), local only; current Claude models "
            "tokenize differently: for comparison, not an exact Claude count"
        )

    def _resolve_one(self) -> Callable[[str], int]:
        return self._local


def _import(module: str) -> Any:
    """Import hook kept in one place so tests can simulate a missing package."""
    return importlib.import_module(module)


_FACTORIES: dict[str, Callable[[], TokenCounter]] = {
    O200K: lambda: ToktokCounter("o200k_base"),
    CL100K: lambda: ToktokCounter("cl100k_base"),
    CLAUDE_LEGACY: ClaudeLegacyCounter,
    ESTIMATE: EstimateCounter,
}
_PACKAGES = {O200K: "toktok-rs", CL100K: "toktok-rs", CLAUDE_LEGACY: "anthropic-tokenizer"}

_instances: dict[str, TokenCounter] = {}
_failures: dict[str, str] = {}
_lock = threading.Lock()


def canonical_name(name: str) -> str:
    """The full counter name for `name` or an alias; KeyError listing the known names otherwise."""
    if name in _FACTORIES:
        return name
    key = name.strip().lower()
    if key in ALIASES:
        return ALIASES[key]
    for full in _FACTORIES:
        if full.lower() == key:
            return full
    known = ", ".join([*KNOWN, *ALIASES])
    raise KeyError(f"unknown token counter {name!r}; known: {known}")


def _load(name: str) -> TokenCounter | None:
    with _lock:
        if name in _instances:
            return _instances[name]
        if name in _failures:
            return None
        try:
            counter = _FACTORIES[name]()
        except (ImportError, OSError, KeyError, AttributeError) as exc:
            pkg = _PACKAGES.get(name, "?")
            why = "is not installed" if isinstance(exc, ModuleNotFoundError) else f"failed: {exc}"
            _failures[name] = f"{pkg} {why}"
            return None
        _instances[name] = counter
        return counter


def get_counter(name: str) -> TokenCounter:
    """The counter called `name` (or an alias). If its package is unavailable, the estimate, whose
    `note` says what was asked for and why it is not used. KeyError for an unknown name."""
    full = canonical_name(name)
    counter = _load(full)
    if counter is not None:
        return counter
    return EstimateCounter(note=f"{full} unavailable ({_failures[full]}); using {ESTIMATE}")


def available_counters() -> list[str]:
    """Names of the counters that work here, best first (the estimate is always last)."""
    return [name for name in KNOWN if _load(name) is not None]


def unavailable_counters() -> dict[str, str]:
    """Known counters that do not work here -> why (for a disabled menu entry or `--help`)."""
    available_counters()
    return {name: _failures[name] for name in KNOWN if name in _failures}


def default_counter() -> TokenCounter:
    """o200k_base (toktok-rs) when installed, else the estimate with a note saying why."""
    return get_counter(O200K)


def count_many(counter: TokenCounter, texts: Iterable[str]) -> list[int]:
    """Counts for many texts: batched when the counter supports it, else one by one."""
    many = getattr(counter, "count_many", None)
    if callable(many):
        return list(many(texts))
    return [counter.count(t) for t in texts]


def measure(counter: TokenCounter, text: str) -> TokenCount:
    """`text`'s token count labelled with the counter that made it."""
    return TokenCount(counter.count(text), counter.name, bool(getattr(counter, "exact", True)))


def estimate_tokens(text: str) -> int:
    """``ceil(len(text) / 4)`` without a counter object (what Claude Code's budget assumes)."""
    return -(-len(text) // 4)


def reset() -> None:
    """Forget loaded counters, failures and caches (tests; or after installing a package)."""
    with _lock:
        for counter in _instances.values():
            clear = getattr(counter, "clear_cache", None)
            if callable(clear):
                clear()
        _instances.clear()
        _failures.clear()


__all__ = [
    "CL100K",
    "CLAUDE_LEGACY",
    "ESTIMATE",
    "O200K",
    "ClaudeLegacyCounter",
    "EstimateCounter",
    "TokenCount",
    "TokenCounter",
    "ToktokCounter",
    "available_counters",
    "canonical_name",
    "count_many",
    "default_counter",
    "estimate_tokens",
    "get_counter",
    "measure",
    "reset",
    "unavailable_counters",
]
