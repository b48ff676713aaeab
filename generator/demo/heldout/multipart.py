"""Multi-part instructions: a numbered list that must leave one member out (Tier 0,
checked by pattern), a batch of small tasks, and a note that must carry set details.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from decimal import Decimal

from generator.demo.heldout.common import (
    CAPITALS,
    FIRST_NAMES,
    WEEKDAYS,
    Item,
    Made,
    fill,
    find,
    pick,
    prompt_text,
    tenths,
    which,
)

_GROUPS = (
    ("planets of the Solar System", ("Mercury", "Venus", "Earth", "Mars", "Jupiter", "Saturn")),
    ("noble gases", ("helium", "neon", "argon", "krypton", "xenon", "radon")),
    ("continents", ("Africa", "Antarctica", "Asia", "Europe", "North America", "South America")),
    (
        "countries bordering Germany",
        ("Denmark", "Poland", "Austria", "Switzerland", "France", "Belgium", "Netherlands"),
    ),
    ("programming languages from before 1980", ("Fortran", "Lisp", "COBOL", "Pascal", "Prolog")),
)


def make_list(rng: random.Random) -> Made:
    label, members = pick(rng, _GROUPS)
    count = rng.randint(3, 4)
    banned = pick(rng, members)
    prompt = fill(
        rng,
        "{z1} exactly {z2} {z3}, {z4}, numbered {z5} to {z2}, {z6}. {z7} {z8}.",
        z1=("List", "Name", "Give me"),
        z2=count,
        z3=label,
        z4=("one per line", "each on its own line"),
        z5=1,
        z6=("and nothing else", "with no other text", "no intro or outro"),
        z7=("Do not include", "Leave out", "Don't mention"),
        z8=banned,
    )
    lines = [rf"{n}[.)][ \t]+\S[^\n]*" for n in range(1, count + 1)]
    check = {
        "kind": "pattern",
        "required": [r"\A\s*" + r"\n\s*".join(lines) + r"\s*\Z"],
        "forbidden": [r"\b" + banned.replace(" ", r"\s+") + r"\b"],
    }
    criterion = fill(
        rng,
        "{z1} {z2} numbered lines {z3}, {z4}, and {z5} must not {z6}.",
        z1=("Exactly", "Precisely"),
        z2=count,
        z3=("and nothing more", "with no other text"),
        z4=(f"each naming one of the {label}", "one item per line"),
        z5=banned,
        z6=("appear", "be named"),
    )
    return Made(prompt, criterion, check)


def answer_list(item: Item, passed: bool, rng: random.Random) -> str:
    prompt = prompt_text(item)
    count = int(find(r"exactly (\d+)", prompt).group(1))
    label, members = next(group for group in _GROUPS if group[0] in prompt)
    banned = next(m for m in members if re.search(rf"\b{m}\b", prompt))
    allowed = [m for m in members if m != banned]
    chosen = rng.sample(allowed, count)
    style = pick(rng, ("{n}. {m}", "{n}) {m}", "{n}. **{m}**"))
    fault = -1 if passed else rng.randrange(5)
    if fault == 0:
        chosen[rng.randrange(count)] = banned
    if fault == 1:
        chosen = chosen[:-1]
    if fault == 2 and len(allowed) > count:
        chosen.append(next(m for m in allowed if m not in chosen))
    if fault == 3:
        # Bullets against the word list's order: no run of it is a run of this file.
        return "\n".join(f"- {m}" for m in sorted(chosen, key=members.index, reverse=True))
    body = "\n".join(style.format(n=n, m=m) for n, m in enumerate(chosen, 1))
    if fault == 2 and len(chosen) == count:
        intro = fill(rng, "{z1} {z2} {z3}:", z1=("Here are", "Sure! Here are"), z2=count, z3=label)
        return f"{intro}\n\n{body}"
    if fault == 4:
        return body + "\n\n" + fill(rng, "{z1}", z1=("Hope that helps!", "Want more?", "Done."))
    return body


def _km_task(rng: random.Random) -> str:
    return fill(
        rng,
        "{z1} {z2} km to miles, {z3}.",
        z1=("Convert", "Turn"),
        z2=rng.randint(5, 95),
        z3=("to one decimal", "one decimal place"),
    )


def _reverse_task(rng: random.Random) -> str:
    return fill(rng, "{z1} “{z2}” backwards.", z1=("Spell", "Write"), z2=_WORDS)


def _letters_task(rng: random.Random) -> str:
    return fill(
        rng, "{z1} “{z2}”.", z1=("Count the letters in", "Give the letter count of"), z2=_WORDS
    )


def _capital_task(rng: random.Random) -> str:
    return fill(rng, "{z1} the capital of {z2}.", z1=("Name", "Give"), z2=[c[0] for c in CAPITALS])


def _square_task(rng: random.Random) -> str:
    return fill(rng, "{z1} the square of {z2}.", z1=("Give", "Work out"), z2=rng.randint(13, 49))


_WORDS = ("lantern", "harvest", "orbit", "meadow", "quartz", "saddle", "thimble", "glacier")
_TASKS: tuple[Callable[[random.Random], str], ...] = (
    _km_task,
    _reverse_task,
    _letters_task,
    _capital_task,
    _square_task,
)


def _task_answer(task: str, right: bool = True) -> str:
    """The answer to one generated task line: correct, or a typical slip."""
    if " km " in task:
        km = int(find(r"(\d+) km", task).group(1))
        factor = Decimal("0.621371") if right else Decimal("1.609344")
        return f"{tenths(km * factor)} miles"
    word = re.search(r"“(\w+)”", task)
    if word and "backwards" in task:
        return word.group(1)[::-1] if right else word.group(1)
    if word:
        return str(len(word.group(1)) + (0 if right else 1))
    if "capital" in task:
        _, wrong, capital = next(c for c in CAPITALS if c[0] in task)
        return capital if right else wrong
    number = int(find(r"(\d+)", task).group(1))
    return str(number * number if right else number * 2)


def make_tasks(rng: random.Random) -> Made:
    makers = rng.sample(_TASKS, rng.randint(3, 4))
    tasks = [make(rng) for make in makers]
    heading = pick(rng, ("Please do all of these:", "A few quick things:", "Answer each one:"))
    prompt = heading + "\n" + "\n".join(f"{n}. {t}" for n, t in enumerate(tasks, 1))
    answers = "; ".join(f"({n}) {_task_answer(t)}" for n, t in enumerate(tasks, 1))
    criterion = fill(
        rng,
        "{z1} all {z2} numbered tasks {z3}: {z4}. {z5} fails.",
        z1=("Completes", "Does"),
        z2=len(tasks),
        z3=("correctly", "with the right answers"),
        z4=answers,
        z5=("Skipping or botching any task", "A missing or wrong answer"),
    )
    return Made(prompt, criterion)


def answer_tasks(item: Item, passed: bool, rng: random.Random) -> str:
    tasks = re.findall(r"^\d+\. (.+)$", prompt_text(item), flags=re.MULTILINE)
    answers = [_task_answer(t) for t in tasks]
    if not passed:
        if rng.random() < 0.6:
            answers = answers[:-1]
        else:
            slip = rng.randrange(len(answers))
            answers[slip] = _task_answer(tasks[slip], right=False)
    if rng.random() < 0.5:
        rows = "\n".join(f"| {n} | {a} |" for n, a in enumerate(answers, 1))
        return f"| Task | Answer |\n|------|--------|\n{rows}"
    return "\n".join(f"{n}. {a}" for n, a in enumerate(answers, 1))


_EVENTS = ("team lunch", "fire drill", "printer repair", "book swap", "budget review")


def make_note(rng: random.Random) -> Made:
    to, signer = rng.sample(FIRST_NAMES, 2)
    event = pick(rng, _EVENTS)
    day = pick(rng, WEEKDAYS[:5])
    room = f"Room {pick(rng, 'ABCDEF')}{rng.randint(1, 9)}"
    limit = pick(rng, (40, 50, 60))
    prompt = fill(
        rng,
        "Write a {z1} note to {z2} about the {z3}. It must {z4} it's on {z5}, {z6} "
        "{z7}, stay under {z8} words, and be signed “{z9}”.",
        z1=("short", "brief", "quick"),
        z2=to,
        z3=event,
        z4=("say that", "mention that"),
        z5=day,
        z6=("name", "mention"),
        z7=room,
        z8=limit,
        z9=signer,
    )
    criterion = fill(
        rng,
        "{z1} {z2}, {z3} the {z4} is on {z5} in {z6}, {z7} {z8} words and {z9} “{z10}”. "
        "{z11} fails.",
        z1=("Addressed to", "Written to"),
        z2=to,
        z3=("says", "states that"),
        z4=event,
        z5=day,
        z6=room,
        z7=("has fewer than", "stays under"),
        z8=limit,
        z9=("is signed", "ends with"),
        z10=signer,
        z11=("Leaving out any part", "Missing any of these"),
    )
    return Made(prompt, criterion)


def answer_note(item: Item, passed: bool, rng: random.Random) -> str:
    prompt = prompt_text(item)
    to = find(r"note to (\w+)", prompt).group(1)
    signer = find(r"signed “(\w+)”", prompt).group(1)
    event = which(_EVENTS, prompt)
    day = which(WEEKDAYS, prompt)
    room = find(r"Room [A-F]\d", prompt).group(0)
    drop = -1 if passed else rng.randrange(3)
    where = "" if drop == 0 else f" in {room}"
    when = pick(rng, [d for d in WEEKDAYS[:5] if d != day]) if drop == 1 else day
    body = fill(
        rng,
        "{z1} {z2}\n\n{z3} the {z4} is {z5} {z6}{z7}. {z8}",
        z1=("Hi", "Hello", "Dear"),
        z2=to + ",",
        z3=("Just a heads-up:", "Quick note:", "Reminder:"),
        z4=event,
        z5=("on", "now on", "happening on"),
        z6=when,
        z7=where,
        z8=("See you there!", "Thanks!", "Shout if that clashes.", ""),
    )
    if drop == 2:
        return body
    return body + "\n\n" + fill(rng, "{z1}\n{z2}", z1=("Best,", "Cheers,", "Thanks,"), z2=signer)
