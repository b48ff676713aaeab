"""The loader never raises anything but its own error type, whatever bytes it is given."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from generator.errors import ProbepressError
from generator.store import Layout, load_volume
from tests.factories import bundle_dir, first_slug, reseal

TARGETS = ["draws.jsonl", "verdicts.jsonl", "panel.jsonl", "qualification.jsonl", "bundle.json"]

# Mostly-plausible JSONL with random damage finds more paths than uniform noise.
line = st.one_of(
    st.binary(max_size=200),
    st.text(max_size=200).map(str.encode),
    st.sampled_from(
        [b'{"item":"x","half":"A","draw":1}', b"{}", b"[]", b"null", b'{"schema_version":99}']
    ),
)
content = st.lists(line, max_size=8).map(b"\n".join)


@pytest.fixture(scope="module")
def scratch(example_src: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One writable copy of the example for every example Hypothesis tries: each example
    damages one file and the test puts the example's bytes back (copying the whole
    example per example cost more than loading it)."""
    root = tmp_path_factory.mktemp("fuzz") / "root"
    shutil.copytree(example_src, root)
    return root


def _restore(example_src: Path, root: Path, names: tuple[str, ...]) -> None:
    """Put back the example's ``names`` in the damaged bundle and its result cache, so the
    next example starts from the example as generated. The cache only ever gains entries
    (each a file named by the digest of what it records, written whole), so removing the
    files the example's cache lacks puts it back without copying its 700 entries again."""
    pristine, damaged = (
        bundle_dir(example_src, first_slug(example_src)),
        bundle_dir(root, first_slug(root)),
    )
    for name in names:
        shutil.copy2(pristine / name, damaged / name)
    src_cache = Layout.at(example_src, example_src / ".private").cache_dir
    cache = Layout.at(root, root / ".private").cache_dir
    # Only a cache inside the scratch copy ($PROBEPRESS_CACHE may share one elsewhere).
    if cache is not None and src_cache is not None and cache.is_relative_to(root.resolve()):
        for path in cache.rglob("*"):
            if not path.is_dir() and not (src_cache / path.relative_to(cache)).exists():
                path.unlink()


@settings(max_examples=60, deadline=None)
@given(target=st.sampled_from(TARGETS), data=content, seal=st.booleans())
def test_loader_only_raises_its_own_errors(
    example_src: Path, scratch: Path, target: str, data: bytes, seal: bool
) -> None:
    d = bundle_dir(scratch, first_slug(scratch))
    try:
        (d / target).write_bytes(data)
        if seal and target != "bundle.json":
            reseal(d, target)
        try:
            load_volume(Layout.at(scratch, scratch / ".private"), "vol-001")
        except ProbepressError as exc:
            assert exc.render()
    finally:
        _restore(example_src, scratch, (target, "bundle.json"))
