"""Shared fixtures: a fresh cluster on virtual time for every test."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from kubelite.cluster import Cluster


@pytest.fixture
async def cluster() -> AsyncIterator[Cluster]:
    async with Cluster(seed=1) as c:
        yield c
