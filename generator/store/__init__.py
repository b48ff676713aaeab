"""Strict, bounded, streaming readers of every input of a publication root."""

from generator.store.bank import Bank, load_bank
from generator.store.bundle import scan_bundle
from generator.store.jsonl import Bounds
from generator.store.paths import Layout
from generator.store.rowtypes import BundleData
from generator.store.volume import VolumeData, load_volume, public_view

__all__ = [
    "Bank",
    "Bounds",
    "BundleData",
    "Layout",
    "VolumeData",
    "load_bank",
    "load_volume",
    "public_view",
    "scan_bundle",
]
