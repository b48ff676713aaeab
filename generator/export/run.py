"""One candidate of a volume as one Every Eval Ever evaluation run: its names and paths."""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

from generator.errors import InputError, Problem
from generator.hashing import sha256_bytes
from generator.models.bank import BankItem
from generator.models.base import slugify
from generator.models.figures import Figure
from generator.models.volume import CandidateRef
from generator.store import Layout, VolumeData
from generator.store.rowtypes import BundleData

SCHEMA_VERSION = "0.3.0"
"""The Every Eval Ever schema version these records follow."""
Relationship = Literal["first_party", "third_party", "collaborative", "other"]


@dataclass(frozen=True)
class Source:
    """Who publishes the records, as Every Eval Ever's ``source_metadata`` asks."""

    organization: str
    relationship: Relationship = "third_party"


@dataclass(frozen=True)
class RunContext:
    """What the instance records of one candidate are made from."""

    data: VolumeData
    bundle: BundleData
    items: dict[str, BankItem]
    """The public items of the volume's bank version, by id."""
    evaluation_id: str
    model_id: str
    result: Figure
    """The aggregate result every instance belongs to (the full-bank rate)."""


@dataclass(frozen=True)
class Run:
    """One candidate of the volume, named the way Every Eval Ever's datastore names runs."""

    layout: Layout
    data: VolumeData
    ref: CandidateRef
    bundle: BundleData
    registered: dict[str, Figure]
    source: Source

    @property
    def slug(self) -> str:
        return self.bundle.slug

    @property
    def benchmark(self) -> str:
        """The evaluation's folder name: the bank's name and the volume."""
        return f"{slugify(self.data.bank.manifest.name)}-{self.data.id}"

    @property
    def retrieved(self) -> str:
        """The publication date as Unix time (fixed, so the records are reproducible)."""
        day = self.data.volume.publication_date
        moment = dt.datetime(day.year, day.month, day.day, tzinfo=dt.UTC)
        return str(int(moment.timestamp()))

    @property
    def evaluation_id(self) -> str:
        """``eval_name/model/retrieved_timestamp``, as the schema recommends."""
        return f"{self.benchmark}/{self.slug}/{self.retrieved}"

    @property
    def run_uuid(self) -> str:
        """A version-4-shaped UUID derived from the evaluation id (deterministic)."""
        digest = bytes.fromhex(sha256_bytes(self.evaluation_id.encode("utf-8")))
        return str(uuid.UUID(bytes=digest[:16], version=4))

    @property
    def folder(self) -> str:
        """``data/<benchmark>/<developer>/<model>``: the datastore's folder for the run."""
        family = self.bundle.manifest.candidate.family
        return f"data/{self.benchmark}/{family}/{self.slug}"

    @property
    def samples_path(self) -> str:
        return f"{self.folder}/{self.run_uuid}_samples.jsonl"

    @property
    def aggregate_path(self) -> str:
        return f"{self.folder}/{self.run_uuid}.json"

    def rates(self) -> Iterator[Figure]:
        """The candidate's registered rates, by id."""
        prefix = f"{self.data.id}/{self.slug}/"
        for fid in sorted(self.registered):
            figure = self.registered[fid]
            if fid.startswith(prefix) and figure.kind == "rate":
                yield figure

    def context(self) -> RunContext:
        """What the instance records need."""
        fid = f"{self.data.id}/{self.slug}/full_rate"
        full = self.registered.get(fid)
        if full is None:
            raise InputError(
                f"{fid}: not registered; the instance records belong to the full-bank rate",
                [
                    Problem(
                        fid,
                        None,
                        "export/no-full-rate",
                        "no full-bank rate is registered",
                        "publish the volume first",
                    )
                ],
            )
        version = self.data.volume.bank_version
        items = {i.id: i for i in self.data.bank.public_items(version)}
        return RunContext(self.data, self.bundle, items, self.evaluation_id, self.ref.api, full)
