"""Fixtures for module `github`: the fake GitHub world and a harness that calls tools as the server would."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from github_harness import Harness
from github_world import World, fake_upstream, install

from mcpist.testing import FakeUpstream, assert_covered


@pytest.fixture
def world() -> World:
    return World()


@pytest.fixture
def api(world: World) -> Iterator[FakeUpstream]:
    """GitHub, checked against its description; the test fails on any request or answer it would refuse."""
    fake = fake_upstream()
    install(fake, world)
    with fake:
        yield fake


@pytest.fixture
def gh(api: FakeUpstream, world: World, request: pytest.FixtureRequest) -> Iterator[Harness]:
    harness = Harness(api, world)
    yield harness
    assert_covered(request.function, harness.called)
