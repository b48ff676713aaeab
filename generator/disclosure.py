"""Open one held-out item's commitments, and check an opening offline.

``disclose`` (maintainer, with the private store) writes one item's key ``K_item``, its
texts and every response to it, after checking each against the published commitments.
``check_disclosure`` (anyone, with the public index and bundles only: a checkout, or a
built site's ``downloads/`` folder, which has the same ``bank/`` and ``bundles/`` layout)
recomputes every commitment from the disclosure and compares it with the disclosure and
with what was published. Why a per-item key: disclosing it opens that item only; the
bank secret and every other item stay closed (``generator.commitments``).

Once disclosed, the item is public: its text will fail the holdout gate wherever it
appears in the root, so retire it and publish it as a public item of a later version.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from generator import commitments
from generator.errors import Problem, UsageError
from generator.models.bank import HeldOutEntry
from generator.models.disclosure import DisclosedResponse, Disclosure
from generator.models.records import Draw, PrivateResponse
from generator.store.bank import load_bank, require
from generator.store.bundle import PrivateText
from generator.store.jsonl import Bounds, Problems, iter_jsonl, load_document
from generator.store.paths import Layout

DrawId = tuple[str, str, str, int]
"""(volume, candidate slug, half, draw) of one response to the disclosed item."""


class Published(NamedTuple):
    """A published response commitment and where it was read."""

    shown: str
    line: int
    commitment: str


@dataclass(frozen=True)
class DisclosureCheck:
    """What ``check_disclosure`` compared, and every mismatch."""

    item: str
    texts: int
    responses: int
    problems: list[Problem]


def _bundle_dirs(layout: Layout) -> list[tuple[str, Path]]:
    """(volume, bundle directory) of every bundle with a ``draws.jsonl``, sorted."""
    found = []
    for volume in layout.volume_ids():
        for directory in sorted(layout.volume_dir(volume).iterdir()):
            draws = directory / "draws.jsonl"
            if directory.is_dir() and not directory.is_symlink() and draws.is_file():
                found.append((volume, directory))
    return found


def published_responses(
    layout: Layout, item: str, bounds: Bounds, problems: Problems
) -> dict[DrawId, Published]:
    """Every published response commitment to ``item``, from every bundle's draws."""
    out: dict[DrawId, Published] = {}
    for volume, directory in _bundle_dirs(layout):
        shown = layout.rel(directory / "draws.jsonl")
        for line, draw in iter_jsonl(directory / "draws.jsonl", Draw, shown, problems, bounds):
            if draw.item == item and draw.response_commitment is not None:
                key = (volume, directory.name, draw.half, draw.draw)
                out[key] = Published(shown, line, draw.response_commitment)
    return out


def _private_responses(
    layout: Layout, item: str, wanted: set[DrawId], bounds: Bounds, problems: Problems
) -> dict[DrawId, PrivateText]:
    """The private texts of the ``wanted`` responses to ``item``, with their lines."""
    texts: dict[DrawId, PrivateText] = {}
    for volume, slug in sorted({(v, s) for v, s, _, _ in wanted}):
        path = layout.private_responses(volume, slug)
        for line, rec in iter_jsonl(path, PrivateResponse, str(path), problems, bounds):
            key = (volume, slug, rec.half, rec.draw)
            if rec.item == item and key in wanted:
                texts[key] = PrivateText(str(path), line, rec.text)
    return texts


def disclose(layout: Layout, item: str, bounds: Bounds | None = None) -> Disclosure:
    """Open held-out ``item``: its key, texts and responses, each checked first.

    Raises:
        UsageError: ``item`` is not a held-out item.
        InputError: The bank, the private store or a bundle cannot be read, or a private
            text does not match its published commitment (nothing is disclosed).
    """
    bounds = bounds or Bounds()
    problems = Problems()
    bank = load_bank(layout, bounds, problems, private=True)
    require(problems, "the bank and its private store")
    assert bank is not None  # require raised otherwise
    if item not in bank.heldout:
        index = layout.rel(layout.heldout_index)
        if item in bank.public:
            raise UsageError(f"{item} is a public item: its text is published already")
        raise UsageError(f"no held-out item {item!r} in {index}")
    full, key = bank.private[item], bank.keys[item]
    published = published_responses(layout, item, bounds, problems)
    texts = _private_responses(layout, item, set(published), bounds, problems)
    responses = []
    for (volume, slug, half, draw), found in sorted(published.items()):
        private = texts.get((volume, slug, half, draw))
        if private is None:
            message = "held-out response is missing from the private store"
            problems.add(found.shown, found.line, "private-missing", message)
            continue
        text = private.text
        if commitments.response_commitment(key, volume, slug, item, half, draw, text) != (
            found.commitment
        ):
            message = (
                f"response to {item} {half}{draw} does not match the response_commitment of "
                f"{found.shown}:{found.line} under the bank secret"
            )
            problems.add(private.path, private.line, "private-commitment", message)
            continue
        responses.append(
            DisclosedResponse(
                volume=volume,
                candidate=slug,
                half=half,
                draw=draw,
                text=text,
                response_commitment=found.commitment,
            )
        )
    require(problems, f"the responses to {item}")
    data = full.model_dump(mode="json", include=commitments.TEXT_FIELDS, exclude_none=True)
    return Disclosure.model_validate(
        {
            **data,
            **commitments.item_commitments(key, full),
            "item": item,
            "item_key": key.hex(),
            "responses": responses,
        }
    )


def _index_entry(
    layout: Layout, item: str, bounds: Bounds, problems: Problems
) -> HeldOutEntry | None:
    shown = layout.rel(layout.heldout_index)
    for _, entry in iter_jsonl(layout.heldout_index, HeldOutEntry, shown, problems, bounds):
        if entry.id == item:
            return entry
    return None


def _check_texts(
    d: Disclosure, key: bytes, shown: str, out: Problems, entry: HeldOutEntry | None
) -> None:
    """Recompute the item's two commitments; compare with the disclosure and the index."""
    dumped = d.model_dump(mode="json", include=commitments.TEXT_FIELDS, exclude_none=True)
    found = {
        "prompt_commitment": commitments.prompt_commitment(key, dumped["prompt"]),
        "criterion_commitment": commitments.criterion_commitment(
            key, dumped["pass_criterion"], dumped.get("check"), dumped.get("rubric")
        ),
    }
    for name, value in found.items():
        if value != getattr(d, name):
            out.add(shown, None, "disclosure-text", f"{name} does not match the disclosed text")
        elif entry is not None and value != getattr(entry, name):
            out.add(shown, None, "disclosure-index", f"{name} differs from the published index")


def check_disclosure(layout: Layout, path: Path, bounds: Bounds | None = None) -> DisclosureCheck:
    """Check a disclosure against itself and the published index and draws, offline.

    Raises:
        InputError: The disclosure or the published files cannot be read.
    """
    bounds = bounds or Bounds()
    read = Problems()
    shown = str(path)
    disclosure = load_document(path, Disclosure, shown, read, bounds.max_file_bytes)
    require(read, "the disclosure")
    assert disclosure is not None
    item = disclosure.item
    entry = _index_entry(layout, item, bounds, read)
    published = published_responses(layout, item, bounds, read)
    require(read, "the published index and draws")
    out = Problems()
    if entry is None:
        out.add(layout.rel(layout.heldout_index), None, "disclosure-index", f"no entry for {item}")
    key = bytes.fromhex(disclosure.item_key)
    _check_texts(disclosure, key, shown, out, entry)
    opened: set[DrawId] = set()
    for r in disclosure.responses:
        draw_id = (r.volume, r.candidate, r.half, r.draw)
        name = f"response {r.volume}/{r.candidate} {r.half}{r.draw}"
        value = commitments.response_commitment(
            key, r.volume, r.candidate, item, r.half, r.draw, r.text
        )
        found = published.get(draw_id)
        if value != r.response_commitment:
            out.add(shown, None, "disclosure-text", f"{name} does not match its commitment")
        elif found is None:
            out.add(shown, None, "disclosure-draws", f"{name} is not a published draw")
        elif value != found.commitment:
            out.add(found.shown, found.line, "disclosure-draws", f"{name} differs from the draw")
        opened.add(draw_id)
    for draw_id, found in sorted(published.items()):
        if draw_id not in opened:
            message = f"response to {item} {draw_id[2]}{draw_id[3]} is not in the disclosure"
            out.add(found.shown, found.line, "disclosure-missing", message)
    return DisclosureCheck(item, len(commitments.COMMITTED), len(disclosure.responses), out.items)
