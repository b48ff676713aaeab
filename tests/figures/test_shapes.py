"""Figures of protocol shapes other than the example's 2 halves x 5 draws (issue 14).

Each shape is a small synthetic publication built by the demo generator with the
protocol changed, then its figures computed: intervals must declare the method really
used, and figures that cannot be given are absent with the reason stated.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from generator import figures
from generator.demo.build import build, write
from generator.demo.spec import scaled
from generator.models.figures import Figure
from generator.store import Layout

POOLED = "binomial-mean-score-pooled-single-draws"


def _shape_figures(root: Path, halves: tuple[str, ...], draws: int) -> dict[str, Figure]:
    """Figures of a 4-candidate, 33-item volume (a category of one item), shaped as given."""
    spec = scaled(4, 33)
    volume = replace(spec.volumes[0], protocol={"halves": halves, "draws_per_half": draws})
    layout = Layout.at(root, root / ".private", cache=False)
    write(build(replace(spec, volumes=(volume,))), layout)
    return figures.compute(layout, "vol-001")


@pytest.fixture(scope="module")
def one_draw(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Figure]:
    """One half of one draw: every item seen once."""
    return _shape_figures(tmp_path_factory.mktemp("a1") / "root", ("A",), 1)


def test_one_draw_rates_declare_the_pooled_bound(one_draw: dict[str, Figure]) -> None:
    rates = [f for f in one_draw.values() if f.kind == "rate"]
    assert rates
    for fig in rates:
        narrow = fig.intervals["narrow"]
        assert narrow.method == POOLED, fig.id
        assert narrow.params["single_draw_items"] == fig.detail["items"], fig.id
        assert narrow.params["single_draw_variance"] == "pooled-bernoulli-bound"


def test_one_draw_narrow_is_not_narrower_than_wide(one_draw: dict[str, Figure]) -> None:
    # With one draw an item there is no within-item evidence: the bank-fixed interval
    # cannot honestly be much tighter than the sampled-items one (the unpooled method
    # gave intervals a fraction of the width, and rank orders the wide ones did not hold).
    cores = [f for f in one_draw.values() if f.id.endswith("/core_rate")]
    assert len(cores) == 4
    for fig in cores:
        narrow, wide = fig.intervals["narrow"], fig.intervals["wide"]
        assert float(narrow.hi) - float(narrow.lo) >= 0.95 * (float(wide.hi) - float(wide.lo))


def test_one_half_says_why_split_half_is_absent(one_draw: dict[str, Figure]) -> None:
    assert not [fid for fid in one_draw if fid.endswith("/split_half/difference")]
    fig = one_draw["vol-001/split_half/halves"]
    assert fig.value == "1"
    statement = fig.detail["statement"]
    assert isinstance(statement, str)
    assert statement.startswith("Split-half figures are absent: the protocol has one half (A)")
    cores = sorted(fid.removesuffix("/core_rate") for fid in one_draw if fid.endswith("core_rate"))
    assert fig.detail["absent"] == [f"{c}/split_half/difference" for c in cores]


def test_two_halves_of_one_draw_give_a_pooled_split_half(tmp_path: Path) -> None:
    found = _shape_figures(tmp_path / "root", ("A", "B"), 1)
    assert "vol-001/split_half/halves" not in found
    splits = [f for fid, f in found.items() if fid.endswith("/split_half/difference")]
    assert len(splits) == 4
    for fig in splits:
        narrow = fig.intervals["narrow"]
        assert narrow.method == POOLED
        # Both halves' items are single draws: pooled on each side.
        assert narrow.params["single_draw_items"] == 2 * int(fig.detail["items"])  # type: ignore[arg-type]
    core = next(f for fid, f in found.items() if fid.endswith("/core_rate"))
    assert core.intervals["narrow"].method == "binomial-mean-score"  # two draws an item


def test_three_halves_say_split_half_needs_two(tmp_path: Path) -> None:
    found = _shape_figures(tmp_path / "root", ("A", "B", "C"), 1)
    statement = found["vol-001/split_half/halves"].detail["statement"]
    assert statement == (
        "Split-half figures are absent: the protocol has 3 halves (A, B, C); "
        "the split-half comparison is defined for exactly two."
    )


def test_the_example_shape_registers_no_absence(example_src: Path) -> None:
    registered = json.loads((example_src / "figures" / "figures.json").read_text("utf-8"))
    ids = set(registered["figures"])
    assert not [fid for fid in ids if fid.endswith("/split_half/halves")]
    for fid in ids:
        if fid.endswith("/core_rate"):
            assert fid.replace("/core_rate", "/split_half/difference") in ids
            method = registered["figures"][fid]["intervals"]["narrow"]["method"]
            assert method == "binomial-mean-score"


def test_a_one_item_rate_says_why_it_has_no_wide_interval(one_draw: dict[str, Figure]) -> None:
    rates = [f for f in one_draw.values() if f.kind == "rate" and "/half/" not in f.id]
    single = [f for f in rates if f.detail["items"] == 1]
    assert single  # the synthetic bank has a category with one validated item
    for fig in rates:
        if fig.detail["items"] == 1:
            assert "wide" not in fig.intervals
            assert str(fig.detail["wide_absent"]).startswith("one item:")
        else:
            assert "wide" in fig.intervals and "wide_absent" not in fig.detail
