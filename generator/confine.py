"""Writes confined to a root: never through a symlink, never outside, modes never from umask.

Every file the tool writes, prunes or deletes under a publication root goes through
:func:`checked` first: the path must lie lexically inside the root and every component
below the root must be a real directory (and the last one, if it exists, a regular file),
checked with ``lstat`` so a symlinked folder is refused instead of followed. Directories
are created by :func:`make_dirs` with mode 0755 and files end with mode 0644 whatever the
umask (DESIGN §10), so a web server can read what was published.
"""

from __future__ import annotations

import errno
import os
import shutil
import stat
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from generator.errors import InputError, Problem

FILE_MODE = 0o644
DIR_MODE = 0o755


class UnsafePath(InputError):
    """A write, prune or delete would go through a symlink or outside the root (exit 2)."""


def _refuse(root: Path, rel: str, message: str) -> UnsafePath:
    return UnsafePath(
        f"refusing to write {rel}: {message}",
        [
            Problem(
                rel,
                None,
                "confined-write",
                message,
                f"replace it with a real directory or file inside {root}",
            )
        ],
    )


def relative(root: Path, path: Path) -> str:
    """``path`` as a POSIX path relative to ``root``, refusing anything outside it."""
    absolute = path if path.is_absolute() else root / path
    try:
        rel = Path(os.path.normpath(absolute)).relative_to(os.path.normpath(root))
    except ValueError:
        raise _refuse(root, str(path), f"is outside the root {root}") from None
    if rel.parts[:1] == ("..",) or not rel.parts:
        raise _refuse(root, str(path), f"is outside the root {root}")
    return rel.as_posix()


def checked(root: Path, path: Path, *, leaf: str = "file") -> Path:
    """``root/rel`` after checking that no component below ``root`` is a symlink.

    Args:
        root: The confinement root (its own path may contain symlinks: it is trusted).
        path: Absolute, or relative to ``root``.
        leaf: ``file`` (an existing leaf must be a regular file), ``dir``, or ``any``
            (the leaf itself may be anything, a link included: for deleting it).

    Raises:
        UnsafePath: The path leaves the root, or a component is a symlink or not a
            directory.
    """
    rel = relative(root, path)
    current = root
    parts = rel.split("/")
    for index, part in enumerate(parts):
        current = current / part
        try:
            info = os.lstat(current)
        except FileNotFoundError:
            return root / rel  # nothing below a missing component can be a link yet
        shown = "/".join(parts[: index + 1])
        last = index == len(parts) - 1
        if last and leaf == "any":
            break
        if stat.S_ISLNK(info.st_mode):
            raise _refuse(root, rel, f"{shown} is a symbolic link")
        want_dir = not last or leaf == "dir"
        if want_dir and not stat.S_ISDIR(info.st_mode):
            raise _refuse(root, rel, f"{shown} is not a directory")
        if not want_dir and not stat.S_ISREG(info.st_mode):
            raise _refuse(root, rel, f"{shown} is not a regular file")
    return root / rel


def make_dirs(root: Path, folder: Path) -> list[Path]:
    """Create ``folder`` and its missing parents (mode 0755) inside ``root``; return the
    directories created, outermost first."""
    if not root.is_dir():
        os.makedirs(root, DIR_MODE, exist_ok=True)  # the root itself is trusted
        os.chmod(root, DIR_MODE)
    target = checked(root, folder, leaf="dir") if folder != root else root
    missing: list[Path] = []
    probe = target
    while probe != root and not os.path.lexists(probe):
        missing.append(probe)
        probe = probe.parent
    created = []
    for directory in reversed(missing):
        try:
            os.mkdir(directory, DIR_MODE)
        except FileExistsError:
            checked(root, directory, leaf="dir")  # a racing writer: still no link allowed
            continue
        os.chmod(directory, DIR_MODE)  # mkdir's mode is masked by the umask
        created.append(directory)
    return created


def unlink(root: Path, path: Path) -> bool:
    """Delete the file (or link) ``path`` inside ``root``, never through a linked folder;
    False if it was absent."""
    target = checked(root, path, leaf="any")
    try:
        os.unlink(target)
    except FileNotFoundError:
        return False
    return True


def remove_empty_dirs(root: Path, folder: Path) -> int:
    """Remove ``folder`` and its empty parents up to (not including) ``root``."""
    removed = 0
    current = checked(root, folder, leaf="dir")
    while current != root:
        try:
            os.rmdir(current)
        except FileNotFoundError:
            pass
        except OSError as exc:
            if exc.errno in (errno.ENOTEMPTY, errno.EEXIST):
                break
            raise
        else:
            removed += 1
        current = current.parent
    return removed


def normalize_modes(top: Path) -> None:
    """Give every directory under ``top`` (itself included) 0755 and every file 0644,
    without following links (what MkDocs wrote took its modes from the umask)."""
    os.chmod(top, DIR_MODE)
    for base, dirs, files in os.walk(top):
        for name in dirs:
            path = os.path.join(base, name)
            if not os.path.islink(path):
                os.chmod(path, DIR_MODE)
        for name in files:
            path = os.path.join(base, name)
            if not os.path.islink(path):
                os.chmod(path, FILE_MODE)


def symlinks_under(root: Path, areas: tuple[str, ...]) -> list[Problem]:
    """Every symlink in (or on the way to) ``areas`` of ``root``, as problems."""
    found: list[Problem] = []
    for area in areas:
        try:
            checked(root, root / area, leaf="dir")
        except UnsafePath as exc:
            found.extend(exc.problems)
            continue
        base = root / area
        if not base.is_dir():
            continue
        for dirpath, dirs, files in os.walk(base):
            for name in sorted([*dirs, *files]):
                path = Path(dirpath) / name
                if path.is_symlink():
                    rel = path.relative_to(root).as_posix()
                    found.append(
                        Problem(
                            rel,
                            None,
                            "confined-write",
                            "is a symbolic link in a folder the tool writes",
                            "replace it with a real directory or file",
                        )
                    )
    return found


@contextmanager
def fresh_dir(root: Path, target: Path) -> Iterator[Path]:
    """An empty folder beside ``target`` to build into. When the block succeeds its modes
    are normalised (0755/0644) and it replaces ``target``; on any exit otherwise it is
    removed. ``target`` must not be, or lie under, a symlink inside ``root``. Hidden
    top-level entries of the old ``target`` (a ``.git`` of a deployment, publish's site
    stamp) move over to the new one, as MkDocs leaves them in place.

    A tool building into an existing folder (MkDocs empties it first) would otherwise
    follow a symlinked ``target`` out of the root and take its modes from the umask.
    """
    target = checked(root, target, leaf="dir")
    make_dirs(root, target.parent)
    scratch = Path(tempfile.mkdtemp(prefix=".probepress-build-", dir=target.parent))
    try:
        yield scratch
        normalize_modes(scratch)
        old = target.with_name(f".probepress-old-{os.getpid()}-{target.name}")
        if os.path.lexists(target):
            shutil.rmtree(old, ignore_errors=True)
            os.replace(target, old)
        os.replace(scratch, target)
        if old.is_dir():
            for entry in sorted(old.iterdir()):
                if entry.name.startswith(".") and not os.path.lexists(target / entry.name):
                    os.replace(entry, target / entry.name)
        shutil.rmtree(old, ignore_errors=True)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
