"""Same seed, same input → byte-identical event trace; another seed → a different one.

The trace is every watch event (type, revision and the object's bytes) for a workload that uses
every source of randomness the foundation has: generated names, uids, probabilistic fault injection
and virtual-time interleaving of concurrent writers. The cross-process check also varies
PYTHONHASHSEED, which would expose any iteration over string sets leaking into the output.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import subprocess
import sys

from kubelite.cluster import Cluster
from kubelite.errors import ApiError


async def workload(seed: int) -> bytes:
    trace: list[bytes] = []
    async with Cluster(seed=seed) as cluster:
        c = cluster.client
        stream = await c.open_watch("configmaps", namespace="*")
        cluster.faults.inject(500, verb="create", resource="configmaps", times=None, probability=0.3)

        async def writer(prefix: str, period: float) -> None:
            for i in range(12):
                try:
                    await c.create({"apiVersion": "v1", "kind": "ConfigMap",
                                    "metadata": {"generateName": f"{prefix}-", "namespace": "default"},
                                    "data": {"i": str(i)}})
                except ApiError as e:
                    trace.append(f"error {prefix} {i} {e.status.code}".encode())
                await cluster.clock.sleep(period)

        await asyncio.gather(writer("a", 1.5), writer("b", 2.0), writer("c", 0.7))
        cluster.faults.clear()
        for cm in await c.list("configmaps"):
            if cm["data"]["i"] in ("3", "7"):
                await c.patch("configmaps", cm["metadata"]["name"], {"data": {"patched": "yes"}}, patch_type="merge")
            if cm["data"]["i"] in ("5", "6"):  # two, so the seeded 500s cannot take every candidate
                await c.delete("configmaps", cm["metadata"]["name"])
        with stream:
            while (ev := stream._watcher.poll()) is not None:
                trace.append(f"{ev.type} {ev.rv} ".encode() + ev.data)
    return b"\n".join(trace)


async def test_same_seed_same_trace_different_seed_different_trace() -> None:
    one = await workload(7)
    two = await workload(7)
    other = await workload(8)
    assert one == two
    assert one != other
    assert one.count(b"ADDED") > 10 and b"error" in one and b"DELETED" in one


def test_trace_is_identical_across_processes_and_hash_seeds() -> None:
    code = (
        "import asyncio, hashlib, sys; sys.path.insert(0, 'tests');"
        "from test_determinism import workload;"
        "print(hashlib.sha256(asyncio.run(workload(7))).hexdigest())"
    )
    digests = set()
    for hash_seed in ("0", "12345"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True,
                             cwd=os.path.dirname(os.path.dirname(__file__)))
        digests.add(out.stdout.strip())
    local = hashlib.sha256(asyncio.run(workload(7))).hexdigest()
    assert digests == {local}


def test_whole_system_replays_across_processes() -> None:
    """A full scenario (controllers, scheduler, kubelets, network, traffic) gives byte-identical JSON in two
    processes with different string-hash seeds."""
    root = os.path.dirname(os.path.dirname(__file__))
    outputs = set()
    for hash_seed in ("1", "999"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        out = subprocess.run(
            [sys.executable, "-m", "kubelite.cli", "run", "scenarios/ecommerce-frontend-scale.yaml", "--seed", "3",
             "--output", "json"],
            env=env, capture_output=True, check=True, cwd=root,
        )
        outputs.add(hashlib.sha256(out.stdout).hexdigest())
        assert b'"passed":true' in out.stdout.replace(b" ", b"")
    assert len(outputs) == 1
