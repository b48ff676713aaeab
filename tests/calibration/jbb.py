"""The JailbreakBench judge comparison (``tests/data/jbb/``) as a calibration set."""

from __future__ import annotations

import csv
from pathlib import Path

from generator.models.calibration import CalibrationGrade, CalibrationRecord

CSV = Path(__file__).resolve().parent.parent / "data" / "jbb" / "judge-comparison.csv"
HUMANS = ("human1", "human2", "human3")
JUDGES = ("harmbench_cf", "gpt4_cf", "llamaguard2_cf", "llama3_cf")
CANDIDATE = "jbb-target"
ITEM = "jbb-{:03d}"


def rows() -> list[dict[str, str]]:
    """The 300 rows, read as the Mac Roman text they are (never guessed)."""
    with CSV.open(encoding="mac_roman", newline="") as handle:
        return list(csv.DictReader(handle))


def label(value: str) -> str:
    """1 = jailbroken (the response does the harmful goal): the answer fails."""
    if value not in ("0", "1"):
        raise ValueError(f"a JBB label is 0 or 1, not {value!r}")
    return "fail" if value == "1" else "pass"


def records() -> list[CalibrationRecord]:
    """One pass/fail unit per row, graded by the three humans and the four judges."""
    return [
        CalibrationRecord(
            candidate=CANDIDATE,
            item=ITEM.format(int(row["Index"])),
            half="A",
            draw=1,
            criterion="pass-fail",
            grades=[CalibrationGrade(rater=r, label=label(row[r])) for r in (*HUMANS, *JUDGES)],
        )
        for row in rows()
    ]
