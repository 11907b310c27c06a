"""Informer tests run on a bare control plane (no scheduler, built-in controllers or network): the only
watchers and writers are the tests' own, so counts of watches, lists and events are exact."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from kubelite.cluster import Cluster


@pytest.fixture
async def cluster() -> AsyncIterator[Cluster]:
    async with Cluster(seed=1, scheduler=False, controllers=False, network=False) as c:
        yield c
