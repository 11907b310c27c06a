"""The HTTP tests' shared fixtures: a one-node cluster and an httpx client on its ASGI app (in process, no
socket), authenticated with the admin bearer token. A module sets ``SEED`` and ``TOKEN`` to choose its own."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest

import kubelite


@pytest.fixture
async def cluster(request: pytest.FixtureRequest) -> AsyncIterator[kubelite.Cluster]:
    async with kubelite.Cluster(seed=getattr(request.module, "SEED", 1), nodes=1) as c:
        yield c


@pytest.fixture
async def api(cluster: kubelite.Cluster, request: pytest.FixtureRequest) -> AsyncIterator[httpx.AsyncClient]:
    token = getattr(request.module, "TOKEN", "admin-token")
    app = cluster.asgi_app(admin_token=token)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://kubelite",
                                 headers={"Authorization": f"Bearer {token}"}) as client:
        yield client
