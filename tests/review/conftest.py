"""The review tests start from the example as it stood when vol-002 was published (bank
v1.2 current, one draft and two reviewed items, no ledger yet), whatever later volumes
the example has; the site tests' rendered copy of it, for the round trip that ends on
the site."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.site.conftest import rendered, site_copy

__all__ = ["example_src", "rendered_src", "site_copy"]


@pytest.fixture(scope="session")
def example_src(example_vol002_src: Path) -> Path:
    """The example as of vol-002 (read-only use)."""
    return example_vol002_src


@pytest.fixture(scope="session")
def rendered_src(example_src: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example as of vol-002, its site sources copied and its volumes rendered."""
    return rendered(tmp_path_factory, example_src, "site-rendered-vol-002")
