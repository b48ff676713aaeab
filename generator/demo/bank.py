"""The example bank (public items from data, held-out ones composed) and its review ledgers."""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

from generator import ladder
from generator.canary import demo_canary, with_canary
from generator.demo import heldout, read_data
from generator.demo.heldout import Item
from generator.demo.spec import DemoSpec, ReviewSpec
from generator.models.bank import BankItem, BankManifest, Category
from generator.models.review import Disagreement, StatusChange
from generator.store.bank import text_sha256_of


@dataclass(frozen=True)
class DemoItem:
    """A bank item plus the example responses the simulation draws from."""

    item: BankItem
    heldout: bool
    pass_responses: tuple[str, ...]
    fail_responses: tuple[str, ...]
    source: dict[str, Any]


def categories() -> list[Category]:
    """The example's declared categories."""
    return [Category.model_validate(c) for c in read_data("categories.yaml")]


def _history(status: str, released: dt.date, spec: DemoSpec, rng: random.Random) -> list[Any]:
    """One step per rung up to ``status``, each by another reviewer, three days apart."""
    reached = ladder.RUNGS[: ladder.RUNGS.index(status) + 1]
    people = rng.sample(spec.reviewers, k=len(reached))
    start = released - dt.timedelta(days=10 + 3 * len(reached))
    return [
        {"status": s, "by": who, "on": (start + dt.timedelta(days=3 * n)).isoformat()}
        for n, (s, who) in enumerate(zip(reached, people, strict=True))
    ]


def _reference(raw: Item, is_held: bool, seed: int) -> dict[str, Any] | None:
    """An item's reference: composed if held out, else declared (its first passing answer)."""
    if is_held:
        return heldout.heldout_reference(raw, random.Random(f"{seed}:reference:{raw['id']}"))
    passing = raw.get("responses", {}).get("pass", [])
    declared = {**({"answer": passing[0]} if passing else {}), **raw.get("reference", {})}
    return declared or None


def _make_item(raw: Item, is_held: bool, spec: DemoSpec, rng: random.Random) -> BankItem:
    """``raw`` as a bank item: its review history, reference and text hash derived."""
    released = next(v.released for v in spec.versions if v.id == raw["added_in"])
    status = raw.get("status", "validated")
    data = {
        **{k: raw[k] for k in ("id", "category", "tier", "added_in", "prompt", "pass_criterion")},
        **{k: raw.get(k) for k in ("check", "rubric")},
        "core": raw["added_in"] == spec.versions[0].id,
        "status": status,
        "validation": _history(status, released, spec, rng),
        "sources": list(raw.get("sources", [])),
        "reference": _reference(raw, is_held, spec.seed),
        "schema_version": 2,
    }
    probe = BankItem.model_validate({**data, "text_sha256": "0" * 64})
    return BankItem.model_validate({**data, "text_sha256": text_sha256_of(probe)})


def _variant(raw: Item, variant: int) -> Item:
    """``raw`` as its ``variant``-th copy (0: itself): a new id and a marked prompt."""
    if not variant:
        return raw
    prompt = raw["prompt"]
    suffix = f" (variant {variant})"
    if isinstance(prompt, str):
        prompt = prompt + suffix
    else:
        prompt = [*prompt[:-1], {**prompt[-1], "content": prompt[-1]["content"] + suffix}]
    return {**raw, "id": f"{raw['id']}-r{variant}", "prompt": prompt}


def _scaled_raw(public: list[Item], held: list[Item], total: int) -> list[tuple[Item, bool]]:
    """``total`` items held out in the example's proportion, each pool reused as variants."""
    out: list[tuple[Item, bool]] = []
    used = {False: 0, True: 0}
    for n in range(total):
        is_held = (n + 1) * len(held) // (len(public) + len(held)) > used[True]
        pool = held if is_held else public
        k = used[is_held]
        used[is_held] += 1
        raw = _variant(pool[k % len(pool)], k // len(pool))
        out.append(({**raw, "added_in": "v1", "status": "validated"}, is_held))
    return out


def build_bank(spec: DemoSpec) -> tuple[BankManifest, list[DemoItem]]:
    """The example's bank manifest and every item (public and held out) with responses."""
    rng = random.Random(f"{spec.seed}:bank")
    public_raw: list[Item] = read_data("public_items.yaml")
    held_raw = heldout.heldout_items(random.Random(f"{spec.seed}:heldout"))
    if spec.extra_items:
        chosen = _scaled_raw(public_raw, held_raw, spec.extra_items)
    else:
        chosen = [(r, False) for r in public_raw] + [(r, True) for r in held_raw]
    items = []
    guid = demo_canary(spec.seed)
    for raw, is_held in chosen:
        item = _make_item(raw, is_held, spec, rng)
        item = item if is_held else with_canary(item, guid)  # public lines carry the canary
        passing, failing = (tuple(raw.get("responses", {}).get(k, ())) for k in ("pass", "fail"))
        items.append(DemoItem(item, is_held, passing, failing, raw))
    items.sort(key=lambda d: d.item.id)
    declared = {"name": spec.name, "license": "CC-BY-4.0", "versions": list(spec.versions)}
    manifest = {**declared, "demonstration": True, "categories": categories(), "canary": guid}
    return BankManifest.model_validate(manifest), items


class Ledgers(NamedTuple):
    """The bank's two review ledgers, by date then item, as ``review apply`` appends them."""

    climbs: list[StatusChange]
    disagreements: list[Disagreement]


def _check_date(spec: DemoSpec, review: ReviewSpec) -> None:
    """Refuse a review dated on a publication date or before the bank's first version."""
    where = f"example review of {review.item} on {review.day}: dated {review.day}"
    if review.day in {v.publication_date for v in spec.volumes}:
        raise ValueError(f"{where}, a volume's publication date: the date must follow it")
    if review.day < spec.versions[0].released:
        raise ValueError(f"{where}, before the bank's first version")


def ledgers(spec: DemoSpec, items: Mapping[str, BankItem]) -> Ledgers:
    """The ledger lines of ``spec.reviews``, their dates checked as ``review apply`` does.

    Raises:
        ValueError: A review is dated on a publication date or before the first version.
    """
    out = Ledgers([], [])
    for review in sorted(spec.reviews, key=lambda r: (r.day, r.item)):
        _check_date(spec, review)
        frozen = items[review.item].validation if review.item in items else []
        status = ladder.current_status(frozen, [c for c in out.climbs if c.item == review.item])
        line = {
            "item": review.item,
            "by": review.by,
            "on": review.day,
            "bank_version": [v.id for v in spec.versions if v.released <= review.day][-1],
            "comment": review.comment,
        }
        if review.decision == "disagree":
            out.disagreements.append(Disagreement.model_validate({**line, "status": status}))
        else:
            rung = ladder.next_rung(status) or status  # the reader refuses a climb past the top
            climb = {**line, "status": rung, "resolution": review.resolution}
            out.climbs.append(StatusChange.model_validate(climb))
    return out
