"""No gate ever raises anything but probepress's own errors on a hostile bundle."""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from generator.checking import run_gates
from generator.demo import build as demo_build
from generator.demo.spec import scaled
from generator.errors import ProbepressError
from generator.store import Layout
from tests.factories import reseal

FILES = ["draws.jsonl", "verdicts.jsonl", "panel.jsonl", "qualification.jsonl"]
json_value = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-5, 200)
    | st.text(max_size=30)
    | st.sampled_from(["A", "B", "pass", "fail", "lost", "ok", "timeout", "grader_refused"]),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=8), children, max_size=3)
    ),
    max_leaves=6,
)


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("small")
    demo_build.write(demo_build.build(scaled(3, 20)), Layout.at(root, root / ".private"))
    return root


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    name=st.sampled_from(FILES),
    line=st.integers(0, 30),
    field=st.sampled_from(
        [
            "item",
            "half",
            "draw",
            "attempts",
            "verdict",
            "tier",
            "grader",
            "judge",
            "family",
            "vote",
            "why",
            "borderline",
            "response",
            "probe",
            "got",
            "expected",
            "evidence",
        ]
    ),
    value=json_value,
    duplicate=st.booleans(),
)
def test_gates_only_raise_their_own_errors(
    small: Path, name: str, line: int, field: str, value: Any, duplicate: bool
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "root"
        shutil.copytree(small, root)
        bundle = sorted(p for p in (root / "bundles" / "vol-001").iterdir() if p.is_dir())[0]
        rows = (bundle / name).read_text("utf-8").splitlines()
        row = json.loads(rows[line % len(rows)])
        row[field] = value
        rows[line % len(rows)] = json.dumps(row)
        if duplicate:
            rows.append(rows[line % len(rows)])
        (bundle / name).write_text("\n".join(rows) + "\n", "utf-8")
        reseal(bundle, name)
        try:
            report = run_gates(Layout.at(root, root / ".private"), "vol-001")
        except ProbepressError:
            return
        assert report.results
