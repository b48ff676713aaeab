"""``probepress verify``: integrity, recomputation and authenticity, kept apart.

One signed publication is built for the whole module; each test tampers with a copy.
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from generator.canonical import dumps
from generator.cli import main
from generator.hashing import sha256_file
from generator.models.release import Release, SiteManifest
from generator.release import UNSEALED, download_name, sign
from generator.trust import pem_fingerprint
from tests.factories import git_commit_all, stand_in_pdfs
from tests.test_publish import VOLUMES, publication_root

MANIFEST = "site_src/downloads/release-manifest.json"
KEY_PUB = "site_src/downloads/release-signing-key.pub"
RELEASE = "site_src/volumes/vol-001/release.json"


def _pem_private(key: Ed25519PrivateKey) -> bytes:
    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )


def _pem_public(key: Ed25519PrivateKey) -> bytes:
    return key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )


@pytest.fixture(scope="module")
def keys(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The maintainer's key pair and a forger's, as files outside any site."""
    folder = tmp_path_factory.mktemp("keys")
    out = {}
    for name in ("maintainer", "forger"):
        key = Ed25519PrivateKey.generate()
        (folder / f"{name}.pem").write_bytes(_pem_private(key))
        (folder / f"{name}.pub").write_bytes(_pem_public(key))
        out[name] = folder / f"{name}.pem"
        out[f"{name}.pub"] = folder / f"{name}.pub"
    return out


@pytest.fixture(scope="module")
def signed(
    example_src: Path, tmp_path_factory: pytest.TempPathFactory, keys: dict[str, Path]
) -> Path:
    """Both example volumes published signed by the maintainer and committed. Its PDFs
    are stand-ins: what verify checks of a PDF (its bytes against the manifest, its
    fingerprint entry) does not depend on how it was rendered."""
    root = publication_root(example_src, tmp_path_factory.mktemp("signed") / "root")
    args = ["--root", str(root), "publish", *VOLUMES, "--signing-key", str(keys["maintainer"])]
    with pytest.MonkeyPatch.context() as patch:
        stand_in_pdfs(patch)
        result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    git_commit_all(root, "publish")
    return root


@pytest.fixture
def pub(signed: Path, tmp_path: Path) -> Path:
    """A writable copy of the signed publication."""
    dest = tmp_path / "pub"
    shutil.copytree(signed, dest, symlinks=True)
    return dest


def git(root: Path, *args: str) -> str:
    """``git -C ROOT ARGS…``'s output (the test's own commits use ``git_commit_all``)."""
    run = subprocess.run(["git", "-C", str(root), *args], capture_output=True, check=True)
    return run.stdout.decode("utf-8")


def verify(root: Path, *args: str) -> Result:
    """``probepress verify`` with stdout and stderr apart."""
    return CliRunner().invoke(main, ["--root", str(root), "verify", *args], catch_exceptions=False)


def trusted(keys: dict[str, Path]) -> tuple[str, str]:
    return ("--trusted-key", str(keys["maintainer.pub"]))


def _rewrite(path: Path, record: Release | SiteManifest) -> None:
    path.write_bytes(dumps(record.model_dump(mode="json", exclude_none=True)).encode("utf-8"))


def _reseal_manifest(root: Path, key: Ed25519PrivateKey | None, *changed: str) -> None:
    """Update the manifest's entries for ``changed`` files and re-sign it with ``key``."""
    path = root / MANIFEST
    data = json.loads(path.read_text("utf-8"))
    data.pop("signature", None)
    for rel in changed:
        target = root / rel
        if target.is_file():
            entry = {"size": target.stat().st_size, "sha256": sha256_file(target)}
            data["files"][rel] = entry
        else:
            data["files"].pop(rel, None)
    manifest = SiteManifest.model_validate(data)
    _rewrite(path, sign(manifest, key) if key is not None else manifest)
    shutil.copy2(path, root / "site" / "downloads" / "release-manifest.json")


def _edit(path: Path) -> None:
    data = bytearray(path.read_bytes())
    spot = len(data) // 2
    data[spot] = ord("X") if data[spot] != ord("X") else ord("Y")
    path.write_bytes(bytes(data))


def test_a_legitimately_signed_publication_verifies(pub: Path, keys: dict[str, Path]) -> None:
    ok = verify(pub, "--json", *trusted(keys))
    assert ok.exit_code == 0, ok.stderr
    report = json.loads(ok.stdout)
    assert (report["integrity"], report["recomputed"], report["authenticated"]) == (
        True,
        True,
        True,
    )
    assert report["checked"]["manifest_files"] > 100 and report["checked"]["releases"] == 2
    assert "verified: intact, recomputed and signed by a trusted key" in ok.stderr
    site = verify(pub, str(pub / "site"), *trusted(keys))
    assert site.exit_code == 0, site.stderr


def test_without_trust_authenticity_is_not_checked(pub: Path) -> None:
    result = verify(pub, "--json")
    assert result.exit_code == 3, result.stderr
    report = json.loads(result.stdout)
    assert report["authenticated"] is None and report["integrity"] and report["recomputed"]
    assert "authenticity was NOT checked: no --trusted-key or --trust-policy given" in (
        result.stderr
    )
    assert f"{KEY_PUB}: the site ships key sha256:" in result.stderr
    assert "reported only, never trusted" in result.stderr


def test_forged_key_and_swapped_pub_fail(pub: Path, keys: dict[str, Path]) -> None:
    forger = serialization.load_pem_private_key(keys["forger"].read_bytes(), password=None)
    assert isinstance(forger, Ed25519PrivateKey)
    release = Release.model_validate_json((pub / RELEASE).read_bytes())
    forged = release.model_copy(update={"generator": "probepress 9.9.9", "signature": None})
    _rewrite(pub / RELEASE, sign(forged, forger))
    shutil.copy2(keys["forger.pub"], pub / KEY_PUB)
    shutil.copy2(keys["forger.pub"], pub / "site" / "downloads" / "release-signing-key.pub")
    _reseal_manifest(pub, forger, RELEASE, KEY_PUB, "site/downloads/release-signing-key.pub")
    forged_fp = pem_fingerprint(keys["forger.pub"].read_bytes(), "forger")
    bad = verify(pub, *trusted(keys))
    assert bad.exit_code == 1
    assert f"{RELEASE}: is signed by {forged_fp}, which is not a trusted key [authenticated]" in (
        bad.stderr
    )
    assert f"{MANIFEST}: is signed by {forged_fp}, which is not a trusted key" in bad.stderr
    assert f"{RELEASE}: is signed by another key than figures/releases.json records" in bad.stderr
    assert verify(pub, str(pub / "site"), *trusted(keys)).exit_code == 1


LEDGERS = {
    # Deleted together where no finding of one depends on another being present (the
    # release's finding names the fingerprint registry, the registry's the release).
    "release-sums-manifest": {
        RELEASE: f"{RELEASE}: is missing, though its frozen files in figures/fingerprints.json",
        "site_src/downloads/SHA256SUMS": (
            "site_src/downloads/SHA256SUMS: is missing (a deleted ledger)"
        ),
        MANIFEST: (
            f"{MANIFEST}: the site manifest is missing: the published files are covered by none"
        ),
    },
    "registries": {
        "figures/fingerprints.json": (
            "figures/fingerprints.json: the fingerprint registry is missing (a deleted ledger)"
        ),
        "figures/releases.json": (
            f"figures/releases.json: the release ledger is missing, yet {RELEASE} is signed"
        ),
    },
}
"""Ledgers deleted in one copy of the publication, each with the finding it must give (one
verify run with trust and one without per group: verify collects every finding)."""


@pytest.mark.parametrize("deleted", LEDGERS.values(), ids=list(LEDGERS))
def test_a_deleted_ledger_is_a_finding(
    pub: Path, keys: dict[str, Path], deleted: dict[str, str]
) -> None:
    for target in deleted:
        (pub / target).unlink()
    bad = verify(pub, *trusted(keys))
    assert bad.exit_code == 1
    untrusted = verify(pub)
    assert untrusted.exit_code == 1  # a finding with or without trust
    for expected in deleted.values():
        assert expected in bad.stderr, bad.stderr[:3000]
        assert expected in untrusted.stderr, untrusted.stderr[:3000]


def test_stripped_signatures_and_key_are_a_downgrade(pub: Path, keys: dict[str, Path]) -> None:
    for volume in VOLUMES:
        path = pub / "site_src" / "volumes" / volume / "release.json"
        release = Release.model_validate_json(path.read_bytes())
        _rewrite(path, release.model_copy(update={"signature": None}))
    (pub / KEY_PUB).unlink()
    (pub / "site" / "downloads" / "release-signing-key.pub").unlink()
    _reseal_manifest(pub, None, RELEASE, "site_src/volumes/vol-002/release.json", KEY_PUB)
    bad = verify(pub, *trusted(keys))
    assert bad.exit_code == 1
    assert f"{RELEASE}: is not signed (a trusted signature is required) [authenticated]" in (
        bad.stderr
    )
    untrusted = verify(pub)
    assert untrusted.exit_code == 1
    assert (
        f"{RELEASE}: is unsigned, but figures/releases.json records it was published signed "
        "by sha256:"
    ) in untrusted.stderr
    assert f"{MANIFEST}: is unsigned, but figures/releases.json records signed volumes" in (
        untrusted.stderr
    )


BUILT = ("site", *UNSEALED)
"""What every site build writes and the repository's .gitignore leaves out of a clone."""
BUNDLE = "bundles/vol-001/volume.yaml"
ARCHIVE = "downloads/archives/vol-002_bundles.tar.gz"


def test_the_manifest_covers_the_built_bundles_not_their_copies_in_site_src(pub: Path) -> None:
    files = json.loads((pub / MANIFEST).read_text("utf-8"))["files"]
    assert f"site/downloads/{BUNDLE}" in files
    assert f"site/{ARCHIVE}" in files
    assert not [p for p in files if p.startswith(BUILT[1:])]
    assert (pub / "site_src" / "downloads" / BUNDLE).read_bytes() == (pub / BUNDLE).read_bytes()
    assert (pub / "site_src" / ARCHIVE).read_bytes() == (pub / "site" / ARCHIVE).read_bytes()


def test_a_tampered_archive_in_a_built_site_fails_verify(pub: Path, keys: dict[str, Path]) -> None:
    """An archive repacked with one member changed: its SHA256SUMS line, its manifest entry
    and the bundles it must hold each name it."""
    path = pub / "site" / ARCHIVE
    tar = bytearray(gzip.decompress(path.read_bytes()))
    tar[512 + 100] ^= 1  # a byte of the first member (its 512-byte header comes first)
    path.write_bytes(gzip.compress(bytes(tar), 9, mtime=0))
    bad = verify(pub, str(pub / "site"), *trusted(keys))
    assert bad.exit_code == 1
    assert f"{ARCHIVE}: does not match its SHA256SUMS line [integrity]" in bad.stderr
    assert f"{ARCHIVE}: differs from the site manifest [integrity]" in bad.stderr
    assert (
        f"{ARCHIVE}: does not hold exactly the public bundles of vol-002 (names, bytes and "
        "fixed metadata)"
    ) in bad.stderr


def test_a_clean_clone_checks_and_publishes_with_its_archives_made_again(
    pub: Path, keys: dict[str, Path], tmp_path: Path
) -> None:
    """A clone of a repository that commits no build output (git ignores what every site
    build writes): check passes, publish makes the archives again byte for byte and leaves
    the committed tree as it was published."""
    ignore = pub / ".gitignore"
    ignore.write_text(ignore.read_text("utf-8") + "".join(f"/{f}\n" for f in BUILT), "utf-8")
    git(pub, "rm", "-r", "-q", "--cached", *BUILT[1:])
    git_commit_all(pub, "build outputs are not committed")
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(pub), str(clone)], check=True)
    shutil.copytree(pub / ".private", clone / ".private")
    assert not (clone / "site_src" / ARCHIVE).exists()
    manifest = (clone / MANIFEST).read_bytes()
    checked = CliRunner().invoke(main, ["--root", str(clone), "check", "vol-002"])
    assert checked.exit_code == 0, checked.output
    args = ["--root", str(clone), "publish", *VOLUMES, "--signing-key", str(keys["maintainer"])]
    with pytest.MonkeyPatch.context() as patch:
        stand_in_pdfs(patch)
        published = CliRunner().invoke(main, args)
    assert published.exit_code == 0, published.output
    assert (clone / "site_src" / ARCHIVE).read_bytes() == (pub / "site" / ARCHIVE).read_bytes()
    assert (clone / MANIFEST).read_bytes() == manifest
    assert git(clone, "status", "--porcelain") == ""
    assert verify(clone, *trusted(keys)).exit_code == 0


def _unbuild(pub: Path) -> None:
    """Remove what every site build writes: the root as a clean clone has it."""
    for place in BUILT:
        if (pub / place).is_dir():
            shutil.rmtree(pub / place)
        else:
            (pub / place).unlink()


def test_a_clean_clone_verifies_and_checks_the_bundles_against_bundles(
    pub: Path, keys: dict[str, Path]
) -> None:
    _unbuild(pub)
    ok = verify(pub, *trusted(keys))
    assert ok.exit_code == 0, ok.stderr
    assert "site/ is not built here" in ok.stderr
    (pub / BUNDLE).write_bytes((pub / BUNDLE).read_bytes() + b"# planted\n")
    bad = verify(pub, *trusted(keys))
    assert bad.exit_code == 1
    assert f"{BUNDLE}: does not match its SHA256SUMS line [integrity]" in bad.stderr
    assert f"{BUNDLE}: differs from {RELEASE} [integrity]" in bad.stderr


COPIES = ("bank/public.jsonl", "bank/status.jsonl", "figures/fingerprints.json")
"""Root files the downloads copy (``release.COPIED_AT_BUILD``), each as a build ships it."""


@pytest.mark.parametrize("original", COPIES)
def test_a_clean_clone_checks_the_downloads_copies_against_their_originals(
    pub: Path, keys: dict[str, Path], original: str
) -> None:
    """A clean clone has none of the copies: each one's SHA256SUMS line is checked against
    the root's original, and a tampered original is named against it."""
    name = download_name(original)
    assert (pub / "site_src/downloads" / name).read_bytes() == (pub / original).read_bytes()
    _unbuild(pub)
    assert not (pub / "site_src/downloads" / name).exists()
    ok = verify(pub, *trusted(keys))
    assert ok.exit_code == 0, ok.stderr
    (pub / original).write_bytes((pub / original).read_bytes() + b"\n")
    bad = verify(pub, *trusted(keys))
    assert bad.exit_code == 1
    assert f"{original}: does not match its SHA256SUMS line [integrity]" in bad.stderr


@pytest.mark.parametrize("original", COPIES)
def test_a_tampered_copy_of_a_root_file_is_named_in_a_built_root_and_site(
    pub: Path, keys: dict[str, Path], original: str
) -> None:
    """Built, the copies are checked too (against SHA256SUMS; in site/, also against the
    manifest), while the originals still verify."""
    name = download_name(original)
    for copy in (f"site_src/downloads/{name}", f"site/downloads/{name}"):
        (pub / copy).write_bytes((pub / copy).read_bytes() + b"\n")
    bad = verify(pub, *trusted(keys))
    assert bad.exit_code == 1
    assert f"site_src/downloads/{name}: does not match its SHA256SUMS line [integrity]" in (
        bad.stderr
    )
    assert f"site/downloads/{name}: differs from the site manifest [integrity]" in bad.stderr
    assert not [line for line in bad.stderr.splitlines() if line.startswith(f"{original}:")]
    site = verify(pub, str(pub / "site"), *trusted(keys))
    assert site.exit_code == 1
    assert f"downloads/{name}: does not match its SHA256SUMS line [integrity]" in site.stderr


PAGES = (
    "site/volumes/vol-001/index.html",  # the MkDocs results page
    "site/search/search_index.json",
    "site/findings.html",  # a hand-written page that cites findings
)
DOWNLOAD = "bank_v1_public.jsonl"


def _edit_download_and_its_sums_line(pub: Path) -> None:
    """Append a line to a download, in site_src/ and in the built site, and rewrite its
    SHA256SUMS line to match (a tamperer covering their tracks)."""
    for folder in ("site_src/downloads", "site/downloads"):
        path = pub / folder / DOWNLOAD
        path.write_bytes(path.read_bytes() + b'{"id": "planted"}\n')
        sums = pub / folder / "SHA256SUMS"
        lines = [
            f"{sha256_file(path)}  {DOWNLOAD}" if line.endswith(f"  {DOWNLOAD}") else line
            for line in sums.read_text("utf-8").splitlines()
        ]
        sums.write_text("\n".join(lines) + "\n", "utf-8")


def test_edited_pages_downloads_and_extra_files_are_each_named(
    pub: Path, keys: dict[str, Path]
) -> None:
    """Edited site pages, a download edited with its sums line, an edited built copy of a
    bundle and an extra page, all in one copy: verify collects every finding, so one run
    on the root and one on the site name each file (integrity findings are per file)."""
    for target in PAGES:
        _edit(pub / target)
    _edit_download_and_its_sums_line(pub)
    copy = pub / "site_src" / "downloads" / BUNDLE
    copy.write_bytes(copy.read_bytes() + b"# planted\n")
    (pub / "site" / "volumes" / "vol-001" / "erratum.html").write_text("<p>x</p>\n", "utf-8")
    bad = verify(pub, *trusted(keys))
    assert bad.exit_code == 1
    for target in PAGES:
        assert f"{target}: differs from the site manifest [integrity]" in bad.stderr
    assert f"site_src/downloads/{DOWNLOAD}: differs from the site manifest [integrity]" in (
        bad.stderr
    )
    assert "site_src/downloads/SHA256SUMS: differs from the site manifest" in bad.stderr
    assert f"site_src/downloads/{BUNDLE}: does not match its SHA256SUMS line" in bad.stderr
    assert f"\n{BUNDLE}: does not match" not in bad.stderr  # the original is intact
    on_site = verify(pub, str(pub / "site"), *trusted(keys))
    assert on_site.exit_code == 1
    for target in PAGES:
        assert f"{target.removeprefix('site/')}: differs from the site manifest" in (on_site.stderr)
    assert f"downloads/{DOWNLOAD}: differs from the site manifest" in on_site.stderr
    assert "volumes/vol-001/erratum.html: is listed in no manifest" in on_site.stderr


def test_a_trust_policy_names_signers_and_refuses_revoked_keys(
    pub: Path, keys: dict[str, Path], tmp_path: Path
) -> None:
    fp = pem_fingerprint(keys["maintainer.pub"].read_bytes(), "maintainer")
    policy = tmp_path / "policy.json"
    signers = [{"identity": "Probe bank maintainers", "keys": [fp]}]
    policy.write_text(json.dumps({"schema_version": 1, "signers": signers}), "utf-8")
    assert verify(pub, "--trust-policy", str(policy)).exit_code == 0
    revoked = [{"fingerprint": fp, "reason": "key leaked 2026-11-30"}]
    policy.write_text(
        json.dumps({"schema_version": 1, "signers": signers, "revoked": revoked}), "utf-8"
    )
    bad = verify(pub, "--trust-policy", str(policy))
    assert bad.exit_code == 1
    assert f"{RELEASE}: is signed by the revoked key {fp} (key leaked 2026-11-30)" in bad.stderr
    policy.write_text(json.dumps({"signers": signers, "extra": 1}), "utf-8")
    unreadable = verify(pub, "--trust-policy", str(policy))
    assert unreadable.exit_code == 2
    assert "cannot read the trust policy" in unreadable.stderr


def test_publishing_unsigned_after_signed_is_refused(pub: Path) -> None:
    env = os.environ.pop("PROBEPRESS_SIGNING_KEY", None)
    try:
        result = CliRunner().invoke(main, ["--root", str(pub), "publish", *VOLUMES])
    finally:
        if env is not None:
            os.environ["PROBEPRESS_SIGNING_KEY"] = env
    assert result.exit_code == 1
    assert "an unsigned publication would be a downgrade" in result.stderr
    assert "figures/releases.json: vol-001 was signed by sha256:" in result.stderr


def test_a_committed_unpublished_volume_is_not_a_failure(pub: Path, keys: dict[str, Path]) -> None:
    shutil.copytree(pub / "bundles" / "vol-003", pub / "bundles" / "vol-004")
    volume = pub / "bundles" / "vol-004" / "volume.yaml"
    volume.write_text(volume.read_text("utf-8").replace("vol-003", "vol-004"), "utf-8")
    git_commit_all(pub, "vol-004, not yet published")
    result = verify(pub, *trusted(keys))
    assert result.exit_code == 0, result.stderr[:3000]
    assert "vol-004: not published yet (no release.json, nothing registered)" in result.stderr
    assert "computed but not registered" not in result.stderr


@pytest.mark.parametrize("kind", ["fifo", "dev-zero"])
def test_non_regular_files_are_findings_and_never_read(
    pub: Path, keys: dict[str, Path], kind: str
) -> None:
    target = pub / "site" / "downloads" / "bundles" / "vol-001" / "trap.jsonl"
    if kind == "fifo":
        os.mkfifo(target)
        what = "is a FIFO, not a regular file; not read"
    else:
        target.symlink_to("/dev/zero")
        what = "is a symbolic link (never followed); not read"
    started = time.monotonic()
    bad = verify(pub, str(pub / "site"), *trusted(keys))
    assert time.monotonic() - started < 60
    assert bad.exit_code == 1
    assert f"downloads/bundles/vol-001/trap.jsonl: {what} [integrity]" in bad.stderr
    assert "not recomputed: downloads/bundles/vol-001/trap.jsonl cannot be read safely" in (
        bad.stderr
    )


def test_rotating_the_key_re_signs_every_standing_release(pub: Path, keys: dict[str, Path]) -> None:
    args = ["--root", str(pub), "publish", *VOLUMES, "--signing-key", str(keys["forger"])]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert "nothing rewritten" not in result.stderr  # a new key is never a no-op
    git_commit_all(pub, "re-signed with a new key")
    new_key = ("--trusted-key", str(keys["forger.pub"]))
    ok = verify(pub, *new_key)
    assert ok.exit_code == 0, ok.stderr[:3000]
    assert f"{RELEASE}: signed by trusted key forger.pub" in ok.stderr
    assert verify(pub, *trusted(keys)).exit_code == 1  # the old key no longer signs it


def _flip_first_verdict(path: Path) -> None:
    """One verdict edited by hand, the bundle's manifest left as sealed."""
    lines = path.read_text("utf-8").splitlines(keepends=True)
    record = json.loads(lines[0])
    record["verdict"] = "pass" if record["verdict"] == "fail" else "fail"
    lines[0] = json.dumps(record, sort_keys=True, ensure_ascii=False) + "\n"
    path.write_text("".join(lines), "utf-8")


VERDICTS = "bundles/vol-001/demo-ember-ember-mini/verdicts.jsonl"


def test_one_changed_file_shows_its_cause_first_and_every_finding(
    pub: Path, keys: dict[str, Path]
) -> None:
    _flip_first_verdict(pub / VERDICTS)
    # One run: --json only adds the report on stdout; stderr is the reader's text.
    bad = verify(pub, "--json", *trusted(keys))
    assert bad.exit_code == 1
    lines = bad.stderr.splitlines()
    assert not [x for x in lines if x.startswith("... and ")]  # nothing cut off
    mine = [x for x in lines if x.startswith(f"{VERDICTS}: ")]
    assert f"{VERDICTS}: differs from {RELEASE} [integrity]" in mine[0]
    assert any("do not match bundle.json" in x for x in mine)
    grouped = next(x for x in lines if "figures do not recompute" in x)
    assert "because this file changed after it was published" in grouped
    assert lines.index(grouped) > lines.index(mine[0])  # root cause first
    assert "probepress figures" not in bad.stderr  # a reader cannot recompute a registry
    report = json.loads(bad.stdout)
    kinds = [f["kind"] for f in report["findings"]]
    assert kinds == sorted(kinds, key=lambda k: k != "integrity")
    recomputed = [f for f in report["findings"] if f["kind"] == "recomputed"]
    assert recomputed[0]["cause"] == VERDICTS and len(recomputed[0]["affected"]) > 40


def test_a_site_is_named_by_its_own_paths_with_a_readers_fix(
    pub: Path, keys: dict[str, Path]
) -> None:
    _flip_first_verdict(pub / "site" / "downloads" / VERDICTS)
    bad = verify(pub, str(pub / "site"), *trusted(keys))
    assert bad.exit_code == 1
    assert "site_src/" not in bad.stderr
    assert f"\n{VERDICTS}" not in bad.stderr  # the site holds it under downloads/
    sealed = next(x for x in bad.stderr.splitlines() if "do not match bundle.json" in x)
    assert sealed.startswith(f"downloads/{VERDICTS}: ")
    assert "fetch it again from the publisher" in sealed
    assert "runner's output" not in bad.stderr  # a maintainer's fix, not a reader's


_VERIFY_IN_A_PROCESS = """
import json, sys
site, forbidden = sys.argv[1], sys.argv[2].split(",")
import generator.cli, generator.verify
before = {m.partition(".")[0] for m in sys.modules}
sys.argv = ["probepress", "verify", site]
try:
    generator.cli.main()
except SystemExit as exc:
    code = exc.code
after = set(sys.modules)
print(json.dumps({
    "code": code,
    "before": sorted(before & {"numpy", "scipy"}),
    "after": sorted(m for m in after if m.partition(".")[0] in forbidden or m in forbidden),
}))
"""
NOT_FOR_VERIFY = ("jinja2", "weasyprint", "pypdf", "mkdocs", "material", "pandas", "irrCAC")
"""Renderers, the site builder and the agreement gate's libraries: verify needs none."""


def test_verify_imports_no_renderer_and_loads_statistics_only_to_recompute(
    signed: Path,
) -> None:
    """In a fresh process (as a reader runs it): importing the CLI and verify loads no
    NumPy or SciPy (only the recomputation does), and a whole verify of a built site
    loads no renderer, site builder or agreement library, nor scipy.stats."""
    import subprocess
    import sys

    forbidden = ",".join((*NOT_FOR_VERIFY, "scipy.stats", "scipy.optimize"))
    done = subprocess.run(
        [sys.executable, "-c", _VERIFY_IN_A_PROCESS, str(signed / "site"), forbidden],
        capture_output=True,
        text=True,
        check=False,
        cwd=Path(__file__).resolve().parent.parent,
        timeout=1800,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found["code"] == 3, done.stderr[-2000:]  # intact and recomputed, no trust given
    assert found["before"] == []
    assert found["after"] == []
