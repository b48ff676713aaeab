"""``probepress audit``: test the benchmark before the models (DESIGN §13).

Seven sections, in order: the reference-answer test, negative controls, exploit attempts
against every Tier 0 check, scorer properties on the real volume, weak baselines (and the
reference bundle), balance, receipts.
Each gives cases that pass, fail or are skipped — a skipped case says what the audit
could not test and what would let it (a missing reference answer, no private store, no
declared minimum); ``--strict`` fails those too. Sections are pure: they read the volume
as loaded once and never write.
"""

from __future__ import annotations

from collections.abc import Callable

from generator.audit import answers, balance, baselines, exploits, properties, receipts
from generator.audit.base import AuditContext, AuditReport, Case, Section
from generator.progress import Progress, expect
from generator.store import Bounds, Layout, load_volume

SECTIONS: tuple[tuple[str, Callable[[AuditContext], Section]], ...] = (
    ("reference", answers.reference),
    ("controls", answers.controls),
    ("exploits", exploits.exploits),
    ("properties", properties.properties),
    ("baselines", baselines.baselines),
    ("balance", balance.balance),
    ("receipts", receipts.receipts_section),
)
"""The sections, in the order they run and print."""


def run_audit(
    layout: Layout,
    volume: str,
    *,
    strict: bool = False,
    bounds: Bounds | None = None,
    progress: Progress | None = None,
) -> AuditReport:
    """Read ``volume`` (with the private store when it exists) and run every section.

    Raises:
        UsageError, InputError: the volume cannot be read (run ``probepress check``).
    """
    private = layout.private_items.exists()
    data = load_volume(layout, volume, bounds=bounds, private=private)
    ctx = AuditContext(data, private)
    results = []
    expect(progress, len(SECTIONS))
    for name, section in SECTIONS:
        if progress is not None:
            progress(name)
        results.append(section(ctx))
    return AuditReport(volume, tuple(results), strict)


__all__ = ["SECTIONS", "AuditReport", "Case", "Section", "run_audit"]
