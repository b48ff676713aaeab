"""``probepress review``: reviewers' work into the bank (``apply``; the review page's
``build`` joins this group)."""

from __future__ import annotations

from pathlib import Path

import click

from generator.cli.base import EPILOG, State, pass_state, writer_lock
from generator.cli.onramp import _released
from generator.cli.review_page import build
from generator.console import err
from generator.words import counted


@click.group("review", epilog=EPILOG)
def review_group() -> None:
    """Review the bank's items offline and apply the reviews with the reviewer's name."""


@review_group.command("apply", epilog=EPILOG)
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--reviewer", required=True, help="Who reviewed (their name, as it is published).")
@click.option(
    "--on",
    "day",
    metavar="YYYY-MM-DD",
    help="The review's date [default: $SOURCE_DATE_EPOCH's day, else today].",
)
@pass_state
def apply_command(state: State, /, file: Path, reviewer: str, day: str | None) -> None:
    """Apply the review FILE saved by a review page: each sign-off climbs its item one
    rung (draft -> reviewed -> validated) in bank/status.jsonl, each disagreement is
    recorded in bank/disagreements.jsonl, with REVIEWER's name and the date.

    The file is refused whole (nothing is written) if it is for another bank or bank
    version, names an unknown item, saw a status that has changed since, or would skip a
    rung or have one person sign two rungs. A held-out item's comments stay in the private
    store; only its id, status, the name and the date are public. The ledgers change all
    at once or not at all, and applying the same file again adds nothing twice (its
    decisions already recorded are counted as already applied).
    """
    from generator.reviewing import apply_review

    with writer_lock(state.layout.root):
        done = apply_review(state.layout, file, reviewer, _released(day), state.bounds)
    again = f", {counted(done.already, 'decision')} already applied" if done.already else ""
    err.print(
        f"{file}: {counted(len(done.climbs), 'sign-off')} appended to bank/status.jsonl, "
        f"{counted(len(done.disagreements), 'disagreement')} recorded, "
        f"{counted(done.skipped, 'item')} skipped{again}",
        markup=False,
    )


review_group.add_command(build)

COMMANDS = (review_group,)
