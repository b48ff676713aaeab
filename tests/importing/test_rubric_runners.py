"""Rubric grades through ``import inspect`` and ``import lm-eval`` (issue 15).

Inspect AI: a scorer whose value is a dict grades the rubric, line id → met; the score's
metadata carries ``deflected`` and the ``evidence`` quotes. lm-evaluation-harness: a
metric whose logged value is an object ``{"met", "evidence", "deflected"}``. Both become
the row's ``rubric`` of that rater, and the one bundle writer makes them rubric verdicts
(its rules are tested on records in ``test_rubric_records.py``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from generator.errors import InputError
from generator.importing.inspect_logs import read_inspect_logs
from generator.importing.lm_eval import read_lm_eval_samples
from generator.importing.sources import Declared, load_bank_for_import
from generator.store import Layout
from generator.store.bank import Bank
from generator.store.jsonl import Bounds
from tests.importing.factories import edit_volume, run
from tests.importing.inspect_ai_log import needs_inspect_ai, read_eval_log, write_eval_log
from tests.importing.test_inspect_publish import (
    LABEL_OPTIONS,
    LOG,
    RATERS,
    SLUG,
    _manifest,
    _start,
)
from tests.rubric_factories import RUBRIC, give_rubrics

if TYPE_CHECKING:
    from inspect_ai.log import EvalLog

pytestmark = needs_inspect_ai

ITEM = "premise-001"  # a public Tier 1 item of the logs, given RUBRIC here
LM_EVAL = next((Path(__file__).parents[1] / "data" / "lm_eval").glob("samples_*_2*.jsonl"))
MET = {"m1": True, "m2": "yes", "n1": False, "s1": 0}
QUOTES = {line["id"]: f"words for {line['id']}" for line in RUBRIC["lines"]}


@pytest.fixture
def fresh(tmp_path: Path) -> Path:
    """A new root with the logs' items and volume; ``ITEM`` scored by its rubric."""
    root = tmp_path / "root"
    _start(root, read_eval_log(str(LOG)))
    give_rubrics(root, {ITEM})

    def group(doc: dict[str, Any]) -> None:
        doc["scoring"] = {"rubric_groups": [{"id": "premises", "items": [ITEM]}]}

    edit_volume(root, group)
    return root


def _bank(root: Path) -> Bank:
    return load_bank_for_import(Layout.at(root, root / ".private"), Bounds())


def _graded(tmp_path: Path, metadata: dict[str, Any] | None, met: Any = None) -> Path:
    """The panel log with the grader's (``includes``) scores on ``ITEM`` made rubric
    grades, written by inspect_ai's own writer."""
    log: EvalLog = read_eval_log(str(LOG))
    for sample in log.samples or []:
        if sample.id == ITEM and sample.scores is not None:
            score = sample.scores["includes"]
            score.value = dict(MET if met is None else met)
            score.metadata = metadata
    path = tmp_path / "graded.eval"
    write_eval_log(log, str(path))
    return path


def test_an_inspect_dict_score_is_the_raters_rubric_grades(fresh: Path, tmp_path: Path) -> None:
    path = _graded(tmp_path, {"deflected": False, "evidence": QUOTES, "other": 1})
    rows = [r for r in read_inspect_logs([path], _bank(fresh), Declared()) if r.item == ITEM]
    assert len(rows) == 2
    for row in rows:
        grade = row.rubric["includes"]
        assert grade.met == {"m1": True, "m2": True, "n1": False, "s1": False}
        assert grade.evidence == QUOTES and grade.deflected is False
        assert "includes" not in row.labels and row.labels["match"] == "C"


def test_an_inspect_rubric_grade_without_its_deflection_flag_is_refused(
    fresh: Path, tmp_path: Path
) -> None:
    path = _graded(tmp_path, {"evidence": QUOTES}, met={"m1": 0.5})
    with pytest.raises(InputError) as caught:
        read_inspect_logs([path], _bank(fresh), Declared())
    problems = [str(p) for p in caught.value.problems]
    assert f"{path}: sample '{ITEM}' epoch 1: rubric.includes.met.m1: " in problems[0]
    assert any("rubric.includes.deflected: Field required [import-row]" in p for p in problems)


def test_import_inspect_writes_rubric_verdicts(fresh: Path, tmp_path: Path) -> None:
    path = _graded(tmp_path, {"deflected": True, "evidence": QUOTES})
    log = read_eval_log(str(path))
    raters = [arg for name, (rater, _) in RATERS.items() for arg in ("--rater", f"{name}={rater}")]
    manifest = _manifest(tmp_path / "manifest.yaml", log)
    result = run(
        fresh, "import", "inspect", str(path), "--volume", "vol-001", "--manifest",
        str(manifest), *raters, *LABEL_OPTIONS,
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    lines = (fresh / "bundles" / "vol-001" / SLUG / "verdicts.jsonl").read_text("utf-8")
    graded = [v for v in map(json.loads, lines.splitlines()) if v["item"] == ITEM]
    assert [v["verdict"] for v in graded] == ["pass", "pass"]
    assert graded[0]["grader"] == "inspect/includes" and graded[0]["schema_version"] == 3
    assert graded[0]["rubric"]["deflected"] is True
    assert [(g["line"], g["kind"], g["met"]) for g in graded[0]["rubric"]["lines"]] == [
        ("m1", "must_include", True),
        ("m2", "must_include", True),
        ("n1", "must_not_include", False),
        ("s1", "should_include", False),
    ]


def test_import_inspect_refuses_a_rubric_grade_on_a_pass_fail_item(
    fresh: Path, tmp_path: Path
) -> None:
    log: EvalLog = read_eval_log(str(LOG))
    for sample in log.samples or []:
        if sample.id == "ambig-001" and sample.epoch == 1 and sample.scores is not None:
            sample.scores["includes"].value = {"m1": True}
            sample.scores["includes"].metadata = {"deflected": False, "evidence": {"m1": "x"}}
    path = tmp_path / "stray.eval"
    write_eval_log(log, str(path))
    raters = [arg for name, (rater, _) in RATERS.items() for arg in ("--rater", f"{name}={rater}")]
    manifest = _manifest(tmp_path / "manifest.yaml", log)
    result = run(
        fresh, "import", "inspect", str(path), "--volume", "vol-001", "--manifest",
        str(manifest), *raters, *LABEL_OPTIONS,
    )  # fmt: skip
    assert result.exit_code == 2 and "Traceback" not in result.output
    out = " ".join(result.output.split())
    assert (
        "rubric grades from inspect/includes on ambig-001, which the volume scores by its "
        "pass criterion (no rubric group) [rubric-unexpected]"
    ) in out
    assert not (fresh / "bundles" / "vol-001" / SLUG).exists()


def _lm_eval(tmp_path: Path, grade: Any) -> Path:
    """The plain samples log with a ``rubric`` metric of value ``grade`` on ``ITEM``."""
    lines = [json.loads(line) for line in LM_EVAL.read_text("utf-8").splitlines()]
    for line in lines:
        if line["doc"]["id"] == ITEM and line["filter"] == "none":
            line["metrics"] = [*line["metrics"], "rubric"]
            line["rubric"] = grade
    path = tmp_path / LM_EVAL.name
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), "utf-8")
    return path


def test_an_lm_eval_object_metric_is_the_raters_rubric_grades(fresh: Path, tmp_path: Path) -> None:
    path = _lm_eval(tmp_path, {"met": MET, "evidence": QUOTES, "deflected": False})
    rows = read_lm_eval_samples([path], _bank(fresh), Declared(), "acme/m-1")
    (row,) = [r for r in rows if r.item == ITEM]
    grade = row.rubric["none/rubric"]
    assert grade.met == {"m1": True, "m2": True, "n1": False, "s1": False}
    assert grade.evidence == QUOTES and not grade.deflected
    assert "none/rubric" not in row.labels and "none/exact_match" in row.labels
    assert all(not r.rubric for r in rows if r.item != ITEM)


def test_an_lm_eval_rubric_metric_of_the_wrong_shape_is_refused(
    fresh: Path, tmp_path: Path
) -> None:
    path = _lm_eval(tmp_path, {"met": MET, "deflected": False, "lines": []})
    with pytest.raises(InputError) as caught:
        read_lm_eval_samples([path], _bank(fresh), Declared(), "acme/m-1")
    (problem,) = [str(p) for p in caught.value.problems]
    assert problem.startswith(f"{path}:4: doc_id 3: rubric.none/rubric.lines: ")
    assert problem.endswith("[import-row]")
