"""Reuse of what the site publishes: the licences, and how to cite a volume.

The licences come from the data: the public bank's from ``bank/bank.yaml``'s ``license``,
the results data's (responses, verdicts, votes, figures, leaderboards) from its
``results_license`` (absent: the bank's), the software's from :data:`SOFTWARE_LICENSE`
(``pyproject.toml`` declares the same SPDX id; a test holds them together). The "how to
cite this volume" block names the volume, its date, its bank version and the fingerprint
of its frozen leaderboard, so a citation points at exactly the bytes that were published.
"""

from __future__ import annotations

import re

from generator.models.bank import BankManifest
from generator.site.markup import admonition, code, text
from generator.site.published import LEADERBOARD, PublishedVolume

SOFTWARE_LICENSE = "Apache-2.0"
"""SPDX id of the probepress software's licence (``LICENSE``, ``pyproject.toml``)."""
KNOWN = {
    "CC-BY-4.0": ("CC BY 4.0", "https://creativecommons.org/licenses/by/4.0/"),
    "CC-BY-SA-4.0": ("CC BY-SA 4.0", "https://creativecommons.org/licenses/by-sa/4.0/"),
    "CC0-1.0": ("CC0 1.0", "https://creativecommons.org/publicdomain/zero/1.0/"),
    "ODC-By-1.0": ("ODC-By 1.0", "https://opendatacommons.org/licenses/by/1-0/"),
    "Apache-2.0": ("Apache-2.0", "https://www.apache.org/licenses/LICENSE-2.0"),
    "MIT": ("MIT", "https://opensource.org/license/mit"),
}
"""SPDX ids the pages name with the address of their text; any other is printed as given."""
_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_BIBTEX_UNSAFE = re.compile(r"[{}\\`\x00-\x1f\x7f]")


def licence(spdx: str) -> str:
    """An SPDX id as inline Markdown: its short name and where its text is, when known.

    The address is printed, not linked: the site links to no other host."""
    found = KNOWN.get(spdx)
    if found is None:
        return text(spdx)
    name, url = found
    return f"{text(name)} ({code(spdx)}, text at {code(url.removeprefix('https://'))})"


def licences_section(bank: BankManifest) -> str:
    """The downloads page's "Licences" section."""
    return "\n".join(
        [
            "## Licences",
            "",
            f"- **The public bank** (the bank files and bank sources above): "
            f"{licence(bank.license)}.",
            "- **The results data** (each volume's public bundles and their archives: the "
            "models' responses to public items, the verdicts and panel votes; the figures "
            "registry and the tidy leaderboards; the calibration corpora): "
            f"{licence(bank.results_licence())}.",
            f"- **The probepress software** that computes and publishes them: "
            f"{licence(SOFTWARE_LICENSE)}.",
            "",
            "Held-out items are not published and not licensed: the downloads hold their "
            "ids, metadata and keyed commitments only.",
        ]
    )


def _bibtex_safe(value: str) -> str:
    """``value`` with the characters BibTeX or a figure citation could act on removed."""
    return " ".join(_BIBTEX_UNSAFE.sub(" ", value).split())


def _bibtex(pv: PublishedVolume, bank: BankManifest, digest: str | None) -> str:
    v = pv.volume
    key = re.sub(r"[^a-z0-9]+", "-", f"{bank.name} {v.id}".lower()).strip("-")
    fields = [
        ("title", f"{bank.name}: {v.title}"),
        ("howpublished", f"Volume {v.id} of the {bank.name} results, bank {v.bank_version}"),
        ("year", str(v.publication_date.year)),
        ("note", f"Frozen leaderboard sha256:{digest}" if digest else "Frozen leaderboard"),
    ]
    if v.demonstration:
        fields.append(("annote", "Demonstration data: describes no real model"))
    body = [f"  {name} = {{{_bibtex_safe(value)}}}," for name, value in fields]
    month = _MONTHS[v.publication_date.month - 1]
    body.insert(3, f"  month = {month},")  # a BibTeX month macro, unbraced
    # Indented: a Markdown code block, printed as written.
    return "\n".join(f"    {line}" for line in [f"@misc{{{key},", *body, "}"])


def cite_block(pv: PublishedVolume, bank: BankManifest) -> str:
    """The "How to cite this volume" section of a volume's results page."""
    v = pv.volume
    entry = pv.frozen_file(f"{LEADERBOARD}.html")
    digest = entry.sha256 if entry is not None else None
    fingerprint = f" Frozen leaderboard: {code(f'sha256:{digest}')}." if digest else ""
    blocks = ["## How to cite this volume"]
    if v.demonstration:
        blocks.append(
            admonition(
                "warning",
                "Demonstration data",
                "Cite this volume only as an example of the format: its numbers describe "
                "no real model.",
            )
        )
    blocks += [
        f"{text(bank.name)}. *{text(v.title)}* ({code(v.id)}), published "
        f"{v.publication_date.isoformat()}; bank {text(v.bank_version)}.{fingerprint} "
        f"Results data: {licence(bank.results_licence())}.",
        "BibTeX:",
        _bibtex(pv, bank, digest),
        "The fingerprint is the SHA-256 of the frozen leaderboard's bytes (printed on every "
        "page of its PDF, listed in the archive): anyone holding the file can check that "
        "it is the one cited.",
    ]
    return "\n\n".join(blocks)
