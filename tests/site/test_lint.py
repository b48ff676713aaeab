"""The bare-number lint: numbers in hand-written pages come from citations only."""

from __future__ import annotations

from pathlib import Path

import pytest

from generator.site.lint import BareNumber, bare_numbers, hand_written_pages, lint_pages
from generator.store import Layout

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("a rate of 35%", ["35%"]),
        ("35.3 % of draws", ["35.3 %"]),
        ("12 per cent and 12 percent", ["12 per cent", "12 percent"]),
        ("AC1 was 0.75.", ["0.75"]),
        ("about .5 of it", [".5"]),
        ("moved -0.8 then +2.1", ["-0.8", "+2.1"]),
        ("2.5x faster", ["2.5"]),
        ("3 pts and +2.1 percentage points", ["3 pts", "+2.1 percentage points"]),
        ("up 4 points", ["4 points"]),
    ],
)
def test_flags_percentages_points_and_decimals(text: str, tokens: list[str]) -> None:
    assert [b.token for b in bare_numbers(text)] == tokens


@pytest.mark.parametrize(
    "text",
    [
        "nine gates, 13 categories, two halves of 5 draws",
        "bank v1.2, versions 1.2.3, file bank_v1_2_public.jsonl",
        "released 2026-10-20; SHA-256 of every file",
        "licensed CC BY 4.0 (code: Apache-2.0)",
        'rate {{ fig("vol-002/a/core_rate") }} ({{ fig("vol-002/a/core_rate", "narrow") }})',
        "end of a sentence 3.\nNext line",
    ],
)
def test_leaves_counts_versions_names_and_citations_alone(text: str) -> None:
    assert bare_numbers(text) == []


def test_reports_lines_in_reading_order() -> None:
    text = "first 0.5\nnone\nthird 7% and 0.25"
    assert bare_numbers(text) == [
        BareNumber(1, "0.5"),
        BareNumber(3, "7%"),
        BareNumber(3, "0.25"),
    ]


def test_a_number_next_to_a_citation_is_still_flagged() -> None:
    assert bare_numbers('{{ fig("a/b") }} and 0.3') == [BareNumber(1, "0.3")]


def test_lint_pages_names_file_line_and_fix(tmp_path: Path) -> None:
    site = tmp_path / "site_src"
    (site / "volumes").mkdir(parents=True)
    (site / "index.md").write_text("# Home\n\nAbout 42% fail.\n", encoding="utf-8")
    (site / "volumes" / "index.md").write_text("Generated: 42%\n", encoding="utf-8")
    [problem] = lint_pages(Layout.at(tmp_path))
    assert (problem.path, problem.line, problem.rule) == ("site_src/index.md", 3, "bare-number")
    assert "'42%'" in problem.message and 'fig("' in problem.fix


def test_the_repository_pages_have_no_bare_numbers() -> None:
    pages = hand_written_pages(REPO / "site_src")
    assert {p.name for p in pages} >= {"index.md", "methodology.md", "findings.md", "about.md"}
    assert lint_pages(Layout.at(REPO)) == []
