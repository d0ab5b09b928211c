"""Fixtures for module `google_calendar`: the fake calendar and a harness that calls tools as the server would."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from gcal_harness import Harness
from gcal_world import World, fake_upstream

from mcpist.testing import FakeUpstream, assert_covered


@pytest.fixture
def world() -> World:
    return World()


@pytest.fixture
def api(world: World) -> Iterator[FakeUpstream]:
    """Google Calendar, checked against its Discovery document: any request it would refuse fails the test."""
    fake = fake_upstream()
    world.install(fake)
    with fake:
        yield fake


@pytest.fixture
def gcal(api: FakeUpstream, world: World, request: pytest.FixtureRequest) -> Iterator[Harness]:
    harness = Harness(api, world)
    yield harness
    assert_covered(request.function, harness.called)
