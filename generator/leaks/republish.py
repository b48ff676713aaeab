"""Public items that copy a held-out item: what the ignore set must not hide.

The leak scan ignores public texts, so a public item that repeats a held-out item's text
would carry it everywhere unreported; the holdout gate refuses such an item. Real banks
share text between items without copying any one of them: a jailbreak template around
different requests, one criterion sentence with a different request at its end. Text
that at least two public items hold is public anyway, so it is taken out before the
comparison: every run of ``config.min_tokens`` tokens that two public items share is
masked in both (its tokens match nothing), and what is reported is a run of
``config.window`` tokens of a held-out text, or the whole of a shorter one, that a public
item holds outside the text it shares with other public items. Linear in the items'
length: one pass to count the shared runs (exact token tuples), one to compare.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import numpy.typing as npt

from generator.leaks.index import UNKNOWN, LeakIndex
from generator.leaks.model import Leak, LeakConfig, Secret
from generator.leaks.normalise import tokens
from generator.leaks.stream import Runs


def copied(
    held: Iterable[Secret], public: Sequence[str], config: LeakConfig | None = None
) -> list[list[Leak]]:
    """For each public item (its text), the held-out texts it copies.

    Args:
        held: The held-out items' texts.
        public: Per public item, its text (prompt and criterion).
        config: Thresholds; ``LeakConfig()`` by default.

    Returns:
        Per public item, in order, its leaks (source ``public item``, line 1).
    """
    config = config or LeakConfig()
    index = LeakIndex.build(held, config=config)
    words = [tokens(text) for text in public]
    shared = _shared(words, config.min_tokens)
    found: list[list[Leak]] = []
    for item in words:
        ids = np.where(_masked(item, shared, config.min_tokens), UNKNOWN, index.ids(item))
        runs = Runs(index)
        for table_no, positions, postings in index.hits(ids, 0):
            ones = np.ones(len(positions), dtype=np.int64)
            runs.add(index.tables[table_no], positions, postings, ones, ones)
        found.append(runs.leaks("public item", paged=False))
    return found


def _shared(words: list[list[str]], width: int) -> set[tuple[str, ...]]:
    """The runs of ``width`` tokens that at least two of the items hold."""
    first: dict[tuple[str, ...], int] = {}
    shared: set[tuple[str, ...]] = set()
    for number, item in enumerate(words):
        for start in range(len(item) - width + 1):
            run = tuple(item[start : start + width])
            if first.setdefault(run, number) != number:
                shared.add(run)
    return shared


def _masked(item: list[str], shared: set[tuple[str, ...]], width: int) -> npt.NDArray[np.bool_]:
    """Which tokens of the item lie in a run it shares with another item."""
    edges = np.zeros(len(item) + 1, dtype=np.int64)
    for start in range(len(item) - width + 1):
        if tuple(item[start : start + width]) in shared:
            edges[start] += 1
            edges[start + width] -= 1
    masked: npt.NDArray[np.bool_] = np.cumsum(edges[:-1]) > 0
    return masked
