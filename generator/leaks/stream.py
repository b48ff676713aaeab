"""Scanning one document as a stream of chunks, and turning window hits into leaks.

A document is fed in pieces of any size. Text accumulates until ``config.chunk_chars``,
is cut at a safe place (``extract.safe_cut``), extracted, normalised, tokenised and
matched; the last ``max_width - 1`` tokens are carried into the next chunk so a window
spanning the cut is still seen once. Memory is bounded by a few chunks.

Consecutive window hits on the same secret at consecutive offsets form a *run*; a run
of ``r`` windows of width ``w`` is a shared passage of ``r + w - 1`` tokens. A run that
is contained in a longer run of the same secret is not reported again.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from generator.leaks.extract import (
    Format,
    decode_escapes,
    decode_references,
    html_to_text,
    markdown_rendered,
    safe_cut,
)
from generator.leaks.index import LINE_ID, PAGE_ID, LeakIndex
from generator.leaks.model import Leak
from generator.leaks.normalise import normalise
from generator.leaks.shingles import I64, Table

_CARRY_LIMIT = 4
"""Process a chunk without a safe cut once it is this many times ``chunk_chars`` long."""


class Run(NamedTuple):
    """One shared passage: doc tokens ``[start, start + tokens)`` of a secret."""

    secret: int
    start: int
    tokens: int
    offset: int
    line: int
    page: int


class Runs:
    """Grows runs from window hits, in document order."""

    def __init__(self, index: LeakIndex) -> None:
        self._index = index
        self._active: dict[tuple[int, int], list[int]] = {}
        self.done: list[Run] = []

    def add(self, table: Table, positions: I64, postings: I64, lines: I64, pages: I64) -> None:
        """Record verified window matches of one table.

        Args:
            table: The table the postings index into.
            positions: Global token index of each matching window, ascending.
            postings: The table posting each window matched.
            lines: Line of each window's first token (aligned with ``positions``).
            pages: Page of each window's first token.
        """
        secrets = table.secrets[postings]
        diagonals = positions - table.offsets[postings]
        order = np.lexsort((positions, diagonals, secrets))
        secrets, diagonals = secrets[order], diagonals[order]
        positions, lines, pages = positions[order], lines[order], pages[order]
        fresh = np.ones(len(order), dtype=np.bool_)
        fresh[1:] = (
            (secrets[1:] != secrets[:-1])
            | (diagonals[1:] != diagonals[:-1])
            | (positions[1:] != positions[:-1] + 1)
        )
        firsts = np.flatnonzero(fresh)
        lasts = np.append(firsts[1:], len(order)) - 1
        for first, last in zip(firsts.tolist(), lasts.tolist(), strict=True):
            key = (int(secrets[first]), int(diagonals[first]))
            begin, end = int(positions[first]), int(positions[last])
            run = self._active.get(key)
            if run is not None and run[1] == begin - 1:
                run[1] = end
                continue
            if run is not None:
                self._close(key, run)
            self._active[key] = [begin, end, table.width, int(lines[first]), int(pages[first])]

    def flush(self, before: int) -> None:
        """Close every run whose last window starts before ``before``."""
        for key, run in list(self._active.items()):
            if run[1] < before:
                self._close(key, run)

    def _close(self, key: tuple[int, int], run: list[int]) -> None:
        """Move one active run to ``done``."""
        secret, diagonal = key
        first, last, width, line, page = run
        self.done.append(Run(secret, first, last - first + width, first - diagonal, line, page))
        del self._active[key]

    def leaks(self, source: str, *, paged: bool) -> list[Leak]:
        """Findings for every maximal run, one per secret key sharing the text."""
        self.flush(1 << 62)
        found: list[Leak] = []
        reach: dict[int, int] = {}
        for run in sorted(self.done, key=lambda r: (r.secret, r.start, -r.tokens)):
            end = run.start + run.tokens
            if end <= reach.get(run.secret, -1):
                continue  # inside a longer run of the same secret
            reach[run.secret] = end
            whole = run.offset == 0 and run.tokens == self._index.length(run.secret)
            chars = self._index.match_chars(run.secret, run.offset, run.tokens)
            for key, kind in self._index.owners[run.secret]:
                found.append(
                    Leak(
                        source=source,
                        line=None if paged else run.line,
                        secret_key=key,
                        kind=kind,
                        excerpt_len=chars,
                        whole=whole,
                        tokens=run.tokens,
                        page=run.page if paged else None,
                    )
                )
        return sorted(found, key=Leak.sort_key)


class DocumentScan:
    """Feed a document's text in pieces, then ``finish`` to get its leaks."""

    def __init__(self, index: LeakIndex, source: str, fmt: Format) -> None:
        self._index = index
        self._source = source
        self._fmt = fmt
        self._pending = ""
        self._ids = np.zeros(0, dtype=np.int64)
        self._lines = np.zeros(0, dtype=np.int64)
        self._pages = np.zeros(0, dtype=np.int64)
        self._offset = 0
        self._line = 1
        self._page = 1
        self._runs = Runs(index)

    def feed(self, piece: str) -> None:
        """Add the next piece of raw text (any size, split anywhere)."""
        self._pending += piece
        chunk = self._index.config.chunk_chars
        markup = self._fmt in ("markup", "markdown")
        while len(self._pending) >= chunk:
            # A chunk at a time (its last safe cut), however large the piece: the arrays of
            # a chunk are a few times its length in tokens, and JSON is a token a few
            # characters. With no safe cut in it, the last of the whole text so far.
            cut = safe_cut(self._pending[:chunk], markup=markup) or safe_cut(
                self._pending, markup=markup
            )
            if cut == 0:
                if len(self._pending) < _CARRY_LIMIT * chunk:
                    return
                cut = len(self._pending)
            head, self._pending = self._pending[:cut], self._pending[cut:]
            self._process(head)

    def finish(self) -> list[Leak]:
        """Scan what is left and return the document's leaks in report order."""
        if self._pending:
            self._process(self._pending)
            self._pending = ""
        return self._runs.leaks(self._source, paged=self._fmt == "pdf")

    def _process(self, raw: str) -> None:
        """Extract, normalise, tokenise and match one chunk."""
        if self._fmt == "markup":
            raw = html_to_text(raw)
        elif self._fmt == "markdown":
            raw = html_to_text(markdown_rendered(raw))
        elif self._fmt == "text":
            raw = decode_references(decode_escapes(raw))
        ids = self._index.text_ids(normalise(raw))
        is_line = ids == LINE_ID
        is_page = ids == PAGE_ID
        keep = ~(is_line | is_page)
        lines = self._line + np.cumsum(is_line)
        if is_page.any():
            pages = self._page + np.cumsum(is_page)
        else:
            pages = np.full(len(ids), self._page, dtype=np.int64)
        if len(ids):
            self._line, self._page = int(lines[-1]), int(pages[-1])
        first_new = len(self._ids)
        ids = np.concatenate([self._ids, ids[keep]])
        lines = np.concatenate([self._lines, lines[keep]])
        pages = np.concatenate([self._pages, pages[keep]])
        for table_no, positions, postings in self._index.hits(ids, first_new):
            table = self._index.tables[table_no]
            where = self._offset + positions
            self._runs.add(table, where, postings, lines[positions], pages[positions])
        total = self._offset + len(ids)
        self._runs.flush(total - self._index.max_width)
        tail = slice(max(0, len(ids) - self._index.max_width + 1), None)
        self._ids, self._lines, self._pages = ids[tail], lines[tail], pages[tail]
        self._offset = total - len(self._ids)


class Readings:
    """Several readings of one document fed together; their findings are merged.

    A Markdown page is read as text and as rendered (``extract``); a file holding NUL
    bytes also with them deleted (``scan``). A passage found by several readings is
    reported once, with its longest match.
    """

    def __init__(self, scans: list[DocumentScan]) -> None:
        self._scans = scans
        self._stripped: list[DocumentScan] = []

    @classmethod
    def of(cls, index: LeakIndex, source: str, fmt: Format) -> Readings:
        """The readings a format needs: Markdown also as text, every other format once."""
        scans = [DocumentScan(index, source, fmt)]
        if fmt == "markdown":
            scans.append(DocumentScan(index, source, "text"))
        return cls(scans)

    def add_stripped(self, scan: DocumentScan) -> None:
        """Also read the document with its NUL bytes deleted (see ``feed``)."""
        self._stripped.append(scan)

    def feed(self, piece: str, stripped: str = "") -> None:
        """Feed the next piece of raw text to every reading, and ``stripped`` (the same
        bytes decoded without their NUL bytes) to the readings added for it."""
        for scan in self._scans:
            scan.feed(piece)
        for scan in self._stripped:
            scan.feed(stripped)

    def finish(self) -> list[Leak]:
        """Every reading's leaks, one per place and secret, in report order."""
        best: dict[tuple[int, int, str], Leak] = {}
        for scan in self._scans + self._stripped:
            for leak in scan.finish():
                key = (leak.page or 0, leak.line or 0, leak.secret_key)
                if key not in best or leak.tokens > best[key].tokens:
                    best[key] = leak
        return sorted(best.values(), key=Leak.sort_key)
