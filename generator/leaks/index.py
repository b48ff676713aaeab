"""The leak index: every secret's token windows, built once, matched against many files.

Building is linear in the secrets' total length: each distinct secret is tokenised once
(see ``normalise``), long secrets contribute every window of ``config.window`` tokens,
and secrets shorter than the window but at least ``config.min_tokens`` long contribute
one window holding all of them (so they match whole). Scanning hashes every window of
a document once per distinct width, which is linear in its bytes; see ``shingles``.

**Ignore set.** Text that is public anyway is not a leak. ``build(..., ignore=texts)``
scans the given public texts (public prompts, pass criteria, public responses,
templates) with the fresh index and drops every window they contain (public responses
only from held-out responses' windows, see ``PublicTexts``). What remains to be
reported is a run of at least ``window`` consecutive tokens of a secret that is not
itself in the public texts, or a whole short secret that is not.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator
from itertools import repeat

import numpy as np
import numpy.typing as npt

from generator.leaks.codes import TokenCodes
from generator.leaks.model import LeakConfig, Secret, SecretKind
from generator.leaks.normalise import LINE, PAGE, normalise, tokens
from generator.leaks.public import PublicTexts
from generator.leaks.shingles import (
    I32,
    I64,
    Columns,
    Powers,
    Table,
    mix,
    prefix_sums,
    window_hashes,
)

UNKNOWN, LINE_ID, PAGE_ID = 0, 1, 2
"""Token ids below 3 are reserved: a token no secret has, and the two markers."""
_BATCH = 1 << 14
"""Window matches verified at once (bounds the ``batch x width`` comparison array)."""
_SPAN = 1 << 20
"""Secret tokens hashed at once while building (bounds the temporary arrays)."""
_BETWEEN = f"{LINE}{PAGE}{LINE}"
"""Joins public texts tokenised together (see ``LeakIndex.batches``)."""


class LeakIndex:
    """The windows of a set of secrets, ready to scan documents for leaks.

    Build with ``LeakIndex.build``; the constructor takes prepared arrays.
    """

    def __init__(
        self,
        config: LeakConfig,
        vocab: dict[str, int],
        token_ids: I32,
        starts: I64,
        owners: tuple[tuple[tuple[str, SecretKind], ...], ...],
        tables: tuple[Table, ...],
        unscannable: tuple[str, ...],
        codes: TokenCodes | None = None,
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
        self._codes = codes

    @classmethod
    def build(
        cls,
        secrets: Iterable[Secret],
        *,
        config: LeakConfig | None = None,
        ignore: Iterable[str] | PublicTexts = (),
    ) -> LeakIndex:
        """Index secrets; secrets with the same normalised text share one entry.

        Args:
            secrets: The held-out texts.
            config: Thresholds; ``LeakConfig()`` by default.
            ignore: Public texts whose windows are never reported (see module docs);
                of a ``PublicTexts``, the rows' texts only for held-out responses.

        Returns:
            The index.
        """
        config = config or LeakConfig()
        vocab = {"\x00unknown": UNKNOWN, LINE: LINE_ID, PAGE: PAGE_ID}
        distinct: dict[bytes, list[tuple[str, SecretKind]]] = {}
        unscannable: list[str] = []
        for secret in secrets:
            words = tokens(secret.text)
            if len(words) < config.min_tokens:
                unscannable.append(secret.key)
                continue
            ids = np.fromiter((vocab.setdefault(w, len(vocab)) for w in words), np.int32)
            distinct.setdefault(ids.tobytes(), []).append((secret.key, secret.kind))
        token_ids = np.frombuffer(b"".join(distinct), dtype=np.int32).copy()
        lengths = np.array([len(ids) // 4 for ids in distinct], dtype=np.int64)
        starts = np.cumsum(lengths) - lengths
        tables = _tables(token_ids, starts, lengths, config.window)
        owners = tuple(tuple(keys) for keys in distinct.values())
        index = cls(config, vocab, token_ids, starts, owners, tables, tuple(unscannable))
        if isinstance(ignore, PublicTexts):
            return index.without(ignore.texts).without(ignore.records(), only="response")
        return index.without(ignore)

    def without(self, public: Iterable[str], only: SecretKind | None = None) -> LeakIndex:
        """This index minus every window that occurs in one of the ``public`` texts (with
        ``only``, windows of secrets that are all of that kind).

        Linear in the public texts' length, read as a stream: they are tokenised and
        matched in batches of about ``_SPAN`` characters, texts joined by an ``UNKNOWN``
        token (no window spans two texts), so many short texts (responses) cost one
        tokenisation and one lookup per batch rather than one per text.
        """
        drop = [np.zeros(len(table.hashes), dtype=np.bool_) for table in self.tables]
        for ids in self.batches(public):
            for table_no, _, postings in self.hits(ids, 0):
                drop[table_no][postings] = True
        if only is not None:
            kinds = np.array([all(k == only for _, k in keys) for keys in self.owners], bool)
            drop = [mask & kinds[t.secrets] for t, mask in zip(self.tables, drop, strict=True)]
        return self._dropped(drop)

    def _dropped(self, drop: list[npt.NDArray[np.bool_]]) -> LeakIndex:
        """This index without the windows ``drop`` marks (one mask per table)."""
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
            self._codes,
        )

    def batches(self, texts: Iterable[str]) -> Iterator[I64]:
        """Token ids of ``texts``, about ``_SPAN`` characters of them at a time.

        A batch is normalised and tokenised in one call, its texts joined by a line
        holding only a page break (normalisation acts within lines, and a hyphen rule
        joins a line to the next line's first word, which a page-break line has none
        of); the page breaks then become ``UNKNOWN``, so no window spans two texts (or
        two pages of one text). Line breaks are removed, as the scan removes them. A
        text seen before is skipped (memory: 16 bytes a distinct text, and one batch).
        """
        if not self.tables:
            return  # nothing to drop: the texts are not even read
        batch: list[str] = []
        size = 0
        seen: set[bytes] = set()  # repeated texts (boilerplate) are read once
        for text in texts:
            digest = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16)
            if digest.digest() in seen:
                continue
            seen.add(digest.digest())
            batch.append(text)
            size += len(text) + len(_BETWEEN)
            if size >= _SPAN:
                yield self._joined(batch)
                batch, size = [], 0
        if batch:
            yield self._joined(batch)

    def _joined(self, texts: list[str]) -> I64:
        """Token ids of texts joined by ``UNKNOWN`` (see ``batches``)."""
        ids = self.text_ids(normalise(_BETWEEN.join(texts)))
        kept: I64 = ids[ids != LINE_ID]
        kept[kept == PAGE_ID] = UNKNOWN
        return kept

    def ids(self, words: list[str]) -> I64:
        """Token ids of ``words``; ``UNKNOWN`` for a word no secret has."""
        get = self._vocab.get
        return np.fromiter(map(get, words, repeat(UNKNOWN)), dtype=np.int64, count=len(words))

    def text_ids(self, normalised: str) -> I64:
        """``ids(tokenize(normalised, markers=True))``, without a string per token."""
        if self._codes is None:
            self._codes = TokenCodes(self._vocab, UNKNOWN)
        return self._codes.ids(normalised)

    def hits(self, ids: I64, first_new: int) -> Iterator[tuple[int, I64, I64]]:
        """Every verified window match in ``ids``, per table, in batches.

        Windows that end before ``first_new`` are skipped: they were seen in the
        previous chunk.

        Yields:
            ``(table_no, positions, postings)``: the window starting at
            ``ids[positions[k]]`` equals the table's window ``postings[k]``.
        """
        prefix = prefix_sums(mix(ids), self._powers)
        # A window holding a token no secret has cannot match (secret tokens are never
        # UNKNOWN), so only windows within runs of known tokens are hashed and looked up.
        narrowest = min((table.width for table in self.tables), default=1)
        candidates, known = _known_windows(ids, narrowest)
        for table_no, table in enumerate(self.tables):
            width = table.width
            first = max(0, first_new - width + 1)
            if len(ids) - width < first or not len(table.hashes):
                continue
            starts = candidates[(known >= width) & (candidates >= first)]
            where, lo, hi = table.lookup(window_hashes(prefix, self._powers, width, starts))
            counts = hi - lo
            # Expand each match to all its postings (windows shared by several secrets).
            base = np.repeat(np.cumsum(counts) - counts, counts)
            postings = np.repeat(lo, counts) + np.arange(len(base), dtype=np.int64) - base
            positions = np.repeat(starts[where], counts)
            for batch in range(0, len(postings), _BATCH):
                at = positions[batch : batch + _BATCH]
                posting = postings[batch : batch + _BATCH]
                begin = self._starts[table.secrets[posting]] + table.offsets[posting]
                steps = np.arange(width, dtype=np.int64)
                same = ids[at[:, None] + steps] == self._tokens[begin[:, None] + steps]
                verified = same.all(axis=1)
                if verified.any():
                    yield table_no, at[verified], posting[verified]

    def length(self, secret: int) -> int:
        """Number of tokens of a distinct secret."""
        end = self._starts[secret + 1] if secret + 1 < len(self._starts) else len(self._tokens)
        return int(end - self._starts[secret])

    def match_chars(self, secret: int, offset: int, count: int) -> int:
        """Normalised length in characters of ``count`` tokens of a secret."""
        begin = int(self._starts[secret]) + offset
        return int(self._chars[begin + count] - self._chars[begin]) - 1


def _known_windows(ids: I64, width: int) -> tuple[I64, I64]:
    """Every position where at least ``width`` known tokens (not ``UNKNOWN``) start, and
    how many known tokens start there: ``(positions, counts)``."""
    unknown = np.flatnonzero(ids == UNKNOWN)
    begins = np.concatenate([[0], unknown + 1])
    ends = np.append(unknown, len(ids))
    wide = ends - begins >= width
    begins, ends = begins[wide], ends[wide]
    counts = ends - begins - width + 1
    offsets = np.arange(int(counts.sum()), dtype=np.int64)
    offsets -= np.repeat(np.cumsum(counts) - counts, counts)
    positions = np.repeat(begins, counts) + offsets
    return positions, np.repeat(ends, counts) - positions


def _tables(token_ids: I32, starts: I64, lengths: I64, window: int) -> tuple[Table, ...]:
    """The ``window``-token windows of long secrets, then one table per shorter length."""
    powers = Powers()
    columns: dict[int, Columns] = {}
    for first, stop in _spans(lengths):
        base = int(starts[first])
        end = int(starts[stop - 1] + lengths[stop - 1])
        prefix = prefix_sums(mix(token_ids[base:end]), powers)
        numbers = np.arange(first, stop, dtype=np.int32)
        local, size = starts[first:stop] - base, lengths[first:stop]
        long_ = size >= window
        counts = size[long_] - window + 1
        offsets = np.arange(int(counts.sum()), dtype=np.int64)
        offsets -= np.repeat(np.cumsum(counts) - counts, counts)
        hashes = window_hashes(prefix, powers, window, np.repeat(local[long_], counts) + offsets)
        secrets = np.repeat(numbers[long_], counts)
        columns.setdefault(window, Columns()).add(hashes, secrets, offsets.astype(np.int32))
        for width in np.unique(size[~long_]).tolist():
            short = size == width
            hashes = window_hashes(prefix, powers, width, local[short])
            zeros = np.zeros(len(hashes), dtype=np.int32)
            columns.setdefault(width, Columns()).add(hashes, numbers[short], zeros)
    widths = sorted(columns, key=lambda width: (width != window, width))
    return tuple(Table.build(width, columns.pop(width)) for width in widths)


def _spans(lengths: I64) -> Iterator[tuple[int, int]]:
    """Consecutive ranges of secrets holding about ``_SPAN`` tokens each (at least one)."""
    first, total = 0, 0
    for number, size in enumerate(lengths.tolist()):
        if total and total + size > _SPAN:
            yield first, number
            first, total = number, 0
        total += size
    if total:
        yield first, len(lengths)
