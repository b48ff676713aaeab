"""Figure citations: resolution, and a clear error for anything that does not resolve."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from generator.errors import InputError
from generator.models.figures import Figure, Interval
from generator.site.figrefs import citations, resolve


def _figure(fid: str, display: str, **intervals: str) -> Figure:
    return Figure(
        id=fid,
        label="A rate",
        kind="rate",
        value="0.2",
        precision=4,
        display=display,
        intervals={
            name: Interval(lo="0.1", hi="0.3", display=shown, method="m", confidence="0.95")
            for name, shown in intervals.items()
        },
        method="mean",
        sources=[],
    )


FIGURES = {
    "vol-001/a/core_rate": _figure("vol-001/a/core_rate", "20.0%", narrow="18.0%–22.0%"),
    "vol-001/jury/ac1": _figure("vol-001/jury/ac1", "<0.7>"),
}


def test_a_citation_becomes_the_display_form() -> None:
    text = "Rate {{ fig(\"vol-001/a/core_rate\") }} and {{fig('vol-001/a/core_rate')}}."
    assert resolve(text, FIGURES, "p.md") == "Rate 20.0% and 20.0%."


def test_a_second_argument_names_an_interval() -> None:
    text = '{{ fig("vol-001/a/core_rate", "narrow") }}'
    assert resolve(text, FIGURES, "p.md") == "18.0%–22.0%"


def test_displays_are_escaped() -> None:
    assert resolve('{{ fig("vol-001/jury/ac1") }}', FIGURES, "p.md") == "&lt;0.7&gt;"


def test_an_unknown_id_names_the_page_the_line_and_the_id() -> None:
    text = 'one\ntwo {{ fig("vol-001/a/core_rate") }}\nthree {{ fig("vol-009/nope") }}\n'
    with pytest.raises(InputError) as caught:
        resolve(text, FIGURES, "site_src/index.md")
    assert str(caught.value).startswith("site_src/index.md: 1 figure citation")
    [problem] = caught.value.problems
    assert (problem.path, problem.line, problem.rule) == ("site_src/index.md", 3, "unknown-figure")
    assert "'vol-009/nope'" in problem.message


def test_an_unknown_interval_is_an_error_listing_the_known_ones() -> None:
    with pytest.raises(InputError) as caught:
        resolve('{{ fig("vol-001/a/core_rate", "wide") }}', FIGURES, "p.md")
    [problem] = caught.value.problems
    assert problem.rule == "unknown-interval"
    assert "'wide'" in problem.message and "narrow" in problem.message


@pytest.mark.parametrize(
    "bad",
    [
        "{{ fig(vol-001/a/core_rate) }}",
        '{{ fig("vol-001/a/core_rate" }}',
        '{{ fig("vol-001/a/core_rate", narrow) }}',
        '{{ fig("vol-001/a/core_rate")',
    ],
)
def test_a_malformed_citation_is_an_error(bad: str) -> None:
    with pytest.raises(InputError) as caught:
        resolve(f"x\n{bad}\n", FIGURES, "p.md")
    assert [(p.line, p.rule) for p in caught.value.problems] == [(2, "figure-citation")]


def test_every_problem_of_a_page_is_listed_in_line_order() -> None:
    text = '{{ fig("b") }}\n{{ fig(c) }}\n{{ fig("a") }}'
    with pytest.raises(InputError) as caught:
        resolve(text, FIGURES, "p.md")
    assert [p.line for p in caught.value.problems] == [1, 2, 3]


def test_citations_reports_ids_parts_and_lines() -> None:
    found = citations('a\n{{ fig("x/y") }} {{ fig("x/z", "wide") }}')
    assert [(c.line, c.figure, c.part) for c in found] == [(2, "x/y", None), (2, "x/z", "wide")]


@given(st.text(alphabet=st.characters(blacklist_characters="{")))
def test_text_without_citations_is_unchanged(text: str) -> None:
    assert resolve(text, FIGURES, "p.md") == text
