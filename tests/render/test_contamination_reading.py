"""What a page says about a contamination gap: one sentence per case, from its intervals."""

from __future__ import annotations

from generator.models.figures import Figure
from generator.render.contamination import reading


def _gap(value: str, narrow: tuple[str, str], wide: tuple[str, str] | None) -> Figure:
    def iv(lo: str, hi: str) -> dict[str, str]:
        return {"lo": lo, "hi": hi, "display": "", "method": "m", "confidence": "0.95"}

    intervals = {"narrow": iv(*narrow), **({"wide": iv(*wide)} if wide else {})}
    return Figure.model_validate(
        {
            "id": "vol-001/x/contamination/gap",
            "label": "gap",
            "kind": "difference",
            "value": value,
            "precision": 4,
            "display": "",
            "method": "m",
            "intervals": intervals,
            "sources": [],
        }
    )


def test_each_case_reads_as_it_should() -> None:
    signal = reading(_gap("0.2000", ("0.1500", "0.2500"), ("0.0100", "0.3900")))
    assert signal.startswith("The wide interval lies above zero: a contamination signal")
    weak = reading(_gap("0.0500", ("0.0100", "0.0900"), ("-0.1000", "0.2000")))
    assert weak.startswith("Only the narrow interval lies above zero") and "weak signal" in weak
    alone = reading(_gap("0.0500", ("0.0100", "0.0900"), None))
    assert alone.startswith("The narrow interval lies above zero (no wide interval")
    unclear = reading(_gap("0.0500", ("-0.0100", "0.0900"), ("-0.1000", "0.2000")))
    assert unclear == (
        "The gap is positive but both its intervals include zero: no contamination signal."
    )
    assert "but its interval includes zero" in reading(_gap("0.0500", ("-0.0100", "0.1"), None))
    assert reading(_gap("-0.0500", ("-0.0900", "-0.0100"), ("-0.2000", "0.1000"))) == (
        "The gap is not positive: no contamination signal."
    )
