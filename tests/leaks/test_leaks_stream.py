"""Chunked scanning: matches across chunk boundaries, bounded carry, split-invariance."""

from __future__ import annotations

import itertools
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from generator.leaks import Leak, LeakConfig, LeakIndex, Secret, scan_file, scan_text
from generator.leaks.stream import DocumentScan
from tests.leaks.leak_samples import CHINESE, PROMPT, RESPONSE, SHORT

SMALL = LeakConfig(chunk_chars=1024)
FILLER = "".join(
    f"Line {n} of the public methodology notes talks about intervals and seeds.\n"
    for n in range(200)
)


@pytest.fixture(scope="module")
def small(secrets: list[Secret]) -> LeakIndex:
    """The shared secrets with 1 KiB chunks, so boundaries are everywhere."""
    return LeakIndex.build(secrets, config=SMALL)


def _found(leaks: list[Leak]) -> list[tuple[str, int | None, bool]]:
    """What matters about findings for these tests."""
    return [(leak.secret_key, leak.line, leak.whole) for leak in leaks]


@pytest.mark.parametrize("offset", range(600, 2200, 37))
def test_secret_straddling_a_chunk_boundary_is_found(small: LeakIndex, offset: int) -> None:
    start = FILLER.rfind("\n", 0, offset) + 1
    line = FILLER.count("\n", 0, start) + 1
    doc = FILLER[:start] + PROMPT.replace("pas", "pas-\n", 1) + "\n" + FILLER[start:]
    assert _found(scan_text(small, doc, "notes.md")) == [("item:h-0003", line, True)]


@pytest.mark.parametrize("offset", range(900, 1300, 41))
def test_markup_split_by_tags_across_a_boundary(small: LeakIndex, offset: int) -> None:
    marked = "<td>" + RESPONSE.replace(" ", ' <span class="w">\n', 12).replace("'", "&#39;")
    doc = "<p>" + "x " * (offset // 2) + "</p>\n" + marked + "</span>" * 12 + "</td>" + FILLER
    found = _found(scan_text(small, doc, "leaderboard.html"))
    assert found == [("draw:vol-001/acme-m1/h-0003/A/2", 2, True)]


def test_large_file_with_default_chunks(tmp_path: Path, index: LeakIndex) -> None:
    boundary = index.config.chunk_chars
    body = FILLER * (3 * boundary // len(FILLER))
    start = body.rfind("\n", 0, boundary - len(RESPONSE) // 2) + 1
    line = body.count("\n", 0, start) + 1
    path = tmp_path / "big.jsonl"
    path.write_text(body[:start] + RESPONSE + "\n" + body[start:], encoding="utf-8")
    assert start < boundary < start + len(RESPONSE)
    leaks = scan_file(index, path)
    assert _found(leaks) == [("draw:vol-001/acme-m1/h-0003/A/2", line, True)]


def test_a_line_without_whitespace_does_not_stop_the_scan(small: LeakIndex) -> None:
    doc = "x" * 10_000 + "\n" + SHORT + "\n" + "y" * 5000 + " " + CHINESE
    assert _found(scan_text(small, doc, "blob.txt")) == [
        ("item:h-0009", 2, True),
        ("item:h-0007", 3, True),
    ]


@settings(max_examples=40, deadline=None)
@given(cuts=st.lists(st.integers(0, 4000), max_size=12))
def test_results_do_not_depend_on_how_the_text_is_split(small: LeakIndex, cuts: list[int]) -> None:
    doc = FILLER[:1500] + RESPONSE + " filler " + SHORT + FILLER[:800] + PROMPT[:200]
    points = sorted({0, len(doc), *(c % len(doc) for c in cuts)})
    scan = DocumentScan(small, "doc.txt", "text")
    for begin, end in itertools.pairwise(points):
        scan.feed(doc[begin:end])
    assert scan.finish() == scan_text(small, doc, "doc.txt")


def test_cut_never_separates_a_line_end_hyphen_from_its_word(small: LeakIndex) -> None:
    broken = PROMPT.replace("passengers;", "pas-\nsengers;")
    head, tail = broken.split("sengers;")
    first = FILLER[:1100] + head
    assert first.endswith("pas-\n") and len(first) > small.config.chunk_chars
    scan = DocumentScan(small, "doc.txt", "text")
    scan.feed(first)
    scan.feed("sengers;" + tail)
    assert _found(scan.finish()) == [("item:h-0003", FILLER[:1100].count("\n") + 1, True)]


def test_a_very_long_leak_is_one_finding_across_chunks_and_batches() -> None:
    rng = random.Random(7)
    vocab = ["".join(rng.choices("abcdefghijklmnop", k=rng.randint(2, 8))) for _ in range(5000)]
    secret = " ".join(rng.choices(vocab, k=40_000))
    index = LeakIndex.build([Secret("draw:long", "response", secret)], config=SMALL)
    leaks = scan_text(index, "start\n" + secret.replace(" ", "\n", 100), "long.txt")
    assert [(leak.line, leak.tokens, leak.whole) for leak in leaks] == [(2, 40_000, True)]
