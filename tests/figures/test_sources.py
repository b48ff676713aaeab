"""``SourceCache``: the records a volume's figures cite, made once per path and digest."""

from __future__ import annotations

from pathlib import Path

from generator.figures.builder import SourceCache
from generator.hashing import sha256_file
from generator.store import Layout


def test_a_source_is_its_file_digest_and_follows_a_digest_entered_later(tmp_path: Path) -> None:
    bank = tmp_path / "bank"
    bank.mkdir()
    (bank / "bank.yaml").write_text("name: x\n", "utf-8")
    (bank / "public.jsonl").write_text("{}\n", "utf-8")
    cache = SourceCache(Layout.at(tmp_path, tmp_path / ".private", cache=False))
    paths = [bank / "public.jsonl", bank / "bank.yaml", bank / "public.jsonl"]
    first = cache.sources(paths)
    assert [(s.path, s.sha256) for s in first] == [
        ("bank/bank.yaml", sha256_file(bank / "bank.yaml")),
        ("bank/public.jsonl", sha256_file(bank / "public.jsonl")),
    ]
    assert cache.sources(paths) == first
    # A digest entered for a path afterwards (a bank cut's) is the one cited from then on.
    cache.known["bank/bank.yaml"] = "0" * 64
    assert [s.sha256 for s in cache.sources(paths)] == ["0" * 64, first[1].sha256]
