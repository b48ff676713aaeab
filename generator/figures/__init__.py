"""The figures registry: compute, write and verify every publishable number.

``figures/figures.json`` holds every volume's figures. ``compute`` recomputes one volume's
entries; ``write`` merges them into the registry (other volumes untouched); ``verify``
recomputes without writing and names every figure whose sources or value changed.
"""

from __future__ import annotations

from dataclasses import astuple, dataclass
from pathlib import Path

from pydantic import TypeAdapter

from generator import __version__, cache
from generator.canonical import dumps, dumps_line, write_text
from generator.errors import InputError
from generator.hashing import sha256_bytes, sha256_file, sha256_text
from generator.models.figures import Figure, Registry
from generator.store import Bounds, Layout, VolumeData, load_volume
from generator.store.jsonl import Problems, load_document

REGISTRY = "figures.json"
GENERATOR = f"probepress {__version__}"


def registry_path(layout: Layout) -> Path:
    """``figures/figures.json`` under the root."""
    return layout.figures_dir / REGISTRY


_MAX_REGISTRY_BYTES = 64 << 20
_PARSED: dict[tuple[Path, str], Registry] = {}
"""Registries already validated in this process, by path and SHA-256 of their bytes:
one ``check`` reads the registry in several gates, and validating a large one is the
costly part."""


def load_registry(layout: Layout) -> Registry:
    """The registry on disk (empty if none yet)."""
    path = registry_path(layout)
    if not path.exists():
        return Registry(generator=GENERATOR, figures={})
    key = _cache_key(path)
    if key is not None and key in _PARSED:
        return _copy(_PARSED[key])
    problems = Problems()
    registry = load_document(path, Registry, layout.rel(path), problems, _MAX_REGISTRY_BYTES)
    if registry is None:
        raise InputError("cannot read the figures registry:", problems.items)
    if key is not None and _cache_key(path) == key:  # unchanged while it was read
        _PARSED.clear()
        _PARSED[key] = registry
        return _copy(registry)
    return registry


def _copy(registry: Registry) -> Registry:
    """A registry sharing the frozen figures but with its own top-level dict."""
    return Registry.model_construct(
        schema_version=registry.schema_version,
        generator=registry.generator,
        figures=dict(registry.figures),
    )


def _cache_key(path: Path) -> tuple[Path, str] | None:
    """``(path, sha256)`` of a regular file within bounds; None when it is anything else."""
    if path.is_symlink() or not path.is_file() or path.stat().st_size > _MAX_REGISTRY_BYTES:
        return None
    return path.resolve(), sha256_bytes(path.read_bytes())


def previous_volume(layout: Layout, volume: str) -> str | None:
    """The volume published just before ``volume`` (by id), if any."""
    earlier = [v for v in layout.volume_ids() if v < volume]
    return earlier[-1] if earlier else None


def compute(
    layout: Layout, volume: str, bounds: Bounds | None = None, data: VolumeData | None = None
) -> dict[str, Figure]:
    """Every figure of ``volume``, by id (needs a volume that reads without problems).

    ``data`` may pass the volume already read (the gates read it once for all nine).
    """
    from generator.figures.volume import VolumeFigures  # the statistics stack, when used

    if data is None or data.problems:
        data = load_volume(layout, volume, bounds=bounds, private=False)
    prev_id = previous_volume(layout, volume)
    prev = load_volume(layout, prev_id, bounds=bounds, private=False) if prev_id else None
    return dict(sorted(VolumeFigures(data, prev).compute().figures.items()))


def inputs_key(
    layout: Layout,
    volume: str,
    bounds: Bounds | None = None,
    known: dict[str, str] | None = None,
) -> str:
    """Cache key of everything ``compute`` reads: every file of the bank, of the volume
    and of the volume before it (bytes, by SHA-256), and the reader bounds.

    Figures are a function of public files only (``probepress verify`` recomputes them
    from the public downloads), so the private store is not part of the key. ``known``:
    SHA-256 of files just read, by path as ``layout.rel`` prints it (not read again).
    """
    known = known or {}
    prev = previous_volume(layout, volume)
    folders = [layout.bank_dir, layout.volume_dir(volume)]
    if prev is not None:
        folders.append(layout.volume_dir(prev))
    files = [
        f"{rel}={known.get(rel) or sha256_file(path)}"
        for folder in folders
        for path in sorted(folder.rglob("*"))
        if path.is_file()
        for rel in [layout.rel(path)]
    ]
    return cache.key("figures", volume, prev or "", repr(astuple(bounds or Bounds())), files)


_FIGURES = TypeAdapter(dict[str, Figure])


def figures_digest(figures: dict[str, Figure]) -> str:
    """SHA-256 of one volume's figures as one compact canonical JSON line (sorted keys,
    sources included): equal for equal figures however they were built or read."""
    return sha256_text(dumps_line(_FIGURES.dump_python(figures, mode="json")))


def _known_digest(layout: Layout, key: str | None) -> str | None:
    """The digest ``compute`` gave for these exact inputs and code, if remembered."""
    store = layout.cache
    raw = store.get("figures", key) if store is not None and key is not None else None
    text = raw.decode("ascii", "replace").strip() if raw is not None else ""
    return text if len(text) == 64 else None


def _remember(layout: Layout, key: str | None, figures: dict[str, Figure]) -> None:
    store = layout.cache
    if store is not None and key is not None:
        store.put("figures", key, figures_digest(figures).encode("ascii"))


def _registered(layout: Layout, volume: str) -> dict[str, Figure]:
    return {k: v for k, v in load_registry(layout).figures.items() if k.startswith(f"{volume}/")}


def merged(layout: Layout, volume: str, figures: dict[str, Figure]) -> Registry:
    """The registry with ``volume``'s entries replaced by ``figures``."""
    current = load_registry(layout)
    keep = {k: v for k, v in current.figures.items() if not k.startswith(f"{volume}/")}
    return Registry(generator=GENERATOR, figures=dict(sorted({**keep, **figures}.items())))


def render(registry: Registry) -> str:
    """Canonical JSON text of the registry."""
    return dumps(registry.model_dump(mode="json"))


def write(layout: Layout, volume: str, bounds: Bounds | None = None) -> tuple[int, bool]:
    """Recompute ``volume`` and write the registry; return (figures, changed).

    With the result cache on, a registry whose entries for ``volume`` are exactly what
    these inputs computed to before is left as it is, without recomputing.
    """
    key = inputs_key(layout, volume, bounds) if layout.cache is not None else None
    known = _known_digest(layout, key)
    if known is not None:
        registered = _registered(layout, volume)
        if registered and figures_digest(registered) == known:
            return len(registered), False
    figures = compute(layout, volume, bounds)
    _remember(layout, key, figures)
    return len(figures), write_text(
        registry_path(layout), render(merged(layout, volume, figures)), layout.root
    )


@dataclass(frozen=True)
class Mismatch:
    """A registered figure that no longer holds."""

    figure: str
    message: str

    def __str__(self) -> str:
        return f"{self.figure}: {self.message}"


def verify(
    layout: Layout, volume: str, bounds: Bounds | None = None, data: VolumeData | None = None
) -> list[Mismatch]:
    """Recompute ``volume`` and compare with the registry, writing nothing.

    With the result cache on, registered figures that are exactly what the same inputs
    and code computed to before are not recomputed.
    """
    registered = _registered(layout, volume)
    out: list[Mismatch] = []
    hashes: dict[str, str | None] = {}
    if data is not None and not data.problems:
        # Bundle files were hashed while the volume was read; the recomputation uses
        # that same reading, so its hashes are the ones to compare.
        for bundle in data.bundles.values():
            for name, digest in bundle.file_sha256.items():
                hashes[layout.rel(bundle.directory / name)] = digest
    for fid, fig in registered.items():
        for src in fig.sources:
            if src.path not in hashes:
                path = layout.root / src.path
                hashes[src.path] = sha256_file(path) if path.is_file() else None
            now = hashes[src.path]
            if now != src.sha256:
                what = (
                    "is missing"
                    if now is None
                    else f"changed (sha256 {now[:12]}…, registered {src.sha256[:12]}…)"
                )
                out.append(Mismatch(fid, f"source {src.path} {what}"))
    read = {path: digest for path, digest in hashes.items() if digest is not None}
    key = inputs_key(layout, volume, bounds, read) if layout.cache is not None else None
    known = _known_digest(layout, key)
    if known is not None and registered and figures_digest(registered) == known:
        return out
    try:
        fresh = compute(layout, volume, bounds, data)
        _remember(layout, key, fresh)
    except InputError as exc:
        out.append(Mismatch(volume, f"cannot recompute: {exc.render(5)}"))
        return out
    for fid in sorted(set(registered) | set(fresh)):
        old, new = registered.get(fid), fresh.get(fid)
        if old is None:
            out.append(Mismatch(fid, "is computed but not registered (run `probepress figures`)"))
        elif new is None:
            out.append(Mismatch(fid, "is registered but no longer computed"))
        elif old.model_dump(exclude={"sources"}) != new.model_dump(exclude={"sources"}):
            out.append(
                Mismatch(
                    fid,
                    f"recomputes to {new.display} but the registry says {old.display}"
                    if old.value != new.value
                    else "recomputes with different intervals or details",
                )
            )
    return out
