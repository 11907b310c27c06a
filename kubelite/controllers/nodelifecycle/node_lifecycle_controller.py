"""The node lifecycle controller: node health from Leases, condition taints, NoExecute tainting.

Follows ``pkg/controller/nodelifecycle/node_lifecycle_controller.go``:

- **Health** (``tryUpdateNodeHealth``). A node is healthy while it has been heard from within the grace
  period (``nodeMonitorGracePeriod``, 50 s since 1.32; ``nodeStartupGracePeriod``, 60 s, while it has
  no Ready condition). Heard from = its Lease's ``renewTime`` or its Ready condition's
  ``lastHeartbeatTime``, whichever is later. Upstream stamps the controller's clock when it *observes*
  a new heartbeat on its 5 s monitor tick; kubelite has one clock for everyone, so it uses the
  heartbeat time itself and wakes exactly at the deadline (a node goes Unknown 50 s after its last
  renewal, upstream somewhere in 50-60 s). Past the deadline, Ready, MemoryPressure, DiskPressure and
  PIDPressure become ``Unknown`` with reason ``NodeStatusUnknown`` ("Kubelet stopped posting node
  status.") or ``NodeStatusNeverUpdated`` when missing; the event ``NodeNotReady`` is recorded and every
  pod on the node gets Ready=False (``MarkPodsNotReady``).
- **NoSchedule taints** (``doNoScheduleTaintingPass``, TaintNodesByCondition): exactly the taints the
  conditions call for (not-ready, unreachable, memory/disk/pid-pressure, network-unavailable,
  unschedulable) are present; others are left alone. This is what lifts the ``not-ready:NoSchedule``
  taint admission puts on a new node.
- **NoExecute taints** (``processTaintBaseEviction``, ``doNoExecuteTaintingPass``): Ready=False gets
  ``not-ready:NoExecute``, Unknown gets ``unreachable:NoExecute`` (swapped in place when one becomes
  the other), Ready=True has neither. New taints go through a per-zone token bucket: 0.1 nodes/s
  (burst 1) in a Normal zone; in a PartialDisruption zone (more than 2 and at least 55% of nodes not
  ready) 0.01/s, or none at all for zones of 50 nodes or fewer; when every zone is in FullDisruption
  the controller assumes it is the one cut off, adds no NoExecute taint and removes those it set
  (``handleDisruption``).

Who writes what: this controller writes node ``status.conditions`` only when the grace period has
expired, and node ``spec.taints`` only for the keys above; every write carries the resourceVersion it
was computed from, so a concurrent kubelet or user write makes it retry from a fresh read (409).
Reconciles are per node and level-based: a restart recomputes everything from the API.
"""

from __future__ import annotations

from typing import Any

import msgspec

from kubelite.api.types import Lease, Node, Pod
from kubelite.api.types.core_v1 import NodeCondition, Taint
from kubelite.client import Client
from kubelite.clock import Clock, parse_time
from kubelite.controllers.nodelifecycle.taints import (
    CONDITION_TAINT_KEYS,
    NO_EXECUTE,
    NO_SCHEDULE,
    NOT_READY,
    UNREACHABLE,
    condition_taints,
)
from kubelite.controllers.podutil import POD_NODE_INDEX
from kubelite.controllers.reconcile import Request, Result
from kubelite.errors import NotFound
from kubelite.events import EventRecorder
from kubelite.informer import Indexer

__all__ = ["NodeLifecycleConfig", "NodeLifecycleController", "POD_NODE_INDEX", "zone_key"]

LEASE_NAMESPACE = "kube-node-lease"
ZONE_LABEL = "topology.kubernetes.io/zone"
REGION_LABEL = "topology.kubernetes.io/region"
#: conditions besides Ready that go Unknown with it (upstream ``remainingNodeConditionTypes``).
_UNKNOWN_TOO = ("MemoryPressure", "DiskPressure", "PIDPressure")
# A deadline is "passed" strictly after it (upstream ``now.After(probe + grace)``).
_EPSILON = 1e-3

NORMAL, PARTIAL, FULL = "Normal", "PartialDisruption", "FullDisruption"


class NodeLifecycleConfig(msgspec.Struct, frozen=True, kw_only=True):
    """kube-controller-manager flags of this controller, with upstream's defaults."""

    node_monitor_period: float = 5.0
    node_monitor_grace_period: float = 50.0
    node_startup_grace_period: float = 60.0
    node_eviction_rate: float = 0.1
    secondary_node_eviction_rate: float = 0.01
    large_cluster_size_threshold: int = 50
    unhealthy_zone_threshold: float = 0.55


def zone_key(node: Node) -> str:
    """``nodetopology.GetZoneKey``: region and zone; "" when the node has neither label."""
    labels = (node.metadata.labels if node.metadata is not None else None) or {}
    region, zone = labels.get(REGION_LABEL, ""), labels.get(ZONE_LABEL, "")
    return f"{region}:\x00:{zone}" if region or zone else ""


def _ready(node: Node) -> NodeCondition | None:
    for c in (node.status.conditions if node.status is not None else None) or ():
        if c.type == "Ready":
            return c
    return None


class _TokenBucket:
    """``flowcontrol.NewTokenBucketRateLimiter(qps, 1)`` on the cluster clock (``TryAccept`` only)."""

    __slots__ = ("last", "qps", "tokens")

    def __init__(self, qps: float, now: float) -> None:
        self.qps, self.tokens, self.last = qps, 1.0, now

    def set_qps(self, qps: float, now: float) -> None:
        if qps != self.qps:  # upstream SwapLimiter: a fresh bucket at the new rate
            self.qps, self.tokens, self.last = qps, 1.0, now

    def try_accept(self, now: float) -> float:
        """0 when a token was taken, else the seconds until one is there (inf at rate 0)."""
        if self.qps <= 0:
            return float("inf")
        self.tokens = min(1.0, self.tokens + (now - self.last) * self.qps)
        self.last = now
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return 0.0
        return (1.0 - self.tokens) / self.qps


class NodeLifecycleController:
    """The reconciler (one request per node). See the module docstring."""

    def __init__(self, *, client: Client, clock: Clock, nodes: Indexer, leases: Indexer, pods: Indexer,
                 recorder: EventRecorder, config: NodeLifecycleConfig) -> None:
        self.client, self.clock, self.recorder, self.config = client, clock, recorder, config
        self.nodes, self.leases, self.pods = nodes, leases, pods
        self._known: set[str] = set()
        self._buckets: dict[str, _TokenBucket] = {}
        self._zone_states: dict[str, str] = {}
        self._zone_sizes: dict[str, int] = {}
        self._zones_at = -1e18

    # --- zones (``handleDisruption``) ---
    def _refresh_zones(self, now: float) -> None:
        """Zone states over every node, at most once per monitor period (upstream computes them on its tick)."""
        if now - self._zones_at < self.config.node_monitor_period:
            return
        self._zones_at = now
        ready: dict[str, int] = {}
        not_ready: dict[str, int] = {}
        for node in self.nodes.list():
            z = zone_key(node)
            c = _ready(node)
            if c is not None and c.status == "True":
                ready[z] = ready.get(z, 0) + 1
            else:
                not_ready[z] = not_ready.get(z, 0) + 1
        cfg = self.config
        states: dict[str, str] = {}
        for z in {*ready, *not_ready}:
            r, n = ready.get(z, 0), not_ready.get(z, 0)
            if r == 0 and n > 0:
                states[z] = FULL
            elif n > 2 and n / (n + r) >= cfg.unhealthy_zone_threshold:
                states[z] = PARTIAL
            else:
                states[z] = NORMAL
            self._zone_sizes[z] = r + n
        self._zone_states = states

    def _all_fully_disrupted(self) -> bool:
        return bool(self._zone_states) and all(s == FULL for s in self._zone_states.values())

    def _zone_rate(self, zone: str) -> float:
        """``setLimiterInZone``."""
        cfg = self.config
        state = self._zone_states.get(zone, NORMAL)
        if state == PARTIAL:
            return (cfg.secondary_node_eviction_rate
                    if self._zone_sizes.get(zone, 0) > cfg.large_cluster_size_threshold else 0.0)
        return cfg.node_eviction_rate

    # --- health (``tryUpdateNodeHealth``) ---
    def _probe_time(self, node: Node, ready: NodeCondition | None) -> float:
        meta = node.metadata
        name = meta.name if meta is not None else ""
        probe = parse_time(meta.creation_timestamp) if meta is not None and meta.creation_timestamp else 0.0
        if ready is not None and ready.last_heartbeat_time:
            probe = max(probe, parse_time(ready.last_heartbeat_time))
        lease: Lease | None = self.leases.get_by_key(f"{LEASE_NAMESPACE}/{name}")
        if lease is not None and lease.spec is not None and lease.spec.renew_time:
            probe = max(probe, parse_time(lease.spec.renew_time))
        return probe

    def _unknown_conditions(self, node: Node, now_ts: str) -> list[Any] | None:
        """The node's conditions with Ready and the pressures Unknown; None if they already are."""
        conds: list[Any] = [msgspec.to_builtins(c) for c in (node.status.conditions if node.status else None) or ()]
        by_type = {c.get("type"): c for c in conds}
        changed = False
        for t in ("Ready", *_UNKNOWN_TOO):
            c = by_type.get(t)
            if c is None:
                conds.append({"type": t, "status": "Unknown", "reason": "NodeStatusNeverUpdated",
                              "message": "Kubelet never posted node status.", "lastHeartbeatTime": now_ts,
                              "lastTransitionTime": now_ts})
                changed = True
            elif c.get("status") != "Unknown":
                c.update(status="Unknown", reason="NodeStatusUnknown", message="Kubelet stopped posting node status.",
                         lastTransitionTime=now_ts)
                changed = True
        return conds if changed else None

    async def reconcile(self, req: Request) -> Result | None:
        node: Node | None = self.nodes.get_by_key(req.name)
        if node is None:
            self._known.discard(req.name)
            return None
        cfg, now = self.config, self.clock.now()
        if req.name not in self._known:
            self._known.add(req.name)
            self.recorder.event(node, "Normal", "RegisteredNode",
                                f"Node {req.name} event: Registered Node {req.name} in Controller")
        self._refresh_zones(now)
        ready = _ready(node)
        grace = cfg.node_monitor_grace_period if ready is not None else cfg.node_startup_grace_period
        deadline = self._probe_time(node, ready) + grace
        status = ready.status if ready is not None else "Unknown"
        if now > deadline:
            conds = self._unknown_conditions(node, self.clock.timestamp())
            if conds is not None:
                rv = node.metadata.resource_version if node.metadata is not None else None
                node = await self.client.patch_status(
                    Node, req.name, {"metadata": {"resourceVersion": rv}, "status": {"conditions": conds}},
                    patch_type="merge")
                if status == "True":
                    self.recorder.event(node, "Normal", "NodeNotReady", f"Node {req.name} status is now: NodeNotReady")
            status = "Unknown"
        if status == "Unknown" and now > deadline:
            await self._mark_pods_not_ready(req.name)
        wait = await self._sync_taints(node, status, now)
        if status == "True":
            return Result(requeue_after=max(deadline - now, 0.0) + _EPSILON)
        return Result(requeue_after=min(wait, cfg.node_monitor_period))

    # --- taints ---
    async def _sync_taints(self, node: Node, status: str | None, now: float) -> float:
        """Bring the controller's taints to what ``status`` calls for; returns how long until a
        rate-limited NoExecute taint may be tried again (inf: nothing is waiting)."""
        assert node.metadata is not None
        current: list[Taint] = list(node.spec.taints or ()) if node.spec is not None else []
        want_ns = condition_taints(node)
        kept = [t for t in current if not (t.effect == NO_SCHEDULE and t.key in CONDITION_TAINT_KEYS
                                           and t.key not in want_ns)]
        have_ns = {t.key for t in kept if t.effect == NO_SCHEDULE}
        ts = self.clock.timestamp()
        added = [Taint(key=k, effect=NO_SCHEDULE, time_added=ts) for k in want_ns if k not in have_ns]
        taints = kept + added
        wait = float("inf")
        # NoExecute: which of not-ready/unreachable should be there
        want_ne: str | None = {"False": NOT_READY, "Unknown": UNREACHABLE}.get(status or "")
        if want_ne is not None and self._all_fully_disrupted():
            want_ne = None
        have_ne = [t for t in taints if t.effect == NO_EXECUTE and t.key in (NOT_READY, UNREACHABLE)]
        if want_ne is None:
            taints = [t for t in taints if t not in have_ne]
        elif not any(t.key == want_ne for t in have_ne):
            if have_ne:  # swap (upstream SwapNodeControllerTaint, not rate limited)
                taints = [t for t in taints if t not in have_ne]
                taints.append(Taint(key=want_ne, effect=NO_EXECUTE, time_added=ts))
            else:
                zone = zone_key(node)
                bucket = self._buckets.get(zone)
                if bucket is None:
                    bucket = self._buckets[zone] = _TokenBucket(self._zone_rate(zone), now)
                bucket.set_qps(self._zone_rate(zone), now)
                wait = bucket.try_accept(now)
                if wait == 0.0:
                    taints.append(Taint(key=want_ne, effect=NO_EXECUTE, time_added=ts))
                    wait = float("inf")
        if taints != current:
            body = [msgspec.to_builtins(t) for t in taints]
            await self.client.patch(Node, node.metadata.name or "", {
                "metadata": {"resourceVersion": node.metadata.resource_version},
                "spec": {"taints": body or None}}, patch_type="merge")
        return wait

    # --- pods (``MarkPodsNotReady``) ---
    async def _mark_pods_not_ready(self, node_name: str) -> None:
        ts = self.clock.timestamp()
        for pod in self.pods.by_index(POD_NODE_INDEX, node_name):
            assert isinstance(pod, Pod)
            if pod.status is None or pod.metadata is None:
                continue
            if not any(c.type == "Ready" and c.status == "True" for c in pod.status.conditions or ()):
                continue
            try:
                await self.client.patch_status(Pod, pod.metadata.name or "", {"status": {"conditions": [
                    {"type": "Ready", "status": "False", "lastTransitionTime": ts}]}},
                    namespace=pod.metadata.namespace, patch_type="strategic")
            except NotFound:
                continue
            # upstream records NodeNotReady on the pod after the status update (so the pod still exists)
            self.recorder.event(pod, "Warning", "NodeNotReady", "Node is not ready")
