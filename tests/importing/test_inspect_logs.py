"""The Inspect AI reader, on logs written by inspect_ai itself (tests/data/inspect/)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from generator.errors import InputError, UsageError
from generator.importing.inspect_logs import MISSING, read_inspect_logs
from generator.importing.sources import Declared, load_bank_for_import
from generator.store import Layout
from generator.store.bank import Bank
from generator.store.jsonl import Bounds
from tests.importing.helpers import run_cli
from tests.importing.inspect_ai_log import needs_inspect_ai, read_eval_log, write_eval_log

if TYPE_CHECKING:
    from inspect_ai.log import EvalLog

pytestmark = needs_inspect_ai

DATA = Path(__file__).resolve().parent.parent / "data" / "inspect"
EVAL, JSON, FAILED = DATA / "probe.eval", DATA / "probe.json", DATA / "probe-failed.json"


@pytest.fixture
def bank(root: Path) -> Bank:
    return load_bank_for_import(Layout.at(root, root / ".private"), Bounds())


def edited(tmp_path: Path, change: Any, source: Path = JSON, name: str = "edited.json") -> Path:
    """A copy of a log with ``change(log)`` applied, written by inspect_ai's own writer."""
    log = read_eval_log(str(source))
    change(log)
    path = tmp_path / name
    write_eval_log(log, str(path))
    return path


def refusal(paths: list[Path], bank: Bank, declared: Declared | None = None) -> list[str]:
    with pytest.raises(InputError) as caught:
        read_inspect_logs(paths, bank, declared or Declared())
    return [str(p) for p in caught.value.problems]


def test_both_formats_give_every_sample_and_epoch(bank: Bank) -> None:
    rows = read_inspect_logs([EVAL], bank, Declared())
    assert rows == read_inspect_logs([JSON], bank, Declared())
    assert [(r.item, r.draw) for r in rows] == [
        (item, draw)
        for item in ("ambig-001", "ambig-002", "arith-002", "premise-001", "syco-001")
        for draw in (1, 2)
    ]
    by_item = {r.item: r for r in rows if r.draw == 1}
    ok = by_item["arith-002"]
    assert (ok.candidate, ok.half, ok.status, ok.response) == (
        "mockllm/model",
        "A",
        "ok",
        "4,738 × 2,967 = 14057646",
    )
    assert (ok.input_tokens, ok.output_tokens, ok.finish_reason) == (12, 5, "stop")
    assert ok.latency_ms is not None
    assert ok.labels == {"includes": "C", "refusal_label": "full_compliance"}
    assert by_item["syco-001"].labels == {"includes": "C", "refusal_label": "full_refusal"}
    error = by_item["ambig-002"]
    assert (error.status, error.error_class, error.response, error.labels) == (
        "provider_error",
        "RuntimeError",
        None,
        {},
    )
    limit = by_item["premise-001"]
    assert (limit.status, limit.error_class, limit.response, limit.labels) == (
        "timeout",
        "inspect time limit",
        None,
        {},
    )
    assert limit.input_tokens is None and limit.latency_ms is None


def test_declared_candidate_half_raters_and_ids(bank: Bank, tmp_path: Path) -> None:
    ids = {f"s{n}": item for n, item in enumerate(["ambig-001", "ambig-002", "arith-002"])}
    ids |= {"s3": "premise-001", "s4": "syco-001"}
    renamed = {item: source for source, item in ids.items()}

    def rename(log: EvalLog) -> None:
        for sample in log.samples or []:
            sample.id = renamed[str(sample.id)]

    path = edited(tmp_path, rename)
    declared = Declared(ids, "ids.yaml", {"includes": "string-match"}, "B")
    rows = read_inspect_logs([path], bank, declared, candidate="acme/m-1")
    assert {(r.candidate, r.half) for r in rows} == {("acme/m-1", "B")}
    assert rows[0].item == "ambig-001" and set(rows[0].labels) == {"string-match", "refusal_label"}
    partial = Declared({k: v for k, v in ids.items() if k != "s2"}, "ids.yaml")
    assert refusal([path], bank, partial) == [
        f"{path}: sample 's2' epoch {n}: id 's2' is not in the id map ids.yaml [import-id]; "
        "fix: add it to the id map"
        for n in (1, 2)
    ]


def test_an_id_that_is_no_bank_item_is_refused(bank: Bank, tmp_path: Path) -> None:
    def rename(log: EvalLog) -> None:
        assert log.samples is not None
        log.samples[0].id = "gone-001"

    path = edited(tmp_path, rename)
    assert refusal([path], bank) == [
        f"{path}: sample 'gone-001' epoch 1: 'gone-001' is not an item of the bank "
        "[import-id]; fix: declare which item each id is with --ids FILE (source id: item id)"
    ]


def test_an_input_that_is_not_the_bank_prompt_is_refused(bank: Bank, tmp_path: Path) -> None:
    def reword(log: EvalLog) -> None:
        assert log.samples is not None
        log.samples[2].input = "What is 4,738 × 2,967? Round to the nearest thousand."

    path = edited(tmp_path, reword)
    (message,) = refusal([path], bank)
    assert message == (
        f"{path}: sample 'arith-002' epoch 1: the sample's input is not the prompt of bank "
        "item arith-002 [inspect-prompt]; fix: run the bank's prompts verbatim (or map the id "
        "to the item whose prompt it is)"
    )
    assert "Round" not in message  # the log's text is never quoted


def test_an_unfinished_eval_is_refused(bank: Bank) -> None:
    assert refusal([FAILED], bank) == [
        f"{FAILED}: the eval's status is 'error', not 'success': samples may be missing "
        "[inspect-status]; fix: finish the eval (`inspect eval-retry LOG`) and import the "
        "finished log"
    ]


def test_limits_keep_an_output_and_refuse_a_missing_one(bank: Bank, tmp_path: Path) -> None:
    def token_limits(log: EvalLog) -> None:
        assert log.samples is not None
        premise, arith = log.samples[3], log.samples[2]
        assert premise.limit is not None
        premise.limit.type = "token"
        arith.limit = premise.limit.model_copy()

    path = edited(tmp_path, token_limits)
    assert refusal([path], bank) == [
        f"{path}: sample 'premise-001' epoch 1: a token limit halted the sample before it had "
        "an output; a draw's response cannot be told [inspect-limit]; fix: rerun the sample "
        "without the limit (or raise it)"
    ]

    def drop_premise(log: EvalLog) -> None:
        token_limits(log)
        assert log.samples is not None
        log.samples = [s for s in log.samples if s.id != "premise-001"]

    rows = read_inspect_logs([edited(tmp_path, drop_premise)], bank, Declared())
    arith = next(r for r in rows if r.item == "arith-002" and r.draw == 1)
    assert (arith.status, arith.finish_reason, arith.response) == (
        "ok",
        "token_limit",
        "4,738 × 2,967 = 14057646",
    )


def test_a_score_that_is_not_one_label_is_refused(bank: Bank, tmp_path: Path) -> None:
    def list_score(log: EvalLog) -> None:
        assert log.samples is not None and log.samples[0].scores is not None
        log.samples[0].scores["includes"].value = [1, 0]

    path = edited(tmp_path, list_score)
    assert refusal([path], bank) == [
        f"{path}: sample 'ambig-001' epoch 1: scorer 'includes' gave a list, not one label "
        "(text, number or bool) or rubric grades (a dict) [inspect-score]"
    ]


def test_the_same_draw_twice_is_refused(bank: Bank) -> None:
    problems = refusal([EVAL, JSON], bank)
    assert len(problems) == 10
    assert problems[0] == (
        f"{JSON}: sample 'ambig-001' epoch 1: draw A1 of ambig-001 came already from {EVAL} "
        "[import-duplicate]"
    )


def test_messages_escape_control_characters(root: Path, tmp_path: Path) -> None:
    def hostile(log: EvalLog) -> None:
        assert log.samples is not None
        log.samples[0].id = "\x1b[2J\u202eevil"

    path = edited(tmp_path, hostile)
    result = run_cli(root, "inspect", str(path))
    assert result.exit_code == 2
    assert "\x1b" not in result.stderr and "\u202e" not in result.stderr
    assert "\\x1b[2J\\u202eevil" in result.stderr
    assert "Traceback" not in result.stderr


def test_rows_out_writes_records_jsonl_inside_the_root(root: Path) -> None:
    out = root / "imports" / "rows.jsonl"
    result = run_cli(root, "inspect", str(EVAL), "--rows-out", str(out))
    assert result.exit_code == 0, result.stderr
    assert "wrote" in result.stderr and "10 draws of 5 items from 1 log, 4 lost" in result.stderr
    lines = [json.loads(line) for line in out.read_text("utf-8").splitlines()]
    layout = Layout.at(root, root / ".private")
    rows = read_inspect_logs([EVAL], load_bank_for_import(layout, Bounds()), Declared())
    assert lines == [r.model_dump(mode="json", exclude_none=True) for r in rows]
    outside = run_cli(root, "inspect", str(EVAL), "--rows-out", str(root.parent / "x.jsonl"))
    assert outside.exit_code == 2
    assert "--rows-out must be inside" in outside.stderr
    assert not (root.parent / "x.jsonl").exists()


def test_held_out_items_check_the_private_text_and_stay_private(
    root: Path, bank: Bank, tmp_path: Path
) -> None:
    item = sorted(bank.heldout)[0]
    prompt = bank.private[item].prompt
    assert isinstance(prompt, str)

    def to_heldout(log: EvalLog) -> None:
        assert log.samples is not None
        log.samples = [s for s in log.samples if s.id == "arith-002"]
        for sample in log.samples:
            sample.id, sample.input = item, prompt

    path = edited(tmp_path, to_heldout)
    rows = read_inspect_logs([path], bank, Declared())
    assert [(r.item, r.draw) for r in rows] == [(item, 1), (item, 2)]
    public_out = run_cli(root, "inspect", str(path), "--rows-out", str(root / "rows.jsonl"))
    assert public_out.exit_code == 2
    assert "held-out items" in public_out.stderr and not (root / "rows.jsonl").exists()
    private_out = root / ".private" / "imports" / "rows.jsonl"
    assert run_cli(root, "inspect", str(path), "--rows-out", str(private_out)).exit_code == 0
    assert private_out.is_file()


def test_without_inspect_ai_the_command_says_what_to_install(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "inspect_ai", None)
    monkeypatch.setitem(sys.modules, "inspect_ai.log", None)
    with pytest.raises(UsageError, match="probepress\\[inspect\\]"):
        read_inspect_logs([EVAL], Bank.__new__(Bank), Declared())
    result = run_cli(root, "inspect", str(EVAL))
    assert (result.exit_code, result.stderr.strip()) == (2, MISSING)


def test_usage_errors_exit_2_without_a_traceback(root: Path) -> None:
    bad_half = run_cli(root, "inspect", str(EVAL), "--half", "A1")
    assert bad_half.exit_code == 2 and "--half takes one capital letter" in bad_half.stderr
    bad_rater = run_cli(root, "inspect", str(EVAL), "--rater", "includes")
    assert bad_rater.exit_code == 2 and "--rater takes NAME=RATER_ID" in bad_rater.stderr
    not_a_log = run_cli(root, "inspect", str(DATA / "README.md"))
    assert not_a_log.exit_code == 2
    assert "an Inspect AI log ends in .eval or .json [inspect-file]" in not_a_log.stderr


def test_a_file_inspect_cannot_read_is_refused_without_its_text(bank: Bank, tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text('{"version": 2, "status": "success", "eval": "secret text"}', "utf-8")
    (message,) = refusal([path], bank)
    assert message.startswith(f"{path}: inspect_ai cannot read this log (")
    assert "secret" not in message


def test_the_committed_logs_are_inspect_ais_own() -> None:
    for path in (EVAL, JSON, FAILED, DATA / "probe-clean.eval"):
        log = read_eval_log(str(path), header_only=True)
        assert log.eval.packages == {"inspect_ai": "0.3.285"}
        assert (log.eval.model, log.eval.task) == ("mockllm/model", "probe_task")


def test_a_long_or_odd_id_is_quoted_short(bank: Bank, tmp_path: Path) -> None:
    def long_id(log: EvalLog) -> None:
        assert log.samples is not None
        log.samples[0].id = "x" * 500

    (message,) = refusal([edited(tmp_path, long_id)], bank)
    assert f"sample '{'x' * 56}… epoch 1:" in message
    assert len(message) < 400


def test_retries_filters_and_empty_answers_keep_their_status(bank: Bank, tmp_path: Path) -> None:
    from inspect_ai.log import EvalRetryError

    def outcomes(log: EvalLog) -> None:
        assert log.samples is not None
        retried, filtered, empty = log.samples[0], log.samples[2], log.samples[4]
        retry = EvalRetryError(message="TimeoutError()", traceback="", traceback_ansi="")
        retried.error_retries = [retry, retry]
        filtered.output.choices[0].stop_reason = "content_filter"
        empty.output.choices[0].message.content = "  "
        empty.output.completion = "  "

    rows = read_inspect_logs([edited(tmp_path, outcomes)], bank, Declared())
    first = {r.item: r for r in rows if r.draw == 1}
    retried = first["ambig-001"]
    assert (retried.attempts, retried.retried_after, retried.status) == (3, "provider_error", "ok")
    assert retried.latency_ms is None  # the earlier attempts' time is not in the log
    assert (first["arith-002"].status, first["arith-002"].finish_reason) == (
        "content_filter",
        "content_filter",
    )
    assert (first["syco-001"].status, first["syco-001"].response) == ("empty", "  ")


def test_an_answer_served_by_a_fallback_model_is_refused(bank: Bank, tmp_path: Path) -> None:
    from inspect_ai.model import ModelFallback

    def fallback(log: EvalLog) -> None:
        assert log.samples is not None
        served = ModelFallback(model="mockllm/model", fallback_model="other/model")
        log.samples[0].model_fallbacks = [served]
        grader = ModelFallback(model="grader/model", fallback_model="other/model")
        log.samples[2].model_fallbacks = [grader]  # the scorer's model: not the candidate's

    path = edited(tmp_path, fallback)
    assert refusal([path], bank) == [
        f"{path}: sample 'ambig-001' epoch 1: 1 other model served requests made to "
        "mockllm/model (a fallback): the answer is not the candidate's [inspect-fallback]; "
        "fix: rerun without fallbacks"
    ]


def test_a_log_is_opened_like_every_input(bank: Bank, tmp_path: Path) -> None:
    link = tmp_path / "link.eval"
    link.symlink_to(EVAL)
    (linked,) = refusal([link], bank)
    assert linked.startswith(f"{link}: ") and "symlink" in linked
    small = Bounds(max_file_bytes=1000)
    with pytest.raises(InputError) as caught:
        read_inspect_logs([EVAL], bank, Declared(), bounds=small)
    (big,) = caught.value.problems
    assert (big.path, big.rule) == (str(EVAL), "file-too-large")


def test_the_clean_log_answers_every_draw(bank: Bank) -> None:
    rows = read_inspect_logs([DATA / "probe-clean.eval"], bank, Declared())
    assert len(rows) == 10 and {r.status for r in rows} == {"ok"}
    assert all(r.response and set(r.labels) == {"includes", "refusal_label"} for r in rows)
