"""What one ``publish`` computes in its staging copy, each thing once: the volumes as
read, their figures, their frozen pages (``generator.publish`` orders the steps).

Each volume is read once, with the private store, for the gates; the figures and the
pages are made from its public view (``store.public_view``: no held-out text, no item
key, no Tier 0 outcome computed from a private text), exactly what a reading without
the private store gives, so nothing public is made from private data.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from generator import figures
from generator.errors import InputError
from generator.figures.computed import Computed
from generator.progress import Progress, expect
from generator.store import Layout, VolumeData, load_volume, public_view

Figures = Computed


@dataclass(frozen=True)
class Loaded:
    """The volumes of one publish as read once: with the private store for the gates,
    and their public views (plus the volume before each, read publicly, for drift) for
    the figures and pages."""

    gated: dict[str, VolumeData]
    public: dict[str, VolumeData]


@dataclass(frozen=True)
class Pages:
    """How the frozen pages are rendered."""

    jobs: int | None
    draft: bool
    step: Progress


def announced(volumes: Sequence[str], label: str, step: Progress) -> Iterator[str]:
    """``volumes``, each announced as ``label volume``."""
    expect(step, len(volumes))
    for volume in volumes:
        step(f"{label} {volume}")
        yield volume


def load(layout: Layout, volumes: Sequence[str], step: Progress) -> Loaded:
    """Read each volume once (leniently: its problems are preflight's findings), and the
    volume before each that is not itself published now (publicly, strictly)."""
    gated = {v: load_volume(layout, v, strict=False) for v in announced(volumes, "reading", step)}
    public = {v: public_view(data) for v, data in gated.items()}
    for volume in volumes:
        before = figures.previous_volume(layout, volume)
        if before is not None and before not in public:
            public[before] = load_volume(layout, before, private=False)
    return Loaded(gated, public)


def compute_figures(
    layout: Layout, volumes: Sequence[str], loaded: Loaded, step: Progress
) -> dict[str, Figures]:
    """Compute each volume's figures once from its public view and register them. A
    volume that did not read cleanly is left to the gates, which refuse it."""
    computed: dict[str, Figures] = {}
    for volume in announced(volumes, "figures of", step):
        if not loaded.gated[volume].problems:
            found = figures.compute(
                layout, volume, data=loaded.public[volume], loaded=loaded.public
            )
            figures.write(layout, volume, computed=found)
            computed[volume] = found
    return computed


def render_pages(
    layout: Layout,
    volumes: Sequence[str],
    loaded: Loaded,
    computed: dict[str, Figures],
    how: Pages,
) -> None:
    """Write the frozen pages and PDFs of each volume from its public view and figures."""
    from generator.render import render_volume  # the PDF stack, when it is needed

    for volume in announced(volumes, "frozen HTML and PDFs of", how.step):
        if volume not in computed:  # the gates passed a volume that did not read cleanly
            raise InputError(f"cannot read volume {volume}:", loaded.gated[volume].problems)
        render_volume(
            layout,
            volume,
            jobs=how.jobs,
            pdf=True,
            progress=how.step,
            draft=how.draft,
            data=loaded.public[volume],
            figures=dict(computed[volume]),  # a model per figure, for the pages
        )
