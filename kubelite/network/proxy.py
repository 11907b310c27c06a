"""kube-proxy, one per node: Service VIP:port → endpoints, programmed with a delay on the cluster clock.

Follows ``pkg/proxy`` (``ServiceChangeTracker``/``EndpointsChangeTracker`` feeding ``syncProxyRules``
through ``async.BoundedFrequencyRunner``), ``pkg/proxy/topology.go`` (``CategorizeEndpoints``: ready
endpoints, else serving-and-terminating ones; ``internalTrafficPolicy: Local``), ``iptables/proxier.go``
(probability chain: a uniformly random endpoint) and ``ipvs/proxier.go`` (``rr`` scheduler).

Contract:
- A proxy reads Services and EndpointSlices only through informers (see :class:`ServiceTable`); it never
  writes anything. :meth:`KubeProxy.route` answers from the rules *installed on this node*, which lag
  the informers: a change is picked up by the next sync, which starts no sooner than ``min_sync_period``
  (1 s, upstream's default) after the previous one began and not before it finished, and the new rules
  take effect only when programming ends.
- Programming delay (virtual seconds), ``rules = 2·(service ports) + 3·(service-port endpoints)``:

  - iptables mode rewrites every rule each sync: ``0.005 + 3e-5 · rules``. With 30,000 pods behind
    Services (~90,000 rules) that is ~2.7 s, the "seconds at tens of thousands of pods" measured on
    real clusters (iptables-restore at ~30 µs per rule);
  - ipvs mode updates the kernel table incrementally: a flat ``0.005``.

  Each node's delay is scaled once by a factor in ``[0.8, 1.2)`` drawn from the seeded rng (nodes are
  not equally loaded), so proxies on different nodes lag differently, deterministically.
- ``route`` picks uniformly at random with the seeded rng in iptables mode and round robin per
  service port in ipvs mode; it returns None when the service port has no usable endpoint (upstream
  installs a REJECT rule). Headless and ExternalName Services have no VIP and no rules.
- :meth:`stop` freezes the node's rules (kube-proxy down: the kernel keeps what it had); :meth:`start`
  resumes with a full sync.
Simplified away: NodePorts, load balancers, session affinity, externalTrafficPolicy and the periodic
``syncPeriod`` resync (it would change nothing on a simulated kernel).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any, NamedTuple

from kubelite.clock import Clock, TimerHandle
from kubelite.informer import Indexer, Lister

__all__ = [
    "IPTABLES_BASE_DELAY",
    "IPTABLES_PER_RULE_DELAY",
    "IPVS_DELAY",
    "SLICES_BY_SERVICE",
    "Endpoint",
    "KubeProxy",
    "ServiceTable",
    "programming_delay",
    "slices_by_service",
]

IPTABLES_BASE_DELAY = 0.005
IPTABLES_PER_RULE_DELAY = 3e-5
IPVS_DELAY = 0.005
#: upstream kube-proxy --iptables-min-sync-period / --ipvs-min-sync-period default
MIN_SYNC_PERIOD = 1.0
#: index of the EndpointSlice informer: "namespace/service-name"
SLICES_BY_SERVICE = "kubelite.io/slices-by-service"
LABEL_SERVICE_NAME = "kubernetes.io/service-name"


def slices_by_service(obj: Any) -> list[str]:
    meta = obj.get("metadata") or {}
    svc = (meta.get("labels") or {}).get(LABEL_SERVICE_NAME)
    return [f"{meta.get('namespace') or ''}/{svc}"] if svc else []


def programming_delay(mode: str, rules: int) -> float:
    """Seconds one sync takes to program ``rules`` rules (see the module docstring)."""
    if mode == "ipvs":
        return IPVS_DELAY
    return IPTABLES_BASE_DELAY + IPTABLES_PER_RULE_DELAY * rules


class Endpoint(NamedTuple):
    """One backend of a service port, as a proxy rule names it."""

    ip: str
    port: int
    namespace: str
    pod: str
    pod_uid: str
    node: str


class _Port(NamedTuple):
    """The endpoints of one ``(vip, port, protocol)``."""

    service: str  # namespace/name
    endpoints: tuple[Endpoint, ...]
    local_only: bool  # internalTrafficPolicy: Local


class ServiceTable:
    """The whole cluster's service rules at one informer state; immutable once built, shared by every
    proxy that syncs at that state (building it is O(service ports + endpoints))."""

    __slots__ = ("ports", "rules")

    def __init__(self, services: Lister[Any], slices: Indexer) -> None:
        ports: dict[tuple[str, int, str], _Port] = {}
        rules = 0
        for svc in services.list():
            spec, meta = svc.spec, svc.metadata
            if spec is None or meta is None or spec.type == "ExternalName":
                continue
            vip = spec.cluster_ip
            if not vip or vip == "None":
                continue
            key = f"{meta.namespace}/{meta.name}"
            svc_slices = slices.by_index(SLICES_BY_SERVICE, key)
            local = spec.internal_traffic_policy == "Local"
            for sp in spec.ports or ():
                proto = sp.protocol or "TCP"
                eps = _categorize(svc_slices, sp.name or "", proto)
                ports[(vip, sp.port or 0, proto)] = _Port(key, eps, local)
                rules += 2 + 3 * len(eps)
        self.ports = ports
        self.rules = rules


def _categorize(slices: list[Any], port_name: str, proto: str) -> tuple[Endpoint, ...]:
    """``CategorizeEndpoints``: the ready endpoints, or the serving terminating ones when none is ready."""
    ready: list[Endpoint] = []
    fallback: list[Endpoint] = []
    seen: set[tuple[str, int]] = set()
    for s in slices:
        number = None
        for p in s.get("ports") or ():
            if (p.get("name") or "") == port_name and (p.get("protocol") or "TCP") == proto:
                number = p.get("port")
                break
        if number is None:
            continue
        for ep in s.get("endpoints") or ():
            addrs = ep.get("addresses")
            if not addrs or (addrs[0], number) in seen:
                continue
            seen.add((addrs[0], number))
            cond = ep.get("conditions") or {}
            is_ready = cond.get("ready") is not False  # nil means ready
            serving = cond.get("serving")
            serving = is_ready if serving is None else serving
            ref = ep.get("targetRef") or {}
            e = Endpoint(addrs[0], number, ref.get("namespace") or "", ref.get("name") or "", ref.get("uid") or "",
                         ep.get("nodeName") or "")
            if is_ready:
                ready.append(e)
            elif serving and cond.get("terminating"):
                fallback.append(e)
    return tuple(ready or fallback)


class KubeProxy:
    """One node's kube-proxy. ``table_source()`` returns the current :class:`ServiceTable` (shared)."""

    def __init__(
        self, node_name: str, table_source: Callable[[], ServiceTable], *, clock: Clock, rng: random.Random,
        mode: str = "iptables", min_sync_period: float = MIN_SYNC_PERIOD,
    ) -> None:
        if mode not in ("iptables", "ipvs"):
            raise ValueError(f"unknown proxy mode {mode!r} (iptables or ipvs)")
        self.node_name = node_name
        self.mode = mode
        self.min_sync_period = min_sync_period
        self._source = table_source
        self._clock = clock
        self._rng = rng
        self._jitter = 0.8 + 0.4 * rng.random()
        self._installed: ServiceTable | None = None
        self._local: dict[tuple[str, int, str], tuple[Endpoint, ...]] = {}
        self._rr: dict[tuple[str, int, str], int] = {}
        self._last_start = -float("inf")
        self._busy_until = -float("inf")
        self._timer: TimerHandle | None = None
        self._dirty = False
        self._running = True
        #: (sync start, programming delay, rules) of every sync, for tests and reports
        self.syncs: list[tuple[float, float, int]] = []

    # --- sync (BoundedFrequencyRunner) ---
    def request_sync(self) -> None:
        """Something changed: sync as soon as ``min_sync_period`` and the running sync allow."""
        self._dirty = True
        if self._timer is not None or not self._running:
            return
        now = self._clock.now()
        at = max(now, self._last_start + self.min_sync_period, self._busy_until)
        self._timer = self._clock.call_later(at - now, self._sync)

    def _sync(self) -> None:
        self._timer = None
        if not self._running or not self._dirty:
            return
        self._dirty = False
        now = self._clock.now()
        table = self._source()
        delay = programming_delay(self.mode, table.rules) * self._jitter
        self._last_start = now
        self._busy_until = now + delay
        self.syncs.append((now, delay, table.rules))
        self._clock.call_later(delay, lambda: self._install(table))

    def _install(self, table: ServiceTable) -> None:
        if not self._running:
            return
        self._installed = table
        self._local = {}
        if self._dirty:  # changes arrived while programming
            self.request_sync()

    def stop(self) -> None:
        """kube-proxy is down: the node keeps its current rules, changes are not picked up."""
        self._running = False
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def start(self) -> None:
        self._running = True
        self.request_sync()

    # --- data plane ---
    @property
    def programmed(self) -> bool:
        """Whether any rules were installed yet."""
        return self._installed is not None

    def endpoints(self, vip: str, port: int, protocol: str = "TCP") -> tuple[Endpoint, ...]:
        """The endpoints this node's rules send ``vip:port`` to."""
        table = self._installed
        if table is None:
            return ()
        key = (vip, port, protocol)
        entry = table.ports.get(key)
        if entry is None:
            return ()
        if not entry.local_only:
            return entry.endpoints
        eps = self._local.get(key)
        if eps is None:
            eps = self._local[key] = tuple(e for e in entry.endpoints if e.node == self.node_name)
        return eps

    def route(self, vip: str, port: int, protocol: str = "TCP") -> Endpoint | None:
        """The endpoint one new connection to ``vip:port`` goes to, or None (REJECT: no endpoints)."""
        eps = self.endpoints(vip, port, protocol)
        if not eps:
            return None
        if self.mode == "ipvs":
            key = (vip, port, protocol)
            i = self._rr.get(key, 0)
            self._rr[key] = i + 1
            return eps[i % len(eps)]
        return eps[self._rng.randrange(len(eps))]
