"""Fixtures for module `supabase`: the fake Management and Storage APIs, and a harness calling tools."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from supabase_harness import Harness
from supabase_storage_fake import Store, Upstream
from supabase_world import World, management_fake

from mcpist.testing import assert_covered


@pytest.fixture
def world() -> World:
    return World()


@pytest.fixture
def upstream(world: World) -> Iterator[Upstream]:
    """Both APIs, checked against their descriptions; the test fails on any exchange they would refuse."""
    stores = {ref: Store(key) for tenant in world.tenants for ref, key in tenant.service_keys.items()}
    fake = Upstream(management_fake(world), stores)
    yield fake
    fake.assert_clean()


@pytest.fixture
def supa(upstream: Upstream, world: World, request: pytest.FixtureRequest) -> Iterator[Harness]:
    harness = Harness(upstream, world)
    yield harness
    assert_covered(request.function, harness.called)
