"""The controller manager: shared informers plus controllers, started and stopped together.

Shaped like controller-runtime's ``manager.Manager`` and its builder::

    mgr = Manager(cluster.client, clock=cluster.clock, rng=cluster.rng)
    (mgr.controller("web")
        .for_(Deployment)                       # primary resource: reconcile the object itself
        .owns(ReplicaSet)                       # owned objects map to their controller owner
        .watches(Node, map_fn)                  # anything else, through a map function
        .with_event_filter(GenerationChangedPredicate())
        .complete(reconciler))                  # a Reconciler, an async function, or a factory
    await mgr.start()                           # informers, then every controller once its caches sync
    await cluster.settle()                      # the first reconciles have run
    ...
    await mgr.stop()                            # or: async with mgr: ...

Guarantees:
- One informer per resource, shared by every controller of the manager.
- Controllers start only after their caches sync; :meth:`stop` cancels everything and waits.
- Never silent: every task runs in the manager's task group; a controller or informer that dies ends the
  manager with its exception (:attr:`Manager.failure`, raised by :meth:`stop`); :meth:`health` gives each
  controller's error count and last error.
- With ``leader_election`` the controllers run only while this manager holds the Lease (client-go
  leader election: 15 s lease, 10 s renew deadline, 2 s retry period by default); losing it stops them.
- :meth:`crash` drops every controller's in-memory state and the informer caches, as a process crash
  would; :meth:`restart` starts afresh from the API alone. Reconcilers given as factories are rebuilt
  so their private state is lost too.
"""

from __future__ import annotations

import asyncio
import inspect
import random
from collections.abc import Callable, Iterable
from typing import Any

import msgspec

from kubelite.client import Client
from kubelite.clock import Clock
from kubelite.controllers.cache import CacheReader
from kubelite.controllers.controller import Controller, ControllerHealth
from kubelite.controllers.handler import (
    EnqueueRequestForObject,
    EnqueueRequestForOwner,
    EnqueueRequestsFromMapFunc,
    EventHandler,
)
from kubelite.controllers.predicate import Predicate
from kubelite.controllers.reconcile import Reconciler, Request
from kubelite.events import EventBroadcaster, EventRecorder
from kubelite.informer import SharedInformerFactory
from kubelite.leaderelection import LeaderElectionConfig, LeaderElector, LeaseLock
from kubelite.perturb import Perturber
from kubelite.supervise import Supervisor, TaskHandle, current_error_log

__all__ = ["Builder", "Manager", "ManagerHealth"]


def _api_version_kind(client: Client, resource: Any) -> tuple[str, str]:
    info = client._info(resource)
    return info.api_version, info.kind


class Builder:
    """Fluent construction of a controller (``builder.ControllerManagedBy``)."""

    def __init__(self, manager: Manager, name: str) -> None:
        self._m = manager
        self._name = name
        self._for: Any = None
        self._for_preds: tuple[Predicate, ...] = ()
        self._owns: list[tuple[Any, tuple[Predicate, ...]]] = []
        self._watches: list[tuple[Any, EventHandler, tuple[Predicate, ...]]] = []
        self._synced: list[Any] = []
        self._filters: tuple[Predicate, ...] = ()
        self._workers = 1

    def for_(self, resource: Any, *predicates: Predicate) -> Builder:
        """The primary resource: its events enqueue the object itself (``For``)."""
        self._for = resource
        self._for_preds = predicates
        return self

    def owns(self, resource: Any, *predicates: Predicate) -> Builder:
        """An owned resource: its events enqueue its controller owner of the ``for_`` kind (``Owns``)."""
        self._owns.append((resource, predicates))
        return self

    def watches(
        self, resource: Any, handler: EventHandler | Callable[[Any], Iterable[Request]], *predicates: Predicate,
    ) -> Builder:
        """Any other resource, through an :class:`EventHandler` or a map function ``obj -> requests`` (``Watches``)."""
        h: EventHandler = handler if hasattr(handler, "create") else EnqueueRequestsFromMapFunc(handler)  # type: ignore[assignment]
        self._watches.append((resource, h, predicates))
        return self

    def waits_for(self, resource: Any) -> Builder:
        """A resource the reconciler reads from its shared informer's cache but whose events enqueue nothing:
        reconciles wait for that cache to sync, and no handler is registered on it (kube-controller-manager's
        ``WaitForNamedCacheSync`` over a lister's ``HasSynced``; see :meth:`Controller.wait_for`)."""
        self._synced.append(resource)
        return self

    def with_event_filter(self, *predicates: Predicate) -> Builder:
        """Predicates every watch of this controller must pass (``WithEventFilter``)."""
        self._filters = (*self._filters, *predicates)
        return self

    def with_max_concurrent_reconciles(self, n: int) -> Builder:
        """Run ``n`` reconcile workers (``MaxConcurrentReconciles``); one request still never runs twice at once."""
        self._workers = n
        return self

    def complete(self, reconciler: Reconciler | Callable[..., Any]) -> Controller:
        """Finish with a reconciler: a :class:`Reconciler`, an ``async def reconcile(request)``, or a
        zero-argument factory returning either (rebuilt on :meth:`Manager.restart`)."""
        m = self._m
        factory: Callable[[], Any] | None = reconciler if _is_factory(reconciler) else None  # type: ignore[assignment]
        ctrl = Controller(
            self._name, factory() if factory is not None else reconciler, clock=m.clock, rng=m.rng,
            max_concurrent_reconciles=self._workers, perturber=m.perturber, site=f"{m.name}/{self._name}",
        )
        if self._for is not None:
            ctrl.watch(m.informers.informer_for(self._for), EnqueueRequestForObject(),
                       *self._filters, *self._for_preds)
            owner_av, owner_kind = _api_version_kind(m.client, self._for)
            for res, preds in self._owns:
                ctrl.watch(m.informers.informer_for(res), EnqueueRequestForOwner(owner_av, owner_kind),
                           *self._filters, *preds)
        for res, handler, preds in self._watches:
            ctrl.watch(m.informers.informer_for(res), handler, *self._filters, *preds)
        for res in self._synced:
            ctrl.wait_for(m.informers.informer_for(res))
        m.add(ctrl, factory=factory)
        return ctrl


def _is_factory(obj: Any) -> bool:
    """A class, or a callable that takes no arguments and is neither a reconciler nor a coroutine function
    (a plain ``def reconcile(request)`` is not a factory: it is rejected as a non-async reconciler)."""
    if isinstance(obj, type):
        return True
    if hasattr(obj, "reconcile") or inspect.iscoroutinefunction(obj) or not callable(obj):
        return False
    try:
        params = inspect.signature(obj).parameters.values()
    except (TypeError, ValueError):
        return True
    return not any(p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params)


class ManagerHealth(msgspec.Struct, frozen=True, kw_only=True):
    """A manager's health (``Manager.health()``): whether it runs, leads, has died, and each controller's."""

    name: str
    started: bool
    leader: bool
    failure: str | None
    controllers: dict[str, ControllerHealth]

    @property
    def errors(self) -> int:
        """Reconcile errors over every controller."""
        return sum(c.errors for c in self.controllers.values())


class Manager:
    """Shared informers plus controllers (controller-runtime ``manager.Manager``); see the module docstring.

    Every task it starts (controllers, the leader elector) runs in its own anyio task group
    (:class:`kubelite.supervise.Supervisor`), and so do its informers (their factory's group). A
    controller that dies (``recover_panic=False``) or an informer that fails ends the manager: the
    exception is logged, kept as :attr:`failure`, raised by :meth:`stop`, and, for a manager started
    inside a running :class:`~kubelite.Cluster`, by the cluster's time-driving calls and its exit.
    """

    def __init__(
        self, client: Client, *, clock: Clock, rng: random.Random, informers: SharedInformerFactory | None = None,
        leader_election: tuple[str, str] | None = None, identity: str = "", name: str = "kubelite-controller-manager",
        perturber: Perturber | None = None,
    ) -> None:
        """``leader_election=(namespace, lease_name)`` runs the controllers only while this manager (named
        by ``identity``) holds that Lease. ``perturber`` (:mod:`kubelite.perturb`) is handed to the
        manager's informers and controllers (give the client its own for the ``api`` point)."""
        self.client = client
        self.perturber = perturber
        self.clock = clock
        self.rng = rng
        self.name = name
        self._own_informers = informers is None
        self.informers = informers if informers is not None else SharedInformerFactory(
            client, clock=clock, rng=rng, perturber=perturber)
        self.leader_election = leader_election
        self.identity = identity or name
        self.elector: LeaderElector | None = None
        self._elector_task: TaskHandle | None = None
        self.controllers: dict[str, Controller] = {}
        self._factories: dict[str, Callable[[], Any]] = {}
        self._tasks: dict[str, TaskHandle] = {}
        self._started = False
        self._stopping = False
        self._supervisor = Supervisor(f"manager/{name}", on_failure=self._on_failure)
        self._failure_callbacks: list[Callable[[BaseException], Any]] = []
        #: the exception the manager died of (None while healthy)
        self.failure: BaseException | None = None
        self._failure_reported = False
        self._watch_factory(self.informers)
        #: called with the manager by :meth:`restart` after :meth:`crash` to build its controllers again,
        #: for controllers that captured the old informers (the cluster sets it for kube-controller-manager)
        self.rebuild: Callable[[Manager], Any] | None = None
        self._crashed = False
        self._broadcaster: EventBroadcaster | None = None
        self._broadcaster_task: TaskHandle | None = None
        #: the cache-backed reader over this manager's informers (copies by default); see :mod:`.cache`
        self.cache = CacheReader(lambda: self.informers, clock=clock,
                                 namespaced=lambda res: client.resource_info(res).namespaced)

    def index_field(self, resource: Any, field: str, extract: Callable[[Any], list[str] | None]) -> None:
        """Add a field index to the cache (controller-runtime ``mgr.GetFieldIndexer().IndexField``);
        ``mgr.cache.list(resource, fields={field: value})`` then answers from it."""
        self.cache.index_field(resource, field, extract)

    def get_event_recorder_for(self, name: str) -> EventRecorder:
        """An event recorder reporting as component ``name`` (controller-runtime
        ``mgr.GetEventRecorderFor``). Events are written by the manager's broadcaster while it runs,
        with client-go's correlation (aggregation, spam filtering)."""
        if self._broadcaster is None:
            self._broadcaster = EventBroadcaster(self.client, clock=self.clock, rng=self.rng)
            if self._started:
                self._broadcaster_task = self._supervisor.start_soon(self._broadcaster.run, name="events")
        return self._broadcaster.new_recorder(component=name)

    def _watch_factory(self, factory: SharedInformerFactory) -> None:
        factory.supervisor.add_failure_callback(self._on_failure)

    def _on_failure(self, exc: BaseException) -> None:
        if self.failure is None:
            self.failure = exc
            self._failure_reported = False
            self._supervisor.cancel()
            for fn in self._failure_callbacks:
                fn(exc)

    def add_failure_callback(self, fn: Callable[[BaseException], Any]) -> None:
        """Call ``fn(exception)`` when the manager dies (the cluster uses it to fail loudly)."""
        self._failure_callbacks.append(fn)

    def take_failure(self) -> BaseException | None:
        """The failure if it has not been raised to anyone yet (and mark it raised)."""
        if self.failure is None or self._failure_reported:
            return None
        self._failure_reported = True
        return self.failure

    def controller(self, name: str) -> Builder:
        """Start building a controller named ``name`` (controller-runtime ``builder.ControllerManagedBy``)."""
        return Builder(self, name)

    def add(self, controller: Controller, *, factory: Callable[[], Any] | None = None) -> None:
        """Add a controller built by hand (started at once if the manager runs)."""
        if controller.name in self.controllers:
            raise ValueError(f"a controller named {controller.name!r} already exists")
        self.controllers[controller.name] = controller
        controller.manager = self
        if factory is not None:
            self._factories[controller.name] = factory
        if self._started and (self.leader_election is None or self.is_leader()):
            self.informers.start()
            self._start_controller(controller)

    def _start_controller(self, c: Controller) -> None:
        self._tasks[c.name] = self._supervisor.start_soon(c.run, name=f"controller-{c.name}")

    async def __aenter__(self) -> Manager:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    async def start(self) -> None:
        """Start informers and controllers (or the leader election that will start them); returns at once.
        The first reconciles run as soon as the caches have synced: ``await cluster.settle()`` after this
        is enough to see them (cache sync is event-driven, not polled)."""
        if self.failure is not None:
            raise RuntimeError(f"manager {self.name!r} has failed: {self.failure!r}") from self.failure
        if self._started:
            return
        self._started = True
        self._stopping = False
        self._supervisor.open()
        _adopt(self)
        if self._broadcaster is not None:
            self._broadcaster_task = self._supervisor.start_soon(self._broadcaster.run, name="events")
        self.informers.start()
        if self.leader_election is None:
            self._start_all()
            return
        ns, lease = self.leader_election
        lock = LeaseLock(ns, lease, self.identity, self.client)

        async def lead() -> None:
            self._start_all()
            await asyncio.Event().wait()  # lead until the elector cancels us

        def stopped() -> None:
            for t in list(self._tasks.values()):
                t.cancel()
            self._tasks.clear()

        self.elector = LeaderElector(
            LeaderElectionConfig(lock=lock, on_started_leading=lead, on_stopped_leading=stopped, name=self.name),
            clock=self.clock, rng=self.rng,
        )
        self._elector_task = self._supervisor.start_soon(self.elector.run, name=f"{self.name}-elector")

    def _start_all(self) -> None:
        self.informers.start()
        for c in self.controllers.values():
            if c.name not in self._tasks:
                self._start_controller(c)

    def is_leader(self) -> bool:
        """Whether this manager runs its controllers now (always, once started, without leader election)."""
        return self.elector.is_leader() if self.elector is not None else self._started

    @property
    def stopping(self) -> bool:
        """Whether :meth:`stop` or :meth:`crash` has begun and :meth:`start` has not run since: the informers
        may still deliver events, but a controller built from one would not run (controller-runtime's manager
        refuses a runnable once its stop procedure is engaged)."""
        return self._stopping

    @property
    def started(self) -> bool:
        """Whether :meth:`start` has been called (and not undone by :meth:`stop` or :meth:`crash`)."""
        return self._started

    def busy(self) -> str | None:
        """Why this manager is not quiet right now, or None: an informer not synced or with changes not yet
        handled, or a controller with a request ready or being reconciled (see ``Cluster.quiesce``)."""
        if not self._started:
            return None
        for informer in self.informers.informers.values():
            if informer.has_started() and not informer.is_stopped():
                if not informer.has_synced():
                    return f"informer {informer.name} of {self.name} has not synced"
                if informer.pending():
                    return f"informer {informer.name} of {self.name} has {informer.pending()} changes to deliver"
        for c in self.controllers.values():
            if c.running and not c.quiet():
                return f"controller {c.name} of {self.name} has work"
        return None

    def failed(self) -> list[tuple[str, BaseException]]:
        """Informers and controllers whose task ended with an exception (they run until cancelled)."""
        out = self.informers.failed()
        out.extend((f"controller {n}", e) for n, t in self._tasks.items() if (e := t.exception()) is not None)
        if self.failure is not None and not any(e is self.failure for _, e in out):
            out.append((f"manager {self.name}", self.failure))
        return out

    def next_retry(self) -> float | None:
        """When the earliest retry or requeue_after of any controller comes due, or None."""
        times = [t for c in self.controllers.values() if c.running and (t := c.next_retry()) is not None]
        return min(times, default=None)

    async def wait_for_cache_sync(self, timeout: float | None = None) -> bool:  # noqa: ASYNC109 - cluster clock
        """Wait until every informer has synced; False if ``timeout`` (cluster seconds) passes first."""
        synced = await self.informers.wait_for_cache_sync(timeout=timeout)
        return all(synced.values())

    def health(self) -> ManagerHealth:
        """Per-controller error counts and last errors, and the manager's own failure."""
        return ManagerHealth(
            name=self.name, started=self._started, leader=self.is_leader(),
            failure=f"{type(self.failure).__name__}: {self.failure}" if self.failure is not None else None,
            controllers={n: c.health() for n, c in self.controllers.items()},
        )

    async def _stop_tasks(self) -> None:
        self._stopping = True
        if self._broadcaster_task is not None:
            await self._broadcaster_task.stop()
            self._broadcaster_task = None
        if self._elector_task is not None:
            await self._elector_task.stop()
            self._elector_task = None
        tasks = list(self._tasks.values())
        self._tasks.clear()
        for t in tasks:
            t.cancel()
        for t in tasks:
            await t.wait()

    async def stop(self) -> None:
        """Stop every controller and informer and wait for them. Raises the exception the manager died of,
        if it died (a ``recover_panic=False`` controller's reconcile error, a failed informer)."""
        await self._stop_tasks()
        await self._supervisor.close(raise_failure=False)
        if self._own_informers:
            await self.informers.shutdown(raise_failure=False)
        self._started = False
        if self.failure is not None:
            self._failure_reported = True
            raise self.failure

    # --- fault injection ---
    async def crash_controller(self, name: str) -> None:
        """Stop one controller, losing its queue, backoff and (for factories) reconciler state."""
        t = self._tasks.pop(name, None)
        if t is not None:
            await t.stop()
        factory = self._factories.get(name)
        if factory is not None:
            self.controllers[name].set_reconciler(factory())

    def restart_controller(self, name: str) -> None:
        """Start a controller stopped by :meth:`crash_controller` again (from an empty queue)."""
        if self.failure is not None:
            raise RuntimeError(f"manager {self.name!r} has failed: {self.failure!r}") from self.failure
        self._start_controller(self.controllers[name])

    async def crash(self) -> None:
        """Everything in memory is gone: controllers, queues, informer caches (and the lease is not renewed).

        New informers replace the old ones first, then reconcilers given as factories are rebuilt, so they
        capture the new caches. Controllers that captured informers some other way must be rebuilt by
        their owner (the cluster restarts its built-in controllers through ``kcm``)."""
        await self._stop_tasks()
        if self._own_informers:
            await self.informers.shutdown()
            self.informers = SharedInformerFactory(self.client, clock=self.clock, rng=self.rng,
                                                   perturber=self.perturber)
            self._watch_factory(self.informers)
            for c in self.controllers.values():
                for w in c._watches:
                    w.informer = self.informers.informer_for(w.informer.resource)
        for name, factory in self._factories.items():
            self.controllers[name].set_reconciler(factory())
        self.elector = None
        self._started = False
        self._crashed = True

    async def restart(self) -> None:
        """Start again after :meth:`crash` (relisting everything, as a restarted process would); with a
        :attr:`rebuild` hook the controllers are first built again from scratch."""
        if self._crashed and self.rebuild is not None:
            self.controllers.clear()
            self._factories.clear()
            self.rebuild(self)
        self._crashed = False
        await self.start()


def _adopt(mgr: Manager) -> None:
    """Tell the running cluster (if any, through the current error log) about a started manager."""
    sink = current_error_log.get()
    if sink is not None:
        sink.attach(mgr)
