"""The one writer of canonical JSON and the atomic file writer.

Canonical JSON: sorted keys, two-space indent, ``ensure_ascii=False``, ``\\n`` line ends and
a trailing newline. JSONL lines are compact (no spaces) with sorted keys. Files are written
to a temporary sibling and renamed, so a reader never sees half a file; given a ``root``,
the write is confined to it (``generator.confine``: no symlink on the way, nothing
outside). Files get mode 0644 and new directories 0755 whatever the umask.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from generator.confine import FILE_MODE, checked, make_dirs


def dumps(data: Any) -> str:
    """Canonical pretty JSON text with a trailing newline."""
    return json.dumps(data, sort_keys=True, indent=2, ensure_ascii=False) + "\n"


def dumps_line(data: Any) -> str:
    """One canonical JSONL line (compact, sorted keys) with its newline."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False) + "\n"


def write_bytes(path: Path, data: bytes, root: Path | None = None) -> bool:
    """Atomically write ``data`` to ``path``; return False (and touch nothing) if unchanged.

    The mode is fixed rather than taken from the umask so outputs are identical whatever
    the environment.

    Args:
        path: The file to write.
        data: Its bytes.
        root: Confine the write to this folder: refuse a path outside it or with a
            symlink in any component below it (default: the file's own folder).

    Raises:
        UnsafePath: The write would leave ``root`` or go through a symlink.
    """
    base = root or _existing_ancestor(path.absolute().parent)
    path = checked(base, path.absolute())
    if path.is_file():
        try:
            if path.read_bytes() == data:
                return False
        except OSError:
            pass
    make_dirs(base, path.parent)
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


def _existing_ancestor(folder: Path) -> Path:
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    return folder


def write_text(path: Path, text: str, root: Path | None = None) -> bool:
    """Atomically write UTF-8 ``text`` with ``\\n`` line ends (confined to ``root``)."""
    return write_bytes(path, text.encode("utf-8"), root)


def write_json(path: Path, data: Any, root: Path | None = None) -> bool:
    """Atomically write canonical JSON (confined to ``root``)."""
    return write_text(path, dumps(data), root)
