"""Commands for anyone holding a publication: verify, disclose."""

from __future__ import annotations

import atexit
import gc
from pathlib import Path

import click

from generator.cli.base import (
    EPILOG,
    State,
    pass_state,
)
from generator.console import err, print_json, progress
from generator.errors import CheckFailed, UsageError


@click.command(
    epilog=EPILOG.removesuffix(".") + "; 3 intact and recomputed, but authenticity not "
    "checked (no --trusted-key or --trust-policy). For verify, 0 means also signed by a "
    "trusted key, and 1 any finding: a tampered, missing, extra, unsigned, untrusted or "
    "downgraded file, or a figure that does not recompute."
)
@click.argument(
    "path", required=False, type=click.Path(file_okay=False, exists=True, path_type=Path)
)
@click.option(
    "--trusted-key",
    "trusted_keys",
    multiple=True,
    type=click.Path(dir_okay=False, exists=True, path_type=Path),
    help="A PEM Ed25519 public key you obtained outside the site (repeatable).",
)
@click.option(
    "--trust-policy",
    type=click.Path(dir_okay=False, exists=True, path_type=Path),
    default=None,
    help="A trust policy (JSON: signers, their key fingerprints, revoked keys).",
)
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output on stdout.")
@pass_state
@click.pass_context
def verify(
    ctx: click.Context,
    state: State,
    path: Path | None,
    trusted_keys: tuple[Path, ...],
    trust_policy: Path | None,
    as_json: bool,
) -> None:
    """Check integrity, recompute every public figure and, given trusted keys or a trust
    policy, authenticate every release, offline. PATH is a publication root or a built site
    [default: --root]. A key shipped inside the site is reported, never trusted."""
    from generator.trust import load_trust
    from generator.verify import verify as run_verify

    trust = load_trust(trusted_keys, trust_policy)
    # No ticking clock: verify forks a child, and no refresh thread may hold a lock then.
    with progress("verifying", ticking=False) as step:
        report = run_verify(path or state.layout.root, progress=step, trust=trust)
    # At exit the interpreter's cyclic collector walks every object still alive (the
    # modules, the figures registry read), ≈ 0.25 s at 60 candidates, only to free
    # memory the process hands back anyway: frozen, its passes skip them.
    atexit.register(gc.freeze)
    if as_json:
        print_json(report.as_json())
    for note in report.notes:
        err.print(note, markup=False)
    if report.findings:
        raise CheckFailed(report.summary(), report.findings)
    err.print(report.summary(), markup=False)
    ctx.exit(report.exit_code)


@click.command(epilog=EPILOG)
@click.argument("item", required=False)
@click.option(
    "--out",
    "out_file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the disclosure here instead of stdout.",
)
@click.option(
    "--check",
    "check_file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Check this disclosure against the published index and draws (no private store).",
)
@pass_state
def disclose(
    state: State, item: str | None, out_file: Path | None, check_file: Path | None
) -> None:
    """Open one held-out ITEM's commitments: its key, texts and responses, as JSON.

    The disclosure reveals ITEM only, never the bank secret or another item. With
    --check FILE, anyone recomputes every commitment from a disclosure and compares it
    with the published index and draws under --root (a checkout or a site's downloads/).
    """
    from generator import disclosure
    from generator.canonical import dumps, write_bytes

    if (item is None) == (check_file is None) or (check_file is not None and out_file):
        raise UsageError("give ITEM [--out FILE] to disclose, or --check FILE to check")
    if check_file is not None:
        report = disclosure.check_disclosure(state.layout, check_file, state.bounds)
        if report.problems:
            raise CheckFailed(f"disclosure of {report.item} does not match:", report.problems)
        err.print(
            f"disclosure of {report.item} matches the published commitments "
            f"({report.texts} texts, {report.responses} responses)",
            markup=False,
        )
        return
    assert item is not None
    opened = disclosure.disclose(state.layout, item, state.bounds)
    text = dumps(opened.model_dump(mode="json", exclude_none=True))
    if out_file is None:
        click.echo(text, nl=False)
    else:
        write_bytes(out_file, text.encode("utf-8"))
    err.print(
        f"disclosed {item}: its key, texts and {len(opened.responses)} responses; the bank "
        "secret and every other item stay closed",
        markup=False,
    )
