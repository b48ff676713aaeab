"""Throughput and linearity benchmark of the leak scanner (not collected by pytest).

Run: ``.venv/bin/python tests/leaks/bench_scan.py --sizes 10 20 50``

Writes synthetic English-like text files of the given sizes (MB) to a temporary
directory, builds an index over synthetic secrets that share the vocabulary, and prints
build time, scan time and MB/s per size. Linear scanning shows as a flat MB/s column.
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from pathlib import Path

from generator.leaks import LeakIndex, Secret, scan_paths


def _words(rng: random.Random, count: int) -> list[str]:
    """A pseudo-vocabulary of ``count`` lowercase words."""
    letters = "etaoinshrdlcumwfgypbvkjxqz"
    return ["".join(rng.choices(letters, k=rng.randint(2, 9))) for _ in range(count)]


def _text(rng: random.Random, vocab: list[str], size: int) -> str:
    """About ``size`` characters of sentences and lines over ``vocab``."""
    parts: list[str] = []
    total = 0
    while total < size:
        sentence = " ".join(rng.choices(vocab, k=rng.randint(6, 20))).capitalize() + ". "
        if rng.random() < 0.3:
            sentence += "\n"
        parts.append(sentence)
        total += len(sentence)
    return "".join(parts)


def main() -> None:
    """Build, write, scan, report."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", type=int, nargs="+", default=[10, 20, 50])
    parser.add_argument("--secrets", type=int, default=5000)
    parser.add_argument("--secret-words", type=int, default=300)
    args = parser.parse_args()
    rng = random.Random(20240601)
    vocab = _words(rng, 30000)
    secrets = [
        Secret(f"draw:bench/{n}", "response", _text(rng, vocab, args.secret_words * 6))
        for n in range(args.secrets)
    ]
    started = time.perf_counter()
    index = LeakIndex.build(secrets)
    built = time.perf_counter() - started
    secret_mb = sum(len(s.text) for s in secrets) / 1e6
    print(f"build: {len(secrets)} secrets, {secret_mb:.1f} MB in {built:.2f} s")
    with tempfile.TemporaryDirectory() as tmp:
        for size in args.sizes:
            path = Path(tmp, f"doc-{size}.txt")
            text = _text(rng, vocab, size * 1_000_000)
            path.write_text(text, encoding="utf-8")
            started = time.perf_counter()
            leaks = scan_paths(index, [path])
            took = time.perf_counter() - started
            mb = path.stat().st_size / 1e6
            print(
                f"scan: {mb:6.1f} MB in {took:6.2f} s = {mb / took:5.1f} MB/s, {len(leaks)} leaks"
            )


if __name__ == "__main__":
    main()
