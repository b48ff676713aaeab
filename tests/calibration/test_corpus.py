"""The public calibration corpus: public units carry question, answer and grades; held-out
units only their ids; no held-out text ever reaches it."""

from __future__ import annotations

import json
from pathlib import Path

from generator.calibration.corpus import corpus_name, volume_corpus
from generator.models.calibration import CorpusEntry
from generator.site.downloads import _calibration_corpora
from generator.site.published import Publication, PublishedVolume
from generator.store import Layout, load_volume
from tests.calibration.factory import calibration_set
from tests.factories import VOL1


def _layout(root: Path) -> Layout:
    return Layout.at(root, root / ".private")


def test_public_units_carry_texts_and_grades_held_out_ids_only(root: Path) -> None:
    units = calibration_set(root)
    data = volume_corpus(_layout(root), VOL1)
    assert data is not None
    entries = [CorpusEntry.model_validate_json(line) for line in data.splitlines()]
    assert len(entries) == len(units)
    full = load_volume(_layout(root), VOL1)  # with the private store: the texts to look for
    held = [e for e in entries if e.held_out]
    public = [e for e in entries if not e.held_out]
    assert held and public
    for e, u in zip(entries, units, strict=True):
        assert (e.candidate, e.item, e.half, e.draw) == (
            u["candidate"],
            u["item"],
            u["half"],
            u["draw"],
        )
        assert e.category == full.bank.meta(e.item).category
    for e in held:
        assert (e.prompt, e.pass_criterion, e.response) == (None, None, None)
        assert not e.human_grades and not e.judge_grades
    text = data.decode("utf-8")
    for item in full.bank.private.values():
        assert item.prompt_text() not in text
        assert item.pass_criterion not in text
    e = public[0]
    item = full.bank.public[e.item]
    assert (e.prompt, e.pass_criterion) == (item.prompt_text(), item.pass_criterion)
    draws = (root / "bundles" / VOL1 / e.candidate / "draws.jsonl").read_text("utf-8")
    row = next(
        r
        for r in map(json.loads, draws.splitlines())
        if (r["item"], r["half"], r["draw"]) == (e.item, e.half, e.draw)
    )
    assert e.response == row["response"]
    assert set(e.human_grades) == {"rater-a", "rater-b", "rater-c"}
    assert set(e.judge_grades) == {"demo-kestrel/kestrel-grader-2"}


def test_the_corpus_is_a_download_only_of_calibrated_volumes(root: Path) -> None:
    layout = _layout(root)
    volume = load_volume(layout, VOL1).volume
    pub = Publication(layout, None, (PublishedVolume(volume, {}, {}),), {}, {})  # type: ignore[arg-type]
    assert _calibration_corpora(pub, {}) == []
    calibration_set(root)
    volume = load_volume(layout, VOL1).volume
    pub = Publication(layout, None, (PublishedVolume(volume, {}, {}),), {}, {})  # type: ignore[arg-type]
    (download,) = _calibration_corpora(pub, {})
    # Handed the volume's public reading (as publish does), it reads nothing and agrees.
    handed = {VOL1: load_volume(layout, VOL1, private=False)}
    assert _calibration_corpora(pub, handed) == [download]
    assert download.name == corpus_name(VOL1) == "calibration/vol-001_calibration_corpus.jsonl"
    assert download.group == "calibration"
    assert download.data == volume_corpus(layout, VOL1)
