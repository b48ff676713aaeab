"""Fragments every held-out category shares: slot filling, text lookups and word lists.

Like the category modules, this one keeps only short fragments: no literal stretch
longer than five words, so no run of six generated words occurs in it.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence
from decimal import ROUND_HALF_UP, Decimal
from typing import Any, NamedTuple, TypeVar

Item = dict[str, Any]
Slot = str | int | Sequence[str]
T = TypeVar("T")

_SLOT = re.compile(r"\{(z\d+)\}")
_SPACE_BEFORE_PUNCT = re.compile(r"[ \t]+(?=[,.;:!?])")
_SPACE_RUN = re.compile(r"(?<=\S)[ \t]{2,}")


class Made(NamedTuple):
    """What a category's ``make_*`` function composes: prompt, criterion and check."""

    prompt: str | list[dict[str, str]]
    criterion: str
    check: dict[str, Any] | None = None


class Kind(NamedTuple):
    """One held-out item of the registry: its metadata and the functions behind it."""

    id: str
    category: str
    tier: int
    make: Callable[[random.Random], Made]
    answer: Callable[[Item, bool, random.Random], str]


# ----------------------------------------------------------------------------- helpers


def pick(rng: random.Random, options: Sequence[T]) -> T:
    """One of the options, drawn with a single ``randrange`` call."""
    return options[rng.randrange(len(options))]


def fill(rng: random.Random, template: str, **slots: Slot) -> str:
    """The template with each ``{zN}`` replaced by its value or by one of its options."""

    def one(match: re.Match[str]) -> str:
        value = slots[match.group(1)]
        if isinstance(value, int):
            return str(value)
        if isinstance(value, str):
            return value
        return pick(rng, value)

    text = _SLOT.sub(one, template)
    return _SPACE_RUN.sub(" ", _SPACE_BEFORE_PUNCT.sub("", text)).strip()


def some(rng: random.Random, sentences: Sequence[str], low: int, high: int) -> str:
    """Between ``low`` and ``high`` of the sentences, in their order, joined by spaces."""
    count = rng.randint(low, min(high, len(sentences)))
    chosen = sorted(rng.sample(range(len(sentences)), count))
    return " ".join(sentences[i] for i in chosen)


def join(*parts: str) -> str:
    """The non-empty parts joined by spaces."""
    return " ".join(part for part in parts if part)


def find(pattern: str, text: str) -> re.Match[str]:
    """The first match of ``pattern`` in an item's text, which must have one."""
    found = re.search(pattern, text)
    if found is None:
        raise ValueError(f"held-out item text does not match {pattern!r}")
    return found


def which(options: Sequence[str], text: str) -> str:
    """The first option that occurs in ``text``."""
    for option in options:
        if option in text:
            return option
    raise ValueError("held-out item text names none of the expected options")


def prompt_text(item: Item) -> str:
    """The whole prompt of an item; a chat's messages joined by newlines."""
    prompt = item["prompt"]
    if isinstance(prompt, str):
        return prompt
    return "\n".join(str(message["content"]) for message in prompt)


def first_message(item: Item) -> str:
    """The prompt of an item, or the first message of a chat."""
    prompt = item["prompt"]
    return prompt if isinstance(prompt, str) else str(prompt[0]["content"])


def chat(*turns: str) -> list[dict[str, str]]:
    """A chat prompt whose turns alternate user, assistant, user …"""
    roles = ("user", "assistant")
    return [{"role": roles[n % 2], "content": text} for n, text in enumerate(turns)]


def cents(value: Decimal) -> Decimal:
    """Rounded half up to two decimal places."""
    return value.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)


def tenths(value: Decimal) -> Decimal:
    """Rounded half up to one decimal place."""
    return value.quantize(Decimal("0.1"), rounding=ROUND_HALF_UP)


# ---------------------------------------------------------------------------- word lists

FIRST_NAMES = (
    "Amara",
    "Tomasz",
    "Ines",
    "Kenji",
    "Olu",
    "Freya",
    "Mateo",
    "Priya",
    "Sven",
    "Leila",
    "Dmitri",
    "Noor",
    "Hana",
    "Rafael",
    "Elif",
    "Kwame",
)
LAST_NAMES = (
    "Okafor",
    "Lindqvist",
    "Moreau",
    "Tanaka",
    "Castellano",
    "Novak",
    "Haddad",
    "Brennan",
    "Achterberg",
    "Varga",
    "Osei",
    "Rahimi",
)
_HEADS = (
    "Quell",
    "Vask",
    "Ombry",
    "Tarrow",
    "Pellin",
    "Drace",
    "Hessel",
    "Corran",
    "Lisk",
    "Brannock",
    "Ferrow",
    "Isen",
)
_TAILS = ("mere", "ford", "haven", "stead", "wick", "mouth", "dale", "bury", "holm")
MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")

# Country, a city often taken for its capital (never the national capital), the capital.
CAPITALS = (
    ("Australia", "Sydney", "Canberra"),
    ("Morocco", "Casablanca", "Rabat"),
    ("India", "Mumbai", "New Delhi"),
    ("Switzerland", "Zurich", "Bern"),
    ("China", "Shanghai", "Beijing"),
    ("Canada", "Vancouver", "Ottawa"),
    ("Germany", "Munich", "Berlin"),
)


def town_name(rng: random.Random) -> str:
    """A made-up town, a head and a tail joined (``Quellford``)."""
    return pick(rng, _HEADS) + pick(rng, _TAILS)


def person_name(rng: random.Random) -> str:
    """A first and a last name."""
    return f"{pick(rng, FIRST_NAMES)} {pick(rng, LAST_NAMES)}"


def day_month(rng: random.Random) -> str:
    """A day of the month (1–28) and a month name: ``14 March``."""
    return f"{rng.randint(1, 28)} {pick(rng, MONTHS)}"
