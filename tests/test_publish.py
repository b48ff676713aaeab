"""One-command publish and offline verify: atomic, idempotent, immutable, verifiable."""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from generator.hashing import sha256_file
from tests.conftest import CliRun
from tests.factories import git_commit_all

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
    (dest / ".gitignore").write_text(".private/\n/site/\n.probepress-*\n", "utf-8")
    git_commit_all(dest, "inputs")
    return dest


def snapshot(root: Path) -> dict[str, str]:
    """SHA-256 of every output file (figures/, site_src/, site/)."""
    out = {}
    for area in OUTPUTS:
        for path in sorted((root / area).rglob("*")) if (root / area).exists() else []:
            if path.is_file():
                out[path.relative_to(root).as_posix()] = sha256_file(path)
    return out


@pytest.fixture(scope="module")
def published(example_src: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Both example volumes published and committed (built once for this module)."""
    from click.testing import CliRunner

    from generator.cli import main

    root = publication_root(example_src, tmp_path_factory.mktemp("pub") / "root")
    result = CliRunner().invoke(main, ["--root", str(root), "publish", *VOLUMES])
    assert result.exit_code == 0, result.output
    git_commit_all(root, "publish")
    return root


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
    assert not list(published.glob(".probepress-*"))


def test_republishing_unchanged_inputs_rewrites_nothing(pub: Path, cli: CliRun) -> None:
    before = {
        p: (p.stat().st_mtime_ns, sha256_file(p))
        for p in pub.rglob("*")
        if p.is_file() and ".git" not in p.parts
    }
    result = cli("publish", *VOLUMES, root_dir=pub)
    assert result.exit_code == 0, result.stderr
    assert "nothing rewritten" in result.stderr
    after = {
        p: (p.stat().st_mtime_ns, sha256_file(p))
        for p in pub.rglob("*")
        if p.is_file() and ".git" not in p.parts
    }
    assert after == before
    assert _git_status(pub) == ""


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
    assert not list(root.glob(".probepress-*"))


def test_draft_from_a_dirty_tree_is_watermarked(
    example_src: Path, tmp_path: Path, cli: CliRun
) -> None:
    root = publication_root(example_src, tmp_path / "fresh")
    (root / "NOTES.txt").write_text("work in progress\n", "utf-8")
    result = cli("publish", *VOLUMES, "--allow-dirty", root_dir=root)
    assert result.exit_code == 0, result.stderr
    assert "draft complete" in result.stderr
    for vol in VOLUMES:
        folder = root / "site_src" / "volumes" / vol
        release = json.loads((folder / "release.json").read_text("utf-8"))
        assert release["draft"] is True
        assert release["gates"]["publishing"]["passed"] is False
        assert "DRAFT" in (folder / "leaderboard.html").read_text("utf-8")
        from pypdf import PdfReader

        for page in PdfReader(folder / "leaderboard.pdf").pages:
            assert "DRAFT" in page.extract_text()


def test_signed_release_verifies_and_tampering_is_named(
    example_src: Path, tmp_path: Path, cli: CliRun
) -> None:
    root = publication_root(example_src, tmp_path / "fresh")
    key = tmp_path / "signing.pem"
    key.write_bytes(
        Ed25519PrivateKey.generate().private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    result = cli("publish", *VOLUMES, "--signing-key", str(key), root_dir=root)
    assert result.exit_code == 0, result.stderr
    release_file = root / "site_src" / "volumes" / "vol-001" / "release.json"
    release = json.loads(release_file.read_text("utf-8"))
    assert release["signature"]["algorithm"] == "ed25519"
    assert (root / "site_src" / "downloads" / "release-signing-key.pub").is_file()
    assert cli("verify", root_dir=root).exit_code == 3  # intact; authenticity not checked
    release["gates"]["agreement"]["passed"] = True
    release["generator"] = "probepress 9.9.9"
    release_file.write_text(json.dumps(release, indent=2, sort_keys=True) + "\n", "utf-8")
    bad = cli("verify", root_dir=root)
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


@pytest.mark.parametrize(
    ("target", "expected"),
    [
        (
            "site_src/downloads/bank_v1_public.jsonl",
            "site_src/downloads/bank_v1_public.jsonl: does not match its SHA256SUMS line",
        ),
        (
            "site_src/volumes/vol-001/leaderboard.html",
            "site_src/volumes/vol-001/leaderboard.html: frozen file changed after it was published",
        ),
        (
            "bundles/vol-002/demo-ember-ember-mini/verdicts.jsonl",
            "vol-002/demo-ember-ember-mini/core_rate: source "
            "bundles/vol-002/demo-ember-ember-mini/verdicts.jsonl changed",
        ),
    ],
)
def test_verify_names_an_altered_file(pub: Path, cli: CliRun, target: str, expected: str) -> None:
    path = pub / target
    data = bytearray(path.read_bytes())
    spot = data.index(b"fail") if b"fail" in data else len(data) // 2
    data[spot] = ord("F") if data[spot] != ord("F") else ord("G")
    path.write_bytes(bytes(data))
    bad = cli("verify", root_dir=pub)
    assert bad.exit_code == 1
    assert expected in bad.stderr, bad.stderr[:2000]


def test_verify_names_an_altered_figure(pub: Path, cli: CliRun) -> None:
    registry = pub / "figures" / "figures.json"
    data = json.loads(registry.read_text("utf-8"))
    data["figures"]["vol-001/demo-ember-ember-mini/core_rate"]["value"] = "0.0100"
    registry.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n", "utf-8")
    bad = cli("verify", root_dir=pub)
    assert bad.exit_code == 1
    assert "vol-001/demo-ember-ember-mini/core_rate: recomputes to" in bad.stderr


def _publish_process(root: Path) -> subprocess.Popen[bytes]:
    """``probepress publish`` in a child, with every file move slowed down so that a kill
    can land inside the move (without it the move lasts a few milliseconds)."""
    code = (
        "import os, time\n"
        "_replace = os.replace\n"
        "def slow(a, b):\n"
        "    _replace(a, b)\n"
        "    time.sleep(0.01)\n"
        "os.replace = slow\n"
        "from generator.cli import main\n"
        f"main(['--root', {str(root)!r}, 'publish', 'vol-001', 'vol-002'])\n"
    )
    return subprocess.Popen(
        [sys.executable, "-c", code],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )


@pytest.mark.slow
def test_sigkill_at_any_moment_leaves_the_previous_publication(
    example_src: Path, tmp_path: Path, cli: CliRun
) -> None:
    root = publication_root(example_src, tmp_path / "fresh")
    started = time.monotonic()
    child = _publish_process(root)
    assert child.wait(timeout=900) == 0
    duration = time.monotonic() - started
    done = snapshot(root)
    shutil.rmtree(root)
    root = publication_root(example_src, tmp_path / "fresh")
    rng = random.Random(20261130)
    previous = snapshot(root)
    kills = [*sorted(rng.uniform(0.05, 1.0) * duration for _ in range(5)), duration * 0.97]
    for delay in kills:
        child = _publish_process(root)
        time.sleep(delay)
        os.killpg(child.pid, signal.SIGKILL)
        child.wait()
        assert cli("publish", "--recover", "vol-001", root_dir=root).exit_code == 0
        now = snapshot(root)
        if now == done:
            # The kill came after the commit point: the new publication stands whole.
            assert not (root / ".probepress-journal.json").exists()
            shutil.rmtree(root)
            root = publication_root(example_src, tmp_path / "fresh")
            continue
        assert now == previous, f"killed after {delay:.1f}s: previous publication not intact"
        assert not list(root.glob(".probepress-*"))
    final = cli("publish", *VOLUMES, root_dir=root)
    assert final.exit_code == 0, final.stderr
    assert snapshot(root) == done


@pytest.mark.slow
def test_make_demo_on_a_fresh_clone_leaves_the_tree_clean(tmp_path: Path) -> None:
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(REPO), str(clone)], check=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("VIRTUAL_ENV", "PYTEST"))}
    done = subprocess.run(
        ["make", "demo"],
        cwd=clone,
        env=env,
        capture_output=True,
        text=True,
        timeout=1800,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert _git_status(clone) == "", _git_status(clone)
