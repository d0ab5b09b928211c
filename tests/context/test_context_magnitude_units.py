"""Round 55: how far apart two amounts are (the pair model's close and far features) compares amounts of one thing
only: "8 servers" and "5 cooks", "4 projects" and "2 pages" count different things, so their closeness says nothing
about whether one sets the other anew; a bare number ("make it 6") and a duration in another unit still compare."""

from __future__ import annotations

import pytest

from mcpist.modules.context._intent import _magnitudes
from mcpist.modules.context._values import values_of


@pytest.mark.parametrize(
    ("new", "old"),
    [("8 servers on the floor", "5 cooks in the kitchen"), ("4 projects max", "2 pages max"), ("3 tables", "4 rooms")],
)
def test_counts_of_different_things_are_not_close(new: str, old: str) -> None:
    assert _magnitudes(values_of(new), values_of(old)) == (0.0, 0.0)


@pytest.mark.parametrize(
    ("new", "old"),
    [("8 servers on the floor", "6 servers"), ("make it 6", "5 cooks in the kitchen"), ("90 minutes", "2 hours")],
)
def test_amounts_of_one_thing_still_compare(new: str, old: str) -> None:
    assert _magnitudes(values_of(new), values_of(old)) == (1.0, 0.0)
