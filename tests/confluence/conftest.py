"""Fixtures for module `confluence`: the fake site (both API descriptions) and a harness that calls tools."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from confluence_harness import Harness
from confluence_world import World, fakes

from mcpist.testing import assert_covered


@pytest.fixture
def world() -> World:
    return World()


@pytest.fixture
def cf(world: World, request: pytest.FixtureRequest) -> Iterator[Harness]:
    v2, v1 = fakes(world)
    with v2, v1:  # any request or answer either description refuses fails the test
        harness = Harness(v2, v1, world)
        yield harness
    assert_covered(request.function, harness.called)
