"""The lm-evaluation-harness reader, on sample logs lm_eval 0.4.13 wrote
(tests/data/lm_eval/) and on altered copies of their lines."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from generator.errors import InputError
from generator.importing.lm_eval import LmEvalOptions, read_lm_eval_samples
from generator.importing.sources import Declared, load_bank_for_import
from generator.store import Layout
from generator.store.bank import Bank
from generator.store.jsonl import Bounds
from tests.importing.helpers import run_cli

DATA = Path(__file__).resolve().parent.parent / "data" / "lm_eval"
(PLAIN,) = DATA.glob("samples_probepress_probe_2*.jsonl")
(REPEATS,) = DATA.glob("samples_probepress_probe_repeats_*.jsonl")
ITEMS = ["ambig-001", "ambig-002", "arith-002", "premise-001"]


@pytest.fixture
def bank(root: Path) -> Bank:
    return load_bank_for_import(Layout.at(root, root / ".private"), Bounds())


def sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def doc_hash(doc: dict[str, Any]) -> str:
    """lm-eval's doc_hash, as lm_eval.evaluator computes it."""
    return sha(json.dumps(doc, indent=2, ensure_ascii=False))


def altered(tmp_path: Path, change: Callable[[list[dict[str, Any]]], None]) -> Path:
    """A copy of the plain log with ``change`` applied to its parsed lines."""
    lines = [json.loads(line) for line in PLAIN.read_text("utf-8").splitlines()]
    change(lines)
    path = tmp_path / PLAIN.name
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), "utf-8")
    return path


def refusal(path: Path, bank: Bank, labels: bool = True) -> list[str]:
    with pytest.raises(InputError) as caught:
        read_lm_eval_samples([path], bank, Declared(), "acme/m-1", LmEvalOptions(labels))
    return [str(p) for p in caught.value.problems]


def test_the_logged_hashes_are_lm_evals_own() -> None:
    for line in PLAIN.read_text("utf-8").splitlines():
        data = json.loads(line)
        assert data["doc_hash"] == doc_hash(data["doc"])
        assert data["prompt_hash"] == sha(data["doc"]["prompt"])


def test_documents_give_draws_and_each_filters_metric_a_label(bank: Bank) -> None:
    rows = read_lm_eval_samples([PLAIN], bank, Declared(), "acme/m-1")
    assert [(r.item, r.draw, r.response, r.status) for r in rows] == [
        (item, 1, "lol", "ok") for item in ITEMS
    ]
    assert [r.labels for r in rows] == [
        {"none/exact_match": value, "upper/exact_match": "0.0"}
        for value in ("0.0", "1.0", "0.0", "1.0")
    ]
    assert all(r.input_tokens is None and r.latency_ms is None for r in rows)
    renamed = Declared(raters={"none/exact_match": "string-match"}, half="B")
    first = read_lm_eval_samples([PLAIN], bank, renamed, "acme/m-1")[0]
    assert (first.half, first.labels) == ("B", {"string-match": "0.0", "upper/exact_match": "0.0"})


def test_repeats_are_draws_and_their_shared_metric_is_no_label(bank: Bank) -> None:
    no_labels = LmEvalOptions(labels=False)
    rows = read_lm_eval_samples([REPEATS], bank, Declared(), "acme/m-1", no_labels)
    assert [(r.item, r.draw) for r in rows] == [(i, d) for i in ITEMS for d in (1, 2, 3)]
    problems = refusal(REPEATS, bank)
    assert len(problems) == 8
    assert problems[0] == (
        f"{REPEATS}:1: doc_id 0: 3 repeats share one value per metric, so a metric is not any "
        "one draw's label [lm-eval-repeats]; fix: import with --no-labels"
    )


def test_an_edited_doc_fails_its_doc_hash(bank: Bank, tmp_path: Path) -> None:
    def edit(lines: list[dict[str, Any]]) -> None:
        lines[2]["doc"]["prompt"] = "What is 2 + 2?"

    path = altered(tmp_path, edit)
    assert refusal(path, bank) == [
        f"{path}:3: doc_id 2: doc_hash is not the hash of the doc logged beside it "
        "[lm-eval-doc-hash]; fix: use the log as lm-eval wrote it"
    ]


def test_a_doc_whose_prompt_is_not_the_banks_is_refused(bank: Bank, tmp_path: Path) -> None:
    def edit(lines: list[dict[str, Any]]) -> None:
        for line in lines:
            if line["doc_id"] == 1:
                line["doc"]["prompt"] = "How long will it take me to drive to Portland, Maine?"
                line["doc_hash"] = doc_hash(line["doc"])

    path = altered(tmp_path, edit)
    problems = refusal(path, bank)
    assert problems == [
        f"{path}:{n}: doc_id 1: the doc's prompt field is not the prompt of bank item ambig-002 "
        "[lm-eval-doc]; fix: build the task's docs from the bank"
        for n in (2, 6)
    ]
    assert all("Maine" not in p for p in problems)


def test_a_prompt_sent_with_few_shot_examples_fails_prompt_hash(bank: Bank, tmp_path: Path) -> None:
    def edit(lines: list[dict[str, Any]]) -> None:
        line = lines[0]
        line["prompt_hash"] = sha("Q: 1 + 1?\nA: 2\n\n" + line["doc"]["prompt"])

    path = altered(tmp_path, edit)
    assert refusal(path, bank) == [
        f"{path}:1: doc_id 0: prompt_hash is not the hash of bank item ambig-001's prompt: the "
        "model was sent other text (few-shot examples, a description or a template) "
        "[lm-eval-prompt-hash]; fix: run zero-shot with doc_to_text giving the prompt verbatim"
    ]


def test_a_chat_prompt_hashed_as_lm_eval_sends_it_to_an_api_model(
    bank: Bank, tmp_path: Path
) -> None:
    # lm_eval.models.api_models: JsonChatStr(json.dumps(chat_history, ensure_ascii=False)),
    # chat_history made of Message.to_dict() ({"role", "content"}); prompt_hash hashes it.
    def chat(lines: list[dict[str, Any]]) -> None:
        for line in lines:
            messages = [{"role": "user", "content": line["doc"]["prompt"]}]
            line["prompt_hash"] = sha(json.dumps(messages, ensure_ascii=False))

    rows = read_lm_eval_samples([altered(tmp_path, chat)], bank, Declared(), "acme/m-1")
    assert [r.item for r in rows] == ITEMS


def test_ids_unknown_to_the_bank_or_the_map_are_refused(bank: Bank, tmp_path: Path) -> None:
    def rename(lines: list[dict[str, Any]]) -> None:
        lines[0]["doc"]["id"] = "gone-001"
        lines[0]["doc_hash"] = doc_hash(lines[0]["doc"])

    path = altered(tmp_path, rename)
    assert refusal(path, bank) == [
        f"{path}:1: doc_id 0: 'gone-001' is not an item of the bank [import-id]; fix: declare "
        "which item each id is with --ids FILE (source id: item id)"
    ]
    by_doc_id = Declared({str(n): item for n, item in enumerate(ITEMS)}, "ids.yaml")
    rows = read_lm_eval_samples([path], bank, by_doc_id, "acme/m-1")
    assert [r.item for r in rows] == ITEMS


def test_lines_that_are_not_generations_or_json_are_refused(bank: Bank, tmp_path: Path) -> None:
    def loglikelihood(lines: list[dict[str, Any]]) -> None:
        lines[1]["resps"] = [[[-1.5, False]], [[-0.2, True]]]

    path = altered(tmp_path, loglikelihood)
    assert refusal(path, bank) == [
        f"{path}:2: doc_id 1: resps is not one request's generated texts (a generate_until "
        "task) [lm-eval-resps]"
    ]
    twice = '{"doc_id": 8, "doc_id": 9}\n'
    path.write_text(PLAIN.read_text("utf-8") + twice + '{"doc_id": 9,\n', "utf-8")
    assert refusal(path, bank) == [
        f'{path}:9: duplicate key "doc_id" [duplicate-key]',
        f"{path}:10: invalid JSON: EOF while parsing a value (column 13) [syntax]",
    ]


def test_held_out_docs_are_checked_against_the_private_text(bank: Bank, tmp_path: Path) -> None:
    item = sorted(bank.heldout)[0]
    prompt = bank.private[item].prompt
    assert isinstance(prompt, str)

    def to_heldout(lines: list[dict[str, Any]]) -> None:
        for line in lines:
            line["doc"] = {"id": item, "prompt": prompt, "target": "x"}
            line["doc_hash"], line["prompt_hash"] = doc_hash(line["doc"]), sha(prompt)
        lines[:] = lines[:1]

    rows = read_lm_eval_samples([altered(tmp_path, to_heldout)], bank, Declared(), "acme/m-1")
    assert [(r.item, r.response) for r in rows] == [(item, "lol")]


def test_the_command_writes_rows_and_escapes_names(root: Path, tmp_path: Path) -> None:
    out = root / "rows.jsonl"
    result = run_cli(root, "lm-eval", str(PLAIN), "--candidate", "acme/m-1", "--rows-out", str(out))
    assert result.exit_code == 0, result.stderr
    assert len(out.read_text("utf-8").splitlines()) == 4
    missing = run_cli(root, "lm-eval", str(PLAIN))
    assert missing.exit_code == 2 and "--candidate" in missing.stderr

    def hostile(lines: list[dict[str, Any]]) -> None:
        lines[0]["doc"]["id"] = "\x1b]0;owned\x07"
        lines[0]["doc_hash"] = doc_hash(lines[0]["doc"])

    result = run_cli(root, "lm-eval", str(altered(tmp_path, hostile)), "--candidate", "a")
    assert result.exit_code == 2 and "Traceback" not in result.stderr
    assert "\x1b" not in result.stderr and "\x07" not in result.stderr
    assert "'\\x1b]0;owned\\x07' is not an item of the bank" in result.stderr


def test_declared_doc_fields(root: Path, tmp_path: Path) -> None:
    def rename(lines: list[dict[str, Any]]) -> None:
        for line in lines:
            doc = line["doc"]
            line["doc"] = {"probe": doc["id"], "question": doc["prompt"], "target": doc["target"]}
            line["doc_hash"] = doc_hash(line["doc"])

    path = altered(tmp_path, rename)
    plain = run_cli(root, "lm-eval", str(path), "--candidate", "a")
    assert plain.exit_code == 2
    assert "doc_id 0: the doc has no text 'id' field naming its bank item" in plain.stderr
    fields = ("--id-field", "probe", "--prompt-field", "question")
    declared = run_cli(root, "lm-eval", str(path), "--candidate", "a", *fields)
    assert declared.exit_code == 0, declared.stderr
    assert "checked: 4 draws of 4 items from 1 log, 0 lost" in declared.stderr


@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    lines=st.lists(
        st.one_of(
            st.binary(max_size=80),
            st.sampled_from(PLAIN.read_bytes().split(b"\n")).map(
                lambda line: line.replace(b'"lol"', b"[1]").replace(
                    b'"doc_id": 1', b'"doc_id": "1"'
                )
            ),
            st.sampled_from(PLAIN.read_bytes().split(b"\n")),
        ),
        max_size=6,
    )
)
def test_any_bytes_give_rows_or_a_refusal(bank: Bank, tmp_path: Path, lines: list[bytes]) -> None:
    path = tmp_path / "fuzz.jsonl"
    path.write_bytes(b"\n".join(lines))
    try:
        rows = read_lm_eval_samples([path], bank, Declared(), "acme/m-1")
    except InputError as exc:
        assert exc.problems
        assert all(p.path == str(path) for p in exc.problems)
    else:
        assert {r.item for r in rows} <= set(ITEMS)


def test_volume_and_manifest_write_the_sealed_bundle_in_one_command(tmp_path: Path) -> None:
    from tests.importing.factories import fill_volume, init, manifest, run

    root = tmp_path / "root"
    init(root, "ambiguity", "arithmetic", "false-premises", "sycophancy")
    items = DATA.parent / "inspect" / "items.jsonl"  # the example's items, as imported
    assert run(root, "import", "items", str(items)).exit_code == 0
    panel = [("upper/exact_match", "upper"), ("judge-b", "bb"), ("judge-c", "cc")]
    fill_volume(
        root, grader=("none/exact_match", "none"), panel=panel, candidates=[("acme/m-1", "M")]
    )
    judges = ["none/exact_match", *(api for api, _ in panel)]
    inputs = manifest(tmp_path / "manifest.yaml", ["acme/m-1"], judges)
    args = ["import", "lm-eval", str(PLAIN), "--candidate", "acme/m-1", "--volume", "vol-001"]
    result = run(
        root, *args, "--manifest", str(inputs), "--pass-label", "1.0", "--fail-label", "0.0"
    )
    assert result.exit_code == 0, result.output
    assert "vol-001: wrote 1 bundle(s), 4 draws, 3 panel votes" in result.output
    bundle = root / "bundles" / "vol-001" / "acme-m-1"
    verdicts = [json.loads(x) for x in (bundle / "verdicts.jsonl").read_text().splitlines()]
    # none/exact_match is the grader; arith-002 (Tier 0) is decided by its check on "lol".
    assert [(v["item"], v["verdict"]) for v in verdicts] == [
        ("ambig-001", "fail"),
        ("ambig-002", "pass"),
        ("arith-002", "fail"),
        ("premise-001", "pass"),
    ]
