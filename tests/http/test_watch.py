"""Watches over a real loopback socket (chunked JSON lines), and the server under hostile clients.

Upstream behaviour followed: ``k8s.io/apiserver/pkg/endpoints/handlers/watch.go`` (one JSON object per
line, BOOKMARKs only when allowed, the watch-list protocol's ``k8s.io/initial-events-end`` bookmark, a
too-old resourceVersion answered by an ERROR event carrying a 410 Status).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

import kubelite


@pytest.fixture
async def served() -> AsyncIterator[tuple[kubelite.Cluster, Any]]:
    async with kubelite.Cluster(seed=5, controllers=False, scheduler=False, network=False) as c, \
            c.serve() as url:
        yield c, url


def _client(url: Any) -> httpx.AsyncClient:
    return httpx.AsyncClient(base_url=url, headers={"Authorization": f"Bearer {url.token}"},
                             timeout=httpx.Timeout(60.0))


def _cm(name: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": {"k": "v"}}


async def _events(resp: httpx.Response, n: int) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    async for line in resp.aiter_lines():
        if line:
            out.append(json.loads(line))
            if len(out) == n:
                break
    return out


async def test_watch_streams_json_lines(served: tuple[kubelite.Cluster, Any]) -> None:
    cluster, url = served
    async with _client(url) as http:
        rv = (await http.get("/api/v1/namespaces/default/configmaps")).json()["metadata"]["resourceVersion"]
        async with http.stream("GET", "/api/v1/namespaces/default/configmaps",
                               params={"watch": "true", "resourceVersion": rv}) as resp:
            assert resp.status_code == 200 and resp.headers["content-type"] == "application/json"
            await cluster.client.create(_cm("a"))
            await cluster.client.patch("configmaps", "a", {"data": {"k": "w"}}, patch_type="merge")
            await cluster.client.delete("configmaps", "a")
            events = await _events(resp, 3)
    assert [e["type"] for e in events] == ["ADDED", "MODIFIED", "DELETED"]
    assert events[1]["object"]["data"] == {"k": "w"}


async def test_watch_list_sends_initial_events_then_the_end_bookmark(served: tuple[kubelite.Cluster, Any]) -> None:
    cluster, url = served
    for name in ("x", "y"):
        await cluster.client.create(_cm(name))
    async with _client(url) as http, http.stream(
            "GET", "/api/v1/namespaces/default/configmaps",
            params={"watch": "1", "sendInitialEvents": "true", "resourceVersionMatch": "NotOlderThan",
                    "allowWatchBookmarks": "true"}) as resp:
        events = await _events(resp, 3)
    assert [(e["type"], e["object"]["metadata"].get("name")) for e in events[:2]] == [("ADDED", "x"), ("ADDED", "y")]
    assert events[2]["type"] == "BOOKMARK"
    assert events[2]["object"]["metadata"]["annotations"] == {"k8s.io/initial-events-end": "true"}


async def test_send_initial_events_requires_not_older_than(served: tuple[kubelite.Cluster, Any]) -> None:
    _, url = served
    async with _client(url) as http:
        r = await http.get("/api/v1/configmaps", params={"watch": "1", "sendInitialEvents": "true"})
    assert r.status_code == 400 and r.json()["kind"] == "Status"


async def test_watch_ends_after_timeout_seconds_of_cluster_time(served: tuple[kubelite.Cluster, Any]) -> None:
    cluster, url = served
    t0 = cluster.now
    async with _client(url) as http, http.stream("GET", "/api/v1/configmaps",
                                                 params={"watch": "true", "timeoutSeconds": "30"}) as resp:
        lines = [line async for line in resp.aiter_lines() if line]
    assert cluster.now - t0 == pytest.approx(30, abs=1)
    assert all(json.loads(line)["type"] == "ADDED" for line in lines)  # no resourceVersion: the current state first


async def test_a_too_old_resource_version_is_an_error_event(served: tuple[kubelite.Cluster, Any]) -> None:
    cluster, url = served
    for i in range(3):
        await cluster.client.create(_cm(f"old{i}"))
    cluster.compact()
    async with _client(url) as http, http.stream("GET", "/api/v1/configmaps",
                                                 params={"watch": "true", "resourceVersion": "2"}) as resp:
        events = await _events(resp, 1)
    assert events[0]["type"] == "ERROR"
    assert events[0]["object"]["code"] == 410 and events[0]["object"]["reason"] == "Expired"


async def test_watch_events_as_tables(served: tuple[kubelite.Cluster, Any]) -> None:
    cluster, url = served
    await cluster.client.create(_cm("t"))
    async with _client(url) as http, http.stream(
            "GET", "/api/v1/namespaces/default/configmaps", params={"watch": "true"},
            headers={"Accept": "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"}) as resp:
        first = (await _events(resp, 1))[0]
    assert first["type"] == "ADDED" and first["object"]["kind"] == "Table"
    assert [c["name"] for c in first["object"]["columnDefinitions"]] == ["Name", "Data", "Age"]
    assert first["object"]["rows"][0]["cells"][:2] == ["t", 1]  # DATA is an int64 cell, as printers.go writes it


async def test_many_concurrent_watchers_all_see_every_event(served: tuple[kubelite.Cluster, Any]) -> None:
    cluster, url = served
    rv = str(cluster.store.revision)
    n = 40

    async def watch(http: httpx.AsyncClient) -> list[str]:
        async with http.stream("GET", "/api/v1/namespaces/default/configmaps",
                               params={"watch": "true", "resourceVersion": rv}) as resp:
            return [e["object"]["metadata"]["name"] for e in await _events(resp, 5)]

    async with _client(url) as http:
        tasks = [asyncio.create_task(watch(http)) for _ in range(n)]
        await cluster.wait_for(lambda: url.app.watches == n, timeout=30)
        for i in range(5):
            await cluster.client.create(_cm(f"m{i}"))
        results = await asyncio.gather(*tasks)
    assert results == [[f"m{i}" for i in range(5)]] * n


async def test_clients_disconnecting_mid_watch_leave_no_tasks(served: tuple[kubelite.Cluster, Any]) -> None:
    cluster, url = served
    before = {t for t in asyncio.all_tasks() if not t.done()}
    for _ in range(5):
        reader, writer = await asyncio.open_connection("127.0.0.1", url.port)
        writer.write(f"GET /api/v1/configmaps?watch=true HTTP/1.1\r\nHost: x\r\n"
                     f"Authorization: Bearer {url.token}\r\n\r\n".encode())
        await writer.drain()
        assert (await reader.readline()).startswith(b"HTTP/1.1 200")
        writer.close()
        await writer.wait_closed()
    await cluster.wait_for(lambda: url.app.watches == 0, timeout=30)
    await cluster.settle()
    leaked = {t for t in asyncio.all_tasks() if not t.done()} - before - {asyncio.current_task()}
    assert leaked == set()


async def test_slowloris_and_garbage_do_not_stop_the_server(served: tuple[kubelite.Cluster, Any]) -> None:
    _, url = served
    slow_r, slow_w = await asyncio.open_connection("127.0.0.1", url.port)
    slow_w.write(b"GET /api/v1/namespaces HTTP/1.1\r\nHost: x\r\nX-Slow: ")  # never finished
    await slow_w.drain()
    junk_r, junk_w = await asyncio.open_connection("127.0.0.1", url.port)
    junk_w.write(b"\x16\x03\x01 not http at all\r\n\r\n")
    await junk_w.drain()
    status = await junk_r.readline()
    assert status.startswith(b"HTTP/1.1 400")
    async with _client(url) as http:
        assert (await http.get("/version")).status_code == 200
        assert (await http.get("/api/v1/namespaces")).status_code == 200
    for w in (slow_w, junk_w):
        w.close()
    del slow_r


async def test_a_head_past_go_s_header_limit_gets_431_and_the_server_keeps_serving(
        served: tuple[kubelite.Cluster, Any]) -> None:
    """Go's net/http (kube-apiserver's server) answers 431 to a head over DefaultMaxHeaderBytes (1 MiB) and
    closes the connection; the C parser under uvicorn has no limit of its own."""
    from kubelite.http.server import MAX_HEADER_BYTES

    _, url = served
    reader, writer = await asyncio.open_connection("127.0.0.1", url.port)
    writer.write(b"GET /version HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * (MAX_HEADER_BYTES + 1024))
    try:
        await writer.drain()
        answer = await reader.read()  # to EOF: the server closed the connection
    except ConnectionResetError:  # the close may reset before the 431 is read: still not served
        answer = b""
    assert answer == b"" or answer.startswith(b"HTTP/1.1 431 Request Header Fields Too Large\r\n")
    writer.close()
    # a head just under the limit is served
    reader, writer = await asyncio.open_connection("127.0.0.1", url.port)
    writer.write(b"GET /version HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * (MAX_HEADER_BYTES // 2) + b"\r\n\r\n")
    await writer.drain()
    assert (await reader.readline()).startswith(b"HTTP/1.1 200")
    writer.close()


async def test_a_huge_body_over_the_socket_gets_413_and_the_server_keeps_serving(
        served: tuple[kubelite.Cluster, Any]) -> None:
    cluster, url = served
    before = len(cluster.apiserver.read_all("", "configmaps"))
    reader, writer = await asyncio.open_connection("127.0.0.1", url.port)
    writer.write(b"POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "
                 + url.token.encode() + b"\r\nContent-Type: application/json\r\nContent-Length: 50000000\r\n\r\n")
    with contextlib.suppress(ConnectionError):
        for _ in range(64):  # 4 MiB of a 50 MB body: past the 3 MiB limit
            writer.write(b"a" * 65536)
            await writer.drain()
    status = await reader.readline()
    assert status.startswith(b"HTTP/1.1 413")
    writer.close()
    assert len(cluster.apiserver.read_all("", "configmaps")) == before  # nothing was created
    async with _client(url) as http:
        assert (await http.get("/version")).status_code == 200
