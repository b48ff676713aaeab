"""The one writer of canonical JSON and the atomic file writer.

Canonical JSON: sorted keys, two-space indent, ``ensure_ascii=False``, ``\\n`` line ends and
a trailing newline. JSONL lines are compact (no spaces) with sorted keys. Files are written
to a temporary sibling and renamed, so a reader never sees half a file; given a ``root``,
the write is confined to it (``generator.confine``: no symlink on the way, nothing
outside). Files get mode 0644 and new directories 0755 whatever the umask.
"""

from __future__ import annotations

import json
import math
import os
import tempfile
from json.encoder import encode_basestring
from pathlib import Path
from typing import Any

from generator.confine import FILE_MODE, checked, make_dirs

_INFINITY = float("inf")


def dumps(data: Any) -> str:
    """Canonical pretty JSON text with a trailing newline.

    The text of ``json.dumps(data, sort_keys=True, indent=2, ensure_ascii=False)``, byte
    for byte, with the same errors (``tests/test_canonical.py`` compares them on
    generated data). CPython serves ``indent`` only with its pure-Python encoder, a
    generator per container; this writer appends to one list and quotes strings with
    the C function that ``json`` itself uses, in about half the time.
    """
    out: list[str] = []
    _write(data, out, "\n", set())
    out.append("\n")
    return "".join(out)


def _float(value: float) -> str:
    """A float as ``json`` writes it (``NaN``, ``Infinity`` and ``-Infinity`` allowed)."""
    if math.isnan(value):
        return "NaN"
    if value == _INFINITY:
        return "Infinity"
    if value == -_INFINITY:
        return "-Infinity"
    return float.__repr__(value)


def _scalar(value: Any) -> str | None:
    """JSON text of a string, None, bool or number, tested in ``json``'s order; None for
    anything else."""
    if isinstance(value, str):
        return encode_basestring(value)
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return int.__repr__(value)
    if isinstance(value, float):
        return _float(value)
    return None


def _key(key: Any) -> str:
    """A dict key as ``json`` quotes it (a number, bool or None becomes its text)."""
    if isinstance(key, str):
        return encode_basestring(key)
    text = _scalar(key)
    if text is None:
        raise TypeError(f"keys must be str, int, float, bool or None, not {type(key).__name__}")
    return encode_basestring(text)


def _write(value: Any, out: list[str], newline: str, open_: set[int]) -> None:
    """Append ``value`` at the indent ``newline`` ends with; ``open_``: the containers
    being written, to refuse a cycle as ``json`` does."""
    text = _scalar(value)
    if text is not None:
        out.append(text)
        return
    if not isinstance(value, (list, tuple, dict)):
        raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")
    if not value:
        out.append("{}" if isinstance(value, dict) else "[]")
        return
    if id(value) in open_:
        raise ValueError("Circular reference detected")
    open_.add(id(value))
    inner = newline + "  "
    if isinstance(value, dict):
        lead = "{" + inner
        for key, item in sorted(value.items()):  # sorted before keys become text, as json
            _item(f"{lead}{_key(key)}: ", item, out, inner, open_)
            lead = "," + inner
        out.append(newline + "}")
    else:
        lead = "[" + inner
        for item in value:
            _item(lead, item, out, inner, open_)
            lead = "," + inner
        out.append(newline + "]")
    open_.discard(id(value))


def _item(head: str, item: Any, out: list[str], inner: str, open_: set[int]) -> None:
    """Append a container's member after ``head`` (its separator, indent and key)."""
    text = encode_basestring(item) if type(item) is str else _scalar(item)
    if text is None:
        out.append(head)
        _write(item, out, inner, open_)
    else:
        out.append(head + text)


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
            if _holds(path, data):
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


_COMPARED = 1 << 20
"""Bytes of a file compared with what would be written at a time."""


def _holds(path: Path, data: bytes) -> bool:
    """Whether the file at ``path`` holds exactly ``data``, read a block at a time (the
    figures registry is 60 MB at 600 candidates: never a second copy in memory)."""
    view = memoryview(data)
    with path.open("rb") as handle:
        for start in range(0, len(data), _COMPARED):
            block = handle.read(_COMPARED)
            if block != view[start : start + _COMPARED]:
                return False
        return handle.read(1) == b""


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
