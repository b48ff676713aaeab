"""Run MkDocs' own build in-process: strict, reproducible, and with clear errors.

``SOURCE_DATE_EPOCH`` is set for the build (MkDocs dates the sitemap with it); MkDocs'
log records are collected instead of printed, and a failed build becomes a domain error
that quotes them, never a traceback.
"""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Iterator
from pathlib import Path

from generator.errors import CheckFailed, InputError, ProbepressError, Problem

CONFIG = "mkdocs.yml"
HOOKS = Path(__file__).with_name("hooks.py")
"""The hooks file of this installation (``mkdocs.yml`` names it relative to the repo)."""


class _Collector(logging.Handler):
    """Keeps MkDocs' warnings and errors for the error message."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


@contextlib.contextmanager
def _captured() -> Iterator[_Collector]:
    logger = logging.getLogger("mkdocs")
    collector = _Collector()
    saved = logger.propagate
    logger.addHandler(collector)
    logger.propagate = False
    try:
        yield collector
    finally:
        logger.removeHandler(collector)
        logger.propagate = saved


@contextlib.contextmanager
def _epoch(epoch: int) -> Iterator[None]:
    saved = os.environ.get("SOURCE_DATE_EPOCH")
    os.environ["SOURCE_DATE_EPOCH"] = str(epoch)
    try:
        yield
    finally:
        if saved is None:
            del os.environ["SOURCE_DATE_EPOCH"]
        else:
            os.environ["SOURCE_DATE_EPOCH"] = saved


def _domain_error(exc: BaseException | None) -> ProbepressError | None:
    while exc is not None:
        if isinstance(exc, ProbepressError):
            return exc
        exc = exc.__cause__ or exc.__context__
    return None


def _problems(messages: list[str]) -> list[Problem]:
    return [Problem(CONFIG, None, "mkdocs", line) for m in messages for line in [m.strip()] if line]


def run(root: Path, out: Path, epoch: int, demonstration: bool) -> None:
    """Build the site of ``root`` (its ``mkdocs.yml``) into ``out`` with ``--strict``.

    Args:
        root: Publication root holding ``mkdocs.yml``.
        out: Output directory (MkDocs empties it first).
        epoch: ``SOURCE_DATE_EPOCH`` for the build.
        demonstration: Whether demonstration data is published: ``extra.demonstration``
            (the banner) must then be set, and must not be otherwise.

    Raises:
        InputError: ``mkdocs.yml`` is missing or invalid, or the banner setting
            contradicts the data.
        CheckFailed: MkDocs reported warnings or errors (strict mode) or a page cites
            an unknown figure.
    """
    from mkdocs.commands.build import build
    from mkdocs.config import load_config
    from mkdocs.exceptions import MkDocsException

    config_file = root / CONFIG
    if not config_file.is_file():
        raise InputError(f"{config_file}: missing; the site needs the publication's mkdocs.yml")
    with _captured() as log, _epoch(epoch):
        try:
            cfg = load_config(str(config_file), strict=True, site_dir=str(out), hooks=[str(HOOKS)])
            banner = bool(cfg.extra.get("demonstration"))
            if banner != demonstration:
                raise InputError(
                    f"{CONFIG}: extra.demonstration is {'set' if banner else 'not set'} but "
                    f"the published data {'is' if demonstration else 'is not'} demonstration "
                    "data",
                    [
                        Problem(
                            CONFIG,
                            None,
                            "demonstration-banner",
                            "the banner must be shown exactly while demonstration data is "
                            "published",
                            "remove extra.demonstration" if banner else "set extra.demonstration",
                        )
                    ],
                )
            build(cfg)
        except MkDocsException as exc:
            found = _domain_error(exc)
            if found is not None:
                raise CheckFailed(str(found), found.problems) from None
            kind = InputError if "configuration" in str(exc) else CheckFailed
            raise kind(f"mkdocs build --strict failed: {exc}", _problems(log.messages)) from None
