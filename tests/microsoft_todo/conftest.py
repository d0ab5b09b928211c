"""Fixtures for module `microsoft_todo`: a fake To Do and a harness that calls tools as the server would."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from mstodo_harness import Harness
from mstodo_world import World, fake_upstream

from mcpist.testing import FakeUpstream, assert_covered


@pytest.fixture
def world() -> World:
    return World()


@pytest.fixture
def api(world: World) -> Iterator[FakeUpstream]:
    fake = fake_upstream()
    world.install(fake)
    with fake:
        yield fake


@pytest.fixture
def todo(api: FakeUpstream, world: World, request: pytest.FixtureRequest) -> Iterator[Harness]:
    harness = Harness(api, world)
    yield harness
    assert_covered(request.function, harness.called)
