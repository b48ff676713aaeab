"""The one writer of canonical JSON and the atomic file writer.

Canonical JSON: sorted keys, two-space indent, ``ensure_ascii=False``, ``\\n`` line ends and
a trailing newline. JSONL lines are compact (no spaces) with sorted keys. Files are written
to a temporary sibling and renamed, so a reader never sees half a file.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

FILE_MODE = 0o644


def dumps(data: Any) -> str:
    """Canonical pretty JSON text with a trailing newline."""
    return json.dumps(data, sort_keys=True, indent=2, ensure_ascii=False) + "\n"


def dumps_line(data: Any) -> str:
    """One canonical JSONL line (compact, sorted keys) with its newline."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False) + "\n"


def write_bytes(path: Path, data: bytes) -> bool:
    """Atomically write ``data`` to ``path``; return False (and touch nothing) if unchanged.

    The mode is fixed rather than taken from the umask so outputs are identical whatever
    the environment.
    """
    if path.is_file() and not path.is_symlink():
        try:
            if path.read_bytes() == data:
                return False
        except OSError:
            pass
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.chmod(tmp, FILE_MODE)
        os.replace(tmp, path)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        if exc.filename is None:  # a failed write or flush names no file: name ours
            raise OSError(exc.errno, exc.strerror, str(path)) from exc
        raise
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return True


def write_text(path: Path, text: str) -> bool:
    """Atomically write UTF-8 ``text`` with ``\\n`` line ends."""
    return write_bytes(path, text.encode("utf-8"))


def write_json(path: Path, data: Any) -> bool:
    """Atomically write canonical JSON."""
    return write_text(path, dumps(data))


def write_jsonl(path: Path, rows: Iterable[Any]) -> bool:
    """Atomically write canonical JSONL."""
    return write_text(path, "".join(dumps_line(row) for row in rows))
