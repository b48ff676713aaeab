"""What a volume of the example keeps beside its bundles: anchor probes and calibration set."""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Mapping
from typing import Any

from generator import __version__
from generator.calibration.sample import calibration_seed, draw_sample, eligible, graded
from generator.demo import read_data
from generator.demo.simulate import RUNNER, Round, drawn
from generator.demo.spec import CalibrationSpec, CandidateSpec
from generator.hashing import sha256_text
from generator.models.anchors import AnchorProbe
from generator.models.base import slugify
from generator.models.records import Verdict

Row = dict[str, Any]
_PROBE = read_data("simulation.yaml")["anchor_probe"]
_FLIP = {"pass": "fail", "fail": "pass", "yes": "no", "no": "yes"}


def _call(rng: random.Random, n: int, answered: bool, reports: bool) -> Row:
    """The ``n``-th call of a probe: answered, or an HTTP error and a timeout in turn."""
    shape = _PROBE["answered"] if answered else _PROBE["failed"][n % 2]
    return drawn(rng, {k: v for k, v in shape.items() if reports or k != "reasoning_tokens"})


def _probe(
    seed: str, api: str, via: CandidateSpec, run_date: dt.date, answered: bool, reports: bool
) -> AnchorProbe:
    """The probe of ``api`` through ``via``'s endpoint, one to five days before its run."""
    rng = random.Random(f"{seed}:{api}")
    day = run_date - dt.timedelta(days=rng.randint(1, 5))
    at = dt.datetime.combine(day, dt.time(rng.randint(8, 17), rng.randint(0, 59)), dt.UTC)
    calls = [_call(rng, n, answered, reports) for n in range(_PROBE["calls"])]
    return AnchorProbe.model_validate(
        {
            "anchor": api,
            "provider": via.provider,
            "gateway": via.gateway,
            "probed_at": at,
            "ran_by": _PROBE["ran_by"],
            "runner": RUNNER,
            "prompt_sha256": sha256_text(_PROBE["prompt"]),
            "calls": calls,
            "demonstration": True,
            "probepress_version": __version__,
        }
    )


def anchor_probes(run: Round) -> list[AnchorProbe]:
    """The volume's anchor probes, oldest first (``anchor_probe`` in ``data/simulation.yaml``)."""
    seed, dates = f"{run.spec.seed}:{run.vol.id}:probe", run.run_dates
    anchors = [c for c in run.vol.candidates if c.role == "anchor"]
    out = [_probe(seed, c.api, c, dates[c.api], True, n > 0) for n, c in enumerate(anchors)]
    if len(anchors) >= 2:
        first = min(dates[c.api] for c in anchors)
        out.append(_probe(seed, _PROBE["rejected"], anchors[0], first, False, False))
    return sorted(out, key=lambda p: (p.probed_at, p.anchor))


def calibration_units(
    run: Round, cal: CalibrationSpec, verdicts: Mapping[str, list[Row]]
) -> list[Row]:
    """The volume's calibration units, humans off the grader at ``judge_wrong``/``human_flip``."""
    judge, items = run.spec.jury.grader.api, {d.item.id: d.item for d in run.items}
    ranked = {slugify(c.api) for c in run.vol.candidates if c.role != "baseline"}
    pool = [
        graded(slug, v, items[v.item].category, items[v.item].added_in)
        for slug, rows in sorted(verdicts.items())
        if slug in ranked
        for v in map(Verdict.model_validate, rows)
        if eligible(v, judge)
    ]
    seed = calibration_seed(run.volume)
    rng = random.Random(f"{seed}:demonstration grades")
    units: list[Row] = []
    for d in draw_sample(cal.declared, pool, seed):
        where = {"candidate": d.candidate, "item": d.item, "half": d.half, "draw": d.draw}
        for unit in d.units:
            judged = unit.label
            truth = _FLIP[judged] if rng.random() < cal.judge_wrong[unit.criterion] else judged
            grades = [{"rater": judge, "label": judged}] + [
                {"rater": h.id, "label": _FLIP[truth] if rng.random() < cal.human_flip else truth}
                for h in cal.declared.humans
            ]
            units.append(
                {**where, "criterion": unit.criterion, "line": unit.line, "grades": grades}
            )
    return units
