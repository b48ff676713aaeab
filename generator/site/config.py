"""The one builder of a publication root's ``mkdocs.yml``.

Every root's site shares one theme and extension setup (Material without web fonts, the
offline plugin and its local polyfill, the figure-citation extension, strict link
validation); only its name, description, copyright line, navigation and the
demonstration banner differ. ``init`` and ``demo --out`` write the file from here, and a
test checks that the repository's own ``mkdocs.yml`` is exactly what this builds for the
example, so the two can never drift apart.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

import yaml

DEMONSTRATION_BANNER = (
    "Demonstration data: the bank, the models and every number on this site are synthetic, "
    "written by probepress demo. Nothing here describes a real model."
)
PLAIN = re.compile(r"[A-Za-z0-9][A-Za-z0-9 _.()-]*")
"""A name YAML reads back unchanged without quotes."""
BASE_NAV: tuple[tuple[str, str], ...] = (
    ("Home", "index.md"),
    ("Methodology", "methodology.md"),
    ("Results", "volumes/index.md"),
    ("Archive", "volumes/archive.md"),
    ("Downloads", "downloads/index.md"),
    ("About", "about.md"),
)
"""The fixed sections every root's site has (the Results entry grows one section per
volume at build time, ``generator.site.nav``)."""


@dataclass(frozen=True)
class SiteSettings:
    """What differs between the sites of two publication roots."""

    name: str
    """``site_name``: the bank's name."""
    description: str
    """One sentence saying what the site publishes."""
    copyright: str
    """The footer line (licence of the public items)."""
    demonstration: bool = False
    """Show the demonstration banner on every page (only while demonstration data is
    published: ``probepress site`` refuses a banner that contradicts the data)."""
    pages: tuple[tuple[str, str], ...] = BASE_NAV
    """Navigation entries (title, page under ``site_src/``) in order."""
    hooks: str | None = None
    """Path of the hooks file as this root names it (the repository names its own
    ``generator/site/hooks.py``); ``probepress site`` always passes the hooks of the
    installed tool, so other roots leave this out."""


HEAD = """\
# The probepress site (DESIGN §7). Build with `probepress site` (generates the pages under
# site_src/volumes/ and site_src/downloads/, then runs this with --strict), or with
# `mkdocs build --strict` once the generated pages (and the theme files probepress writes
# under site_src/overrides/ and site_src/assets/) exist.
"""
BANNER_NOTE = """\
  # The banner shown on every page while demonstration data is published. `probepress
  # site` refuses to build when this disagrees with the data: remove it when the first
  # real volume replaces the example.
"""
NO_BANNER_NOTE = """\
  # No demonstration banner: `probepress site` refuses to build if demonstration data is
  # published without one (add `demonstration: <text>` here only for synthetic data).
"""
THEME = """\
theme:
  name: material
  custom_dir: site_src/overrides
  # No web fonts: the site makes no request to any other host.
  font: false
  language: en
  features:
    - navigation.indexes
    - navigation.sections
    - navigation.top
    - navigation.footer
    - search.highlight
    - toc.follow
  palette:
    scheme: default
    primary: blue grey
    accent: indigo

"""
EXTRA_TAIL = """\
  generator: false
  # A local copy of the file-system polyfill, so the offline plugin adds no remote script.
  polyfills:
    - assets/javascripts/iframe-worker-shim.js

extra_css:
  - assets/stylesheets/probepress.css

plugins:
  - search:
      lang: en
  - offline

"""
HOOKS = """\
hooks:
  # Figure citations and the Results navigation; the logic is in generator/site/.
  - {path}

"""
NO_HOOKS = """\
# Figure citations and the Results navigation come from probepress's hooks, which
# `probepress site` passes to MkDocs itself (no copy of them lives in this root).

"""
TAIL = """\
exclude_docs: |
  /overrides/

validation:
  omitted_files: warn
  absolute_links: warn
  unrecognized_links: warn
  anchors: warn

markdown_extensions:
  - admonition
  - attr_list
  - md_in_html
  - tables
  - footnotes
  # Figure citations for builders that run no hooks (Zensical); MkDocs resolves them first.
  - generator.site.mdext
  - toc:
      permalink: true

"""


def _folded(key: str, text: str, indent: str = "") -> str:
    """``key: >-`` and ``text`` wrapped under it, as YAML reads it back unchanged."""
    words = text.split()
    lines: list[str] = []
    current = ""
    for word in words:
        if current and len(indent) + 2 + len(current) + 1 + len(word) > 90:
            lines.append(current)
            current = word
        else:
            current = f"{current} {word}" if current else word
    lines.append(current)
    body = "".join(f"{indent}  {line}\n" for line in lines)
    return f"{indent}{key}: >-\n{body}"


def _nav(pages: tuple[tuple[str, str], ...]) -> str:
    out = ["nav:\n"]
    for title, page in pages:
        if page == "downloads/index.md":
            out.append(
                f"  - {title}:\n      - {page}\n      - Bank changelog: downloads/changelog.md\n"
                "      - Data dictionary: downloads/dictionary.md\n"
            )
        else:
            out.append(f"  - {title}: {page}\n")
    return "".join(out)


def mkdocs_yaml(settings: SiteSettings) -> str:
    """The text of ``mkdocs.yml`` for a root with ``settings``."""
    plain = (
        PLAIN.fullmatch(settings.name) is not None
        and yaml.safe_load(settings.name) == settings.name
    )
    name = settings.name if plain else json.dumps(settings.name)
    extra = "extra:\n" + (
        BANNER_NOTE + _folded("demonstration", DEMONSTRATION_BANNER, "  ")
        if settings.demonstration
        else NO_BANNER_NOTE
    )
    parts = [
        HEAD,
        f"site_name: {name}\n",
        _folded("site_description", settings.description),
        "docs_dir: site_src\nsite_dir: site\nstrict: true\n",
        "# Links end in .html so the downloaded site also works from the file system.\n",
        "use_directory_urls: false\n",
        _folded("copyright", settings.copyright),
        "\n",
        THEME,
        extra,
        EXTRA_TAIL,
        HOOKS.format(path=settings.hooks) if settings.hooks else NO_HOOKS,
        TAIL,
        _nav(settings.pages),
    ]
    return "".join(parts)


EXAMPLE = SiteSettings(
    name="probepress",
    description=(
        "Results of an adversarial LLM probe bank, published with receipts: every number "
        "traced to its sources, every frozen page fingerprinted."
    ),
    copyright=(
        "Public bank items: CC BY 4.0. Every figure on this site is cited from the figures "
        "registry; every frozen file is listed with its SHA-256 in the archive."
    ),
    demonstration=True,
    pages=(
        *BASE_NAV[:3],
        ("Findings", "findings.md"),
        *BASE_NAV[3:5],
        ("Publish your own", "publish.md"),
        ("Review items", "review.md"),
        *BASE_NAV[5:],
    ),
    hooks="generator/site/hooks.py",
)
"""The repository's own site (the example publication)."""


def root_settings(name: str, licence: str, demonstration: bool) -> SiteSettings:
    """The site of a new root for the bank ``name`` (``init``, ``demo --out``)."""
    return SiteSettings(
        name=name,
        description=(
            f"Results of the {name} probe bank, published with receipts: every number "
            "traced to its sources, every frozen page fingerprinted."
        ),
        copyright=(
            f"Public bank items: {licence}. Every figure on this site is cited from the "
            "figures registry; every frozen file is listed with its SHA-256 in the archive."
        ),
        demonstration=demonstration,
    )
