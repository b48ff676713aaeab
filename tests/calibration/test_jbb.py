"""The JailbreakBench judge comparison imported as a calibration set: probepress
reproduces its published agreement table (tests/data/jbb/README.md) and applies the
default rule; scikit-learn recomputes the same numbers independently."""

from __future__ import annotations

from dataclasses import astuple

import pytest

from generator.calibration.agreement import CriterionAgreement, by_criterion, consensus
from generator.calibration.rule import decide
from generator.models.calibration import CalibrationRecord, CalibrationRule
from tests.calibration import jbb

# judge: (agreement, κ, AC1, false positive rate, false negative rate) vs the human
# majority, as the README publishes them. 1 = jailbroken = the answer fails, so a false
# positive (judge says jailbroken, humans not) is a false reject, a false negative a false
# accept.
PUBLISHED = {
    "harmbench_cf": ("0.7833", "0.5643", "0.5754", "0.2684", "0.1273"),
    "gpt4_cf": ("0.9033", "0.7954", "0.8169", "0.1000", "0.0909"),
    "llamaguard2_cf": ("0.8767", "0.7409", "0.7651", "0.1316", "0.1091"),
    "llama3_cf": ("0.9067", "0.8050", "0.8215", "0.1158", "0.0545"),
}
HUMAN_KAPPA = {
    ("human1", "human2"): "0.8091",
    ("human1", "human3"): "0.8256",
    ("human2", "human3"): "0.8864",
}


@pytest.fixture(scope="module")
def records() -> list[CalibrationRecord]:
    return jbb.records()


@pytest.fixture(scope="module")
def result(records: list[CalibrationRecord]) -> CriterionAgreement:
    (only,) = by_criterion(records, jbb.HUMANS, jbb.JUDGES)
    return only


def _r4(x: float | None) -> str:
    assert x is not None
    return f"{x:.4f}"


def test_the_data_is_the_published_file(records: list[CalibrationRecord]) -> None:
    import hashlib

    digest = hashlib.sha256(jbb.CSV.read_bytes()).hexdigest()
    assert digest == "95f5b06d7a177fafd9377f2013ebed549c264bfdeee00082d64fcdcb1dc7aa8b"
    assert len(records) == 300
    with pytest.raises(UnicodeDecodeError):  # Mac Roman, not UTF-8: read as what it is
        jbb.CSV.read_text("utf-8")


def test_consensus_is_the_published_human_majority(records: list[CalibrationRecord]) -> None:
    for row, record in zip(jbb.rows(), records, strict=True):
        grades = {g.rater: g.label for g in record.grades}
        assert consensus(grades, jbb.HUMANS) == jbb.label(row["human_majority"])


def test_published_agreement_table_is_reproduced(result: CriterionAgreement) -> None:
    assert result.criterion == "pass-fail"
    assert (result.units, result.no_consensus) == (300, 0)
    found = {}
    for j in result.judges:
        assert j.consensus is not None and j.ac1 is not None
        found[j.judge] = (
            _r4(j.consensus.observed),
            _r4(j.consensus.value),
            _r4(j.ac1.value),
            _r4(j.errors.false_reject.value),
            _r4(j.errors.false_accept.value),
        )
    assert found == PUBLISHED
    humans = {(p.a, p.b): _r4(p.kappa.value if p.kappa else None) for p in result.humans}
    assert humans == HUMAN_KAPPA


def test_scikit_learn_agrees(result: CriterionAgreement) -> None:
    from sklearn.metrics import cohen_kappa_score, confusion_matrix  # seconds: only here

    rows = jbb.rows()
    majority = [int(r["human_majority"]) for r in rows]
    for j in result.judges:
        judge = [int(r[j.judge]) for r in rows]
        tn, fp, fn, tp = confusion_matrix(majority, judge, labels=[0, 1]).ravel()
        assert j.consensus is not None and j.consensus.value is not None
        assert j.consensus.value == pytest.approx(cohen_kappa_score(majority, judge), abs=1e-12)
        assert j.consensus.observed == pytest.approx((tp + tn) / len(rows), abs=1e-12)
        assert j.errors.false_reject.value == pytest.approx(fp / (fp + tn), abs=1e-12)
        assert j.errors.false_accept.value == pytest.approx(fn / (fn + tp), abs=1e-12)
        assert (j.errors.false_accept.k, j.errors.false_accept.n) == (fn, fn + tp)
        for pair in j.humans:
            human = [int(r[pair.b]) for r in rows]
            assert pair.kappa is not None
            assert pair.kappa.value == pytest.approx(cohen_kappa_score(judge, human), abs=1e-12)
    for pair in result.humans:
        a, b = ([int(r[h]) for r in rows] for h in (pair.a, pair.b))
        assert pair.kappa is not None
        assert pair.kappa.value == pytest.approx(cohen_kappa_score(a, b), abs=1e-12)


def test_default_rule_refuses_harmbench_and_accepts_the_others(
    result: CriterionAgreement,
) -> None:
    decision = decide([result], CalibrationRule(), jbb.JUDGES)
    assert decision.refused == ("harmbench_cf",)
    assert decision.accepted == ("gpt4_cf", "llamaguard2_cf", "llama3_cf")
    (refusal,) = decision.refusals
    assert refusal.rule == "kappa-floor"
    assert refusal.message.startswith(
        "judge harmbench_cf on pass-fail units: Cohen's κ against the human consensus = "
        "0.5643 (95% CI 0.4736..0.6551), observed agreement 0.7833, over 300 units, is "
        "below the pre-registered 0.6"
    )


def test_a_stricter_preregistered_floor_refuses_more(result: CriterionAgreement) -> None:
    from decimal import Decimal

    decision = decide([result], CalibrationRule(kappa_floor=Decimal("0.8")), jbb.JUDGES)
    assert decision.accepted == ("llama3_cf",)


def test_the_set_round_trips_through_the_records_file(
    records: list[CalibrationRecord], tmp_path: pytest.TempPathFactory
) -> None:
    from pathlib import Path

    from generator.canonical import dumps_line
    from generator.store.jsonl import Bounds, Problems, iter_jsonl

    path = Path(str(tmp_path)) / "calibration.jsonl"
    path.write_text("".join(dumps_line(r.dump()) for r in records), "utf-8")
    problems = Problems()
    read = [
        r for _, r in iter_jsonl(path, CalibrationRecord, "calibration.jsonl", problems, Bounds())
    ]
    assert not problems and read == records


def test_the_result_does_not_depend_on_record_order(
    records: list[CalibrationRecord], result: CriterionAgreement
) -> None:
    import random

    shuffled = list(records)
    random.Random(15).shuffle(shuffled)
    (again,) = by_criterion(shuffled, jbb.HUMANS, jbb.JUDGES)
    # equal up to the last bits of floating-point sums (irrCAC adds in record order)
    assert _rounded(astuple(again)) == _rounded(astuple(result))


def _rounded(value: object) -> object:
    if isinstance(value, float):
        return round(value, 12)
    if isinstance(value, tuple | list):
        return tuple(_rounded(v) for v in value)
    return value
