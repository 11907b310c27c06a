"""A bare control plane (no scheduler, no controllers): only this package's own writers touch events and
leases, so counts and timings in these tests are exact."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from kubelite.cluster import Cluster


@pytest.fixture
async def cluster() -> AsyncIterator[Cluster]:
    async with Cluster(seed=1, scheduler=False, controllers=False) as c:
        yield c
