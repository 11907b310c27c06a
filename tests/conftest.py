"""Shared fixtures: a fresh cluster on virtual time for every test."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator

import pytest
from hypothesis import HealthCheck, settings

from kubelite.cluster import Cluster

# Property tests judge behaviour, never speed: no per-example deadline and no "input generation is slow"
# health check, both of which fail on a loaded 2-core machine while the property holds. Derandomized, as
# every test here is deterministic: a failure reproduces on every run (explore with HYPOTHESIS_PROFILE=explore).
settings.register_profile("kubelite", deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
settings.register_profile("explore", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "kubelite"))


@pytest.fixture
async def cluster() -> AsyncIterator[Cluster]:
    async with Cluster(seed=1) as c:
        yield c
