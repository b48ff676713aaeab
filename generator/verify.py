"""Offline verification for downstream users (``probepress verify``).

Given a publication root or a built site, recompute every public figure from the public
bundles and the bank, and check every fingerprint, every ``SHA256SUMS`` line and every
release signature. Nothing here needs the network or the private store.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from generator import figures, fingerprints
from generator.errors import ProbepressError, UsageError
from generator.hashing import sha256_file
from generator.signing import PUBLIC_KEY_FILE
from generator.store import Layout

Step = Callable[[str], None]
SUMS = "SHA256SUMS"


@dataclass(frozen=True)
class Mismatch:
    """Something that does not verify, named."""

    what: str
    message: str

    def __str__(self) -> str:
        return f"{self.what}: {self.message}"


@dataclass(frozen=True)
class VerifyReport:
    """Everything checked, and what failed."""

    checked: dict[str, int]
    mismatches: tuple[Mismatch, ...]

    @property
    def verified(self) -> bool:
        return not self.mismatches

    def as_json(self) -> dict[str, Any]:
        return {
            "verified": self.verified,
            "checked": self.checked,
            "mismatches": [{"what": m.what, "message": m.message} for m in self.mismatches],
        }

    def summary(self) -> str:
        counts = ", ".join(f"{n} {k}" for k, n in self.checked.items())
        verdict = "verified" if self.verified else f"{len(self.mismatches)} mismatch(es)"
        return f"{verdict} ({counts})"


def check_sums(folder: Path, label: str) -> tuple[int, list[Mismatch]]:
    """Check a ``SHA256SUMS`` file (``sha256sum`` format) against the files beside it."""
    sums = folder / SUMS
    out: list[Mismatch] = []
    count = 0
    for number, line in enumerate(sums.read_text("utf-8").splitlines(), start=1):
        digest, _, name = line.partition("  ")
        name = name.lstrip("*")
        if not name or len(digest) != 64:
            out.append(Mismatch(f"{label}/{SUMS}:{number}", "not a sha256sum line"))
            continue
        path = (folder / name).resolve()
        if not path.is_relative_to(folder.resolve()):
            out.append(Mismatch(f"{label}/{SUMS}:{number}", f"{name} is outside the downloads"))
            continue
        count += 1
        if not path.is_file():
            out.append(Mismatch(f"{label}/{name}", "is listed in SHA256SUMS but missing"))
        elif sha256_file(path) != digest:
            out.append(Mismatch(f"{label}/{name}", "does not match its SHA256SUMS line"))
    return count, out


def _releases(layout: Layout, trusted: str | None, site: bool) -> tuple[int, list[Mismatch]]:
    from generator.publish import load_release
    from generator.signing import check

    out: list[Mismatch] = []
    count = 0
    for volume in layout.volume_ids():
        release = load_release(layout, volume)
        if release is None:
            continue
        count += 1
        where = f"site_src/volumes/{volume}/release.json"
        if release.signature is not None or trusted is not None:
            problem = check(release, trusted)
            if problem:
                out.append(Mismatch(where, problem))
        files = {**release.inputs, **release.outputs}
        for rel, digest in sorted(files.items()):
            if site and not rel.startswith(("bank/", "bundles/", "site_src/")):
                continue  # templates are inputs a built site does not ship
            path = layout.root / rel
            if not path.is_file():
                out.append(Mismatch(rel, f"is missing (listed in {where})"))
            elif sha256_file(path) != digest:
                out.append(Mismatch(rel, f"differs from {where}"))
    return count, out


def _trusted_key(downloads: Path) -> str | None:
    path = downloads / PUBLIC_KEY_FILE
    if not path.is_file():
        return None
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    from generator.signing import public_hex

    key = serialization.load_pem_public_key(path.read_bytes())
    if not isinstance(key, Ed25519PublicKey):
        raise UsageError(f"{path}: not an Ed25519 public key")
    return public_hex(key)


def verify_root(
    layout: Layout, progress: Step | None = None, *, site: bool = False
) -> VerifyReport:
    """Verify a publication root (bank/, bundles/, figures/, site_src/)."""
    step = progress or (lambda label: None)
    mismatches: list[Mismatch] = []
    checked: dict[str, int] = {}
    registry = figures.load_registry(layout)
    for volume in layout.volume_ids():
        step(f"figures of {volume}")
        try:
            found = figures.verify(layout, volume)
        except ProbepressError as exc:
            mismatches.append(Mismatch(volume, f"cannot recompute: {exc.render(3)}"))
            continue
        mismatches.extend(Mismatch(m.figure, m.message) for m in found)
    checked["figures"] = len(registry.figures)
    step("fingerprints")
    registered = fingerprints.load_frozen(layout)
    checked["frozen files"] = len(registered)
    mismatches.extend(
        Mismatch(e.path, f"frozen file {what}")
        for e, what in fingerprints.changed(layout, registered)
    )
    downloads = layout.site_src / "downloads"
    if (downloads / SUMS).is_file():
        step("SHA256SUMS")
        count, found_sums = check_sums(downloads, "site_src/downloads")
        checked["downloads"] = count
        mismatches.extend(found_sums)
    step("releases")
    count, found_releases = _releases(layout, _trusted_key(downloads), site)
    checked["releases"] = count
    mismatches.extend(found_releases)
    return VerifyReport(checked, tuple(mismatches))


@contextmanager
def _root_from_site(site: Path) -> Iterator[Layout]:
    """A publication root rebuilt from a built site's downloads, in a temporary folder."""
    downloads = site / "downloads"
    with tempfile.TemporaryDirectory(prefix="probepress-verify-") as tmp:
        root = Path(tmp)
        for name, target in (("bank", "bank"), ("bundles", "bundles")):
            if (downloads / name).is_dir():
                shutil.copytree(downloads / name, root / target)
        (root / "figures").mkdir()
        for name in ("figures.json", fingerprints.REGISTRY):
            if (downloads / name).is_file():
                shutil.copy2(downloads / name, root / "figures" / name)
        shutil.copytree(downloads, root / "site_src" / "downloads")
        if (site / "volumes").is_dir():
            shutil.copytree(site / "volumes", root / "site_src" / "volumes")
        yield Layout.at(root, root / ".private", cache=False)


def verify(path: Path, progress: Step | None = None) -> VerifyReport:
    """Verify ``path``: a publication root, or a built site with ``downloads/``."""
    if (path / "bundles").is_dir() and (path / "bank").is_dir():
        return verify_root(Layout.at(path, path / ".private", cache=False), progress)
    if (path / "downloads").is_dir():
        with _root_from_site(path) as layout:
            return verify_root(layout, progress, site=True)
    raise UsageError(
        f"{path} is neither a publication root (bank/, bundles/) nor a built site (downloads/)"
    )
