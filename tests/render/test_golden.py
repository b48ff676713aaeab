"""Golden tests: a fresh render of the example equals the committed frozen pages, byte
for byte.

The expected bytes are the committed publication itself (``site_src/volumes/``), not a
second copy under ``tests/``: a change to a template or an input shows up here as a diff
against what readers were served. ``pytest tests/render --update-golden`` writes the fresh
render over the committed pages for review in ``git diff`` — published volumes are frozen,
so only do that while a volume has not been published for real (an erratum is a new
volume).
"""

from __future__ import annotations

import difflib
from pathlib import Path

import pytest

from tests.render.conftest import VOLUMES

REPO = Path(__file__).resolve().parent.parent.parent
COMMITTED = REPO / "site_src" / "volumes"
# The volumes the render fixture renders (vol-003's committed pages are read by
# tests/demo/test_vol3.py; rendering its PDFs here too would cost minutes).
PAGES = tuple(
    sorted(
        p.relative_to(COMMITTED).as_posix()
        for volume in VOLUMES
        for p in (COMMITTED / volume).glob("**/*.html")
        if p.is_file()
    )
)


def test_the_committed_publication_has_frozen_pages() -> None:
    """Both leaderboards and at least one jury card per volume are committed."""
    assert "vol-001/leaderboard.html" in PAGES
    assert "vol-002/leaderboard.html" in PAGES
    assert {p.split("/")[0] for p in PAGES if "/jury/" in p} == {"vol-001", "vol-002"}


@pytest.mark.parametrize("page", PAGES)
def test_frozen_html_matches_the_committed_page(
    rendered: Path, update_golden: bool, page: str
) -> None:
    actual = (rendered / "site_src" / "volumes" / page).read_bytes()
    expected_path = COMMITTED / page
    if update_golden:
        expected_path.write_bytes(actual)
        return
    expected = expected_path.read_bytes()
    if actual != expected:
        diff = difflib.unified_diff(
            expected.decode("utf-8").splitlines(),
            actual.decode("utf-8").splitlines(),
            f"site_src/volumes/{page}",
            f"rendered/{page}",
            lineterm="",
            n=1,
        )
        shown = "\n".join(list(diff)[:80])
        pytest.fail(
            f"a fresh render of {page} differs from the committed page (review; before a "
            f"volume is published for real, rewrite with `pytest tests/render "
            f"--update-golden`):\n{shown}"
        )


def test_the_golden_pages_cover_a_recusal() -> None:
    """The compared cards include at least one whose jury had a recusal."""
    cards = [COMMITTED / p for p in PAGES if "/jury/" in p]
    assert any(b"Recused judge" in p.read_bytes() for p in cards)


@pytest.mark.parametrize("volume", ["vol-001", "vol-002"])
def test_split_half_columns_hold_numbers(rendered: Path, volume: str) -> None:
    """Every split-half cell of a two-half volume shows a number: the template once asked
    for ``half/A/rate`` while the figures are ``half/a/rate``, and every column printed
    "—" in every frozen page (now an unregistered lookup fails the render)."""
    page = (rendered / "site_src" / "volumes" / volume / "leaderboard.html").read_text("utf-8")
    section = page.split('<section id="split-half">', 1)[1].split("</section>", 1)[0]
    body = section.split("<tbody>", 1)[1]
    assert body.count("<tr") >= 2
    assert '<td class="num">—</td>' not in body
    assert '<td class="num">' in body
