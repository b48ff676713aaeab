"""Untrusted text on a frozen page: inert, legible and bounded.

Escaping is Jinja's job (autoescape is on for every template). This module does what
escaping cannot:

* **Invisible controls become visible.** Bidi embeddings, overrides and isolates
  (U+202A–U+202E, U+2066–U+2069) in a model's response or a name could reorder the page
  text around them ("Trojan Source"); C0/C1 controls, lone surrogates and noncharacters
  are not allowed in HTML at all. Each such code point is replaced by a visible marker
  ``[U+202E]``, so the page shows what the data contained and nothing is reordered.
  Templates additionally wrap untrusted text in ``<bdi>``, which isolates legitimate
  right-to-left text (an Arabic display name) from the page around it.
* **Long texts are clipped for display.** A response is shown up to ``RESPONSE_LIMIT``
  characters with a note; the full text is in the public bundle download.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from markupsafe import Markup

RESPONSE_LIMIT = 2_000
"""Characters of a response (or prompt) shown on a page; the rest is in the download."""

_BIDI = "\u202a-\u202e\u2066-\u2069"
_CONTROLS = "\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f"
_SURROGATES = "\ud800-\udfff"
_NONCHARACTERS = "\ufdd0-\ufdef\ufffe\uffff"
_VISIBLE = re.compile(f"[{_BIDI}{_CONTROLS}{_SURROGATES}{_NONCHARACTERS}]")
_PLANE_END = re.compile("[\U0001fffe\U0001ffff\U0002fffe\U0002ffff\U0010fffe\U0010ffff]")


def _marker(match: re.Match[str]) -> str:
    return f"[U+{ord(match.group()):04X}]"


def neutralise(text: str) -> str:
    """``text`` with line ends normalised to ``\\n`` and every bidi control, C0/C1
    control (except tab and newline), surrogate and noncharacter shown as ``[U+XXXX]``."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = _VISIBLE.sub(_marker, text)
    return _PLANE_END.sub(_marker, text)


def finalize(value: object) -> object:
    """Jinja ``finalize`` hook: neutralise every string a template prints.

    Runs before autoescape, so a plain string is neutralised and then escaped. Markup
    (the generator's own CSS, or a filter's escaped output) is neutralised too: the
    replaced code points are never part of markup syntax and the markers are plain
    ASCII, so the result stays safe.
    """
    if isinstance(value, Markup):
        return Markup(neutralise(str(value)))
    if isinstance(value, str):
        return neutralise(value)
    return value


@dataclass(frozen=True)
class Clipped:
    """A text as shown on a page, and how much of it that is."""

    text: str
    """The shown part."""
    total: int
    """Characters of the whole text."""

    @property
    def shown(self) -> int:
        """Characters shown."""
        return len(self.text)

    @property
    def clipped(self) -> bool:
        """True when only the beginning is shown."""
        return len(self.text) < self.total


def clip(text: str, limit: int = RESPONSE_LIMIT) -> Clipped:
    """The first ``limit`` characters of ``text`` (all of it when shorter)."""
    return Clipped(text=text[:limit], total=len(text))
