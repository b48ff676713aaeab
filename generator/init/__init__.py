"""``probepress init``: a publishable root for a maintainer's own bank.

A new root gets everything ``probepress site`` and ``probepress publish`` need and nothing
of the example: ``mkdocs.yml`` (built by ``generator.site.config``, the same theme and
extensions as the repository's, no demonstration banner), hand-written pages that cite no
figure, ``bank/bank.yaml`` with the maintainer's categories and no items, a commented
volume skeleton, a ``.gitignore`` that keeps the private store out of git, and the
private store with its bank secret. ``demo --out`` writes the same scaffolding around
the example's data (``scaffold_files`` with the banner on).
"""

from __future__ import annotations

import datetime as dt
import html
import uuid
from dataclasses import dataclass
from pathlib import Path
from string import Template

import yaml

from generator import commitments
from generator.canonical import write_bytes
from generator.errors import Problem, UsageError
from generator.lock import LOCK_FILE
from generator.models.bank import BankManifest
from generator.models.volume import DEFAULT_MIN_ITEMS
from generator.release import UNSEALED
from generator.site.config import mkdocs_yaml, root_settings
from generator.store.paths import BANK, BUNDLES, SITE_SRC, Layout

PAGES = Path(__file__).with_name("pages")
VOLUME_TEMPLATE = Path(__file__).with_name("volume.yaml")
GITIGNORE = Template("""\
# Written by `probepress init`.
# The private store: held-out texts, held-out responses and the bank secret. Never
# commit it (keep a backup elsewhere: without it the commitments cannot be opened).
/.private/
# Built by `probepress site`, and what it writes under site_src/ from elsewhere: the
# tool's theme files, the downloads that copy bank/, figures/ and bundles/, and each
# volume's bundle archive (figures/downloads.json records the bytes it was published as).
/site/
$built# probepress's writer lock and temporary files.
.probepress-*
# Tool folders.
.venv/
__pycache__/
*.pyc
.pytest_cache/
.mypy_cache/
.ruff_cache/
""").substitute(built="".join(f"/{place}\n" for place in UNSEALED))
BANK_HEADER = """\
# bank/bank.yaml: the bank's name, licence, categories and versions (`probepress init`).
# Add items with `probepress import items FILE`; a category is an id (lower-case words
# joined by hyphens), a title and an optional description. Versions only ever grow.
"""


@dataclass(frozen=True)
class InitResult:
    """What ``init_root`` wrote."""

    root: Path
    private: Path
    files: tuple[str, ...]
    """Files written under the root, relative to it."""


def parse_categories(values: tuple[str, ...]) -> list[dict[str, str]]:
    """Categories from ``ID[=TITLE]`` texts (a comma-separated text holds several).

    Raises:
        UsageError: No category, or one that is not a valid id.
    """
    out: list[dict[str, str]] = []
    for value in values:
        for chunk in value.split(","):
            ident, _, title = chunk.strip().partition("=")
            ident = ident.strip()
            if not ident:
                continue
            out.append({"id": ident, "title": title.strip() or ident.replace("-", " ").title()})
    if not out:
        raise UsageError("init needs at least one category (--category ID or --categories a,b,c)")
    return out


def _manifest(
    name: str, licence: str, categories: list[dict[str, str]], released: dt.date
) -> bytes:
    data = {
        "schema_version": 1,
        "name": name,
        "license": licence,
        "categories": categories,
        "versions": [{"id": "v1", "released": released.isoformat(), "notes": "First version."}],
        # Fixed for the bank's life: every public bank file carries it (generator.canary).
        "canary": str(uuid.uuid4()),
    }
    try:
        BankManifest.model_validate(data)
    except ValueError as exc:
        raise UsageError(f"cannot write bank/bank.yaml: {exc}") from None
    body = yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=90)
    return (BANK_HEADER + body).encode("utf-8")


def pages(name: str, licence: str) -> dict[str, bytes]:
    """The hand-written pages of a new root, by path under the root."""
    values = {"name": html.escape(name, quote=False), "licence": html.escape(licence)}
    return {
        f"{SITE_SRC}/{p.name}": Template(p.read_text("utf-8")).safe_substitute(values).encode()
        for p in sorted(PAGES.glob("*.md"))
    }


def scaffold_files(name: str, licence: str, *, demonstration: bool) -> dict[str, bytes]:
    """``mkdocs.yml``, ``.gitignore`` and the hand-written pages of a root."""
    settings = root_settings(name, licence, demonstration)
    return {
        "mkdocs.yml": mkdocs_yaml(settings).encode("utf-8"),
        ".gitignore": GITIGNORE.encode("utf-8"),
        **pages(name, licence),
    }


def volume_skeleton(volume: str, version: str) -> bytes:
    """The commented ``volume.yaml`` skeleton of ``volume`` for bank ``version``."""
    text = Template(VOLUME_TEMPLATE.read_text("utf-8")).substitute(
        volume=volume, version=version, minimum=DEFAULT_MIN_ITEMS
    )
    return text.encode("utf-8")


def refuse_non_empty(root: Path) -> None:
    """Refuse a root that exists and holds anything (but the writer's own lock file).

    Raises:
        UsageError: It is a file, or a directory that is not empty.
    """
    if root.exists() and (not root.is_dir() or any(p.name != LOCK_FILE for p in root.iterdir())):
        what = "is not a directory" if not root.is_dir() else "is not empty"
        raise UsageError(
            f"cannot initialise {root}:",
            [Problem(str(root), None, "init-not-empty", what, "pass a new or empty directory")],
        )


def check_name(name: str) -> None:
    """Refuse a bank name that could be markup or does not show as itself.

    Raises:
        UsageError: It has ``<``, ``>``, ``&`` or an invisible character, or is blank.
    """
    if any(c in name for c in "<>&") or not name.isprintable() or not name.strip():
        raise UsageError(
            f"--name {name!r}: a bank name is printed on every page; use printable text "
            "without <, > or &"
        )


def validate(name: str, categories: list[dict[str, str]], licence: str, released: dt.date) -> None:
    """Refuse what ``init_root`` would refuse, before anything (even the root) exists.

    Raises:
        UsageError: The name or a category is invalid.
    """
    check_name(name)
    _manifest(name, licence, categories, released)


def init_root(
    layout: Layout,
    *,
    name: str,
    categories: list[dict[str, str]],
    licence: str = "CC-BY-4.0",
    released: dt.date,
) -> InitResult:
    """Write a new publication root at ``layout.root`` and its private store.

    Raises:
        UsageError: The root exists and is not empty, or an argument is invalid.
    """
    refuse_non_empty(layout.root)
    check_name(name)
    files = {
        **scaffold_files(name, licence, demonstration=False),
        f"{BANK}/bank.yaml": _manifest(name, licence, categories, released),
        f"{BANK}/public.jsonl": b"",
        f"{BANK}/heldout_index.jsonl": b"",
        f"{BUNDLES}/vol-001/volume.yaml": volume_skeleton("vol-001", "v1"),
    }
    layout.root.mkdir(parents=True, exist_ok=True)
    for rel, data in sorted(files.items()):
        write_bytes(layout.root / rel, data, layout.root)
    commitments.ensure_secret(layout)
    return InitResult(layout.root, layout.private, tuple(sorted(files)))


def add_scaffold(layout: Layout, name: str, licence: str, *, demonstration: bool) -> list[str]:
    """Write the scaffolding files a root lacks (existing files are never replaced)."""
    written = []
    for rel, data in sorted(scaffold_files(name, licence, demonstration=demonstration).items()):
        path = layout.root / rel
        if not path.exists() and not path.is_symlink():
            write_bytes(path, data, layout.root)
            written.append(rel)
    return written
