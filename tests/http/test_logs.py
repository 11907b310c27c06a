"""``pods/log`` over HTTP as kubelet + apiserver serve it: PodLogOptions (``container``, ``previous``,
``timestamps``, ``sinceSeconds``/``sinceTime``, ``tailLines``, ``limitBytes``) and ``follow``.

Upstream: ``pkg/registry/core/pod/rest/log.go`` + ``ValidatePodLogOptions`` (400s for bad options), the
kubelet's ``GetContainerLogs`` (``previous`` reads the last terminated instance; "previous terminated
container ... not found" without one), and a followed log that ends when the container exits.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

import kubelite
from kubelite.clock import format_time

SEED = 5  # the cluster fixture (tests/http/conftest.py) seeds with it
TOKEN = "log-token"
LINES = ["booting", "listening on :8080", "ready"]


def _pod(name: str, restart: str = "Always", **profile: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "annotations": {"kubelite.io/profile": json.dumps({"logs": LINES, **profile})}},
            "spec": {"restartPolicy": restart, "containers": [{"name": "app", "image": "nginx:1.25"}]}}


def _status(cluster: kubelite.Cluster, name: str) -> dict[str, Any]:
    pod = cluster.apiserver.read("", "pods", "default", name) or {}
    statuses: list[dict[str, Any]] = (pod.get("status") or {}).get("containerStatuses") or [{}]
    return statuses[0]


async def _running(cluster: kubelite.Cluster, name: str) -> dict[str, Any]:
    await cluster.wait_for(lambda: "running" in (_status(cluster, name).get("state") or {}), timeout=300)
    return _status(cluster, name)


@pytest.mark.parametrize(("params", "expected"), [
    ({}, LINES),
    ({"tailLines": "2"}, LINES[-2:]),
    ({"tailLines": "0"}, []),
    ({"tailLines": "10"}, LINES),
    ({"sinceSeconds": "3600"}, LINES),  # written at start, an hour is long enough
    ({"sinceSeconds": "1"}, []),  # the container started ~60 s ago: nothing since
    ({"sinceTime": "2000-01-01T00:00:00Z"}, LINES),
    ({"sinceTime": "2999-01-01T00:00:00Z"}, []),
    ({"tailLines": "1", "sinceSeconds": "3600"}, LINES[-1:]),
], ids=["all", "tail-2", "tail-0", "tail-past-end", "since-hour", "since-second", "since-time-past",
        "since-time-future", "tail-and-since"])
async def test_log_options(api: httpx.AsyncClient, cluster: kubelite.Cluster, params: dict[str, str],
                           expected: list[str]) -> None:
    await cluster.client.create(_pod("web"))
    await _running(cluster, "web")
    await cluster.advance(60)
    r = await api.get("/api/v1/namespaces/default/pods/web/log", params=params)
    assert r.status_code == 200, r.text
    assert r.text == "".join(f"{line}\n" for line in expected)


async def test_timestamps_and_limit_bytes(api: httpx.AsyncClient, cluster: kubelite.Cluster) -> None:
    await cluster.client.create(_pod("web"))
    started = (await _running(cluster, "web"))["state"]["running"]["startedAt"]
    r = await api.get("/api/v1/namespaces/default/pods/web/log", params={"timestamps": "true"})
    assert r.text == "".join(f"{started} {line}\n" for line in LINES)
    r = await api.get("/api/v1/namespaces/default/pods/web/log", params={"limitBytes": "10"})
    assert r.text == "booting\nli"


@pytest.mark.parametrize(("params", "message"), [
    ({"tailLines": "-1"}, "tailLines: Invalid value: -1: must be greater than or equal to 0"),
    ({"sinceSeconds": "0"}, "sinceSeconds: Invalid value: 0: must be greater than 0"),
    ({"limitBytes": "0"}, "limitBytes: Invalid value: 0: must be greater than 0"),
    ({"tailLines": "x"}, "tailLines: Invalid value: 'x': must be an integer"),
    ({"sinceSeconds": "5", "sinceTime": "2025-01-01T00:00:00Z"}, "at most one of `sinceTime` or `sinceSeconds`"),
    ({"sinceTime": "yesterday"}, "sinceTime: Invalid value: 'yesterday'"),
    ({"container": "nope"}, "container nope is not valid for pod web"),
    ({"previous": "true"}, 'previous terminated container "app" in pod "web" not found'),
], ids=["tail-negative", "since-zero", "limit-zero", "tail-not-int", "since-both", "since-time-bad",
        "unknown-container", "no-previous"])
async def test_bad_options_are_400(api: httpx.AsyncClient, cluster: kubelite.Cluster, params: dict[str, str],
                                   message: str) -> None:
    await cluster.client.create(_pod("web"))
    await _running(cluster, "web")
    r = await api.get("/api/v1/namespaces/default/pods/web/log", params=params)
    assert r.status_code == 400 and r.json()["kind"] == "Status"
    assert message in r.json()["message"]


async def test_previous_is_the_last_terminated_run(api: httpx.AsyncClient, cluster: kubelite.Cluster) -> None:
    await cluster.client.create(_pod("crashy", crashAfter=5, crashCode=2))
    first = (await _running(cluster, "crashy"))["state"]["running"]["startedAt"]
    await cluster.wait_for(lambda: _status(cluster, "crashy").get("restartCount", 0) >= 1 and
                           "running" in (_status(cluster, "crashy").get("state") or {}), timeout=300)
    st = _status(cluster, "crashy")
    assert st["lastState"]["terminated"]["startedAt"] == first
    second = st["state"]["running"]["startedAt"]
    assert second != first
    r = await api.get("/api/v1/namespaces/default/pods/crashy/log", params={"previous": "true", "timestamps": "1"})
    assert r.status_code == 200 and r.text == "".join(f"{first} {line}\n" for line in LINES)
    r = await api.get("/api/v1/namespaces/default/pods/crashy/log", params={"timestamps": "1"})
    assert r.text == "".join(f"{second} {line}\n" for line in LINES)


@pytest.fixture
async def served(cluster: kubelite.Cluster) -> AsyncIterator[tuple[Any, httpx.AsyncClient]]:
    async with cluster.serve(token=TOKEN) as url, httpx.AsyncClient(
            base_url=str(url), headers={"Authorization": f"Bearer {TOKEN}"}, timeout=None) as client:
        yield url, client


async def test_follow_streams_until_the_container_exits(cluster: kubelite.Cluster,
                                                        served: tuple[Any, httpx.AsyncClient]) -> None:
    url, client = served
    await cluster.client.create(_pod("job", "Never", exitAfter=90))
    started = (await _running(cluster, "job"))["state"]["running"]["startedAt"]
    got: list[str] = []
    async with client.stream("GET", "/api/v1/namespaces/default/pods/job/log", params={"follow": "true"}) as r:
        assert r.status_code == 200 and r.headers["content-type"] == "text/plain"
        assert "content-length" not in r.headers  # streamed (chunked), not a whole body
        async for line in r.aiter_lines():
            got.append(line)
            if len(got) == len(LINES):
                assert url.app.watches == 0 and len(url.app._watchers) == 1  # held open, not a watch
    assert got == LINES
    # the stream ended because the run ended: at the exit, on virtual time
    st = _status(cluster, "job")
    assert "terminated" in st["state"] and st["state"]["terminated"]["exitCode"] == 0
    assert format_time(cluster.clock.now()) >= st["state"]["terminated"]["finishedAt"] > started
    assert not url.app._watchers and not url.app._watch_tasks


async def test_follow_ends_when_the_pod_is_deleted(cluster: kubelite.Cluster,
                                                   served: tuple[Any, httpx.AsyncClient]) -> None:
    url, client = served
    await cluster.client.create(_pod("web"))
    await _running(cluster, "web")

    async def follow() -> list[str]:
        async with client.stream("GET", "/api/v1/namespaces/default/pods/web/log", params={"follow": "1"}) as r:
            return [line async for line in r.aiter_lines()]

    task = asyncio.create_task(follow())
    await cluster.wait_for(lambda: len(url.app._watchers) == 1, timeout=30)
    await cluster.client.delete("pods", "web", namespace="default")
    assert await asyncio.wait_for(task, 120) == LINES
    assert not url.app._watchers and not url.app._watch_tasks


async def test_a_client_leaving_a_followed_log_leaves_nothing_behind(
        cluster: kubelite.Cluster, served: tuple[Any, httpx.AsyncClient]) -> None:
    url, client = served
    await cluster.client.create(_pod("web"))
    await _running(cluster, "web")
    async with client.stream("GET", "/api/v1/namespaces/default/pods/web/log", params={"follow": "true"}) as r:
        async for line in r.aiter_lines():
            assert line == LINES[0]
            break
    await cluster.wait_for(lambda: not url.app._watchers and not url.app._watch_tasks, timeout=30)
    r2 = await client.get("/api/v1/namespaces/default/pods/web/log")  # the server keeps serving
    assert r2.status_code == 200 and r2.text.splitlines() == LINES
