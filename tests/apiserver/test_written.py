"""An update takes the object that wrote the current version as its "old" (registry/written.py).

Invariant: an entry answers only while its version is current and is made only for writes nobody else
saw; what it answers equals a decode of the stored bytes. The heartbeat property test
(``test_heartbeat.py``) compares stored bytes and responses with the whole path after every write; the
cases here are the edges: other writers in between, a hook registered later (and mutating what it is
handed), dry runs, deletion and re-creation, and the bound.
"""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from kubelite.apiserver.registry.written import WrittenObjects
from kubelite.apiserver.request import AdmissionRequest
from kubelite.cluster import Cluster

API_ONLY: dict[str, Any] = {"scheduler": False, "controllers": False, "network": False}
LEASES = "kube-node-lease"


def _lease(name: str) -> dict[str, Any]:
    return {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": {"name": name, "namespace": LEASES},
            "spec": {"holderIdentity": name, "leaseDurationSeconds": 40, "renewTime": "2025-01-01T00:00:00.000000Z"}}


def _written(cluster: Cluster) -> WrittenObjects:
    return cluster.apiserver.generic_store.written


def _check(cluster: Cluster) -> int:
    """Every kept entry whose version is still current equals that version's decode; how many there are."""
    store, n = cluster.store, 0
    for table, entries in _written(cluster)._tables.items():
        for key, (stored, obj) in entries.items():
            if table.objects.get(key) is stored:
                assert obj == msgspec.json.decode(stored.data), key
                assert store.get(table, stored.namespace, stored.name) is stored
                n += 1
    return n


async def _renew(cluster: Cluster, name: str, t: int, **kw: Any) -> dict[str, Any]:
    kubelet = cluster.client.with_field_manager("kubelet")
    lease = await kubelet.get("leases", name, namespace=LEASES)
    lease["spec"]["renewTime"] = f"2025-01-01T00:00:{t:02d}.000000Z"
    return await kubelet.replace(lease, namespace=LEASES, **kw)  # type: ignore[no-any-return]


async def test_a_renewal_takes_the_written_object_only_while_it_is_current() -> None:
    async with Cluster(seed=1, **API_ONLY) as cluster:
        kubelet = cluster.client.with_field_manager("kubelet")
        await kubelet.create(_lease("n0"))
        written = _written(cluster)
        await _renew(cluster, "n0", 1)  # (the create is not kept: this one decodes)
        assert (written.hits, _check(cluster)) == (0, 1)
        await _renew(cluster, "n0", 2)
        assert (written.hits, _check(cluster)) == (1, 1)
        # another writer in between (a merge patch of a label, by another manager): its object is kept instead
        await cluster.client.patch("leases", "n0", {"metadata": {"labels": {"a": "b"}}}, patch_type="merge",
                                   namespace=LEASES)
        assert (written.hits, _check(cluster)) == (2, 1)
        renewed = await _renew(cluster, "n0", 3)
        assert written.hits == 3 and renewed["metadata"]["labels"] == {"a": "b"}
        # a dry run keeps nothing (and takes the entry out: the next write decodes)
        await _renew(cluster, "n0", 4, dry_run=True)
        assert (written.hits, _check(cluster)) == (4, 0)
        await _renew(cluster, "n0", 5)
        assert (written.hits, _check(cluster)) == (4, 1)
        # deleted (and its entry with it) and created again under the same name
        await cluster.client.delete("leases", "n0", namespace=LEASES)
        assert not any(written._tables.values())
        await kubelet.create(_lease("n0"))
        again = await _renew(cluster, "n0", 6)
        assert written.hits == 4 and again["spec"]["renewTime"] == "2025-01-01T00:00:06.000000Z"
        assert _check(cluster) == 1


async def test_a_hook_mutating_what_it_is_handed_reaches_no_later_write() -> None:
    """A hook registered after the object was kept sees the request (so nothing is kept from it), and
    what it does to the old object it is handed stays in that request."""
    async with Cluster(seed=1, **API_ONLY) as cluster:
        kubelet = cluster.client.with_field_manager("kubelet")
        await kubelet.create(_lease("n0"))
        await _renew(cluster, "n0", 1)
        await _renew(cluster, "n0", 2)
        written = _written(cluster)
        hits = written.hits

        async def vandal(req: AdmissionRequest) -> None:
            assert req.old_object is not None
            req.old_object["spec"]["holderIdentity"] = "vandal"
            req.old_object["metadata"]["labels"] = {"x": "y"}

        chain = cluster.apiserver.admission
        hook = chain.register(vandal, resources=["leases"], operations=["UPDATE"])
        seen = await _renew(cluster, "n0", 3)
        assert written.hits == hits + 1 and _check(cluster) == 0  # taken, and the seen write kept nothing
        chain.unregister(hook)
        after = await _renew(cluster, "n0", 4)
        stored = await cluster.client.get("leases", "n0", namespace=LEASES)
        for obj in (seen, after, stored):
            assert obj["spec"]["holderIdentity"] == "n0" and "labels" not in obj["metadata"]
        (entry,) = after["metadata"]["managedFields"]
        assert entry["manager"] == "kubelet"


async def test_the_pods_status_writes_keep_nothing() -> None:
    """Pods are not kept: measured at 23 KiB per pod in a running cluster for no whole-run CPU (written.py's
    KINDS); their status writes decode the stored object as before and give the same results."""
    async with Cluster(seed=1, **API_ONLY) as cluster:
        await cluster.client.create({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
                                     "spec": {"nodeName": "n0", "containers": [{"name": "c", "image": "i"}]}})
        kubelet = cluster.client.with_field_manager("kubelet")
        for phase in ("Pending", "Running", "Running", "Succeeded"):
            await kubelet.patch("pods", "p", {"status": {"phase": phase}}, patch_type="merge", subresource="status",
                                namespace="default")
            stored = cluster.store.get(cluster.store.table("", "pods"), "default", "p")
            assert stored is not None and msgspec.json.decode(stored.data)["status"]["phase"] == phase
        assert _written(cluster).hits == 0
        assert _check(cluster) == 0


def test_each_table_keeps_at_most_its_capacity() -> None:
    from kubelite.store import StoredObject, Table

    table = Table("coordination.k8s.io", "leases", namespaced=True)
    w = WrittenObjects(capacity=2)
    objs = [StoredObject(f"default/p{i}", "default", f"p{i}", i + 1, b"{}", None, None, None) for i in range(3)]
    for o in objs:
        w.remember(table, o, {})
    assert len(w._tables[table]) == 2 and "default/p0" not in w._tables[table]
    pods = Table("", "pods", namespaced=True)  # not kept either (written.py's KINDS: their memory)
    w.remember(pods, objs[0], {})
    assert pods not in w._tables
    other = Table("", "configmaps", namespaced=True)  # not a heartbeat kind: nothing kept
    w.remember(other, objs[0], {})
    assert other not in w._tables


@pytest.mark.parametrize("capacity", [0, 1], ids=["off", "one"])
async def test_results_do_not_depend_on_the_capacity(capacity: int) -> None:
    async def run(cap: int) -> list[bytes]:
        async with Cluster(seed=3, **API_ONLY) as cluster:
            _written(cluster).capacity = cap
            kubelet = cluster.client.with_field_manager("kubelet")
            for n in ("n0", "n1"):
                await kubelet.create(_lease(n))
            out = []
            for t in range(6):
                out.append(msgspec.json.encode(await _renew(cluster, f"n{t % 2}", t)))
                await cluster.advance(1)
            return out
    assert await run(capacity) == await run(2048)
