"""The leak index: every secret's token windows, built once, matched against many files.

Building is linear in the secrets' total length: each distinct secret is tokenised once
(see ``normalise``), long secrets contribute every window of ``config.window`` tokens,
and secrets shorter than the window but at least ``config.min_tokens`` long contribute
one window holding all of them (so they match whole). Scanning hashes every window of
a document once per distinct width, which is linear in its bytes; see ``shingles``.

**Ignore set.** Text that is public anyway is not a leak. ``build(..., ignore=texts)``
scans the given public texts (public prompts, pass criteria, public responses,
templates) with the fresh index and drops every window they contain. What remains to be
reported is a run of at least ``window`` consecutive tokens of a secret that is not
itself in the public texts, or a whole short secret that is not.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from itertools import repeat
from pathlib import Path

import numpy as np

from generator.leaks.model import Leak, LeakConfig, Secret
from generator.leaks.normalise import LINE, PAGE, normalise, tokenize, tokens
from generator.leaks.shingles import I64, Powers, Table, mix, prefix_sums, window_hashes

UNKNOWN, LINE_ID, PAGE_ID = 0, 1, 2
"""Token ids below 3 are reserved: a token no secret has, and the two markers."""


class LeakIndex:
    """The windows of a set of secrets, ready to scan documents for leaks.

    Build with ``LeakIndex.build``; the constructor takes prepared arrays.
    """

    def __init__(
        self,
        config: LeakConfig,
        vocab: dict[str, int],
        token_ids: I64,
        starts: I64,
        owners: tuple[tuple[tuple[str, str], ...], ...],
        tables: tuple[Table, ...],
        unscannable: tuple[str, ...],
    ) -> None:
        self.config = config
        self.unscannable = unscannable
        """Keys of secrets too short to scan (fewer than ``config.min_tokens`` tokens)."""
        self.owners = owners
        """Per distinct secret, the ``(key, kind)`` of every secret with that text."""
        self.tables = tables
        self._vocab = vocab
        self._tokens = token_ids
        self._starts = starts
        widths = np.zeros(len(vocab), dtype=np.int64)
        for word, word_id in vocab.items():
            widths[word_id] = len(word) + 1 if word_id > PAGE_ID else 0
        self._chars = np.concatenate([[0], np.cumsum(widths[token_ids])]).astype(np.int64)
        self._powers = Powers()
        self.max_width = max((t.width for t in tables), default=1)

    @classmethod
    def build(
        cls,
        secrets: Iterable[Secret],
        *,
        config: LeakConfig | None = None,
        ignore: Iterable[str] = (),
    ) -> LeakIndex:
        """Index secrets; secrets with the same normalised text share one entry.

        Args:
            secrets: The held-out texts.
            config: Thresholds; ``LeakConfig()`` by default.
            ignore: Public texts whose windows are never reported (see module docs).

        Returns:
            The index.
        """
        config = config or LeakConfig()
        distinct: dict[tuple[str, ...], list[tuple[str, str]]] = {}
        unscannable: list[str] = []
        for secret in secrets:
            words = tuple(tokens(secret.text))
            if len(words) < config.min_tokens:
                unscannable.append(secret.key)
            else:
                distinct.setdefault(words, []).append((secret.key, secret.kind))
        vocab = {"\x00unknown": UNKNOWN, LINE: LINE_ID, PAGE: PAGE_ID}
        for words in distinct:
            for word in words:
                vocab.setdefault(word, len(vocab))
        lengths = np.array([len(w) for w in distinct], dtype=np.int64)
        starts = np.cumsum(lengths) - lengths
        flat = (vocab[word] for words in distinct for word in words)
        token_ids = np.fromiter(flat, dtype=np.int64, count=int(lengths.sum()))
        tables = _tables(token_ids, starts, lengths, config.window)
        owners = tuple(tuple(keys) for keys in distinct.values())
        index = cls(config, vocab, token_ids, starts, owners, tables, tuple(unscannable))
        return index.without(ignore)

    def without(self, public: Iterable[str]) -> LeakIndex:
        """This index minus every window that occurs in one of the ``public`` texts."""
        drop = [np.zeros(len(table.hashes), dtype=np.bool_) for table in self.tables]
        for text in public:
            ids = self.ids(tokenize(normalise(text)))
            for _, table_no, posting in self.hits(ids, 0):
                drop[table_no][posting] = True
        if not any(mask.any() for mask in drop):
            return self
        tables = tuple(t.keep(~mask) for t, mask in zip(self.tables, drop, strict=True))
        return LeakIndex(
            self.config,
            self._vocab,
            self._tokens,
            self._starts,
            self.owners,
            tables,
            self.unscannable,
        )

    def ids(self, words: list[str]) -> I64:
        """Token ids of ``words``; ``UNKNOWN`` for a word no secret has."""
        get = self._vocab.get
        return np.fromiter(map(get, words, repeat(UNKNOWN)), dtype=np.int64, count=len(words))

    def hits(self, ids: I64, first_new: int) -> Iterator[tuple[int, int, int]]:
        """Every verified window match in ``ids``, as ``(position, table_no, posting)``.

        Windows that end before ``first_new`` are skipped: they were seen in the
        previous chunk.
        """
        prefix = prefix_sums(mix(ids), self._powers)
        for table_no, table in enumerate(self.tables):
            width = table.width
            first = max(0, first_new - width + 1)
            if len(ids) - width < first or not len(table.hashes):
                continue
            starts = np.arange(first, len(ids) - width + 1, dtype=np.int64)
            where, lo, hi = table.lookup(window_hashes(prefix, self._powers, width, starts))
            for at, low, high in zip(where.tolist(), lo.tolist(), hi.tolist(), strict=True):
                position = first + at
                window = ids[position : position + width]
                for posting in range(low, high):
                    begin = int(self._starts[table.secrets[posting]] + table.offsets[posting])
                    if np.array_equal(self._tokens[begin : begin + width], window):
                        yield position, table_no, posting

    def posting(self, table_no: int, posting: int) -> tuple[int, int, int]:
        """``(secret, offset, width)`` of one indexed window."""
        table = self.tables[table_no]
        return int(table.secrets[posting]), int(table.offsets[posting]), table.width

    def length(self, secret: int) -> int:
        """Number of tokens of a distinct secret."""
        end = self._starts[secret + 1] if secret + 1 < len(self._starts) else len(self._tokens)
        return int(end - self._starts[secret])

    def match_chars(self, secret: int, offset: int, count: int) -> int:
        """Normalised length in characters of ``count`` tokens of a secret."""
        begin = int(self._starts[secret]) + offset
        return int(self._chars[begin + count] - self._chars[begin]) - 1

    def scan_text(
        self, text: str, source: str = "<text>", *, markup: bool | None = None
    ) -> list[Leak]:
        """Leaks of any secret in ``text``.

        Args:
            text: The document.
            source: Its name in findings; its suffix decides markup handling.
            markup: Force (or refuse) HTML/XML handling regardless of ``source``.

        Returns:
            The leaks, in report order.
        """
        from generator.leaks.scan import scan_string

        return scan_string(self, text, source, markup=markup)

    def scan_file(self, path: Path | str) -> list[Leak]:
        """Leaks of any secret in one file (format by extension; see ``extract``)."""
        from generator.leaks.scan import scan_file

        return scan_file(self, Path(path))


def _tables(token_ids: I64, starts: I64, lengths: I64, window: int) -> tuple[Table, ...]:
    """One table of ``window``-token windows, one per shorter secret length."""
    powers = Powers()
    prefix = prefix_sums(mix(token_ids), powers)
    tables = []
    long_ = np.flatnonzero(lengths >= window)
    counts = lengths[long_] - window + 1
    secrets = np.repeat(long_, counts)
    offsets = np.arange(int(counts.sum()), dtype=np.int64) - np.repeat(
        np.cumsum(counts) - counts, counts
    )
    at = starts[secrets] + offsets
    tables.append(Table.build(window, window_hashes(prefix, powers, window, at), secrets, offsets))
    for width in sorted(set(lengths[lengths < window].tolist())):
        short = np.flatnonzero(lengths == width)
        hashes = window_hashes(prefix, powers, width, starts[short])
        tables.append(Table.build(width, hashes, short, np.zeros(len(short), dtype=np.int64)))
    return tuple(tables)
