"""A watch event is encoded once per format and version, however many HTTP watchers receive it.

Upstream behaviour followed: the cacher wraps every dispatched event's object in a ``cachingObject``
(``k8s.io/apiserver/pkg/storage/cacher/caching_object.go``), and the watch handler's ``watchEncoder``
(``endpoints/handlers/response.go``) caches the whole encoded event in it under an identifier naming the
embedded encoder (media type, target version, Table options including ``noHeaders``) and the event type; so
every watcher served the same way writes the bytes the first one produced, and watchers served differently
(another version, another ``includeObject``) get their own encoding, never another's.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
import pytest

import kubelite
import kubelite.http.app as app_module
from kubelite.store import WatchEvent

TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"


@pytest.fixture
async def served() -> AsyncIterator[tuple[kubelite.Cluster, Any]]:
    async with kubelite.Cluster(seed=7, controllers=False, scheduler=False, network=False) as c, \
            c.serve() as url:
        yield c, url


def _counting(monkeypatch: pytest.MonkeyPatch, owner: Any, name: str) -> list[Any]:
    """Replace ``owner.name`` by a wrapper that records each call's first argument."""
    calls: list[Any] = []
    real: Callable[..., Any] = getattr(owner, name)

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        calls.append(args[0] if args else None)
        return real(*args, **kwargs)

    monkeypatch.setattr(owner, name, wrapper)
    return calls


async def _watch_raw(url: Any, path: str, params: dict[str, str], n: int, *, accept: str = "application/json"
                     ) -> list[bytes]:
    """The first ``n`` event lines (raw bytes) of one watch."""
    lines: list[bytes] = []
    async with httpx.AsyncClient(base_url=url, headers={"Authorization": f"Bearer {url.token}", "Accept": accept},
                                 timeout=httpx.Timeout(60.0)) as http, \
            http.stream("GET", path, params={"watch": "true", **params}) as resp:
        assert resp.status_code == 200
        buf = b""
        async for chunk in resp.aiter_bytes():
            buf += chunk
            while b"\n" in buf and len(lines) < n:
                line, _, buf = buf.partition(b"\n")
                lines.append(line)
            if len(lines) == n:
                break
    return lines


async def _fan_out(cluster: kubelite.Cluster, url: Any, watchers: list[tuple[str, dict[str, str], str]],
                   write: Callable[[], Any], n: int) -> list[list[bytes]]:
    tasks = [asyncio.create_task(_watch_raw(url, path, params, n, accept=accept))
             for path, params, accept in watchers]
    await cluster.wait_for(lambda: url.app.watches == len(watchers), timeout=30)
    await write()
    return list(await asyncio.gather(*tasks))


def _cm(name: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": {"k": name}}


async def test_ten_json_watchers_share_one_encoding_per_event(served: tuple[kubelite.Cluster, Any],
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    cluster, url = served
    encoded = _counting(monkeypatch, app_module, "_json_line")
    rv = str(cluster.store.revision)

    async def write() -> None:
        await cluster.client.create(_cm("a"))
        await cluster.client.patch("configmaps", "a", {"data": {"k": "b"}}, patch_type="merge")
        await cluster.client.delete("configmaps", "a")

    # cluster-wide and namespaced watchers both receive the one shared event
    paths = ["/api/v1/namespaces/default/configmaps"] * 5 + ["/api/v1/configmaps"] * 5
    results = await _fan_out(cluster, url, [(p, {"resourceVersion": rv}, "application/json") for p in paths],
                             write, 3)
    assert [[json.loads(line)["type"] for line in r] for r in results] == [["ADDED", "MODIFIED", "DELETED"]] * 10
    assert all(r == results[0] for r in results)  # the very same bytes
    assert len(encoded) == 3  # one encoding per event, not one per (event, watcher): 30


async def test_table_watchers_share_one_encoding_per_event_and_table_options(
        served: tuple[kubelite.Cluster, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    cluster, url = served
    tables = _counting(monkeypatch, app_module, "_table_line")
    rv = str(cluster.store.revision)

    async def write() -> None:
        for name in ("t1", "t2", "t3"):
            await cluster.client.create(_cm(name))

    path = "/api/v1/namespaces/default/configmaps"
    watchers = [(path, {"resourceVersion": rv}, TABLE)] * 4 + [(path, {"resourceVersion": rv,
                                                                       "includeObject": "None"}, TABLE)] * 2
    results = await _fan_out(cluster, url, watchers, write, 3)
    docs = [[json.loads(line)["object"] for line in r] for r in results]
    # headers only in each watch's first event (upstream sets noHeaders after the first), same cells for all
    for events in docs:
        assert ["columnDefinitions" in t for t in events] == [True, False, False]
        assert [t["rows"][0]["cells"][:2] for t in events] == [["t1", 1], ["t2", 1], ["t3", 1]]
    assert all(r == results[0] for r in results[:4]) and results[4] == results[5]
    # includeObject is part of the encoder's identity: the two groups never share bytes
    assert docs[0][0]["rows"][0]["object"]["kind"] == "PartialObjectMetadata"
    assert docs[4][0]["rows"][0]["object"] is None
    # one Table per event and identity: 3 events x 2 identities, not 3 x 6 watchers
    assert len(tables) == 6


async def test_converted_watch_events_are_converted_once_per_version(served: tuple[kubelite.Cluster, Any],
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    cluster, url = served
    converted = _counting(monkeypatch, cluster.apiserver.scheme, "event_for")
    rv = str(cluster.store.revision)
    hpa = {"apiVersion": "autoscaling/v1", "kind": "HorizontalPodAutoscaler", "metadata": {"name": "web"},
           "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
                    "maxReplicas": 5, "targetCPUUtilizationPercentage": 60}}

    async def write() -> None:
        await cluster.client.create(hpa)
        await cluster.client.patch(("autoscaling/v1", "HorizontalPodAutoscaler"), "web",
                                   {"spec": {"maxReplicas": 7}}, patch_type="merge")

    v1 = "/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers"
    v2 = "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers"
    watchers = [(v1, {"resourceVersion": rv}, "application/json")] * 4 + \
               [(v2, {"resourceVersion": rv}, "application/json")] * 2
    results = await _fan_out(cluster, url, watchers, write, 2)
    objs = [[json.loads(line)["object"] for line in r] for r in results]
    assert {o["apiVersion"] for r in objs[:4] for o in r} == {"autoscaling/v1"}
    assert [o["spec"].get("targetCPUUtilizationPercentage") for o in objs[0]] == [60, 60]
    assert {o["apiVersion"] for r in objs[4:] for o in r} == {"autoscaling/v2"}
    assert "metrics" in objs[4][0]["spec"] and "targetCPUUtilizationPercentage" not in objs[4][0]["spec"]
    assert len(converted) == 2  # two events converted to v1 once each, for four v1 watchers; v2 is storage


def test_cache_encode_computes_once_per_key() -> None:
    ev = WatchEvent("ADDED", 3, b'{"kind":"ConfigMap"}')
    calls: list[str] = []

    def enc(tag: str) -> Callable[[WatchEvent], bytes]:
        def encode(e: WatchEvent) -> bytes:
            calls.append(tag)
            return tag.encode() + e.data

        return encode

    assert ev.cache_encode("a", enc("a")) == b'a{"kind":"ConfigMap"}'
    assert ev.cache_encode("a", enc("other")) == b'a{"kind":"ConfigMap"}'  # the first encoding wins for a key
    assert ev.cache_encode("b", enc("b")) == b'b{"kind":"ConfigMap"}'
    assert calls == ["a", "b"]
    assert WatchEvent("ADDED", 3, ev.data).cache_encode("a", enc("fresh")) == b'fresh{"kind":"ConfigMap"}'
