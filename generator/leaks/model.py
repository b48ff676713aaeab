"""The leak scanner's value types: what goes in (secrets), what comes out (leaks)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from generator.errors import Problem, UsageError

SecretKind = Literal["prompt", "response"]


@dataclass(frozen=True)
class Secret:
    """One held-out text that must not appear in anything public.

    Attributes:
        key: Where the secret comes from, e.g. ``item:h-0003`` or
            ``draw:vol-001/acme-m1/h-0003/A/2``. Reports name secrets by this key only.
        kind: ``prompt`` (a held-out probe's text) or ``response`` (a held-out draw's text).
        text: The secret text itself. Kept out of ``repr`` so that a log line or a
            traceback can never print it.
    """

    key: str
    kind: SecretKind
    text: str = field(repr=False)


@dataclass(frozen=True)
class Leak:
    """One place where (part of) a secret appears. Never carries the secret's text.

    Attributes:
        source: The scanned file (or the label given to ``scan_text``).
        line: 1-based line where the match starts; ``None`` for PDFs (see ``page``).
        secret_key: The key of the leaked secret.
        kind: The leaked secret's kind, ``prompt`` or ``response``.
        excerpt_len: Length of the matched text in normalised characters (its tokens
            joined by single spaces).
        whole: True when the whole secret matched as one run.
        tokens: Number of matched tokens (words; characters in scripts without spaces).
        page: 1-based PDF page where the match starts; ``None`` for other files.
    """

    source: str
    line: int | None
    secret_key: str
    kind: SecretKind
    excerpt_len: int
    whole: bool
    tokens: int = 0
    page: int | None = None

    def location(self) -> str:
        """``source:line``, or just ``source`` (PDF findings name their page instead)."""
        return f"{self.source}:{self.line}" if self.line is not None else self.source

    def describe(self) -> str:
        """What leaked and how much, without the location (and never the text)."""
        extent = "the whole text" if self.whole else f"{self.tokens} consecutive tokens"
        page = f" on page {self.page}" if self.page is not None else ""
        return (
            f"held-out {self.kind} {self.secret_key} appears{page} "
            f"({extent}, {self.excerpt_len} characters)"
        )

    def __str__(self) -> str:
        return f"{self.location()}: {self.describe()}"

    def problem(self) -> Problem:
        """This finding as a gate ``Problem`` (rule ``holdout``)."""
        return Problem(
            path=self.source,
            line=self.line,
            rule="holdout",
            message=self.describe(),
            fix="remove the held-out text; public files may name held-out items by id only",
        )

    def sort_key(self) -> tuple[str, int, int, str, int]:
        """Explicit report order: file, page, line, secret key, longest match first."""
        return (self.source, self.page or 0, self.line or 0, self.secret_key, -self.tokens)


@dataclass(frozen=True)
class Unscannable:
    """A file the scanner refused to read, so it may hold a leak nobody looked for.

    Attributes:
        source: The file, named as findings name it.
        rule: ``not-regular`` (a symbolic link, FIFO, socket or device),
            ``too-large`` (over ``LeakConfig.max_file_bytes``, or a gzip file that
            decompresses to more) or ``bad-gzip`` (not valid or truncated gzip).
        message: What it is, without a location.
        fix: What would let it be scanned.
    """

    source: str
    rule: str
    message: str
    fix: str

    def __str__(self) -> str:
        return f"{self.source}: {self.message}"


@dataclass(frozen=True)
class LeakConfig:
    """Thresholds of the scanner.

    Attributes:
        window: Partial-leak threshold: a run of at least this many consecutive tokens
            shared with a secret is a leak. 12 English words are about 60-70 characters,
            longer than the instruction boilerplate items share ("Answer in one
            sentence." is 4 tokens). In scripts without spaces a token is a character.
        min_tokens: Secrets with fewer tokens than this cannot be told apart from
            ordinary text ("No.", "42"); they are not scanned and are listed in
            ``LeakIndex.unscannable`` so the caller can report them by key. Secrets
            from ``min_tokens`` up to ``window - 1`` tokens are matched whole.
        chunk_chars: Characters scanned at a time; memory stays bounded by a multiple
            of this (the arrays of a chunk are several times its length in tokens, and
            JSON has a token every two or three characters: scanning the 600-candidate
            registry 1 Mi characters at a time took RSS up by about 100 MB).
        max_file_bytes: Larger files are not read (``Unscannable``): the scan's reads
            are bounded even where the file system is not (PDFs are parsed whole).
    """

    window: int = 12
    min_tokens: int = 5
    chunk_chars: int = 1 << 18
    max_file_bytes: int = 256 * 1024 * 1024

    def __post_init__(self) -> None:
        if not 1 <= self.min_tokens <= self.window:
            raise UsageError(
                f"leak scanner: need 1 <= min_tokens <= window, got min_tokens="
                f"{self.min_tokens}, window={self.window}"
            )
        if self.max_file_bytes < 1:
            raise UsageError(
                f"leak scanner: max_file_bytes must be >= 1, got {self.max_file_bytes}"
            )
        if self.chunk_chars < 1024:
            raise UsageError(f"leak scanner: chunk_chars must be >= 1024, got {self.chunk_chars}")
