"""The controller manager: shared informers plus controllers, started and stopped together.

Shaped like controller-runtime's ``manager.Manager`` and its builder::

    mgr = Manager(cluster.client, clock=cluster.clock, rng=cluster.rng)
    (mgr.controller("web")
        .for_(Deployment)                       # primary resource: reconcile the object itself
        .owns(ReplicaSet)                       # owned objects map to their controller owner
        .watches(Node, map_fn)                  # anything else, through a map function
        .with_event_filter(GenerationChangedPredicate())
        .complete(reconciler))                  # a Reconciler, an async function, or a factory
    task = asyncio.ensure_future(mgr.start())   # informers, cache sync, then every controller

Guarantees:
- One informer per resource, shared by every controller of the manager.
- Controllers start only after their caches sync; :meth:`stop` cancels everything and waits.
- With ``leader_election`` the controllers run only while this manager holds the Lease (client-go
  leader election: 15 s lease, 10 s renew deadline, 2 s retry period by default); losing it stops them.
- :meth:`crash` drops every controller's in-memory state and the informer caches, as a process crash
  would; :meth:`restart` starts afresh from the API alone. Reconcilers given as factories are rebuilt
  so their private state is lost too.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable, Iterable
from typing import Any

from kubelite.client import Client
from kubelite.clock import Clock
from kubelite.controllers.controller import Controller
from kubelite.controllers.handler import (
    EnqueueRequestForObject,
    EnqueueRequestForOwner,
    EnqueueRequestsFromMapFunc,
    EventHandler,
)
from kubelite.controllers.predicate import Predicate
from kubelite.controllers.reconcile import Reconciler, Request
from kubelite.informer import SharedInformerFactory
from kubelite.leaderelection import LeaderElectionConfig, LeaderElector, LeaseLock
from kubelite.perturb import Perturber

__all__ = ["Builder", "Manager"]


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
        self._filters: tuple[Predicate, ...] = ()
        self._workers = 1

    def for_(self, resource: Any, *predicates: Predicate) -> Builder:
        self._for = resource
        self._for_preds = predicates
        return self

    def owns(self, resource: Any, *predicates: Predicate) -> Builder:
        self._owns.append((resource, predicates))
        return self

    def watches(
        self, resource: Any, handler: EventHandler | Callable[[Any], Iterable[Request]], *predicates: Predicate,
    ) -> Builder:
        h: EventHandler = handler if hasattr(handler, "create") else EnqueueRequestsFromMapFunc(handler)  # type: ignore[assignment]
        self._watches.append((resource, h, predicates))
        return self

    def with_event_filter(self, *predicates: Predicate) -> Builder:
        self._filters = (*self._filters, *predicates)
        return self

    def with_max_concurrent_reconciles(self, n: int) -> Builder:
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
        m.add(ctrl, factory=factory)
        return ctrl


def _is_factory(obj: Any) -> bool:
    """A class, or a zero-argument callable that is neither a reconciler nor an async reconcile function."""
    if isinstance(obj, type):
        return True
    if hasattr(obj, "reconcile") or asyncio.iscoroutinefunction(obj):
        return False
    return callable(obj)


class Manager:
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
        self._elector_task: asyncio.Task[None] | None = None
        self.controllers: dict[str, Controller] = {}
        self._factories: dict[str, Callable[[], Any]] = {}
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._started = False

    def controller(self, name: str) -> Builder:
        return Builder(self, name)

    def add(self, controller: Controller, *, factory: Callable[[], Any] | None = None) -> None:
        if controller.name in self.controllers:
            raise ValueError(f"a controller named {controller.name!r} already exists")
        self.controllers[controller.name] = controller
        if factory is not None:
            self._factories[controller.name] = factory
        if self._started:
            self._start_controller(controller)

    def _start_controller(self, c: Controller) -> None:
        self._tasks[c.name] = asyncio.get_running_loop().create_task(c.run(), name=f"controller-{c.name}")

    async def start(self) -> None:
        """Start informers and controllers (or the leader election that will start them); returns at once."""
        if self._started:
            return
        self._started = True
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
        self._elector_task = asyncio.get_running_loop().create_task(self.elector.run(), name=f"{self.name}-elector")

    def _start_all(self) -> None:
        for c in self.controllers.values():
            if c.name not in self._tasks:
                self._start_controller(c)

    def is_leader(self) -> bool:
        return self.elector.is_leader() if self.elector is not None else self._started

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
        out.extend((f"controller {n}", t.exception()) for n, t in self._tasks.items()  # type: ignore[misc]
                   if t.done() and not t.cancelled() and t.exception() is not None)
        return out

    def next_retry(self) -> float | None:
        """When the earliest retry or requeue_after of any controller comes due, or None."""
        times = [t for c in self.controllers.values() if c.running and (t := c.next_retry()) is not None]
        return min(times, default=None)

    async def wait_for_cache_sync(self, timeout: float | None = None) -> bool:  # noqa: ASYNC109 - cluster clock
        synced = await self.informers.wait_for_cache_sync(timeout=timeout)
        return all(synced.values())

    async def stop(self) -> None:
        if self._elector_task is not None:
            self._elector_task.cancel()
            await asyncio.gather(self._elector_task, return_exceptions=True)
            self._elector_task = None
        tasks = list(self._tasks.values())
        self._tasks.clear()
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        if self._own_informers:
            await self.informers.shutdown()
        self._started = False

    # --- fault injection ---
    async def crash_controller(self, name: str) -> None:
        """Stop one controller, losing its queue, backoff and (for factories) reconciler state."""
        t = self._tasks.pop(name, None)
        if t is not None:
            t.cancel()
            await asyncio.gather(t, return_exceptions=True)
        factory = self._factories.get(name)
        if factory is not None:
            self.controllers[name].set_reconciler(factory())

    def restart_controller(self, name: str) -> None:
        self._start_controller(self.controllers[name])

    async def crash(self) -> None:
        """Everything in memory is gone: controllers, queues, informer caches (and the lease is not renewed).

        New informers replace the old ones first, then reconcilers given as factories are rebuilt, so they
        capture the new caches. Controllers that captured informers some other way must be rebuilt by
        their owner (the cluster restarts its built-in controllers through ``kcm``)."""
        if self._elector_task is not None:
            self._elector_task.cancel()
            await asyncio.gather(self._elector_task, return_exceptions=True)
            self._elector_task = None
        for name in list(self._tasks):
            t = self._tasks.pop(name)
            t.cancel()
            await asyncio.gather(t, return_exceptions=True)
        if self._own_informers:
            await self.informers.shutdown()
            self.informers = SharedInformerFactory(self.client, clock=self.clock, rng=self.rng,
                                                   perturber=self.perturber)
            for c in self.controllers.values():
                for w in c._watches:
                    w.informer = self.informers.informer_for(w.informer.resource)
        for name, factory in self._factories.items():
            self.controllers[name].set_reconciler(factory())
        self._started = False

    async def restart(self) -> None:
        await self.start()
