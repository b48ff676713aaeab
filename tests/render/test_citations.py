"""Every figure a template looks up is registered or declared absent (issue 17, defect 1).

The leaderboard once asked for ``…/half/A/rate`` while the figures are ``…/half/a/rate``;
the silent miss printed "—" in every split-half cell of every frozen page, HTML and PDF.
Now such a lookup stops the render at the template line that made it, the publishing
gate finds it before anything renders, and a figure the registry declares absent has its
reason stated on the page.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
import yaml

from generator.figures import load_registry
from generator.models.volume import Volume
from generator.numbers import reading
from generator.render import jury_card, render_volume
from generator.render.environment import PACKAGE_TEMPLATES, UnknownFigure
from generator.store import Layout
from tests.conftest import CliRun
from tests.factories import git_commit_all

SLIP = (
    '{{ m.difference(maybe_fig(c.prefix ~ "/half/" ~ half|lower ~ "/rate")) }}',
    '{{ m.difference(maybe_fig(c.prefix ~ "/half/" ~ half ~ "/rate")) }}',
)


def _slipped_templates(root: Path) -> int:
    """Give ``root`` its own templates with the case slip back in; return its line."""
    shutil.copytree(PACKAGE_TEMPLATES, root / "templates")
    page = root / "templates" / "leaderboard.html"
    text = page.read_text("utf-8")
    assert SLIP[0] in text
    page.write_text(text.replace(SLIP[0], SLIP[1]), "utf-8")
    return next(n for n, line in enumerate(text.splitlines(), 1) if SLIP[0] in line)


def _slugs(root: Path, volume: str) -> list[str]:
    """The candidates with split-half figures."""
    registry = load_registry(Layout.at(root, root / ".private")).figures
    return sorted(
        {k.split("/")[1] for k in registry if k.startswith(f"{volume}/") and "/half/a/" in k}
    )


def test_an_unregistered_lookup_stops_the_render_at_the_template_line(figured: Path) -> None:
    line = _slipped_templates(figured)
    before = sorted(p.as_posix() for p in (figured / "site_src").rglob("*"))
    with pytest.raises(UnknownFigure) as caught:
        render_volume(Layout.at(figured, figured / ".private"), "vol-002", pdf=False)
    message = str(caught.value)
    assert message.startswith(
        f"templates/leaderboard.html:{line} (rendering site_src/volumes/vol-002/leaderboard.html)"
        ": cites figure 'vol-002/"
    )
    assert re.search(r"/half/A/rate', which is neither registered nor declared absent", message)
    assert message.endswith("(run `probepress figures vol-002`, or fix the template)")
    assert sorted(p.as_posix() for p in (figured / "site_src").rglob("*")) == before


def test_the_publishing_gate_finds_what_templates_look_up(cli: CliRun, root: Path) -> None:
    """The gate's scan of literal ids cannot see ``c.prefix ~ …``; its render can."""
    line = _slipped_templates(root)
    git_commit_all(root)
    result = cli("gate", "publishing", "vol-001", "--json")
    assert result.exit_code == 1, result.output
    report = json.loads(result.stdout)
    findings = [f for g in report["gates"] for f in g["findings"]]
    unknown = [f for f in findings if f["rule"] == "unknown-figure"]
    assert len(unknown) == 1, findings
    slug = re.sub(r".*'vol-001/([^/]+)/.*", r"\1", unknown[0]["message"])
    assert slug in _slugs(root, "vol-001")
    assert unknown[0] == {
        **unknown[0],
        "path": "templates/leaderboard.html",
        "line": line,
        "message": f"cites figure 'vol-001/{slug}/half/A/rate', which is neither registered "
        "nor declared absent (rendering site_src/volumes/vol-001/leaderboard.html)",
        "fix": "run `probepress figures vol-001`, or fix the template",
    }


def test_the_publishing_gate_passes_the_real_templates(cli: CliRun, root: Path) -> None:
    git_commit_all(root)
    result = cli("gate", "publishing", "vol-002", "--json")
    assert result.exit_code == 0, result.output


def test_the_publishing_gates_render_reads_no_response(
    cli: CliRun, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The gate renders only to see what the templates look up: the jury cards' quotes
    (disagreements and "What it gets wrong" excerpts) are not read (a pass over every
    bundle's draws each)."""

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("the publishing gate read a response")

    monkeypatch.setattr(jury_card, "read_responses", refuse)
    git_commit_all(root)
    for volume in ("vol-001", "vol-002"):
        result = cli("gate", "publishing", volume, "--json")
        assert result.exit_code == 0, result.output


def _section(page: str, name: str) -> str:
    return page.split(f'<section id="{name}">', 1)[1].split("</section>", 1)[0]


@pytest.mark.parametrize("volume", ["vol-001", "vol-002"])
def test_the_split_half_cells_show_the_registered_values(rendered: Path, volume: str) -> None:
    """Each ranked model's row shows its two half rates and their difference, each the
    registered figure's display text as pages print it, with its narrow interval."""
    layout = Layout.at(rendered, rendered / ".private")
    registry = load_registry(layout).figures
    page = (rendered / "site_src" / "volumes" / volume / "leaderboard.html").read_text("utf-8")
    rows = _section(page, "split-half").split("<tbody>", 1)[1].split("</tr>")[:-1]
    # The table lists the ranked models; the baselines (their own table) are not in it.
    doc = yaml.safe_load((rendered / "bundles" / volume / "volume.yaml").read_text("utf-8"))
    ranked = {ref.slug for ref in Volume.model_validate(doc).ranked()}
    slugs = [slug for slug in _slugs(rendered, volume) if slug in ranked]
    assert len(rows) == len(slugs) == len(ranked) >= 2
    for slug in slugs:
        cells = []
        for fid in ("half/a/rate", "half/b/rate", "split_half/difference"):
            f = registry[f"{volume}/{slug}/{fid}"]
            # As the page prints it: a negative number's sign is the minus sign (numbers.py).
            shown, narrow = reading(f.display), reading(f.intervals["narrow"].display)
            cells.append(f'<td class="num">{shown}</td><td class="iv">{narrow}</td>')
        assert sum("".join(cells) in row.replace("\n", "") for row in rows) == 1, slug


# vol-002 only: vol-001 reads the bank as of v1 (the cut), which has no category without
# Tier 0 items, so it declares no absent rates.
@pytest.mark.parametrize("volume", ["vol-002"])
def test_declared_absences_are_explained_on_the_page(rendered: Path, volume: str) -> None:
    """The example declares rates absent (no Tier 0 item in some categories); the page
    that shows their dashes states why, in the words of the declaring figure."""
    registry = load_registry(Layout.at(rendered, rendered / ".private")).figures
    why = registry[f"{volume}/rates/absent"].detail["statement"]
    page = (rendered / "site_src" / "volumes" / volume / "leaderboard.html").read_text("utf-8")
    assert f"<li>{why}</li>" in _section(page, "absent")


def test_the_baseline_table_shows_each_baselines_coverage(rendered: Path) -> None:
    """A baseline's rates are read beside how much of its schedule it answered, as a
    model's are: its row carries the three registered coverage figures."""
    registry = load_registry(Layout.at(rendered, rendered / ".private")).figures
    page = (rendered / "site_src" / "volumes" / "vol-002" / "leaderboard.html").read_text("utf-8")
    rows = _section(page, "baselines").split("<tbody>", 1)[1].split("</tr>")[:-1]
    doc = yaml.safe_load((rendered / "bundles" / "vol-002" / "volume.yaml").read_text("utf-8"))
    baselines = [ref.slug for ref in Volume.model_validate(doc).baselines()]
    assert len(rows) == len(baselines) >= 2
    for slug in baselines:
        cells = "".join(
            f'<td class="num">{registry[f"vol-002/{slug}/coverage/{kind}"].display}</td>'
            for kind in ("answered", "retried", "refused")
        )
        assert sum(cells in row.replace("\n", "") for row in rows) == 1, slug
