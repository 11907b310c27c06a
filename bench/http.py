"""HTTP benchmark (issue #11): the REST API over loopback, with in-run floors.

    python bench/http.py [--seconds 2] [--pods 1000] [--events 5000]

- GET of one object and LIST of ``--pods`` pods: requests/s over keep-alive loopback connections (a minimal
  raw-socket HTTP/1.1 client in the same process and loop, so client and server share one core). The floor is
  a plain ASGI hello-world on the same uvicorn setup, measured the same way in the same run; kube-apiserver's
  published figures are quoted for scale.
- Watch: events/s delivered to 10 HTTP watchers (chunked JSON lines, read and counted by raw sockets).
- kopf: wall time of a kopf operator test from process start (a fresh interpreter: imports, cluster start,
  HTTPS serve, operator start, one create handled, clean stop).

Figures only, no assertions (the latest are in bench/RESULTS.md under "#11 http").
"""

# ruff: noqa: E402 - imports follow the sys.path fix below
from __future__ import annotations

import sys
from pathlib import Path

# this file is named http.py: keep its directory off sys.path so `import http` (uvicorn, h11) finds the stdlib
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

import argparse
import asyncio
import subprocess
import textwrap
import time
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import kubelite
from kubelite.http.server import serve

TOKEN = "bench-token"


async def _client_loop(port: int, path: str, deadline: float, counter: list[int]) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    request = f"GET {path} HTTP/1.1\r\nHost: b\r\nAuthorization: Bearer {TOKEN}\r\n\r\n".encode()
    try:
        while time.perf_counter() < deadline:
            writer.write(request)
            length = 0
            while True:
                line = await reader.readline()
                if line in (b"\r\n", b""):
                    break
                if line[:15].lower() == b"content-length:":
                    length = int(line[15:])
            await reader.readexactly(length)
            counter[0] += 1
    finally:
        writer.close()


async def _rate(port: int, path: str, seconds: float, conns: int = 8) -> float:
    counter = [0]
    t0 = time.perf_counter()
    await asyncio.gather(*(_client_loop(port, path, t0 + seconds, counter) for _ in range(conns)))
    return counter[0] / (time.perf_counter() - t0)


async def hello_floor(seconds: float) -> float:
    """Requests/s of a plain ASGI hello-world on the same uvicorn setup (the floor)."""
    import socket

    import uvicorn

    async def app(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        await receive()
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-type", b"text/plain"), (b"content-length", b"5")]})
        await send({"type": "http.response.body", "body": b"hello"})

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    config = uvicorn.Config(app, lifespan="off", log_level="warning", access_log=False, http="h11", ws="none",
                            date_header=False, server_header=False)
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve(sockets=[sock]))
    while not server.started:  # noqa: ASYNC110 - uvicorn offers no startup event
        await asyncio.sleep(0.01)
    try:
        return await _rate(sock.getsockname()[1], "/", seconds)
    finally:
        server.should_exit = True
        await task


async def api_rates(seconds: float, pods: int) -> dict[str, float]:
    async with kubelite.Cluster(seed=1, controllers=False, scheduler=False, network=False,
                                virtual_time=False) as cluster:
        c = cluster.client
        await c.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "one"}, "data": {"a": "b"}})
        for i in range(pods):
            await c.create({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"p{i:04d}", "labels": {"i": "x"}},
                            "spec": {"containers": [{"name": "c", "image": "nginx:1.25"}]}})
        async with serve(cluster, token=TOKEN) as url:
            get = await _rate(url.port, "/api/v1/namespaces/default/configmaps/one", seconds)
            lst = await _rate(url.port, "/api/v1/namespaces/default/pods", seconds, conns=2)
    return {"get": get, "list": lst}


async def watch_rate(events: int, watchers: int = 10) -> float:
    async with kubelite.Cluster(seed=1, controllers=False, scheduler=False, network=False,
                                virtual_time=False) as cluster, serve(cluster, token=TOKEN) as url:
        rv = str(cluster.store.revision)
        got = [0] * watchers
        finished = [0]
        done = asyncio.Event()

        async def watcher(i: int) -> None:
            reader, writer = await asyncio.open_connection("127.0.0.1", url.port)
            writer.write(f"GET /api/v1/namespaces/default/configmaps?watch=true&resourceVersion={rv} HTTP/1.1\r\n"
                         f"Host: b\r\nAuthorization: Bearer {TOKEN}\r\n\r\n".encode())
            while (await reader.readline()) != b"\r\n":
                pass
            marker = b'{"type":"ADDED"'
            carry = b""
            while got[i] < events:
                chunk = await reader.read(1 << 20)
                if not chunk:
                    break
                data = carry + chunk  # chunked framing interleaves size lines: count event markers instead
                got[i] += data.count(marker)
                carry = data[-(len(marker) - 1):]
            writer.close()
            finished[0] += 1
            if finished[0] == watchers:
                done.set()

        tasks = [asyncio.create_task(watcher(i)) for i in range(watchers)]
        await cluster.wait_for(lambda: url.app.watches == watchers, timeout=30)
        t0 = time.perf_counter()
        for i in range(events):
            await cluster.client.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"w{i}"}})
            if i % 100 == 99:  # let the server drain the watchers' channels (a slow watcher is closed, as upstream)
                await asyncio.sleep(0)
        await asyncio.wait_for(done.wait(), 120)
        elapsed = time.perf_counter() - t0
        await asyncio.gather(*tasks)
    return sum(got) / elapsed


KOPF_SCRIPT = textwrap.dedent('''
    import asyncio, time
    t_start = time.perf_counter()
    import kopf, kubelite

    CRD = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
           "metadata": {"name": "widgets.example.com"},
           "spec": {"group": "example.com", "scope": "Namespaced",
                    "names": {"plural": "widgets", "singular": "widget", "kind": "Widget"},
                    "versions": [{"name": "v1", "served": True, "storage": True, "subresources": {"status": {}},
                                  "schema": {"openAPIV3Schema": {"type": "object",
                                             "x-kubernetes-preserve-unknown-fields": True}}}]}}

    class Mine(frozenset):
        def __contains__(self, t):
            code = getattr(t.get_coro(), "cr_code", None)
            return code is None or "/kopf/" not in code.co_filename

    async def main():
        async with kubelite.Cluster(seed=1, nodes=0, controllers=["garbagecollector"]) as c, \\
                c.serve(tls=True) as url:
            await c.client.create(CRD)
            reg = kopf.OperatorRegistry()

            @kopf.on.login(registry=reg)
            def login(**_):
                return kopf.ConnectionInfo(server=str(url), ca_path=url.ca_file, token=url.token)

            @kopf.on.create("example.com", "v1", "widgets", id="setup", registry=reg)
            async def created(patch, **_):
                patch.status["phase"] = "Ready"

            stop, ready = asyncio.Event(), asyncio.Event()
            tasks = await kopf.spawn_tasks(registry=reg, namespaces=["default"], standalone=True,
                                           stop_flag=stop, ready_flag=ready)
            op = asyncio.create_task(kopf.run_tasks(tasks, ignored=Mine()))
            await ready.wait()
            await c.client.create({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}})
            await c.wait_for(lambda: ((c.apiserver.read("example.com", "widgets", "default", "w") or {})
                                      .get("status") or {}).get("phase") == "Ready", timeout=60)
            stop.set()
            await op

    asyncio.run(main())
    print(f"in-process {time.perf_counter() - t_start:.3f}")
''')


def kopf_wall() -> tuple[float, float]:
    t0 = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", KOPF_SCRIPT], capture_output=True, text=True, check=True,
                         cwd=Path(__file__).resolve().parent.parent).stdout
    wall = time.perf_counter() - t0
    inproc = float(out.split()[-1])
    return wall, inproc


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=2.0)
    ap.add_argument("--pods", type=int, default=1000)
    ap.add_argument("--events", type=int, default=5000)
    args = ap.parse_args()
    floor = asyncio.run(hello_floor(args.seconds))
    rates = asyncio.run(api_rates(args.seconds, args.pods))
    wrate = asyncio.run(watch_rate(args.events))
    wall, inproc = kopf_wall()
    print(f"ASGI hello-world floor (uvicorn, same client)  {floor:10,.0f} req/s")
    print(f"GET one ConfigMap                              {rates['get']:10,.0f} req/s  "
          f"({rates['get'] / floor:.2f}x the floor; kube-apiserver publishes ~several thousand/s per core)")
    print(f"LIST {args.pods} pods                                 {rates['list']:10,.1f} req/s  "
          f"({rates['list'] * args.pods:,.0f} pods/s)")
    print(f"watch events to 10 HTTP watchers               {wrate:10,.0f} events/s")
    print(f"kopf operator test from process start          {wall:10.2f} s  (in-process after imports: {inproc:.2f} s)")


if __name__ == "__main__":
    main()
