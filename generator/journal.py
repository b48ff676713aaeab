"""The publish commit: a write-ahead journal that survives a kill at any moment.

:func:`commit` moves the staged files (``generator.staging``) into place under
``ROOT/.probepress-journal/``:

1. *prepared*: ``plan.json`` (every file to put or delete, whether it existed before,
   the directories to create) is written and fsynced before anything else; then every
   file about to be replaced or deleted is copied to ``backup/`` and fsynced. The
   publication is untouched: recovery just discards the journal.
2. *applying*: the marker ``applying`` is written; from now on originals may change.
   New files are copied next to their target and renamed over it (never half a file),
   stale files are deleted. Recovery rolls back: every file that existed is copied back
   from its backup (backups are never consumed, so a recovery killed part-way can run
   again), every file that did not is deleted, created directories are removed.
3. *committed*: the marker ``committed`` is written once every change is on disk. Recovery
   only finishes the clean-up. The journal leaves by one rename (to a trash folder that
   is then deleted), so its removal can never look like an earlier state.

Paths are checked by :func:`generator.confine.checked` (no symlink, nothing outside the
root); every filesystem operation goes through one :class:`FileOps`, so a test can fail
or "kill" the k-th one. A failed commit rolls itself back at once and reports the OS
error; a killed one is rolled back by the next writer (or ``publish --recover``).
"""

from __future__ import annotations

import errno
import filecmp
import json
import os
import shutil
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, Literal

from generator import lock
from generator.confine import DIR_MODE, FILE_MODE, checked
from generator.errors import InputError, ProbepressError, Problem
from generator.staging import Plan
from generator.words import counted

JOURNAL = ".probepress-journal"
PLAN_FILE = "plan.json"
APPLYING = "applying"
COMMITTED = "committed"
BACKUP = "backup"
TMP_SUFFIX = ".probepress-tmp"
State = Literal["none", "prepared", "applying", "committed"]
#: Interruptions a commit rolls back before passing them on (SIGTERM arrives as
#: SystemExit); anything else — a real SIGKILL — is left to the next recovery.
ROLLBACK_ON = (Exception, SystemExit, KeyboardInterrupt)


class CommitError(ProbepressError):
    """Moving the publication into place failed (exit 2); what was restored is said."""


@dataclass(frozen=True)
class Recovery:
    """What :func:`recover` found and did."""

    state: State
    """The journal's state when recovery started (``none``: no interrupted publish)."""
    restored: int = 0
    """Files rolled back (restored from backup or removed)."""
    leftovers: int = 0
    """Stale staging, trash and temporary folders removed."""

    def summary(self) -> str:
        """One line for people."""
        restored = counted(self.restored, "file")
        what = {
            "none": "nothing to recover",
            "prepared": "discarded an interrupted publish that had not changed anything",
            "applying": f"rolled back an interrupted publish ({restored} restored)",
            "committed": "finished the clean-up of a publish that had completed",
        }[self.state]
        stale = counted(self.leftovers, "stale folder")
        return what + (f"; removed {stale}" if self.leftovers else "")


def _create(path: Path) -> BinaryIO:
    """Open a temporary file for writing, never through a link planted at its name."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC
    return os.fdopen(os.open(path, flags, FILE_MODE), "wb")


class FileOps:
    """Every filesystem operation of :func:`commit` and :func:`recover`, one method each.

    :meth:`step` runs before each operation: tests override it to raise an ``OSError``
    (a failing disk) or a ``BaseException`` (a kill) at the k-th operation.
    """

    def step(self, action: str, path: Path) -> None:
        """Hook called before every operation (does nothing here)."""

    def write(self, path: Path, data: bytes) -> None:
        """Write a journal file durably and atomically."""
        tmp = path.with_name(path.name + TMP_SUFFIX)
        self.step("write", tmp)
        with _create(tmp) as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        self.step("rename", path)
        os.replace(tmp, path)

    def copy(self, source: Path, target: Path, mode: int) -> None:
        """Copy ``source`` over ``target`` atomically (a fsynced sibling, then a rename)."""
        tmp = target.with_name(target.name + TMP_SUFFIX)
        self.step("copy", tmp)
        with open(source, "rb") as src, _create(tmp) as dst:
            shutil.copyfileobj(src, dst, 1 << 20)
            dst.flush()
            os.fchmod(dst.fileno(), mode)
            os.fsync(dst.fileno())
        self.step("rename", target)
        os.replace(tmp, target)

    def unlink(self, path: Path) -> None:
        """Delete a file (absent is fine)."""
        self.step("unlink", path)
        path.unlink(missing_ok=True)

    def mkdir(self, path: Path) -> None:
        """Create one directory with mode 0755 (present is fine)."""
        self.step("mkdir", path)
        try:
            os.mkdir(path, DIR_MODE)
        except FileExistsError:
            return
        os.chmod(path, DIR_MODE)  # mkdir's mode is masked by the umask

    def rmdir(self, path: Path) -> None:
        """Remove a directory if it exists and is empty."""
        self.step("rmdir", path)
        try:
            os.rmdir(path)
        except FileNotFoundError:
            pass
        except OSError as exc:
            if exc.errno not in (errno.ENOTEMPTY, errno.EEXIST):
                raise

    def rename(self, source: Path, target: Path) -> None:
        """Rename within one directory (atomic)."""
        self.step("rename", target)
        os.replace(source, target)

    def fsync_dir(self, path: Path) -> None:
        """Make a directory's entries durable."""
        self.step("fsync", path)
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)

    def rmtree(self, path: Path) -> None:
        """Delete a folder of the tool's own (trash, staging)."""
        self.step("rmtree", path)
        shutil.rmtree(path, ignore_errors=True)


# -- the commit ------------------------------------------------------------------------


def _record(root: Path, todo: Plan) -> dict[str, Any]:
    """The journal's plan: each path checked (no link, inside the root), with whether a
    previous file exists and which directories the commit creates."""
    entries, dirs = [], []
    for action, paths in (("put", todo.moves), ("delete", todo.deletes)):
        for rel in paths:
            target = checked(root, root / rel)
            old = target.is_file()
            if action == "put" or old:
                entries.append({"path": rel, "action": action, "old": old})
            if action == "put":
                parent = target.parent
                while parent != root and not parent.exists():
                    dirs.append(parent.relative_to(root).as_posix())
                    parent = parent.parent
    return {"entries": entries, "dirs": sorted(set(dirs), key=lambda d: (d.count("/"), d))}


def _error(root: Path, exc: OSError, outcome: str, action: str = "publish") -> CommitError:
    where = Path(exc.filename) if exc.filename else root
    try:
        shown = where.relative_to(root).as_posix().removesuffix(TMP_SUFFIX)
    except ValueError:
        shown = str(where)
    code = errno.errorcode.get(exc.errno or 0, "EIO")
    reason = f"{exc.strerror or exc} [{code}]"
    return CommitError(
        f"{action} could not move the files into place: {shown}: {reason}; {outcome}",
        [Problem(shown, None, "commit", reason, f"make it writable, then {action} again")],
    )


def _parents(root: Path, record: dict[str, Any]) -> list[Path]:
    """Every folder whose entries a commit changes (a created folder's parent included)."""
    folders = {(root / e["path"]).parent for e in record["entries"]}
    folders |= {(root / d).parent for d in record["dirs"]}
    return sorted(folders | {root}, key=lambda p: (len(p.parts), str(p)))


def _prepare(root: Path, record: dict[str, Any], ops: FileOps) -> None:
    journal = root / JOURNAL
    ops.mkdir(journal)
    ops.write(journal / PLAN_FILE, json.dumps(record, sort_keys=True).encode("utf-8"))
    ops.fsync_dir(journal)
    ops.fsync_dir(root)
    backup = journal / BACKUP
    made = {backup}
    ops.mkdir(backup)
    for entry in record["entries"]:
        if not entry["old"]:
            continue
        saved = backup / entry["path"]
        for folder in reversed(saved.relative_to(backup).parents[:-1]):
            if backup / folder not in made:
                ops.mkdir(backup / folder)
                made.add(backup / folder)
        original = checked(root, root / entry["path"])
        ops.copy(original, saved, os.stat(original).st_mode & 0o7777)
    for folder in sorted(made, key=lambda p: -len(p.parts)):
        ops.fsync_dir(folder)
    ops.write(journal / APPLYING, b"")
    ops.fsync_dir(journal)


def _apply(root: Path, stage: Path, record: dict[str, Any], ops: FileOps) -> None:
    journal = root / JOURNAL
    for rel in record["dirs"]:
        ops.mkdir(checked(root, root / rel, leaf="dir"))
    for entry in record["entries"]:
        target = checked(root, root / entry["path"])
        if entry["action"] == "put":
            ops.copy(stage / entry["path"], target, FILE_MODE)
        else:
            ops.unlink(target)
    for folder in reversed(_parents(root, record)):
        if folder.is_dir():
            ops.fsync_dir(folder)
    ops.write(journal / COMMITTED, b"")  # the commit point
    ops.fsync_dir(journal)


def commit(
    root: Path, stage: Path, todo: Plan, ops: FileOps | None = None, action: str = "publish"
) -> None:
    """Move the staged files of ``todo`` into ``root`` under the journal, for ``action``.

    Raises:
        UnsafePath: A path would go through a symlink or leave the root (nothing changed).
        CommitError: An OS error stopped the move; the previous publication was restored
            (or, if even that failed, the message says to run ``publish --recover``).
    """
    ops = ops or FileOps()
    with lock.writing(root):
        if os.path.lexists(root / JOURNAL):
            raise InputError(
                f"{JOURNAL}: an interrupted publish; run `probepress publish --recover`"
            )
        record = _record(root, todo)
        try:
            _prepare(root, record, ops)
        except ROLLBACK_ON as exc:
            with suppress(OSError):  # only journal files are left: recovery removes them
                _retire(root, ops)
            if isinstance(exc, OSError):
                raise _error(root, exc, "nothing was changed", action) from None
            raise
        try:
            _apply(root, stage, record, ops)
        except ROLLBACK_ON as exc:
            _undo_after_failure(root, record, ops, exc, action)
            raise
        # The publication stands; if this clean-up fails the next recovery finishes it.
        with suppress(OSError):
            _retire(root, ops)


def _undo_after_failure(
    root: Path, record: dict[str, Any], ops: FileOps, exc: BaseException, action: str
) -> None:
    try:
        _rollback(root, record, ops)
        _retire(root, ops)
    except OSError as second:
        outcome = "and rolling back failed too: fix that, then run `probepress publish --recover`"
        raise _error(root, second, outcome, action) from None
    if isinstance(exc, OSError):
        raise _error(root, exc, "the previous publication was restored", action) from None


# -- recovery --------------------------------------------------------------------------


def _state(journal: Path) -> State:
    if not journal.is_dir():
        return "none"
    if (journal / COMMITTED).is_file():
        return "committed"
    if (journal / APPLYING).is_file():
        return "applying"
    return "prepared"


def _rollback(root: Path, record: dict[str, Any], ops: FileOps) -> int:
    """Restore every changed file from the backup; idempotent (backups stay)."""
    backup = root / JOURNAL / BACKUP
    restored = 0
    for entry in reversed(record["entries"]):
        target = checked(root, root / entry["path"])
        tmp = target.with_name(target.name + TMP_SUFFIX)
        if os.path.lexists(tmp):
            ops.unlink(tmp)
        if entry["old"]:
            saved = backup / entry["path"]
            if not saved.is_file():
                raise InputError(f"{JOURNAL}: the backup of {entry['path']} is missing")
            if not (target.is_file() and filecmp.cmp(saved, target, shallow=False)):
                for folder in reversed(Path(entry["path"]).parents[:-1]):
                    ops.mkdir(checked(root, root / folder, leaf="dir"))
                ops.copy(saved, target, os.stat(saved).st_mode & 0o7777)
                restored += 1
        elif os.path.lexists(target):
            ops.unlink(target)
            restored += 1
    for rel in reversed(record["dirs"]):
        ops.rmdir(checked(root, root / rel, leaf="dir"))
    for folder in reversed(_parents(root, record)):
        if folder.is_dir():
            ops.fsync_dir(folder)
    return restored


def _retire(root: Path, ops: FileOps) -> None:
    """Remove the journal: one rename (atomic: no state in between), then delete it."""
    journal = root / JOURNAL
    if not os.path.lexists(journal):
        return
    trash = root / f".probepress-trash-{os.getpid()}"
    if os.path.lexists(trash):
        ops.rmtree(trash)
    ops.rename(journal, trash)
    ops.fsync_dir(root)
    ops.rmtree(trash)


def _read_plan(journal: Path) -> dict[str, Any]:
    try:
        record = json.loads((journal / PLAN_FILE).read_text("utf-8"))
        for entry in record["entries"]:
            if not isinstance(entry["path"], str) or entry["action"] not in ("put", "delete"):
                raise ValueError(f"bad entry {entry!r}")
        if not all(isinstance(d, str) for d in record["dirs"]):
            raise ValueError("bad dirs")
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise InputError(
            f"{JOURNAL}/{PLAN_FILE}: cannot read the journal of an interrupted publish ({exc}); "
            "nothing was changed"
        ) from None
    return dict(record)


def recover(root: Path, ops: FileOps | None = None) -> Recovery:
    """Bring an interrupted publish to exactly the old or exactly the new publication,
    and remove stale staging, trash and temporary folders. Safe to run at any time, and
    again after being interrupted itself.

    Raises:
        InputError: The journal cannot be read (then nothing is changed).
        CommitError: An OS error stopped the recovery (run it again once fixed).
    """
    ops = ops or FileOps()
    journal = root / JOURNAL
    with lock.writing(root):
        checked(root, journal, leaf="dir")
        state = _state(journal)
        restored = 0
        try:
            if state == "applying":
                restored = _rollback(root, _read_plan(journal), ops)
            _retire(root, ops)
            stale = [
                p
                for p in sorted(root.glob(".probepress-*"))
                if p.is_dir() and not p.is_symlink() and p.name != JOURNAL
            ]
            for leftover in stale:
                ops.rmtree(leftover)
        except OSError as exc:
            raise _error(
                root, exc, "the recovery stopped; run `probepress publish --recover` again"
            ) from None
    return Recovery(state, restored, len(stale))
