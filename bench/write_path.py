"""The apiserver's write path, per request, in CPU time (issue #13: the registry split must not cost more
than 5%; issue #17: creates >= 20,000/s, heartbeat-class writes <= 2x a raw store write).

    python bench/write_path.py [--pods 5000] [--repeat 5] [--same-spec] [--templates 100] [--profile]

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
import gc
import os
import random
import time
from collections.abc import Awaitable, Callable
from typing import Any

import msgspec

from kubelite.cluster import Cluster

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
    out["merge patch"] = await timed(n, lambda i: c.patch(
        "pods", f"pod-{i:06d}", {"metadata": {"labels": {"rev": "2"}}}, patch_type="merge"))
    out["apply (create)"] = await timed(n, lambda i: c.apply(
        {**bodies[i], "metadata": {"name": f"applied-{i:06d}", "namespace": "default"}}, field_manager="bench"))
    out["delete"] = await timed(n, lambda i: c.delete("pods", f"pod-{i:06d}"))
    return out


async def _heartbeats(cluster: Cluster, n: int) -> dict[str, float]:
    """Heartbeat-class writes, each as the kubelet's own identity would send it, and the raw floor."""
    out: dict[str, float] = {}
    c = cluster.client
    for i in range(n):
        await c.create(node(i))
        await c.create(lease(i))
        p = pod(100_000 + i)
        p["spec"]["nodeName"] = f"node-{i:05d}"
        p["spec"].pop("nodeSelector", None)
        await c.create(p)
    leases = [await c.get("leases", f"node-{i:05d}", namespace="kube-node-lease") for i in range(n)]
    tick = [0]

    def renew(i: int) -> Awaitable[Any]:
        obj = leases[i]
        obj["spec"]["renewTime"] = f"2025-01-01T00:{tick[0] // 60 % 60:02d}:{tick[0] % 60:02d}.000000Z"
        tick[0] += 1
        return c.replace(obj)

    async def renew_and_keep(i: int) -> None:
        leases[i] = await renew(i)

    out["heartbeat: lease renewal"] = await timed(n, renew_and_keep)
    out["heartbeat: node status patch"] = await timed(n, lambda i: c.patch("nodes", f"node-{i:05d}", {"status": {
        "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady",
                        "lastHeartbeatTime": "2025-01-01T00:00:10Z", "lastTransitionTime": "2025-01-01T00:00:00Z"}],
    }}, patch_type="strategic", subresource="status"))
    out["heartbeat: pod status patch"] = await timed(n, lambda i: c.patch("pods", f"pod-{100_000 + i:06d}", {
        "status": {"phase": "Running", "podIP": f"10.0.{i // 250 % 256}.{i % 250 + 1}",
                   "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": "2025-01-01T00:00:00Z"}]},
    }, patch_type="merge", subresource="status"))
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
                                                     ("apiserver/pipeline.py", "decode_metadata")]),
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


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pods", type=int, default=5000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--same-spec", action="store_true", help="every pod shares one spec (the old, flattering bench)")
    ap.add_argument("--templates", type=int, default=100,
                    help="distinct (varied) pod templates the templated creates are stamped from")
    ap.add_argument("--profile", action="store_true",
                    help="print where a templated and an every-spec-its-own create spend their time (cProfile)")
    args = ap.parse_args()
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
        if k.startswith("heartbeat: "):
            kind = k.removeprefix("heartbeat: ")
            raw, plain = best[f"floor: raw store write ({kind})"], best[f"floor: minimal Python update ({kind})"]
            ratio = f"  {v / raw:5.1f}x raw store write, {v / plain:5.1f}x minimal Python update"
        print(f"  {k:<48} {v:8.1f} us {1e6 / v:10,.0f}/s{ratio}")


if __name__ == "__main__":
    main()
