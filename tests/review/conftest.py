"""The site tests' rendered example, for the review round trip that ends on the site."""

from __future__ import annotations

from tests.site.conftest import rendered_src, site_copy

__all__ = ["rendered_src", "site_copy"]
