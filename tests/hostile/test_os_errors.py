"""An operating-system error during a command (a full disk, a permission) is a clear
message naming the path and the errno text, exit 2; ``--traceback`` still shows it, and
programming errors are never dressed up as one."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import CliRun, tree_state

FULL_DISK = "No space left on device [ENOSPC]"


def _full_disk(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every atomic write goes to /dev/full, which fails like a full disk (ENOSPC)."""

    def mkstemp(prefix: str = "", suffix: str = "", dir: Any = None) -> tuple[int, str]:
        return os.open("/dev/full", os.O_WRONLY), os.path.join(dir, f"{prefix}x{suffix}")

    monkeypatch.setattr(tempfile, "mkstemp", mkstemp)


@pytest.mark.parametrize(
    ("args", "written"),
    [
        (("figures", "vol-001"), "figures/figures.json"),
        (("render", "vol-001", "--no-pdf"), "site_src/volumes/vol-001/"),
        (("site", "--no-build"), "site_src/"),
    ],
    ids=["figures", "render", "site"],
)
def test_full_disk_is_a_clear_exit_2(
    cli: CliRun, root: Path, monkeypatch: pytest.MonkeyPatch, args: tuple[str, ...], written: str
) -> None:
    (root / "figures" / "figures.json").unlink()  # so that figures has something to write
    if args[0] != "figures":
        cli("figures", "vol-001")
        cli("figures", "vol-002")
    before = tree_state(root)
    _full_disk(monkeypatch)
    result = cli(*args)
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    assert result.stderr.startswith(f"could not run: {root}/{written}"), result.stderr
    assert result.stderr.rstrip().endswith(FULL_DISK), result.stderr
    # The result cache and the writer's lock file (generator.lock) are not outputs.
    ignored = (".private/cache/", ".probepress-lock")
    assert {k: v for k, v in tree_state(root).items() if not k.startswith(ignored)} == {
        k: v for k, v in before.items() if not k.startswith(ignored)
    }


def test_traceback_flag_shows_the_os_error(
    cli: CliRun, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (root / "figures" / "figures.json").unlink()
    _full_disk(monkeypatch)
    with pytest.raises(OSError, match="No space left on device"):
        cli("--traceback", "figures", "vol-001")


def test_a_programming_error_keeps_its_traceback(
    cli: CliRun, monkeypatch: pytest.MonkeyPatch
) -> None:
    import generator.summary

    def broken(data: object) -> None:
        raise KeyError("a bug")

    monkeypatch.setattr(generator.summary, "summarise", broken)
    with pytest.raises(KeyError, match="a bug"):
        cli("show", "vol-001")


def test_an_os_error_without_a_path_still_says_what(
    cli: CliRun, monkeypatch: pytest.MonkeyPatch
) -> None:
    import errno

    import generator.summary

    def failing(data: object) -> None:
        raise OSError(errno.EIO, os.strerror(errno.EIO))

    monkeypatch.setattr(generator.summary, "summarise", failing)
    result = cli("show", "vol-001")
    assert result.exit_code == 2
    assert result.stderr.strip() == "could not run: (no path): Input/output error [EIO]"
