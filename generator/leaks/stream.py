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

from generator.leaks.extract import Format, decode_escapes, html_to_text, safe_cut
from generator.leaks.index import LINE_ID, PAGE_ID, UNKNOWN, LeakIndex
from generator.leaks.model import Leak
from generator.leaks.normalise import normalise, tokenize

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

    def hit(self, position: int, table_no: int, posting: int, line: int, page: int) -> None:
        """Record that the window at global token ``position`` matched a posting."""
        secret, offset, width = self._index.posting(table_no, posting)
        key = (secret, position - offset)
        run = self._active.get(key)
        if run is not None and run[1] == position - 1:
            run[1] = position
            return
        if run is not None:
            self._close(key, run)
        self._active[key] = [position, position, width, line, page]

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
        if len(self._pending) < chunk:
            return
        cut = safe_cut(self._pending, markup=self._fmt == "markup")
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
        elif self._fmt == "text":
            raw = decode_escapes(raw)
        ids = self._index.ids(tokenize(normalise(raw), markers=True))
        is_line = ids == LINE_ID
        is_page = ids == PAGE_ID
        lines = self._line + np.cumsum(is_line)
        pages = self._page + np.cumsum(is_page)
        self._line += int(is_line.sum())
        self._page += int(is_page.sum())
        keep = (ids == UNKNOWN) | (ids > PAGE_ID)
        first_new = len(self._ids)
        ids = np.concatenate([self._ids, ids[keep]])
        lines = np.concatenate([self._lines, lines[keep]])
        pages = np.concatenate([self._pages, pages[keep]])
        for position, table_no, posting in self._index.hits(ids, first_new):
            where = self._offset + position
            self._runs.hit(where, table_no, posting, int(lines[position]), int(pages[position]))
        total = self._offset + len(ids)
        self._runs.flush(total - self._index.max_width)
        tail = slice(max(0, len(ids) - self._index.max_width + 1), None)
        self._ids, self._lines, self._pages = ids[tail], lines[tail], pages[tail]
        self._offset = total - len(self._ids)
