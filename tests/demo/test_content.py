"""Content of the example bank: the public items (YAML) and the held-out generator."""

from __future__ import annotations

import random
import re
import sys
from collections import Counter
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import yaml
from pydantic import TypeAdapter

from generator.demo import heldout
from generator.models.bank import BankItem, Check
from generator.tier0 import run_check

DEMO = Path(__file__).resolve().parents[2] / "generator" / "demo"
PUBLIC_YAML = DEMO / "data" / "public_items.yaml"
HELDOUT_PACKAGE = DEMO / "heldout"

CATEGORIES = (
    "arithmetic",
    "multi-part-instructions",
    "honesty",
    "false-premises",
    "prompt-injection",
    "sycophancy",
    "live-data",
    "safety",
    "ambiguity",
    "overclaim",
    "impossible-specifics",
    "provenance",
    "attribution",
)
STEPS = ("draft", "reviewed", "validated")
SEEDS = range(60)
LEAK_SEEDS = range(8)
RUN = 6
"""No run of this many generated tokens may occur in the sources (the gate uses more)."""

_CHECK = TypeAdapter(Check)
_TOKEN = re.compile(r"[^\W_]+")


@cache
def public_items() -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = yaml.safe_load(PUBLIC_YAML.read_text("utf-8"))
    return items


def heldout_sources() -> list[Path]:
    """Every module of the held-out package, so a module added later is scanned too."""
    return sorted(HELDOUT_PACKAGE.rglob("*.py"))


def held(seed: int) -> list[dict[str, Any]]:
    return heldout.heldout_items(random.Random(seed))


def as_bank_item(raw: dict[str, Any]) -> BankItem:
    """Validate an entry with the fields the builder derives filled in."""
    reached = STEPS[: STEPS.index(raw["status"]) + 1]
    data = {key: value for key, value in raw.items() if key != "responses"}
    data["core"] = raw["added_in"] == "v1"
    data["validation"] = [
        {"status": status, "by": "reviewer", "on": f"2025-01-0{n + 1}"}
        for n, status in enumerate(reached)
    ]
    data["text_sha256"] = "0" * 64
    return BankItem.model_validate(data)


def prompt_texts(prompt: str | list[dict[str, str]]) -> list[str]:
    return [prompt] if isinstance(prompt, str) else [m["content"] for m in prompt]


# -------------------------------------------------------------------------- public items


def test_public_counts_per_version_tier_and_status() -> None:
    items = public_items()
    assert len(items) == 45
    versions = Counter(item["added_in"] for item in items)
    assert versions == {"v1": 35, "v1.1": 2, "v1.2": 8}
    core_tier0 = [i for i in items if i["added_in"] == "v1" and i["tier"] == 0]
    assert len(core_tier0) == 9
    statuses = Counter(item["status"] for item in items if item["added_in"] == "v1.2")
    assert statuses == {"validated": 5, "reviewed": 2, "draft": 1}
    assert all(item["status"] == "validated" for item in items if item["added_in"] != "v1.2")


def test_public_core_spreads_over_all_categories() -> None:
    per_category = Counter(i["category"] for i in public_items() if i["added_in"] == "v1")
    assert set(per_category) == set(CATEGORIES)
    assert all(2 <= count <= 4 for count in per_category.values()), per_category


@pytest.mark.parametrize("raw", public_items(), ids=lambda raw: raw["id"])
def test_public_item_validates_as_bank_item(raw: dict[str, Any]) -> None:
    item = as_bank_item(raw)
    assert item.category in CATEGORIES
    assert (item.check is not None) == (item.tier == 0)
    assert item.sources


@pytest.mark.parametrize("raw", public_items(), ids=lambda raw: raw["id"])
def test_public_item_has_three_to_five_answers_of_each_kind(raw: dict[str, Any]) -> None:
    responses = raw["responses"]
    assert set(responses) == {"pass", "fail"}
    for kind in ("pass", "fail"):
        assert 3 <= len(responses[kind]) <= 5
        assert all(isinstance(text, str) for text in responses[kind])
    assert all(text.strip() for text in responses["pass"]), "an empty answer never passes"


@pytest.mark.parametrize(
    "raw", [r for r in public_items() if r["tier"] == 0], ids=lambda raw: raw["id"]
)
def test_public_tier0_answers_agree_with_the_check(raw: dict[str, Any]) -> None:
    check = _CHECK.validate_python(raw["check"])
    for text in raw["responses"]["pass"]:
        assert run_check(check, text), f"pass answer fails its check: {text!r}"
    for text in raw["responses"]["fail"]:
        assert not run_check(check, text), f"fail answer passes its check: {text!r}"


def test_public_answers_cover_the_shapes_a_renderer_must_handle() -> None:
    answers = [t for i in public_items() for k in ("pass", "fail") for t in i["responses"][k]]
    fails = [t for i in public_items() for t in i["responses"]["fail"]]
    assert "" in fails
    assert "I can't help with that." in answers
    assert any("```" in t for t in answers)
    assert any(re.search(r"^\|.*\|$", t, re.MULTILINE) for t in answers)
    assert any(re.search(r"^\s*(?:[-*]|\d+\.) ", t, re.MULTILINE) for t in answers)
    assert any("“" in t for t in answers) and any('"' in t for t in answers)
    assert any("<script>" in t for t in answers)
    assert any("</style>" in t for t in answers)
    assert any("javascript:" in t for t in answers)
    for script in (r"[\u0370-\u03ff]", r"[\u0400-\u04ff]", r"[\u0600-\u06ff]", r"[\u3040-\u30ff]"):
        assert any(re.search(script, t) for t in answers), script
    assert any(len(t.split()) >= 120 and "\n\n" in t for t in answers)
    assert any(0 < len(t.split()) <= 3 for t in answers)


# ------------------------------------------------------------------------------- held out


def test_heldout_counts_and_metadata() -> None:
    items = held(0)
    assert len(items) == 28
    assert all(i["added_in"] == "v1" and i["status"] == "validated" for i in items)
    assert sum(i["tier"] == 0 for i in items) == 6
    assert {i["category"] for i in items} == set(CATEGORIES)
    for item in items:
        assert ("check" in item) == (item["tier"] == 0)


@pytest.mark.parametrize("seed", range(5))
def test_heldout_items_validate_as_bank_items(seed: int) -> None:
    for raw in held(seed):
        as_bank_item(raw)


def test_ids_are_unique_across_public_and_heldout() -> None:
    ids = [i["id"] for i in public_items()] + [i["id"] for i in held(0)]
    assert len(ids) == len(set(ids))
    assert all(re.fullmatch(r"[a-z0-9]+(?:-[a-z0-9]+)*", i) for i in ids)
    assert [i["id"] for i in held(0)] == [i["id"] for i in held(1)]


def test_heldout_tier0_answers_agree_with_the_check_over_many_seeds() -> None:
    for seed in SEEDS:
        rng = random.Random(f"answers-{seed}")
        for item in held(seed):
            if item["tier"] != 0:
                continue
            check = _CHECK.validate_python(item["check"])
            for _ in range(4):
                good = heldout.heldout_response(item, True, rng)
                bad = heldout.heldout_response(item, False, rng)
                assert run_check(check, good), (item["id"], seed, good)
                assert not run_check(check, bad), (item["id"], seed, bad)


def test_heldout_answers_are_varied() -> None:
    rng = random.Random(7)
    for item in held(7):
        answers = {heldout.heldout_response(item, p, rng) for p in (True, False) * 10}
        assert len(answers) >= 4, item["id"]
        assert all(heldout.heldout_response(item, True, rng).strip() for _ in range(5))
    lengths = [
        len(heldout.heldout_response(item, p, rng).split())
        for item in held(8)
        for p in (True, False)
    ]
    assert min(lengths) <= 3 and max(lengths) >= 35


def test_heldout_generation_is_deterministic() -> None:
    def run(seed: int) -> list[Any]:
        items = held(seed)
        rng = random.Random(seed)
        return [items, [heldout.heldout_response(i, n % 2 == 0, rng) for n, i in enumerate(items)]]

    assert run(3) == run(3)
    assert run(3) != run(4)


def test_heldout_uses_only_the_given_generator(monkeypatch: pytest.MonkeyPatch) -> None:
    def forbidden(*args: object, **kwargs: object) -> None:
        raise AssertionError("the module-level random generator was used")

    for name in ("random", "randint", "randrange", "choice", "choices", "sample", "shuffle"):
        monkeypatch.setattr(random, name, forbidden)
    rng = random.Random(11)
    for item in heldout.heldout_items(rng):
        heldout.heldout_response(item, True, rng)
        heldout.heldout_response(item, False, rng)


def test_heldout_answers_derived_items_like_their_original() -> None:
    rng = random.Random(5)
    for item in held(5):
        variant = dict(item, id=item["id"] + "-r2")
        if isinstance(item["prompt"], str):
            variant["prompt"] = item["prompt"] + " (variant 2)"
        else:
            last = item["prompt"][-1]
            variant["prompt"] = [
                *item["prompt"][:-1],
                dict(last, content=last["content"] + " (v 2)"),
            ]
        for passed in (True, False):
            answer = heldout.heldout_response(variant, passed, rng)
            if item["tier"] == 0:
                assert run_check(_CHECK.validate_python(item["check"]), answer) == passed


def test_heldout_response_rejects_unknown_items() -> None:
    with pytest.raises(KeyError):
        heldout.heldout_response({"id": "arith-001"}, True, random.Random(0))


# ------------------------------------------------------------------ held-out text leaks


def tokens(text: str) -> list[str]:
    return _TOKEN.findall(text.casefold())


def generated_texts(seed: int) -> Iterator[tuple[str, str]]:
    rng = random.Random(f"leak-{seed}")
    for item in held(seed):
        for text in prompt_texts(item["prompt"]):
            yield item["id"], text
        yield item["id"], item["pass_criterion"]
        for passed in (True, False) * 4:
            yield item["id"], heldout.heldout_response(item, passed, rng)


@cache
def source_runs() -> tuple[frozenset[tuple[str, ...]], frozenset[tuple[str, ...]], str]:
    """Token runs of length RUN and RUN - 1, and the canonical text, of every source."""
    long_runs: set[tuple[str, ...]] = set()
    short_runs: set[tuple[str, ...]] = set()
    canon = []
    for path in (*heldout_sources(), PUBLIC_YAML):
        words = tokens(path.read_text("utf-8"))
        long_runs.update(tuple(words[n : n + RUN]) for n in range(len(words) - RUN + 1))
        short_runs.update(tuple(words[n : n + RUN - 1]) for n in range(len(words) - RUN + 2))
        canon.append(" ".join(words))
    return frozenset(long_runs), frozenset(short_runs), "\n".join(canon)


def test_the_leak_check_reads_every_heldout_module() -> None:
    package = heldout.__name__
    loaded = {
        Path(module.__file__).resolve()
        for name, module in sys.modules.items()
        if (name == package or name.startswith(package + ".")) and module.__file__
    }
    assert len(loaded) > 1, loaded
    assert loaded <= set(heldout_sources()), loaded - set(heldout_sources())


@pytest.mark.parametrize("seed", LEAK_SEEDS)
def test_no_run_of_heldout_text_occurs_in_the_sources(seed: int) -> None:
    long_runs, short_runs, canon = source_runs()
    for item_id, text in generated_texts(seed):
        words = tokens(text)
        if len(words) == RUN - 1:
            # Short texts are matched whole by the gate; five words must not match either.
            assert tuple(words) not in short_runs, (item_id, text)
        for n in range(len(words) - RUN + 1):
            run = tuple(words[n : n + RUN])
            assert run not in long_runs, (item_id, " ".join(run))
        joined = " ".join(words)
        for n in range(0, len(joined) - 49, 5):
            assert joined[n : n + 50] not in canon, (item_id, joined[n : n + 50])
