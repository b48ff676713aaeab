"""The ``probepress`` command: a thin skin over the library.

Exit codes: 0 success; 1 the command ran and found a problem (a check or gate failed, a
regenerated file differs); 2 the command could not run (usage, missing or invalid input).
"""

from __future__ import annotations

from pathlib import Path

import click

from generator import __version__
from generator.cli import (
    anchoring,
    audit,
    calibrating,
    exporting,
    gates,
    holders,
    inputs,
    onramp,
    outputs,
    review,
    runners,
    sampling,
)
from generator.cli.base import CONTEXT_SETTINGS, EPILOG, Group, State, parse_limits
from generator.store import Layout


@click.group(cls=Group, context_settings=CONTEXT_SETTINGS, epilog=EPILOG)
@click.version_option(__version__, prog_name="probepress")
@click.option(
    "--root",
    type=click.Path(file_okay=False, path_type=Path),
    default=".",
    show_default=True,
    help="Publication root (a directory with bank/, bundles/, figures/, site_src/ …).",
)
@click.option(
    "--private",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Private store of held-out texts [default: $PROBEPRESS_PRIVATE or ROOT/.private].",
)
@click.option(
    "--limit",
    "limits",
    multiple=True,
    metavar="NAME=N",
    help="Raise or lower a reader bound: max_file_bytes, max_line_bytes, max_records, "
    "max_yaml_bytes (repeatable).",
)
@click.option(
    "--no-cache",
    is_flag=True,
    help="Recompute everything: neither read nor write the result cache in the private "
    "store [also $PROBEPRESS_NO_CACHE=1].",
)
@click.option("-v", "--traceback", is_flag=True, help="Show tracebacks (for debugging).")
@click.pass_context
def main(
    ctx: click.Context,
    root: Path,
    private: Path | None,
    limits: tuple[str, ...],
    no_cache: bool,
    traceback: bool,
) -> None:
    """Publish an adversarial LLM probe bank's results with receipts.

    Start with `probepress demo` (writes the example publication) and
    `probepress show vol-001`.
    """
    layout = Layout.at(root, private, cache=not no_cache)
    ctx.obj = State(layout, traceback, private, parse_limits(limits))


for _command in (
    *onramp.COMMANDS,
    *sampling.COMMANDS,
    *anchoring.COMMANDS,
    inputs.demo,
    inputs.schema,
    inputs.show,
    gates.check,
    gates.gate,
    gates.figures,
    outputs.render,
    outputs.site,
    outputs.publish,
    outputs.cache_command,
    audit.audit,
    holders.verify,
    holders.disclose,
    exporting.export_group,
    review.review_group,
):
    main.add_command(_command)
# Readers of other runners' logs: rows for `import records`, under the same group.
for _reader in (*runners.COMMANDS, *calibrating.COMMANDS):
    onramp.import_group.add_command(_reader)

__all__ = ["EPILOG", "State", "main"]
