"""``probepress review build``: the offline review pages (``generator.review``); the
``review`` group is in ``generator.cli.review``."""

from __future__ import annotations

from pathlib import Path

import click

from generator.cli.base import EPILOG, State, pass_state
from generator.console import err, print_json
from generator.models.bank import Status
from generator.review.items import MAX_BATCH


@click.command("build", epilog=EPILOG)
@click.option(
    "--batch-size",
    type=click.IntRange(1, MAX_BATCH),
    default=20,
    show_default=True,
    help="Items per page.",
)
@click.option(
    "--status",
    type=click.Choice(["draft", "reviewed"]),
    default=None,
    help="Only items with this current status [default: both].",
)
@click.option(
    "--out",
    "out_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Folder for the pages [default: PRIVATE/review]. A page holds held-out text, so "
    "it is refused in the root's public folders (bank/, bundles/, figures/, templates/, "
    "site_src/, site/) and anywhere in the root outside the private store.",
)
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output on stdout.")
@pass_state
def build(
    state: State, batch_size: int, status: str | None, out_dir: Path | None, as_json: bool
) -> None:
    """Write a static review page per batch of items still climbing the ladder (current
    status draft or reviewed, active in the current bank version): a self-contained HTML
    form that works offline from a file:// URL. The reviewer reads each item's question,
    criterion or rubric, reference answer and sources, chooses sign off, disagree or skip,
    and presses Save, which downloads review-BATCH.json for `probepress review apply`.

    The pages are PRIVATE: they show held-out items' full text. They are written to the
    private store (PRIVATE/review/) unless --out names a folder outside the root; hand
    them to the reviewer only, never publish or commit them.
    """
    from generator.review.page import build as build_pages

    chosen: Status | None = status  # type: ignore[assignment]
    built = build_pages(
        state.layout, state.bounds, status=chosen, batch_size=batch_size, out=out_dir
    )
    if as_json:
        print_json(
            {
                "folder": str(built.folder),
                "pages": [str(p) for p in built.pages],
                "items": built.items,
                "heldout": built.heldout,
            }
        )
    err.print(built.summary(), markup=False)
