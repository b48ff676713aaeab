"""The site's navigation: the Results entry grows one section per published volume.

``mkdocs.yml`` lists the fixed sections; the entry pointing at ``volumes/index.md`` is
expanded here into the overview, then each volume (newest first) with its results and
jury pages, so publishing a volume needs no edit to ``mkdocs.yml``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from generator.store.paths import VOLUMES_FOLDER

RESULTS = f"{VOLUMES_FOLDER}/index.md"


def volume_ids(docs_dir: Path) -> list[str]:
    """Volumes whose generated results page exists, newest first."""
    folder = docs_dir / VOLUMES_FOLDER
    if not folder.is_dir():
        return []
    found = [p.parent.name for p in folder.glob("vol-*/index.md")]
    return sorted(found, reverse=True)


def volume_title(volume: str) -> str:
    """``vol-002`` -> ``Volume 002``."""
    return "Volume " + volume.removeprefix("vol-")


def results_section(docs_dir: Path) -> list[Any]:
    """The expanded Results section."""
    section: list[Any] = [RESULTS]
    for vid in volume_ids(docs_dir):
        base = f"{VOLUMES_FOLDER}/{vid}"
        pages = [f"{base}/index.md", {"Jury": f"{base}/jury.md"}]
        section.append({volume_title(vid): pages})
    return section


def expand(nav: list[Any] | None, docs_dir: Path) -> list[Any] | None:
    """``nav`` with every ``{title: volumes/index.md}`` entry expanded (a copy)."""
    if nav is None:
        return None
    out: list[Any] = []
    for entry in nav:
        if isinstance(entry, dict) and len(entry) == 1:
            ((title, value),) = entry.items()
            if value == RESULTS:
                out.append({title: results_section(docs_dir)})
            elif isinstance(value, list):
                out.append({title: expand(value, docs_dir)})
            else:
                out.append(entry)
        else:
            out.append(entry)
    return out
