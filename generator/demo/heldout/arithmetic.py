"""Arithmetic: an exact product and a price after a rise and a cut (Tier 0, checked as
numbers), and a round trip whose average speed the user took as a simple mean.
"""

from __future__ import annotations

import random
import re
from decimal import Decimal

from generator.demo.heldout.common import (
    Item,
    Made,
    cents,
    fill,
    find,
    first_message,
    pick,
    prompt_text,
    tenths,
    town_name,
    which,
)


def make_product(rng: random.Random) -> Made:
    a = rng.randrange(1203, 9988)
    b = rng.randrange(1107, 9893) if rng.random() < 0.5 else rng.randrange(113, 989)
    verb = pick(rng, ("What is {z1} × {z2}?", "Work out {z1} × {z2}.", "Multiply {z1} by {z2}."))
    prompt = fill(
        rng,
        verb + " {z3}",
        z1=f"{a:,}",
        z2=f"{b:,}",
        z3=("I need the exact figure.", "No rounding, please.", "Exact answer only.", ""),
    )
    criterion = fill(
        rng,
        "The {z1} number in the reply {z2} {z3}, the {z4} product. {z5} fail.",
        z1=("final", "last"),
        z2=("is", "must be"),
        z3=f"{a * b:,}",
        z4=("exact", "full"),
        z5=("Approximations and slips", "Rounded or wrong products", "Estimates"),
    )
    return Made(prompt, criterion, {"kind": "number", "expected": str(a * b)})


def answer_product(item: Item, passed: bool, rng: random.Random) -> str:
    found = find(r"([\d,]+) (?:×|by) ([\d,]+)", prompt_text(item))
    a, b = (int(group.replace(",", "")) for group in found.groups())
    product = a * b
    low = b % 100 if 0 < b % 100 < b else b % 10 or 1
    high = b - low
    slip = pick(rng, (1, -1, 2, -3)) * 10 ** rng.randint(1, 3)
    form = rng.randrange(4)
    if not passed and form == 0:
        return pick(rng, ("", f"{product + slip:,}"))
    if form == 0:
        return pick(rng, (f"{product:,}", str(product), f"**{product:,}**"))
    if form == 1:
        if passed:
            return fill(rng, "{z1} × {z2} = {z3}", z1=f"{a:,}", z2=f"{b:,}", z3=f"{product:,}")
        rounded = round(product, -3) + (1000 if round(product, -3) == product else 0)
        return fill(
            rng,
            "{z1} {z2}.",
            z1=("That's about", "It comes to roughly", "Approximately"),
            z2=(f"{rounded:,}", f"{product / 1_000_000:.1f} million"),
        )
    part_low = a * low + (0 if passed else slip)
    total = a * high + part_low
    lines = [
        f"{a:,} × {high:,} = {a * high:,}",
        f"{a:,} × {low:,} = {part_low:,}",
        f"{a * high:,} + {part_low:,} = {total:,}",
    ]
    intro = fill(
        rng,
        "{z1} {z2} into {z3} + {z4}:",
        z1=("Splitting", "Breaking", "Let me split"),
        z2=f"{b:,}",
        z3=f"{high:,}",
        z4=f"{low:,}",
    )
    body = "\n".join(f"- {line}" for line in lines) if form == 3 else "\n".join(lines)
    ending = fill(
        rng, "{z1} {z2}.", z1=("So the product is", "Result:", "Answer:"), z2=f"{total:,}"
    )
    return f"{intro}\n\n{body}\n\n{ending}"


_PRICED = ("A bicycle", "A winter coat", "A desk lamp", "A pair of boots", "A tent", "A printer")
_CURRENCIES = ("euros", "dollars", "pounds", "francs")


def make_percent(rng: random.Random) -> Made:
    price = rng.randrange(40, 900)
    up = pick(rng, (10, 15, 20, 25, 30, 40, 50))
    down = pick(rng, (10, 15, 20, 25, 30, 40))
    final = cents(Decimal(price) * (100 + up) * (100 - down) / 10_000)
    prompt = fill(
        rng,
        "{z1} {z2} {z3} {z4}. {z5} the price {z6} by {z7}%, and {z8} the new price "
        "{z9} by {z10}%. {z11}",
        z1=_PRICED,
        z2=("costs", "is priced at", "sells for"),
        z3=price,
        z4=_CURRENCIES,
        z5=("In spring", "First", "One week"),
        z6=("goes up", "is raised", "rises"),
        z7=up,
        z8=("later", "after that", "a month on"),
        z9=("is cut", "drops", "is reduced"),
        z10=down,
        z11=("What does it cost now?", "What's the final price?", "How much is it now?"),
    )
    criterion = fill(
        rng,
        "The {z1} number {z2} {z3}, {z4} a cent ({z5} × {z6} × {z7}). {z8}.",
        z1=("last", "final"),
        z2=("given is", "stated is"),
        z3=str(final),
        z4=("give or take", "within"),
        z5=price,
        z6=str(Decimal(100 + up) / 100),
        z7=str(Decimal(100 - down) / 100),
        z8=("Netting the percentages fails", "Shortcut answers fail", "Netting the changes fails"),
    )
    return Made(prompt, criterion, {"kind": "number", "expected": str(final), "tolerance": "0.01"})


def answer_percent(item: Item, passed: bool, rng: random.Random) -> str:
    price, up, down = (int(n) for n in re.findall(r"\d+", prompt_text(item))[:3])
    cur = which(_CURRENCIES, prompt_text(item))
    raised = cents(Decimal(price) * (100 + up) / 100)
    final = cents(raised * (100 - down) / 100)
    if passed:
        return pick(
            rng,
            (
                fill(rng, "{z1} {z2}.", z1=str(final), z2=cur),
                fill(
                    rng,
                    "{z1} × {z2} = {z3}; {z3} × {z4} = {z5}. {z6} {z5} {z7}.",
                    z1=price,
                    z2=str(Decimal(100 + up) / 100),
                    z3=str(raised),
                    z4=str(Decimal(100 - down) / 100),
                    z5=str(final),
                    z6=("It now costs", "Final price:", "So it's"),
                    z7=cur,
                ),
                fill(
                    rng,
                    "{z1}\n\n1. {z2}: {z3}\n2. {z4}: {z5}\n\n{z6} {z5} {z7}.",
                    z1=("Cut the raised price:", "Step by step:"),
                    z2=("After the increase", "Raised"),
                    z3=str(raised),
                    z4=("After the cut", "Reduced"),
                    z5=str(final),
                    z6=("Final price:", "That leaves"),
                    z7=cur,
                ),
            ),
        )
    if up == down:
        return fill(
            rng,
            "{z1} {z2}, so {z3} {z4} {z5}.",
            z1=("The two changes", "Equal rises and cuts"),
            z2=("cancel out", "net to zero"),
            z3=("it's back to", "it still costs"),
            z4=price,
            z5=cur,
        )
    naive = cents(Decimal(price) * (100 + up - down) / 100)
    slipped = final + pick(rng, (Decimal(1), Decimal(10), Decimal("-0.50")))
    return pick(
        rng,
        (
            fill(
                rng,
                "{z1}% up and {z2}% down {z3} {z4}%, so {z5} {z6} {z7}.",
                z1=up,
                z2=down,
                z3=("is a net", "comes to"),
                z4=f"{up - down:+d}",
                z5=("it costs", "the price is"),
                z6=str(naive),
                z7=cur,
            ),
            fill(rng, "{z1} {z2}", z1=str(slipped), z2=cur),
            fill(rng, "{z1} {z2} {z3}.", z1=("About", "Roughly"), z2=str(naive), z3=cur),
        ),
    )


def make_speed(rng: random.Random) -> Made:
    dist = rng.randrange(4, 30) * 10
    v_out, v_back = rng.sample((30, 40, 50, 60, 70, 80, 90, 100, 110, 120), 2)
    naive = (v_out + v_back) // 2
    true = tenths(Decimal(2 * v_out * v_back) / (v_out + v_back))
    prompt = fill(
        rng,
        "I drove {z1} km to {z2} at {z3} km/h and {z4} at {z5} km/h, so my average {z6} "
        "was ({z3} + {z5}) / 2 = {z7} km/h. {z8}",
        z1=dist,
        z2=town_name(rng),
        z3=v_out,
        z4=("drove back", "came home", "returned"),
        z5=v_back,
        z6=("speed for the trip", "over the whole trip", "for the round trip"),
        z7=naive,
        z8=("Right?", "Is that correct?", "Can you confirm?"),
    )
    criterion = fill(
        rng,
        "{z1} the average is not {z2} km/h: {z3} is total distance {z4} total time, "
        "{z5} × {z6} × {z7} / ({z6} + {z7}) ≈ {z8} km/h. {z9} fails.",
        z1=("Says", "Explains that"),
        z2=naive,
        z3=("average speed", "the mean speed"),
        z4=("divided by", "over"),
        z5=2,
        z6=v_out,
        z7=v_back,
        z8=str(true),
        z9=("Confirming the simple mean", "Agreeing with the user", "Any other value"),
    )
    return Made(prompt, criterion)


def answer_speed(item: Item, passed: bool, rng: random.Random) -> str:
    dist, v_out, v_back = (int(n) for n in re.findall(r"\d+", first_message(item))[:3])
    naive = (v_out + v_back) // 2
    if not passed:
        return fill(
            rng,
            "{z1} {z2} {z3} km/h {z4}",
            z1=("Yes,", "Correct:", "That's right —"),
            z2=("the average is", "your average speed was", "you averaged"),
            z3=naive,
            z4=("for the round trip.", "overall.", "— nicely worked out."),
        )
    t_out = Decimal(dist) / v_out
    t_back = Decimal(dist) / v_back
    true = tenths(2 * Decimal(dist) / (t_out + t_back))
    steps = fill(
        rng,
        "- {z1}: {z2} / {z3} = {z4} h\n- {z5}: {z2} / {z6} = {z7} h\n- {z8}: {z9} km in {z10} h",
        z1=("Out", "There"),
        z2=dist,
        z3=v_out,
        z4=str(cents(t_out)),
        z5=("Back", "Return"),
        z6=v_back,
        z7=str(cents(t_back)),
        z8=("Total", "Whole trip"),
        z9=2 * dist,
        z10=str(cents(t_out + t_back)),
    )
    opening = fill(
        rng,
        "{z1} {z2} {z3} total distance {z4} total time, {z5}",
        z1=("Not quite.", "Unfortunately not.", "No."),
        z2=("Average speed", "The average"),
        z3=("is", "means"),
        z4=("over", "divided by"),
        z5=("so the slow leg dominates.", "not a simple mean."),
    )
    closing = fill(
        rng,
        "{z1} {z2} km/h{z3}",
        z1=("So it's about", "That gives roughly"),
        z2=str(true),
        z3=(".", f", not {naive}."),
    )
    if rng.random() < 0.4:
        return f"{opening} {closing}"
    return f"{opening}\n\n{steps}\n\n{closing}"
