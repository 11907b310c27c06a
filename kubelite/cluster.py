"""``kubelite.Cluster``: the embedding entry point.

::

    async with kubelite.Cluster(seed=1) as cluster:
        pod = await cluster.client.create(Pod(metadata=ObjectMeta(name="web"), spec=...))
        await cluster.advance(30)            # 30 s of virtual time, instantly
        await cluster.wait_for(lambda: ..., timeout=60)

Contract:
- A cluster owns one clock (virtual by default), one seeded ``random.Random`` (``cluster.rng``), one
  store and one apiserver. Everything it starts receives these as arguments; nothing is global, so
  any number of clusters can live in one process, and the same seed replays the same run.
- On entry the cluster bootstraps what every real cluster has: the ``default``, ``kube-system``,
  ``kube-public`` and ``kube-node-lease`` namespaces, the bootstrap RBAC policy, the system
  priority classes and a default ``standard`` StorageClass (WaitForFirstConsumer, served by the
  built-in provisioner, as kind ships one), the ``default/kubernetes`` Service with its Endpoints and
  EndpointSlice (kept every 10 s by the apiserver's bootstrap controller,
  :mod:`kubelite.apiserver.kubernetes_service`) and kubeadm's ``kube-system/kube-dns`` Service. Housekeeping
  runs on the clock: etcd-style compaction every 5 minutes (to the revision seen at the previous run, as
  kube-apiserver does) and watch bookmarks every minute.
- Never silent. Every task the cluster starts runs in its anyio task group
  (:class:`kubelite.supervise.Supervisor`); on exit every one is cancelled and awaited. A component that
  dies of an unexpected exception is logged at ERROR with its traceback, and that exception is raised by
  the next :meth:`Cluster.advance`, :meth:`Cluster.settle` or :meth:`Cluster.wait_for` and by the exit of
  the ``async with``. The same holds for every controller :class:`~kubelite.controllers.Manager` started
  while the cluster runs (``cluster.managers``), e.g. one whose controller has ``recover_panic=False``.
  Errors components recover from (a reconcile that raised something other than an ``ApiError``, an
  informer event handler that raised) are logged at ERROR and recorded in :attr:`Cluster.errors`; the
  pytest plugin fails a test whose cluster recorded any, unless it is marked ``kubelite_allow_errors``.
- Misuse is an error, not a hang: a cluster used without ``async with`` raises ``RuntimeError`` saying so.
- One process-wide effect, once, by default: the first cluster to start in a process moves the objects alive
  at that moment (the imported modules' classes, functions and tables: the program's and kubelite's) into
  the cyclic collector's permanent generation (``gc.freeze()``, after collecting the young generations), as
  pre-forking servers do with their import heap. Those objects live as long as their modules, so the
  collector gains nothing by traversing them; without it the first full collection of a fresh process,
  which falls inside the first cluster's start, walks the whole import heap (about a fifth of a first
  cluster's cost, issue #17). Reference counting still frees them; only a reference cycle that was already
  unreachable in the old generation would stay uncollected. ``gc_freeze=False`` leaves the collector alone.
- Otherwise no process-wide side effects by default. ``tune_gc=True`` raises CPython's gen-0 GC threshold to
  ``GC_GEN0_THRESHOLD`` while the cluster runs (restored when the last tuned cluster exits, also when a
  cluster fails to start): the cyclic collector otherwise dominates the cost of decoding API objects.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import gc
import random
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Iterator, Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, Protocol

import msgspec

from kubelite.apiserver.admission.priority import SYSTEM_PRIORITY_CLASSES
from kubelite.apiserver.auth.addons import COREDNS, METRICS_SERVER, NETWORK_POLICIES, addon_objects
from kubelite.apiserver.auth.bootstrap import bootstrap_objects
from kubelite.apiserver.auth.user import (
    ALL_AUTHENTICATED,
    KUBE_CONTROLLER_MANAGER,
    KUBE_PROXY,
    KUBE_SCHEDULER,
    UserInfo,
    service_account_user,
)
from kubelite.apiserver.faults import FaultInjector
from kubelite.apiserver.kubernetes_service import bootstrap_objects as kubernetes_service_objects
from kubelite.apiserver.server import ApiServer
from kubelite.client import Client
from kubelite.clock import DEFAULT_IDLE_GRACE, EPOCH, Clock, RealClock, VirtualClock, format_time
from kubelite.errors import ApiError
from kubelite.logs import cluster_time
from kubelite.store import Store
from kubelite.supervise import ErrorLog, Supervisor, TaskHandle, current_error_log

if TYPE_CHECKING:
    from kubelite.api.resource_metrics import ResourceMetrics
    from kubelite.controllers import Manager
    from kubelite.informer import SharedInformerFactory
    from kubelite.kubelet import Kubelet, NodePool
    from kubelite.metricsserver import MetricsServer
    from kubelite.network import Network
    from kubelite.scheduler import Scheduler
from kubelite.watchdog import DEFAULT_PER_OBJECT, DEFAULT_TOTAL, LivelockDetector

__all__ = ["GC_GEN0_THRESHOLD", "Cluster", "NotQuiescent", "Quiescible", "tuned_gc"]

_encode = msgspec.json.Encoder().encode
_decode = msgspec.json.Decoder().decode

#: gen-0 threshold while a cluster runs. CPython's default (700) makes the cyclic collector rescan every
#: live container after a few hundred allocations; decoding API objects allocates thousands of
#: (acyclic) dicts, and with the default a list of 20,000 pods spends 85% of its time in the GC.
GC_GEN0_THRESHOLD = 50_000
_gc_users = 0
_gc_saved: tuple[int, int, int] | None = None


def _tune_gc(enter: bool) -> None:
    global _gc_users, _gc_saved
    if enter:
        if _gc_users == 0:
            _gc_saved = gc.get_threshold()
            gc.set_threshold(max(GC_GEN0_THRESHOLD, _gc_saved[0]), _gc_saved[1], _gc_saved[2])
        _gc_users += 1
        return
    _gc_users -= 1
    if _gc_users == 0 and _gc_saved is not None:
        gc.set_threshold(*_gc_saved)
        _gc_saved = None


_gc_frozen = False


def _freeze_import_heap() -> None:
    """Once per process: the objects alive now go to the collector's permanent generation (module docstring)."""
    global _gc_frozen
    if _gc_frozen:
        return
    _gc_frozen = True
    gc.collect(1)  # young garbage cycles are freed first, not frozen
    gc.freeze()


@contextlib.contextmanager
def tuned_gc() -> Iterator[None]:
    """Run a block under the GC setting a running cluster uses (for benchmarks of bare components)."""
    _tune_gc(True)
    try:
        yield
    finally:
        _tune_gc(False)


class Quiescible(Protocol):
    """Something :meth:`Cluster.quiesce` waits for (a controller manager, the fuzz perturber)."""

    def busy(self) -> str | None:
        """Why there is work in progress right now, or None."""
        ...


class NotQuiescent(TimeoutError):
    """:meth:`Cluster.quiesce` timed out; the message says what was still busy."""


COMPACTION_INTERVAL = 300.0
BOOKMARK_INTERVAL = 60.0
SYSTEM_NAMESPACES = ("default", "kube-system", "kube-public", "kube-node-lease")


#: every bootstrap object, as ``tools/gen_bootstrap.py`` writes it from :func:`build_bootstrap_payload`
#: (committed; ``tests/test_bootstrap_file.py`` checks it is current): a process's first start reads one file
#: instead of building the namespaces, RBAC's bootstrap policy, the add-ons' roles, the StorageClass and the
#: PriorityClasses (issue #17, cold start: ~12,000 Python calls)
BOOTSTRAP_FILE = Path(__file__).with_name("bootstrap.json")


@functools.cache
def _bootstrap_payload() -> tuple[tuple[str, str, bytes], ...]:
    """(group, plural, encoded object) for every bootstrap object, read once per process from
    :data:`BOOTSTRAP_FILE` (each object's bytes as :func:`build_bootstrap_payload` encodes them)."""
    rows = msgspec.json.decode(BOOTSTRAP_FILE.read_bytes(), type=list[tuple[str, str, msgspec.Raw]])
    return tuple((group, plural, bytes(raw)) for group, plural, raw in rows)


def bootstrap_payload_json() -> bytes:
    """:data:`BOOTSTRAP_FILE`'s content: one ``[group, plural, object]`` row per line, in seeding order."""
    rows = [_encode([group, plural, msgspec.Raw(data)]) for group, plural, data in build_bootstrap_payload()]
    return b"[\n" + b",\n".join(rows) + b"\n]\n"


def build_bootstrap_payload() -> tuple[tuple[str, str, bytes], ...]:
    """(group, plural, encoded object) for every bootstrap object, built from the policy's sources (the
    generator's input; a start reads :data:`BOOTSTRAP_FILE` instead)."""
    out: list[tuple[str, str, bytes]] = []
    for ns in SYSTEM_NAMESPACES:
        # the label the namespace strategy gives every Namespace (kube-apiserver creates these through the API)
        meta = {"name": ns, "labels": {"kubernetes.io/metadata.name": ns}}
        out.append(("", "namespaces", _encode({"apiVersion": "v1", "kind": "Namespace", "metadata": meta,
                                               "spec": {"finalizers": ["kubernetes"]},
                                               "status": {"phase": "Active"}})))
    plural = {"ClusterRole": "clusterroles", "ClusterRoleBinding": "clusterrolebindings", "Role": "roles",
              "RoleBinding": "rolebindings"}
    for obj in (*bootstrap_objects(), *addon_objects()):
        out.append(("rbac.authorization.k8s.io", plural[obj["kind"]], _encode(obj)))
    # a default StorageClass, as kind and most distributions ship one; the built-in provisioner serves it
    out.append(("storage.k8s.io", "storageclasses", _encode({
        "apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
        "metadata": {"name": "standard", "annotations": {"storageclass.kubernetes.io/is-default-class": "true"}},
        "provisioner": "kubelite.io/hostpath", "volumeBindingMode": "WaitForFirstConsumer", "reclaimPolicy": "Delete",
    })))
    for name, value in SYSTEM_PRIORITY_CLASSES.items():
        out.append(("scheduling.k8s.io", "priorityclasses", _encode({
            "apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": name},
            "value": value, "preemptionPolicy": "PreemptLowerPriority",
            "description": "Used for system critical pods that must not be moved from their current node."
            if name == "system-node-critical" else "Used for system critical pods that must run in the cluster, "
                                                   "but can be moved to another node if necessary.",
        })))
    return tuple(out)


class Cluster:
    """A whole control plane in this process. See the module docstring."""

    def __init__(
        self, *, seed: int = 0, virtual_time: bool = True, autojump: bool = True, start_time: float = EPOCH,
        clock: Clock | None = None, track_managed_fields: bool = True, history: int | None = None,
        history_bytes: int | None = None,
        tune_gc: bool = False, gc_freeze: bool = True, nodes: int | Sequence[Mapping[str, Any]] = 0,
        scheduler: bool = True,
        controllers: bool | Sequence[str] = True, controller_options: dict[str, Any] | None = None,
        image_registry: Any = None, network: bool = True, proxy_mode: str = "iptables",
        metrics_server: bool | None = None,
        event_ttl: float | None = 3600.0,
        livelock_per_object: int = DEFAULT_PER_OBJECT, livelock_total: int = DEFAULT_TOTAL,
        idle_grace: float = DEFAULT_IDLE_GRACE,
    ) -> None:
        """``nodes``: a node count, or node pool specs (dicts of :class:`kubelite.kubelet.NodePool` arguments:
        ``count``, ``prefix``, ``capacity``, ``labels``, ``taints``, ``zones``, ``instance_type``, ...).
        ``scheduler`` starts the default kube-scheduler; ``controllers`` the built-in controllers (all, or
        the names given; see :data:`kubelite.controllers.kcm.CONTROLLERS`). ``network`` starts the data plane
        (kube-proxy on every node, cluster DNS, the traffic generator: ``cluster.network``), reading the same
        ``image_registry`` (workload profiles) as the kubelets; kube-proxy runs as ``system:kube-proxy``, cluster DNS
        as CoreDNS's service account and NetworkPolicy enforcement as kube-network-policies'. ``metrics_server``
        starts metrics-server (``cluster.metrics_server``): it scrapes the kubelets every 15 s and serves
        ``metrics.k8s.io/v1beta1`` through the apiserver, which the HPA and ``kubectl top`` read; by default (None)
        it runs when kube-controller-manager runs the HPA controller, its in-cluster consumer. ``event_ttl`` is kube-apiserver's ``--event-ttl``
        in seconds (Events expire that long after their last write; None keeps them). ``history`` and
        ``history_bytes`` bound each resource's watch history window (events, bytes of JSON; a watch or list
        from before the window gets 410 Expired and its reflector relists)."""
        self.seed = seed
        self._tune_gc = tune_gc
        self._gc_freeze = gc_freeze
        self._node_specs: list[dict[str, Any]] = (
            [{"count": nodes}] if isinstance(nodes, int) else [dict(n) for n in nodes]
        )
        self._want_scheduler = scheduler
        self._want_controllers = controllers
        self._controller_options = controller_options
        from kubelite.workload import ImageRegistry

        self.image_registry = image_registry if image_registry is not None else ImageRegistry()
        self._want_network = network
        self._want_metrics_server = metrics_server
        #: metrics-server, when it runs (see ``metrics_server``)
        self.metrics_server: MetricsServer | None = None
        from kubelite.kubelet.ipam import NodeAddresses, cluster_cidr_for

        # one IP space per cluster: every node pool (and add_nodes later) draws host IPs and pod CIDRs here
        total = sum(int(n.get("count", 1)) for n in self._node_specs)
        self.node_addresses = NodeAddresses(cluster_cidr_for(total))
        self._proxy_mode = proxy_mode
        #: the data plane (kube-proxy per node, DNS, traffic), when ``network=True``
        self.network: Network | None = None
        self._network_informers: SharedInformerFactory | None = None
        # informer factories the cluster created for its components; shut down on exit
        self._factories: list[SharedInformerFactory] = []
        #: the default kube-scheduler, when one runs
        self.scheduler: Scheduler | None = None
        #: the built-in kube-controller-manager, while it runs
        self.controller_manager: Manager | None = None
        self.controllers_started: list[str] = []
        self.node_pools: list[NodePool] = []
        self.rng = random.Random(seed)
        if clock is None:
            clock = (VirtualClock(start=start_time, autojump=autojump, idle_grace=idle_grace) if virtual_time
                     else RealClock())
        self.clock: Clock = clock
        # each table's watch history window, in events and bytes (kubelite.store's defaults unless given)
        self.store = Store(**{k: v for k, v in (("history", history), ("history_bytes", history_bytes))
                              if v is not None})
        self.apiserver = ApiServer(
            clock=self.clock, rng=self.rng, store=self.store, track_managed_fields=track_managed_fields,
            event_ttl=event_ttl,
        )
        self._client = Client(self.apiserver)
        # faults and admission hooks name resources the way the client does (a name matching nothing errors)
        self.apiserver.faults.registry = self.apiserver.registry
        self.apiserver.admission.registry = self.apiserver.registry
        # the livelock watchdog sees every committed write; a run writing without bound at one virtual instant
        # stops with LivelockError from the call driving time (advance, settle, wait_for)
        self.watchdog = LivelockDetector(self.clock.now, per_object=livelock_per_object, total=livelock_total,
                                         format_time=format_time)
        self.store.observers.append(self._watch_write)
        # Background tasks run in one anyio task group hosted by the supervisor's own task, so a cluster
        # can be entered and exited from different tasks, as pytest-asyncio does with async fixtures.
        self._supervisor = Supervisor("cluster")
        #: errors components logged and recovered from, and the managers started while this cluster runs
        self.errors = ErrorLog()
        self._clock_cm: Any = None
        self._started = False
        #: what :meth:`quiesce` waits for besides the built-in controller manager (see ``track``)
        self._quiescibles: list[Quiescible] = []
        self._gc_tuned = False
        self._entered = False

    def _require_running(self) -> None:
        if not self._started:
            raise RuntimeError("the cluster is not running: use it as `async with kubelite.Cluster(...) as cluster:`")

    @property
    def client(self) -> Client:
        """The admin client (``system:masters``). Only while the cluster runs (inside ``async with``)."""
        self._require_running()
        return self._client

    @property
    def managers(self) -> list[Manager]:
        """Every controller manager running on this cluster: the built-in kube-controller-manager (when it
        runs) and each :class:`~kubelite.controllers.Manager` started while the cluster runs."""
        from kubelite.controllers import Manager

        out: list[Manager] = [] if self.controller_manager is None else [self.controller_manager]
        out.extend(m for m in self.errors.attached if isinstance(m, Manager) and m is not self.controller_manager)
        return out

    def _raise_failure(self) -> None:
        """Raise the exception a component died of, if one did and nobody has been told yet."""
        failure = self._take_failure()
        if failure is not None:
            raise failure

    def _take_failure(self) -> BaseException | None:
        sup = self._supervisor
        if sup.failure is not None and not getattr(self, "_supervisor_failure_raised", False):
            self._supervisor_failure_raised = True
            return sup.failure
        for m in self.errors.attached:
            failure = m.take_failure()
            if failure is not None:
                return failure  # type: ignore[no-any-return]
        return None

    def _watch_write(self, table: Any, type_: str, rv: int, cur: Any, prev: Any) -> None:
        """Every committed write, to the livelock watchdog."""
        # (the JSON lazily: the watchdog reads it only for a hot object, and an Event's is kept deflated)
        self.watchdog.observe(f"{table.group}/{table.plural}" if table.group else table.plural, cur.key,
                              lambda: cur.data)

    # --- lifecycle ---
    async def __aenter__(self) -> Cluster:
        if self._entered:
            raise RuntimeError("a Cluster can be entered only once; make a new one")
        self._entered = True
        try:
            if self._gc_freeze:
                _freeze_import_heap()
            if self._tune_gc:
                _tune_gc(True)
                self._gc_tuned = True
            # log lines from this cluster's tasks carry its virtual time, and the errors they report land in
            # its error log (tasks copy the context on creation)
            self._log_token = cluster_time.set(lambda: self.clock.now() - EPOCH)
            self._errors_token = current_error_log.set(self.errors)
            running = getattr(self.clock, "running", None)
            if running is not None:
                cm = running()
                await cm.__aenter__()
                self._clock_cm = cm
            self._bootstrap()
            self._started = True
            self._supervisor.open()
            self.start_soon(self._every, COMPACTION_INTERVAL, self._compact_tick, name="compaction")
            self.start_soon(self._every, BOOKMARK_INTERVAL, self.apiserver.send_bookmarks, name="bookmarks")
            self.start_soon(self.apiserver.kubernetes_service.run, name="kubernetes-service")
            self.apiserver.component_probes.update({
                "scheduler": lambda: self.scheduler is not None,
                "controller-manager": lambda: self.controller_manager is not None})
            await self._start_components()
        except BaseException:
            await self.__aexit__(None, None, None)
            raise
        return self

    async def _start_components(self) -> None:
        """kube-controller-manager, kube-scheduler and kubelets, each talking to the API only."""
        from kubelite.events import EventBroadcaster
        from kubelite.informer import SharedInformerFactory

        if self._want_controllers:
            await self._start_controller_manager()
        if self._want_scheduler:
            from kubelite.scheduler import Scheduler

            # the manager is the User-Agent's product (kube-scheduler/v1.x), not the profile's schedulerName
            sched_client = self.component_client(KUBE_SCHEDULER, field_manager="kube-scheduler")
            factory = SharedInformerFactory(sched_client, clock=self.clock, rng=self.rng)
            self._factories.append(factory)
            broadcaster = EventBroadcaster(sched_client, clock=self.clock, rng=self.rng)
            self.start_soon(broadcaster.run, name="scheduler-events")
            self.scheduler = Scheduler(
                sched_client, factory, clock=self.clock, rng=self.rng,
                recorder=broadcaster.new_recorder(component="default-scheduler"),
            )
            self.start_soon(self.scheduler.run, name="kube-scheduler")
        if self._want_network:
            from kubelite.network import Network

            # kube-proxy (system:node-proxier), CoreDNS and the NetworkPolicy agent, each with its own watches
            proxy = self.component_client(KUBE_PROXY, field_manager="kube-proxy")
            self._network_informers = SharedInformerFactory(proxy, clock=self.clock, rng=self.rng)
            dns = self._component_factory(COREDNS)
            policy = self._component_factory(NETWORK_POLICIES)
            self.network = Network(self._network_informers, clock=self.clock, rng=self.rng, mode=self._proxy_mode,
                                   registry=self.image_registry, dns_informers=dns, policy_informers=policy)
            self.network.start()
        want_metrics = self._want_metrics_server
        if want_metrics is None:
            want_metrics = "horizontalpodautoscaling" in self.controllers_started
        if want_metrics:
            self.start_metrics_server()
        for spec in self._node_specs:
            await self.add_nodes(**spec)

    async def _start_controller_manager(self) -> None:
        from kubelite.controllers import Manager
        from kubelite.controllers.kcm import ControllerContext, start_controllers
        from kubelite.events import EventBroadcaster

        options = dict(self._controller_options or {})
        ipam = dict(options.get("nodeipam") or {})
        ipam.setdefault("cluster_cidr", self.node_addresses.cluster_cidr)
        options["nodeipam"] = ipam
        kcm = self.component_client(KUBE_CONTROLLER_MANAGER, field_manager="kube-controller-manager")
        mgr = Manager(kcm, clock=self.clock, rng=self.rng)
        broadcaster = EventBroadcaster(kcm, clock=self.clock, rng=self.rng)
        self.start_soon(broadcaster.run, name="controller-events")
        names = None if self._want_controllers is True else list(self._want_controllers)  # type: ignore[arg-type]

        def register(m: Manager) -> None:
            # the built-in controllers capture the manager's informers: after mgr.crash() they are built
            # again on the new ones (mgr.restart() calls this)
            ctx = ControllerContext(
                client=m.client, manager=m, informers=m.informers, clock=self.clock, rng=self.rng,
                broadcaster=broadcaster, start_soon=self.start_soon, options=options,
                # --use-service-account-credentials: each controller writes as kube-system/<its service account>
                client_builder=lambda sa: Client(self.apiserver, user=service_account_user("kube-system", sa),
                                                 field_manager="kube-controller-manager"),
            )
            self.controllers_started = start_controllers(ctx, names)

        register(mgr)
        mgr.rebuild = register
        self.controller_manager = mgr
        await mgr.start()

    async def crash_controller_manager(self) -> None:
        """Fault switch: the built-in kube-controller-manager dies; every built-in controller's memory
        (queues, expectations, informer caches) is lost. Objects keep whatever state the controllers had
        written. Your own managers (``cluster.managers``) keep running, as separate processes would:
        crash them with ``await mgr.crash()``. (``await cluster.controller_manager.crash()`` followed by
        ``restart()`` is equivalent to this and :meth:`restart_controller_manager`.)"""
        if self.controller_manager is not None:
            await self.controller_manager.stop()
            self.controller_manager = None

    async def restart_controller_manager(self) -> None:
        """Start a fresh kube-controller-manager (after :meth:`crash_controller_manager`): it relists
        everything and converges from the API state alone, as a restarted process would."""
        if self.controller_manager is None and self._want_controllers:
            await self._start_controller_manager()

    async def add_nodes(self, count: int = 1, **pool: Any) -> NodePool | None:
        """Start a pool of ``count`` kubelets (see :class:`kubelite.kubelet.NodePool`); returns the pool."""
        if count <= 0:
            return None
        from kubelite.kubelet import NodePool
        from kubelite.kubelet.pool import node_client

        if "prefix" not in pool:
            pool["prefix"] = "node" if not self.node_pools else f"node{len(self.node_pools)}"
        pool.setdefault("registry", self.image_registry)
        nodes = NodePool(count, clients=functools.partial(node_client, self.client.sharing_decodes()), clock=self.clock, rng=self.rng,
                         start_soon=self.start_soon, addresses=self.node_addresses,
                         cidrs_from_controller="nodeipam" in self.controllers_started,
                         dns=self.network.dns if self.network is not None else None, **pool)
        self.node_pools.append(nodes)
        await nodes.start()
        await self.settle()
        if self.network is not None:
            for name in nodes.kubelets:
                self.network.add_node(name)
        return nodes

    def start_metrics_server(self) -> MetricsServer:
        """Install metrics-server (``Cluster(metrics_server=True)`` does at start): it runs as
        ``system:serviceaccount:kube-system:metrics-server`` and its API is served through the apiserver from now
        on. A second one is an error (the APIService is taken)."""
        from kubelite.metricsserver import MetricsServer

        self._require_running()
        if self.metrics_server is not None:
            raise RuntimeError("metrics-server is already running")
        factory = self._component_factory(METRICS_SERVER)
        ms = MetricsServer(factory, self._kubelet_connector(factory.client.user), clock=self.clock)
        self.apiserver.aggregator.register(ms.api)
        self.metrics_server = ms
        self.start_soon(ms.run, name="metrics-server")
        return ms

    def _component_factory(self, service_account: str) -> SharedInformerFactory:
        """An informer factory for a kube-system add-on, as its service account (shut down on exit)."""
        from kubelite.informer import SharedInformerFactory

        ns, _, name = service_account.removeprefix("system:serviceaccount:").partition(":")
        # an add-on never mutates what its informers hand it (client-go's contract): it shares their decodes
        client = Client(self.apiserver, user=service_account_user(ns, name), field_manager=name).sharing_decodes()
        factory = SharedInformerFactory(client, clock=self.clock, rng=self.rng)
        self._factories.append(factory)
        return factory

    def _kubelet_connector(self, user: UserInfo) -> Callable[[str, int], ResourceMetrics]:
        """``user``'s connection to ``https://<address>:<port>/metrics/resource``: the kubelet whose node has that
        address (its name or host IP), ``ConnectionError`` as for an unreachable host. The kubelet authorizes the
        caller as ``--authorization-mode=Webhook`` does (a SubjectAccessReview: ``get nodes/metrics``)."""
        nodes = self.apiserver.resource("", "nodes")

        def connect(address: str, port: int) -> ResourceMetrics:
            for pool in self.node_pools:
                kubelet = pool.kubelets.get(address)
                if kubelet is None:
                    kubelet = next((k for k in pool.kubelets.values() if k.host_ip == address), None)
                if kubelet is None or port != 10250:
                    continue
                try:
                    self.apiserver.authorizer.authorize(user, "get", nodes, "metrics", "", kubelet.node_name)
                except ApiError:
                    raise PermissionError(f"Forbidden (user={user.name}, verb=get, resource=nodes, "
                                          "subresource=metrics)") from None
                return kubelet.resource_metrics.scrape()
            raise ConnectionError(f"dial tcp {address}:{port}: connect: no route to host")

        return connect

    def kubelet(self, node_name: str) -> Kubelet:
        """The kubelet of a node (for fault switches: ``stop()``, ``start()``, ``break_cni()``, ...)."""
        for p in self.node_pools:
            if node_name in p.kubelets:
                return p.kubelets[node_name]
        raise KeyError(node_name)

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None,
    ) -> None:
        failures: list[BaseException] = []
        try:
            if self.controller_manager is not None:
                try:
                    await self.controller_manager.stop()
                except Exception as e:
                    failures.append(e)
                self.controller_manager = None
            for m in list(self.errors.attached):
                if m.started:
                    try:
                        await m.stop()
                    except Exception as e:
                        failures.append(e)
            if self._network_informers is not None:
                for proxy in list(self.network.proxies.values()) if self.network is not None else []:
                    proxy.stop()
                await self._network_informers.shutdown(raise_failure=False)
                self._network_informers = None
            factories, self._factories = self._factories, []
            for f in factories:
                await f.shutdown(raise_failure=False)
            await self._supervisor.close(raise_failure=False)
            self._started = False
            failure = self._take_failure()
            if failure is not None:
                failures.append(failure)
            try:  # the components kept the shared-view contract (kubelite.api.views)
                self.store.verify_views()
            except Exception as e:
                failures.append(e)
            if failures and exc is None:
                raise failures[0]
        finally:
            self.apiserver.event_ttl.close()
            self._started = False
            self.store.close_watches(reason="cluster stopped")
            if self._clock_cm is not None:
                await self._clock_cm.__aexit__(exc_type, exc, tb)
                self._clock_cm = None
            if self._gc_tuned:
                self._gc_tuned = False
                _tune_gc(False)
            for var, token in ((cluster_time, getattr(self, "_log_token", None)),
                               (current_error_log, getattr(self, "_errors_token", None))):
                if token is not None:
                    with contextlib.suppress(ValueError):
                        var.reset(token)  # type: ignore[attr-defined]

    def start_soon(self, fn: Callable[..., Coroutine[Any, Any, Any]], *args: Any, name: str | None = None
                   ) -> TaskHandle:
        """Run a background task for the cluster's lifetime, in its task group (cancelled on exit; an
        exception it raises fails the cluster, see the module docstring). The handle stops it early."""
        self._require_running()
        return self._supervisor.start_soon(fn, *args, name=name)

    def _bootstrap(self) -> None:
        srv = self.apiserver
        now = self.clock.timestamp()
        apiservices = [("apiregistration.k8s.io", "apiservices", _encode(o)) for o in srv.local_apiservices()]
        for group, plural, data in (*_bootstrap_payload(), *apiservices):
            obj = _decode(data)
            info = srv.registry.by_resource(group, plural)
            meta = obj["metadata"]
            meta["uid"] = str(__import__("uuid").UUID(int=self.rng.getrandbits(128), version=4))
            meta["creationTimestamp"] = now
            srv.seed(info, obj)
        # default/kubernetes with its Endpoints and EndpointSlice (kube-apiserver's bootstrap controller) and
        # kubeadm's kube-dns Service, their ClusterIPs reserved as the allocator's repair loop would
        services = []
        for group, plural, obj in kubernetes_service_objects():
            meta = obj["metadata"]
            meta["uid"] = str(__import__("uuid").UUID(int=self.rng.getrandbits(128), version=4))
            meta["creationTimestamp"] = now
            srv.seed(srv.registry.by_resource(group, plural), obj)
            if plural == "services":
                services.append(obj)
        srv.service_ips.restore(services)

    # --- housekeeping ---
    async def _every(self, interval: float, fn: Callable[[], Any]) -> None:
        while True:
            await self.clock.sleep(interval)
            fn()

    _last_compaction_target = 0

    def _compact_tick(self) -> None:
        # kube-apiserver compacts to the revision it saw at the previous tick, so at least one interval of
        # history is always available to watchers that resume.
        if self._last_compaction_target:
            self.store.compact(self._last_compaction_target)
        self._last_compaction_target = self.store.revision

    # --- time ---
    @property
    def now(self) -> float:
        """The cluster clock's current time (seconds since the Unix epoch)."""
        return self.clock.now()

    @contextlib.asynccontextmanager
    async def _driving(self) -> AsyncIterator[None]:
        """Drive time under the livelock watchdog: a tripped watchdog cancels this task, which surfaces here
        as :class:`~kubelite.watchdog.LivelockError`."""
        watchdog = self.watchdog
        if watchdog.error is not None:
            raise watchdog.error
        task = asyncio.current_task()
        assert task is not None
        watchdog.driving(task)
        try:
            yield
        except asyncio.CancelledError:
            if watchdog.error is None:
                raise
            task.uncancel()
            raise watchdog.error from None
        finally:
            watchdog.done_driving(task)

    async def advance(self, seconds: float) -> None:
        """Let ``seconds`` of (virtual) time pass; everything due on the way runs. Raises the exception a
        component died of, if one did, and :class:`~kubelite.watchdog.LivelockError` if the cluster livelocks
        on the way."""
        self._require_running()
        self._raise_failure()
        async with self._driving():
            await self.clock.advance(seconds)
        self._raise_failure()

    async def settle(self) -> None:
        """Run until every task is idle, without moving time. Raises the exception a component died of,
        if one did (LivelockError as :meth:`advance`)."""
        self._require_running()
        self._raise_failure()
        async with self._driving():
            await self.clock.settle()
        self._raise_failure()

    async def wait_for(
        self, predicate: Callable[[], Any], *, timeout: float = 60.0, interval: float = 0.1,  # noqa: ASYNC109
    ) -> Any:
        """Advance time until ``predicate()`` (sync or async) returns a truthy value; TimeoutError after
        ``timeout`` seconds of cluster time. Returns that value."""
        self._require_running()
        async with self._driving():
            return await self._wait_for(predicate, timeout, interval)

    async def _wait_for(self, predicate: Callable[[], Any], timeout: float, interval: float) -> Any:  # noqa: ASYNC109
        deadline = self.clock.now() + timeout
        while True:
            self._raise_failure()
            value = predicate()
            if isinstance(value, Awaitable):
                value = await value
            if value:
                return value
            if self.clock.now() >= deadline:
                raise TimeoutError(f"condition not met within {timeout:g}s of cluster time")
            await self.clock.settle()
            self._raise_failure()
            value = predicate()
            if isinstance(value, Awaitable):
                value = await value
            if value:
                return value
            await self.clock.sleep(min(interval, max(0.0, deadline - self.clock.now())))

    def track(self, part: Quiescible) -> None:
        """Make :meth:`quiesce` wait for ``part`` too (a user's controller Manager, a perturber)."""
        if part not in self._quiescibles:
            self._quiescibles.append(part)

    def untrack(self, part: Quiescible) -> None:
        """Stop :meth:`quiesce` waiting for ``part``."""
        if part in self._quiescibles:
            self._quiescibles.remove(part)

    def _busy(self, horizon: float) -> tuple[str | None, float | None]:
        parts: list[Any] = [self.controller_manager] if self.controller_manager is not None else []
        parts.extend(self._quiescibles)
        soonest: float | None = None
        for part in parts:
            reason = part.busy()
            if reason is not None:
                return reason, None
            next_retry = getattr(part, "next_retry", None)
            due = next_retry() if next_retry is not None else None
            if due is not None and (soonest is None or due < soonest):
                soonest = due
        if soonest is not None and soonest <= self.clock.now() + horizon:
            return f"a retry is due at +{soonest - self.clock.now():.3f}s", soonest
        return None, None

    async def quiesce(self, *, timeout: float = 600.0, horizon: float = 60.0) -> None:  # noqa: ASYNC109
        """Run until the cluster is quiescent; :class:`NotQuiescent` after ``timeout`` s of cluster time.

        Quiescent means, all at once: (1) every task in the event loop is idle (as after :meth:`settle`);
        (2) in the built-in controller manager and every manager passed to :meth:`track`, every running
        informer has synced and has no change left to put in its cache or to hand to a handler, and no
        controller has a request ready or being reconciled; (3) no tracked part (such as the fuzz
        perturber) reports work it holds back; (4) no controller has a retry or ``requeue_after`` due
        within ``horizon`` seconds. Later timers (periodic requeues, resyncs, lease renewals) may be
        pending: quiescence means there is nothing to do now, not that time stands still. While the
        cluster is not quiescent, time advances to the next timer (or the next retry)."""
        self._require_running()
        deadline = self.clock.now() + timeout
        while True:
            self._raise_failure()
            await self.clock.settle()
            self._raise_failure()
            reason, due = self._busy(horizon)
            if reason is None:
                return
            now = self.clock.now()
            if now >= deadline:
                raise NotQuiescent(f"the cluster did not quiesce within {timeout:g}s: {reason}")
            if due is None:
                next_deadline = getattr(self.clock, "next_deadline", None)
                nd = next_deadline() if next_deadline is not None else None
                due = nd if nd is not None else now + 0.1
            await self.clock.sleep(min(max(0.0, due - now), deadline - now))

    # --- identities ---
    def component_client(self, user: str, *, field_manager: str, groups: Sequence[str] = ()) -> Client:
        """The client a control-plane component runs with: its own user as upstream's bootstrap policy names
        it (``system:kube-scheduler``, ``system:kube-controller-manager``, ...), so RBAC checks every request
        it makes and a permission the component lacks fails loudly instead of passing as admin."""
        return Client(self.apiserver, user=UserInfo(name=user, groups=(*groups, ALL_AUTHENTICATED)),
                      field_manager=field_manager).sharing_decodes()

    def client_as(self, name: str, groups: Sequence[str] = ()) -> Client:
        """A client acting as another user (RBAC applies)."""
        return self.client.as_user(name, groups)

    def add_token(self, token: str, name: str, groups: Sequence[str] = ()) -> None:
        """Register a bearer token for user ``name`` in ``groups`` (a static token file entry)."""
        gs = tuple(groups)
        self.apiserver.authenticator.add_token(token, UserInfo(name=name, groups=gs))

    def client_with_token(self, token: str | None) -> Client:
        """A client authenticating with ``token`` (401 Unauthorized when it is unknown)."""
        return self.client.with_token(token)

    # --- HTTP ---
    def serve(self, **kw: Any) -> Any:
        """``async with cluster.serve() as url``: the REST API on a loopback port in this event loop (so the
        code under test runs on the cluster's clock); ``url`` also carries ``.token``, ``.kubeconfig`` and
        ``.ca_file``. Keywords: ``host``, ``port``, ``token``, ``tls``, ``kubeconfig``, ``cert_dir``,
        ``idle_grace`` (holds virtual time for clients in other processes; see :func:`kubelite.http.serve`)."""
        from kubelite.http import serve

        return serve(self, **kw)

    def asgi_app(self, *, admin_token: str | None = None) -> Any:
        """The REST API as an ASGI app, for in-process transports (``httpx.ASGITransport(app=...)``)."""
        from kubelite.http import ApiApp

        return ApiApp(self, admin_token=admin_token)

    # --- faults ---
    @property
    def faults(self) -> FaultInjector:
        """The apiserver's fault injector (``inject(409, verb=..., resource=...)``; resources named as the client names
        them)."""
        return self.apiserver.faults

    def close_watches(self) -> int:
        """Fault switch: close every open watch (clients resume from their last revision)."""
        return self.store.close_watches()

    def compact(self, revision: int | None = None) -> int:
        """Fault switch: force compaction now (older lists and watches get 410 Expired)."""
        return self.store.compact(revision)
