"""Hostile inputs: each factory mutates one thing in a copy of the example and says what
the tool must answer (the command, its exit code and the exact lines it must print)."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from tests.factories import bundle_dir, edit_bytes, edit_json, first_slug

VOL = "vol-001"


@dataclass(frozen=True)
class Expect:
    """What a hostile input must produce."""

    messages: tuple[str, ...]
    """Lines (or parts of lines) the output must contain: file, line and rule."""
    code: int = 2
    args: tuple[str, ...] = ("show", VOL)
    absent: tuple[str, ...] = ()
    """Text that must not appear (raw control characters, tracebacks of a bug)."""
    stream: str = "stderr"


@dataclass(frozen=True)
class Case:
    """One hostile input: an id, a mutation of the root, and whether it is a bomb."""

    id: str
    mutate: Callable[[Path], Expect]
    bomb: bool = False
    marks: tuple[str, ...] = field(default=())


def where(root: Path, name: str = "") -> tuple[Path, str]:
    """The first bundle of vol-001 and its path as messages print it (plus ``/name``)."""
    slug = first_slug(root)
    shown = f"bundles/{VOL}/{slug}" + (f"/{name}" if name else "")
    return bundle_dir(root, slug), shown


def fifo(path: Path) -> None:
    """Replace ``path`` by a named pipe with no writer (opening it could block)."""
    path.unlink()
    os.mkfifo(path)


def symlink(path: Path, target: Path | str) -> None:
    """Replace ``path`` by a symbolic link to ``target``."""
    path.unlink()
    path.symlink_to(target)


def line_of(path: Path, needle: str) -> int:
    """1-based number of the first line of ``path`` containing ``needle``."""
    for number, line in enumerate(path.read_text("utf-8").splitlines(), 1):
        if needle in line:
            return number
    raise AssertionError(f"{needle!r} not in {path}")


def replace_text(path: Path, old: str, new: str, count: int = 1) -> None:
    """Replace ``old`` by ``new`` in a text file (``old`` must be there)."""
    text = path.read_text("utf-8")
    assert old in text, (path, old)
    path.write_text(text.replace(old, new, count), "utf-8")


def set_first_line(directory: Path, name: str, line: bytes) -> None:
    """Make ``line`` the first line of a JSONL bundle file, then reseal the bundle."""

    def put(data: bytes) -> bytes:
        return line + b"\n" + data.split(b"\n", 1)[1]

    edit_bytes(directory, name, put)


def first_line(directory: Path, name: str) -> bytes:
    """The first line of a bundle file, without its newline."""
    return (directory / name).read_bytes().split(b"\n", 1)[0]


def add_key_to_first_line(directory: Path, name: str, raw_pair: str) -> None:
    """Append ``"key":value`` text to the first JSON object of a JSONL file (a duplicate
    key when the key is already there), then reseal."""
    line = first_line(directory, name)
    set_first_line(directory, name, line[:-1] + b"," + raw_pair.encode() + b"}")


def manifest_files(directory: Path, update: Callable[[dict[str, object]], None]) -> None:
    """Change bundle.json's ``files`` table."""
    edit_json(directory / "bundle.json", lambda m: update(m["files"]))


def volume_yaml(root: Path) -> Path:
    """``bundles/vol-001/volume.yaml``."""
    return root / "bundles" / VOL / "volume.yaml"


def add_candidate(root: Path, api: str, display_name: str | None = None) -> int:
    """Append a copy of the first candidate of volume.yaml with another API string (and
    display name); return the line of its ``api`` key."""
    path = volume_yaml(root)
    text = path.read_text("utf-8")
    found = re.search(r"(?ms)^candidates:\n(- .*?)(?=^- |^\S)", text)
    assert found, "volume.yaml lists candidates as a block sequence"
    block = found.group(1)
    block = re.sub(r"(?m)^(  api: |- api: ).*$", lambda m: m.group(1) + json.dumps(api), block)
    if display_name is not None:
        block = re.sub(
            r"(?m)^(  display_name: ).*$", lambda m: m.group(1) + json.dumps(display_name), block
        )
    end = found.end()
    new = text[:end] + block + text[end:]
    path.write_text(new, "utf-8")
    return new[: end + block.index("api:")].count("\n") + 1


def candidate_field(root: Path, key: str, index: int = 0) -> str:
    """The value of ``key`` of candidate ``index`` in volume.yaml (as YAML reads it)."""
    import yaml

    data = yaml.safe_load(volume_yaml(root).read_text("utf-8"))
    return str(data["candidates"][index][key])
