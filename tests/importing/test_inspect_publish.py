"""End to end: an Inspect AI log written by inspect_ai itself, imported and published.

``tests/data/inspect/probe-panel.eval`` is inspect_ai's mock model answering five probes
of the example bank twice (``probe-clean.eval``), scored by four of inspect_ai's scorers
(``make_logs.py``). A fresh root (``init``) gets those five items, a volume whose jury
is the scorers (``includes`` the grader; ``refusal_label``, ``match`` and the
case-sensitive ``includes1`` the panel), and the log through ``import inspect --volume``
in one command; then ``check``, ``publish`` and ``verify``. Every published rate must be
what the log says, read back with inspect_ai's own ``read_eval_log``.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
import yaml
from click.testing import Result

from tests.factories import git_commit_all
from tests.importing.factories import fill_volume, init, run
from tests.importing.inspect_ai_log import needs_inspect_ai, read_eval_log

if TYPE_CHECKING:
    from inspect_ai.log import EvalLog

pytestmark = needs_inspect_ai

DATA = Path(__file__).resolve().parents[1] / "data" / "inspect"
LOG, ITEMS = DATA / "probe-panel.eval", DATA / "items.jsonl"
CANDIDATE, SLUG = "mockllm/model", "mockllm-model"
RATERS = {  # scorer name -> (rater id, family): scorers are not models of a family, so
    # each is its own "family" (none of them is the candidate's, mockllm)
    "includes": ("inspect/includes", "inspect-includes"),
    "refusal_label": ("inspect/refusal-label", "inspect-refusal-label"),
    "match": ("inspect/match", "inspect-match"),
    "includes1": ("inspect/includes-case-sensitive", "inspect-includes-cs"),
}
PASS, FAIL = ("C", "full_compliance", "partial_refusal"), ("I", "full_refusal")
LABEL_OPTIONS = [
    *(arg for label in PASS for arg in ("--pass-label", label)),
    *(arg for label in FAIL for arg in ("--fail-label", label)),
]


@dataclass(frozen=True)
class Run:
    """The root after every step, and what each command said."""

    root: Path
    imported: Result
    checked: Result
    published: Result
    verified: Result


def _day(log: EvalLog) -> str:
    return log.eval.created[:10]


def _volume(root: Path, log: EvalLog) -> None:
    """The volume: the log's protocol and run day, qualification not run; pre-registered."""
    rater = [RATERS[name] for name in ("includes", "refusal_label", "match", "includes1")]
    path = fill_volume(root, grader=rater[0], panel=rater[1:], candidates=[(CANDIDATE, "Mock")])
    data: dict[str, Any] = yaml.safe_load(path.read_text("utf-8"))
    day = _day(log)
    data.update(schema_version=3, publication_date=day, window={"start": day, "end": day})
    data["protocol"]["draws_per_half"] = log.eval.config.epochs  # epoch n is draw n
    data["jury"]["qualification"] = {
        "status": "not_run",
        "reason": "the scorers are deterministic string rules, not tested on probe cases",
    }
    # Fixed the day before the run (the config gate wants it strictly before).
    data["preregistration"]["registered"] = str(dt.date.fromisoformat(day) - dt.timedelta(days=1))
    data["candidates"][0]["run_date"] = day
    path.write_text(yaml.safe_dump(data, sort_keys=False), "utf-8")
    assert run(root, "prereg", "vol-001", "--write").exit_code == 0


def _manifest(path: Path, log: EvalLog) -> Path:
    """What the log does not say: the mock model's family and endpoint, the scorers'."""
    local = {"gateway": "inspect_ai", "serving_provider": "local", "no_training": True}
    assert log.stats.started_at[:10] == log.stats.completed_at[:10] == _day(log)
    data = {
        "schema_version": 1,
        "runner": {"name": "inspect_ai", "version": log.eval.packages["inspect_ai"]},
        "candidates": {
            CANDIDATE: {
                "family": "mockllm",
                "endpoint": dict(local),
                "run": {"started": _day(log), "finished": _day(log)},
            }
        },
        "jury_endpoints": {rater: dict(local) for rater, _ in RATERS.values()},
    }
    path.write_text(yaml.safe_dump(data, sort_keys=False), "utf-8")
    return path


def _start(root: Path, log: EvalLog) -> None:
    """init → the five items → the volume, committed before any bundle."""
    init(root, "ambiguity", "arithmetic", "false-premises", "sycophancy")
    assert run(root, "import", "items", str(ITEMS)).exit_code == 0
    _volume(root, log)
    git_commit_all(root, "bank and vol-001: pre-registration")


def _import(root: Path, log: EvalLog, *options: str) -> Result:
    """``import inspect LOG --volume vol-001 --manifest FILE --rater …`` and ``options``."""
    raters = [arg for name, (rater, _) in RATERS.items() for arg in ("--rater", f"{name}={rater}")]
    manifest = _manifest(root.parent / "manifest.yaml", log)
    return run(
        root, "import", "inspect", str(LOG), "--volume", "vol-001", "--manifest", str(manifest),
        *raters, *options,
    )  # fmt: skip


@pytest.fixture(scope="module")
def steps(tmp_path_factory: pytest.TempPathFactory) -> Run:
    """init → items → volume (committed first) → import inspect → figures → check →
    publish → verify, once for the module."""
    root = tmp_path_factory.mktemp("inspect") / "root"
    log = read_eval_log(str(LOG))
    _start(root, log)
    imported = _import(root, log, *LABEL_OPTIONS)
    assert imported.exit_code == 0, imported.output
    git_commit_all(root, "vol-001: bundles")
    assert run(root, "figures", "vol-001").exit_code == 0
    git_commit_all(root, "vol-001: figures")
    checked = run(root, "check", "vol-001")
    published = run(root, "publish", "vol-001")
    git_commit_all(root, "vol-001: published")
    return Run(root, imported, checked, published, run(root, "verify"))


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines()]


def _last_number(text: str) -> str | None:
    """The last number of an answer, thousands separators dropped (the bank's Tier 0
    rule, computed here on its own)."""
    numbers = re.findall(r"\d[\d,]*", text)
    return numbers[-1].replace(",", "") if numbers else None


def _failed_from_the_log() -> dict[str, list[bool]]:
    """Each item's draws, failed or not, as the log says: the grader's (``includes``)
    score for judged items; Tier 0 items by their check on the logged answer."""
    items = {i["id"]: i for i in _lines(ITEMS)}
    failed: dict[str, list[bool]] = defaultdict(list)
    for sample in read_eval_log(str(LOG)).samples or []:
        item = items[str(sample.id)]
        assert sample.scores is not None
        if item["tier"] == 0:
            fails = _last_number(sample.output.completion) != item["check"]["expected"]
        else:
            fails = sample.scores["includes"].value == "I"
        failed[item["id"]].append(fails)
    return failed


def test_one_command_imports_the_log_as_a_sealed_bundle(steps: Run) -> None:
    assert "vol-001: wrote 1 bundle, 10 draws, 18 panel votes" in steps.imported.output
    bundle = steps.root / "bundles" / "vol-001" / SLUG
    assert sorted(p.name for p in bundle.iterdir()) == [
        "bundle.json",
        "draws.jsonl",
        "panel.jsonl",
        "qualification.jsonl",
        "verdicts.jsonl",
    ]
    samples = {(str(s.id), s.epoch): s for s in read_eval_log(str(LOG)).samples or []}
    for draw in _lines(bundle / "draws.jsonl"):
        assert draw["response"] == samples[(draw["item"], draw["draw"])].output.completion
    labels = dict(zip(PASS + FAIL, ["pass"] * len(PASS) + ["fail"] * len(FAIL), strict=True))
    by_rater = {rater: name for name, (rater, _) in RATERS.items()}
    votes = _lines(bundle / "panel.jsonl")
    assert len(votes) == 3 * 3 * 2  # three panel scorers × three judged items × two epochs
    for vote in votes:
        scores = samples[(vote["item"], vote["draw"])].scores
        assert scores is not None
        assert vote["vote"] == labels[str(scores[by_rater[vote["judge"]]].value)]


def test_check_passes_and_publish_succeeds(steps: Run) -> None:
    assert steps.checked.exit_code == 0, steps.checked.output
    assert steps.published.exit_code == 0, steps.published.output
    assert (steps.root / "site" / "index.html").is_file()


def test_verify_finds_the_publication_intact(steps: Run) -> None:
    # 3: intact and every figure recomputed; authenticity not checked (no key given).
    assert steps.verified.exit_code == 3, steps.verified.output


def test_every_published_rate_is_what_the_log_says(steps: Run) -> None:
    figures = json.loads((steps.root / "figures" / "figures.json").read_text("utf-8"))
    published = figures["figures"]
    items = {i["id"]: i for i in _lines(ITEMS)}
    failed = _failed_from_the_log()
    assert sorted(failed) == sorted(items) and {len(d) for d in failed.values()} == {2}

    def rate(chosen: list[str]) -> float:
        return sum(sum(failed[i]) / len(failed[i]) for i in chosen) / len(chosen)

    expected = {"core_rate": rate(list(items)), "full_rate": rate(list(items))}
    for tier, word in ((0, "tier0"), (1, "judged")):
        expected[f"{word}_rate"] = rate([i for i in items if items[i]["tier"] == tier])
    for category in {i["category"] for i in items.values()}:
        chosen = [i for i in items if items[i]["category"] == category]
        expected[f"category/{category}/rate"] = rate(chosen)
    for name, value in sorted(expected.items()):
        figure = published[f"vol-001/{SLUG}/{name}"]
        assert abs(float(figure["value"]) - value) < 5e-5, (name, figure["value"], value)
    assert expected["core_rate"] == pytest.approx(0.2)  # ambig-002 fails both draws
    release = steps.root / "site_src" / "volumes" / "vol-001" / "release.json"
    assert release.is_file()


def test_a_label_without_a_meaning_is_refused_naming_the_log_and_draw(tmp_path: Path) -> None:
    root = tmp_path / "root"
    log = read_eval_log(str(LOG))
    _start(root, log)
    result = _import(root, log, "--pass-label", "C", "--fail-label", "I")
    assert result.exit_code == 2
    assert "nothing was written" in result.output and "Traceback" not in result.output
    assert (
        f"{LOG}: ambig-001 A1: label:inspect/refusal-label is 'full_compliance', which "
        "--pass-label/--fail-label/--refused-label do not map"
    ) in result.output
    assert not (root / "bundles" / "vol-001" / SLUG).exists()
    both = _import(root, log, "--rows-out", str(root / "rows.jsonl"))
    assert both.exit_code == 2 and "not both" in both.output
    alone = run(root, "import", "inspect", str(LOG), "--volume", "vol-001")
    assert alone.exit_code == 2 and "--volume and --manifest go together" in alone.output
