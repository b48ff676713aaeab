"""Receipts: what scored a result, recorded with it (figures registry, release manifest).

A number is only as good as the code and the grader setup that produced it. Every
volume's figures and release record the scorer (probepress version and the SHA-256 of
the Tier 0 check code) and the grader's prompt hash and settings as the volume declared
them; ``probepress audit`` fails a result that lacks them or whose scorer differs.
"""

from __future__ import annotations

from decimal import Decimal

from pydantic import Field

from generator.models.base import Name, Part, Sha256


class GraderSettings(Part):
    """How the Tier 1 grader was asked: its prompt and sampling settings (declared in
    ``volume.yaml`` under ``jury.grading``, pre-registered with the jury)."""

    prompt_sha256: Sha256
    """SHA-256 of the grader's prompt template (instructions and rubric wrapper)."""
    temperature: Decimal = Field(ge=0, le=2)
    """Sampling temperature of the grader."""
    max_output_tokens: int = Field(ge=1)
    """Output token budget of each grading call."""


class ScorerReceipt(Part):
    """The code that decided and counted."""

    probepress: Name
    """Name and version of the generator (``probepress 0.x``)."""
    tier0_sha256: Sha256
    """SHA-256 of the Tier 0 check code (``generator/tier0.py``) that decided Tier 0 draws."""


class Receipt(Part):
    """What scored one volume's results."""

    scorer: ScorerReceipt
    """The scorer's version and Tier 0 code hash."""
    grader: Name
    """Key of the volume's Tier 1 grader (API string or human id)."""
    grading: GraderSettings | None = None
    """The grader's prompt hash and settings; None when the volume declares none (the
    audit then says it could not check them)."""
