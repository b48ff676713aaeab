"""Throughput and linearity benchmark of the leak scanner (not collected by pytest).

Run: ``.venv/bin/python tests/leaks/bench_scan.py --sizes 10 20 50``

Writes synthetic English-like text files of the given sizes (MB) to a temporary
directory, builds an index over synthetic secrets that share their vocabulary, and
prints build time, scan time and MB/s per size (wall clock, and per CPU second for
busy machines); linear scanning shows as a flat MB/s column. The last line scans a
file made of every secret (the worst case: every window matches). ``measure``
returns the same numbers for ``benchmarks/run.py``.
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


def _timed_scan(index: LeakIndex, path: Path, label: str) -> dict[str, float | str]:
    """Scan one file and report its size, time and throughput."""
    started, cpu = time.perf_counter(), time.process_time()
    leaks = scan_paths(index, [path])
    took, cpu = time.perf_counter() - started, time.process_time() - cpu
    size = path.stat().st_size / 1e6
    return {
        "case": label,
        "mb": size,
        "seconds": took,
        "mb_s": size / took,
        "cpu_mb_s": size / cpu,
        "leaks": len(leaks),
    }


def measure(sizes: list[int], secrets: int, secret_chars: int) -> list[dict[str, float | str]]:
    """Build an index, scan clean files of ``sizes`` MB and one all-leak file."""
    rng = random.Random(20240601)
    vocab = _words(rng, 30000)
    bank = [
        Secret(f"draw:bench/{n}", "response", _text(rng, vocab, secret_chars))
        for n in range(secrets)
    ]
    started = time.perf_counter()
    index = LeakIndex.build(bank)
    secret_mb = sum(len(s.text) for s in bank) / 1e6
    build = time.perf_counter() - started
    results: list[dict[str, float | str]] = [
        {"case": "build", "mb": secret_mb, "seconds": build, "mb_s": secret_mb / build}
    ]
    with tempfile.TemporaryDirectory() as tmp:
        for size in sizes:
            path = Path(tmp, f"clean-{size}.txt")
            path.write_text(_text(rng, vocab, size * 1_000_000), encoding="utf-8")
            results.append(_timed_scan(index, path, f"clean {size} MB"))
            path.unlink()
        path = Path(tmp, "all-secrets.jsonl")
        path.write_text("\n".join(s.text for s in bank), encoding="utf-8")
        results.append(_timed_scan(index, path, "all secrets"))
    return results


def main() -> None:
    """Parse options, measure, print a table."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", type=int, nargs="+", default=[10, 20, 50])
    parser.add_argument("--secrets", type=int, default=5000)
    parser.add_argument("--secret-chars", type=int, default=2000)
    args = parser.parse_args()
    for row in measure(args.sizes, args.secrets, args.secret_chars):
        leaks = f", {row['leaks']} leaks" if "leaks" in row else ""
        if "cpu_mb_s" in row:
            leaks += f" ({row['cpu_mb_s']:.1f} MB/s of CPU time)"
        print(
            f"{row['case']:>14}: {row['mb']:6.1f} MB in {row['seconds']:6.2f} s"
            f" = {row['mb_s']:5.1f} MB/s{leaks}"
        )


if __name__ == "__main__":
    main()
