"""The review page in a real browser (Debian's headless Chromium through Playwright).

One page load: the page is opened from ``file://`` with every other request refused,
hostile text planted in a prompt, a source, a reviewer's name and the bank's name must
run nothing, the policy must admit the page's own style and script (a refusal shows as a
console error), and the round trip must work: decisions filled in, Save pressed, the
downloaded file read back as a ``ReviewFile`` naming the bank exactly.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from generator.models.review import ReviewFile
from tests import browser as chromium
from tests.browser import Visit, layout_problems, open_page
from tests.conftest import CliRun
from tests.review.factories import (
    BANK_NAME,
    DRAFT,
    NAME,
    PROMPT,
    SOURCE,
    dispute,
    make_hostile,
)

pytestmark = pytest.mark.browser
browser = chromium.browser  # the shared fixture: Debian's Chromium, one per module

ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts" / "review"


def fill_in(page: Any) -> None:
    """A reviewer's first choices: sign off live-003 (to validated, a disagreement is on
    record) and disagree on the draft, each without the text it needs; skip prov-003."""
    page.check("input[name='decision-live-003'][value='sign-off']")
    page.fill("#comment-live-003", "Clear and fair.")
    page.check(f"input[name='decision-{DRAFT}'][value='disagree']")


def test_review_round_trip_runs_nothing_and_saves_a_review_file(
    browser: Any, cli: CliRun, root: Path
) -> None:
    make_hostile(root)
    dispute(root)
    assert cli("review", "build").exit_code == 0
    seen = Visit()
    page = open_page(
        browser, root / ".private" / "review" / "review-v1.2-01.html", seen, accept_downloads=True
    )
    text = page.inner_text("body")
    for planted in (PROMPT, NAME.replace("\u202e", "[U+202E]"), SOURCE):
        assert planted in text  # shown as text, never run
    assert page.evaluate("document.querySelectorAll('img, iframe, object, embed').length") == 0
    assert page.evaluate("document.scripts.length") == 1
    assert layout_problems(page) == []  # nothing to scroll sideways for on a phone
    assert page.is_hidden("#resolution-live-003")  # until a sign-off would validate
    fill_in(page)
    assert page.is_visible("#resolution-live-003")
    page.click("#save")  # refused: no resolution, no comment
    assert page.inner_text("#saved") == (
        "Not saved: 2 item(s) need a comment or a resolution (marked above)."
    )
    assert page.inner_text("#item-live-003 .problem") == (
        "A disagreement is recorded: a sign-off to validated says how it was resolved."
    )
    assert page.inner_text(f"#item-{DRAFT} .problem") == (
        "A disagreement needs a comment saying what is wrong."
    )
    page.fill("#resolution-live-003", "We agreed the criterion allows a worked example.")
    page.fill(f"#comment-{DRAFT}", "The premise is true in some countries; say which.")
    with page.expect_download() as download:
        page.click("#save")
    saved = download.value
    assert saved.suggested_filename == "review-v1.2-01.json"
    data = Path(saved.path()).read_bytes()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "review-page.png"), full_page=True)
    assert page.is_hidden(f"#item-{DRAFT} .problem")
    assert page.is_hidden("#item-live-003 .problem")
    page.context.close()
    assert not seen.dialogs, seen.dialogs
    assert not seen.requests, seen.requests
    assert not seen.console, seen.console  # includes any CSP refusal of style or script

    review = ReviewFile.model_validate_json(data)
    assert review.bank == BANK_NAME  # exactly, bidi control and all
    assert (review.bank_version, review.batch) == ("v1.2", "v1.2-01")
    assert [(d.item, d.seen_status, d.decision) for d in review.decisions] == [
        ("live-003", "reviewed", "sign-off"),
        (DRAFT, "draft", "disagree"),
        ("prov-003", "reviewed", "skip"),
    ]
    first, second, third = review.decisions
    assert first.resolution == "We agreed the criterion allows a worked example."
    assert first.comment == "Clear and fair."
    assert second.comment == "The premise is true in some countries; say which."
    assert second.resolution == "" and third.comment == "" and third.resolution == ""
