"""The public bank downloads: one JSONL per bank version, holding exactly its public items."""

from __future__ import annotations

from pathlib import Path

from generator.canonical import dumps_line
from generator.models.base import version_slug
from generator.store.bank import Bank

DOWNLOADS = Path("site_src") / "downloads"


def public_jsonl_name(version: str) -> str:
    """``v1.2`` -> ``bank_v1_2_public.jsonl``."""
    return f"bank_{version_slug(version)}_public.jsonl"


def public_jsonl(bank: Bank, version: str) -> bytes:
    """The bytes of ``bank_<version>_public.jsonl``: public items of ``version`` by id."""
    return "".join(
        dumps_line(item.model_dump(mode="json", exclude_none=True))
        for item in bank.public_items(version)
    ).encode("utf-8")
