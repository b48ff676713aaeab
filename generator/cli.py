"""The ``probepress`` command: a thin skin over the library.

Exit codes: 0 success; 1 the command ran and found a problem (a check or gate failed, a
regenerated file differs); 2 the command could not run (usage, missing or invalid input).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

import click

from generator import __version__
from generator.console import err, out, print_json, progress
from generator.errors import (
    CheckFailed,
    ProbepressError,
    Problem,
    UsageError,
    escape,
    os_error_message,
)
from generator.interrupt import Terminated, sigterm_exits
from generator.lock import writing
from generator.store import Bounds, Layout, load_volume

CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"], "max_content_width": 100}
EPILOG = "Exit codes: 0 ok; 1 a check or gate failed; 2 usage error or unreadable input."


@dataclass
class State:
    """Options shared by every command."""

    layout: Layout
    traceback: bool
    private_option: Path | None = None
    bounds: Bounds = field(default_factory=Bounds)


class Group(click.Group):
    """Turns expected errors into one clear message and an exit code, never a traceback.

    Expected errors are ``ProbepressError``s and ``OSError``s — the machine refusing
    (a full disk, a permission, an I/O error): both say what and where, exit 2. Any
    other exception is a bug and keeps its traceback.
    """

    def invoke(self, ctx: click.Context) -> Any:
        try:
            with sigterm_exits():
                return super().invoke(ctx)
        except Terminated:
            err.print("probepress: stopped by SIGTERM; temporary files removed", markup=False)
            raise
        except ProbepressError as exc:
            if _wants_traceback(ctx):
                raise
            err.print(exc.render(), markup=False)
            sys.exit(exc.exit_code)
        except OSError as exc:
            if _wants_traceback(ctx):
                raise
            err.print(f"could not run: {os_error_message(exc)}", markup=False)
            sys.exit(2)


def _wants_traceback(ctx: click.Context) -> bool:
    state = ctx.find_object(State)
    return state is not None and state.traceback


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
    ctx.obj = State(layout, traceback, private, _parse_limits(limits))


def _parse_limits(limits: tuple[str, ...]) -> Bounds:
    names = {f.name for f in fields(Bounds)}
    values: dict[str, int] = {}
    for text in limits:
        name, _, value = text.partition("=")
        if name not in names or not value.isdigit() or int(value) < 1:
            raise click.BadParameter(
                f"expected NAME=N with NAME one of {', '.join(sorted(names))}, got {text!r}",
                param_hint="--limit",
            )
        values[name] = int(value)
    return replace(Bounds(), **values)


pass_state = click.make_pass_decorator(State)


@contextmanager
def _writer(root: Path, writes: bool = True, create: bool = False) -> Iterator[None]:
    """Hold ``root``'s writer lock when the command writes (one writer per root)."""
    with writing(root, create=create) if writes else nullcontext():
        yield


def _parse_scale(text: str) -> dict[str, int]:
    parts: dict[str, int] = {}
    for chunk in text.split(","):
        key, _, value = chunk.partition("=")
        if key.strip() not in ("candidates", "items") or not value.strip().isdigit():
            raise UsageError(f"--scale takes candidates=N,items=M, got {text!r}")
        parts[key.strip()] = int(value)
    if set(parts) != {"candidates", "items"} or min(parts.values()) < 1:
        raise UsageError(f"--scale needs both candidates=N and items=M (N, M ≥ 1), got {text!r}")
    return parts


@main.command(epilog=EPILOG)
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
        size = _parse_scale(scale)
        spec = scaled(size["candidates"], size["items"])
    if out_dir is not None:
        layout = Layout.at(out_dir, state.private_option or out_dir / ".private")
    with _writer(layout.root, not check, create=True):
        _demo(layout, spec, check)


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
                [Problem(d.path, None, "demo-drift", d.what) for d in diffs],
            )
        err.print(f"example is byte-identical to its seed ({len(output.public)} files)")
        return
    changed = demo_build.write(output, layout)
    err.print(
        f"wrote the example into {layout.root} ({len(output.public)} files, {len(changed)} "
        f"changed); held-out texts in {layout.private}",
        markup=False,
    )


@main.command(epilog=EPILOG)
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
    from generator.schema import SCHEMA_DIR, drift, write_schemas

    directory = out_dir or state.layout.root / SCHEMA_DIR
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
    with _writer(root):
        changed = write_schemas(directory, root if inside else None)
    err.print(f"wrote schemas to {directory} ({len(changed)} changed)")


@main.command(epilog=EPILOG)
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


def _print_summary(s: dict[str, Any]) -> None:
    from rich.table import Table

    items = s["items"]
    label = " [demonstration data]" if s["demonstration"] else ""
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
    out.print(
        "jury: grader "
        + f"{jury['grader']['api']} ({jury['grader']['family']}); panel "
        + ", ".join(f"{j['api']} ({j['family']})" for j in jury["panel"])
        + "; reserves "
        + (", ".join(f"{j['api']} ({j['family']})" for j in jury["reserves"]) or "none"),
        markup=False,
    )
    table = Table(
        "candidate", "role", "run date", "draws", "lost", "verdicts", "panel votes", "recused"
    )
    for c in s["candidates"]:
        table.add_row(
            c["display_name"] + f"\n{c['api']}",
            c["role"],
            c["run_date"],
            str(c["draws"]),
            str(c["lost_draws"]),
            str(c["verdicts"]),
            str(c["panel_votes"]),
            ", ".join(c["recusals"]) or "—",
        )
    out.print(table)


def _report(report: Any, as_json: bool) -> None:
    from rich.table import Table

    if as_json:
        print_json(report.as_json())
    else:
        table = Table("gate", "verdict", "findings", "first finding", title=f"{report.volume}")
        for r in report.results:
            verdict = "pass" if r.passed(report.strict) else "FAIL"
            if r.passed(report.strict) and r.findings:
                verdict = "pass (warnings)"
            if r.pending:
                verdict += " · pending parts"
            first = (
                f"{r.findings[0].location()}: {escape(r.findings[0].message)}"
                if r.findings
                else "—"
            )
            table.add_row(r.name, verdict, str(len(r.findings)), first)
        out.print(table)
        for r in report.results:
            for finding in r.findings:
                err.print(f"{finding.severity}: {finding}", markup=False)
            for item in r.pending:
                err.print(f"pending: {r.name}: {item}", markup=False)
    if not report.passed:
        failed = [r.name for r in report.results if not r.passed(report.strict)]
        raise CheckFailed(f"{report.volume}: gate(s) failed: {', '.join(failed)}")


@main.command(epilog=EPILOG)
@click.argument("volume")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable report on stdout.")
@click.option("--strict", is_flag=True, help="Warnings fail too.")
@pass_state
def check(state: State, volume: str, as_json: bool, strict: bool) -> None:
    """Run all nine publication gates on VOLUME and print a table of verdicts."""
    from generator.checking import run_gates
    from generator.gates import NAMES

    with progress(f"checking {volume}", len(NAMES), ticking=False) as step:
        report = run_gates(state.layout, volume, strict=strict, bounds=state.bounds, progress=step)
    _report(report, as_json)


@main.command(epilog=EPILOG)
@click.argument("name", metavar="NAME")
@click.argument("volume")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable report on stdout.")
@click.option("--strict", is_flag=True, help="Warnings fail too.")
@pass_state
def gate(state: State, name: str, volume: str, as_json: bool, strict: bool) -> None:
    """Run one publication gate NAME on VOLUME.

    NAME is one of: preflight, config, circuit-breaker, judge-conflict, recusal,
    agreement, holdout, naming, publishing.
    """
    from generator.checking import run_gates
    from generator.gates import NAMES

    if name not in NAMES:
        raise UsageError(f"no gate {name!r}; the gates are: {', '.join(NAMES)}")
    report = run_gates(state.layout, volume, [name], strict=strict, bounds=state.bounds)
    _report(report, as_json)


@main.command(epilog=EPILOG)
@click.argument("volume")
@click.option(
    "--verify", is_flag=True, help="Recompute and compare with the registry; write nothing."
)
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output on stdout.")
@pass_state
def figures(state: State, volume: str, verify: bool, as_json: bool) -> None:
    """Compute every figure of VOLUME into figures/figures.json (or --verify it)."""
    from generator import figures as registry

    if verify:
        mismatches = registry.verify(state.layout, volume, state.bounds)
        if as_json:
            print_json(
                {
                    "volume": volume,
                    "verified": not mismatches,
                    "mismatches": [{"figure": m.figure, "message": m.message} for m in mismatches],
                }
            )
        if mismatches:
            raise CheckFailed(
                f"{volume}: {len(mismatches)} registered figure(s) do not recompute:",
                [
                    Problem("figures/figures.json", None, "figure-mismatch", str(m))
                    for m in mismatches
                ],
            )
        err.print(
            f"{volume}: every registered figure recomputes from sources with matching SHA-256"
        )
        return
    with _writer(state.layout.root):
        count, changed = registry.write(state.layout, volume, state.bounds)
    if as_json:
        print_json({"volume": volume, "figures": count, "changed": changed})
    where = "written to" if changed else "unchanged in"
    err.print(f"{volume}: {count} figures {where} figures/figures.json")


@main.command(epilog=EPILOG)
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

    with _writer(state.layout.root), progress(f"rendering {volume}") as step:
        result = render_volume(state.layout, volume, jobs=jobs, pdf=not no_pdf, progress=step)
    if as_json:
        print_json(result.as_json())
    err.print(result.summary(), markup=False)


@main.command(epilog=EPILOG)
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

    with _writer(state.layout.root), progress("building the site") as step:
        result = build_site(state.layout, out=out_dir, build=not no_build, progress=step)
    err.print(result.summary(), markup=False)


@main.command(epilog=EPILOG)
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


@main.command("cache", epilog=EPILOG)
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
        out.print(f"{kind}: {entries} entries, {size / 1e6:.1f} MB", markup=False)
    err.print(f"{directory}: {total / 1e6:.1f} MB", markup=False)


@main.command(
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
    with progress("verifying") as step:
        report = run_verify(path or state.layout.root, progress=step, trust=trust)
    if as_json:
        print_json(report.as_json())
    for note in report.notes:
        err.print(note, markup=False)
    if report.findings:
        raise CheckFailed(
            report.summary(),
            [Problem(f.what, None, f.kind, f.message) for f in report.findings],
        )
    err.print(report.summary(), markup=False)
    ctx.exit(report.exit_code)


@main.command(epilog=EPILOG)
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
