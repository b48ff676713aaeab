"""Same inputs, same bytes: whatever the time zone, locale, working directory and umask."""

from __future__ import annotations

import stat
from pathlib import Path

from tests.render.conftest import ENV_B, copy_root, frozen_files, run_render

# The PDFs rendered for real elsewhere: a PDF is a function of its page's HTML (every page
# is compared), the pinned fonts and the environment, so these cover what the environment
# could reach: the leaderboard (tables over 15 pages, the SVG forest plot with its text)
# and the jury card whose Japanese prompt no pinned face covers (the fallback font).
REAL = (
    "site_src/volumes/vol-001/leaderboard.pdf",
    "site_src/volumes/vol-001/jury/demo-fjord-fjord-ref-1.pdf",
)


def test_rendering_elsewhere_gives_identical_html_and_pdf_bytes(
    rendered: Path, figured_src: Path, tmp_path: Path
) -> None:
    # The session's render ran under ENV_A in another directory; render vol-001 again
    # under ENV_B from a different root path and working directory.
    other = copy_root(figured_src, tmp_path / "elsewhere" / "root")
    cwd = tmp_path / "cwd-b"
    cwd.mkdir()
    run_render(other, ENV_B, cwd, "vol-001", real=REAL)
    mine = {k: v for k, v in frozen_files(other).items() if "vol-001" in k}
    theirs = {k: v for k, v in frozen_files(rendered).items() if "vol-001" in k}
    assert sorted(mine) == sorted(theirs)
    # The leaderboard and a jury card for each of 6 candidates and 2 baselines.
    assert len([k for k in mine if k.endswith(".pdf")]) == 1 + 6 + 2
    compared = [k for k in mine if not k.endswith(".pdf") or k in REAL]
    assert len(compared) == len(mine) - (1 + 6 + 2) + len(REAL)
    different = [k for k in compared if mine[k] != theirs[k]]
    assert not different, f"bytes differ between environments: {different}"
    # The registry holds exactly vol-001's entries in both (vol-002 was never rendered
    # in `other`), so compare those entries rather than the whole file.
    for path in (other / "site_src" / "volumes" / "vol-001").rglob("*"):
        if path.is_file():
            assert stat.S_IMODE(path.stat().st_mode) == 0o644, path


def test_nothing_machine_specific_leaks_into_outputs(rendered: Path) -> None:
    for rel, data in frozen_files(rendered).items():
        for needle in (str(rendered).encode(), b"/tmp/", b"/home/", b"file:"):
            assert needle not in data, f"{rel} contains {needle!r}"
