"""The Kubelet: one fake node, driving its pods' workers on the cluster clock.

Follows ``pkg/kubelet/kubelet.go`` (``Run``, ``syncLoop``, ``HandlePodAdditions``/``Updates``/
``Removes``), ``status/status_manager.go`` (batched, de-duplicated status patches; delete with grace 0
once a terminating pod's containers are gone), ``nodelease`` and ``kubelet_node_status.go``.

Contract:
- **Through the API only.** Pods come from an informer on ``spec.nodeName=<node>``; ConfigMaps, Secrets and
  PVCs from informers (shared through ``informers=`` when given), DNS answers from the cluster DNS
  (``dns=``); every write goes through the client: the Node (create, then status patches when something
  changed and every 5 min) and the Lease (an update every 10 s), both by :mod:`kubelite.kubelet.heartbeat`
  (on the pool's one heartbeat wheel, ``heartbeats=``, or a wheel of the kubelet's own); pod status (merge
  patches of ``pods/status`` with only the top-level fields that changed; nothing is sent when nothing
  changed; all changes of one instant go out as one patch; their answers are not decoded, the informers
  bring the written objects); pod deletion.
- **Pods are the shared read-only typed view** (:mod:`kubelite.api.views`): the informer's frozen ``Pod``,
  the very object the control plane's other Pod informers hold; nothing here mutates it.
- **Nothing walks the node's pods per event:** admission counts the active pods from running totals kept
  as pods are admitted, turn terminal and go.
- **One timer per pod**, at the time its worker says something next happens (see
  :mod:`kubelite.kubelet.pod_worker`); a healthy running pod costs nothing until it changes.
- **Stopping is a node failure.** :meth:`Kubelet.stop` stops the lease, the status updates, the watch and
  every timer; pods stay as they were in the API. :meth:`Kubelet.start` resumes: the workers catch up
  to the current time (containers kept running meanwhile), pods deleted meanwhile are cleaned up.
- Fault switches: :meth:`break_cni`, :meth:`make_unpullable`, :meth:`crash_container`; device plugins:
  :meth:`set_device_health`, :meth:`set_devices`, :meth:`register_device_plugin`,
  :meth:`stop_device_plugin` (see :mod:`kubelite.kubelet.devices`).
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Mapping
from typing import Any

import msgspec

from kubelite.api.podresources import pod_requests, quantity_units
from kubelite.api.types import Node
from kubelite.api.types.core_v1 import Container, Pod
from kubelite.api.views import freeze
from kubelite.client import Client
from kubelite.clock import Clock, format_time
from kubelite.errors import ApiError, Conflict, NotFound
from kubelite.informer.factory import SharedInformerFactory
from kubelite.informer.handlers import ResourceEventHandlerFuncs
from kubelite.informer.shared_informer import SharedIndexInformer
from kubelite.kubelet import eviction as ev
from kubelite.kubelet.admission import admit, host_ports
from kubelite.kubelet.devices import ENDPOINT_STOP_GRACE, DeviceManager, UnexpectedAdmissionError, device_ids
from kubelite.kubelet.dns import NoClusterDNS, PodDNS
from kubelite.kubelet.heartbeat import HeartbeatWheel, NodeHeartbeat
from kubelite.kubelet.images import ImageManager, docker_config_hosts
from kubelite.kubelet.ipam import HostLocalIPAM
from kubelite.kubelet.lifecycle import Step
from kubelite.kubelet.node import allocatable, initial_node, node_conditions
from kubelite.kubelet.pod_worker import NodeRuntime, PodWorker, Stage
from kubelite.kubelet.resource_metrics import ResourceMetricsEndpoint
from kubelite.kubelet.status import build_status
from kubelite.kubelet.volumes import VolumeLookup
from kubelite.logs import get_logger
from kubelite.supervise import Supervisor, TaskHandle
from kubelite.workload import ImageRegistry

__all__ = ["DEFAULT_CAPACITY", "Kubelet"]

log = get_logger("kubelite.kubelet")

DEFAULT_CAPACITY = {"cpu": "8", "memory": "32Gi", "ephemeral-storage": "100Gi", "pods": "110"}
#: what a kubelet reads through informers besides its pods and Node: its volumes' ConfigMaps, Secrets and PVCs
#: (and its pull secrets). No Services: upstream's serviceLister feeds only the service-link environment
#: variables (``enableServiceLinks``), which kubelite's containers do not model, and its pods' DNS answers
#: come from the cluster DNS (``dns=``)
LOOKUP_RESOURCES = ("configmaps", "secrets", "persistentvolumeclaims")
#: status_manager's syncPeriod: how often statuses the API does not have yet are written again
STATUS_SYNC_PERIOD = 10.0
DEFAULT_RESERVED = {"cpu": "100m", "memory": "356Mi", "ephemeral-storage": "10Gi"}  # incl. 100Mi eviction


class Kubelet:
    """See the module docstring."""

    def __init__(
        self, client: Client, *, node_name: str, clock: Clock, rng: random.Random,
        capacity: Mapping[str, Any] | None = None, labels: Mapping[str, str] | None = None,
        taints: list[dict[str, Any]] | None = None, registry: ImageRegistry | None = None,
        recorder: Any = None, informers: SharedInformerFactory | None = None, pod_cidr: str | None = None,
        host_ip: str | None = None, reserved: Mapping[str, Any] | None = None, preload: tuple[str, ...] = (),
        sandbox_seconds: float = 0.0, attach_seconds: float = 2.0, mount_seconds: float = 0.5,
        eviction_threshold: int = ev.DEFAULT_THRESHOLD, await_pod_cidr: bool = False, dns: PodDNS | None = None,
        heartbeats: HeartbeatWheel | None = None,
    ) -> None:
        self.client = client
        self.node_name = node_name
        self.clock = clock
        self.rng = rng
        self.recorder = recorder
        # a pool's capacity names what it changes; the machine still has the defaults for the rest (cAdvisor's
        # cpu/memory/storage, and the kubelet's maxPods 110)
        machine = {**DEFAULT_CAPACITY, **{k: str(v) for k, v in (capacity or {}).items()}}
        # extended resources (a name with a domain, ``nvidia.com/gpu``) come from device plugins, which
        # register at start with that many healthy devices; the rest is the machine's (cAdvisor)
        self.capacity = {k: v for k, v in machine.items() if "/" not in k}
        self.reserved = dict(DEFAULT_RESERVED if reserved is None else reserved)
        self.labels = dict(labels or {})
        self.taints = list(taints or [])
        self.registry = registry or ImageRegistry()
        self.pod_cidr = pod_cidr
        self.host_ip = host_ip or "172.18.0.2"
        self.eviction_threshold = eviction_threshold
        self.devices = DeviceManager(node_name, {k: quantity_units(k, v) for k, v in machine.items() if "/" in k})
        self._removed_resources: set[str] = set()  # device plugin resources deleted, reported as 0
        self._foreign: dict[str, str] = {}  # extended resources advertised through the API (not a plugin's)
        self._grace_timers: dict[str, Any] = {}
        self.images = ImageManager(self.registry)
        self.images.preload(*preload)
        self._shared = informers
        self._own_factory: SharedInformerFactory | None = None
        self.lookup = VolumeLookup()
        self.runtime = NodeRuntime(
            node_name=node_name, host_ip=self.host_ip, registry=self.registry, images=self.images,
            devices=self.devices, ipam=HostLocalIPAM(pod_cidr) if pod_cidr else None, lookup=self.lookup, rng=rng,
            event=self._event, sandbox_seconds=sandbox_seconds, attach_seconds=attach_seconds,
            mount_seconds=mount_seconds)
        self.runtime.await_pod_cidr = await_pod_cidr and not pod_cidr
        self.workers: dict[str, PodWorker] = {}
        # what admission counts, kept as pods come and go rather than summed over every worker per admission:
        # the admitted pods not yet terminal (upstream's active pods), their summed requests and their host
        # ports (counted). A worker is in ``_active`` iff it was admitted and has not turned terminal or gone.
        self._active: dict[str, PodWorker] = {}
        self._used: dict[str, int] = {}
        self._host_ports: dict[tuple[str, str, int], int] = {}
        self._timers: dict[str, Any] = {}
        self._sent: dict[str, dict[str, Any]] = {}  # uid -> last status written
        self._dirty: dict[str, PodWorker] = {}
        self._to_delete: dict[str, PodWorker] = {}
        self._wake: asyncio.Event | None = None
        self._tasks: list[TaskHandle] = []
        self._supervisor: Supervisor | None = None
        self._informer: SharedIndexInformer | None = None
        self.running = False
        self.node_uid = ""
        self.memory_pressure = False
        self._pressure_since: float | None = None
        self._eviction_timer: Any = None
        self._node_conditions: list[dict[str, Any]] = []
        # what admission compares against: the node's labels (fixed at start) and allocatable in units
        self._node_labels = {"kubernetes.io/hostname": node_name, "kubernetes.io/os": "linux",
                             "kubernetes.io/arch": "amd64", **self.labels}
        self._alloc_units: dict[str, int] | None = None
        self.heartbeat = NodeHeartbeat(client, clock=clock, node_name=node_name, status=self._node_status)
        # the pool's heartbeat wheel (one timer and task for every node's lease), or one of its own
        self._own_wheel = heartbeats is None
        self.heartbeats = heartbeats if heartbeats is not None else HeartbeatWheel(clock)
        self.patches = 0
        self.node: Node | None = None  # the live Node (the shared read-only view), from the kubelet's node informer
        self._node_informer: SharedIndexInformer | None = None
        self._unsynced: dict[str, PodWorker] = {}  # pods whose last status write failed
        self._reconcile_timer: Any = None
        self.runtime.pull_credentials = self._pull_credentials
        self.dns: PodDNS = dns if dns is not None else NoClusterDNS()
        self.runtime.resolves = self.dns.resolves
        self.runtime.wait_for_name = self._wait_for_name
        #: ``GET /metrics/resource`` (what metrics-server scrapes)
        self.resource_metrics = ResourceMetricsEndpoint(self)

    # --- events ---
    def _event(self, ref: Any, type_: str, reason: str, message: str) -> None:
        if self.recorder is not None:
            self.recorder.event(ref, type_, reason, message)

    # --- lifecycle ---
    async def run(self) -> None:
        """Register the node and run until cancelled (``stop``/``start`` pause and resume)."""
        await self.start()
        try:
            await asyncio.Event().wait()
        finally:
            await self.stop()
            if self._own_factory is not None:
                await self._own_factory.shutdown()

    async def start(self) -> None:
        if self.running:
            return
        self.running = True
        self.runtime.started_at = self.clock.now()  # the prober manager's start (see PodWorker.probe_origin)
        self._wake = asyncio.Event()
        # registerWithAPIServer: retried with backoff (100 ms doubling to 7 s) until the API answers
        delay = 0.1
        while True:
            try:
                await self._register()
                break
            except ApiError as e:
                log.warning("node_register_failed", node=self.node_name, error=str(e))
                await self.clock.sleep(delay)
                delay = min(delay * 2, 7.0)
        self._setup_lookups()
        # the typed Pod: the shared frozen view every other Pod informer of the control plane holds (the
        # scheduler's, the controllers'), so a pod's write costs this kubelet a reference, not a decode and a
        # dict of its own (upstream's kubelet shares its informer's cached *v1.Pod the same way)
        informer = SharedIndexInformer(self.client, Pod, clock=self.clock, rng=self.rng,
                                       fields={"spec.nodeName": self.node_name})
        informer.add_event_handler(ResourceEventHandlerFuncs(
            on_add=self._on_add, on_update=self._on_update, on_delete=self._on_delete))
        self._informer = informer
        # the kubelet's own Node (upstream's node informer on metadata.name): labels, taints and
        # allocatable changed through the API reach admission
        # The typed Node: the shared frozen view the scheduler's and the controllers' Node informers hold too, so
        # a Node status write costs this kubelet a reference, not a decode of its own
        node_informer = SharedIndexInformer(self.client, Node, clock=self.clock, rng=self.rng,
                                            fields={"metadata.name": self.node_name})
        node_informer.add_event_handler(ResourceEventHandlerFuncs(
            on_add=self._on_node, on_update=lambda old, new: self._on_node(new)))
        self._node_informer = node_informer
        # the kubelet's loops run in its own task group: one that dies is logged, recorded as a component
        # error of the running cluster, and raised by stop() (never swallowed)
        sup = self._supervisor = Supervisor(f"kubelet/{self.node_name}")
        sup.open()
        self._tasks = [sup.start_soon(informer.run, name=f"kubelet-{self.node_name}-pods"),
                       sup.start_soon(node_informer.run, name=f"kubelet-{self.node_name}-node"),
                       sup.start_soon(self._status_loop, name=f"kubelet-{self.node_name}-status")]
        if self._own_wheel:
            self._tasks.append(sup.start_soon(self.heartbeats.run, name=f"kubelet-{self.node_name}-lease"))
        self.heartbeats.join(self.heartbeat)
        # pods we knew before a stop: catch up to now; those gone from the API are handled on relist
        for w in list(self.workers.values()):
            self._sync(w)

    async def stop(self) -> None:
        """Node failure: nothing more is written, no timer fires; the API keeps the last state."""
        if not self.running:
            return
        self.running = False
        self.heartbeats.leave(self.heartbeat)
        for h in self._timers.values():
            h.cancel()
        self._timers.clear()
        if self._eviction_timer is not None:
            self._eviction_timer.cancel()
            self._eviction_timer = None
        if self._reconcile_timer is not None:
            self._reconcile_timer.cancel()
            self._reconcile_timer = None
        for h in self._grace_timers.values():
            h.cancel()
        self._grace_timers.clear()
        self._tasks = []
        sup, self._supervisor = self._supervisor, None
        if sup is not None:
            await sup.close()
        self._dirty.clear()
        self._unsynced.clear()
        self._informer = None
        self._node_informer = None

    def _setup_lookups(self) -> None:
        factory = self._shared
        if factory is None:
            if self._own_factory is None:
                self._own_factory = SharedInformerFactory(self.client, clock=self.clock, rng=self.rng)
            factory = self._own_factory
        infs = {r: factory.informer_for(r) for r in LOOKUP_RESOURCES}
        factory.start()

        def getter(resource: str) -> Any:
            indexer = infs[resource].get_indexer()
            return lambda ns, name: indexer.get_by_key(f"{ns}/{name}")

        self.lookup.configmap = getter("configmaps")
        self.lookup.secret = getter("secrets")
        self.lookup.pvc = getter("persistentvolumeclaims")

    def _on_node(self, node: Node) -> None:
        """The live Node: admission matches its labels, taints and allocatable from now on."""
        self.node = node
        meta, spec, status = node.metadata, node.spec, node.status
        labels = (meta.labels if meta is not None else None) or {}
        self._node_labels = {"kubernetes.io/hostname": self.node_name, **labels}
        taints = (spec.taints if spec is not None else None) or ()
        self.taints = [msgspec.to_builtins(t) for t in taints]  # admission reads taints as the API's JSON
        allocatable = status.allocatable if status is not None else None
        self._alloc_units = _units(allocatable) if allocatable else None
        capacity = (status.capacity if status is not None else None) or {}
        # an extended resource advertised through the API (a PATCH of status.capacity, as the docs' "advertise
        # extended resources for a node"): the kubelet keeps it and reports its allocatable at its next sync
        devices = self.devices
        foreign = {k: str(v) for k, v in capacity.items()
                   if "/" in k and not devices.known(k) and k not in self._removed_resources}
        if foreign != self._foreign:
            self._foreign = foreign
            self.heartbeat.mark_dirty()
        cidr = spec.pod_cidr if spec is not None else None
        if cidr and self.pod_cidr is None:
            # the node IPAM controller assigned the node's pod CIDR: the network is ready for sandboxes
            self.pod_cidr = cidr
            self.runtime.ipam = HostLocalIPAM(cidr)
            self.runtime.await_pod_cidr = False
            self.heartbeat.mark_dirty()
            for w in list(self.workers.values()):
                if w.stage == Stage.SANDBOX:
                    self._sync(w)

    def _wait_for_name(self, name: str, namespace: str, uid: str) -> None:
        self.dns.wait(name, namespace, self.node_name, uid, lambda: self._resync(uid))

    def _resync(self, uid: str) -> None:
        w = self.workers.get(uid)
        if w is not None and self.running:
            self._sync(w)

    def _pull_credentials(self, pod: Pod) -> dict[str, str]:
        """Registry host -> the name of the pod's imagePullSecret holding credentials for it
        (``kubernetes.io/dockerconfigjson`` ``auths`` or the legacy ``dockercfg``)."""
        out: dict[str, str] = {}
        ns = pod.metadata.namespace or ""
        for ref in (pod.spec.image_pull_secrets if pod.spec is not None else None) or ():
            name = ref.name or ""
            secret = self.lookup.secret(ns, name) if self.lookup.secret is not None else None
            for host in docker_config_hosts(secret):
                out.setdefault(host, name)
        return out

    # --- node and lease ---
    def node_resources(self) -> tuple[dict[str, str], dict[str, str]]:
        """``nodestatus.MachineInfo``: (capacity, allocatable) as the node status reports them now. Capacity
        is the machine's, the extended resources advertised through the API, every registered device
        plugin's device count (healthy or not), and ``0`` for a plugin resource deleted after its grace
        period; allocatable is capacity minus the reservations, with the plugins' healthy counts."""
        dev_cap, dev_alloc, deleted = self.devices.get_capacity(self.clock.now())
        removed = self._removed_resources
        removed.update(deleted)
        removed.difference_update(dev_cap)
        capacity = {**self._foreign, **self.capacity, **{r: str(n) for r, n in dev_cap.items()},
                    **dict.fromkeys(removed, "0")}
        alloc = allocatable(capacity, self.reserved)
        for r, n in dev_alloc.items():
            alloc[r] = str(n)
        return capacity, alloc

    def allocatable(self) -> dict[str, str]:
        return self.node_resources()[1]

    def _node_status(self) -> dict[str, Any]:
        now = self.clock.timestamp()
        prev = {c["type"]: c for c in self._node_conditions}
        not_ready = "" if self.runtime.cni_ready else (
            "container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady "
            "message:Network plugin returns error: cni plugin not initialized")
        self._node_conditions = node_conditions(now, prev, memory_pressure=self.memory_pressure,
                                                not_ready=not_ready)
        capacity, alloc = self.node_resources()
        return {"conditions": self._node_conditions, "allocatable": alloc, "capacity": capacity}

    async def _register(self) -> None:
        capacity, alloc = self.node_resources()
        body = initial_node(self.node_name, capacity=capacity, allocatable=alloc,
                            labels=self.labels, taints=self.taints, host_ip=self.host_ip, pod_cidr=self.pod_cidr,
                            now=self.clock.timestamp())
        self._node_conditions = body["status"]["conditions"]
        try:
            node = await self.client.create(body)
            self._event({"kind": "Node", "name": self.node_name, "uid": self.node_name, "apiVersion": "v1"},
                        "Normal", "Starting", "Starting kubelet.")
        except ApiError as e:
            if e.code != 409:
                raise
            node = await self.client.get("nodes", self.node_name)
            if not self.pod_cidr and (node.get("spec") or {}).get("podCIDR"):
                self.pod_cidr = node["spec"]["podCIDR"]
                self.runtime.ipam = HostLocalIPAM(self.pod_cidr)
        self.node_uid = self.heartbeat.node_uid = node["metadata"].get("uid", "")
        if not self.pod_cidr and (node.get("spec") or {}).get("podCIDR"):
            self.pod_cidr = node["spec"]["podCIDR"]
            self.runtime.ipam = HostLocalIPAM(self.pod_cidr)
        self.heartbeat.mark_dirty()

    # --- pods from the informer ---
    def _on_add(self, pod: Pod) -> None:
        uid = pod.metadata.uid or ""
        w = self.workers.get(uid)
        if w is not None:
            w.pod = pod
            self._sync(w)
            return
        now = self.clock.now()
        w = PodWorker(self.runtime, pod, now)
        self.workers[uid] = w
        phase = pod.status.phase if pod.status is not None else None
        if phase in ("Succeeded", "Failed"):
            w.stage = Stage.TERMINATED  # already terminal (e.g. seen again after a restart): leave it be
            self._sent[uid] = _api_status(pod)
            return
        self._admit(w)
        self._sync(w)

    def _on_update(self, old: Pod, new: Pod) -> None:
        w = self.workers.get(new.metadata.uid or "")
        if w is None:
            self._on_add(new)
            return
        w.pod = new
        if new.metadata.deletion_timestamp and not old.metadata.deletion_timestamp:
            self._sync(w)

    def _on_delete(self, pod: Any) -> None:
        obj: Pod = getattr(pod, "obj", pod)  # a DeletedFinalStateUnknown carries the last known object
        uid = obj.metadata.uid or ""
        w = self.workers.pop(uid, None)
        if w is None:
            return
        h = self._timers.pop(uid, None)
        if h is not None:
            h.cancel()
        self._dirty.pop(uid, None)
        self._to_delete.pop(uid, None)
        self._sent.pop(uid, None)
        self._deactivate(w)
        if w.stage != Stage.TERMINATED:
            w.begin_termination(self.clock.now(), 0)
        w.release()
        self._memory_changed()

    def _admit(self, w: PodWorker) -> None:
        """HandlePodAdditions / canAdmitPod, with upstream's handlers in upstream's order: first the
        allocate-resources handler (the topology manager calling the device manager's ``Allocate`` per
        container: ``UnexpectedAdmissionError``), then the predicates against the cached Node's allocatable,
        raised to what the node's devices already hold when the pod got devices (``UpdatePluginResources``),
        minus what the other admitted pods request."""
        requests = w.requests = pod_requests(w.pod)
        devices = self.devices
        if any("/" in r for r in requests):
            try:
                devices.allocate_pod(w.uid, (
                    (rec.name, rec.init, rec.sidecar,
                     {r: quantity_units(r, q) for r, q in _limits(rec.spec).items() if "/" in r})
                    for rec in w.containers))
            except UnexpectedAdmissionError as e:
                w.reject("UnexpectedAdmissionError", str(e))
                return
        alloc = self._alloc_units
        if alloc is None:  # no Node from the API yet: getNodeAnyWay's initial node
            alloc = _units(self.allocatable())
        if devices.holds(w.uid):
            alloc = devices.sanitize_allocatable(alloc)
        # upstream's NodePorts admission check sees the host ports of every admitted pod
        res = admit(w.pod, requests, node_name=self.node_name, node_labels=self._node_labels, allocatable=alloc,
                    used=self._used, admitted_pods=len(self._active), used_host_ports=self._host_ports,
                    taints=self.taints)
        if res is not None:
            devices.free_pod(w.uid)
            w.reject(*res)
            return
        self._active[w.uid] = w
        used = self._used
        for r, n in requests.items():
            used[r] = used.get(r, 0) + n
        ports = self._host_ports
        for hp in host_ports(w.pod.spec):
            ports[hp] = ports.get(hp, 0) + 1

    def _deactivate(self, w: PodWorker) -> None:
        """``w`` turned terminal or went away: admission no longer counts it."""
        if self._active.get(w.uid) is not w:
            return
        del self._active[w.uid]
        used = self._used
        for r, n in w.requests.items():
            left = used[r] - n
            if left:
                used[r] = left
            else:
                del used[r]
        ports = self._host_ports
        for hp in host_ports(w.pod.spec):
            left = ports[hp] - 1
            if left:
                ports[hp] = left
            else:
                del ports[hp]

    # --- the sync loop ---
    def _sync(self, w: PodWorker) -> None:
        if not self.running:
            return
        now = self.clock.now()
        had_running = _running_count(w)
        wake = w.sync(now)
        if w.terminal:
            self._deactivate(w)
        status = build_status(w, now, self._sent.get(w.uid) or _api_status(w.pod))
        if status != self._sent.get(w.uid):
            self._dirty[w.uid] = w
            w.pending_status = status
            if self._wake is not None:
                self._wake.set()
        if w.stage == Stage.TERMINATED and w.pod.metadata.deletion_timestamp:
            self._to_delete[w.uid] = w
            if self._wake is not None:
                self._wake.set()
        if _running_count(w) != had_running or any(
                r.profile is not None and (r.profile.memory_steps or r.profile.memory_growth_per_second)
                for r in w.containers if r.step == Step.RUNNING):
            self._memory_changed()
        self._schedule(w, wake, now)

    def _schedule(self, w: PodWorker, wake: float | None, now: float) -> None:
        uid = w.uid
        h = self._timers.get(uid)
        if h is not None:
            if not h.cancelled and wake is not None and h.deadline == wake:
                return
            h.cancel()
            del self._timers[uid]
        if wake is None:
            return
        self._timers[uid] = self.clock.call_later(max(0.0, wake - now), lambda: self._fire(uid))

    def _fire(self, uid: str) -> None:
        self._timers.pop(uid, None)
        w = self.workers.get(uid)
        if w is not None:
            self._sync(w)

    async def _status_loop(self) -> None:
        """status_manager.syncBatch: write each dirty pod's latest status once; then deletions."""
        assert self._wake is not None
        wake = self._wake
        client = self.client
        while True:
            await wake.wait()
            wake.clear()
            dirty, self._dirty = self._dirty, {}
            for uid, w in dirty.items():
                status = w.pending_status
                sent = self._sent.get(uid)
                # a minimal patch: only the top-level fields that differ from what we (or, before our first
                # write, the API) last said; fields only we wrote and no longer report are removed
                base = sent if sent is not None else _api_status(w.pod)
                patch = {k: v for k, v in status.items() if base.get(k) != v}
                if sent is not None:
                    for k in sent:
                        if k not in status and k != "qosClass":
                            patch[k] = None
                if not patch:
                    self._unsynced.pop(uid, None)
                    continue
                try:
                    # the answer is not read: the pod informer brings the written pod (the shared view)
                    await client.patch_status_unread("pods", w.name, {"status": patch}, namespace=w.namespace,
                                                     patch_type="merge")
                    # kept frozen, its strings interned (the pod's shared view holds the same ones): ~40% of a
                    # status dict's bytes (issue #17, memory per pod); nobody may change what was sent
                    frozen = self._sent[uid] = freeze(status)
                    if w.pending_status is status:
                        w.pending_status = frozen
                    self._unsynced.pop(uid, None)
                    self.patches += 1
                except NotFound:
                    continue
                except ApiError as e:
                    # status_manager: the pod stays out of sync and is written again by the next syncBatch
                    log.warning("status_patch_failed", pod=w.key, error=str(e))
                    self._unsynced[uid] = w
                    self._arm_reconcile()
            deletes, self._to_delete = self._to_delete, {}
            for uid, w in deletes.items():
                if uid in self._dirty:  # a newer status must land first
                    self._to_delete[uid] = w
                    wake.set()
                    continue
                try:
                    await client.delete("pods", w.name, namespace=w.namespace, grace_period=0,
                                        preconditions={"uid": uid})
                except (NotFound, Conflict):
                    pass
                except ApiError as e:
                    log.warning("pod_delete_failed", pod=w.key, error=str(e))
                    self._unsynced[uid] = w
                    self._arm_reconcile()

    def _arm_reconcile(self) -> None:
        if self._reconcile_timer is None and self.running:
            self._reconcile_timer = self.clock.call_later(STATUS_SYNC_PERIOD, self._reconcile)

    def _reconcile(self) -> None:
        """status_manager.syncBatch (every 10 s): pods whose status the API does not have yet are written
        again from the kubelet's own state, until a write succeeds."""
        self._reconcile_timer = None
        if not self.running:
            return
        unsynced, self._unsynced = self._unsynced, {}
        for uid, w in unsynced.items():
            if self.workers.get(uid) is not w:
                continue
            now = self.clock.now()
            w.pending_status = build_status(w, now, self._sent.get(uid) or _api_status(w.pod))
            self._dirty[uid] = w
            if w.stage == Stage.TERMINATED and w.pod.metadata.deletion_timestamp:
                self._to_delete[uid] = w
        if self._wake is not None:
            self._wake.set()

    # --- eviction ---
    def _memory_changed(self) -> None:
        if self._eviction_timer is None and self.running:
            now = self.clock.now()
            nxt = (int(now // ev.MONITORING_INTERVAL) + 1) * ev.MONITORING_INTERVAL
            self._eviction_timer = self.clock.call_later(nxt - now, self._eviction_tick)

    def memory_usage(self) -> int:
        now = self.clock.now()
        return sum(sum(w.memory_usage(now).values()) for w in self.workers.values())

    def _eviction_tick(self) -> None:
        """eviction_manager.synchronize: signal, MemoryPressure condition, at most one eviction."""
        self._eviction_timer = None
        if not self.running:
            return
        now = self.clock.now()
        capacity = quantity_units("memory", self.capacity.get("memory", "0"))
        active: list[tuple[PodWorker, dict[str, int]]] = []
        total = 0
        dynamic = False
        for w in self.workers.values():
            if w.terminal or w.stage == Stage.TERMINATING:
                continue
            per = w.memory_usage(now)
            if not per:
                continue
            total += sum(per.values())
            active.append((w, per))
            dynamic = dynamic or any(r.profile is not None and (r.profile.memory_steps or
                                                                 r.profile.memory_growth_per_second)
                                     for r in w.containers if r.step == Step.RUNNING)
        available = capacity - total
        under = available < self.eviction_threshold
        if under:
            self._pressure_since = now
        pressure = under or (self._pressure_since is not None and
                             now - self._pressure_since < ev.PRESSURE_TRANSITION_PERIOD)
        if pressure != self.memory_pressure:
            self.memory_pressure = pressure
            self.heartbeat.mark_dirty()
            self._event({"kind": "Node", "name": self.node_name, "uid": self.node_name, "apiVersion": "v1"},
                        "Normal", "NodeHasInsufficientMemory" if pressure else "NodeHasSufficientMemory",
                        f"Node {self.node_name} status is now: "
                        f"{'NodeHasInsufficientMemory' if pressure else 'NodeHasSufficientMemory'}")
        if under and active:
            # ranking needs each pod's requests: parsed only when the node is under the threshold
            victim = ev.rank_for_memory([_pod_usage(w, per) for w, per in active])[0]
            self._event({"kind": "Node", "name": self.node_name, "uid": self.node_name, "apiVersion": "v1"},
                        "Warning", "EvictionThresholdMet", "Attempting to reclaim memory")
            self.evict(victim.key, ev.eviction_message(victim, self.eviction_threshold, available))
        if dynamic or pressure:
            self._memory_changed()

    def evict(self, w: PodWorker, message: str) -> None:
        """Kill ``w``'s pod now (hard eviction: grace 0); it ends Failed with reason Evicted."""
        w.event("Warning", "Evicted", message)
        w.disruption = message
        w.begin_termination(self.clock.now(), 0, reason="Evicted", message=message)
        self._sync(w)

    # --- fault switches ---
    def break_cni(self, broken: bool = True) -> None:
        """CNI not ready: new sandboxes fail (FailedCreatePodSandBox); the node turns NotReady."""
        self.runtime.cni_ready = not broken
        self.heartbeat.mark_dirty()
        if not broken:
            for w in list(self.workers.values()):
                if w.stage == Stage.SANDBOX:
                    self._sync(w)

    def make_unpullable(self, image: str, unpullable: bool = True) -> None:
        ref = self.images.ref(image)
        if unpullable:
            self.images.unpullable.add(ref)
        else:
            self.images.unpullable.discard(ref)

    def crash_container(self, namespace: str, pod: str, container: str) -> None:
        """The container's process dies now (exit 137), as if killed from outside."""
        for w in self.workers.values():
            if w.namespace == namespace and w.name == pod:
                self.runtime.crash_requests.add((w.uid, container))
                self._sync(w)
                return
        raise KeyError(f"{namespace}/{pod}")

    def fail_readiness(self, namespace: str, pod: str, container: str | None = None) -> None:
        """Fault switch: from now on the readiness probe of ``container`` (default: every container with one)
        fails, as when the app stops answering its readiness endpoint; liveness is unaffected. Used by the
        scenario step ``failReadiness``."""
        import msgspec

        from kubelite.kubelet.probes import READINESS

        w = self.worker(namespace, pod)
        if w is None:
            raise KeyError(f"{namespace}/{pod}")
        now = self.clock.now()
        hit = False
        for rec in w.containers:
            if (container is not None and rec.name != container) or rec.profile is None:
                continue
            probes = [p for p in rec.probes.values() if p.spec.kind == READINESS]
            if not probes:
                continue
            elapsed = now - (rec.started_at if rec.started_at is not None else now)
            rec.profile = msgspec.structs.replace(rec.profile, ready_after=elapsed + 1e12,
                                                  healthy_after=rec.profile.healthy_from())
            for probe in probes:
                probe.next_at = probe._tick_at_or_after(now)
            hit = True
        if not hit:
            raise ValueError(f"pod {namespace}/{pod} has no running container with a readinessProbe"
                             + (f" named {container}" if container else ""))
        self._sync(w)

    # device plugins: what they report reaches the Node status at the kubelet's next status sync (so the
    # scheduler and this kubelet's admission see the live value), and the pods holding a device whose health
    # changed get a status update (ResourceHealthStatus); no running pod is killed
    def set_device_health(self, device_id: str, healthy: bool) -> None:
        """The device plugin reports ``device_id`` (un)healthy, as NVIDIA's does on an XID error: capacity
        keeps it, allocatable drops it."""
        self._devices_changed(self.devices.set_health(device_id, healthy))

    def register_device_plugin(self, resource: str, count: int | None = None) -> None:
        """A device plugin (re)registers ``resource`` with ``count`` healthy devices (``None``: the devices
        it reported before it stopped)."""
        h = self._grace_timers.pop(resource, None)
        if h is not None:
            h.cancel()
        self.devices.plugin_connected(resource, count)
        self._devices_changed(self.devices.holders(resource))

    def set_devices(self, resource: str, healthy: int, unhealthy: int = 0) -> None:
        """The plugin's ListAndWatch now lists ``healthy`` healthy then ``unhealthy`` unhealthy devices (the
        first IDs of the node's sequence; a device it no longer lists leaves capacity)."""
        ids = device_ids(self.node_name, resource, healthy + unhealthy)
        self._devices_changed(self.devices.list_and_watch(
            resource, {d: i < healthy for i, d in enumerate(ids)}))

    def stop_device_plugin(self, resource: str) -> None:
        """The plugin for ``resource`` goes away: allocatable 0 at once, capacity 0 once the 5-minute
        endpointStopGracePeriod has passed (unless it registers again)."""
        self.devices.plugin_disconnected(resource, self.clock.now())
        self._devices_changed([])
        old = self._grace_timers.pop(resource, None)
        if old is not None:
            old.cancel()
        self._grace_timers[resource] = self.clock.call_later(ENDPOINT_STOP_GRACE, self.heartbeat.mark_dirty)

    def device_plugin(self, resource: str, *, devices: int | None = None, unhealthy: tuple[str, ...] | None = None,
                      stopped: bool = False) -> str:
        """The scenario step ``devicePlugin``: the plugin for ``resource`` stops, or (re)registers and lists
        ``devices`` devices (default: those it lists now) of which ``unhealthy`` report Unhealthy (default:
        the health they have). Returns what changed, for the timeline."""
        dm = self.devices
        if stopped:
            self.stop_device_plugin(resource)
            return f"{resource} device plugin stopped on {self.node_name}"
        if not dm.connected(resource):
            self.register_device_plugin(resource, devices)
        known = dm.devices.get(resource, {})
        ids = device_ids(self.node_name, resource, devices) if devices is not None else list(known)
        if unhealthy is not None:
            missing = sorted(set(unhealthy) - set(ids))
            if missing:
                raise KeyError(f"{resource} on {self.node_name} has no device {', '.join(missing)}")
        bad = set(unhealthy) if unhealthy is not None else {d for d in ids if not known.get(d, True)}
        self._devices_changed(dm.list_and_watch(resource, {d: d not in bad for d in ids}))
        return f"{resource} on {self.node_name}: {len(ids) - len(bad)} healthy, {len(bad)} unhealthy"

    def _devices_changed(self, pods: list[str]) -> None:
        self.heartbeat.mark_dirty()
        for uid in pods:
            w = self.workers.get(uid)
            if w is not None:
                self._sync(w)

    # --- introspection (what a real node would answer through its API) ---
    def worker(self, namespace: str, name: str) -> PodWorker | None:
        for w in self.workers.values():
            if w.namespace == namespace and w.name == name:
                return w
        return None

    def container_env(self, namespace: str, pod: str, container: str) -> dict[str, str]:
        w = self.worker(namespace, pod)
        if w is None:
            raise KeyError(f"{namespace}/{pod}")
        env = {e.name or "": e.value for rec in w.containers if rec.name == container
               for e in rec.spec.env or () if e.value is not None}
        env.update(self.devices.env(w.uid, container))
        return env

    def logs(self, namespace: str, pod: str, container: str, *, previous: bool = False) -> list[str]:
        """The container's log lines, each prefixed with its timestamp and a space (the CRI log format).
        ``previous``: those of the run before the current one (the last terminated instance), as
        ``kubectl logs --previous`` reads; the workload model writes the same lines on every run."""
        w = self.worker(namespace, pod)
        if w is None:
            raise KeyError(f"{namespace}/{pod}")
        for rec in w.containers:
            if rec.name != container or rec.profile is None:
                continue
            started = (rec.last.started_at if rec.last is not None else None) if previous else rec.started_at
            if started is not None:
                ts = format_time(started)
                return [f"{ts} {line}" for line in rec.profile.logs]
        return []


def _api_status(pod: Pod) -> dict[str, Any]:
    """The pod's status as the API has it, as the JSON a status patch is compared with (read only before
    the kubelet's first write of the pod and when it has written nothing since it saw it)."""
    return msgspec.to_builtins(pod.status) if pod.status is not None else {}  # type: ignore[no-any-return]


def _limits(c: Container) -> Mapping[str, Any]:
    return (c.resources.limits if c.resources is not None else None) or {}


def _requests(c: Container) -> Mapping[str, Any]:
    return (c.resources.requests if c.resources is not None else None) or {}


def _units(quantities: Mapping[str, Any]) -> dict[str, int]:
    return {r: quantity_units(r, q) for r, q in quantities.items()}


def _pod_usage(w: PodWorker, per: Mapping[str, int]) -> ev.PodUsage:
    """rankMemoryPressure's input for one pod: its usage against its containers' memory requests."""
    reqs = {r.name: quantity_units("memory", _requests(r.spec).get("memory", 0)) for r in w.containers}
    return ev.PodUsage(w, w.pod, sum(per.values()), sum(reqs.get(n, 0) for n in per),
                       {n: (u, reqs.get(n, 0)) for n, u in per.items()})


def _running_count(w: PodWorker) -> int:
    return sum(1 for r in w.containers if r.step == Step.RUNNING)
