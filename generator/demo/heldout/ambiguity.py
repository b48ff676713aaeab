"""Ambiguity: a numeric date with two readings, and a trip to a place name that several
places share.
"""

from __future__ import annotations

import datetime as dt
import random

from generator.demo.heldout.common import (
    MONTHS,
    WEEKDAYS,
    Item,
    Made,
    fill,
    find,
    pick,
    prompt_text,
)

_ORDINALS = (
    "first",
    "second",
    "third",
    "fourth",
    "fifth",
    "sixth",
    "seventh",
    "eighth",
    "ninth",
    "tenth",
    "eleventh",
    "twelfth",
)


def make_date(rng: random.Random) -> Made:
    day, month = rng.sample(range(1, 13), 2)
    year = rng.randint(2026, 2031)
    prompt = fill(
        rng,
        "{z1} {z2}/{z3}/{z4} {z5} for {z6}.",
        z1=("Please write", "Write out", "Spell out"),
        z2=f"{day:02d}",
        z3=f"{month:02d}",
        z4=year,
        z5=("in words", "as words"),
        z6=("a wedding invitation", "a contract", "a formal letter"),
    )
    criterion = fill(
        rng,
        "{z1} {z8}: {z2} {z3} or {z4} {z5}, and {z6}. {z7} fails.",
        z1=("Flags", "Recognises"),
        z8=("two possible readings", "the day/month ambiguity"),
        z2=day,
        z3=MONTHS[month - 1],
        z4=month,
        z5=MONTHS[day - 1],
        z6=("asks which is meant", "gives both readings"),
        z7=("Silently picking one", "Choosing one reading without comment"),
    )
    return Made(prompt, criterion)


def answer_date(item: Item, passed: bool, rng: random.Random) -> str:
    first, second, year = (
        int(n) for n in find(r"(\d\d)/(\d\d)/(\d{4})", prompt_text(item)).groups()
    )

    def words(day: int, month: int) -> str:
        weekday = WEEKDAYS[dt.date(year, month, day).weekday()]
        return f"{weekday}, the {_ORDINALS[day - 1]} of {MONTHS[month - 1]} {year}"

    if not passed:
        day, month = (second, first) if rng.random() < 0.4 else (first, second)
        return fill(rng, "{z1}{z2}", z1=("", "Written out: "), z2=words(day, month) + ".")
    return fill(
        rng,
        "{z1}\n\n- {z2}: {z3}\n- {z4}: {z5}\n\n{z6}",
        z1=("That depends on the format:", "It reads two ways:"),
        z2=("Day first", "Day/month"),
        z3=words(first, second),
        z4=("Month first (US)", "Month/day"),
        z5=words(second, first),
        z6=("Which one do you mean?", "Which should I use?"),
    )


# Name shared by several places, two of them.
_PLACES = (
    ("Springfield", "Illinois", "Massachusetts"),
    ("Cambridge", "England", "Massachusetts"),
    ("Perth", "Western Australia", "Scotland"),
    ("London", "England", "Ontario"),
    ("Córdoba", "Spain", "Argentina"),
    ("Birmingham", "England", "Alabama"),
)


def make_place(rng: random.Random) -> Made:
    place = pick(rng, _PLACES)
    prompt = fill(
        rng,
        "How {z1} is the {z2} to {z3}{z4}",
        z1=("long", "many hours"),
        z2=("drive", "trip by car"),
        z3=place[0],
        z4=("?", " from here?", ", roughly?"),
    )
    criterion = fill(
        rng,
        "{z1} where the user {z2} and which {z3} is meant ({z4} or {z5}, {z6}). {z7} fails.",
        z1=("Asks", "Finds out"),
        z2=("starts from", "is now"),
        z3=place[0],
        z4=place[1],
        z5=place[2],
        z6=("among others", "for example"),
        z7=("A single confident duration", "Guessing the origin"),
    )
    return Made(prompt, criterion)


def answer_place(item: Item, passed: bool, rng: random.Random) -> str:
    name, one, two = next(p for p in _PLACES if p[0] in prompt_text(item))
    if not passed:
        return fill(
            rng,
            "{z1} {z2} {z3}",
            z1=("About", "Roughly", "It's around"),
            z2=(
                f"{rng.randint(2, 9)} hours",
                f"{rng.randint(1, 5)} hours {rng.randint(5, 55)} minutes",
            ),
            z3=(".", "by car.", "if traffic is light."),
        )
    return fill(
        rng,
        "Which {z2} do you mean? {z3} — {z4} or {z5}, {z6}. {z7}",
        z2=name,
        z3=("There are several", "It's ambiguous"),
        z4=f"{name}, {one}",
        z5=f"{name}, {two}",
        z6=("for instance", "say"),
        z7=("And where from?", "Also, where are you now?"),
    )
