"""Commands that write a publication's results in other tools' formats: export."""

from __future__ import annotations

from pathlib import Path

import click

from generator.cli.base import EPILOG, State, pass_state
from generator.console import err, print_json, progress


@click.group("export", epilog=EPILOG)
def export_group() -> None:
    """Write a published volume's results in another tool's format."""


@export_group.command("eee", epilog=EPILOG)
@click.argument("volume")
@click.option(
    "--out",
    "out_dir",
    required=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="Folder the records go to (as data/<benchmark>/<developer>/<model>/…).",
)
@click.option(
    "--organization",
    required=True,
    help="Who publishes the results (Every Eval Ever's source_organization_name).",
)
@click.option(
    "--relationship",
    type=click.Choice(["first_party", "third_party", "collaborative", "other"]),
    default="third_party",
    show_default=True,
    help="The evaluator's relationship to the models evaluated.",
)
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output on stdout.")
@pass_state
def eee(
    state: State,
    volume: str,
    out_dir: Path,
    organization: str,
    relationship: str,
    as_json: bool,
) -> None:
    """Write VOLUME's results as Every Eval Ever records: one aggregate JSON per candidate
    and its public instances as JSONL (held-out items as aggregates only). Every figure is
    recomputed first; a figure that does not recompute refuses the export."""
    from generator.export.eee import export_eee
    from generator.export.run import Relationship, Source

    chosen: Relationship = relationship  # type: ignore[assignment]
    with progress(f"exporting {volume}"):
        result = export_eee(state.layout, volume, out_dir, Source(organization, chosen))
    if as_json:
        print_json(
            {"volume": result.volume, "files": list(result.files), "instances": result.instances}
        )
    err.print(result.summary(), markup=False)
