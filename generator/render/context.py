"""What every frozen page's template context holds, built in one place."""

from __future__ import annotations

import posixpath
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from functools import cached_property
from typing import Any

from generator.models.bank import Category
from generator.models.figures import Figure, ids_under
from generator.models.volume import CandidateRef
from generator.render.environment import FigureLookup, Stylesheet
from generator.render.provenance import Provenance
from generator.scoring import leniency_note, reference_statement
from generator.store.paths import DOWNLOADS, SITE_SRC, VOLUMES, volume_pages_rel
from generator.store.rowtypes import BundleData
from generator.store.volume import VolumeData


def leaderboard_path(volume: str) -> str:
    """Root-relative path of a volume's leaderboard."""
    return f"{volume_pages_rel(volume)}/leaderboard.html"


def jury_card_path(volume: str, slug: str) -> str:
    """Root-relative path of a candidate's jury card."""
    return f"{volume_pages_rel(volume)}/jury/{slug}.html"


@dataclass(frozen=True)
class Inputs:
    """Everything the pages of one volume are rendered from."""

    data: VolumeData
    figures: Mapping[str, Figure]
    provenance: Provenance
    style: Stylesheet
    draft: bool = False
    texts: bool = True
    """Read the responses the pages quote (False: a render only to see which figures the
    templates look up, as the publishing gate does, skips those passes over the draws)."""

    @cached_property
    def _ids(self) -> list[str]:
        return sorted(self.figures)

    def ids_under(self, prefix: str) -> list[str]:
        """The ids of the figures that start with ``prefix``, in order."""
        return ids_under(self._ids, prefix)

    @property
    def volume_id(self) -> str:
        """``vol-001`` …"""
        return self.data.volume.id


@dataclass(frozen=True)
class Candidate:
    """A candidate as pages show it: the volume's entry, its bundle and figure prefix."""

    slug: str
    ref: CandidateRef
    bundle: BundleData
    prefix: str

    @property
    def anchor(self) -> bool:
        """True for an anchor (a reference model measured in every volume)."""
        return self.ref.role == "anchor"


def candidates_in_order(inputs: Inputs) -> list[Candidate]:
    """Candidates ordered by registered core rate (lowest first), then name and slug.

    Candidates without a core rate (nothing decided) come last. Ordering uses the
    registered decimal values; nothing is recomputed.
    """
    out = []
    for ref in inputs.data.volume.candidates:
        slug = ref.slug
        bundle = inputs.data.bundles[slug]
        out.append(Candidate(slug, ref, bundle, f"{inputs.volume_id}/{slug}"))

    def key(c: Candidate) -> tuple[int, Decimal, str, str]:
        core = inputs.figures.get(f"{c.prefix}/core_rate")
        value = Decimal(core.value) if core is not None else Decimal(0)
        return (core is None, value, c.ref.display_name, c.slug)

    return sorted(out, key=key)


@dataclass(frozen=True)
class SiteLink:
    """A link from a frozen page back into the site it is published in."""

    label: str
    href: str
    """Relative to the page, so the page stays self-contained and works from any host,
    sub-path or the file system."""


def site_links(page: str, volume: str) -> list[SiteLink]:
    """Links from ``page`` (root-relative, under ``site_src/``) to the site's fixed
    sections (DESIGN §7; ``generator.site.config.BASE_NAV``) and the volume's results.

    The targets are the built site's pages (``use_directory_urls: false``, so a page
    ``x.md`` is served as ``x.html``); they resolve once the page is in the site.
    """
    here = posixpath.dirname(page)
    targets = (
        ("Site home", f"{SITE_SRC}/index.html"),
        ("Methodology", f"{SITE_SRC}/methodology.html"),
        (f"Results of {volume}", f"{volume_pages_rel(volume)}/index.html"),
        ("Archive", f"{VOLUMES}/archive.html"),
        ("Downloads", f"{DOWNLOADS}/index.html"),
    )
    return [SiteLink(label, posixpath.relpath(target, here)) for label, target in targets]


def percent_label(value: Decimal) -> str:
    """A confidence level from the volume manifest as a label: ``0.95`` -> ``95%``."""
    return f"{(value * 100).normalize():f}%"


def demonstration(data: VolumeData) -> bool:
    """True when the volume, the bank or any bundle says it is demonstration data."""
    return (
        data.volume.demonstration
        or data.bank.manifest.demonstration
        or any(b.manifest.demonstration for b in data.bundles.values())
    )


def base_context(inputs: Inputs, page: str, title: str) -> dict[str, Any]:
    """Context every page template receives (``base.html`` uses all of it)."""
    data = inputs.data
    lookup = FigureLookup(page, inputs.figures)
    categories: list[Category] = list(data.bank.manifest.categories)
    ac1 = inputs.figures.get(f"{inputs.volume_id}/jury/ac1")
    return {
        "page": page,
        "title": title,
        "volume": data.volume,
        "bank": data.bank.manifest,
        "categories": categories,
        "category_titles": {c.id: c.title for c in categories},
        "demonstration": demonstration(data),
        "draft": inputs.draft,
        "confidence": percent_label(data.volume.thresholds.confidence),
        # Stated on every page: qualification declared not run (with its reason), and a
        # bank with no held-out items.
        "qualification_not_run": data.volume.jury.not_run,
        "all_public": not data.bank.heldout,
        # Which rater set the published rates come from, and what leniency means beside it.
        "reference": reference_statement(data.volume),
        "reference_kind": data.volume.scoring_or_default().reference,
        "leniency_note": leniency_note(data.volume),
        # The agreement gate's rule, stated in words; the page prints no new number.
        "ac1_meets_floor": ac1 is not None
        and Decimal(ac1.value) >= data.volume.thresholds.ac1_floor,
        "css": inputs.style.css,
        "csp": inputs.style.csp,
        "provenance": inputs.provenance,
        "site_links": site_links(page, inputs.volume_id),
        "fig": lookup,
        "maybe_fig": lookup.maybe,
        # Called after the page body: why each absent figure it asked for is absent.
        "absent_reasons": lookup.reasons,
    }
