"""Golden tests: the example's frozen HTML, byte for byte (`pytest --update-golden`)."""

from __future__ import annotations

import difflib
from pathlib import Path

import pytest

GOLDEN = Path(__file__).resolve().parent.parent / "golden"
PAGES = (
    # Both leaderboards; a card with a grader recusal, one with a panel recusal, one
    # without any, and an anchor's card with grader refusals.
    "vol-001/leaderboard.html",
    "vol-001/jury/demo-kestrel-kestrel-chat-3.html",
    "vol-001/jury/demo-aurora-aurora-7b-chat.html",
    "vol-002/leaderboard.html",
    "vol-002/jury/demo-brightwave-bw-large.html",
    "vol-002/jury/demo-harrow-harrow-ref-2.html",
)


@pytest.mark.parametrize("page", PAGES)
def test_frozen_html_matches_golden(rendered: Path, update_golden: bool, page: str) -> None:
    actual = (rendered / "site_src" / "volumes" / page).read_bytes()
    expected_path = GOLDEN / page
    if update_golden:
        expected_path.parent.mkdir(parents=True, exist_ok=True)
        expected_path.write_bytes(actual)
        return
    assert expected_path.is_file(), f"no golden file {expected_path}; run pytest --update-golden"
    expected = expected_path.read_bytes()
    if actual != expected:
        diff = difflib.unified_diff(
            expected.decode("utf-8").splitlines(),
            actual.decode("utf-8").splitlines(),
            f"golden/{page}",
            f"rendered/{page}",
            lineterm="",
            n=1,
        )
        shown = "\n".join(list(diff)[:80])
        pytest.fail(
            f"{page} differs from tests/golden/{page} (review, then rewrite with "
            f"`pytest tests/render --update-golden`):\n{shown}"
        )


def test_golden_pages_cover_a_recusal() -> None:
    """The golden set keeps at least one card whose jury had a recusal."""
    cards = [GOLDEN / p for p in PAGES if "/jury/" in p]
    assert any(b"Recused judge" in p.read_bytes() for p in cards if p.is_file())
