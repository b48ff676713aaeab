"""publishing: a release is a clean commit, and everything it cites resolves.

The working tree is clean (no modified, staged or untracked files — the dirty paths are
named) and the release records HEAD; publishing outside a git checkout fails. Every
figure cited in hand-written pages (``site_src/*.md``) and templates resolves to a
registered figure — in templates both the literal ids and every id a render of the
volume's pages looks up (ids built from names, ``c.prefix ~ "/core_rate"``), which must
be registered or declared absent; every registered figure of the volume recomputes from
its sources with matching SHA-256; every frozen file ever published is byte-unchanged. A
volume whose bank version has fewer validated items than its pre-registered
``thresholds.min_volume_items`` is not published at all (``generator.minimums``).

Two parts: ``check`` (the commit, and the recomputation — from the volume's files as
read, never from anything the same run stored) and ``check_outputs`` (citations and the
archive, on the finished tree).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path

from generator import figures, fingerprints, git
from generator.causes import Because, figures_by_source
from generator.errors import ProbepressError, Problem
from generator.gates.base import Findings, GateContext, GateResult
from generator.hashing import drift, on_disk
from generator.minimums import full_bank, volume_shortfall
from generator.models.figures import Figure
from generator.render.environment import UnknownFigure
from generator.render.pages import iter_pages
from generator.render.provenance import Provenance
from generator.site.figrefs import citations
from generator.site.lint import hand_written_pages, lint_pages
from generator.store import public_view
from generator.store.paths import FIGURES_REGISTRY, FINGERPRINT_REGISTRY
from generator.words import counted

NAME = "publishing"
LISTED = 10


def head_commit(ctx: GateContext) -> str | None:
    """HEAD of the inputs' repository, or None outside git."""
    return git.head(ctx.repo_root)


def check(ctx: GateContext) -> GateResult:
    """The publishing gate's part on the inputs: a clean commit, and every registered
    figure recomputes from the volume as read."""
    out = Findings(NAME)
    root = ctx.repo_root
    notes = []
    if not git.is_repository(root):
        out.add(
            "not-a-repository",
            ".",
            None,
            f"{root} is not inside a git repository",
            "publish from a git checkout so the release can record its inputs commit",
        )
    else:
        dirty = git.dirty_paths(root)
        if dirty:
            shown = ", ".join(dirty[:LISTED])
            more = f" and {len(dirty) - LISTED} more" if len(dirty) > LISTED else ""
            out.add(
                "dirty-tree",
                ".",
                None,
                f"the working tree is not clean: {shown}{more}",
                "commit or remove these changes (or publish a draft with --allow-dirty)",
            )
        head = head_commit(ctx)
        if head is None:
            out.add("no-commit", ".", None, "the repository has no commit yet")
        else:
            notes.append(f"inputs commit {head}")
    _minimum(ctx, out)
    pending = _recompute(ctx, out)
    return out.result(notes=notes, pending=pending)


def _minimum(ctx: GateContext, out: Findings) -> None:
    """The bank version's active full bank has the pre-registered minimum of validated
    items (a retired core item, still in the core rate, is not counted: ``minimums``)."""
    retired = ctx.data.bank.retired_by(ctx.data.volume.bank_version) & ctx.items.keys()
    why = volume_shortfall(
        ctx.data.volume, full_bank(ctx.items.values(), retired), retired_core=len(retired)
    )
    if why is not None:
        out.add(
            "volume-below-minimum",
            ctx.volume_file,
            None,
            why,
            "validate more items and publish them in a later volume; the minimum was "
            "pre-registered, so it cannot be lowered for this one",
        )


def check_outputs(ctx: GateContext) -> GateResult:
    """The publishing gate's part on the finished tree: citations resolve, frozen files
    are byte-unchanged."""
    out = Findings(NAME)
    _citations(ctx, out)
    _archive(ctx, out)
    return out.result()


def cited_files(ctx: GateContext) -> Iterator[Path]:
    """Hand-written pages and templates, the places that cite figures by id."""
    yield from hand_written_pages(ctx.layout.site_src)
    templates = ctx.layout.templates_dir
    if templates.is_dir():
        yield from sorted(p for p in templates.rglob("*") if p.is_file())


def _citations(ctx: GateContext, out: Findings) -> None:
    try:
        known = figures.load_registry(ctx.layout).figures
    except ProbepressError:
        return  # reported by _recompute, the input part
    for path in cited_files(ctx):
        text = path.read_text("utf-8", errors="replace")
        for cited in citations(text):
            if "{" not in cited.figure and cited.figure not in known:
                out.add(
                    "unknown-figure",
                    ctx.layout.rel(path),
                    cited.line,
                    f"cites figure {cited.figure!r}, which is not in {FIGURES_REGISTRY}",
                    f"cite a registered figure id (see {FIGURES_REGISTRY})",
                )
    _looked_up(ctx, out, known)
    out.extend(lint_pages(ctx.layout))


def _looked_up(ctx: GateContext, out: Findings, known: Mapping[str, Figure]) -> None:
    """Render the volume's pages in memory (nothing is written; no response is read, no
    input hashed) and report a figure they look up that is neither registered nor
    declared absent, at the citing template line."""
    volume = ctx.data.volume
    mine = {k: v for k, v in known.items() if k.startswith(f"{volume.id}/")}
    if not mine or ctx.data.problems:
        return  # nothing to render from: reported by _recompute and preflight
    # The footer's input digest is not what is checked here: skip hashing every input.
    facts = Provenance(volume.id, volume.bank_version, "0" * 64, figures.GENERATOR)
    try:
        for _page in iter_pages(public_view(ctx.data), mine, facts, texts=False):
            pass  # each page dropped once rendered: only what it looked up matters here
    except UnknownFigure as exc:
        path, line = _place(exc.template or exc.page)
        out.add("unknown-figure", path, line, f"{exc.what} (rendering {exc.page})", exc.fix)
    except ProbepressError as exc:
        out.add("render", ".", None, f"the pages of {volume.id} do not render: {exc.render(3)}")


def _place(where: str) -> tuple[str, int | None]:
    """``("templates/x.html", 12)`` from ``templates/x.html:12``."""
    path, _, line = where.rpartition(":")
    return (path, int(line)) if path and line.isdigit() else (where, None)


def _recompute(ctx: GateContext, out: Findings) -> list[str]:
    """Every registered figure of the volume recomputes; returns what is pending (a
    volume never published and never figured: ``publish`` computes its figures)."""
    volume = ctx.data.volume.id
    never_published = not ctx.layout.release_file(volume).exists()
    if never_published and not ctx.layout.figures_registry.exists():
        return [f"figures: none computed for {volume} yet (publish computes them)"]
    try:
        registered = figures.load_registry(ctx.layout).figures
    except ProbepressError as exc:
        out.add("registry", "figures/figures.json", None, exc.render(3))
        return []
    if not any(k.startswith(f"{volume}/") for k in registered):
        if never_published:
            return [f"figures: none computed for {volume} yet (publish computes them)"]
        out.add(
            "no-figures",
            FIGURES_REGISTRY,
            None,
            f"no figures of {volume} are registered",
            f"run `probepress figures {volume}`",
        )
        return []
    found = figures.verify(ctx.layout, volume, data=ctx.data, loaded=ctx.volumes)
    _report_mismatches(ctx, out, found)
    return []


def _report_mismatches(ctx: GateContext, out: Findings, found: list[Problem]) -> None:
    """Root causes first: figures whose source changed are one finding per source,
    whose fix depends on why it changed; a volume that cannot be read is reported by
    preflight, so here it is only named as the reason nothing recomputes."""
    volume = ctx.data.volume.id
    sealed = {p.path for p in ctx.data.problems if p.rule == "manifest-hash"}

    def because(source: str) -> Because:
        if source in sealed:
            return Because(
                "changed after sealing (its SHA-256 is not the one bundle.json records)",
                f"restore {source} as it was sealed; the figures are right and must not be "
                "recomputed over an edited bundle (a corrected run is imported and sealed anew)",
            )
        return Because(
            "changed since the figures were computed",
            f"recompute with `probepress figures {volume}` (and review why it changed)",
        )

    reported = figures_by_source(found, because)
    changed = {p.cause for p in reported if p.affected}
    for problem in reported:
        if problem.rule == "not-recomputed" and problem.cause in changed:
            continue  # the changed file's finding already says why
        if problem.rule == "not-recomputed" and ctx.data.problems:
            count = counted(len(ctx.data.problems), "input problem")
            message = f"figures of {volume} not recomputed: preflight found {count}"
            out.items.append(
                Problem(
                    problem.cause or ".",
                    None,
                    problem.rule,
                    message,
                    "fix the preflight findings first",
                    gate=NAME,
                    cause=problem.cause,
                )
            )
        elif problem.cause is not None:
            out.extend([problem])
        else:
            out.add(
                problem.rule,
                FIGURES_REGISTRY,
                None,
                f"{problem.path}: {problem.message}",
                f"recompute with `probepress figures {volume}` (and review why it changed)",
            )


def _archive(ctx: GateContext, out: Findings) -> None:
    try:
        registered = fingerprints.load_frozen(ctx.layout)
    except ProbepressError as exc:
        out.add("archive", FINGERPRINT_REGISTRY, None, exc.render(3))
        return
    recorded = ((rel, entry.sha256) for rel, entry in registered.items())
    for found in drift(recorded, on_disk(ctx.layout.root)):
        what = "is missing" if found.change == "missing" else "changed after it was published"
        out.add(
            "archive-changed",
            found.path,
            None,
            f"published frozen file {what}",
            "published files never change; restore them (an erratum is a new volume)",
        )
