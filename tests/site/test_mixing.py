"""The mixing lint: a sentence or table row of a hand-written page never cites a core
figure beside a full-bank one, nor full-bank figures of two bank versions; the
publishing gate refuses such a page with file, line and rule."""

from __future__ import annotations

from pathlib import Path

import pytest

from generator.site.mixing import Population, mixed_sentences, population
from tests.conftest import CliRun

VERSIONS = {"vol-001": "v1", "vol-002": "v1.2"}
KINDS = {"count": ("bank/items", "jury/sample/stratified"), "agreement": ("jury/ac1",)}


def _kind(fid: str) -> str | None:
    tail = fid.split("/", 1)[1]
    for kind, tails in KINDS.items():
        if tail in tails:
            return kind
    return "difference" if "difference" in fid else "rate"


def _fig(fid: str) -> str:
    return '{{ fig("' + fid + '") }}'


CORE = _fig("vol-002/m/core_rate")
FULL = _fig("vol-002/m/full_rate")
OLD_FULL = _fig("vol-001/m/full_rate")


@pytest.mark.parametrize(
    ("fid", "expected"),
    [
        ("vol-002/m/core_rate", Population(True, None)),
        ("vol-002/m/rank_worst", Population(True, None)),
        ("vol-002/drift/anchor/core", Population(True, None)),
        ("vol-002/m/full_rate", Population(False, "v1.2")),
        ("vol-001/m/category/safety/rate", Population(False, "v1")),
        ("vol-002/m/split_half/difference", Population(False, "v1.2")),
        ("vol-002/m/rubric/score", Population(False, "v1.2")),
        ("vol-002/jury/ac1", None),
        ("vol-002/bank/items", None),
        ("vol-009/m/full_rate", None),
    ],
)
def test_each_figure_has_its_population(fid: str, expected: Population | None) -> None:
    assert population(fid, _kind(fid), VERSIONS) == expected


def test_a_sentence_with_a_core_and_a_full_bank_figure_is_refused() -> None:
    text = f"# Findings\n\nThe core rate is {CORE} and the full-bank rate\nis {FULL}.\n"
    [mixed] = mixed_sentences(text, _kind, VERSIONS)
    assert (mixed.line, mixed.rule) == (3, "mixed-core-full")
    assert mixed.why == "cites a figure of the core beside one of the full bank (bank v1.2)"
    assert (mixed.first, mixed.second) == ("vol-002/m/core_rate", "vol-002/m/full_rate")


def test_each_in_its_own_sentence_or_row_is_fine() -> None:
    text = (
        f"The core rate is {CORE}. The full-bank rate is {FULL}, vs. {FULL} before.\n\n"
        f"| core | {CORE} |\n| full | {FULL} |\n"
        f"Agreement {_fig('vol-002/jury/ac1')} beside {CORE}.\n"
    )
    assert mixed_sentences(text, _kind, VERSIONS) == []


def test_a_table_row_is_one_unit_and_vs_does_not_end_a_sentence() -> None:
    row = f"| Gannet | {CORE} | {FULL} |\n"
    assert [m.rule for m in mixed_sentences(row, _kind, VERSIONS)] == ["mixed-core-full"]
    vs = f"Core {CORE} vs. full {FULL}."
    assert [m.rule for m in mixed_sentences(vs, _kind, VERSIONS)] == ["mixed-core-full"]


def test_full_bank_figures_of_two_bank_versions_are_refused_core_ones_are_not() -> None:
    old_core = _fig("vol-001/m/core_rate")
    text = f"It fell from {OLD_FULL} to {FULL}.\n\nThe core went from {old_core} to {CORE}.\n"
    [mixed] = mixed_sentences(text, _kind, VERSIONS)
    assert (mixed.line, mixed.rule) == (1, "mixed-bank-versions")
    assert mixed.why == (
        "compares figures of the full bank (bank v1) and of the full bank (bank v1.2)"
    )


def test_the_publishing_gate_refuses_a_page_that_mixes(cli: CliRun, root: Path) -> None:
    page = root / "site_src" / "findings.md"
    page.parent.mkdir(exist_ok=True)
    slug = "demo-gannet-gannet-xl"
    page.write_text(
        "# Findings\n\nOne sentence, two populations: Gannet XL fails\n"
        + f"{_fig(f'vol-002/{slug}/core_rate')} of the core and "
        + f"{_fig(f'vol-002/{slug}/full_rate')} of the full bank.\n",
        encoding="utf-8",
    )
    line = 3
    result = cli("gate", "publishing", "vol-002")
    assert result.exit_code == 1
    assert (
        f"error: site_src/findings.md:{line}: one sentence cites a figure of the core beside "
        f"one of the full bank (bank v1.2): vol-002/{slug}/core_rate and "
        f"vol-002/{slug}/full_rate [publishing/mixed-core-full]; fix: compare core with "
        "core, or full-bank figures of one bank version; say the other in its own sentence"
    ) in result.stderr
