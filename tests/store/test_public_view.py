"""``public_view``: a volume read with the private store, seen as a public reading sees it.

``publish`` reads each volume once, with the private store (the gates need the held-out
texts), and makes its figures and pages from this view: so the view must carry exactly
what a reading without the private store carries, and nothing more.
"""

from __future__ import annotations

from dataclasses import astuple
from pathlib import Path

from generator.store import Layout, load_volume, public_view

VOLUMES = ("vol-001", "vol-002")


def _layout(root: Path) -> Layout:
    return Layout.at(root, root / ".private", cache=False)


def test_the_view_is_what_a_public_reading_gives(example_src: Path) -> None:
    for volume in VOLUMES:
        private = load_volume(_layout(example_src), volume)
        public = load_volume(_layout(example_src), volume, private=False)
        view = public_view(private)
        assert private.bank.private and private.bank.keys  # the held-out texts were read
        assert view.bank == public.bank and not view.bank.private and not view.bank.keys
        assert view.volume == public.volume and view.problems == public.problems == []
        assert {s: astuple(b) for s, b in view.bundles.items()} == {
            s: astuple(b) for s, b in public.bundles.items()
        }
        # Tier 0 outcomes of held-out draws come from private texts: the view drops them.
        assert any(
            d.tier0_pass is not None and d.key.item in private.bank.heldout
            for b in private.bundles.values()
            for d in b.draws
        )


def test_the_view_leaves_the_reading_it_came_from_alone(example_src: Path) -> None:
    private = load_volume(_layout(example_src), "vol-001")
    before = {s: astuple(b) for s, b in private.bundles.items()}
    public_view(private)
    assert private.bank.private and {s: astuple(b) for s, b in private.bundles.items()} == before
