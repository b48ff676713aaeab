"""``probepress review build`` through the CLI: which items, which pages, where, and what
a page may contain (static checks; the page in a real browser is ``test_browser.py``)."""

from __future__ import annotations

import base64
import hashlib
import html
import json
import os
import re
import shutil
from pathlib import Path

import pytest
import yaml
from markupsafe import escape

from generator.models.bank import BankManifest
from tests.conftest import CliRun, tree_state
from tests.factories import git_commit_all
from tests.render.inert import external, inspect
from tests.review.factories import (
    BANK_NAME,
    DRAFT,
    NAME,
    PROMPT,
    REVIEWED,
    SOURCE,
    append_ledger,
    dispute,
    heldout_prompt,
    make_heldout_draft,
    make_hostile,
)

PAGE = "review-v1.2-01.html"


def pages(root: Path) -> dict[str, bytes]:
    folder = root / ".private" / "review"
    return (
        {p.name: p.read_bytes() for p in sorted(folder.glob("*.html"))} if folder.is_dir() else {}
    )


def page_items(page: bytes) -> list[tuple[str, str]]:
    """``(item, seen status)`` of every item on a page, in page order."""
    text = page.decode("utf-8")
    return re.findall(
        r'<article class="item" id="item-[^"]+" data-item="([^"]+)" '
        r'data-seen="([^"]+)">',
        text,
    )


def public_state(root: Path) -> dict[str, tuple[int, int]]:
    return {k: v for k, v in tree_state(root).items() if not k.startswith(".private/")}


def test_one_private_page_per_batch_and_nothing_public(cli: CliRun, root: Path) -> None:
    before = public_state(root)
    result = cli("review", "build", "--batch-size", "2")
    assert result.exit_code == 0, result.stderr
    assert result.stderr == (f"wrote 2 review pages (3 items) to {root / '.private' / 'review'}\n")
    found = pages(root)
    assert list(found) == ["review-v1.2-01.html", "review-v1.2-02.html"]
    assert page_items(found["review-v1.2-01.html"]) == [
        ("live-003", "reviewed"),
        (DRAFT, "draft"),
    ]
    assert page_items(found["review-v1.2-02.html"]) == [("prov-003", "reviewed")]
    assert public_state(root) == before  # nothing written outside the private store


@pytest.mark.parametrize(
    ("status", "expected"),
    [("draft", [DRAFT]), ("reviewed", list(REVIEWED))],
)
def test_status_picks_the_rung(cli: CliRun, root: Path, status: str, expected: list[str]) -> None:
    result = cli("review", "build", "--status", status)
    assert result.exit_code == 0, result.stderr
    found = pages(root)
    assert list(found) == [f"review-v1.2-{status}-01.html"]
    page = found[f"review-v1.2-{status}-01.html"]
    assert [item for item, _ in page_items(page)] == expected
    assert f'data-batch="v1.2-{status}-01"'.encode() in page
    assert f"review-v1.2-{status}-01.json".encode() in page


def test_the_page_shows_what_a_reviewer_reads_and_what_the_file_needs(
    cli: CliRun, root: Path
) -> None:
    assert cli("review", "build").exit_code == 0
    page = pages(root)[PAGE].decode("utf-8")
    rows = {
        json.loads(line)["id"]: json.loads(line)
        for line in (root / "bank" / "public.jsonl").read_text("utf-8").splitlines()
    }
    item = rows["live-003"]
    shown = html.unescape(page)
    for text in (
        item["prompt"],
        item["pass_criterion"],
        item["reference"]["answer"],
        *item["sources"],
        *(step["by"] for step in item["validation"]),
        *(step["on"] for step in item["validation"]),
    ):
        assert text in shown, text
    manifest = BankManifest.model_validate(
        yaml.safe_load((root / "bank" / "bank.yaml").read_text("utf-8"))
    )
    encoded = re.search(r'data-bank="([^"]+)"', page)
    assert encoded and base64.b64decode(encoded.group(1)).decode("utf-8") == manifest.name
    assert 'data-bank-version="v1.2"' in page
    # A resolution box only where a sign-off validates (the item is at reviewed).
    assert 'id="resolution-live-003"' in page
    assert f'id="resolution-{DRAFT}"' not in page
    assert "Private page" not in page  # no held-out item is on it


def test_the_page_is_self_contained_under_a_strict_policy(cli: CliRun, root: Path) -> None:
    make_hostile(root)
    assert cli("review", "build").exit_code == 0
    found = inspect(pages(root)[PAGE])
    csp = found.csp()
    assert csp.startswith("default-src 'none'; ")
    assert f"style-src '{found.style_hash()}'" in csp
    for part in ("img-src 'none'", "connect-src 'none'", "base-uri 'none'", "form-action 'none'"):
        assert part in csp
    assert found.count("script") == 1 and found.count("style") == 1
    assert not [u for u in found.urls if external(u[2]) or u[2]]
    assert found.handlers == [] and found.style_attributes == []
    for tag in ("img", "iframe", "object", "embed", "link", "base", "svg", "a"):
        assert found.count(tag) == 0, tag


def test_the_inline_script_is_the_one_the_policy_admits(cli: CliRun, root: Path) -> None:
    assert cli("review", "build").exit_code == 0
    text = pages(root)[PAGE].decode("utf-8")
    script = re.search(r"<script>(.*?)</script>", text, re.S)
    assert script is not None
    digest = base64.b64encode(hashlib.sha256(script.group(1).encode("utf-8")).digest())
    assert f"script-src 'sha256-{digest.decode('ascii')}'" in inspect(text.encode()).csp()


def test_untrusted_text_is_escaped(cli: CliRun, root: Path) -> None:
    make_hostile(root)
    assert cli("review", "build").exit_code == 0
    page = pages(root)[PAGE].decode("utf-8")
    for planted in (PROMPT, NAME.replace("\u202e", "[U+202E]"), SOURCE):
        assert planted not in page
        assert str(escape(planted)) in page
    assert "\u202e" not in page
    shown_name = BANK_NAME.replace("\u202e", "[U+202E]")
    assert str(escape(shown_name)) in page
    # The saved file must name the bank exactly: its data carries the name base64-encoded.
    encoded = re.search(r'data-bank="([^"]+)"', page)
    assert encoded and base64.b64decode(encoded.group(1)).decode("utf-8") == BANK_NAME


def test_same_bank_same_bytes(cli: CliRun, root: Path, tmp_path: Path) -> None:
    assert cli("review", "build").exit_code == 0
    first = pages(root)
    other = shutil.copytree(root, tmp_path / "elsewhere" / "copy", symlinks=True)
    shutil.rmtree(other / ".private" / "review")
    assert cli("review", "build", root_dir=other).exit_code == 0
    assert pages(other) == first
    assert cli("review", "build").exit_code == 0
    assert pages(root) == first


def test_a_held_out_item_is_shown_on_a_private_page(cli: CliRun, root: Path) -> None:
    item = make_heldout_draft(root)
    result = cli("review", "build", "--status", "draft")
    assert result.exit_code == 0, result.stderr
    assert result.stderr == (
        "wrote 1 review page (2 items, 1 held out: keep the pages private) to "
        f"{root / '.private' / 'review'}\n"
    )
    page = pages(root)["review-v1.2-draft-01.html"].decode("utf-8")
    assert (item, "draft") in page_items(page.encode())
    assert str(escape(heldout_prompt(root, item))) in page
    assert "Private page." in page and "1 held-out item " in page


def test_a_held_out_item_needs_the_private_store(cli: CliRun, root: Path) -> None:
    make_heldout_draft(root)
    store = root / ".private" / "heldout_items.jsonl"
    store.rename(root / "elsewhere.jsonl")
    before = tree_state(root)
    result = cli("review", "build")
    assert result.exit_code == 2
    assert result.stderr == (
        "cannot read the held-out items to review from the private store:\n"
        f"{store}: held-out items are not in the private store [private-store]; fix: pass "
        "--private DIR or set PROBEPRESS_PRIVATE (run `probepress demo` for the example)\n"
    )
    assert tree_state(root) == before


def test_ledger_climbs_count(cli: CliRun, root: Path) -> None:
    append_ledger(
        root,
        {"item": DRAFT, "status": "reviewed", "by": "M. Ortiz", "on": "2026-11-02"},
        {
            "item": "live-003",
            "status": "validated",
            "by": "J. Lind",
            "on": "2026-11-03",
            "resolution": "agreed on the wording",
        },
    )
    assert cli("review", "build").exit_code == 0
    page = pages(root)[PAGE].decode("utf-8")
    assert page_items(page.encode()) == [(DRAFT, "reviewed"), ("prov-003", "reviewed")]
    assert '2026-11-02 by <bdi>M. Ortiz</bdi> <span class="note">(status ledger)</span>' in page
    result = cli("review", "build", "--status", "draft")
    assert result.exit_code == 0
    assert result.stderr == (
        "nothing to review: no active item of the current bank version is waiting\n"
    )
    assert "review-v1.2-draft-01.html" not in pages(root)


def test_a_bad_ledger_line_is_refused_at_its_line(cli: CliRun, root: Path) -> None:
    append_ledger(root, {"item": DRAFT, "status": "draft", "by": "M. Ortiz", "on": "2026-11-02"})
    result = cli("review", "build")
    assert result.exit_code == 2
    assert result.stderr.startswith("cannot read the bank:\nbank/status.jsonl:1: ")
    assert "a ledger line records a climb: its status is never 'draft'" in result.stderr
    assert pages(root) == {}


def _refused(root: Path, asked: Path, where: str) -> str:
    private = root / ".private"
    return (
        f"--out {asked}: refused: {where} (a review page holds held-out text and is never "
        f"published); write it to the private store (the default, {private / 'review'}) "
        "or outside the root\n"
    )


@pytest.mark.parametrize("area", ["site_src", "site_src/downloads", "bank", "site", "figures"])
def test_a_public_folder_is_refused(cli: CliRun, root: Path, area: str) -> None:
    before = tree_state(root)
    asked = root / area / "review"
    result = cli("review", "build", "--out", str(asked))
    assert result.exit_code == 2
    top = area.split("/", maxsplit=1)[0]
    assert result.stderr == _refused(root, asked, f"inside {top}/ of the root")
    assert tree_state(root) == before


def test_the_root_outside_the_private_store_is_refused(cli: CliRun, root: Path) -> None:
    before = tree_state(root)
    asked = root / "reviews"
    result = cli("review", "build", "--out", str(asked))
    assert result.exit_code == 2
    where = f"inside the root {root} and outside its private store {root / '.private'}"
    assert result.stderr == _refused(root, asked, where)
    assert tree_state(root) == before


def test_a_link_into_a_public_folder_is_refused(cli: CliRun, root: Path, tmp_path: Path) -> None:
    link = tmp_path / "innocent"
    os.symlink(root / "site_src", link)
    before = tree_state(root)
    result = cli("review", "build", "--out", str(link / "review"))
    assert result.exit_code == 2
    assert result.stderr == _refused(root, link / "review", "inside site_src/ of the root")
    assert tree_state(root) == before


def test_a_folder_outside_the_root_is_allowed(cli: CliRun, root: Path, tmp_path: Path) -> None:
    out = tmp_path / "for-ann"
    result = cli("review", "build", "--out", str(out))
    assert result.exit_code == 0, result.stderr
    assert sorted(p.name for p in out.iterdir()) == [PAGE]
    assert pages(root) == {}


def test_batch_size_is_bounded(cli: CliRun, root: Path) -> None:
    result = cli("review", "build", "--batch-size", "0")
    assert result.exit_code == 2
    assert "Invalid value for '--batch-size': 0 is not in the range 1<=x<=500." in result.stderr
    assert pages(root) == {}


def test_a_recorded_disagreement_asks_for_a_resolution(cli: CliRun, root: Path) -> None:
    dispute(root)
    assert cli("review", "build").exit_code == 0
    page = pages(root)[PAGE].decode("utf-8")
    assert 'data-item="live-003" data-seen="reviewed" data-disputed="true">' in page
    assert 'data-item="prov-003" data-seen="reviewed">' in page
    assert "disagreement</span> 2026-10-10 by <bdi>K. Osei</bdi> while it was reviewed" in page
    assert "The criterion fails an answer that gives a clearly labelled example." in page
    assert page.count("(required: a disagreement is recorded since the item was reviewed") == 1


def test_json_lists_what_was_written(cli: CliRun, root: Path) -> None:
    result = cli("review", "build", "--batch-size", "2", "--json")
    assert result.exit_code == 0
    folder = root / ".private" / "review"
    assert json.loads(result.stdout) == {
        "folder": str(folder),
        "pages": [str(folder / "review-v1.2-01.html"), str(folder / "review-v1.2-02.html")],
        "items": 3,
        "heldout": 0,
    }


def test_a_private_store_git_would_commit_is_refused(cli: CliRun, root: Path) -> None:
    (root / ".gitignore").write_text("site/\n", "utf-8")
    git_commit_all(root)
    before = tree_state(root)
    result = cli("review", "build")
    assert result.exit_code == 2
    private = root / ".private"
    assert result.stderr == (
        f"--out {private / 'review'}: refused: the private store {private} is inside the git "
        f"checkout {root} and git does not ignore it (a review page holds held-out text and "
        "is never published); add it to .gitignore, or write the page outside the root\n"
    )
    assert tree_state(root) == before
    (root / ".gitignore").write_text("site/\n.private/\n", "utf-8")
    assert cli("review", "build").exit_code == 0
    assert list(pages(root)) == [PAGE]


def test_a_held_out_items_notes_come_back_on_the_private_page_only(
    cli: CliRun, root: Path, tmp_path: Path
) -> None:
    item = make_heldout_draft(root)
    manifest = yaml.safe_load((root / "bank" / "bank.yaml").read_text("utf-8"))
    note = "Hint 7 gives the answer away; reword the second sentence."
    review = {
        "bank": manifest["name"],
        "bank_version": "v1.2",
        "batch": "v1.2-draft-01",
        "decisions": [
            {"item": item, "seen_status": "draft", "decision": "sign-off", "comment": note}
        ],
    }
    saved = tmp_path / "review-v1.2-draft-01.json"
    saved.write_text(json.dumps(review), "utf-8")
    applied = cli("review", "apply", str(saved), "--reviewer", "M. Ortiz", "--on", "2026-12-01")
    assert applied.exit_code == 0, applied.stderr
    assert note not in (root / "bank" / "status.jsonl").read_text("utf-8")
    assert cli("review", "build", "--status", "reviewed").exit_code == 0
    page = pages(root)["review-v1.2-reviewed-01.html"].decode("utf-8")
    assert (item, "reviewed") in page_items(page.encode())
    assert (
        '2026-12-01 by <bdi>M. Ortiz</bdi> <span class="note">(status ledger)</span>'
        f'<div class="said"><span class="note">Comment:</span> <bdi class="text">{note}</bdi>'
    ) in page
