"""Texts that are public anyway, read as a stream: the ``ignore`` set of a leak index.

A held-out text that also occurs in a public text is not a leak: a criterion that is
the same sentence for every item, refusal boilerplate a model gives to public and
held-out prompts alike, a jailbreak template shared by public and held-out prompts. The
public texts are the public items' own texts (prompts, pass criteria, check patterns)
and the public rows of the volume's record files (``draws.jsonl`` responses,
``verdicts.jsonl`` evidence quotes of public items), which are published as they are.

The record files are read line by line when the index is built, never held in memory
(60 candidates x 103 items x 10 draws is 61,800 responses). Only rows whose ``item`` is
public contribute: a held-out row that carries text by mistake is a leak to report, not
a text to ignore. A line that is not a JSON object, a file that is missing or a link, is
skipped here; the bundle gates report it.

The cache key of an index built without these texts (``fingerprint``) names the public
texts of the items, the public item ids and each record file by its SHA-256, so it is
computed without parsing the files.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path

from generator.hashing import sha256_file


class PublicTexts:
    """Public item texts plus the public rows' text fields of some JSONL files.

    Iterating yields every text (item texts first, then each file's rows in order).
    ``LeakIndex.build`` ignores the item texts for every secret and the rows' texts
    (``records``) for held-out responses only: refusal boilerplate a model gives to
    public and held-out prompts alike is public, while a held-out prompt pasted into a
    public response is still reported where that response is published.

    Args:
        texts: Texts of the public items (prompts, criteria, check patterns).
        files: JSONL record files (e.g. every bundle's ``draws.jsonl``, ``verdicts.jsonl``).
        public: Ids of the public items: only rows whose ``item`` is one are read.
        fields: The string fields of a row that are public text.
    """

    def __init__(
        self,
        texts: Iterable[str],
        files: Iterable[Path],
        public: Iterable[str],
        fields: tuple[str, ...] = ("response", "evidence"),
    ) -> None:
        self.texts = tuple(texts)
        self.files = tuple(files)
        self.public = frozenset(public)
        self.fields = fields

    def __iter__(self) -> Iterator[str]:
        yield from self.texts
        yield from self.records()

    def records(self) -> Iterator[str]:
        """The rows' texts only (public responses and evidence quotes)."""
        for path in self.files:
            yield from self._rows(path)

    def _rows(self, path: Path) -> Iterator[str]:
        """The public text fields of one file's rows about public items."""
        if path.is_symlink() or not path.is_file():
            return
        with open(path, encoding="utf-8", errors="replace") as handle:
            for line in handle:
                try:
                    row = json.loads(line)
                except ValueError:
                    continue
                # A hostile row may give any JSON as its item (preflight reports it).
                if not isinstance(row, dict) or not isinstance(row.get("item"), str):
                    continue
                if row["item"] not in self.public:
                    continue
                for name in self.fields:
                    value = row.get(name)
                    if isinstance(value, str) and value:
                        yield value

    def fingerprint(self) -> Iterator[str]:
        """Strings that change whenever the texts may (for a cache key)."""
        yield from self.texts
        yield "\0ids:" + "\0".join(sorted(self.public))
        yield "\0fields:" + "\0".join(self.fields)
        for path in self.files:
            usable = path.is_file() and not path.is_symlink()
            name = "/".join(path.parts[-3:])  # the same in a staging copy of the root
            yield f"\0file:{name}={sha256_file(path) if usable else '-'}"
