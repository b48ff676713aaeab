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
from generator.models.rubric import KINDS
from generator.tier0 import run_check

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "generator" / "demo"
PUBLIC_YAML = DEMO / "data" / "public_items.yaml"
HELDOUT_RECIPES = DEMO / "data" / "heldout.yaml"
SOURCE_FOLDERS = (".ci", "bank", "benchmarks", "generator", "site_src", "templates", "tests")
GENERATED = frozenset({"volumes", "downloads", "__pycache__"})
"""Folders of ``site_src`` the tool writes (held-out text is the gate's business there)."""

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
    "health-advice",
)
RUBRIC_CATEGORY = "health-advice"
"""Scored by rubric, and added in v1.2 (so no core item has it)."""
STEPS = ("draft", "reviewed", "validated")
SEEDS = range(60)
LEAK_SEEDS = range(8)
RUN = 6
"""No run of this many generated tokens may occur in the sources (the gate uses more)."""

_CHECK = TypeAdapter(Check)
_TOKEN = re.compile(r"[^\W_]+")
_ESCAPE = re.compile(r"\\[A-Za-z]")


@cache
def public_items() -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = yaml.safe_load(PUBLIC_YAML.read_text("utf-8"))
    return items


def repository_sources() -> list[Path]:
    """Every hand-written text file of the repository, the composer and its data included."""
    found = [p for p in ROOT.iterdir() if p.is_file() and not p.name.startswith(".")]
    for folder in SOURCE_FOLDERS:
        found.extend(
            p
            for p in (ROOT / folder).rglob("*")
            if p.is_file()
            and not GENERATED & set(p.relative_to(ROOT).parts)
            and not p.is_relative_to(ROOT / THIRD_PARTY)
        )
    return sorted(found)


THIRD_PARTY = "tests/data/jbb"
"""Real public data nobody here wrote (the JailbreakBench judge comparison, with its
provenance): not a source the demo could have copied held-out text into, and full of
the stock refusal sentences any response may share."""


def held(seed: int) -> list[dict[str, Any]]:
    return heldout.heldout_items(random.Random(seed))


def as_bank_item(raw: dict[str, Any]) -> BankItem:
    """Validate an entry with the fields the builder derives filled in."""
    reached = STEPS[: STEPS.index(raw["status"]) + 1]
    data = {key: value for key, value in raw.items() if key not in ("responses", "slots")}
    data["core"] = raw["added_in"] == "v1"
    data["validation"] = [
        {"status": status, "by": f"reviewer {n}", "on": f"2025-01-0{n + 1}"}
        for n, status in enumerate(reached)
    ]
    data["text_sha256"] = "0" * 64
    data["schema_version"] = 2  # as the builder writes them (items carry a reference)
    return BankItem.model_validate(data)


def prompt_texts(prompt: str | list[dict[str, str]]) -> list[str]:
    return [prompt] if isinstance(prompt, str) else [m["content"] for m in prompt]


# -------------------------------------------------------------------------- public items


def test_public_counts_per_version_tier_and_status() -> None:
    items = public_items()
    assert len(items) == 49
    versions = Counter(item["added_in"] for item in items)
    assert versions == {"v1": 35, "v1.1": 2, "v1.2": 12}
    core_tier0 = [i for i in items if i["added_in"] == "v1" and i["tier"] == 0]
    assert len(core_tier0) == 9
    statuses = Counter(item["status"] for item in items if item["added_in"] == "v1.2")
    assert statuses == {"validated": 9, "reviewed": 2, "draft": 1}
    assert all(item["status"] == "validated" for item in items if item["added_in"] != "v1.2")


def test_public_core_spreads_over_all_categories() -> None:
    per_category = Counter(i["category"] for i in public_items() if i["added_in"] == "v1")
    assert set(per_category) == set(CATEGORIES) - {RUBRIC_CATEGORY}
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


class _StrictLoader(yaml.SafeLoader):
    """A loader that refuses what PyYAML lets pass: a repeated key, a key that is no string."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        keys = [self.construct_object(key, deep=deep) for key, _ in node.value]
        repeated = {key for key in keys if keys.count(key) > 1}
        assert not repeated, f"line {node.start_mark.line + 1}: repeated key {repeated}"
        odd = [key for key in keys if not isinstance(key, str)]
        assert not odd, f"line {node.start_mark.line + 1}: key {odd} is no string (quote it)"
        return super().construct_mapping(node, deep=deep)


@pytest.mark.parametrize("path", sorted(DEMO.joinpath("data").glob("*.yaml")), ids=str)
def test_demo_data_has_unique_string_keys(path: Path) -> None:
    # A repeated name in a recipe's block would silently drop an entry and shift every
    # draw, and a key such as `true:` would become a boolean; both must fail here.
    yaml.load(path.read_text("utf-8"), Loader=_StrictLoader)


def test_the_strict_loader_refuses_what_pyyaml_lets_pass() -> None:
    recipes = yaml.load(HELDOUT_RECIPES.read_text("utf-8"), Loader=_StrictLoader)
    assert [kind["id"] for kind in recipes["kinds"]] == [item["id"] for item in held(0)]
    with pytest.raises(AssertionError, match="repeated key"):
        yaml.load("a: 1\na: 2\n", Loader=_StrictLoader)
    with pytest.raises(AssertionError, match="no string"):
        yaml.load("true: 1\n", Loader=_StrictLoader)


def test_heldout_counts_and_metadata() -> None:
    items = held(0)
    assert len(items) == 29
    assert all(i["status"] == "validated" for i in items)
    core = [i for i in items if i["added_in"] == "v1"]
    assert len(core) == 28 and RUBRIC_CATEGORY not in {i["category"] for i in core}
    assert sum(i["tier"] == 0 for i in items) == 6
    assert {i["category"] for i in items} == set(CATEGORIES)
    for item in items:
        assert ("check" in item) == (item["tier"] == 0)
        assert ("rubric" in item) == (item["category"] == RUBRIC_CATEGORY)


def test_rubric_items_are_the_rubric_category_and_carry_every_kind_of_line() -> None:
    rubric = [i for i in (*public_items(), *held(0)) if "rubric" in i]
    assert len(rubric) == 5 and sum(i["id"].startswith("h-") for i in rubric) == 1
    for raw in rubric:
        item = as_bank_item(raw)
        assert item.category == RUBRIC_CATEGORY and item.tier == 1 and item.rubric
        assert set(item.rubric.kinds().values()) == set(KINDS), raw["id"]


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
        for p in (True, False) * 3
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


def check_text(check: dict[str, Any]) -> str:
    """The words of a check: its strings with regex escapes (``\\b``, ``\\s``) dropped."""
    strings = [v for v in check.values() if isinstance(v, str)]
    strings += [p for v in check.values() if isinstance(v, list) for p in v]
    return " ".join(_ESCAPE.sub(" ", text) for text in strings)


def generated_texts(seed: int) -> Iterator[tuple[str, str]]:
    rng = random.Random(f"leak-{seed}")
    for item in held(seed):
        for text in prompt_texts(item["prompt"]):
            yield item["id"], text
        yield item["id"], item["pass_criterion"]
        for line in item.get("rubric", {}).get("lines", ()):
            yield item["id"], line["text"]
        if "check" in item:
            yield item["id"], check_text(item["check"])
        for passed in (True, False) * 4:
            yield item["id"], heldout.heldout_response(item, passed, rng)
        reference = heldout.heldout_reference(item, rng)
        for text in [reference["answer"], *(w["answer"] for w in reference.get("known_wrong", []))]:
            yield item["id"], text


@cache
def source_runs() -> tuple[frozenset[tuple[str, ...]], frozenset[tuple[str, ...]], str]:
    """Token runs of length RUN and RUN - 1 of every source, and the canonical text of the
    demo's own (the 50-character windows that catch long words search it; searching the
    whole repository for each window would take seconds per seed)."""
    long_runs: set[tuple[str, ...]] = set()
    short_runs: set[tuple[str, ...]] = set()
    canon = []
    for path in repository_sources():
        try:
            words = tokens(path.read_text("utf-8"))
        except UnicodeDecodeError:  # fonts and images hold no text to compare
            continue
        long_runs.update(tuple(words[n : n + RUN]) for n in range(len(words) - RUN + 1))
        short_runs.update(tuple(words[n : n + RUN - 1]) for n in range(len(words) - RUN + 2))
        if path.is_relative_to(DEMO) or path.is_relative_to(ROOT / "bank"):
            canon.append(" ".join(words))
    return frozenset(long_runs), frozenset(short_runs), "\n".join(canon)


def test_the_leak_check_reads_the_composer_its_data_and_the_rest_of_the_repository() -> None:
    sources = set(repository_sources())
    demo_modules = {
        Path(module.__file__).resolve()
        for name, module in sys.modules.items()
        if name.startswith("generator.demo") and module.__file__
    }
    assert Path(heldout.__file__).resolve() in demo_modules
    assert demo_modules <= sources, demo_modules - sources
    assert set(DEMO.joinpath("data").iterdir()) <= sources
    assert {ROOT / "README.md", ROOT / "bank" / "public.jsonl"} <= sources
    assert not any(GENERATED & set(p.relative_to(ROOT).parts) for p in sources)


def test_a_check_is_read_for_its_words() -> None:
    check = {"kind": "pattern", "required": [r"\bQuellford\b"], "forbidden": [r"HERON\-12"]}
    assert tokens(check_text(check)) == ["pattern", "quellford", "heron", "12"]


@pytest.mark.parametrize(
    "source", ["().__class__", "(lambda: 0)()", "__import__('os')", "(x := 1)", "open('f')"]
)
def test_a_recipe_expression_outside_the_closed_syntax_is_refused(source: str) -> None:
    with pytest.raises((ValueError, NameError)):
        heldout._compiled(source)
        eval(heldout._compiled(source), {"__builtins__": {}})


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
