"""The downloads page's "Load it with pandas" snippets, written for the files it lists.

Each snippet names real files of the downloads (the newest volume, its first candidate in
leaderboard order, the newest bank version), so it runs as printed from inside the
downloaded folder; the tests run every snippet against a built downloads folder. Each
leaves a pandas ``DataFrame`` in the variable its :class:`Snippet` names.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from generator.site import archive, tidy
from generator.site.downloads import Download
from generator.site.published import Publication
from generator.site.results import candidates_in_order

VERDICT_FILE = "verdicts.jsonl"


@dataclass(frozen=True)
class Snippet:
    """One snippet of the page."""

    title: str
    """What it loads."""
    code: str
    """Python source, run from inside the downloads folder."""
    result: str
    """The variable holding the DataFrame it makes."""


def _leaderboards(volume: str) -> list[Snippet]:
    csv_code = (
        "import pandas as pd\n\n"
        f'board = pd.read_csv("{tidy.csv_name(volume)}")\n'
        'core = board[board["metric"] == "core_rate"].sort_values("value")\n'
        'core = core[["display_name", "role", "value", "narrow_lo", "narrow_hi", '
        '"wide_lo", "wide_hi", "n"]]\n'
    )
    json_code = (
        "import json\n\nimport pandas as pd\n\n"
        f'with open("{tidy.json_name(volume)}", encoding="utf-8") as f:\n'
        '    rows = pd.json_normalize(json.load(f)["rows"])\n'
        "# Decimals are strings with their declared precision: convert when computing.\n"
        'rows["value"] = rows["value"].astype(float)\n'
    )
    return [
        Snippet("The tidy leaderboard (CSV): core rates with both intervals", csv_code, "core"),
        Snippet("The tidy leaderboard (JSON): intervals as nested columns", json_code, "rows"),
    ]


def _records(volume: str, slug: str) -> list[Snippet]:
    folder = f"bundles/{volume}/{slug}"
    verdicts = (
        "import pandas as pd\n\n"
        f'verdicts = pd.read_json("{folder}/{VERDICT_FILE}", lines=True, dtype=False)\n'
        "# pass, fail, grader_refused (the panel decides) or lost (no answer to grade)\n"
        'counts = verdicts["verdict"].value_counts().rename_axis("verdict").reset_index()\n'
    )
    unpack = (
        "import tarfile\n\nimport pandas as pd\n\n"
        f'with tarfile.open("{archive.archive_name(volume)}") as tar:\n'
        '    tar.extractall("unpacked", filter="data")\n'
        f'draws = pd.read_json("unpacked/{folder}/draws.jsonl", lines=True, dtype=False)\n'
    )
    return [
        Snippet("One model's verdicts, from the public bundles", verdicts, "counts"),
        Snippet("The same bundles, from the volume's archive", unpack, "draws"),
    ]


def _registry() -> Snippet:
    source = (
        "import json\n\nimport pandas as pd\n\n"
        'with open("figures.json", encoding="utf-8") as f:\n'
        "    registry = json.load(f)\n"
        'figures = pd.DataFrame(registry["figures"].values())\n'
        "# Each figure cites its source files by key in the registry's sources table.\n"
        'figures["sources"] = figures["sources"].map(registry["sources"])\n'
    )
    return Snippet("Every published figure, from the registry", source, "figures")


def _bank(name: str) -> Snippet:
    source = f'import pandas as pd\n\nitems = pd.read_json("{name}", lines=True, dtype=False)\n'
    return Snippet("The public bank, newest version", source, "items")


def snippets(pub: Publication, files: Sequence[Download]) -> list[Snippet]:
    """The snippets for these downloads (none of a volume's when none is published)."""
    names = {f.name for f in files}
    bank = [f.name for f in files if f.group == "bank"]
    out: list[Snippet] = []
    latest = pub.latest
    if latest is not None and tidy.csv_name(latest.id) in names:
        out += _leaderboards(latest.id)
        first = candidates_in_order(latest)[0].slug
        if f"bundles/{latest.id}/{first}/{VERDICT_FILE}" in names:
            out += _records(latest.id, first)
    if "figures.json" in names:
        out.append(_registry())
    if bank:
        out.append(_bank(bank[-1]))
    return out


def _indented(source: str) -> str:
    return "\n".join(f"    {line}" if line else "" for line in source.rstrip("\n").split("\n"))


def pandas_section(pub: Publication, files: Sequence[Download]) -> str:
    """The "Load it with pandas" section (empty when there is nothing to load)."""
    found = snippets(pub, files)
    if not found:
        return ""
    blocks = [
        "## Load it with pandas",
        "Run these from inside the downloaded folder (Python 3.11 or later, pandas 2). "
        "Each one leaves a DataFrame in the variable named in its title.",
    ]
    for snippet in found:
        blocks += [f"**{snippet.title}** (`{snippet.result}`)", _indented(snippet.code)]
    return "\n\n".join(blocks)
