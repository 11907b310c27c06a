"""The scheduler tests start their own Scheduler, so their cluster starts no kube-scheduler (two
schedulers would race for every pod) and no controllers (as upstream's scheduler integration tests)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from kubelite.cluster import Cluster


@pytest.fixture
async def cluster() -> AsyncIterator[Cluster]:
    async with Cluster(seed=1, scheduler=False, controllers=False) as c:
        yield c
