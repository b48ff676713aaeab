"""Properties over random secrets and documents: no misses above the threshold, no noise."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from generator.leaks import LeakConfig, LeakIndex, Secret, scan_text, tokens

CONFIG = LeakConfig()
ALPHABET = "abcdefghijklmnopqrstuvwxyzéøßσжλ0123456789"
SEPARATORS = [" ", "  ", "\n", ", ", ". ", " - ", "\u00a0", "\t", "; "]

word = st.text(alphabet=ALPHABET, min_size=1, max_size=9)


def _shuffle_case(text: str, rng: random.Random) -> str:
    """Randomly upper-case some words (casefolding must undo it)."""
    return " ".join(w.upper() if rng.random() < 0.3 else w for w in text.split(" "))


@settings(max_examples=150, deadline=None)
@given(
    secret_words=st.lists(word, min_size=CONFIG.window, max_size=60),
    noise=st.lists(word, max_size=40),
    data=st.data(),
)
def test_any_substring_at_least_the_threshold_is_found(
    secret_words: list[str], noise: list[str], data: st.DataObject
) -> None:
    secret = " ".join(secret_words)
    index = LeakIndex.build([Secret("item:h-1", "prompt", secret)])
    start = data.draw(st.integers(0, len(secret) - 1))
    end = data.draw(st.integers(start + 1, len(secret)))
    piece = secret[start:end]
    # Only the words wholly inside the slice are bound to match.
    first = 0 if start == 0 or secret[start - 1] == " " else 1
    last = 0 if end == len(secret) or secret[end] == " " else 1
    complete = len(piece.split(" ")) - first - last
    rng = random.Random(data.draw(st.integers(0, 2**32)))
    sep = rng.choice(SEPARATORS)
    doc = sep.join(noise[: len(noise) // 2]) + " | " + _shuffle_case(piece, rng) + " | "
    doc += sep.join(noise[len(noise) // 2 :])
    leaks = scan_text(index, doc, "doc.txt")
    if complete >= CONFIG.window:
        assert any(leak.secret_key == "item:h-1" and leak.tokens >= complete for leak in leaks)
    if leaks:
        assert max(leak.tokens for leak in leaks) >= CONFIG.window


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_random_text_does_not_leak_random_secrets(seed: int) -> None:
    rng = random.Random(seed)
    vocab = ["".join(rng.choices(ALPHABET, k=rng.randint(1, 8))) for _ in range(3000)]
    secrets = [
        Secret(f"draw:v/m/h-{n}/A/1", "response", " ".join(rng.choices(vocab, k=size)))
        for n, size in enumerate([5, 6, 8, 11, 12, 40, 200])
    ]
    index = LeakIndex.build(secrets)
    doc = " ".join(rng.choices(vocab, k=4000))
    assert scan_text(index, doc, "doc.txt") == []


@settings(max_examples=60, deadline=None)
@given(
    secret=st.lists(st.sampled_from("中文字测试没有空格的句子研究员"), min_size=12, max_size=40),
    cut=st.data(),
)
def test_cjk_substrings_of_threshold_length_are_found(
    secret: list[str], cut: st.DataObject
) -> None:
    text = "".join(secret)
    index = LeakIndex.build([Secret("item:h-zh", "prompt", text)])
    start = cut.draw(st.integers(0, len(text) - CONFIG.window))
    end = cut.draw(st.integers(start + CONFIG.window, len(text)))
    leaks = scan_text(index, "前言：" + text[start:end] + "。结束", "zh.md")
    assert any(leak.tokens >= end - start for leak in leaks)
    assert len(tokens(text[start:end])) == end - start
