"""Commands that write or describe a root's inputs: demo, schema, show."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from generator.cli.base import (
    EPILOG,
    State,
    parse_scale,
    pass_state,
    writer_lock,
)
from generator.console import err, out, print_json, progress
from generator.errors import CheckFailed, UsageError
from generator.store import Layout, load_volume


@click.command(epilog=EPILOG)
@click.option("--check", is_flag=True, help="Regenerate in memory and compare; write nothing.")
@click.option("--scale", metavar="candidates=N,items=M", help="A synthetic volume of this size.")
@click.option(
    "--out",
    "out_dir",
    type=click.Path(file_okay=False, path_type=Path),
    help="Write into this directory (required with --scale) instead of --root.",
)
@pass_state
def demo(state: State, check: bool, scale: str | None, out_dir: Path | None) -> None:
    """Write the example publication's inputs (bank, bundles, private store) from its seed.

    With --check, regenerate in memory and exit 1 if any committed byte differs.
    """
    from generator.demo.spec import EXAMPLE, scaled

    spec = EXAMPLE
    layout = state.layout
    if scale:
        if out_dir is None:
            raise UsageError("--scale needs --out DIR (the example in --root is never overwritten)")
        size = parse_scale(scale)
        spec = scaled(size["candidates"], size["items"])
    if out_dir is not None:
        layout = Layout.at(out_dir, state.private_option or out_dir / ".private")
    with writer_lock(layout.root, not check, create=True):
        _demo(layout, spec, check)
        if out_dir is not None and not check:
            from generator.init import add_scaffold

            # A root of its own: the site's config, its pages, and a .gitignore that keeps
            # the private store out of `git add -A` (existing files are left alone).
            added = add_scaffold(layout, spec.name, "CC-BY-4.0", demonstration=True)
            if added:
                err.print(f"added {', '.join(added)}", markup=False)


def _demo(layout: Layout, spec: Any, check: bool) -> None:
    from generator.demo import build as demo_build

    total = sum(len(v.candidates) for v in spec.volumes)
    with progress("simulating bundles", total) as step:
        output = demo_build.build(spec, progress=step)
    if check:
        diffs = demo_build.differences(output, layout)
        if diffs:
            raise CheckFailed(
                "the example differs from what its seed produces "
                "(run `probepress demo` and review the diff):",
                diffs,
            )
        err.print(f"example is byte-identical to its seed ({len(output.public)} files)")
        return
    changed = demo_build.write(output, layout)
    err.print(
        f"wrote the example into {layout.root} ({len(output.public)} files, {len(changed)} "
        f"changed); held-out texts in {layout.private}",
        markup=False,
    )


@click.command(epilog=EPILOG)
@click.option(
    "--out",
    "out_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Directory for the schemas [default: ROOT/site_src/downloads/schemas].",
)
@click.option("--check", is_flag=True, help="Exit 1 if the schemas on disk drift from the models.")
@pass_state
def schema(state: State, out_dir: Path | None, check: bool) -> None:
    """Write the JSON Schema of every file format."""
    from generator.schema import drift, write_schemas

    directory = out_dir or state.layout.schemas_dir
    if check:
        stale = drift(directory)
        if stale:
            raise CheckFailed(
                f"schemas in {directory} drift from the models: {', '.join(stale)} "
                "(run `probepress schema` to rewrite them)"
            )
        err.print(f"schemas in {directory} match the models")
        return
    root = state.layout.root
    inside = directory.absolute().is_relative_to(root)
    with writer_lock(root):
        changed = write_schemas(directory, root if inside else None)
    err.print(f"wrote schemas to {directory} ({len(changed)} changed)")


@click.command(epilog=EPILOG)
@click.argument("volume")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output on stdout.")
@pass_state
def show(state: State, volume: str, as_json: bool) -> None:
    """Summarise VOLUME: bank version, candidates and roles, jury, counts."""
    from generator.summary import summarise

    with progress(f"reading {volume}") as step:
        data = load_volume(state.layout, volume, bounds=state.bounds, progress=step)
    summary = summarise(data)
    if as_json:
        print_json(summary)
        return
    _print_summary(summary)


def _rater(r: dict[str, Any]) -> str:
    """A rater of the summary's jury: ``api (family)`` or ``id (human)``."""
    if r.get("kind") == "human":
        return f"{r['id']} (human)"
    return f"{r['api']} ({r['family']})"


def _print_summary(s: dict[str, Any]) -> None:
    from rich.table import Table

    items = s["items"]
    # A title that already says so (the example's "Volume 001 (demonstration data)")
    # is not labelled twice.
    said = "demonstration data" in s["title"].lower()
    label = " [demonstration data]" if s["demonstration"] and not said else ""
    out.print(f"{s['volume']}: {s['title']}{label}", markup=False)
    out.print(
        f"bank {s['bank_version']}: {items['total']} items ({items['core']} core, "
        f"{items['public']} public, {items['held_out']} held out, {items['tier0']} Tier 0, "
        f"{items['validated']} validated)",
        markup=False,
    )
    p = s["protocol"]
    out.print(
        f"protocol: {len(p['halves'])} halves × {p['draws_per_half']} draws, temperature "
        f"{p['temperature']}, {p['max_output_tokens']} max output tokens",
        markup=False,
    )
    jury = s["jury"]
    adjudication = jury.get("adjudication")
    out.print(
        "jury: grader "
        + _rater(jury["grader"])
        + "; panel "
        + ", ".join(_rater(j) for j in jury["panel"])
        + (f"; adjudication {_rater(adjudication['rater'])}" if adjudication else "")
        + "; reserves "
        + (", ".join(_rater(j) for j in jury["reserves"]) or "none"),
        markup=False,
    )
    table = Table(
        "candidate", "role", "run date", "draws", "lost", "verdicts", "panel votes", "recused"
    )
    for c in s["candidates"]:
        table.add_row(
            c["display_name"] + f"\n{c['api']}",
            c["role"],
            c["run_date"] or "unknown",
            str(c["draws"]),
            str(c["lost_draws"]),
            str(c["verdicts"]),
            str(c["panel_votes"]),
            ", ".join(c["recusals"]) or "—",
        )
    out.print(table)
