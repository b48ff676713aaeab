"""The loader never raises anything but its own error type, whatever bytes it is given."""

from __future__ import annotations

import shutil
from pathlib import Path

from hypothesis import HealthCheck, given, settings
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


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(target=st.sampled_from(TARGETS), data=content, seal=st.booleans())
def test_loader_only_raises_its_own_errors(
    example_src: Path, tmp_path_factory: object, target: str, data: bytes, seal: bool
) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "root"
        shutil.copytree(example_src, root)
        d = bundle_dir(root, first_slug(root))
        (d / target).write_bytes(data)
        if seal and target != "bundle.json":
            reseal(d, target)
        try:
            load_volume(Layout.at(root, root / ".private"), "vol-001")
        except ProbepressError as exc:
            assert exc.render()
