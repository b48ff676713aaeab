"""The example's held-out items, composed at run time by the recipes of ``data/heldout.yaml``."""

from __future__ import annotations

import ast
import datetime as dt
import random
import re
from collections.abc import Callable, Sequence
from decimal import ROUND_HALF_UP, Decimal
from functools import cache, partial
from types import CodeType
from typing import Any

from generator.demo import read_data

__all__ = ["Item", "heldout_items", "heldout_reference", "heldout_response"]

Item = dict[str, Any]

_FORMS = ("t", "if", "case", "pick", "some", "join", "chat")
_NAME = re.compile(r"\{(\w+)\}")
_SPACE_BEFORE_PUNCT = re.compile(r"[ \t]+(?=[,.;:!?])")
_SPACE_RUN = re.compile(r"(?<=\S)[ \t]{2,}")

# The syntax an expression may use: no lambdas, no assignment, no attribute outside _METHODS.
_NODES = (
    ast.Expression, ast.Constant, ast.Name, ast.Load, ast.Store, ast.BinOp, ast.operator,
    ast.UnaryOp, ast.unaryop, ast.BoolOp, ast.boolop, ast.Compare, ast.cmpop, ast.IfExp,
    ast.Call, ast.keyword, ast.Subscript, ast.Slice, ast.Tuple, ast.List, ast.Dict,
    ast.ListComp, ast.GeneratorExp, ast.comprehension, ast.JoinedStr, ast.FormattedValue,
    ast.Attribute,
)  # fmt: skip
_METHODS = frozenset({"join", "upper", "lower", "capitalize", "replace", "split"})
_BUILTINS: dict[str, Any] = {
    f.__name__: f for f in (str, int, len, round, sorted, enumerate, range)
}
_KIND = frozenset({"id", "category", "tier", "make", "answer", "added_in", "known_wrong"})


@cache
def _recipes() -> dict[str, Any]:
    """``data/heldout.yaml``, each of its ``kinds`` checked for unknown keys."""
    data: dict[str, Any] = read_data("heldout.yaml")
    for kind in data["kinds"]:
        if not kind.keys() <= _KIND:  # a misspelt key must fail, not vanish
            raise ValueError(f"held-out kind {kind['id']}: unknown {sorted(kind.keys() - _KIND)}")
    return data


@cache
def _compiled(source: str) -> CodeType:
    """An expression of a recipe, refused if it uses syntax outside the closed set."""
    tree = ast.parse(source, mode="eval")
    for node in ast.walk(tree):
        allowed = isinstance(node, _NODES)
        if isinstance(node, ast.Attribute):
            allowed = node.attr in _METHODS
        if isinstance(node, ast.Name):
            allowed = node.id == "_" or not node.id.startswith("_")
        if not allowed:
            raise ValueError(f"held-out recipe expression {source!r}: {type(node).__name__}")
    return compile(tree, "<heldout.yaml>", "eval")


def _tidy(text: str) -> str:
    """A filled template without spaces before punctuation, doubled or at either end."""
    return _SPACE_RUN.sub(" ", _SPACE_BEFORE_PUNCT.sub("", text)).strip()


class _Composer:
    """Evaluates recipes against one environment of bound names and one generator."""

    def __init__(self, rng: random.Random, bound: dict[str, Any]) -> None:
        self.rng = rng
        self.env: dict[str, Any] = {"__builtins__": {}, **_BUILTINS, **_recipes()["tables"]}
        self.env.update(self._functions())
        self.env.update({name: partial(self.value, c) for name, c in _recipes()["calls"].items()})
        self.env.update(bound)
        self.bound = dict(bound)

    def pick(self, options: Sequence[Any]) -> Any:
        """One of ``options``, drawn from the generator."""
        return options[self.rng.randrange(len(options))]

    def _functions(self) -> dict[str, Callable[..., Any]]:
        """What an expression may call besides a few builtins."""
        rng, tables = self.rng, _recipes()["tables"]  # every draw from the caller's generator
        return {
            "pick": self.pick,
            **{name: getattr(rng, name) for name in ("randint", "randrange", "random", "sample")},
            "compose": self.value,
            "dec": Decimal,
            "cents": lambda value: value.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP),
            "tenths": lambda value: value.quantize(Decimal("0.1"), rounding=ROUND_HALF_UP),
            "escape": re.escape,
            "weekday": lambda y, m, d: tables["weekdays"][dt.date(y, m, d).weekday()],
        }

    def value(self, spec: Any) -> Any:
        """The value of one entry of a recipe (see the header of ``data/heldout.yaml``)."""
        if isinstance(spec, str):
            if spec.startswith("="):
                return eval(_compiled(spec[1:]), self.env)  # closed syntax: _compiled
            return _NAME.sub(lambda m: str(self.env[m.group(1)]), spec)
        if isinstance(spec, list):
            return [self.value(element) for element in spec]
        if not isinstance(spec, dict):
            return spec
        form = next((key for key in _FORMS if key in spec), None)
        if form is None:
            return self.block(spec)
        return getattr(self, "_" + form)(spec)

    def block(self, spec: dict[str, Any]) -> Any:
        """Evaluate each entry in order, binding its name; the last entry's value."""
        result: Any = None
        for name, entry in spec.items():
            result = self.env[name] = self.bound[name] = self.value(entry)
        return result

    def _t(self, spec: dict[str, Any]) -> str:
        slots = {name: self.value(v) for name, v in spec.items() if name != "t"}

        def one(match: re.Match[str]) -> str:
            name = match.group(1)
            if name not in slots:
                return str(self.env[name])
            chosen = slots[name]
            return str(self.pick(chosen) if isinstance(chosen, list | tuple) else chosen)

        return _tidy(_NAME.sub(one, spec["t"]))

    def _if(self, spec: dict[str, Any]) -> Any:
        return self.value(spec["then"] if self.value("=" + spec["if"]) else spec["else"])

    def _case(self, spec: dict[str, Any]) -> Any:
        return self.value(spec["of"][self.value("=" + spec["case"])])

    def _pick(self, spec: dict[str, Any]) -> Any:
        return self.pick(self.value(spec["pick"]))

    def _some(self, spec: dict[str, Any]) -> str:
        sentences = self.value(spec["some"])
        count = self.rng.randint(spec["min"], min(spec["max"], len(sentences)))
        chosen = sorted(self.rng.sample(range(len(sentences)), count))
        return " ".join(sentences[i] for i in chosen)

    def _join(self, spec: dict[str, Any]) -> str:
        return " ".join(part for part in self.value(spec["join"]) if part)

    def _chat(self, spec: dict[str, Any]) -> list[dict[str, str]]:
        roles = ("user", "assistant")
        turns = self.value(spec["chat"])
        return [{"role": roles[n % 2], "content": text} for n, text in enumerate(turns)]


def _kind_of(item_id: str) -> dict[str, Any]:
    kind: dict[str, Any]
    for kind in _recipes()["kinds"]:
        if item_id == kind["id"] or item_id.startswith(kind["id"] + "-"):
            return kind
    raise KeyError(f"{item_id!r} is not a held-out item of the example bank")


def heldout_items(rng: random.Random) -> list[Item]:
    """The example bank's held-out items in id order, as the bank reads them, plus ``slots``."""
    items = []
    for kind in _recipes()["kinds"]:
        composer = _Composer(rng, {})
        composer.block(kind["make"])
        slots = composer.bound
        item: Item = {
            **{k: kind[k] for k in ("id", "category", "tier")},
            "added_in": kind.get("added_in", "v1"),
            "status": "validated",
            "prompt": slots["prompt"],
            "pass_criterion": slots["criterion"],
            "sources": list(_recipes()["sources"]),
            "slots": slots,
        }
        if "check" in slots:
            item["check"] = slots["check"]
        if "rubric" in slots:
            item.update(schema_version=2, rubric={"lines": slots["rubric"]})
        items.append(item)
    return items


def heldout_response(item: Item, passed: bool, rng: random.Random) -> str:
    """An answer to ``item`` (or an item derived from it) that meets its criterion or not.

    Raises:
        KeyError: ``item`` is not a held-out item of this bank.
    """
    kind = _kind_of(item["id"])
    return str(_Composer(rng, {**item["slots"], "passed": passed}).block(kind["answer"]))


def heldout_reference(item: Item, rng: random.Random) -> dict[str, Any]:
    """The item's ``reference``: a passing answer and its kind's known-wrong answers.

    Raises:
        KeyError: ``item`` is not a held-out item of this bank.
    """
    wrong = _Composer(rng, {**item["slots"], "passed": False})
    wrongs = _kind_of(item["id"]).get("known_wrong", ())
    known = [{"answer": str(wrong.value(w["answer"])), "rule": w["rule"]} for w in wrongs]
    reference = {"answer": heldout_response(item, True, rng)}
    return {**reference, "known_wrong": known} if known else reference
