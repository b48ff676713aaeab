"""Factories that apply one mutation to a copy of the example publication."""

from __future__ import annotations

import fcntl
import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from generator.canonical import dumps
from generator.hashing import sha256_bytes

VOL1 = "vol-001"


def bundle_dir(root: Path, slug: str, volume: str = VOL1) -> Path:
    return root / "bundles" / volume / slug


def first_slug(root: Path, volume: str = VOL1) -> str:
    return sorted(p.name for p in (root / "bundles" / volume).iterdir() if p.is_dir())[0]


def reseal(directory: Path, name: str) -> None:
    """Update bundle.json's hash and size of ``name`` (as a runner sealing a bundle would)."""
    manifest_path = directory / "bundle.json"
    manifest = json.loads(manifest_path.read_text("utf-8"))
    data = (directory / name).read_bytes()
    manifest["files"][name] = {"sha256": sha256_bytes(data), "size": len(data)}
    manifest_path.write_text(dumps(manifest), "utf-8")


def edit_bytes(
    directory: Path, name: str, fn: Callable[[bytes], bytes], *, seal: bool = True
) -> None:
    path = directory / name
    path.write_bytes(fn(path.read_bytes()))
    if seal:
        reseal(directory, name)


def edit_lines(
    directory: Path,
    name: str,
    fn: Callable[[list[dict[str, Any]]], list[dict[str, Any]]],
    *,
    seal: bool = True,
) -> None:
    """Rewrite a JSONL file through ``fn`` over its parsed lines, then reseal."""
    path = directory / name
    rows = [json.loads(line) for line in path.read_text("utf-8").splitlines()]
    rows = fn(rows)
    path.write_text(
        "".join(
            json.dumps(r, sort_keys=True, separators=(",", ":"), ensure_ascii=False) + "\n"
            for r in rows
        ),
        "utf-8",
    )
    if seal:
        reseal(directory, name)


def edit_line(
    directory: Path, name: str, index: int, fn: Callable[[dict[str, Any]], dict[str, Any]]
) -> None:
    """Change line ``index`` (0-based) of a JSONL file through ``fn``."""

    def apply(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        rows[index] = fn(rows[index])
        return rows

    edit_lines(directory, name, apply)


def edit_json(path: Path, fn: Callable[[dict[str, Any]], None]) -> None:
    data = json.loads(path.read_text("utf-8"))
    fn(data)
    path.write_text(dumps(data), "utf-8")


def git_commit_all(root: Path, message: str = "example") -> None:
    """Make ``root`` a git checkout with everything committed (``.private`` is ignored)."""
    import subprocess

    env = {
        "GIT_AUTHOR_NAME": "test",
        "GIT_AUTHOR_EMAIL": "test@example.invalid",
        "GIT_COMMITTER_NAME": "test",
        "GIT_COMMITTER_EMAIL": "test@example.invalid",
        "GIT_CONFIG_GLOBAL": "/dev/null",
        "GIT_CONFIG_SYSTEM": "/dev/null",
        # Fixed dates make commit ids depend on content only, so two roots built the same
        # way have the same history (release manifests record an inputs commit).
        "GIT_AUTHOR_DATE": "2026-11-30T00:00:00Z",
        "GIT_COMMITTER_DATE": "2026-11-30T00:00:00Z",
        "PATH": "/usr/bin:/bin:/usr/local/bin",
    }
    if not (root / ".git").exists():
        if not (root / ".gitignore").exists():
            (root / ".gitignore").write_text(".private/\n", "utf-8")
        subprocess.run(["git", "init", "-q", "-b", "main", str(root)], check=True, env=env)
    subprocess.run(["git", "-C", str(root), "add", "-A"], check=True, env=env)
    subprocess.run(
        ["git", "-C", str(root), "commit", "-q", "--allow-empty", "-m", message],
        check=True,
        env=env,
    )


# Raters, qualification policy, all-public banks, per-candidate conditions and unknowns:
# each factory turns the example into the shape a real benchmark has, consistently across
# volume.yaml and every bundle, so the gates pass until a test breaks one rule.

HUMANS = [
    {"kind": "human", "id": "annotator-1", "affiliation": "Example University"},
    {"kind": "human", "id": "annotator-2"},
    {"kind": "human", "id": "annotator-3"},
]
ADJUDICATOR = {"kind": "human", "id": "adjudicator"}
NOT_RUN = "the annotators were trained on the benchmark's guidelines, not on probe cases"


def volume_file(root: Path, volume: str = VOL1) -> Path:
    return root / "bundles" / volume / "volume.yaml"


def edit_volume(root: Path, fn: Callable[[dict[str, Any]], None], volume: str = VOL1) -> str:
    """Change volume.yaml through ``fn`` and register the result again (as a maintainer
    does before any run); return its new text."""
    import yaml

    from generator.models.volume import Volume
    from generator.prereg import volume_preregistration_sha256

    path = volume_file(root, volume)
    doc = yaml.safe_load(path.read_text("utf-8"))
    fn(doc)
    doc["preregistration"]["sha256"] = volume_preregistration_sha256(Volume.model_validate(doc))
    text = yaml.safe_dump(doc, sort_keys=False, allow_unicode=True)
    path.write_text(text, "utf-8")
    return text


def slugs(root: Path, volume: str = VOL1) -> list[str]:
    return sorted(p.name for p in (root / "bundles" / volume).iterdir() if p.is_dir())


def human_panel(root: Path, *, not_run: str | None = NOT_RUN, volume: str = VOL1) -> None:
    """Three human annotators take the panel's seats in the volume and every bundle (their
    votes are the former judges' votes, seat by seat); with ``not_run``, qualification is
    declared not run and every qualification record goes."""

    def jury(doc: dict[str, Any]) -> None:
        doc["jury"]["panel"] = [dict(h) for h in HUMANS]
        if not_run is not None:
            doc["jury"]["qualification"] = {"status": "not_run", "reason": not_run}

    edit_volume(root, jury, volume)
    for slug in slugs(root, volume):
        _seat_humans(bundle_dir(root, slug, volume), clear=not_run is not None)


def _seat_humans(d: Path, *, clear: bool) -> None:
    """One bundle's panel seats, recusals, endpoints and votes, given to the humans."""
    manifest_path = d / "bundle.json"
    panel = json.loads(manifest_path.read_text("utf-8"))["jury"]["panel"]
    seat = {j["api"]: h["id"] for j, h in zip(panel, HUMANS, strict=True)}

    def manifest(m: dict[str, Any]) -> None:
        m["jury"]["panel"] = [dict(h) for h in HUMANS]
        m["jury"]["recusals"] = [r for r in m["jury"]["recusals"] if r["seat"] != "panel"]
        for api in seat:
            m["jury"]["endpoints"].pop(api, None)

    edit_json(manifest_path, manifest)

    def votes(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [
            {k: v for k, v in r.items() if k != "family"} | {"judge": seat[r["judge"]]}
            for r in rows
        ]

    edit_lines(d, "panel.jsonl", votes)
    if clear:
        edit_lines(d, "qualification.jsonl", lambda rows: [])


def add_adjudication(root: Path, volume: str = VOL1) -> None:
    """An adjudicator settles annotators 1 and 2: one vote on every re-graded draw, the
    majority of the three annotators (or annotator 1's vote on a tie)."""
    from collections import Counter

    adjudication = {"rater": dict(ADJUDICATOR), "adjudicates": ["annotator-1", "annotator-2"]}
    edit_volume(root, lambda doc: doc["jury"].update(adjudication=adjudication), volume)
    for slug in slugs(root, volume):
        d = bundle_dir(root, slug, volume)
        edit_json(d / "bundle.json", lambda m: m["jury"].update(adjudication=adjudication))

        def settle(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
            by_draw: dict[tuple[str, str, int], list[dict[str, Any]]] = {}
            for r in rows:
                by_draw.setdefault((r["item"], r["half"], r["draw"]), []).append(r)
            out = list(rows)
            for group in by_draw.values():
                count = Counter(r["vote"] for r in group if r["vote"] != "refused")
                top = count.most_common()
                vote = top[0][0] if top and (len(top) == 1 or top[0][1] > top[1][1]) else None
                vote = vote or group[0]["vote"]
                # The settled vote keeps the label of a seat that voted so (a label and
                # its vote always agree under the volume's label rules).
                source = next(r for r in group if r["vote"] == vote)
                out.append({**source, "judge": ADJUDICATOR["id"]})
            return out

        edit_lines(d, "panel.jsonl", settle)


def all_public(root: Path, volume: str = VOL1) -> None:
    """A bank with no held-out items: the held-out index and private items are emptied and
    the held-out items' draws, verdicts, votes and private responses removed."""
    import shutil

    index = root / "bank" / "heldout_index.jsonl"
    held = {json.loads(line)["id"] for line in index.read_text("utf-8").splitlines()}
    index.write_text("", "utf-8")
    private = root / ".private"
    (private / "heldout_items.jsonl").write_text("", "utf-8")
    shutil.rmtree(private / "responses", ignore_errors=True)
    for slug in slugs(root, volume):
        d = bundle_dir(root, slug, volume)
        for name in ("draws.jsonl", "verdicts.jsonl", "panel.jsonl"):
            edit_lines(d, name, lambda rows: [r for r in rows if r["item"] not in held])


def declare_conditions(root: Path, slug: str, conditions: dict[str, Any]) -> str:
    """The candidate of ``slug`` declares its own conditions in volume.yaml; its bundle
    still records the protocol's. Returns volume.yaml's new text."""
    from generator.models.base import slugify

    def declare(doc: dict[str, Any]) -> None:
        ref = next(c for c in doc["candidates"] if slugify(c["api"]) == slug)
        ref["conditions"] = conditions

    return edit_volume(root, declare)


def forget_latency(root: Path, slug: str, volume: str = VOL1) -> None:
    """The runner recorded no latency for any draw or attempt of one bundle."""

    def drop(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        for r in rows:
            r.pop("latency_ms")
            r["schema_version"] = 3
            for attempt in r["attempts"]:
                attempt.pop("latency_ms")
        return rows

    edit_lines(bundle_dir(root, slug, volume), "draws.jsonl", drop)


def forget_run_dates(root: Path, slug: str, volume: str = VOL1) -> None:
    """Neither the bundle nor volume.yaml knows when the candidate was run."""
    from generator.models.base import slugify

    edit_json(bundle_dir(root, slug, volume) / "bundle.json", lambda m: m.update(run={}))

    def forget(doc: dict[str, Any]) -> None:
        ref = next(c for c in doc["candidates"] if slugify(c["api"]) == slug)
        del ref["run_date"]

    edit_volume(root, forget, volume)


def line_number(path: Path, needle: str) -> int:
    """1-based number of the first line of ``path`` containing ``needle``."""
    for n, line in enumerate(path.read_text("utf-8").splitlines(), 1):
        if needle in line:
            return n
    raise AssertionError(f"{needle!r} not in {path}")


def stand_in_pdf(html: bytes, fingerprint: str, *, draft: bool, demonstration: bool) -> bytes:
    """A small valid PDF carrying what a rendered one carries in its text layer: the
    page's text, the HTML fingerprint stamp and the DRAFT / demonstration markers."""
    from html.parser import HTMLParser

    from tests.leaks.leak_samples import minimal_pdf

    class _Text(HTMLParser):
        def __init__(self) -> None:
            super().__init__(convert_charrefs=True)
            self.lines: list[str] = []
            self._skip = 0

        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            if tag in ("script", "style"):
                self._skip += 1

        def handle_endtag(self, tag: str) -> None:
            if tag in ("script", "style") and self._skip:
                self._skip -= 1

        def handle_data(self, data: str) -> None:
            if not self._skip and data.strip():
                self.lines.append(" ".join(data.split()))

    parser = _Text()
    parser.feed(html.decode("utf-8"))
    marks = ["DRAFT"] * draft + ["demonstration data"] * demonstration
    lines = [*marks, *parser.lines, f"sha256:{fingerprint}"]
    # The stand-in's one font covers cp1252; anything else becomes "?".
    return minimal_pdf([[line.encode("cp1252", "replace").decode("cp1252") for line in lines]])


def stand_in_pdfs(patch: Any, *, rendered: Callable[[str], bool] = lambda path: False) -> None:
    """Replace the PDF renderer of ``render_volume`` (and so of ``publish``) with
    :func:`stand_in_pdf` through ``patch`` (a ``pytest.MonkeyPatch``), for tests that are
    not about PDFs: WeasyPrint costs seconds a page. The PDFs are still written,
    fingerprinted, registered, sealed and scanned like rendered ones; the PDF tests
    (``tests/render/``) and one end-to-end publish (the draft test) render for real.
    The PDFs whose root-relative path ``rendered`` accepts are rendered by WeasyPrint."""
    from generator.render import run as render_run

    real = render_run.render_pdfs

    def render(jobs: Any, workers: int, progress: Any = None) -> dict[str, bytes]:
        out = real([job for job in jobs if rendered(job.path)], workers, progress)
        for job in jobs:
            if not rendered(job.path):
                out[job.path] = stand_in_pdf(
                    job.html, job.fingerprint, draft=job.draft, demonstration=job.demonstration
                )
                if progress is not None:
                    progress(job.path)
        return dict(sorted(out.items()))

    patch.setattr(render_run, "render_pdfs", render)


def shared(factory: pytest.TempPathFactory, name: str, build: Callable[[Path], None]) -> Path:
    """``name`` built once per test run by ``build`` (in a directory every xdist worker
    sees, under a lock) and returned to every caller."""
    base = factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent
    target, done = base / name, base / f"{name}.done"
    with (base / f"{name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not done.exists():
            shutil.rmtree(target, ignore_errors=True)
            build(target)
            done.touch()
    return target
