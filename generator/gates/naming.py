"""naming: every candidate is one exact API string, one run date and one display name.

Candidates are named by their exact API string (and, when one API string is measured
under two declared conditions, a ``variant``) and run date, and are unique within the
volume; each has one display name, the same in ``volume.yaml``, its ``bundle.json`` and
every other volume that names the same API string and variant; a bundle's directory is
the slug derived from the API string and variant (never from a date, which may be
unknown); a known run date lies within the bundle's known run dates (an unknown one is
shown as unknown and compared with nothing); no unlisted bundle sits in the volume
folder; figure ids and frozen file names follow the conventions.
"""

from __future__ import annotations

import re

from generator.errors import ProbepressError
from generator.figures import load_registry
from generator.gates.base import Findings, GateContext, GateResult
from generator.models.base import INVISIBLE, visible_form
from generator.models.volume import Volume
from generator.store.jsonl import Locator, Problems, load_document

NAME = "naming"
FIGURE_ID = re.compile(r"^vol-[0-9]{3}(/[a-z0-9]+(?:[-_.][a-z0-9]+)*)+$|^bank(/[a-z0-9_.-]+)+$")


def _other_volumes(ctx: GateContext) -> dict[str, Volume]:
    layout = ctx.layout
    out = {}
    for vid in layout.volume_ids():
        if vid == ctx.data.volume.id:
            continue
        volume = load_document(layout.volume_file(vid), Volume, vid, Problems(), 1 << 20)
        if volume is not None:
            out[vid] = volume
    return out


def _frozen_names(ctx: GateContext, out: Findings, slugs: set[str]) -> None:
    """Frozen files are ``leaderboard.{html,pdf}`` and ``jury/<candidate-slug>.{html,pdf}``."""
    folder = ctx.layout.volume_pages(ctx.data.volume.id)
    jury = folder / "jury"
    if jury.is_dir():
        for path in sorted(jury.iterdir()):
            if path.suffix not in (".html", ".pdf") or path.stem not in slugs:
                out.add(
                    "file-name",
                    ctx.layout.rel(path),
                    None,
                    "jury files are named <candidate-slug>.html or .pdf after a listed candidate",
                )
    for path in sorted(folder.glob("leaderboard*")) if folder.is_dir() else []:
        if path.name not in ("leaderboard.html", "leaderboard.pdf"):
            out.add("file-name", ctx.layout.rel(path), None, "unexpected leaderboard file name")


def _names(ctx: GateContext, out: Findings) -> set[str]:
    """Candidates unique by API string, slug and visible display name; return the slugs."""
    volume = ctx.data.volume
    lines = Locator(ctx.layout.volume_file(volume.id), 1 << 20)
    vfile = ctx.volume_file
    seen_api: set[tuple[str, str | None]] = set()
    seen_display: dict[str, str] = {}
    seen_slug: dict[str, str] = {}
    for n, ref in enumerate(volume.candidates):
        slug = ref.slug
        if (ref.api, ref.variant) in seen_api:
            where = lines.line(("candidates", n))
            twice = f"{ref.api} (variant {ref.variant})" if ref.variant else ref.api
            fix = "give each condition of one API string its own variant"
            out.add("duplicate-candidate", vfile, where, f"candidate {twice} is listed twice", fix)
        seen_api.add((ref.api, ref.variant))
        for field, text in (("api", ref.api), ("display_name", ref.display_name)):
            hidden = INVISIBLE.search(text)
            if hidden:
                out.add(
                    "invisible-character",
                    vfile,
                    lines.line(("candidates", n)),
                    f"{field} {text!r} contains the invisible character "
                    f"U+{ord(hidden.group()):04X}; names are shown on every page",
                    "remove it: a name must look like what it is",
                )
        shown = visible_form(ref.display_name)
        if shown in seen_display:
            same = "is used" if seen_display[shown] != ref.api else "is listed twice"
            out.add(
                "duplicate-display-name",
                vfile,
                lines.line(("candidates", n)),
                f"display name {ref.display_name!r} {same} by {seen_display[shown]} and "
                f"{ref.api} (compared as a reader sees them: invisible characters dropped, "
                "case and compatibility forms folded)",
            )
        seen_display[shown] = ref.api
        if not slug:
            out.add(
                "empty-slug",
                vfile,
                lines.line(("candidates", n)),
                f"{ref.api!r} slugifies to nothing, so it has no bundle folder or figure ids",
                "an API string needs at least one ASCII letter or digit",
            )
        elif slug in seen_slug and (ref.api, ref.variant) not in _named(volume, slug, n):
            out.add(
                "slug-collision",
                vfile,
                lines.line(("candidates", n)),
                f"{ref.api} and {seen_slug[slug]} both slugify to {slug!r}",
                "API strings must slugify to distinct bundle folders",
            )
        seen_slug.setdefault(slug, ref.api)
    return set(seen_slug)


def _named(volume: Volume, slug: str, before: int) -> set[tuple[str, str | None]]:
    """(API string, variant) of the candidates listed before ``before`` with ``slug``."""
    return {(c.api, c.variant) for c in volume.candidates[:before] if c.slug == slug}


def _against_bundles(ctx: GateContext, out: Findings) -> None:
    """Each candidate's bundle.json names it as volume.yaml does, within its run dates."""
    compared: set[str] = set()
    for ref in ctx.data.volume.candidates:
        slug = ref.slug
        bundle = ctx.data.bundles.get(slug)
        if bundle is None or slug in compared:
            continue  # a second candidate of one folder is a slug collision, reported
        compared.add(slug)
        path = ctx.shown(bundle, "bundle.json")
        cand = bundle.manifest.candidate
        if cand.api != ref.api:
            out.add(
                "api-string",
                path,
                None,
                f"candidate.api is {cand.api!r} but volume.yaml lists {ref.api!r}",
            )
        if cand.display_name != ref.display_name:
            out.add(
                "display-name",
                path,
                None,
                f"display_name is {cand.display_name!r} here but {ref.display_name!r} in "
                "volume.yaml; a candidate has one display name everywhere",
                "use the same display name in volume.yaml and bundle.json",
            )
        if cand.role != ref.role:
            out.add(
                "role", path, None, f"role is {cand.role!r} here but {ref.role!r} in volume.yaml"
            )
        if cand.variant != ref.variant:
            out.add(
                "variant",
                path,
                None,
                f"candidate.variant is {cand.variant!r} but volume.yaml lists {ref.variant!r}",
            )
        run = bundle.manifest.run
        day = ref.run_date
        outside = day is not None and (
            (run.started is not None and day < run.started)
            or (run.finished is not None and day > run.finished)
        )
        if outside:
            out.add(
                "run-date",
                path,
                None,
                f"volume.yaml names {ref.api} with run date {day}, outside its run {run.shown()}",
            )


def check(ctx: GateContext) -> GateResult:
    """Run the naming gate."""
    out = Findings(NAME)
    volume = ctx.data.volume
    vfile = ctx.volume_file
    seen_slug = _names(ctx, out)
    _against_bundles(ctx, out)
    folder = ctx.layout.volume_dir(volume.id)
    for entry in sorted(folder.iterdir()):
        if entry.is_dir() and entry.name not in seen_slug:
            out.add(
                "unlisted-bundle",
                ctx.layout.rel(entry),
                None,
                "bundle directory is not the slug of any listed candidate",
                "list the candidate in volume.yaml or remove the directory",
            )
    for vid, other in sorted(_other_volumes(ctx).items()):
        for ref in other.candidates:
            mine = next(
                (c for c in volume.candidates if (c.api, c.variant) == (ref.api, ref.variant)),
                None,
            )
            if mine is not None and mine.display_name != ref.display_name:
                out.add(
                    "display-name",
                    vfile,
                    None,
                    f"{ref.api} is {mine.display_name!r} here but {ref.display_name!r} in {vid}",
                    "one display name per API string across volumes",
                )
    _frozen_names(ctx, out, seen_slug)
    figures = ctx.layout.figures_registry
    pending = []
    if figures.is_file():
        try:
            # Read (and validated) once per process: the publishing gate reads it too.
            ids = sorted(load_registry(ctx.layout).figures)
        except ProbepressError:
            ids = []  # the publishing gate reports an unreadable registry
        for fid in ids:
            if not FIGURE_ID.match(fid):
                out.add(
                    "figure-id",
                    ctx.layout.rel(figures),
                    None,
                    f"figure id {fid!r} breaks the convention",
                )
    else:
        pending.append("figure ids: no figures/figures.json yet")
    return out.result(pending=pending)
