"""One-command publish and offline verify: atomic, idempotent, immutable, verifiable."""

from __future__ import annotations

import errno
import json
import os
import re
import shutil
import signal
import stat
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from generator import journal
from generator.hashing import sha256_file
from generator.lock import LOCK_FILE
from generator.release import SITE_STAMP
from generator.staging import STAGING_PREFIX
from tests.conftest import CliRun
from tests.factories import git_commit_all, stand_in_pdfs

REPO = Path(__file__).resolve().parents[1]
VOLUMES = ("vol-001", "vol-002")
OUTPUTS = ("figures", "site_src", "site")


def publication_root(example_src: Path, dest: Path) -> Path:
    """The example's inputs plus the repository's hand-written site and templates, as a
    clean git checkout with nothing published yet."""
    shutil.copytree(example_src, dest)
    shutil.copy2(REPO / "mkdocs.yml", dest / "mkdocs.yml")
    shutil.copytree(REPO / "templates", dest / "templates")
    site = dest / "site_src"
    site.mkdir()
    for entry in (REPO / "site_src").iterdir():
        if entry.name in ("volumes", "downloads"):
            continue
        if entry.is_dir():
            shutil.copytree(entry, site / entry.name)
        else:
            shutil.copy2(entry, site / entry.name)
    home_page_at(dest, VOLUMES[-1])
    (dest / ".gitignore").write_text(".private/\n/site/\n.probepress-*\n", "utf-8")
    git_commit_all(dest, "inputs")
    return dest


def home_page_at(root: Path, volume: str) -> None:
    """The committed home page with its latest-volume section naming ``volume`` instead:
    the committed one links the example's newest volume, which a root that publishes
    fewer volumes does not have (``mkdocs --strict`` refuses the link)."""
    home = root / "site_src" / "index.md"
    text = home.read_text("utf-8")
    start = text.index("## Latest volume")
    end = text.index("\n## ", start) + 1
    section = (
        f"## Latest volume: Volume {volume[4:]}\n\n[Its results](volumes/{volume}/index.md).\n\n"
    )
    home.write_text(text[:start] + section + text[end:], "utf-8")


def snapshot(root: Path) -> dict[str, str]:
    """SHA-256 of every output file (figures/, site_src/, site/)."""
    out = {}
    for area in OUTPUTS:
        for path in sorted((root / area).rglob("*")) if (root / area).exists() else []:
            if path.is_file():
                out[path.relative_to(root).as_posix()] = sha256_file(path)
    return out


def leftovers(root: Path) -> list[str]:
    """The tool's temporary entries left in ``root`` (the lock file is not one)."""
    return sorted(p.name for p in root.glob(".probepress-*") if p.name != LOCK_FILE)


VOLUME_READS: list[str] = []
"""Every volume the module's publish read (``load_volume`` reads a volume's bundles
through ``_bundle_owners`` exactly once per call)."""
SITE_BUILDS: list[str] = []
"""Every MkDocs build and every generation of the site's pages the publish ran."""
LEAK_SCANS: list[Path] = []
"""The root of every leak scan of a tree (the holdout gate's scan of every file)."""


def _counting(patch: pytest.MonkeyPatch) -> None:
    """Wrap the volume loader, the site's two steps and the leak scan to count calls."""
    import generator.store.volume as store_volume
    from generator import site
    from generator.gates import holdout
    from generator.site import mkdocs_run

    owners, build, generate = store_volume._bundle_owners, mkdocs_run.run, site.generate
    scan = holdout.scan_paths

    def counted_owners(layout, volume, bounds, problems):  # type: ignore[no-untyped-def]
        VOLUME_READS.append(volume.id)
        return owners(layout, volume, bounds, problems)

    def counted_build(*args, **kwargs):  # type: ignore[no-untyped-def]
        SITE_BUILDS.append("mkdocs")
        return build(*args, **kwargs)

    def counted_generate(*args, **kwargs):  # type: ignore[no-untyped-def]
        SITE_BUILDS.append("generate")
        return generate(*args, **kwargs)

    def counted_scan(*args, **kwargs):  # type: ignore[no-untyped-def]
        LEAK_SCANS.append(kwargs["root"])
        return scan(*args, **kwargs)

    patch.setattr(store_volume, "_bundle_owners", counted_owners)
    patch.setattr(mkdocs_run, "run", counted_build)
    patch.setattr(site, "generate", counted_generate)
    patch.setattr(holdout, "scan_paths", counted_scan)


@pytest.fixture(scope="module")
def published(example_src: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Both example volumes published and committed (built once for this module). Its
    PDFs are stand-ins (no test of this publication is about PDF content; the draft test
    publishes with rendered PDFs and checks their pages)."""
    from click.testing import CliRunner

    from generator.cli import main

    root = publication_root(example_src, tmp_path_factory.mktemp("pub") / "root")
    with pytest.MonkeyPatch.context() as patch:
        _counting(patch)
        stand_in_pdfs(patch)
        result = CliRunner().invoke(main, ["--root", str(root), "publish", *VOLUMES])
    assert result.exit_code == 0, result.output
    git_commit_all(root, "publish")
    return root


def test_publish_reads_each_volume_once(published: Path) -> None:
    """Figures, pages and every gate (the publishing gate's recomputation included)
    share one reading of each volume; vol-001 is also vol-002's previous volume."""
    assert sorted(VOLUME_READS) == ["vol-001", "vol-002"]


def test_publish_builds_the_site_once_and_scans_the_finished_tree_once(
    published: Path,
) -> None:
    assert SITE_BUILDS == ["generate", "mkdocs"]
    assert len(LEAK_SCANS) == 1
    staged = LEAK_SCANS[0]
    assert staged != published and staged.parent == published  # the staging copy
    assert not staged.exists()  # moved into place, then removed


def test_the_publishing_gate_recomputes_independently_of_the_run(
    example_src: Path, tmp_path: Path, cli: CliRun, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The figures publish registers are computed once; the publishing gate computes
    them again from the volume as read, so a wrong first computation is refused."""
    from generator import figures

    root = publication_root(example_src, tmp_path / "fresh")
    real = figures.compute
    calls: list[str] = []

    def first_one_wrong(*args, **kwargs):  # type: ignore[no-untyped-def]
        found = real(*args, **kwargs)
        calls.append(args[1])
        if len(calls) == 1:
            fid = next(k for k, v in found.items() if v.kind == "count")
            wrong = {**found[fid].model_dump(mode="json"), "display": "999", "value": "999"}
            found[fid] = type(found[fid]).model_validate(wrong)
        return found

    monkeypatch.setattr(figures, "compute", first_one_wrong)
    result = cli("publish", "vol-001", root_dir=root)
    assert result.exit_code == 1, result.output
    assert "[publishing/figure-mismatch]" in result.stderr
    assert "recomputes to" in result.stderr and "the registry says 999" in result.stderr
    assert calls == ["vol-001", "vol-001"]
    assert not (root / "site_src" / "volumes").exists() and leftovers(root) == []


@pytest.fixture
def pub(published: Path, tmp_path: Path) -> Path:
    """A writable copy of the published example (git history included)."""
    dest = tmp_path / "pub"
    shutil.copytree(published, dest, symlinks=True)
    return dest


def _git_status(root: Path) -> str:
    return subprocess.run(
        ["git", "-C", str(root), "status", "--porcelain"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout


def test_publish_writes_every_output(published: Path) -> None:
    for vol in VOLUMES:
        folder = published / "site_src" / "volumes" / vol
        assert (folder / "leaderboard.html").is_file() and (folder / "leaderboard.pdf").is_file()
        release = json.loads((folder / "release.json").read_text("utf-8"))
        assert release["volume"] == vol and release["draft"] is False
        assert all(g["passed"] for g in release["gates"].values())
        assert set(release["gates"]) == {
            "preflight",
            "config",
            "circuit-breaker",
            "judge-conflict",
            "recusal",
            "agreement",
            "holdout",
            "naming",
            "publishing",
        }
        for rel, digest in release["outputs"].items():
            assert sha256_file(published / rel) == digest
    for name in (
        "bank_v1_public.jsonl",
        "bank_v1_1_public.jsonl",
        "bank_v1_2_public.jsonl",
        "SHA256SUMS",
        "figures.json",
    ):
        assert (published / "site_src" / "downloads" / name).is_file()
    assert (published / "site" / "index.html").is_file()
    assert leftovers(published) == []


def test_republishing_unchanged_inputs_rewrites_nothing(pub: Path, cli: CliRun) -> None:
    before = {
        p: (p.stat().st_mtime_ns, sha256_file(p))
        for p in pub.rglob("*")
        if p.is_file() and ".git" not in p.parts and p.name != LOCK_FILE
    }
    result = cli("publish", *VOLUMES, root_dir=pub)
    assert result.exit_code == 0, result.stderr
    assert "nothing rewritten" in result.stderr
    after = {
        p: (p.stat().st_mtime_ns, sha256_file(p))
        for p in pub.rglob("*")
        if p.is_file() and ".git" not in p.parts and p.name != LOCK_FILE
    }
    assert after == before
    assert _git_status(pub) == ""


def test_a_noop_publish_is_decided_from_the_stamp_without_reading_a_volume(
    pub: Path, cli: CliRun, monkeypatch: pytest.MonkeyPatch
) -> None:
    import generator.store.volume as store_volume

    stamp = pub / "site" / SITE_STAMP
    assert json.loads(stamp.read_text("utf-8"))["intact"] == list(VOLUMES)

    def no_read(*args: object, **kwargs: object) -> None:
        raise AssertionError("a no-op publish read a volume")

    with monkeypatch.context() as patch:
        patch.setattr(store_volume, "_bundle_owners", no_read)
        result = cli("publish", *VOLUMES, root_dir=pub)
    assert result.exit_code == 0, result.stderr
    assert "nothing rewritten" in result.stderr
    # A stamp that does not vouch for vol-001 (or is stale) is no receipt: publish rebuilds,
    # recomputes intact() and stamps again; nothing frozen changes.
    data = json.loads(stamp.read_text("utf-8"))
    stamp.write_text(json.dumps({**data, "intact": ["vol-002"]}), "utf-8")
    frozen = {k: v for k, v in snapshot(pub).items() if k.startswith("site_src/volumes/")}
    rebuilt = cli("publish", *VOLUMES, root_dir=pub)
    assert rebuilt.exit_code == 0, rebuilt.stderr
    assert "publication complete" in rebuilt.stderr and "no frozen page" in rebuilt.stderr
    assert json.loads(stamp.read_text("utf-8")) == data
    assert {k: v for k, v in snapshot(pub).items() if k.startswith("site_src/volumes/")} == frozen


def test_published_volume_refuses_changed_inputs(pub: Path, cli: CliRun) -> None:
    volume = pub / "bundles" / "vol-001" / "volume.yaml"
    volume.write_text(volume.read_text("utf-8") + "# a quiet edit after publication\n", "utf-8")
    git_commit_all(pub, "edit a published volume")
    before = snapshot(pub)
    result = cli("publish", "vol-001", root_dir=pub)
    assert result.exit_code == 1
    assert "vol-001 is published and its inputs changed since" in result.stderr
    assert "bundles/vol-001/volume.yaml: changed since publication" in result.stderr
    assert snapshot(pub) == before


def test_a_failing_gate_writes_nothing(example_src: Path, tmp_path: Path, cli: CliRun) -> None:
    root = publication_root(example_src, tmp_path / "fresh")
    (root / "README.md").write_text("uncommitted\n", "utf-8")
    before = snapshot(root)
    result = cli("publish", *VOLUMES, root_dir=root)
    assert result.exit_code == 1
    assert "the working tree is not clean: README.md" in result.stderr
    assert snapshot(root) == before and not (root / "site").exists()
    assert not (root / "site_src" / "volumes").exists()
    assert leftovers(root) == []


def test_draft_from_a_dirty_tree_is_watermarked(
    example_src: Path, tmp_path: Path, cli: CliRun, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One PDF, vol-001's smallest jury card (4 pages), is rendered by WeasyPrint and
    watermarked on every page: every page and PDF shares base.html and the PDF style
    sheet that print DRAFT, whatever the page. The other PDFs are stand-ins, which carry
    the DRAFT mark only when publish asked for a draft PDF: so both leaderboards are proven
    draft jobs too, without paying for their 15 and 27 pages (how a draft job is rendered
    does not depend on its page or volume)."""
    root = publication_root(example_src, tmp_path / "fresh")
    (root / "NOTES.txt").write_text("work in progress\n", "utf-8")
    real = "site_src/volumes/vol-001/jury/baseline-always-refuse.pdf"
    stand_in_pdfs(monkeypatch, rendered=lambda path: path.endswith(real))
    result = cli("publish", *VOLUMES, "--allow-dirty", root_dir=root)
    assert result.exit_code == 0, result.stderr
    assert "draft complete" in result.stderr
    from pypdf import PdfReader

    for vol in VOLUMES:
        folder = root / "site_src" / "volumes" / vol
        release = json.loads((folder / "release.json").read_text("utf-8"))
        assert release["draft"] is True
        assert release["gates"]["publishing"]["passed"] is False
        assert "DRAFT" in (folder / "leaderboard.html").read_text("utf-8")
        assert "DRAFT" in (folder / "jury" / "baseline-always-refuse.html").read_text("utf-8")
    pdfs = sorted((root / "site_src" / "volumes").rglob("*.pdf"))
    assert len(pdfs) == 20
    for path in pdfs:
        pdf = PdfReader(path)
        producer = str(pdf.metadata.producer if pdf.metadata else None)
        assert ("WeasyPrint" in producer) == (path == root / real), (path, producer)
        assert pdf.pages
        for page in pdf.pages:
            assert "DRAFT" in page.extract_text(), path
    assert len(PdfReader(root / real).pages) > 1  # every page of a real multi-page PDF


def test_signed_release_verifies_and_tampering_is_named(
    pub: Path, tmp_path: Path, cli: CliRun
) -> None:
    """Publishing the standing publication with a signing key signs its releases and its
    manifest (a fresh signed publish is tests/test_verify.py's publication)."""
    key = tmp_path / "signing.pem"
    key.write_bytes(
        Ed25519PrivateKey.generate().private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    result = cli("publish", *VOLUMES, "--signing-key", str(key), root_dir=pub)
    assert result.exit_code == 0, result.stderr
    release_file = pub / "site_src" / "volumes" / "vol-001" / "release.json"
    release = json.loads(release_file.read_text("utf-8"))
    assert release["signature"]["algorithm"] == "ed25519"
    assert (pub / "site_src" / "downloads" / "release-signing-key.pub").is_file()
    assert cli("verify", root_dir=pub).exit_code == 3  # intact; authenticity not checked
    release["gates"]["agreement"]["passed"] = True
    release["generator"] = "probepress 9.9.9"
    release_file.write_text(json.dumps(release, indent=2, sort_keys=True) + "\n", "utf-8")
    bad = cli("verify", root_dir=pub)
    assert bad.exit_code == 1
    assert (
        "site_src/volumes/vol-001/release.json: the signature does not match the manifest"
        in bad.stderr
    )


def test_verify_passes_on_the_root_and_on_the_built_site(pub: Path, cli: CliRun) -> None:
    ok = cli("verify", "--json", root_dir=pub)
    assert ok.exit_code == 3, ok.stderr  # intact and recomputed; no trusted key given
    report = json.loads(ok.stdout)
    assert report["integrity"] and report["recomputed"] and report["authenticated"] is None
    assert report["checked"]["figures"] > 300
    site = cli("verify", str(pub / "site"), root_dir=pub)
    assert site.exit_code == 3, site.stderr


ALTERED = {
    "site_src/downloads/bank_v1_public.jsonl": (
        "site_src/downloads/bank_v1_public.jsonl: does not match its SHA256SUMS line"
    ),
    "site_src/volumes/vol-001/leaderboard.html": (
        "site_src/volumes/vol-001/leaderboard.html: frozen file changed after it was published"
    ),
    # The figures a changed bundle file feeds are grouped under that file (root cause
    # first), not listed one finding per figure.
    "bundles/vol-002/demo-ember-ember-mini/verdicts.jsonl": (
        "bundles/vol-002/demo-ember-ember-mini/verdicts.jsonl: SHA-256/size do not match "
        "bundle.json"
    ),
}
GROUPED = re.compile(
    r"^bundles/vol-002/demo-ember-ember-mini/verdicts\.jsonl: [1-9][0-9]* figures do not "
    r"recompute because this file changed after it was published \(see above\) "
    r"\(vol-002/[^\n]*\[recomputed\]",
    re.MULTILINE,
)


def test_verify_names_every_altered_file_and_figure(pub: Path, cli: CliRun) -> None:
    """A download, a frozen page, a bundle and a registered figure, each altered in a
    different place: one verify run names every one (verify collects, then fails)."""
    for target in ALTERED:
        path = pub / target
        data = bytearray(path.read_bytes())
        spot = data.index(b"fail") if b"fail" in data else len(data) // 2
        data[spot] = ord("F") if data[spot] != ord("F") else ord("G")
        path.write_bytes(bytes(data))
    registry = pub / "figures" / "figures.json"
    data = json.loads(registry.read_text("utf-8"))
    data["figures"]["vol-001/demo-ember-ember-mini/core_rate"]["value"] = "0.0100"
    registry.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n", "utf-8")
    bad = cli("verify", root_dir=pub)
    assert bad.exit_code == 1
    for expected in ALTERED.values():
        assert expected in bad.stderr, bad.stderr[:2000]
    assert GROUPED.search(bad.stderr), bad.stderr[-2000:]
    assert "vol-001/demo-ember-ember-mini/core_rate: recomputes to" in bad.stderr


class Killed(BaseException):
    """A simulated SIGKILL: nothing catches it, no rollback runs."""


def _fault_after_applying(
    monkeypatch: pytest.MonkeyPatch, renames: int, fault: Callable[[Path], BaseException]
) -> None:
    """Make the journal raise ``fault`` at its ``renames``-th file rename after the
    ``applying`` marker: in the middle of moving the new publication into place."""
    seen = {"applying": False, "renames": 0}

    def step(self: journal.FileOps, action: str, path: Path) -> None:
        if action == "rename" and path.name == journal.APPLYING:
            seen["applying"] = True
        elif action == "rename" and seen["applying"]:
            seen["renames"] += 1
            if seen["renames"] == renames:
                raise fault(path)

    monkeypatch.setattr(journal.FileOps, "step", step)


def _age_the_site(pub: Path) -> None:
    """Give every file of the built site other bytes and drop its stamp: the next
    publish rebuilds the site and replaces all of its ~190 files, each with a previous
    version to back up and restore (a long move to interrupt)."""
    for path in (pub / "site").rglob("*"):
        if path.is_file():
            path.write_bytes(path.read_bytes() + b"\n<!-- the previous build -->\n")
    (pub / "site" / SITE_STAMP).unlink()


@pytest.mark.slow
def test_a_failed_or_killed_commit_leaves_the_previous_publication(
    pub: Path, cli: CliRun, monkeypatch: pytest.MonkeyPatch
) -> None:
    _age_the_site(pub)
    before = snapshot(pub)

    def eacces(path: Path) -> OSError:
        return PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(path))

    _fault_after_applying(monkeypatch, 60, eacces)
    failed = cli("publish", *VOLUMES, root_dir=pub)
    assert failed.exit_code == 2
    last = failed.stderr.strip().splitlines()[-2:]
    assert last[0].startswith("publish could not move the files into place: site/")
    assert last[0].endswith(": Permission denied [EACCES]; the previous publication was restored")
    assert snapshot(pub) == before and leftovers(pub) == []

    _fault_after_applying(monkeypatch, 60, lambda path: Killed(str(path)))
    with pytest.raises(Killed):
        cli("publish", *VOLUMES, root_dir=pub)
    assert snapshot(pub) != before and (pub / journal.JOURNAL).is_dir()
    monkeypatch.undo()
    recovered = cli("publish", "--recover", root_dir=pub)
    assert recovered.exit_code == 0
    assert recovered.stderr.startswith("rolled back an interrupted publish (")
    assert snapshot(pub) == before and leftovers(pub) == []
    assert cli("publish", *VOLUMES, root_dir=pub).exit_code == 0
    assert snapshot(pub) != before and _git_status(pub) == ""


KILLER = """
import os, signal, sys
from generator import journal
from generator.cli import main
seen = {"applying": False, "renames": 0}
def step(self, action, path):
    if action == "rename" and path.name == journal.APPLYING:
        seen["applying"] = True
    elif action == "rename" and seen["applying"]:
        seen["renames"] += 1
        if seen["renames"] == int(sys.argv[2]):
            os.kill(os.getpid(), signal.SIGKILL)
journal.FileOps.step = step
main(["--root", sys.argv[1], "publish", "vol-001", "vol-002"])
"""


@pytest.mark.slow
def test_a_real_sigkill_mid_move_recovers_from_what_is_on_disk(pub: Path, cli: CliRun) -> None:
    # Unlike the in-process kill above, nothing of the dying process runs here: no
    # finally block, no lock release but the kernel's, no buffered write flushed.
    _age_the_site(pub)
    before = snapshot(pub)
    child = subprocess.run(
        [sys.executable, "-c", KILLER, str(pub), "40"], capture_output=True, check=False
    )
    assert child.returncode == -signal.SIGKILL, child.stderr.decode()[-2000:]
    assert (pub / journal.JOURNAL / journal.APPLYING).is_file()
    recovered = cli("publish", "--recover", root_dir=pub)
    assert recovered.exit_code == 0, recovered.stderr
    assert snapshot(pub) == before and leftovers(pub) == []
    assert cli("publish", "--recover", root_dir=pub).stderr.strip() == "nothing to recover"


def test_publish_needs_a_volume_unless_recovering(pub: Path, cli: CliRun) -> None:
    result = cli("publish", root_dir=pub)
    assert result.exit_code == 2
    assert result.stderr.strip() == "publish needs at least one VOLUME (or --recover)"


def test_the_built_site_is_world_readable_under_umask_077(pub: Path, cli: CliRun) -> None:
    shutil.rmtree(pub / "site")
    saved = os.umask(0o077)
    try:
        result = cli("site", root_dir=pub)
    finally:
        os.umask(saved)
    assert result.exit_code == 0, result.stderr
    for area in ("site", "site_src/volumes", "site_src/downloads"):
        base = pub / area
        assert stat.S_IMODE(base.stat().st_mode) == 0o755
        for path in base.rglob("*"):
            want = 0o755 if path.is_dir() else 0o644
            assert stat.S_IMODE(path.stat().st_mode) == want, path
    assert leftovers(pub) == []


STOPPER = """
import sys, time
from pathlib import Path
import generator.figures
from generator.cli import main
def write(layout, volume, *args, **kwargs):
    Path(sys.argv[2]).write_text(str(layout.root), "utf-8")
    time.sleep(600)
generator.figures.write = write
main(["--root", sys.argv[1], "publish", "vol-001", "--allow-dirty"])
"""


def test_sigterm_during_publish_removes_the_staging_folder(root: Path, tmp_path: Path) -> None:
    marker = tmp_path / "staging-in-use"
    child = subprocess.Popen(
        [sys.executable, "-c", STOPPER, str(root), str(marker)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 120
    while not marker.exists():
        assert child.poll() is None, child.communicate()[1][-2000:]
        assert time.monotonic() < deadline
        time.sleep(0.05)
    stage = Path(marker.read_text("utf-8"))
    assert stage.is_dir() and stage.name.startswith(STAGING_PREFIX)
    child.send_signal(signal.SIGTERM)
    _, stderr = child.communicate(timeout=60)
    assert child.returncode == 143
    assert stderr.strip().splitlines()[-1] == (
        "probepress: stopped by SIGTERM; temporary files removed"
    )
    assert not stage.exists() and leftovers(root) == []


@pytest.mark.slow
def test_make_demo_on_a_fresh_clone_leaves_the_tree_clean(tmp_path: Path) -> None:
    """The Makefile's ``demo`` recipe, run on a fresh clone, changes nothing committed and
    leaves nothing untracked. It runs with this test's virtual environment (``-o``: the
    install stamp counts as up to date) and the clone's package first on the path: making
    the environment from nothing is what ``make test`` itself does on CI's fresh clone."""
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(REPO), str(clone)], check=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("VIRTUAL_ENV", "PYTEST"))}
    env["PYTHONPATH"] = str(clone)
    venv = Path(sys.prefix)
    imported = subprocess.run(
        [str(venv / "bin" / "python"), "-c", "import generator; print(generator.__file__)"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert Path(imported).is_relative_to(clone), imported
    stamp = venv / ".installed-stamp"
    done = subprocess.run(
        ["make", "-o", str(stamp), "demo", f"VENV={venv}"],
        cwd=clone,
        env=env,
        capture_output=True,
        text=True,
        timeout=1800,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "publication complete" in done.stdout + done.stderr
    assert _git_status(clone) == "", _git_status(clone)
