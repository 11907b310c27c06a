"""kube-controller-manager: which built-in controllers run, and how each is started.

Each built-in controller lives in its own module under ``kubelite.controllers`` and exports::

    NAME = "replicaset"                       # upstream's controller name (kube-controller-manager --controllers)
    def register(ctx: ControllerContext) -> None

``register`` builds the controller on ``ctx.manager`` (controller-runtime style, with the shared
informers) or starts its own tasks with ``ctx.start_soon``; it records events through
``ctx.recorder(component)``. Controllers talk to the cluster only through ``ctx.client`` and the
informers, as the real ones do.

:data:`CONTROLLERS` lists the modules in upstream's start order; a module that does not exist yet, or
does not export ``register``, is skipped (so the list can name every controller the project will have).

**Loaded on first use.** A controller named in :data:`LOAD_ON_FIRST` is not imported with the cluster: the
controller manager watches its primary kinds through the shared informers (the ones the controller itself
will use) and imports and registers the controller from the first event of one of them. Until an object of
its kind exists such a controller has nothing to do (a Deployment controller with no Deployment writes
nothing, whatever the pods do), and when it loads its handlers are added to informers that have synced, so
they first get an add for every cached object (client-go's ``AddEventHandler`` on a started informer): it
sees the same state as if it had started with the cluster. Issue #17's cold start: a default cluster does
not import the workload, batch, autoscaling, certificate, node, disruption, quota and volume controllers
until they are used. The controllers that act on objects every cluster has (namespaces, service
accounts, the ``kubernetes`` Service, the garbage collector's graph, the pod GC's periodic pass) start
with the cluster.
"""

from __future__ import annotations

import copy
import importlib
import importlib.util
import random
from collections.abc import Callable, Coroutine, Sequence
from typing import Any

from kubelite.client import Client
from kubelite.clock import Clock
from kubelite.controllers.manager import Manager
from kubelite.events import EventBroadcaster, EventRecorder
from kubelite.informer import SharedInformerFactory

__all__ = ["CONTROLLERS", "LOAD_ON_FIRST", "SERVICE_ACCOUNTS", "ControllerContext", "check_options", "start_controllers"]

#: controller name -> module, in upstream's NewControllerDescriptors order (the subset kubelite has).
CONTROLLERS: dict[str, str] = {
    "serviceaccount": "kubelite.controllers.serviceaccount",
    "endpoint": "kubelite.controllers.endpoints",
    "endpointslice": "kubelite.controllers.endpointslice",
    "replicationcontroller": "kubelite.controllers.replication",
    "replicaset": "kubelite.controllers.replicaset",
    "deployment": "kubelite.controllers.deployment",
    "job": "kubelite.controllers.job",
    "cronjob": "kubelite.controllers.cronjob",
    "csrsigning": "kubelite.controllers.certificates.signer",
    "csrcleaner": "kubelite.controllers.certificates.cleaner",
    "daemonset": "kubelite.controllers.daemonset",
    "statefulset": "kubelite.controllers.statefulset",
    "disruption": "kubelite.controllers.disruption",
    "horizontalpodautoscaling": "kubelite.controllers.horizontal",
    "namespace": "kubelite.controllers.namespace",
    "resourcequota": "kubelite.controllers.resourcequota",
    "garbagecollector": "kubelite.controllers.garbagecollector",
    "nodeipam": "kubelite.controllers.nodeipam",
    "nodelifecycle": "kubelite.controllers.nodelifecycle",
    "podgc": "kubelite.controllers.podgc",
    "ttlafterfinished": "kubelite.controllers.ttlafterfinished",
    "persistentvolume-binder": "kubelite.controllers.volume_binder",
}


#: controller name -> the kinds (``kubelite.api.types`` names) whose first event loads it (see the module
#: docstring); every other controller of :data:`CONTROLLERS` is imported and registered at start
LOAD_ON_FIRST: dict[str, tuple[str, ...]] = {
    "replicationcontroller": ("ReplicationController",),
    "replicaset": ("ReplicaSet",),
    "deployment": ("Deployment",),
    "job": ("Job",),
    "cronjob": ("CronJob",),
    "csrsigning": ("CertificateSigningRequest",),
    "csrcleaner": ("CertificateSigningRequest",),
    "daemonset": ("DaemonSet",),
    "statefulset": ("StatefulSet",),
    "disruption": ("PodDisruptionBudget",),
    "horizontalpodautoscaling": ("HorizontalPodAutoscaler",),
    "resourcequota": ("ResourceQuota",),
    "nodeipam": ("Node",),
    "nodelifecycle": ("Node",),
    "ttlafterfinished": ("Job",),
    "persistentvolume-binder": ("PersistentVolumeClaim", "PersistentVolume"),
}

#: The kube-system service account each controller acts as with ``--use-service-account-credentials`` (upstream
#: ``ControllerContext.ClientBuilder.ClientOrDie(<name>)`` and the ``system:controller:<name>`` bootstrap roles).
SERVICE_ACCOUNTS = {
    "serviceaccount": "service-account-controller",
    "endpoint": "endpoint-controller",
    "endpointslice": "endpointslice-controller",
    "replicationcontroller": "replication-controller",
    "replicaset": "replicaset-controller",
    "deployment": "deployment-controller",
    "job": "job-controller",
    "cronjob": "cronjob-controller",
    "csrsigning": "certificate-controller",
    "csrcleaner": "certificate-controller",
    "daemonset": "daemon-set-controller",
    "statefulset": "statefulset-controller",
    "disruption": "disruption-controller",
    "horizontalpodautoscaling": "horizontal-pod-autoscaler",
    "namespace": "namespace-controller",
    "resourcequota": "resourcequota-controller",
    "garbagecollector": "generic-garbage-collector",
    "nodeipam": "node-controller",  # upstream's nodeipam runs with the node-controller's credentials
    "nodelifecycle": "node-controller",
    "podgc": "pod-garbage-collector",
    "ttlafterfinished": "ttl-after-finished-controller",
    "persistentvolume-binder": "persistent-volume-binder",
}


class ControllerContext:
    """What a built-in controller gets: the API, shared informers, the clock, the RNG, events."""

    def __init__(
        self, *, client: Client, manager: Manager, informers: SharedInformerFactory, clock: Clock,
        rng: random.Random, broadcaster: EventBroadcaster, start_soon: Callable[..., Any],
        options: dict[str, Any] | None = None, client_builder: Callable[[str], Client] | None = None,
    ) -> None:
        #: the API as this controller's identity (its service account when a ``client_builder`` is given)
        self.client = client
        self.manager = manager
        self.informers = informers
        self.clock = clock
        self.rng = rng
        self.broadcaster = broadcaster
        self._start_soon = start_soon
        #: per-controller options, e.g. {"nodelifecycle": {"node_monitor_grace_period": 40}}
        self.options = options or {}
        #: service account name -> a client authenticated as ``system:serviceaccount:kube-system:<name>``
        self.client_builder = client_builder

    def for_controller(self, name: str) -> ControllerContext:
        """The context one controller registers with: with a ``client_builder``, ``client`` acts as the
        controller's service account (``--use-service-account-credentials``), so RBAC checks every write it
        makes against its ``system:controller:*`` role. Shared informers keep the manager's identity."""
        sa = SERVICE_ACCOUNTS.get(name)
        if self.client_builder is None or sa is None:
            return self
        ctx = copy.copy(self)
        ctx.client = self.client_builder(sa)
        return ctx

    def recorder(self, component: str) -> EventRecorder:
        return self.broadcaster.new_recorder(component=component)

    def start_soon(self, fn: Callable[..., Coroutine[Any, Any, Any]], *args: Any, name: str | None = None) -> None:
        """Run a background task for the controller manager's lifetime."""
        self._start_soon(fn, *args, name=name)

    def option(self, controller: str, key: str, default: Any) -> Any:
        return self.options.get(controller, {}).get(key, default)


def check_options(options: dict[str, Any]) -> None:
    """Reject ``controller_options`` that no controller reads, as kube-controller-manager rejects an unknown
    flag at start-up instead of running without it: a section must name a controller of :data:`CONTROLLERS`,
    and each key must be one its module declares in ``OPTIONS`` (a module without ``OPTIONS`` takes none).
    Checked whether or not the controller runs, as a flag is (only a named section's module is imported)."""
    for controller, opts in options.items():
        if controller not in CONTROLLERS:
            raise ValueError(f"controller_options names unknown controller {controller!r} "
                             f"(known: {', '.join(CONTROLLERS)})")
        if not isinstance(opts, dict):
            raise ValueError(f"controller_options[{controller!r}] must be a mapping of option names, "
                             f"got {type(opts).__name__}")
        allowed: frozenset[str]
        try:
            allowed = getattr(importlib.import_module(CONTROLLERS[controller]), "OPTIONS", frozenset())
        except ModuleNotFoundError as e:
            if e.name != CONTROLLERS[controller]:
                raise
            allowed = frozenset()
        unknown = sorted(set(opts) - set(allowed))
        if unknown:
            raise ValueError(f"unknown {controller} controller options {unknown} "
                             f"(it takes: {', '.join(sorted(allowed)) or 'no options'})")


def start_controllers(ctx: ControllerContext, names: Sequence[str] | None = None) -> list[str]:
    """Register the named controllers (default: every one that exists), after :func:`check_options`; those
    of :data:`LOAD_ON_FIRST` are registered from the first event of their kind. Returns the controllers
    started (or waiting for their kind), in :data:`CONTROLLERS` order."""
    check_options(ctx.options)
    started = []
    for name, module in CONTROLLERS.items():
        if names is not None and name not in names:
            continue
        kinds = LOAD_ON_FIRST.get(name)
        if kinds is not None and _exists(module):
            _LoadOnFirst(ctx, name, module, kinds)
            started.append(name)
            continue
        register = _register_of(module)
        if register is None:
            continue
        register(ctx.for_controller(name))
        started.append(name)
    return started


def _exists(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


def _register_of(module: str) -> Callable[[ControllerContext], Any] | None:
    """The module's ``register``, or None for a module that does not exist yet or exports none (not a
    controller yet)."""
    try:
        mod = importlib.import_module(module)
    except ModuleNotFoundError as e:
        if e.name != module:
            raise
        return None
    return getattr(mod, "register", None)


class _LoadOnFirst:
    """One controller of :data:`LOAD_ON_FIRST`: a handler on the shared informer of each of its kinds that
    imports and registers the controller on the first event of any of them, then does nothing more."""

    def __init__(self, ctx: ControllerContext, name: str, module: str, kinds: tuple[str, ...]) -> None:
        import kubelite.api.types as types

        self._ctx, self._name, self._module = ctx, name, module
        self.loaded = False
        for kind in kinds:
            ctx.informers.informer_for(getattr(types, kind)).add_event_handler(self)

    def _load(self) -> None:
        # an event the informers deliver while the manager stops or crashes loads nothing: the controller
        # would not run, and a restarted manager builds its controllers (and these loaders) again
        if self.loaded or self._ctx.manager.stopping:
            return
        self.loaded = True
        register = _register_of(self._module)
        if register is not None:
            register(self._ctx.for_controller(self._name))

    def on_add(self, obj: Any, is_in_initial_list: bool) -> None:
        self._load()

    def on_update(self, old: Any, new: Any) -> None:
        self._load()

    def on_delete(self, obj: Any) -> None:
        self._load()
