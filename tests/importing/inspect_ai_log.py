"""inspect_ai's own log reader and writer for the tests, imported on first use.

Importing ``inspect_ai`` costs seconds (its package imports its whole evaluation engine),
and every xdist worker collects every test module: imported at the top of a test module
it was paid by both workers, though only the one running the module uses it.
"""

from __future__ import annotations

import importlib.util
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from inspect_ai.log import EvalLog

needs_inspect_ai = pytest.mark.skipif(
    importlib.util.find_spec("inspect_ai") is None, reason="the inspect extra is not installed"
)
"""Mark for the modules that read or write logs with inspect_ai."""


def read_eval_log(path: str, header_only: bool = False) -> EvalLog:
    """``inspect_ai.log.read_eval_log``."""
    from inspect_ai.log import read_eval_log as read

    return read(path, header_only=header_only)


def write_eval_log(log: EvalLog, path: str) -> None:
    """``inspect_ai.log.write_eval_log``."""
    from inspect_ai.log import write_eval_log as write

    write(log, path)
