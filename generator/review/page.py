"""The review page: rendered, policed, and written only where held-out text may go.

**Self-contained and offline.** One HTML file per batch: its stylesheet and its script are
inline, admitted by a Content-Security-Policy that names each by its SHA-256 and forbids
everything else (no request to any host, no image, font, frame, connection or form
target), so the page works the same from a ``file://`` URL on a laptop without network.
The script is the same for every page; the page's data (bank, version, batch, each item's
status) sits in escaped attributes it reads, never in script text.

**Escaped.** Every string from the bank (prompts, criteria, answers, sources, reviewer
names) is printed through the project's one Jinja set-up (autoescape on, bidi and control
characters made visible). The bank's name goes into the page's data base64-encoded, so
the saved file names the bank exactly as ``bank/bank.yaml`` does.

**Private.** A page holds held-out text whenever a held-out item is up for review, and a
reviewer's page is never a publication: it is written to the private store
(``PRIVATE/review/``) or a folder outside the root, never into the root's public folders.

**Deterministic.** No clock, no randomness: the same bank and ledger give the same bytes.
"""

from __future__ import annotations

import base64
import hashlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from jinja2 import Environment
from markupsafe import Markup

from generator import __version__, git
from generator.canonical import write_text
from generator.errors import UsageError
from generator.models.bank import Status
from generator.render.environment import make_environment
from generator.render.text import neutralise
from generator.review.items import MAX_BATCH, Batch, Plan, plan
from generator.store.jsonl import Bounds
from generator.store.paths import BANK, BUNDLES, FIGURES, SITE, SITE_SRC, TEMPLATES, Layout

FOLDER: Final = "review"
"""Folder of the pages in the private store."""
TEMPLATES_DIR: Final = Path(__file__).resolve().parent / "templates"
PAGE: Final = "page.html"
STYLE: Final = "review.css"
SCRIPT: Final = "review.js"
PUBLIC_FOLDERS: Final = (BANK, BUNDLES, FIGURES, TEMPLATES, SITE_SRC, SITE)
"""Folders of a root that are published or committed: a review page never goes there."""


@dataclass(frozen=True)
class Inline:
    """The page's stylesheet and script, and the policy admitting exactly them."""

    css: Markup
    js: Markup
    csp: str


@dataclass(frozen=True)
class Built:
    """What ``review build`` wrote."""

    folder: Path
    pages: tuple[Path, ...]
    items: int
    heldout: int

    def summary(self) -> str:
        """One line for the terminal."""
        if not self.pages:
            return "nothing to review: no active item of the current bank version is waiting"
        held = f", {self.heldout} held out: keep the pages private" if self.heldout else ""
        return (
            f"wrote {len(self.pages)} review page{'s' if len(self.pages) != 1 else ''} "
            f"({self.items} items{held}) to {self.folder}"
        )


def template_folder() -> Path:
    """The review page's templates, shipped with the code (``generator/review/templates``).

    Not under the root's ``templates/``: every file there is an input of every volume
    (``generator.release.volume_inputs``), and a reviewers' form is no part of any
    volume, so changing it must never look like a change to a published one.
    """
    if not all((TEMPLATES_DIR / name).is_file() for name in (PAGE, STYLE, SCRIPT)):
        raise UsageError(
            f"the review page templates ({PAGE}, {STYLE}, {SCRIPT}) are missing "
            f"from {TEMPLATES_DIR}: reinstall probepress"
        )
    return TEMPLATES_DIR


def _inlined(env: Environment, name: str) -> tuple[Markup, str]:
    """A template's text as the page inlines it, and its CSP hash source."""
    text = neutralise(env.get_template(name).render())
    if "</" in text or "<!--" in text:
        raise UsageError(f"{TEMPLATES_DIR / name} may not contain '</' or '<!--' (inlined)")
    digest = base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii")
    return Markup(text), f"'sha256-{digest}'"


def inline(env: Environment) -> Inline:
    """The stylesheet, the script and the Content-Security-Policy of every review page."""
    css, css_hash = _inlined(env, STYLE)
    js, js_hash = _inlined(env, SCRIPT)
    csp = (
        f"default-src 'none'; style-src {css_hash}; script-src {js_hash}; img-src 'none'; "
        "connect-src 'none'; font-src 'none'; frame-src 'none'; object-src 'none'; "
        "base-uri 'none'; form-action 'none'"
    )
    return Inline(css=css, js=js, csp=csp)


def render_batch(env: Environment, parts: Inline, review: Plan, batch: Batch) -> str:
    """One batch's page."""
    return env.get_template(PAGE).render(
        csp=parts.csp,
        css=parts.css,
        js=parts.js,
        bank=review.bank,
        bank_b64=base64.b64encode(review.bank.encode("utf-8")).decode("ascii"),
        bank_version=review.bank_version,
        demonstration=review.demonstration,
        batch=batch,
        file_name=f"review-{batch.id}.json",
        generator=f"probepress {__version__}",
    )


def _within(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def review_folder(layout: Layout, out: Path | None) -> tuple[Path, Path]:
    """Where the pages go (``out``, default ``PRIVATE/review``), and the folder writes are
    confined to, with links resolved first (where the bytes would really land).

    Raises:
        UsageError: The folder is in a public folder of the root, in the root outside its
            private store, or in a private store that git would commit.
    """
    asked = out if out is not None else layout.private / FOLDER
    target = Path(os.path.realpath(asked))
    root = Path(os.path.realpath(layout.root))
    private = Path(os.path.realpath(layout.private))
    why = "a review page holds held-out text and is never published"
    fix = f"write it to the private store (the default, {private / FOLDER}) or outside the root"
    for area in PUBLIC_FOLDERS:
        if _within(target, root / area):
            raise UsageError(f"--out {asked}: refused: inside {area}/ of the root ({why}); {fix}")
    # A store holding the whole root would make every folder of the root "private".
    if _within(target, private) and not _within(root, private):
        if _within(target, root) and not _ignored(root, target):
            raise UsageError(
                f"--out {asked}: refused: the private store {private} is inside the git "
                f"checkout {root} and git does not ignore it ({why}); add it to .gitignore, "
                "or write the page outside the root"
            )
        return target, private
    if _within(target, root):
        raise UsageError(
            f"--out {asked}: refused: inside the root {root} and outside its private store "
            f"{private} ({why}); {fix}"
        )
    return target, target


def _ignored(root: Path, folder: Path) -> bool:
    """Whether git would leave a page in ``folder`` out of a commit (True outside a git
    checkout, or without git)."""
    if not git.is_repository(root):
        return True
    probe = (folder / "review-page.html").relative_to(root).as_posix()
    done = git.run(root, "check-ignore", "-q", "--no-index", probe)
    return done is None or done.returncode != 1


def build(
    layout: Layout,
    bounds: Bounds,
    *,
    status: Status | None = None,
    batch_size: int = 20,
    out: Path | None = None,
) -> Built:
    """Write one review page per batch of items waiting to climb the ladder.

    Every page is rendered before the first is written, so a refusal writes nothing.

    Raises:
        UsageError: ``out`` is a public place, or ``batch_size`` is out of range.
        InputError: The bank, the ledger or a needed held-out text does not read.
    """
    if not 1 <= batch_size <= MAX_BATCH:
        raise UsageError(f"--batch-size must be between 1 and {MAX_BATCH}, got {batch_size}")
    folder, confine = review_folder(layout, out)
    review = plan(layout, bounds, status, batch_size)
    env = make_environment(template_folder())
    parts = inline(env)
    pages = {
        folder / f"review-{batch.id}.html": render_batch(env, parts, review, batch)
        for batch in review.batches
    }
    for path, text in pages.items():
        write_text(path, text, confine)
    return Built(
        folder=folder,
        pages=tuple(pages),
        items=sum(len(b.items) for b in review.batches),
        heldout=sum(b.heldout for b in review.batches),
    )
