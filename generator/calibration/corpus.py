"""The public calibration corpus: per unit, the question, the answer, the humans' and the
judges' grades (useful beyond this volume, to people studying LLM judges).

Held-out items appear by their ids only: no prompt, criterion, response or grade. The
texts come from the public bank and the bundles' public draws (``read_responses`` never
returns a held-out text, whatever the files hold).
"""

from __future__ import annotations

from generator.calibration.check import calibrate, calibrated_judges
from generator.canonical import dumps_line
from generator.models.calibration import CalibrationRecord, CorpusEntry
from generator.store.paths import Layout
from generator.store.rowtypes import DrawKey
from generator.store.texts import read_responses
from generator.store.volume import VolumeData, load_volume

CORPUS_FOLDER = "calibration"
"""The corpus files' folder inside the downloads."""


def corpus_name(volume: str) -> str:
    """``calibration/<volume>_calibration_corpus.jsonl``."""
    return f"{CORPUS_FOLDER}/{volume}_calibration_corpus.jsonl"


def _responses(
    data: VolumeData, records: list[CalibrationRecord]
) -> dict[tuple[str, DrawKey], str | None]:
    out: dict[tuple[str, DrawKey], str | None] = {}
    for slug, bundle in sorted(data.bundles.items()):
        keys = {DrawKey(r.item, r.half, r.draw) for r in records if r.candidate == slug}
        if keys:
            texts = read_responses(data.layout, bundle, data.bank, keys)
            out.update({(slug, k): t.response for k, t in texts.items()})
    return out


def _entry(data: VolumeData, r: CalibrationRecord, response: str | None) -> CorpusEntry:
    bank = data.bank
    ids = {
        "volume": data.volume.id,
        "candidate": r.candidate,
        "item": r.item,
        "category": bank.meta(r.item).category,
        "half": r.half,
        "draw": r.draw,
        "criterion": r.criterion,
        "line": r.line,
    }
    if bank.is_heldout(r.item):
        return CorpusEntry.model_validate({**ids, "held_out": True})
    item = bank.public[r.item]
    judges = set(calibrated_judges(data))
    return CorpusEntry.model_validate(
        {
            **ids,
            "held_out": False,
            "prompt": item.prompt_text(),
            "pass_criterion": item.pass_criterion,
            "response": response,
            "human_grades": {g.rater: g.label for g in r.grades if g.rater not in judges},
            "judge_grades": {g.rater: g.label for g in r.grades if g.rater in judges},
            # The unit quotes the public item, so it carries the bank's canary like it.
            **({"canary": item.canary, "schema_version": 2} if item.canary else {}),
        }
    )


def _dumped(entry: CorpusEntry) -> dict[str, object]:
    """The unit's line; without ``canary`` when it has none (a bank without a canary, or a
    held-out unit), so such lines keep their version 1 bytes."""
    line = entry.dump()
    if line.get("canary") is None:
        line.pop("canary", None)
    return line


def corpus(data: VolumeData) -> bytes | None:
    """The corpus of ``data`` as JSONL bytes (None: no calibration set is declared).

    The records are in file order; a record of an item the bank does not have is the
    agreement gate's finding, and is left out here.
    """
    cal = calibrate(data)
    if cal.declared is None:
        return None
    records = [
        r for _, r in cal.records if r.item in data.bank.public or r.item in data.bank.heldout
    ]
    texts = _responses(data, records)
    lines = [
        dumps_line(
            _dumped(_entry(data, r, texts.get((r.candidate, DrawKey(r.item, r.half, r.draw)))))
        )
        for r in records
    ]
    return "".join(lines).encode("utf-8")


def volume_corpus(layout: Layout, volume: str) -> bytes | None:
    """The corpus of a published volume, read without the private store."""
    return corpus(load_volume(layout, volume, private=False))
