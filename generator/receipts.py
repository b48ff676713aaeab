"""The receipt of a volume's results: the scorer that produced them and the grader setup.

``tier0_sha256`` hashes the Tier 0 check code's bytes as installed: a change to any rule
that decides a Tier 0 draw changes it, so figures computed by other rules are told apart.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from generator import __version__, tier0
from generator.hashing import sha256_bytes
from generator.models.receipts import Receipt, ScorerReceipt
from generator.models.volume import Volume


@cache
def tier0_sha256() -> str:
    """SHA-256 of ``generator/tier0.py`` as this process runs it."""
    return sha256_bytes(Path(tier0.__file__).read_bytes())


def scorer() -> ScorerReceipt:
    """This probepress and its Tier 0 code."""
    return ScorerReceipt(probepress=f"probepress {__version__}", tier0_sha256=tier0_sha256())


def receipt(volume: Volume) -> Receipt:
    """What scores ``volume`` now: this scorer and the grader setup it declares."""
    return Receipt(scorer=scorer(), grader=volume.jury.grader.key, grading=volume.jury.grading)
