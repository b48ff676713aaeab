"""The figures registry: compute, write and verify every publishable number.

``figures/figures.json`` holds every volume's figures. ``compute`` recomputes one volume's
entries; ``write`` merges them into the registry (other volumes untouched); ``verify``
recomputes without writing and names every figure whose sources or value changed.
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from generator import __version__, receipts
from generator.canonical import write_bytes
from generator.errors import InputError, Problem
from generator.figures.computed import Computed
from generator.figures.reading import read_registry
from generator.forked import Beside, inline
from generator.hashing import sha256_file
from generator.models.figures import Figure, FiguresRegistry, registry_chunks
from generator.models.receipts import Receipt
from generator.models.volume import Volume
from generator.store import Bounds, Layout, VolumeData, load_volume
from generator.store.cut import cut_at
from generator.store.jsonl import Problems, load_document
from generator.words import counted

GENERATOR = f"probepress {__version__}"
_MAX_REGISTRY_BYTES = 64 << 20
_PARSED: dict[tuple[Path, str], FiguresRegistry] = {}
"""Registries already validated in this process, by path and SHA-256 of their bytes:
one ``check`` reads the registry in several gates, and validating a large one is the
costly part."""


def load_registry(layout: Layout, without: str | None = None) -> FiguresRegistry:
    """The registry on disk (empty if none yet).

    ``without``: an id prefix whose figures are left out (still validated as every other
    when the file is read); a registry read so is not kept for later reads."""
    path = layout.figures_registry
    if not path.exists():
        return FiguresRegistry(generator=GENERATOR, figures={})
    key = _cache_key(path)
    if key is not None and key in _PARSED:
        return _copy(_PARSED[key], without)
    problems = Problems()
    read = read_registry(path, layout.rel(path), problems, _MAX_REGISTRY_BYTES, without)
    if read is None:
        raise InputError("cannot read the figures registry:", problems.items)
    registry, digest = read
    if without is not None:
        return registry
    # Kept under the hash of the bytes it was read from: a later read finds it only while
    # the file still holds those bytes.
    _PARSED.clear()
    _PARSED[path.resolve(), digest] = registry
    return _copy(registry)


def _copy(registry: FiguresRegistry, without: str | None = None) -> FiguresRegistry:
    """A registry sharing the frozen figures but with its own top-level dict (without
    the figures whose id starts with ``without``, when given)."""
    figures = registry.figures
    return FiguresRegistry.model_construct(
        schema_version=registry.schema_version,
        generator=registry.generator,
        figures=dict(figures)
        if without is None
        else {k: v for k, v in figures.items() if not k.startswith(without)},
        receipts=dict(registry.receipts),
    )


def _cache_key(path: Path) -> tuple[Path, str] | None:
    """``(path, sha256)`` of a regular file within bounds; None when it is anything else."""
    if path.is_symlink() or not path.is_file() or path.stat().st_size > _MAX_REGISTRY_BYTES:
        return None
    return path.resolve(), sha256_file(path)  # in chunks: the file is never held whole


def previous_volume(layout: Layout, volume: str) -> str | None:
    """The volume published just before ``volume`` (by id), if any."""
    earlier = [v for v in layout.volume_ids() if v < volume]
    return earlier[-1] if earlier else None


Loaded = Mapping[str, VolumeData]
"""Volumes already read in this run, by id: a run reads each volume once and hands it on."""


def _read(layout: Layout, volume: str, bounds: Bounds | None, loaded: Loaded) -> VolumeData:
    known = loaded.get(volume)
    if known is not None and not known.problems:
        return known
    return load_volume(layout, volume, bounds=bounds, private=False)


def compute(
    layout: Layout,
    volume: str,
    bounds: Bounds | None = None,
    data: VolumeData | None = None,
    loaded: Loaded | None = None,
    cut: Mapping[str, str] | None = None,
    beside: Beside = inline,
) -> Computed:
    """Every figure of ``volume``, by id in id order (needs a volume that reads without
    problems), held compactly (``Computed``).

    ``data`` may pass the volume already read (the gates read it once for all nine),
    ``loaded`` other volumes already read (the previous volume, for drift) and ``cut``
    the digests of the bank cut at the volume's version (``store.cut.cut_at``); anything
    not passed is read or computed here. ``beside``: where a part of the figures is
    computed while the rest is computed here (``VolumeFigures.compute``).
    """
    from generator.figures.volume import VolumeFigures  # the statistics stack, when used

    known = dict(loaded or {})
    if data is not None:
        known[volume] = data
    current = _read(layout, volume, bounds, known)
    prev_id = previous_volume(layout, volume)
    prev = _read(layout, prev_id, bounds, known) if prev_id else None
    return VolumeFigures(current, prev, cut).compute(beside).figures.sorted()


def _registered(registry: FiguresRegistry, volume: str) -> dict[str, Figure]:
    return {k: v for k, v in registry.figures.items() if k.startswith(f"{volume}/")}


def merged(
    layout: Layout, volume: str, figures: Computed, receipt: Receipt | None = None
) -> Iterator[str]:
    """The registry's file text (``registry_chunks``) with ``volume``'s entries replaced by
    ``figures`` (and its receipt by ``receipt``, when given)."""
    # The volume's registered figures are validated but never held beside the new ones.
    current = load_registry(layout, without=f"{volume}/")
    keep = current.figures
    receipts = dict(current.receipts)
    if receipt is not None:
        receipts[volume] = receipt
    head = FiguresRegistry(generator=GENERATOR, figures={}, receipts=dict(sorted(receipts.items())))
    rest = head.model_dump(mode="json", exclude={"figures", "sources"})

    def dumped(name: str) -> dict[str, Any]:
        return figures.dumped(name) if name in figures else keep[name].model_dump(mode="json")

    names = sorted(set(keep) | set(figures))
    return registry_chunks(((name, dumped(name)) for name in names), rest)


def render(registry: FiguresRegistry) -> str:
    """Canonical JSON text of the registry (its file form: each source list once)."""
    return "".join(registry.file_chunks())


def _encoded(chunks: Iterable[str]) -> bytes:
    """The UTF-8 bytes of a registry's text, encoded a figure at a time (never the whole
    text too)."""
    out = io.BytesIO()
    for chunk in chunks:
        out.write(chunk.encode("utf-8"))
    return out.getvalue()


def write(
    layout: Layout,
    volume: str,
    bounds: Bounds | None = None,
    loaded: Loaded | None = None,
    computed: Computed | None = None,
) -> tuple[int, bool]:
    """Write ``volume``'s figures into the registry (``computed``: as ``compute`` just
    returned them; else computed here); return (figures, changed)."""
    figures = computed if computed is not None else compute(layout, volume, bounds, loaded=loaded)
    scored = receipts.receipt(_volume_file(layout, volume, bounds or Bounds()))
    text = _encoded(merged(layout, volume, figures, scored))
    return len(figures), write_bytes(layout.figures_registry, text, layout.root)


def _volume_file(layout: Layout, volume: str, bounds: Bounds) -> Volume:
    problems = Problems()
    path = layout.volume_file(volume)
    found = load_document(path, Volume, layout.rel(path), problems, bounds.max_yaml_bytes)
    if found is None:
        raise InputError(f"cannot read volume {volume}:", problems.items)
    return found


def _mismatch(figure: str, message: str, cause: str | None = None) -> Problem:
    """A registered figure that no longer holds, located by its id (``cause``: the
    changed source file it follows from)."""
    return Problem(figure, None, "figure-mismatch", message, cause=cause)


def _unreadable(volume: str, exc: InputError) -> Problem:
    """The volume's figures cannot be recomputed: a consequence of its input problems,
    the first of which is named (on one line; each is reported where it was found)."""
    if not exc.problems:
        return Problem(volume, None, "not-recomputed", f"cannot recompute: {exc.render(5)}")
    first = exc.problems[0]
    more = len(exc.problems) - 1
    also = f" (and {counted(more, 'more input problem')})" if more else ""
    message = f"cannot recompute: its inputs cannot be read: {first}{also}"
    return Problem(volume, None, "not-recomputed", message, cause=first.path)


def verify(
    layout: Layout,
    volume: str,
    bounds: Bounds | None = None,
    data: VolumeData | None = None,
    loaded: Loaded | None = None,
    inputs: list[Problem] | None = None,
    registry: FiguresRegistry | None = None,
    beside: Beside = inline,
) -> list[Problem]:
    """Recompute ``volume`` and compare with the registry, writing nothing; each problem
    is located by the figure's id (the volume's id when it cannot be recomputed at all;
    ``inputs`` then receives every problem of its inputs, for a caller that reports them).
    ``registry`` passes the registry already read (None: it is read here); ``beside``
    goes to ``compute``.

    Every figure is recomputed from the files, every time: no digest remembered by an
    earlier run stands in for the recomputation (that would let a run vouch for itself).
    """
    registered = _registered(registry if registry is not None else load_registry(layout), volume)
    out: list[Problem] = []
    # The bank as of the volume's version (the version as the volume was read, if it was).
    version = None if data is None else data.volume.bank_version
    cut = cut_at(layout, volume, version)
    hashes: dict[str, str | None] = {**cut}
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
                out.append(_mismatch(fid, f"source {src.path} {what}", cause=src.path))
    try:
        fresh = compute(layout, volume, bounds, data, loaded, cut, beside)
    except InputError as exc:
        out.append(_unreadable(volume, exc))
        if inputs is not None:
            inputs.extend(exc.problems)
        return out
    for fid in sorted(set(registered) | set(fresh)):
        old = registered.get(fid)
        if old is None:
            out.append(_mismatch(fid, "is computed but not registered (run `probepress figures`)"))
        elif fid not in fresh:
            out.append(_mismatch(fid, "is registered but no longer computed"))
        elif not fresh.same(fid, old):
            out.append(_mismatch(fid, difference(old, fresh[fid])))
    return out


def _flat(value: object, prefix: str = "") -> dict[str, object]:
    """``{"a": {"b": 1}}`` as ``{"a.b": 1}`` (lists kept whole)."""
    if not isinstance(value, dict):
        return {prefix: value}
    out: dict[str, object] = {}
    for key in sorted(value):
        out.update(_flat(value[key], f"{prefix}.{key}" if prefix else str(key)))
    return out


def difference(old: Figure, new: Figure, shown: int = 3) -> str:
    """What differs between a registered figure and its recomputation, with the exact
    recorded and recomputed values: a display string is rounded, so two different values
    can print alike ("44.1% vs 44.1%")."""
    if old.value != new.value:
        return (
            f"recomputes to {new.value} (shown {new.display}) but the registry says "
            f"{old.value} (shown {old.display})"
        )
    was = _flat(old.model_dump(mode="json", exclude={"sources"}))
    now = _flat(new.model_dump(mode="json", exclude={"sources"}))
    keys = [k for k in sorted(was.keys() | now.keys()) if was.get(k) != now.get(k)]
    listed = "; ".join(
        f"{k}: recomputed {now.get(k, 'absent')!s}, registry {was.get(k, 'absent')!s}"
        for k in keys[:shown]
    )
    more = f" and {counted(len(keys) - shown, 'more field')}" if len(keys) > shown else ""
    return f"recomputes to the same value {new.value} with other fields: {listed}{more}"
