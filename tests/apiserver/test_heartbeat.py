"""The heartbeat write path stores exactly what the whole update path stores.

Invariant (``kubelite.apiserver.heartbeat``): for any sequence of writes, a cluster whose updates skip
the admission phases nobody listens to, validate only the rules a sole owner's change can break and
re-time the owner's managedFields entry instead of running the field manager returns the same
responses, warnings and errors, and holds the same stored bytes after every write (managedFields,
resourceVersions and key order included), as a cluster that runs every step. The writes are seeded
random heartbeats as a kubelet sends them (Lease renewals by PUT, Node status strategic patches, pod
status merge patches and PUTs) and their negative neighbours: another manager's field (a leader
election taking the Lease, node-problem-detector's condition, the scheduler's PodScheduled), invalid
values (a zero lease duration, duplicate or malformed pod IPs, a bad quantity), stale
resourceVersions, metadata changes, managedFields sent back changed or reset, and admission hooks
registered mid-run (the whole path must then run). The kubelet writes as ``system:node:<name>``, so its
authorization decisions are remembered (``apiserver/auth/decisions.py``; the whole path asks RBAC every
time), and its RBAC is revoked and restored mid-run (its next write must be the same 403).
"""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

import kubelite.apiserver.heartbeat as heartbeat
from kubelite.apiserver.admission import AdmissionChain, AdmissionDenied
from kubelite.apiserver.request import AdmissionRequest
from kubelite.client import Client
from kubelite.cluster import Cluster
from kubelite.errors import ApiError, Forbidden
from kubelite.kubelet.pool import node_client
from tests.apiserver.test_delta import outcome, stored, whole_path

API_ONLY: dict[str, Any] = {"scheduler": False, "controllers": False, "network": False}
LEASES = "kube-node-lease"


class Hits:
    """How often each heartbeat step answered (not None / not seen) in the fast cluster."""

    def __init__(self, mp: pytest.MonkeyPatch) -> None:
        self.validated = self.retimed = self.unseen = 0
        real_validate, real_retimed, real_sees = heartbeat.validate_change, heartbeat.retimed, AdmissionChain.sees

        def validate(*a: Any) -> Any:
            out = real_validate(*a)
            self.validated += out is not None
            return out

        def retimed(*a: Any, **k: Any) -> Any:
            out = real_retimed(*a, **k)
            self.retimed += out is not None
            return out

        def sees(chain: AdmissionChain, req: AdmissionRequest) -> bool:
            out = real_sees(chain, req)
            self.unseen += not out
            return out

        mp.setattr(heartbeat, "validate_change", validate)
        mp.setattr(heartbeat, "retimed", retimed)
        mp.setattr(AdmissionChain, "sees", sees)


def _time(r: random.Random, micro: bool = False) -> str:
    t = f"2025-01-01T{r.randrange(24):02d}:{r.randrange(60):02d}:{r.randrange(60):02d}"
    return t + (".000000Z" if micro else "Z")


def _node(i: int) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": f"n{i}", "labels": {"zone": "z"}},
            "status": {"capacity": {"cpu": "8", "memory": "32Gi", "pods": "110"},
                       "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady",
                                       "lastHeartbeatTime": "2025-01-01T00:00:00Z"}]}}


def _lease(i: int) -> dict[str, Any]:
    return {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
            "metadata": {"name": f"n{i}", "namespace": LEASES, "labels": {"a": "1"}},
            "spec": {"holderIdentity": f"n{i}", "leaseDurationSeconds": 40,
                     "renewTime": "2025-01-01T00:00:00.000000Z"}}


def _pod(i: int) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"p{i}", "namespace": "default"},
            "spec": {"nodeName": "n0", "containers": [{"name": "c", "image": f"img:{i}",
                                                        "resources": {"requests": {"cpu": "100m"}}}]}}


Op = Callable[[Cluster], Awaitable[Any]]


def _renewal(r: random.Random) -> Op:
    """A Lease renewal as the kubelet's retryUpdateLease sends it, or a neighbour of one."""
    name, renew, roll = f"n{r.randrange(2)}", _time(r, micro=True), r.random()
    manager = "leader" if roll < 0.1 else "kubelet"
    label = str(r.randrange(3))

    async def op(cluster: Cluster) -> Any:
        c = _writer(cluster, manager, name)
        obj = await c.get("leases", name, namespace=LEASES)
        obj["spec"]["renewTime"] = renew
        if roll < 0.1:
            obj["spec"]["holderIdentity"] = "someone-else"  # another manager takes a field
        elif roll < 0.2:
            obj["metadata"]["resourceVersion"] = "1"  # stale: 409
        elif roll < 0.3:
            obj["spec"]["leaseDurationSeconds"] = 0  # ValidateLeaseSpec: 422
        elif roll < 0.38:
            obj["metadata"]["labels"] = {"a": label}  # metadata changes: validated whole
        elif roll < 0.43:
            obj["metadata"]["managedFields"] = []  # reset
        elif roll < 0.48 and obj["metadata"].get("managedFields"):
            obj["metadata"]["managedFields"][0]["manager"] = "renamed"  # a sent, different list
        elif roll < 0.53:
            obj["spec"]["acquireTime"] = renew  # a field the kubelet does not own yet
        elif roll < 0.58:
            obj["spec"].pop("holderIdentity", None)  # removes a field it owns
        return await c.replace(obj, namespace=LEASES)
    return op


def _condition(r: random.Random, types: list[str]) -> dict[str, Any]:
    return {"type": r.choice(types), "status": r.choice(["True", "False"]), "lastHeartbeatTime": _time(r)}


def _node_report(r: random.Random) -> Op:
    name, roll = f"n{r.randrange(2)}", r.random()
    status: dict[str, Any] = {"conditions": [_condition(r, ["Ready"])]}
    manager = "kubelet"
    if roll < 0.15:
        manager, status = "npd", {"conditions": [_condition(r, ["KernelDeadlock"])]}  # a condition of its own
    elif roll < 0.25:
        manager = "npd"  # the kubelet's own condition, written by another manager
    elif roll < 0.35:
        status["capacity"] = {"cpu": r.choice(["8", "8000m"]), "memory": "32Gi"}
    elif roll < 0.4:
        status["allocatable"] = {"cpu": "not-a-quantity"}  # 400
    elif roll < 0.45:
        status["conditions"][0]["reason"] = None  # removes a field
    elif roll < 0.5:
        status["volumesInUse"], status["conditions"][0]["message"] = [], ""  # zeros Go's omitempty drops
    body = {"status": status}

    async def op(cluster: Cluster) -> Any:
        c = _writer(cluster, manager, name)
        return await c.patch("nodes", name, body, patch_type="strategic", subresource="status")
    return op


def _pod_status(r: random.Random) -> dict[str, Any]:
    status: dict[str, Any] = {"phase": r.choice(["Pending", "Running"]),
                              "conditions": [{"type": "Ready", "status": r.choice(["True", "False"]),
                                              "lastTransitionTime": _time(r)}]}
    ip = f"10.0.0.{r.randrange(1, 4)}"
    roll = r.random()
    if roll < 0.5:
        status["podIP"], status["podIPs"] = ip, [{"ip": ip}]
    elif roll < 0.6:
        status["podIPs"] = [{"ip": ip}, {"ip": ip}]  # duplicate: 422
    elif roll < 0.65:
        status["podIPs"] = [{"ip": "not-an-ip"}]  # 422
    elif roll < 0.7:
        status["nominatedNodeName"] = "Not_A_Name"  # 422
    elif roll < 0.8:
        status["message"], status["conditions"][0]["reason"] = "", ""  # zeros Go's omitempty drops
    return status


def _pod_write(r: random.Random) -> Op:
    name, roll, status = f"p{r.randrange(3)}", r.random(), _pod_status(r)
    if roll < 0.1:
        sched = {"conditions": [{"type": "PodScheduled", "status": "True", "lastTransitionTime": _time(r)}]}

        async def scheduled(cluster: Cluster) -> Any:  # the scheduler's condition
            c = cluster.client.with_field_manager("scheduler")
            return await c.patch("pods", name, {"status": sched}, patch_type="strategic", subresource="status",
                                 namespace="default")
        return scheduled
    if roll < 0.3:
        async def put_status(cluster: Cluster) -> Any:  # a read-modify-write of the status
            c = _writer(cluster, "kubelet", "n0")
            obj = await c.get("pods", name, namespace="default")
            obj["status"] = {**obj.get("status", {}), **status}
            return await c.replace(obj, subresource="status", namespace="default")
        return put_status
    ann = r.random() < 0.1

    async def patch_status(cluster: Cluster) -> Any:
        c = _writer(cluster, "kubelet", "n0")
        body: dict[str, Any] = {"status": status}
        if ann:
            body["metadata"] = {"annotations": {"note": "x"}}  # metadata changes: validated whole
        return await c.patch("pods", name, body, patch_type="merge", subresource="status", namespace="default")
    return patch_status


def _hook(r: random.Random) -> Op:
    """Register a hook (for every later write of its resource), or drop the last one."""
    kind = r.randrange(3)

    async def deny_odd_renewals(req: AdmissionRequest) -> None:
        renew = ((req.object or {}).get("spec") or {}).get("renewTime") or ""
        if renew[18:19] in ("1", "3"):
            raise AdmissionDenied("odd renewals are not allowed")

    async def annotate(req: AdmissionRequest) -> None:
        assert req.object is not None
        req.object["metadata"].setdefault("annotations", {})["seen-by"] = "hook"

    async def op(cluster: Cluster) -> Any:
        chain = cluster.apiserver.admission
        if kind == 0 and chain.hooks:
            chain.unregister(chain.hooks[-1])
        elif kind == 1:
            chain.register(deny_odd_renewals, resources=["leases"], operations=["UPDATE"])
        else:
            chain.register(annotate, mutating=True, resources=["pods"], operations=["UPDATE"], subresources=["status"])
        return len(chain.hooks)
    return op


def _writer(cluster: Cluster, manager: str, node: str) -> Client:
    """The kubelet writes as itself (``system:node:<node>``: RBAC authorizes it, and its remembered
    decisions serve, apiserver/auth/decisions.py); other managers as the admin."""
    if manager == "kubelet":
        return node_client(cluster.client, node)
    return cluster.client.with_field_manager(manager)


def _rbac(r: random.Random) -> Op:
    """Revoke the kubelets' RBAC (the ``system:node`` ClusterRoleBinding loses its ``system:nodes``
    subject), send one kubelet heartbeat (it must be refused at once, though the same write was allowed a
    moment ago), and restore it."""
    heartbeat_op = _renewal(r) if r.random() < 0.5 else _node_report(r)

    async def op(cluster: Cluster) -> Any:
        c = cluster.client
        b = await c.get("clusterrolebindings", "system:node")
        subjects = b["subjects"]
        b["subjects"] = []
        b = await c.replace(b)
        refused = await _outcome(cluster, heartbeat_op)
        b["subjects"] = subjects
        await c.replace(b)
        return refused[:2]
    return op


def _op(r: random.Random) -> Op:
    roll = r.random()
    if roll < 0.3:
        return _renewal(r)
    if roll < 0.55:
        return _node_report(r)
    if roll < 0.95:
        return _pod_write(r)
    if roll < 0.975:
        return _hook(r)
    return _rbac(r)


async def _outcome(cluster: Cluster, op: Op) -> tuple[Any, ...]:
    return await outcome(cluster.client, lambda _: op(cluster))


def _stored(cluster: Cluster) -> dict[str, bytes]:
    return stored(cluster, (("", "pods", "default", ("p0", "p1", "p2")), ("", "nodes", "", ("n0", "n1")),
                            ("coordination.k8s.io", "leases", LEASES, ("n0", "n1"))))


async def _setup(cluster: Cluster) -> None:
    kubelet = cluster.client.with_field_manager("kubelet")
    for i in range(2):
        await kubelet.create(_node(i))  # the kubelet registers its node and creates its lease
        await kubelet.create(_lease(i))
    for i in range(3):
        await cluster.client.create(_pod(i))


@pytest.mark.parametrize("seed", range(8), ids=lambda s: f"seed-{s}")
async def test_heartbeat_and_whole_paths_store_the_same_bytes(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    r = random.Random(seed)
    ops = [(_op(r), r.choice([0, 0, 1, 7])) for _ in range(60)]
    hits = Hits(monkeypatch)
    async with Cluster(seed=seed, **API_ONLY) as whole, Cluster(seed=seed, **API_ONLY) as fast:
        with whole_path(monkeypatch):
            await _setup(whole)
        await _setup(fast)
        errors = 0
        for i, (op, wait) in enumerate(ops):
            with whole_path(monkeypatch):
                want = await _outcome(whole, op)
            got = await _outcome(fast, op)
            assert got == want, f"write {i}"
            assert _stored(fast) == _stored(whole), f"write {i}"
            errors += want[0] == "error"
            await whole.advance(wait)  # managedFields times move, and with them the entries' order
            await fast.advance(wait)
    # the heartbeat path really ran (and agreed), and so did its refusals
    assert hits.unseen > 5 and hits.validated > 15 and hits.retimed > 5, vars(hits)
    # and so did the updates that took the previous unseen write's object as their "old" (registry/written.py)
    assert fast.apiserver.generic_store.written.hits > 5
    assert whole.apiserver.generic_store.written.hits == 0
    assert 0 < errors < len(ops) // 2


def _sole_owner_renewals(n: int) -> list[Op]:
    return [_renewal(random.Random(f"renew-{i}")) for i in range(n)]


async def test_a_kubelet_heartbeat_takes_the_heartbeat_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """The kubelet's steady-state writes (a renewal, a Node status report and a pod status write after
    the first) skip admission, whole validation and the field manager; a renewal that removes a field
    the kubelet owns, or a status write by another manager, does not re-time."""
    hits = Hits(monkeypatch)
    async with Cluster(seed=1, **API_ONLY) as cluster:
        await _setup(cluster)
        kubelet = cluster.client.with_field_manager("kubelet")
        await cluster.advance(10)
        lease = await kubelet.get("leases", "n0", namespace=LEASES)
        lease["spec"]["renewTime"] = "2025-01-01T00:00:10.000000Z"
        renewed = await kubelet.replace(lease, namespace=LEASES)
        assert (hits.unseen, hits.validated, hits.retimed) == (1, 1, 1)
        (entry,) = renewed["metadata"]["managedFields"]
        assert entry["manager"] == "kubelet" and entry["time"] == "2025-01-01T00:00:10Z"
        for t in ("10", "20"):  # the first report claims the condition for the status entry; the second re-times
            await kubelet.patch("nodes", "n0", {"status": {"conditions": [
                {"type": "Ready", "status": "True", "lastHeartbeatTime": f"2025-01-01T00:00:{t}Z"}]}},
                patch_type="strategic", subresource="status")
            await cluster.advance(10)
        assert (hits.unseen, hits.validated, hits.retimed) == (3, 3, 2)
        npd = cluster.client.with_field_manager("npd")
        await npd.patch("nodes", "n0", {"status": {"conditions": [
            {"type": "Ready", "status": "True", "lastHeartbeatTime": "2025-01-01T00:01:00Z"}]}},
            patch_type="strategic", subresource="status")
        assert (hits.unseen, hits.validated, hits.retimed) == (4, 4, 2)  # another manager: the field manager ran
        node = await kubelet.get("nodes", "n0")
        managers = [(e["manager"], e.get("subresource", "")) for e in node["metadata"]["managedFields"]]
        # npd took the one field the kubelet's status entry held (the heartbeat time), and the emptied entry went
        assert managers == [("kubelet", ""), ("npd", "status")]


async def test_an_admission_policy_or_hook_sees_every_heartbeat() -> None:
    """With a ValidatingAdmissionPolicy bound, or a webhook-like hook registered, for leases, a renewal
    runs both admission phases (and the policy can deny it)."""
    async with Cluster(seed=1, **API_ONLY) as cluster:
        await _setup(cluster)
        c = cluster.client
        await c.create({"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy",
                        "metadata": {"name": "short-leases"},
                        "spec": {"matchConstraints": {"resourceRules": [{
                            "apiGroups": ["coordination.k8s.io"], "apiVersions": ["v1"], "operations": ["UPDATE"],
                            "resources": ["leases"]}]},
                            "validations": [{"expression": "object.spec.renewTime != '2025-01-01T00:00:05.000000Z'",
                                             "message": "not at 5 s"}]}})
        await c.create({"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicyBinding",
                        "metadata": {"name": "short-leases"},
                        "spec": {"policyName": "short-leases", "validationActions": ["Deny"]}})
        kubelet = c.with_field_manager("kubelet")
        lease = await kubelet.get("leases", "n0", namespace=LEASES)
        lease["spec"]["renewTime"] = "2025-01-01T00:00:05.000000Z"
        with pytest.raises(ApiError, match="not at 5 s"):
            await kubelet.replace(lease, namespace=LEASES)
        await c.delete("ValidatingAdmissionPolicyBinding", "short-leases")
        seen: list[str] = []

        async def hook(req: AdmissionRequest) -> None:
            seen.append(req.name)

        cluster.apiserver.admission.register(hook, resources=["leases"], operations=["UPDATE"])
        renewed = await kubelet.replace(lease, namespace=LEASES)
        assert seen == ["n0"]
        assert renewed["spec"]["renewTime"] == "2025-01-01T00:00:05.000000Z"


@pytest.mark.parametrize(("group", "plural", "subresource"), sorted(heartbeat.BODY_RULES),
                         ids=lambda v: v or "-")
def test_body_rules_are_the_whole_validation_when_metadata_is_unchanged(group: str, plural: str,
                                                                        subresource: str) -> None:
    """Each kind's rules in ``BODY_RULES`` find exactly what the whole update validation finds, for
    objects whose metadata is the stored one's (valid and invalid bodies alike)."""
    from kubelite.apiserver.validation import validate_status_update, validate_update

    kind = {"leases": "Lease", "nodes": "Node", "pods": "Pod"}[plural]
    whole = validate_status_update if subresource else validate_update
    meta = {"name": "x", "namespace": "default" if plural != "nodes" else "", "uid": "u",
            "creationTimestamp": "2025-01-01T00:00:00Z", "resourceVersion": "5", "labels": {"a": "b"}}
    old = {"apiVersion": "v1", "kind": kind, "metadata": meta,
           "spec": {"leaseDurationSeconds": 40, "nodeName": "n0"}, "status": {"podIP": "10.0.0.1"}}
    bodies = [
        {"spec": {"leaseDurationSeconds": 40, "nodeName": "n0"}, "status": {"podIPs": [{"ip": "10.0.0.2"}]}},
        {"spec": {"leaseDurationSeconds": 0, "leaseTransitions": -1, "nodeName": "n1"},
         "status": {"podIPs": [{"ip": "bad"}, {"ip": "bad"}], "nominatedNodeName": "Not_A_Name"}},
    ]
    for body in bodies:
        new = {**old, **body, "metadata": {**meta, "resourceVersion": "", "managedFields": [{"manager": "m"}]}}
        assert heartbeat.meta_unchanged(new, old)
        got = heartbeat.validate_change(group, plural, subresource, new, old)
        assert got == whole(group, kind, new, old)
    for changed in ({**meta, "labels": {"a": "c"}}, {k: v for k, v in meta.items() if k != "uid"}):
        assert not heartbeat.meta_unchanged({**old, "metadata": changed}, old)  # then validated whole


_META = {"name": "x", "uid": "u", "resourceVersion": "5", "labels": {"a": "b"}, "managedFields": [{"manager": "m"}]}


@pytest.mark.parametrize(("new_meta", "same"), [
    ({**_META, "resourceVersion": "", "managedFields": []}, True),
    ({k: v for k, v in _META.items() if k not in ("resourceVersion", "managedFields")}, True),  # unread: absent
    ({**_META, "labels": {"a": "c"}}, False),
    ({**_META, "labels": {"a": "b"}, "annotations": {}}, False),  # a field old lacks
    ({k: v for k, v in _META.items() if k != "uid"}, False),  # a field new lacks
    ({**_META, "uid": None}, False),
    ({**_META, "generation": 0}, False),
], ids=["unread-fields-differ", "unread-fields-absent", "label-changed", "added-field", "removed-field",
        "null-uid", "added-zero"])
def test_metadata_is_unchanged_exactly_when_every_read_field_is_equal(new_meta: dict[str, Any], same: bool) -> None:
    old = {"metadata": _META}
    assert heartbeat.meta_unchanged({"metadata": new_meta}, old) is same
    assert heartbeat.meta_unchanged(old, {"metadata": new_meta}) is same  # (symmetric)
    assert old["metadata"] == _META  # neither side is touched


async def test_a_kubelet_whose_rbac_is_revoked_is_refused_on_its_next_heartbeat() -> None:
    """Its renewals' authorization is remembered (auth/decisions.py); revoking the ``system:node`` binding's
    subject refuses the very next renewal, and restoring it lets the one after through."""
    async with Cluster(seed=1, **API_ONLY) as cluster:
        await _setup(cluster)
        kubelet = node_client(cluster.client, "n0")
        decisions = cluster.apiserver.authorizer.decisions

        async def renew(t: str) -> dict[str, Any]:
            lease = await cluster.client.get("leases", "n0", namespace=LEASES)
            lease["spec"]["renewTime"] = f"2025-01-01T00:00:{t}.000000Z"
            return await kubelet.replace(lease, namespace=LEASES)

        await renew("10")
        remembered = len(decisions)
        assert (await renew("20"))["spec"]["renewTime"] == "2025-01-01T00:00:20.000000Z"
        assert len(decisions) == remembered > 0  # the second renewal's decision was the first's
        b = await cluster.client.get("clusterrolebindings", "system:node")
        subjects, b["subjects"] = b["subjects"], []
        b = await cluster.client.replace(b)
        with pytest.raises(Forbidden, match='User "system:node:n0" cannot update resource "leases"'):
            await renew("30")
        b["subjects"] = subjects
        await cluster.client.replace(b)
        assert (await renew("40"))["spec"]["renewTime"] == "2025-01-01T00:00:40.000000Z"
