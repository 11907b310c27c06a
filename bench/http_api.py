"""HTTP benchmark (issue #11): the REST API over loopback, with in-run floors.

    python bench/http_api.py [--seconds 2] [--pods 1000] [--events 5000] [--accept HEADER]

- GET of one object and LIST of ``--pods`` pods: requests over keep-alive loopback connections from a load
  generator in another process (so the server has one core to itself), per wall second and per CPU-second
  of the server's process (the "one core" figure, robust to a shared machine). The floor is a plain ASGI
  hello-world on the very server setup ``serve`` uses (:func:`kubelite.http.server.uvicorn_server`),
  measured the same way in the same run. ``--accept`` sends that ``Accept`` header with every GET (client-go's
  typed clients send ``application/vnd.kubernetes.protobuf,application/json``, kubectl a Table list; the
  default sends none, as the figures before stop 23 did).
- Watch: events delivered to 10 HTTP watchers (another process, chunked JSON lines, counted), replayed from
  the watch cache (the HTTP watch path alone) and live (while the server's process writes them).
- kopf: wall time of a kopf operator test from process start (a fresh interpreter: imports, cluster start,
  HTTPS serve, operator start, one create handled, clean stop), with its phases; as installed here (kopf then
  imports ``kubernetes`` and ``kubernetes_asyncio``, its optional integrations, because the test extra has
  them) and as in an environment with kopf only (those imports made to fail, nothing else changed).
- The wall time of the suite's one-hour kopf test (tests/http/test_kopf.py), as pytest times its call.

Figures only, no assertions (the latest are in bench/RESULTS.md under "#11 http").
"""


from __future__ import annotations

import argparse
import asyncio
import cProfile
import os
import pstats
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import kubelite
from kubelite.http.server import serve, uvicorn_server

TOKEN = "bench-token"

#: The load generator: a separate process (so the server has its core to itself, as "on one core" means) with
#: ``conns`` keep-alive connections, each sending its next GET as soon as the last response is whole (asyncio
#: Protocols, no streams: the client's own cost stays well below the server's). Prints ``count seconds``.
LOADGEN = textwrap.dedent('''
    import asyncio, sys, time

    class Conn(asyncio.Protocol):
        def __init__(self, request, deadline, counter, done):
            self.request, self.deadline, self.counter, self.done = request, deadline, counter, done
            self.buf, self.need = bytearray(), None
        def connection_made(self, transport):
            self.transport = transport
            transport.write(self.request)
        def data_received(self, data):
            self.buf += data
            while True:
                if self.need is None:
                    end = self.buf.find(b"\\r\\n\\r\\n")
                    if end < 0:
                        return
                    head = bytes(self.buf[:end]).lower()
                    at = head.index(b"content-length:") + 15
                    eol = head.find(b"\\r\\n", at)
                    self.need = end + 4 + int(head[at:eol if eol >= 0 else None])
                if len(self.buf) < self.need:
                    return
                del self.buf[:self.need]
                self.need = None
                self.counter[0] += 1
                if time.perf_counter() >= self.deadline or 0 < LIMIT <= self.counter[0]:
                    self.transport.close()
                    if not self.done.done():
                        self.done.set_result(None)
                    return
                self.transport.write(self.request)
        def connection_lost(self, exc):
            if not self.done.done():
                self.done.set_result(None)

    async def main(port, path, seconds, conns, token, accept):
        loop = asyncio.get_running_loop()
        extra = f"Accept: {accept}\\r\\n" if accept else ""
        request = f"GET {path} HTTP/1.1\\r\\nHost: b\\r\\nAuthorization: Bearer {token}\\r\\n{extra}\\r\\n".encode()
        counter, done = [0], []
        t0 = time.perf_counter()
        for _ in range(conns):
            done.append(loop.create_future())
            await loop.create_connection(lambda d=done[-1]: Conn(request, t0 + seconds, counter, d), "127.0.0.1", port)
        await asyncio.gather(*done)
        print(counter[0], time.perf_counter() - t0)

    LIMIT = int(sys.argv[7]) if len(sys.argv) > 7 else 0  # stop after this many responses (0: none)
    asyncio.run(main(int(sys.argv[1]), sys.argv[2], float(sys.argv[3]), int(sys.argv[4]), sys.argv[5],
                     sys.argv[6] if len(sys.argv) > 6 else ""))
''')


class Rate:
    """Responses per wall second, and per CPU-second of the serving process (its one core's capacity)."""

    def __init__(self, count: int, wall: float, cpu: float) -> None:
        self.count, self.wall, self.cpu = count, wall, cpu

    @property
    def per_s(self) -> float:
        return self.count / self.wall

    @property
    def per_cpu_s(self) -> float:
        return self.count / self.cpu


async def _rate(port: int, path: str, seconds: float, conns: int = 8, accept: str = "", limit: int = 0) -> Rate:
    proc = await asyncio.create_subprocess_exec(sys.executable, "-c", LOADGEN, str(port), path, str(seconds),
                                                str(conns), TOKEN, accept, str(limit), stdout=subprocess.PIPE)
    cpu0 = time.process_time()
    out, _ = await proc.communicate()
    cpu = time.process_time() - cpu0
    count, wall = out.split()
    return Rate(int(count), float(wall), cpu)


async def hello_floor(seconds: float, accept: str = "") -> Rate:
    """A plain ASGI hello-world on the very server setup kubelite serves with (the floor)."""
    import socket

    async def app(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        await receive()
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-type", b"text/plain"), (b"content-length", b"5")]})
        await send({"type": "http.response.body", "body": b"hello"})

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    server = uvicorn_server(app)
    task = asyncio.create_task(server.serve(sockets=[sock]))
    while not server.started:  # noqa: ASYNC110 - uvicorn offers no startup event
        await asyncio.sleep(0.01)
    try:
        return await _rate(sock.getsockname()[1], "/", seconds, accept=accept)
    finally:
        server.stop()
        await task


async def api_rates(seconds: float, pods: int, accept: str = "") -> tuple[dict[str, Rate], float]:
    """GET and LIST rates, and the server's Python calls per GET (cProfile's count: load-independent)."""
    async with kubelite.Cluster(seed=1, controllers=False, scheduler=False, network=False,
                                virtual_time=False) as cluster:
        c = cluster.client
        await c.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "one"}, "data": {"a": "b"}})
        for i in range(pods):
            await c.create({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"p{i:04d}", "labels": {"i": "x"}},
                            "spec": {"containers": [{"name": "c", "image": "nginx:1.25"}]}})
        async with serve(cluster, token=TOKEN) as url:
            get = await _rate(url.port, "/api/v1/namespaces/default/configmaps/one", seconds, accept=accept)
            lst = await _rate(url.port, "/api/v1/namespaces/default/pods", seconds, conns=2)
            # the load-independent figure: the server's Python calls per GET (cProfile's count, not its times)
            prof = cProfile.Profile()
            prof.enable()
            # (a fixed number of GETs, so the load generator's start, the same in every run, weighs the same)
            profiled = await _rate(url.port, "/api/v1/namespaces/default/configmaps/one", 60.0, accept=accept,
                                   limit=3000)
            prof.disable()
    return {"get": get, "list": lst}, pstats.Stats(prof).total_calls / max(profiled.count, 1)


#: Watch clients: a separate process with ``n`` connections, each watching until it has counted ``events``
#: ADDED events; prints the events counted and the seconds from the first connection's start to the last
#: connection's last event. Chunked framing interleaves size lines, so event markers are counted.
WATCHERS = textwrap.dedent('''
    import asyncio, sys, time

    async def watch(port, path, token, events, marker=b'{"type":"ADDED"'):
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(f"GET {path} HTTP/1.1\\r\\nHost: b\\r\\nAuthorization: Bearer {token}\\r\\n\\r\\n".encode())
        got, carry = 0, b""
        while got < events:
            chunk = await reader.read(1 << 20)
            if not chunk:
                break
            data = carry + chunk
            got += data.count(marker)
            carry = data[-(len(marker) - 1):]
        writer.close()
        return got, time.perf_counter()

    async def main(port, path, token, n, events):
        t0 = time.perf_counter()
        done = await asyncio.gather(*(watch(port, path, token, events) for _ in range(n)))
        print(sum(g for g, _ in done), max(t for _, t in done) - t0)

    asyncio.run(main(int(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])))
''')


async def watch_rates(events: int, watchers: int = 10, rounds: int = 3) -> dict[str, Rate]:
    """Events delivered to ``watchers`` HTTP watchers (in another process), and the floor under them.

    - ``replay``: ``events`` ConfigMaps are written first; each watcher then watches from the revision before
      them, so the watch cache replays them all: the HTTP watch path alone (encode, frame, send).
    - ``live``: the watchers connect first, then ``events`` creates go through the apiserver's write path in
      the server's process while it fans each out to every watcher (the write path is most of that CPU).
    - ``writes``: the same creates with no watcher (its ``count`` is the creates): the floor ``live`` stands
      on, so ``live`` CPU minus ``writes`` CPU is what the fan-out itself costs.

    Each mode runs ``rounds`` times, interleaved, and the round with the median CPU is kept (a shared
    machine's noise moves single runs by 2x).
    """
    runs: dict[str, list[Rate]] = {"replay": [], "live": [], "writes": []}
    for _ in range(rounds):
        for mode in runs:
            runs[mode].append(await _watch_round(mode, events, watchers))
    return {mode: sorted(rs, key=lambda r: r.cpu)[len(rs) // 2] for mode, rs in runs.items()}


async def _watch_round(mode: str, events: int, watchers: int) -> Rate:
    async with kubelite.Cluster(seed=1, controllers=False, scheduler=False, network=False,
                                virtual_time=False) as cluster, serve(cluster, token=TOKEN) as url:
        rv = str(cluster.store.revision)

        async def write_all() -> None:
            for i in range(events):
                await cluster.client.create({"apiVersion": "v1", "kind": "ConfigMap",
                                             "metadata": {"name": f"w{i}"}})
                if i % 100 == 99:  # let the server drain the watchers' channels (a slow watcher is closed)
                    await asyncio.sleep(0)

        if mode == "writes":
            cpu0, t0 = time.process_time(), time.perf_counter()
            await write_all()
            return Rate(events, time.perf_counter() - t0, time.process_time() - cpu0)
        if mode == "replay":
            await write_all()
        path = f"/api/v1/namespaces/default/configmaps?watch=true&resourceVersion={rv}"
        cpu0 = time.process_time()
        proc = await asyncio.create_subprocess_exec(sys.executable, "-c", WATCHERS, str(url.port), path, TOKEN,
                                                    str(watchers), str(events), stdout=subprocess.PIPE)
        if mode == "live":
            await cluster.wait_for(lambda: url.app.watches == watchers, timeout=60)
            await write_all()
        stdout, _ = await proc.communicate()
        cpu = time.process_time() - cpu0
        count, wall = stdout.split()
        return Rate(int(count), float(wall), cpu)


def kopf_wall(mode: str, pycache: str) -> tuple[float, dict[str, float]]:
    """Wall time of the kopf test from process start in a fresh interpreter (``mode``: "as-installed" or
    "kopf-only"), and its phases' wall seconds: bench/coldstart.py's ``kopf_run`` (the one script; its
    ``--kopf`` also prints the phases' CPU time and the ``import kopf`` floor)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("coldstart", Path(__file__).resolve().parent / "coldstart.py")
    assert spec is not None and spec.loader is not None
    coldstart = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(coldstart)
    wall, phases = coldstart.kopf_run(mode, pycache)
    return wall, {name: float(w) for name, (w, _cpu) in phases.items() if name != "process"}


def hour_test_wall() -> tuple[float, float]:
    """Wall seconds of tests/http/test_kopf.py's one-hour test (a kopf operator reconciling every 10 minutes
    of asyncio time), as pytest reports its call phase, and of the whole pytest process."""
    test = "tests/http/test_kopf.py::test_an_hour_of_ten_minute_reconciles"
    t0 = time.perf_counter()
    out = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--durations=0",
                          "--durations-min=0", test], capture_output=True, text=True, check=True,
                         cwd=Path(__file__).resolve().parent.parent).stdout
    wall = time.perf_counter() - t0
    call = next(float(line.split("s")[0]) for line in out.splitlines() if " call " in line)
    return call, wall


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=2.0)
    ap.add_argument("--pods", type=int, default=1000)
    ap.add_argument("--events", type=int, default=5000)
    ap.add_argument("--accept", default="", help="the Accept header every GET sends (default: none)")
    ap.add_argument("--only", choices=("get", "watch", "kopf"), action="append",
                    help="run only these parts (repeatable; default: all)")
    args = ap.parse_args()
    parts = set(args.only or ("get", "watch", "kopf"))
    load0 = os.getloadavg()[0]
    out: list[str] = []
    if "get" in parts:
        floor = asyncio.run(hello_floor(args.seconds, args.accept))
        rates, calls = asyncio.run(api_rates(args.seconds, args.pods, args.accept))
        get, lst = rates["get"], rates["list"]
        out.append(f"ASGI hello-world floor (same server)     {floor.per_s:10,.0f}   {floor.per_cpu_s:10,.0f} req")
        out.append(f"GET one ConfigMap                        {get.per_s:10,.0f}   {get.per_cpu_s:10,.0f} req   "
                   f"({get.per_cpu_s / floor.per_cpu_s:.2f}x the floor per CPU-s)")
        out.append(f"  server-side Python calls per GET (cProfile count, load-independent) {calls:6.0f}"
                   + (f"  (Accept: {args.accept})" if args.accept else "  (no Accept header)"))
        out.append(f"LIST {args.pods} pods                           {lst.per_s:10,.1f}   {lst.per_cpu_s:10,.1f} req   "
                   f"({lst.per_cpu_s * args.pods:,.0f} pods per CPU-s)")
    if "watch" in parts:
        watch = asyncio.run(watch_rates(args.events))
        for mode, what in (("replay", "from the watch cache"), ("live", "while writing them")):
            r = watch[mode]
            out.append(f"watch events to 10 HTTP watchers, {mode:6s} {r.per_s:10,.0f}   {r.per_cpu_s:10,.0f} events  "
                       f"({what})")
        writes, live = watch["writes"], watch["live"]
        fan_cpu = max(live.cpu - writes.cpu, 1e-9)
        out.append(f"  floor: the same creates, no watcher    {writes.per_s:10,.0f}   {writes.per_cpu_s:10,.0f} creates "
                   f"({writes.per_cpu_s * 10:,.0f} events per CPU-s if fan-out were free)")
        out.append(f"  fan-out alone (live CPU - floor CPU)   {fan_cpu / live.count * 1e6:10.2f} us per delivered "
                   f"event ({live.count / fan_cpu:,.0f} events per fan-out CPU-s)")
    if "kopf" in parts:
        with tempfile.TemporaryDirectory(prefix="kubelite-bench-pycache-") as pycache:
            kopf_wall("as-installed", pycache)  # warm the bytecode cache
            kopf = {mode: kopf_wall(mode, pycache) for mode in ("as-installed", "kopf-only")}
        hour_call, hour_wall = hour_test_wall()
        out.append(f"kopf 1-hour test (10-minute reconciles)   {hour_call:10.2f} s wall in pytest's call phase "
                   f"({hour_wall:.1f} s for the whole pytest process)")
        for mode, (wall, phases) in kopf.items():
            out.append(f"kopf operator test from process start, {mode}: {wall:.2f} s")
            out.append("    " + ", ".join(f"{k} {v:.2f}" for k, v in phases.items())
                       + f", interpreter start+exit {wall - sum(phases.values()):.2f}")
    print(f"load average {load0:.2f} at start, {os.getloadavg()[0]:.2f} at end (2 cores)")
    print("                                          per wall s   per server CPU-s (its one core)")
    print("\n".join(out))


if __name__ == "__main__":
    main()
