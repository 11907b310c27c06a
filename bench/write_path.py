"""The apiserver's write path, per request, in CPU time (issue #13: the registry split must not cost more
than 5%; issue #17: creates >= 20,000/s, heartbeat-class writes <= 2x a raw store write).

    python bench/write_path.py [--pods 5000] [--repeat 5] [--same-spec] [--templates 100] [--profile]
        [--profile-heartbeats] [--hour-ab NODES] [--heartbeat-ab NODES] [--create-ab PODS [--create-ab-stops 23,24]]

Through the in-process client and the whole pipeline (authentication, authorization, decoding, admission,
defaulting, validation, managedFields on), prints the best of ``--repeat`` runs in microseconds of
*process* CPU time per request (``time.process_time``), which a machine shared with other work disturbs
much less than wall time, and requests per CPU-second:
- pod creates with realistic, varied specs, two ways: every pod with its own spec (image tag,
  resources, env, labels, ports, probes and volumes drawn from a seeded generator, so no memo table
  sees a spec twice: the worst case), and pods stamped out of ``--templates`` such varied templates
  as workload controllers create them (own name, labels and controller reference, the template's
  spec: the per-template create memo's case) (``--same-spec`` restores the old, flattering bench
  where every pod shared one spec);
- merge patches, server-side applies and deletes;
- heartbeat-class writes, each next to the floor it is judged against: a Lease renewal (PUT of
  ``spec.renewTime``, the kubelet's every 10 s), a node status patch (a condition's heartbeat time) and a
  pod ``/status`` merge patch;
- floors measured in the same run: per heartbeat kind, on the same objects, a raw store write
  (``Store.update`` of an already decoded object: encode, revision, history, watch fan-out, no API
  machinery) and a minimal Python update (decode the stored bytes, set the field, encode, put in a dict);
  and a minimal Python create (decode the body, stamp uid/resourceVersion/creationTimestamp, encode,
  insert in a dict), the honest lower bound for a create in this language.
To compare two trees run the same command with each on ``PYTHONPATH``, alternating, and compare the best
figures.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import os
import random
import statistics
import time
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import msgspec

from kubelite.cluster import Cluster
from kubelite.kubelet.pool import node_client

API_ONLY: dict[str, Any] = {"scheduler": False, "controllers": False, "network": False}
_IMAGES = ["nginx", "redis", "postgres", "busybox", "envoyproxy/envoy", "ghcr.io/acme/api", "quay.io/prom/node-exporter"]


def pod(i: int, *, same_spec: bool = False) -> dict[str, Any]:
    """A pod as a ReplicaSet, a Job or a user would send it; varied unless ``same_spec``."""
    meta = {"name": f"pod-{i:06d}", "namespace": "default", "labels": {"app": f"app-{i % 50}", "tier": "web"}}
    if same_spec:
        return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": {"containers": [{
            "name": "main", "image": "nginx:1.25", "ports": [{"containerPort": 80}],
            "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}, "limits": {"cpu": "200m", "memory": "256Mi"}},
        }]}}
    r = random.Random(i)
    meta["labels"] |= {"pod-template-hash": f"{r.getrandbits(32):08x}", "version": f"v{r.randrange(40)}"}
    if r.random() < 0.3:
        meta["annotations"] = {"prometheus.io/scrape": "true", "prometheus.io/port": str(r.randrange(8000, 9999))}
    containers = []
    for c in range(1 + (r.random() < 0.25)):
        port = r.choice([80, 443, 8080, 8443, 9090, 5432, 6379])
        cpu, mem = r.choice(["50m", "100m", "250m", "500m", "1"]), r.choice(["64Mi", "128Mi", "512Mi", "1Gi"])
        container: dict[str, Any] = {
            "name": "main" if c == 0 else "sidecar",
            "image": f"{r.choice(_IMAGES)}:{r.randrange(1, 30)}.{r.randrange(20)}.{i % 1000}",
            "ports": [{"containerPort": port, "name": "http"}],
            "env": [{"name": f"VAR_{k}", "value": str(r.getrandbits(24))} for k in range(r.randrange(4))],
            "resources": {"requests": {"cpu": cpu, "memory": mem}, "limits": {"memory": mem}},
        }
        if r.random() < 0.6:
            container["readinessProbe"] = {"httpGet": {"path": "/healthz", "port": port},
                                           "periodSeconds": r.choice([5, 10, 15])}
        if r.random() < 0.4:
            container["args"] = [f"--workers={r.randrange(1, 9)}", "--log-level=info"]
        containers.append(container)
    spec: dict[str, Any] = {"containers": containers}
    if r.random() < 0.4:
        spec["volumes"] = [{"name": "cache", "emptyDir": {"sizeLimit": f"{r.randrange(1, 9)}Gi"}}]
        containers[0]["volumeMounts"] = [{"name": "cache", "mountPath": "/cache"}]
    if r.random() < 0.3:
        spec["nodeSelector"] = {"pool": r.choice(["a", "b", "gpu"])}
    if r.random() < 0.2:
        spec["tolerations"] = [{"key": "dedicated", "operator": "Equal", "value": "web", "effect": "NoSchedule"}]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec}


def templated_pod(i: int, templates: int) -> dict[str, Any]:
    """Pod ``i`` as a workload controller stamps it out of one of ``templates`` varied templates: the
    template's spec (``pod(t)``'s), its own name, labels and controller reference."""
    t = i % templates
    body = pod(t)
    meta = body["metadata"]
    meta["name"] = f"tpl-{i:06d}"
    meta["labels"] = {**meta["labels"], "controller-revision": f"r{i % 7}"}
    meta["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": f"rs-{t}",
                                "uid": f"00000000-0000-0000-0000-{t:012d}", "controller": True,
                                "blockOwnerDeletion": True}]
    return body


def node(i: int) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": f"node-{i:05d}"},
            "status": {"capacity": {"cpu": "8", "memory": "32Gi", "pods": "110"},
                       "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady",
                                       "lastHeartbeatTime": "2025-01-01T00:00:00Z",
                                       "lastTransitionTime": "2025-01-01T00:00:00Z"}]}}


def lease(i: int) -> dict[str, Any]:
    return {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
            "metadata": {"name": f"node-{i:05d}", "namespace": "kube-node-lease"},
            "spec": {"holderIdentity": f"node-{i:05d}", "leaseDurationSeconds": 40,
                     "renewTime": "2025-01-01T00:00:00.000000Z"}}


async def timed(n: int, fn: Callable[[int], Awaitable[Any]]) -> float:
    gc.collect()
    t0 = time.process_time()
    for i in range(n):
        await fn(i)
    return (time.process_time() - t0) / n * 1e6


def timed_sync(n: int, fn: Callable[[int], Any]) -> float:
    gc.collect()
    t0 = time.process_time()
    for i in range(n):
        fn(i)
    return (time.process_time() - t0) / n * 1e6


def minimal_create_floor(bodies: list[bytes]) -> float:
    """Decode, stamp, encode, insert: what any create must do, in plain Python."""
    store: dict[str, bytes] = {}
    decode, encode = msgspec.json.decode, msgspec.json.encode

    def create(i: int) -> None:
        obj = decode(bodies[i])
        meta = obj["metadata"]
        meta["uid"] = f"uid-{i}"
        meta["resourceVersion"] = str(i + 1)
        meta["creationTimestamp"] = "2025-01-01T00:00:00Z"
        store[meta["namespace"] + "/" + meta["name"]] = encode(obj)

    return timed_sync(len(bodies), create)


async def one_run(n: int, same_spec: bool, n_templates: int) -> dict[str, float]:
    out: dict[str, float] = {}
    bodies = [pod(i, same_spec=same_spec) for i in range(n)]
    stamped = [templated_pod(i, n_templates) for i in range(n)]
    out["floor: minimal Python create"] = minimal_create_floor([msgspec.json.encode(b) for b in bodies])
    async with Cluster(seed=1, tune_gc=True, **API_ONLY) as cluster:
        c = cluster.client
        with await c.open_watch("pods", capacity=9 * n + 10):
            out.update(await _writes(cluster, n, bodies, stamped))
        out.update(await _heartbeats(cluster, max(1, n // 5)))
    return out


async def _writes(
    cluster: Cluster, n: int, bodies: list[dict[str, Any]], stamped: list[dict[str, Any]],
) -> dict[str, float]:
    c = cluster.client
    out: dict[str, float] = {}
    out["create, every spec its own"] = await timed(n, lambda i: c.create(bodies[i]))
    out["create, from templates"] = await timed(n, lambda i: c.create(stamped[i]))
    # the same templated creates through the whole path (the per-template memo off): the memo's in-run ratio
    templates = getattr(cluster.apiserver.generic_store, "templates", None)  # (absent in trees before #17's memo)
    if templates is not None:
        templates.enabled = False
        again = [{**b, "metadata": {**b["metadata"], "name": "off-" + b["metadata"]["name"]}} for b in stamped]
        out["create, from templates, memo off"] = await timed(n, lambda i: c.create(again[i]))
        templates.enabled = True
    if templates is not None and hasattr(templates, "first_sight"):
        out.update(await _first_sight_ab(cluster, n))
    out["merge patch"] = await timed(n, lambda i: c.patch(
        "pods", f"pod-{i:06d}", {"metadata": {"labels": {"rev": "2"}}}, patch_type="merge"))
    out["apply (create)"] = await timed(n, lambda i: c.apply(
        {**bodies[i], "metadata": {"name": f"applied-{i:06d}", "namespace": "default"}}, field_manager="bench"))
    out["delete"] = await timed(n, lambda i: c.delete("pods", f"pod-{i:06d}"))
    return out


async def _first_sight_ab(cluster: Cluster, n: int) -> dict[str, float]:
    """Unseen specs with the first-sight path on and off (off: every memo table keyed on an encoding
    consulted and filled, the body decoded whole, as before that path), interleaved in chunks of 50
    creates in this cluster: that path's in-run ratio."""
    templates = cluster.apiserver.generic_store.templates
    decoder = cluster.apiserver.scope.decoder
    decode_parts = decoder.decode_parts
    c = cluster.client
    unseen = [pod(n + i) for i in range(2 * n)]
    for b in unseen:
        b["metadata"]["name"] = "unseen-" + b["metadata"]["name"]
    spent = {True: 0.0, False: 0.0}
    gc.collect()
    for start in range(0, 2 * n, 50):
        on = start // 50 % 2 == 0
        if not on:
            templates.first_sight = lambda key: False
            decoder.decode_parts = lambda *a: None  # type: ignore[method-assign]
        t0 = time.process_time()
        for b in unseen[start:start + 50]:
            await c.create(b)
        spent[on] += time.process_time() - t0
        if not on:
            del templates.first_sight
            decoder.decode_parts = decode_parts  # type: ignore[method-assign]
    per = {on: v / sum(1 for s in range(0, 2 * n, 50) for _ in unseen[s:s + 50] if (s // 50 % 2 == 0) == on) * 1e6
           for on, v in spent.items()}
    return {"create, every spec its own (A/B: first-sight path on)": per[True],
            "create, every spec its own (A/B: first-sight path off)": per[False]}


def _whole_path() -> contextlib.AbstractContextManager[None]:
    """Every update through every step (the heartbeat path off: ``kubelite.apiserver.heartbeat``, and every
    request authorized by RBAC afresh: ``apiserver/auth/decisions.py``), for the in-run A/B; None in trees
    before the heartbeat path."""
    try:
        import kubelite.apiserver.heartbeat as heartbeat
        from kubelite.apiserver.admission import AdmissionChain
    except ImportError:
        return contextlib.nullcontext()
    try:
        from kubelite.apiserver.auth.decisions import Decisions
    except ImportError:  # (trees before remembered decisions)
        Decisions = None  # type: ignore[assignment,misc]

    @contextlib.contextmanager
    def off() -> Iterator[None]:
        # (sees: True also keeps the written-object cache from filling, registry/written.py)
        saved = heartbeat.validate_change, heartbeat.retimed, AdmissionChain.__dict__.get("sees")
        heartbeat.validate_change = lambda *a: None  # type: ignore[assignment]
        heartbeat.retimed = lambda *a, **k: None  # type: ignore[assignment]
        AdmissionChain.sees = lambda self, req: True  # type: ignore[method-assign]
        get = Decisions.get if Decisions is not None else None
        if Decisions is not None:
            Decisions.get = lambda self, key: None  # type: ignore[method-assign]
        try:
            yield
        finally:
            heartbeat.validate_change, heartbeat.retimed = saved[0], saved[1]
            AdmissionChain.sees = saved[2]  # type: ignore[method-assign]
            if Decisions is not None:
                Decisions.get = get  # type: ignore[method-assign]
    return off()


class Heartbeats:
    """``n`` nodes' heartbeat-class writes as their kubelets send them (field manager ``kubelet``): the Lease
    renewal (a PUT of the last lease returned with a new ``spec.renewTime``, retryUpdateLease), the Node
    status report (a strategic merge patch of the Ready condition, PatchNodeStatus) and a pod status write
    (a merge patch of phase, IPs and the Ready condition, the status manager's). Each call of a kind writes
    new values (the tick), so none is a no-op."""

    KINDS = ("lease renewal", "node status patch", "pod status patch")

    def __init__(self, cluster: Cluster, n: int) -> None:
        self.cluster, self.n = cluster, n
        # each node's kubelet as itself: system:node:<name> in system:nodes, field manager "kubelet" (RBAC
        # authorizes every write, as in a cluster)
        self.kubelets = [node_client(cluster.client, f"node-{i:05d}") for i in range(n)]
        self.kubelet = cluster.client.with_field_manager("kubelet")  # (reads)
        self.leases: list[Any] = []
        self.tick = 0

    async def setup(self) -> None:
        c = self.cluster.client
        for i in range(self.n):
            kubelet = self.kubelets[i]
            await kubelet.create(node(i))  # the kubelet registers its node and creates its lease
            await kubelet.create(lease(i))
            p = pod(100_000 + i)
            p["spec"]["nodeName"] = f"node-{i:05d}"
            p["spec"].pop("nodeSelector", None)
            await c.create(p)
        self.leases = [await kubelet.get("leases", f"node-{i:05d}", namespace="kube-node-lease")
                       for i in range(self.n)]

    def _time(self) -> str:
        t = self.tick
        self.tick += 1
        return f"2025-01-01T{t // 3600 % 24:02d}:{t // 60 % 60:02d}:{t % 60:02d}"

    async def write(self, kind: str, i: int) -> None:
        t, kubelet = self._time(), self.kubelets[i]
        if kind == "lease renewal":
            obj = self.leases[i]
            obj["spec"]["renewTime"] = t + ".000000Z"
            # the kubelet PUTs the lease its last renewal returned, without a copy (``Client.replace_owned``)
            owned = getattr(kubelet, "replace_owned", None)
            self.leases[i] = await (owned(obj) if owned is not None else kubelet.replace(obj))
        elif kind == "node status patch":
            await self._status_patch(kubelet, "nodes", f"node-{i:05d}", {"status": {"conditions": [
                {"type": "Ready", "status": "True", "reason": "KubeletReady", "lastHeartbeatTime": t + "Z",
                 "lastTransitionTime": "2025-01-01T00:00:00Z"}]}}, patch_type="strategic")
        else:
            ip = f"10.0.{i // 250 % 256}.{i % 250 + 1}"
            await self._status_patch(kubelet, "pods", f"pod-{100_000 + i:06d}", {"status": {
                "phase": "Running", "podIP": ip, "podIPs": [{"ip": ip}],
                "conditions": [{"type": "Ready", "status": "True" if self.tick % 2 else "False",
                                "lastTransitionTime": t + "Z"}]}}, patch_type="merge", namespace="default")

    @staticmethod
    async def _status_patch(kubelet: Any, plural: str, name: str, body: dict[str, Any], **kw: Any) -> None:
        """As the kubelet sends it: without decoding the answer (``Client.patch_status_unread``) where the
        tree has that, else a ``patch_status`` whose answer is dropped."""
        unread = getattr(kubelet, "patch_status_unread", None)
        if unread is not None:
            await unread(plural, name, body, **kw)
        else:
            await kubelet.patch_status(plural, name, body, **kw)

    async def timed(self, kind: str) -> float:
        return await timed(self.n, lambda i: self.write(kind, i))


async def _heartbeats(cluster: Cluster, n: int) -> dict[str, float]:
    """Heartbeat-class writes, each as the kubelet's own field manager sends it: a status kind's first write
    (its manager's entry does not exist yet: the field manager runs), then the steady state (every later
    heartbeat) through the heartbeat path and, interleaved in the same process, through the whole path; and
    the raw floors."""
    out: dict[str, float] = {}
    hb = Heartbeats(cluster, n)
    await hb.setup()
    for kind in hb.KINDS[1:]:
        out[f"first status write: {kind}"] = await hb.timed(kind)
    for _ in range(2):
        for kind in hb.KINDS:
            v = await hb.timed(kind)
            out[f"heartbeat: {kind}"] = min(v, out.get(f"heartbeat: {kind}", v))
            with _whole_path():
                v = await hb.timed(kind)
            out[f"whole path: {kind}"] = min(v, out.get(f"whole path: {kind}", v))
    out.update(_heartbeat_floors(cluster, n))
    return out


# heartbeat kind -> (group, plural, namespace, name pattern, the field its heartbeat rewrites)
_FLOORS = {
    "lease renewal": ("coordination.k8s.io", "leases", "kube-node-lease", "node-{:05d}", ("spec", "renewTime")),
    "node status patch": ("", "nodes", "", "node-{:05d}", ("status", "conditions")),
    "pod status patch": ("", "pods", "default", "pod-{:06d}", ("status", "podIP")),
}


def _heartbeat_floors(cluster: Cluster, n: int) -> dict[str, float]:
    """Per heartbeat kind, on the objects the heartbeats wrote: a raw store write (``Store.update`` of an
    already decoded object: encode, revision, history, watch fan-out, no API machinery) and a minimal
    Python update (decode the stored bytes, set the field, encode, put in a dict: the honest floor)."""
    out: dict[str, float] = {}
    tables = cluster.apiserver.tables
    for kind, (group, plural, ns, pattern, path) in _FLOORS.items():
        table = tables.table(tables.resource(group, plural))
        names = [pattern.format(100_000 + i if plural == "pods" else i) for i in range(n)]
        plain, raw = _floors(cluster, table, ns, names, path)
        out[f"floor: minimal Python update ({kind})"] = plain
        out[f"floor: raw store write ({kind})"] = raw
    return out


def _floors(cluster: Cluster, table: Any, ns: str, names: list[str], path: tuple[str, str]) -> tuple[float, float]:
    store = cluster.store
    decode, encode = msgspec.json.decode, msgspec.json.encode
    top, field = path
    stored = [s for s in (store.get(table, ns, name) for name in names) if s is not None]
    objs = [s.decode() for s in stored]
    blobs = [bytes(s.data) for s in stored]
    values = [f"v{i}" if field != "conditions" else [{"type": "Ready", "status": "True"}] for i in range(len(names))]
    plain: dict[str, bytes] = {}

    def dict_update(i: int) -> None:
        obj = decode(blobs[i])
        obj[top][field] = values[i]
        plain[names[i]] = encode(obj)

    def raw_write(i: int) -> None:
        obj = objs[i]
        obj[top][field] = values[i]
        store.update(table, obj)

    return timed_sync(len(blobs), dict_update), timed_sync(len(objs), raw_write)


# where a create's time goes: (row, the functions whose cumulative cProfile time it is)
_SPLIT: list[tuple[str, list[tuple[str, str]]]] = [
    ("template memo key (the spec as sent)", [("registry/templates.py", "key"), ("registry/templates.py", "key_of_json")]),
    ("decode (typed; metadata only on a memo hit)", [("apiserver/pipeline.py", "decode"),
                                                     ("apiserver/pipeline.py", "decode_metadata"),
                                                     ("apiserver/pipeline.py", "decode_parts")]),
    ("defaulting", [("registry/strategy.py", "default")]),
    ("admission (mutating + validating)", [("admission/chain.py", "admit"), ("admission/chain.py", "validate")]),
    ("validation", [("registry/strategy.py", "validate"), ("registry/core.py", "validate_metadata")]),
    ("initial status (QoS)", [("registry/strategy.py", "prepare_for_create")]),
    ("managedFields", [("registry/store.py", "track"), ("registry/templates.py", "managed_fields")]),
    ("recording a template", [("registry/templates.py", "record")]),
    ("store write (encode, history, watch)", [("kubelite/store/store.py", "create")]),
]


async def profile_split(n: int, n_templates: int, templated: bool) -> list[tuple[str, float]]:
    """The cProfile split of ``n`` creates (templated, after each template's first two creates: memo hits
    only; or every spec its own), as shares of the client's ``create``; what no row names is the pipeline's
    glue (request, REST object, handler, uid, names). Rows named "calls:" count msgspec's JSON encodes,
    decodes and typed conversions per create."""
    import cProfile
    import pstats

    bodies = [templated_pod(i, n_templates) if templated else pod(i) for i in range(n)]
    # templated: the memo sees each template twice before the profile (so the profile is of hits only)
    warm = [templated_pod(n + i, n_templates) for i in range(2 * n_templates)] if templated else []
    prof = cProfile.Profile()
    async with Cluster(seed=1, tune_gc=True, **API_ONLY) as cluster:
        c = cluster.client
        with await c.open_watch("pods", capacity=2 * (n + len(warm)) + 10):
            for b in warm:
                await c.create(b)
            prof.enable()
            for b in bodies:
                await c.create(b)
            prof.disable()
    stats: dict[tuple[str, int, str], tuple[Any, ...]] = pstats.Stats(prof).stats  # type: ignore[attr-defined]

    def cum(where: str, name: str) -> float:
        return sum(v[3] for (f, _, fn), v in stats.items() if where in f and fn == name)

    total = cum("client/client.py", "create")
    rows = [("client (copy of the body, decode of the answer)", total - cum("apiserver/server.py", "create"))]
    rows += [(label, sum(cum(w, fn) for w, fn in fns)) for label, fns in _SPLIT]
    rows.append(("pipeline glue (handle, REST, handler, uid, names)", total - sum(v for _, v in rows)))
    out = [(label, v / total) for label, v in rows]
    # Python calls per create (every function and builtin call cProfile saw: deterministic, unlike its times)
    out.append(("calls: Python calls per create", sum(v[1] for v in stats.values()) / n))
    # JSON work per create, counted (not timed): the calls msgspec's C entry points received
    for label, names in _CODEC_CALLS:
        out.append((label, sum(v[1] for (f, _, fn), v in stats.items() if f == "~" and fn in names) / n))
    return out


# (row, the cProfile names of msgspec's C entry points it counts); rows starting "calls:" are counts per create
_CODEC_CALLS = [
    ("calls: JSON encodes per create", {"<method 'encode' of 'msgspec.json.Encoder' objects>",
                                        "<built-in method msgspec._core.json_encode>"}),
    ("calls: JSON decodes per create", {"<method 'decode' of 'msgspec.json.Decoder' objects>",
                                        "<built-in method msgspec._core.json_decode>"}),
    ("calls: typed conversions (convert, to_builtins) per create", {"<built-in method msgspec._core.convert>",
                                                                    "<built-in method msgspec._core.to_builtins>"}),
]


# where a heartbeat's time goes: (step, [(path fragment, function or "" for any)]), first match wins
_HB_STEPS: list[tuple[str, list[tuple[str, str]]]] = [
    ("store read + decode of the stored object", [("kubelite/store/store.py", "get"), ("kubelite/store/store.py", "decode")]),
    ("store write (encode, revision, history, watch, watchdog)",
     [("kubelite/store/", ""), ("kubelite/watchdog.py", ""), ("kubelite/cluster.py", ""),
      ("registry/tables.py", "fields_fn"), ("kubelite/api/fields.py", ""), ("kubelite/api/views.py", "")]),
    ("client (copy of the body, decode of the answer)", [("kubelite/client/", ""), ("kubelite/jsonsafe", "")]),
    ("routing, authentication, authorization, faults",
     [("apiserver/server.py", ""), ("apiserver/auth/", ""), ("apiserver/faults.py", ""), ("apiserver/request.py", ""),
      ("registry/tables.py", ""), ("kubelite/api/resources.py", "")]),
    ("REST object and verb handler", [("apiserver/rest/", ""), ("apiserver/handlers/", "")]),
    ("request decode (typed, quantities)", [("apiserver/pipeline.py", ""), ("kubelite/api/quantity", "")]),
    ("patch (apply, decode of the changed part)", [("apiserver/patch/", ""), ("apiserver/delta.py", "")]),
    ("admission", [("apiserver/admission/", "")]),
    ("validation", [("apiserver/validation/", "")]),
    ("managedFields (and the heartbeat path's checks)", [("apiserver/ssa/", ""), ("apiserver/heartbeat.py", "")]),
    ("generic store steps (strategy hooks, no-op check, defaulting)", [("apiserver/registry/", ""),
                                                                       ("apiserver/defaults", "")]),
]


def _hb_step(func: tuple[str, int, str]) -> str:
    where, _, name = func
    for label, rules in _HB_STEPS:
        if any(frag in where and (not fn or fn == name) for frag, fn in rules):
            return label
    return "other (the bench loop, asyncio)"


async def profile_heartbeats(n: int) -> None:
    """Per heartbeat kind, the cProfile *tottime* of ``n`` steady-state writes by step (a builtin's time,
    msgspec's encode and decode included, goes to the step of the function that called it), and the step's
    share of the request's unprofiled CPU time measured just before in the same run; and the Python calls
    per write (a count the machine's load does not change) through the heartbeat and the whole path."""
    import cProfile
    import pstats

    async with Cluster(seed=1, tune_gc=True, **API_ONLY) as cluster:
        hb = Heartbeats(cluster, n)
        await hb.setup()
        for kind in hb.KINDS:
            await hb.timed(kind)  # the first status writes: the steady state starts after them
        for kind in hb.KINDS:
            us = await hb.timed(kind)
            calls: list[float] = []
            for whole in (True, False):
                prof = cProfile.Profile()
                with _whole_path() if whole else contextlib.nullcontext():
                    prof.enable()
                    for i in range(n):
                        await hb.write(kind, i)
                    prof.disable()
                calls.append(pstats.Stats(prof).total_calls / n)  # type: ignore[attr-defined]
            stats: dict[Any, Any] = pstats.Stats(prof).stats  # type: ignore[attr-defined]
            steps: dict[str, float] = {}
            for func, (_, _, tt, _, callers) in stats.items():
                if func[0] == "~" and callers:  # a builtin: split its time over its callers
                    for caller, c in callers.items():
                        steps[_hb_step(caller)] = steps.get(_hb_step(caller), 0.0) + c[2]
                else:
                    steps[_hb_step(func)] = steps.get(_hb_step(func), 0.0) + tt
            total = sum(steps.values())
            print(f"{kind}: {us:.1f} us of CPU per write unprofiled; {calls[1]:.0f} Python calls per write "
                  f"(the whole path: {calls[0]:.0f}); cProfile tottime by step ({n} writes, load "
                  f"{os.getloadavg()[0]:.1f})")
            for label, v in sorted(steps.items(), key=lambda kv: -kv[1]):
                print(f"  {label:<64} {100 * v / total:5.1f}%  ~{us * v / total:6.1f} us")


async def heartbeat_ab(n: int, rounds: int) -> None:
    """Stop 22's two heartbeat changes on and off, interleaved in one process: the written-object cache
    (``apiserver/registry/written.py``, off: capacity 0) and the kubelet's unread status patches
    (``Client.patch_status_unread``, off: ``patch_status`` with its answer dropped); best per mode."""
    from kubelite.apiserver.registry.written import CAPACITY
    from kubelite.client.client import Client

    async with Cluster(seed=1, tune_gc=True, **API_ONLY) as cluster:
        hb = Heartbeats(cluster, n)
        await hb.setup()
        for kind in hb.KINDS:
            await hb.timed(kind)  # the first status writes: the steady state starts after them
        written = cluster.apiserver.generic_store.written
        unread = Client.patch_status_unread

        async def read(self: Client, res: Any, name: str, patch: Any, **kw: Any) -> None:
            await self.patch_status(res, name, patch, **kw)

        modes = ("both on", "cache only", "unread only", "both off", "whole path")
        best: dict[tuple[str, str], float] = {}
        try:
            for _ in range(rounds):
                for mode in modes:
                    written.capacity = CAPACITY if mode in ("both on", "cache only") else 0
                    Client.patch_status_unread = unread if mode in ("both on", "unread only") else read  # type: ignore[method-assign]
                    with _whole_path() if mode == "whole path" else contextlib.nullcontext():
                        for kind in hb.KINDS:
                            await hb.timed(kind)  # (warm this mode)
                            v = await hb.timed(kind)
                            best[(kind, mode)] = min(v, best.get((kind, mode), v))
        finally:
            Client.patch_status_unread = unread  # type: ignore[method-assign]
            written.capacity = CAPACITY
        print(f"heartbeat A/B, {n} nodes, best of {rounds} interleaved rounds, us of CPU per write, load "
              f"{os.getloadavg()[0]:.1f}")
        for kind in hb.KINDS:
            row = ", ".join(f"{m} {best[(kind, m)]:.1f}" for m in modes)
            print(f"  {kind}: {row}; both on / both off {best[(kind, 'both on')] / best[(kind, 'both off')]:.2f}")


async def hour_ab(nodes: int, rounds: int) -> None:
    """bench/kubelet.py's simulated hour (``nodes`` x 30 probed pods, 0.25 h) with the heartbeat path on and
    off, alternating in this process: what the heartbeat path gives the kubelets' main client."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("kubelet_bench", os.path.join(os.path.dirname(__file__), "kubelet.py"))
    assert spec is not None and spec.loader is not None
    kb = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(kb)
    for _ in range(rounds):
        for on in (True, False):
            with contextlib.nullcontext() if on else _whole_path():
                h = await kb.speedup(nodes, 30, 0.25, False)
            print(f"{'heartbeat path' if on else 'whole path'}: hour {h.cpu:.2f} s CPU ({h.wall:.1f} s wall), leases "
                  f"only {h.leases_cpu:.2f} s CPU, heartbeat writes priced alone {h.writes_cpu:.2f} s CPU; "
                  f"{h.renewals} renewals, {h.reports} node reports, {h.patches} pod status patches; load "
                  f"{os.getloadavg()[0]:.1f}", flush=True)


@contextlib.contextmanager
def _create_shortcuts_off(stops: tuple[int, ...] = (23, 24)) -> Iterator[None]:
    """The create path's shortcuts of ``stops`` off (each a no-op in trees without it). Stop 23: a create's
    managedFields composed from the whole set (``ssa.compare.created_fields`` unused) and every quantity
    string parsed (its per-string memo unused). Stop 24: every body parsed to a dict and converted
    (``Decoder.decode_json`` unused), a create's managedFields through ``FieldManager.update``
    (``GenericStore.track_created`` unused), every admission plugin of the operation asked whatever the
    resource (no ``resources`` declared; the chain's per-resource lists cleared on the way in and out)."""
    import kubelite.api.quantity_fields as quantity_fields
    import kubelite.apiserver.ssa as ssa
    from kubelite.apiserver.admission import chain as chain_module
    from kubelite.apiserver.pipeline import Decoder
    from kubelite.apiserver.registry.store import GenericStore

    undo: list[Callable[[], None]] = []

    def swap(owner: Any, name: str, value: Any) -> None:
        if name in vars(owner):
            saved = vars(owner)[name]
            setattr(owner, name, value)
            undo.append(lambda: setattr(owner, name, saved))

    if 23 in stops:
        swap(ssa, "created_fields", lambda *a: None)
        swap(quantity_fields, "_canonical_str", getattr(quantity_fields, "_canonical_of", None))
    if 24 in stops:
        swap(Decoder, "decode_json", lambda self, *a: None)
        swap(GenericStore, "track_created", lambda self, st, obj, m: self.track(st, None, obj, m))
        for cls in _declaring_plugins(chain_module):
            saved_res = cls.resources
            del cls.resources
            undo.append(lambda cls=cls, res=saved_res: setattr(cls, "resources", res))
        _clear_plugin_lists()
        undo.append(_clear_plugin_lists)
    try:
        yield
    finally:
        for fn in reversed(undo):
            fn()


#: the admission chains whose per-resource plugin lists the stop-24 switch clears (the benches' clusters)
CHAINS: list[Any] = []


def _declaring_plugins(chain_module: Any) -> list[type]:
    return sorted({type(p) for ch in CHAINS for p in (*ch.mutating_plugins, *ch.validating_plugins)
                   if "resources" in vars(type(p))}, key=lambda c: c.__name__)


def _clear_plugin_lists() -> None:
    for ch in CHAINS:
        getattr(ch, "_by_operation", {}).clear()


async def create_shortcuts_ab(n: int, chunk: int = 50, stops: tuple[int, ...] = (23, 24)) -> None:
    """Creates (every spec its own, and templated memo hits) with the create shortcuts on and off,
    interleaved in chunks of ``chunk`` in one cluster; the first half of each kind starts with "on", the
    second with "off", so a drift over the run (a growing store, the machine's load) weighs on both sides.
    Each side's figure is its median chunk (a shared machine's bursts land on a few chunks). The cyclic
    collector runs between chunks, untimed (a full collection landing in one chunk is tens of
    µs per create on that side alone); CPU inside managedFields and quantity canonicalisation is also
    reported, the two steps the shortcuts change."""
    import kubelite.apiserver.pipeline as pipeline
    from kubelite.apiserver.ssa import FieldManager

    inner = {"managedFields": 0.0, "quantities": 0.0}  # CPU inside the two steps the shortcuts change

    def timing(fn: Callable[..., Any], step: str) -> Callable[..., Any]:
        def timed_step(*a: Any, **k: Any) -> Any:
            t0 = time.process_time()
            try:
                return fn(*a, **k)
            finally:
                inner[step] += time.process_time() - t0
        return timed_step

    import kubelite.apiserver.ssa as ssa

    update, quantities = FieldManager.update, pipeline.canonicalize_quantities
    created = getattr(ssa, "created_managed_fields", None)  # (stop 24's create entry, beside update)
    FieldManager.update = timing(update, "managedFields")  # type: ignore[method-assign]
    pipeline.canonicalize_quantities = timing(quantities, "quantities")
    if created is not None:
        ssa.created_managed_fields = timing(created, "managedFields")
    try:
        await _create_shortcuts_ab(n, chunk, inner, stops)
    finally:
        FieldManager.update = update  # type: ignore[method-assign]
        pipeline.canonicalize_quantities = quantities
        if created is not None:
            ssa.created_managed_fields = created


async def _create_shortcuts_ab(n: int, chunk: int, inner: dict[str, float], stops: tuple[int, ...]) -> None:
    async with Cluster(seed=1, tune_gc=True, **API_ONLY) as cluster:
        CHAINS[:] = [cluster.apiserver.admission]
        c = cluster.client
        with await c.open_watch("pods", capacity=8 * n + 1000):
            for kind in ("every spec its own", "from templates"):
                bodies = [pod(i) if kind == "every spec its own" else templated_pod(i, 100) for i in range(2 * n)]
                for b in bodies:
                    b["metadata"]["name"] = f"ab-{kind[0]}-{b['metadata']['name']}"
                if kind == "from templates":  # each template seen twice first: the timed creates are memo hits
                    for i in range(200):
                        warm = templated_pod(10**6 + i, 100)
                        warm["metadata"]["name"] = f"ab-warm-{i}"
                        await c.create(warm)
                spent = {True: 0.0, False: 0.0}
                count = {True: 0, False: 0}
                steps = {(on, step): 0.0 for on in (True, False) for step in inner}
                chunks: dict[bool, list[float]] = {True: [], False: []}
                gc.collect()
                for start in range(0, 2 * n, chunk):
                    on = (start // chunk % 2 == 0) == (start < n)
                    with contextlib.nullcontext() if on else _create_shortcuts_off(stops):
                        gc.collect()  # (between chunks, untimed: a full collection lands on neither side)
                        gc.disable()
                        before = dict(inner)
                        t0 = time.process_time()
                        for b in bodies[start:start + chunk]:
                            await c.create(b)
                        spent[on] += time.process_time() - t0
                        chunks[on].append((time.process_time() - t0) / len(bodies[start:start + chunk]) * 1e6)
                        gc.enable()
                        for step in inner:
                            steps[on, step] += inner[step] - before[step]
                    count[on] += len(bodies[start:start + chunk])
                # the median chunk: a shared machine's bursts land on a few chunks, and on either side
                us = {k: statistics.median(chunks[k]) for k in chunks}
                within = ", ".join(f"{step} {steps[True, step] / count[True] * 1e6:.1f} vs "
                                   f"{steps[False, step] / count[False] * 1e6:.1f}" for step in inner)
                print(f"create, {kind}: shortcuts on {us[True]:.1f} us, off {us[False]:.1f} us of CPU per create (median chunk) "
                      f"(on/off {us[True] / us[False]:.3f}; of which {within}), {count[True]} + {count[False]} "
                      f"creates, load {os.getloadavg()[0]:.1f}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pods", type=int, default=5000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--same-spec", action="store_true", help="every pod shares one spec (the old, flattering bench)")
    ap.add_argument("--templates", type=int, default=100,
                    help="distinct (varied) pod templates the templated creates are stamped from")
    ap.add_argument("--hour-ab", type=int, metavar="NODES", default=0,
                    help="bench/kubelet.py's hour on NODES nodes, heartbeat path on and off (2 rounds)")
    ap.add_argument("--heartbeat-ab", type=int, metavar="NODES", default=0,
                    help="NODES nodes' heartbeats with the written-object cache and unread status patches on/off")
    ap.add_argument("--create-ab", type=int, metavar="PODS", default=0,
                    help="2 x PODS creates of each kind with the create shortcuts on and off, interleaved")
    ap.add_argument("--create-ab-stops", default="23,24",
                    help="whose create shortcuts --create-ab turns off: stops 23 and/or 24 (comma-separated)")
    ap.add_argument("--profile-heartbeats", action="store_true",
                    help="print where each heartbeat kind's steady-state write spends its time (cProfile tottime)")
    ap.add_argument("--profile", action="store_true",
                    help="print where a templated and an every-spec-its-own create spend their time (cProfile)")
    args = ap.parse_args()
    if args.heartbeat_ab:
        asyncio.run(heartbeat_ab(args.heartbeat_ab, 4))
        return
    if args.hour_ab:
        asyncio.run(hour_ab(args.hour_ab, 2))
        return
    if args.create_ab:
        asyncio.run(create_shortcuts_ab(args.create_ab, stops=tuple(int(x) for x in args.create_ab_stops.split(","))))
        return
    if args.profile_heartbeats:
        asyncio.run(profile_heartbeats(max(1, args.pods // 5)))
        return
    if args.profile:
        for templated in (True, False):
            split = asyncio.run(profile_split(args.pods, args.templates, templated))
            print(f"profile of {args.pods} creates, {'from templates' if templated else 'every spec its own'} "
                  f"(cProfile cumulative shares), load {os.getloadavg()[0]:.1f}")
            for label, share in split:
                if label.startswith("calls: "):
                    print(f"  {label.removeprefix('calls: '):<52} {share:5.2f}")
                else:
                    print(f"  {label:<52} {100 * share:5.1f}%")
        return
    best: dict[str, float] = {}
    for _ in range(args.repeat):
        for k, v in asyncio.run(one_run(args.pods, args.same_spec, args.templates)).items():
            best[k] = min(v, best.get(k, v))
    load = os.getloadavg()[0]
    print(f"write path, {args.pods} pods ({'one shared spec' if args.same_spec else 'varied specs'}; templated "
          f"creates from {args.templates} varied templates), best of {args.repeat}, load {load:.1f} "
          "(us of CPU per request; requests per CPU-second)")
    floor = best["floor: minimal Python create"]
    for k, v in best.items():
        ratio = f"  {v / floor:5.1f}x the minimal create" if k.startswith("create") else ""
        if k.startswith(("heartbeat: ", "whole path: ", "first status write: ")):
            kind = k.split(": ", 1)[1]
            raw, plain = best[f"floor: raw store write ({kind})"], best[f"floor: minimal Python update ({kind})"]
            ratio = f"  {v / raw:5.1f}x raw store write, {v / plain:5.1f}x minimal Python update"
        print(f"  {k:<48} {v:8.1f} us {1e6 / v:10,.0f}/s{ratio}")


if __name__ == "__main__":
    main()
