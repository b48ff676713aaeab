"""How numbers are written where people read them (the style guide, README "Numbers").

- **Minus** is the minus sign U+2212 "−", the partner of the "+" every difference
  carries ("+1.2 pts", "−0.5 pts"); the hyphen-minus "-" never stands for it on a page.
  Machine-readable files (``figures/figures.json``, the downloads, ``--json``) keep the
  ASCII "-" that every parser reads; pages convert when they print (``for_reading``).
- **A result that rounds to zero** has no sign ("0.0 pts"), so "−0.0" never appears.
- **Counts** agree with their noun: ``generator.words.counted`` ("1 anchor", "2 anchors").
- **Decimals** are rounded half to even from the exact value
  (``generator.stats.decimal_format``); a percentage carries "%", a difference of
  percentages "pts".

``signs_misused`` finds what the guide forbids, for the test over the rendered pages.
"""

from __future__ import annotations

import re

from generator.models.figures import Figure

MINUS = "\u2212"
"""The minus sign pages print."""
_SIGN = re.compile(r"(?<![\w.\-])-(?=\d)")
"""A hyphen-minus used as a sign: before a digit, not inside a word, an id or a date."""


def reading(text: str) -> str:
    """``text`` with every hyphen-minus that is a number's sign written as "−"."""
    return _SIGN.sub(MINUS, text)


def for_reading(figure: Figure) -> Figure:
    """``figure`` as a page prints it: its display and its intervals' displays in the
    guide's signs (the registry keeps the machine-readable form)."""
    if not (
        _SIGN.search(figure.display)
        or any(_SIGN.search(i.display) for i in figure.intervals.values())
    ):
        return figure
    intervals = {
        name: iv.model_copy(update={"display": reading(iv.display)})
        for name, iv in figure.intervals.items()
    }
    return figure.model_copy(update={"display": reading(figure.display), "intervals": intervals})


def signs_misused(text: str) -> list[str]:
    """Each place in ``text`` (a page's visible text) where "-" stands for minus, with
    a little context, or where "−0" gives a sign to zero."""
    out = [text[max(0, m.start() - 12) : m.end() + 6] for m in _SIGN.finditer(text)]
    out += [m.group(0) for m in re.finditer(rf"{MINUS}0(?:\.0+)?(?![.\d])", text)]
    return out
