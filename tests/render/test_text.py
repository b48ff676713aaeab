"""Unit tests of the pieces: text safety, the fig helper, the forest plot, the CSP."""

from __future__ import annotations

from decimal import Decimal

import pytest
from markupsafe import Markup

from generator.errors import UsageError
from generator.models.figures import Figure, Interval
from generator.render.context import percent_label
from generator.render.environment import (
    PACKAGE_TEMPLATES,
    FigureLookup,
    make_environment,
    stylesheet,
)
from generator.render.forest import fit_axis, forest_plot, forest_plots
from generator.render.text import clip, finalize, neutralise


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("a\u202ab\u202bc\u202cd\u202de\u202ef", "a[U+202A]b[U+202B]c[U+202C]d[U+202D]e[U+202E]f"),
        ("\u2066x\u2067y\u2068z\u2069", "[U+2066]x[U+2067]y[U+2068]z[U+2069]"),
        ("nul\x00bell\x07del\x7fc1\x85", "nul[U+0000]bell[U+0007]del[U+007F]c1[U+0085]"),
        ("lone\ud800surrogate", "lone[U+D800]surrogate"),
        ("non\ufffecharacter\U0010ffff", "non[U+FFFE]character[U+10FFFF]"),
        ("crlf\r\nand\rcr", "crlf\nand\ncr"),
        ("tab\tnewline\nkept", "tab\tnewline\nkept"),
        ("עברית العربية 漢字 é \u200d", "עברית العربية 漢字 é \u200d"),
    ],
)
def test_neutralise(raw: str, shown: str) -> None:
    assert neutralise(raw) == shown
    assert neutralise(shown) == shown


def test_finalize_neutralises_strings_and_markup_alike() -> None:
    assert finalize("a\u202eb") == "a[U+202E]b"
    result = finalize(Markup("<b>a\u202eb</b>"))
    assert isinstance(result, Markup) and result == Markup("<b>a[U+202E]b</b>")
    assert finalize(3) == 3


def test_templates_escape_then_show_controls() -> None:
    env = make_environment(PACKAGE_TEMPLATES)
    out = env.from_string("<p>{{ x }}</p><p title='{{ x }}'>{{ x|join('') }}</p>").render(
        x="<i>\u202e'\"&"
    )
    assert out == (
        "<p>&lt;i&gt;[U+202E]&#39;&#34;&amp;</p>"
        "<p title='&lt;i&gt;[U+202E]&#39;&#34;&amp;'>&lt;i&gt;[U+202E]&#39;&#34;&amp;</p>"
    )


def test_clip() -> None:
    assert clip("abc", 5).clipped is False and clip("abc", 5).text == "abc"
    long = clip("x" * 10, 4)
    assert (long.text, long.shown, long.total, long.clipped) == ("xxxx", 4, 10, True)


def _figure(fid: str, value: str, narrow: tuple[str, str], wide: tuple[str, str] | None) -> Figure:
    def iv(lo: str, hi: str) -> Interval:
        return Interval(lo=lo, hi=hi, display=f"{lo}–{hi}", method="m", confidence="0.95")

    intervals = {"narrow": iv(*narrow)} | ({"wide": iv(*wide)} if wide else {})
    return Figure(
        id=fid,
        label="x",
        kind="rate",
        value=value,
        precision=4,
        display=value,
        intervals=intervals,
        method="m",
        sources=[],
    )


def test_fig_helper_fails_loudly_and_maybe_only_for_declared_absences() -> None:
    figure = _figure("vol-009/a/core_rate", "0.5", ("0.4", "0.6"), None)
    why = _figure("vol-009/split_half/halves", "1", ("1", "1"), None).model_copy(
        update={"detail": {"absent": ["vol-009/a/split_half/difference"]}}
    )
    page = "site_src/volumes/vol-009/leaderboard.html"
    lookup = FigureLookup(page, {figure.id: figure, why.id: why})
    assert lookup("vol-009/a/core_rate") is figure
    assert lookup.maybe("vol-009/a/core_rate") is figure
    assert lookup.maybe("vol-009/a/split_half/difference") is None
    with pytest.raises(UsageError) as undeclared:
        lookup.maybe("vol-009/a/half/A/rate")  # the case slip that blanked every column
    assert str(undeclared.value) == (
        f"{page}: cites figure 'vol-009/a/half/A/rate', which is neither registered nor "
        "declared absent (run `probepress figures vol-009`, or fix the template)"
    )
    with pytest.raises(UsageError) as caught:
        lookup("vol-009/a/nope")
    assert str(caught.value) == (
        "site_src/volumes/vol-009/leaderboard.html: cites figure 'vol-009/a/nope', which is "
        "not in figures/figures.json (run `probepress figures vol-009`, or fix the template)"
    )


def test_forest_plot_geometry_is_decimal_and_fitted() -> None:
    core = _figure("c", "0.25", ("0.2", "0.3"), ("0.1", "0.4"))
    full = _figure("f", "0.5", ("0.5", "0.5"), ("-0.1", "0.52"))
    plot = forest_plot(
        [
            ("A name that is much longer than the label allows", True, 2, core, full),
            ("B", False, None, None, None),
        ]
    )
    # The axis is fitted to every limit drawn (0 to 0.52, clamped at 0), in steps of 10
    # points, and stated in words; both panels share it.
    assert plot.axis.text == "0%–60%"
    assert [t for _, t in plot.panels[0].ticks] == ["0%", "10%", "20%", "30%", "40%", "50%", "60%"]
    assert plot.panels[0].ticks == plot.panels[1].ticks
    first, second = plot.panels[0].rows
    assert first.label == "A name that is m… (anchor)" and len(first.label) == 26
    assert first.band and first.anchor
    assert first.bar is not None and first.bar.x == "285.8"  # 190 + 0.25 / 0.6 × 230
    assert (first.bar.narrow_lo, first.bar.narrow_w) == ("266.7", "38.3")
    assert (first.bar.wide_lo, first.bar.wide_hi) == ("228.3", "343.3")
    full_row = plot.panels[1].rows[0]
    assert full_row.bar is not None and full_row.bar.narrow_w == "1.0"  # never zero-width
    assert full_row.bar.wide_lo == "190.0"  # clamped to the axis
    assert second.bar is None and not second.band
    # The full-bank panel sits below the core one, inside the drawing.
    assert int(plot.panels[1].axis_top) > int(plot.panels[0].tick_label_y)
    assert int(plot.panels[1].tick_label_y) < plot.height


@pytest.mark.parametrize(
    ("limits", "text", "ticks"),
    [
        (("0.14", "0.55"), "10%–60%", 5),
        (("0.02", "0.07"), "2%–7%", 5),
        (("0.30", "0.33"), "30%–33%", 3),
        (("0.97", "1"), "97%–100%", 3),
        (("1", "1"), "99%–100%", 1),
        (("0", "1"), "0%–100%", 5),
    ],
)
def test_forest_axis_fits_the_data_with_nice_ticks(
    limits: tuple[str, str], text: str, ticks: int
) -> None:
    lo, hi = limits
    figure = _figure("c", lo, (lo, hi), (lo, hi))
    axis = fit_axis([("a", False, None, figure, None)])
    assert axis.text == text
    assert len(axis.ticks) - 1 == ticks
    assert axis.ticks[0][0] <= Decimal(lo) and axis.ticks[-1][0] >= Decimal(hi)
    assert fit_axis([]).text == "0%–100%"


def test_stylesheet_csp_admits_exactly_the_inlined_css() -> None:
    style = stylesheet(make_environment(PACKAGE_TEMPLATES))
    assert style.csp.startswith("default-src 'none'; style-src 'sha256-")
    assert "</" not in style.css and "url(" not in style.css


@pytest.mark.parametrize(("level", "label"), [("0.95", "95%"), ("0.995", "99.5%"), ("0.9", "90%")])
def test_percent_label(level: str, label: str) -> None:
    assert percent_label(Decimal(level)) == label


def test_a_long_forest_plot_comes_in_balanced_parts() -> None:
    entries = [(f"c{i}", False, 1, None, None) for i in range(45)]
    # The last part holds the highest rate: every part shares the axis fitted to all.
    entries[-1] = ("last", False, 1, _figure("c", "0.7", ("0.6", "0.8"), None), None)
    entries[0] = ("first", False, 1, _figure("c", "0.3", ("0.2", "0.4"), None), None)
    parts = forest_plots(entries, per_part=20)  # type: ignore[arg-type]
    assert [len(p.panels[0].rows) for p in parts] == [15, 15, 15]
    assert [p.index for p in parts] == [1, 2, 3]
    assert {p.axis.text for p in parts} == {"20%–80%"}
    assert [len(p.panels[1].rows) for p in forest_plots(entries[:6])] == [6]  # type: ignore[arg-type]
