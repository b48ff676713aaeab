"""The floor: the least any check of a volume must do with its bundles' bytes.

Run: ``.venv/bin/python benchmarks/floor.py ROOT/bundles/vol-001 [--parser json|fast]``

Reads every file under the given directory once (sorted walk), SHA-256-hashes its bytes
and JSON-parses every line of every ``.jsonl`` file (and ``bundle.json`` as a whole).
Nothing is validated, kept or compared: it is the cost of reading, hashing and parsing,
which ``probepress check`` and ``probepress figures`` cannot go below.

"The JSON library the project uses" is read as the standard library's ``json.loads``,
one call per line, on the decoded ``str``: the simple, honest baseline (the project's
canonical writer and its JSON documents use ``json``). The loader itself parses lines
inside pydantic-core (``model_validate_json``), whose parser is faster than ``json``;
``--parser pydantic-core`` parses with ``pydantic_core.from_json`` instead, for
comparison (``benchmarks/RESULTS.md`` records both).

``--parser fast`` is the physical floor of issue 19: the fastest JSON parser installed,
orjson (a dev dependency), else msgspec, else pydantic-core. Parsing bytes without
decoding them first is what those parsers are built for, so it is what they are given.

Prints one line: ``files bytes lines seconds parser``. Imports nothing from
``generator``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

FAST = ("orjson", "msgspec", "pydantic-core")
"""The parsers ``--parser fast`` tries, fastest first."""


def _parser(name: str) -> tuple[str, Callable[[bytes], Any]]:
    """The parser called ``name`` (``fast``: the first of ``FAST`` installed)."""
    if name == "json":
        return name, lambda line: json.loads(line.decode("utf-8"))
    if name == "fast":
        for candidate in FAST:
            try:
                return _parser(candidate)
            except ImportError:
                continue
    if name == "orjson":
        import orjson

        return name, orjson.loads
    if name == "msgspec":
        import msgspec

        return name, msgspec.json.Decoder().decode
    from pydantic_core import from_json

    return "pydantic-core", from_json


def floor(directory: Path, parse: Callable[[bytes], Any]) -> tuple[int, int, int]:
    """Read, hash and parse every file under ``directory``; return (files, bytes, lines)."""
    files = size = lines = 0
    for folder, dirs, names in os.walk(directory):
        dirs.sort()
        for name in sorted(names):
            data = Path(folder, name).read_bytes()
            hashlib.sha256(data).hexdigest()
            files += 1
            size += len(data)
            if name.endswith(".jsonl"):
                for line in data.splitlines():
                    parse(line)
                    lines += 1
            elif name.endswith(".json"):
                parse(data)
                lines += 1
    return files, size, lines


def main(argv: list[str] | None = None) -> int:
    """Command-line entry."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("directory", type=Path, help="a volume's bundles: ROOT/bundles/VOLUME")
    parser.add_argument("--parser", choices=("json", "fast", *FAST), default="json")
    args = parser.parse_args(argv)
    if not args.directory.is_dir():
        print(f"floor: {args.directory}: no such directory", file=sys.stderr)
        return 2
    name, parse = _parser(args.parser)
    started = time.perf_counter()
    files, size, lines = floor(args.directory, parse)
    print(f"{files} {size} {lines} {time.perf_counter() - started:.3f} {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
