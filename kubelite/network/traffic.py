"""A traffic generator: clients on a node sending requests to a Service, answered (or not) by pods.

Contract:
- Reads state only through informers and the node proxies (never the store, never the client).
- A request at time ``t`` from node ``N`` to Service ``S``: resolve ``S.<ns>.svc.cluster.local`` through
  :class:`~kubelite.network.dns.ClusterDNS` (NXDOMAIN → error); for a VIP, ask ``N``'s
  :class:`~kubelite.network.proxy.KubeProxy` for an endpoint (none → error ``no endpoints``, the REJECT
  rule); for a headless Service, pick one of the returned pod IPs uniformly. The request succeeds iff
  the chosen pod is **actually serving** at ``t``.
- "Actually serving" is the workload model's ground truth, not the pod's Ready condition (a pod can
  be Ready without serving, which is exactly what a missing readiness probe causes): the pod still
  exists with the endpoint's uid, every container is running, its image profile's ``readyAfter`` has
  passed since the container started, it has not hung (``hangAfter``), and, when the pod is being
  deleted, its process has not exited yet: it keeps answering through ``preStopSeconds`` and then the
  ``shutdownSeconds`` of graceful shutdown after SIGTERM (capped by the grace period), as the kubelet
  plays it out (see ``docs/workload-profiles.md``). Profiles come from the same ``ImageRegistry`` the
  kubelets use (plus the pod's ``kubelite.io/profile`` annotations).
- NetworkPolicies apply (:mod:`kubelite.network.policy`): the client is the pod ``from_pod`` (its IP,
  namespace and labels; it sends from its node) or, by default, a host process on ``from_node`` (matched by
  policies only through ``ipBlock``, with the node's InternalIP). A connection a policy denies fails with
  ``denied by network policy`` (the packets are dropped: the client times out). The port a policy sees is the
  pod's port the connection lands on (the endpoint's port, after kube-proxy's DNAT).
- Requests are evenly spaced at ``rate_per_s`` on the cluster clock from ``start`` until ``stop()`` or
  ``duration``; the only randomness is the proxies' and the headless pick, from the seeded rng, so a
  seed replays the same outcome.
- :meth:`TrafficHandle.report` gives totals, the success rate, per-second buckets and the per-pod
  distribution of answered requests (``namespace/name``), plus error counts by reason.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from typing import Any

import msgspec

from kubelite.clock import Clock, TimerHandle, parse_time
from kubelite.informer import Indexer, Lister
from kubelite.network.dns import ClusterDNS
from kubelite.network.policy import Peer, PolicySet, named_ports
from kubelite.network.proxy import KubeProxy
from kubelite.workload import ImageProfile, ImageRegistry, profile_for

__all__ = ["POD_IP_INDEX", "Traffic", "TrafficHandle", "TrafficReport", "pod_ip_index"]

POD_IP_INDEX = "kubelite.io/pod-ip"

#: error reasons
NXDOMAIN = "NXDOMAIN"
NO_ENDPOINTS = "no endpoints"
NO_PORT = "no such service port"
POD_GONE = "pod gone"
NOT_RUNNING = "container not running"
NOT_SERVING = "not serving yet"
HUNG = "hung"
EXITED = "shut down"
NODE_DOWN = "node down"
DENIED = "denied by network policy"
CLIENT_GONE = "client pod not running"

_ALLOW_ALL = PolicySet((), lambda _ns: None)


def pod_ip_index(pod: Any) -> list[str]:
    st = pod.status
    return [st.pod_ip] if st is not None and st.pod_ip else []


class TrafficReport(msgspec.Struct, frozen=True, kw_only=True):
    sent: int
    succeeded: int
    failed: int
    success_rate: float
    #: (second since start, succeeded, failed) for every second with traffic
    per_second: tuple[tuple[int, int, int], ...]
    #: answered requests per pod, "namespace/name"
    per_pod: dict[str, int]
    #: failed requests per reason
    errors: dict[str, int]


class TrafficHandle:
    """One running stream of requests. ``stop()`` ends it; ``report()`` may be read at any time."""

    def __init__(self, traffic: Traffic, service: str, namespace: str, rate: float, node: str,
                 port: int | None, until: float | None, client: str | None = None) -> None:
        self._t = traffic
        #: the client pod ("namespace/name"), or None for a host process on ``node``
        self.client = client
        self.service = service
        self.namespace = namespace
        self.interval = 1.0 / rate
        self.node = node
        self.port = port
        self.until = until
        self.started = traffic.clock.now()
        self._n = 0
        self._timer: TimerHandle | None = None
        self._ok: list[int] = []
        self._bad: list[int] = []
        self._per_pod: dict[str, int] = {}
        self._errors: dict[str, int] = {}

    @property
    def running(self) -> bool:
        return self._timer is not None

    def _schedule(self) -> None:
        at = self.started + self._n * self.interval
        if self.until is not None and at >= self.until:
            self._timer = None
            return
        self._timer = self._t.clock.call_later(max(0.0, at - self._t.clock.now()), self._fire)

    def _fire(self) -> None:
        self._timer = None
        now = self._t.clock.now()
        sec = int(self._n * self.interval + 1e-9)
        self._n += 1
        pod, err = self._t.send(self.service, self.namespace, self.node, self.port, now, client=self.client)
        while len(self._ok) <= sec:
            self._ok.append(0)
            self._bad.append(0)
        if err is None:
            self._ok[sec] += 1
            self._per_pod[pod] = self._per_pod.get(pod, 0) + 1
        else:
            self._bad[sec] += 1
            self._errors[err] = self._errors.get(err, 0) + 1
        self._schedule()

    def stop(self) -> TrafficReport:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        return self.report()

    def report(self) -> TrafficReport:
        ok, bad = sum(self._ok), sum(self._bad)
        sent = ok + bad
        return TrafficReport(
            sent=sent, succeeded=ok, failed=bad, success_rate=ok / sent if sent else 1.0,
            per_second=tuple((i, o, b) for i, (o, b) in enumerate(zip(self._ok, self._bad)) if o or b),
            per_pod=dict(sorted(self._per_pod.items())), errors=dict(sorted(self._errors.items())),
        )


class Traffic:
    """Starts :class:`TrafficHandle` streams. ``pods`` is the pod informer's indexer, with
    :data:`POD_IP_INDEX` (for headless Services)."""

    def __init__(
        self, proxies: Mapping[str, KubeProxy], dns: ClusterDNS, pods: Indexer, services: Lister[Any], *,
        clock: Clock, rng: random.Random, registry: ImageRegistry | None = None,
        policies: Callable[[], PolicySet] | None = None, host_ip: Callable[[str], str] | None = None,
    ) -> None:
        self.proxies = proxies
        #: the NetworkPolicies in force (none: everything is allowed) and a node's InternalIP
        self.policies = policies or (lambda: _ALLOW_ALL)
        self.host_ip = host_ip or (lambda _node: "")
        self.dns = dns
        self.pods = pods
        self.services = services
        self.clock = clock
        self.rng = rng
        self.registry = registry if registry is not None else ImageRegistry()
        self._profiles: dict[tuple[str, str], ImageProfile] = {}
        #: nodes that are down (power loss): their pods answer nothing, whatever the API still says
        self.down_nodes: set[str] = set()

    def start(self, service: str, namespace: str = "default", rate_per_s: float = 100.0, from_node: str | None = None,
              duration: float | None = None, *, port: int | None = None, from_pod: str | None = None
              ) -> TrafficHandle:
        """Send ``rate_per_s`` requests per second to ``service`` from ``from_node`` (default: the first
        node) for ``duration`` seconds (default: until stopped). ``port``: the service port (default: the first).
        ``from_pod`` (``"namespace/name"``): the client is that pod, on its node (NetworkPolicies see it)."""
        if rate_per_s <= 0:
            raise ValueError("rate_per_s must be positive")
        if from_pod is not None:
            client = self.pods.get_by_key(from_pod)
            if client is None or client.spec is None or not client.spec.node_name:
                raise KeyError(f"client pod {from_pod!r} is not scheduled")
            from_node = client.spec.node_name
        node = from_node if from_node is not None else next(iter(self.proxies), None)
        if node is None or node not in self.proxies:
            raise KeyError(f"no kube-proxy on node {from_node!r}")
        until = None if duration is None else self.clock.now() + duration
        h = TrafficHandle(self, service, namespace, rate_per_s, node, port, until, from_pod)
        h._schedule()
        return h

    # --- one request ---
    def send(self, service: str, namespace: str, node: str, port: int | None, now: float, *,
             client: str | None = None) -> tuple[str, str | None]:
        """(pod "ns/name" that answered or "", error reason or None). ``client``: the sending pod."""
        if client is not None:
            src = self._client_peer(client)
            if src is None:
                return "", CLIENT_GONE
        else:
            src = Peer(ip=self.host_ip(node), node=node)
        ips = self.dns.resolve(f"{service}.{namespace}.svc.{self.dns.domain}")
        if not ips:
            return "", NXDOMAIN
        svc = self.services.indexer.get_by_key(f"{namespace}/{service}")
        spec = svc.spec if svc is not None else None
        if spec is not None and spec.cluster_ip == "None":
            pods = self.pods.by_index(POD_IP_INDEX, ips[self.rng.randrange(len(ips))])
            pod = pods[0] if pods else None
            uid = None
            sp = next((p for p in (spec.ports or ()) if port is None or p.port == port), None)
            target = sp.target_port if sp is not None and isinstance(sp.target_port, int) else (
                sp.port if sp is not None else port)
            dst_port, proto = target or 0, (sp.protocol if sp is not None else None) or "TCP"
        else:
            sp = None
            for p in (spec.ports if spec is not None else None) or ():
                if port is None or p.port == port:
                    sp = p
                    break
            if sp is None:
                return "", NO_PORT
            ep = self.proxies[node].route(ips[0], sp.port or 0, sp.protocol or "TCP")
            if ep is None:
                return "", NO_ENDPOINTS
            pod = self.pods.get_by_key(f"{ep.namespace}/{ep.pod}")
            uid = ep.pod_uid
            dst_port, proto = ep.port, sp.protocol or "TCP"
        if pod is None or (uid and pod.metadata.uid != uid):
            return "", POD_GONE
        if not self.policies().allows(src, _pod_peer(pod), dst_port, proto):
            return "", DENIED
        err = self.serving(pod, now)
        return f"{pod.metadata.namespace}/{pod.metadata.name}", err

    def _client_peer(self, key: str) -> Peer | None:
        pod = self.pods.get_by_key(key)
        if pod is None or pod.status is None or not pod.status.pod_ip or pod.status.phase != "Running":
            return None
        return _pod_peer(pod)

    def serving(self, pod: Any, now: float) -> str | None:
        """None if ``pod`` answers a request at ``now``, else why not (see the module docstring)."""
        spec, st, meta = pod.spec, pod.status, pod.metadata
        if st is None or st.phase != "Running" or spec is None:
            return NOT_RUNNING
        if spec.node_name in self.down_nodes:
            return NODE_DOWN
        statuses = {cs.name: cs for cs in st.container_statuses or ()}
        killed_at = None
        if meta.deletion_timestamp is not None:
            grace = meta.deletion_grace_period_seconds or 0
            killed_at = parse_time(meta.deletion_timestamp) - grace
        for c in spec.containers or ():
            cs = statuses.get(c.name)
            running = cs.state.running if cs is not None and cs.state is not None else None
            if running is None or running.started_at is None:
                return NOT_RUNNING
            started = parse_time(running.started_at)
            prof = self._profile(pod, c)
            if now < started + prof.ready_after:
                return NOT_SERVING
            if prof.hang_after is not None and now >= started + prof.hang_after:
                return HUNG
            if killed_at is not None:
                grace = meta.deletion_grace_period_seconds or 0
                if now >= killed_at + min(prof.pre_stop_seconds + prof.shutdown_seconds, grace):
                    return EXITED
        return None

    def _profile(self, pod: Any, container: Any) -> ImageProfile:
        key = (pod.metadata.uid or "", container.name or "")
        prof = self._profiles.get(key)
        if prof is None:
            base = self.registry.lookup(container.image or "") or ImageProfile()
            try:
                prof = profile_for(base, pod.metadata.annotations, container.name or "")
            except ValueError:
                prof = base
            if len(self._profiles) > 100_000:
                self._profiles.clear()
            self._profiles[key] = prof
        return prof


def _pod_peer(pod: Any) -> Peer:
    meta, spec, st = pod.metadata, pod.spec, pod.status
    return Peer(ip=(st.pod_ip if st is not None else None) or "", namespace=meta.namespace or "",
                labels=meta.labels or {}, node=(spec.node_name if spec is not None else None) or "",
                ports=named_ports(spec.containers or () if spec is not None else ()))
