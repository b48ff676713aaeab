"""A validation history and import columns that climb the whole ladder (three people)."""

from __future__ import annotations

from typing import Any

LADDER: list[dict[str, Any]] = [
    {"status": "draft", "by": "W. Writer", "on": "2025-12-30"},
    {"status": "reviewed", "by": "R. Reviewer", "on": "2025-12-31"},
    {"status": "validated", "by": "V. Validator", "on": "2026-01-01"},
]
"""A frozen ``validation`` list: written, reviewed, validated by three people."""

SIGNED: dict[str, str] = {
    "written_by": "wes",
    "written_on": "2024-01-01",
    "reviewed_by": "ann",
    "reviewed_on": "2024-01-02",
    "validated_by": "val",
    "validated_on": "2024-01-03",
}
"""``import items`` columns of a validated row (each rung a different person)."""
