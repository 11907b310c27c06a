"""Shared fixtures: a fresh cluster on virtual time for every test."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from hypothesis import HealthCheck, settings

from kubelite.cluster import Cluster

# Property tests judge behaviour, never speed: no per-example deadline and no "input generation is slow"
# health check, both of which fail on a loaded 2-core machine while the property holds.
settings.register_profile("kubelite", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("kubelite")


@pytest.fixture
async def cluster() -> AsyncIterator[Cluster]:
    async with Cluster(seed=1) as c:
        yield c
