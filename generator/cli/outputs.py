"""Commands that write a publication: render, site, publish, cache."""

from __future__ import annotations

from pathlib import Path

import click

from generator.cli.base import (
    EPILOG,
    State,
    pass_state,
    writer_lock,
)
from generator.console import err, out, print_json, progress
from generator.errors import UsageError
from generator.words import counted


@click.command(epilog=EPILOG)
@click.argument("volume")
@click.option(
    "--jobs", type=click.IntRange(1, 64), default=None, help="PDF workers [default: cores]."
)
@click.option("--no-pdf", is_flag=True, help="Frozen HTML only.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output on stdout.")
@pass_state
def render(state: State, volume: str, jobs: int | None, no_pdf: bool, as_json: bool) -> None:
    """Render VOLUME's frozen HTML leaderboard and jury cards, and their PDFs."""
    from generator.render import render_volume

    with writer_lock(state.layout.root), progress(f"rendering {volume}") as step:
        result = render_volume(state.layout, volume, jobs=jobs, pdf=not no_pdf, progress=step)
    if as_json:
        print_json(result.as_json())
    err.print(result.summary(), markup=False)


@click.command(epilog=EPILOG)
@click.option(
    "--out",
    "out_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Where the built site goes [default: ROOT/site].",
)
@click.option("--no-build", is_flag=True, help="Only generate the pages under site_src/.")
@pass_state
def site(state: State, out_dir: Path | None, no_build: bool) -> None:
    """Generate the site's pages and downloads, then build it with MkDocs (--strict)."""
    from generator.site import build_site

    with writer_lock(state.layout.root), progress("building the site") as step:
        result = build_site(state.layout, out=out_dir, build=not no_build, progress=step)
    err.print(result.summary(), markup=False)


@click.command(epilog=EPILOG)
@click.argument("volumes", nargs=-1, metavar="VOLUME...")
@click.option("--allow-dirty", is_flag=True, help="Publish a DRAFT from a dirty tree.")
@click.option("--jobs", type=click.IntRange(1, 64), default=None, help="PDF workers.")
@click.option(
    "--signing-key",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Ed25519 private key (PEM) to sign the release [default: $PROBEPRESS_SIGNING_KEY].",
)
@click.option(
    "--recover",
    "recover_only",
    is_flag=True,
    help="Only bring an interrupted publish to the old or the new publication (no VOLUME).",
)
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output on stdout.")
@pass_state
def publish(
    state: State,
    volumes: tuple[str, ...],
    allow_dirty: bool,
    jobs: int | None,
    signing_key: Path | None,
    recover_only: bool,
    as_json: bool,
) -> None:
    """Publish one or more volumes: all gates, figures, frozen HTML, PDFs, downloads and
    site, built together and moved into place only when everything passed (a failure or a
    kill leaves the previous publication intact; rerunning on unchanged inputs rewrites
    nothing)."""
    from generator import journal
    from generator import publish as publisher

    if recover_only:
        recovery = journal.recover(state.layout.root)
        if as_json:
            print_json({"state": recovery.state, "restored": recovery.restored})
        err.print(recovery.summary(), markup=False)
        return
    if not volumes:
        raise UsageError("publish needs at least one VOLUME (or --recover)")
    with progress(f"publishing {', '.join(volumes)}") as step:
        result = publisher.publish(
            state.layout,
            volumes,
            allow_dirty=allow_dirty,
            jobs=jobs,
            signing_key=signing_key,
            progress=step,
        )
    if as_json:
        print_json(result.as_json())
    err.print(result.summary(), markup=False)


@click.command("cache", epilog=EPILOG)
@click.option("--clear", is_flag=True, help="Delete every entry (results are recomputed).")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output on stdout.")
@pass_state
def cache_command(state: State, clear: bool, as_json: bool) -> None:
    """Show what the result cache in the private store holds, or clear it."""
    import shutil

    from generator.cache import usage

    directory = state.layout.cache_dir
    if directory is None:
        raise UsageError("the result cache is off (--no-cache or $PROBEPRESS_NO_CACHE)")
    if clear and directory.is_dir():
        shutil.rmtree(directory)
    kinds = usage(directory)
    if as_json:
        print_json(
            {
                "directory": str(directory),
                "kinds": {k: {"entries": n, "bytes": b} for k, (n, b) in kinds.items()},
            }
        )
        return
    total = sum(b for _, b in kinds.values())
    for kind, (entries, size) in kinds.items():
        out.print(
            f"{kind}: {counted(entries, 'entry', 'entries')}, {size / 1e6:.1f} MB", markup=False
        )
    err.print(f"{directory}: {total / 1e6:.1f} MB", markup=False)
