"""SharedIndexInformer: one watch, one indexed cache, many handlers; client-go
``tools/cache/shared_informer.go``.

Guarantees (upstream's, restated for asyncio):
- **The cache.** :meth:`SharedIndexInformer.get_indexer` is a local copy of the objects the reflector
  has seen: eventually (not instantly) consistent with the apiserver, and never ahead of it. Each
  object in it is the state at some revision the server really had. The cache is written only by
  the informer, before any handler is told about the change.
- **Notifications.** Every handler sees, for each object, a sequence of ``on_add``/``on_update``/
  ``on_delete`` that brings it from the previous state it was told about to the current one; it may
  not see every intermediate state (changes queued together are still delivered one by one, but a
  relist replaces whatever was missed with one update or a tombstone delete). Handlers are called
  one notification at a time, each handler in its own task with its own unbounded buffer: a slow
  handler never delays the informer or another handler (see :mod:`kubelite.informer.processor`).
- **Shared objects.** Handlers and listers receive the cache's own objects. **They must not mutate
  them**: copy before changing anything. Mutating one corrupts the cache for every other reader. An
  informer whose client shares decodes (the cluster's own components: ``Client.sharing_decodes``)
  shares each object with every other such informer as well (one decode per event for all of them,
  :mod:`kubelite.api.views`; the cluster checks on exit that none was mutated); any other informer
  decodes its own copies, so a user's handler cannot reach the control plane's caches.
- **Resync.** A handler registered with a resync period gets ``on_update(obj, obj)`` for every cached
  object about that often (no more often than the informer's check period, at least 1 s apart).
- **Sync.** :meth:`has_synced` becomes true once the initial list has been fully delivered to the
  cache (and queued to handlers); a registration's ``has_synced()`` waits until that handler has
  also returned from every initial ``on_add``. :func:`wait_for_cache_sync` is event-driven for
  informers and registrations (the informer wakes its waiters when either changes), so a controller
  starts reconciling in the same instant of cluster time as its caches sync: ``await cluster.settle()``
  after starting it is enough (upstream polls every 100 ms, which only plain callables still do).

Mechanics: :meth:`run` builds a DeltaFIFO (``known_objects`` = the indexer, ``Replaced`` deltas) fed
by a Reflector, and a controller loop drains it into :meth:`SharedIndexInformer._process_keyed`: upstream's
``processDeltas`` plus ``OnAdd``/``OnUpdate``/``OnDelete`` and ``distribute`` in one function, using the
key the FIFO computed when the change was queued (the FIFO and the cache share one key function,
specialised once for the resource's object type by :func:`~kubelite.informer.store.key_func_for`).
Per change it writes the cache once and appends one notification tuple to each listener's buffer.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from typing import Any

from kubelite.client import Client
from kubelite.clock import Clock
from kubelite.informer.controller import Controller, process_deltas
from kubelite.informer.delta_fifo import DeltaFIFO, Deltas, DeltaType, RawDeltas
from kubelite.informer.handlers import ResourceEventHandler
from kubelite.informer.index import Indexers
from kubelite.informer.meta import resource_version_of
from kubelite.informer.processor import (
    ADD,
    DELETE,
    MINIMUM_RESYNC_PERIOD,
    UPDATE,
    Notification,
    ProcessorListener,
    SharedProcessor,
    determine_resync_period,
)
from kubelite.informer.reflector import MIN_WATCH_TIMEOUT, Reflector
from kubelite.informer.store import Indexer, key_func_for
from kubelite.perturb import Perturber

__all__ = ["Registration", "SharedIndexInformer", "wait_for_cache_sync"]

#: A handler registration (upstream ``ResourceEventHandlerRegistration``): has ``has_synced()``.
Registration = ProcessorListener

#: upstream ``syncedPollPeriod``.
SYNCED_POLL_PERIOD = 0.1

_DELETED = DeltaType.DELETED


def _same_resource_version(old: Any, new: Any) -> bool:
    """Whether an update is a resync (upstream ``OnUpdate``'s ``isSync``): equal resourceVersions."""
    if old is new:
        return True
    if isinstance(new, dict) or isinstance(old, dict):
        return resource_version_of(old) == resource_version_of(new)
    mo, mn = old.metadata, new.metadata
    if mo is None or mn is None:
        return resource_version_of(old) == resource_version_of(new)
    return bool((mo.resource_version or "") == (mn.resource_version or ""))


class _Distributor:
    """The informer's own handler for ``process_deltas``: turns cache changes into notifications."""

    __slots__ = ("_distribute",)

    def __init__(self, processor: SharedProcessor) -> None:
        self._distribute = processor.distribute

    def on_add(self, obj: Any, is_in_initial_list: bool) -> None:
        self._distribute((ADD, obj, is_in_initial_list), False)

    def on_update(self, old: Any, new: Any) -> None:
        # Same resourceVersion: a resync or an unchanged relisted object, only for handlers resyncing now.
        self._distribute((UPDATE, old, new), _same_resource_version(old, new))

    def on_delete(self, obj: Any) -> None:
        self._distribute((DELETE, obj, None), False)


class SharedIndexInformer:
    """See the module docstring. Build one directly or through ``SharedInformerFactory``."""

    def __init__(
        self, client: Client, resource: Any, *, clock: Clock, rng: random.Random, namespace: str | None = None,
        labels: str | dict[str, Any] | None = None, fields: str | dict[str, str] | None = None,
        resync: float = 0.0, indexers: Indexers | None = None, name: str = "", page_size: int | None = None,
        use_watch_list: bool = False, min_watch_timeout: float = MIN_WATCH_TIMEOUT,
        perturber: Perturber | None = None,
    ) -> None:
        self.client = client
        self.perturber = perturber
        self.resource = resource
        self.clock = clock
        self.rng = rng
        self.namespace = namespace
        self.labels = labels
        self.fields = fields
        self.name = name or (resource if isinstance(resource, str) else getattr(resource, "__name__", "?"))
        self.page_size = page_size
        self.use_watch_list = use_watch_list
        self.min_watch_timeout = min_watch_timeout
        self.resync_check_period = resync
        self.default_event_handler_resync_period = resync
        self._key_func = key_func_for(resource)
        self._indexer = Indexer(self._key_func, indexers)
        self._processor = SharedProcessor(clock=clock)
        self._distributor = _Distributor(self._processor)
        # what _process_keyed touches per change (both objects live as long as the informer)
        self._store = self._indexer.thread_safe_store
        self._listeners = self._processor.listeners
        self._controller: Controller | None = None
        self._fifo: DeltaFIFO | None = None
        self._started = False
        self._stopped = False
        self._sync_waiters: list[asyncio.Future[None]] = []

    def __repr__(self) -> str:
        return f"<SharedIndexInformer {self.name}>"

    # --- state ---
    def has_started(self) -> bool:
        """Whether :meth:`run` has started."""
        return self._started

    def is_stopped(self) -> bool:
        """Whether :meth:`run` has ended."""
        return self._stopped

    def has_synced(self) -> bool:
        """Whether the initial list is in the cache (upstream ``HasSynced``)."""
        c = self._controller
        return c is not None and c.has_synced()

    def _notify_sync(self) -> None:
        """Wake :func:`wait_for_cache_sync` callers (the cache or a registration may have synced)."""
        waiters = self._sync_waiters
        if waiters:
            self._sync_waiters = []
            for f in waiters:
                if not f.done():
                    f.set_result(None)

    async def _sync_changed(self) -> None:
        """Wait until the sync state of this informer or one of its registrations may have changed."""
        f = asyncio.get_running_loop().create_future()
        self._sync_waiters.append(f)
        await f

    def pending(self) -> int:
        """Changes not yet in the cache plus notifications not yet handled (0 when caught up)."""
        fifo = self._fifo
        return (len(fifo) if fifo is not None else 0) + sum(lst.pending for lst in self._listeners)

    def last_sync_resource_version(self) -> str:
        """The resourceVersion of the last list or watch event the cache reflects."""
        c = self._controller
        return c.last_sync_resource_version() if c is not None else ""

    @property
    def reflector(self) -> Reflector | None:
        """The running reflector (its counters are useful in tests), None before :meth:`run`."""
        return self._controller.reflector if self._controller is not None else None

    def get_indexer(self) -> Indexer:
        """The cache. Read it; never write to it or mutate its objects."""
        return self._indexer

    get_store = get_indexer

    def add_indexers(self, indexers: Indexers) -> None:
        """Add index functions (the existing objects are indexed at once)."""
        if self._stopped:
            raise RuntimeError("indexer was not added because it has stopped already")
        self._indexer.add_indexers(indexers)

    # --- handlers ---
    def add_event_handler(self, handler: ResourceEventHandler, resync_period: float | None = None) -> Registration:
        """Register ``handler``; it first gets ``on_add(obj, True)`` for every object already cached.
        ``resync_period`` defaults to the informer's; see upstream ``AddEventHandlerWithResyncPeriod``
        for how it is clamped."""
        if self._stopped:
            raise RuntimeError(f"handler {handler!r} was not added to shared informer because it has stopped already")
        period = self.default_event_handler_resync_period if resync_period is None else resync_period
        if period > 0:
            period = max(period, MINIMUM_RESYNC_PERIOD)
            if period < self.resync_check_period:
                if self._started:
                    period = self.resync_check_period
                else:
                    self.resync_check_period = period
                    self._processor.resync_check_period_changed(period)
        listener = ProcessorListener(
            handler, requested_resync_period=period,
            resync_period=determine_resync_period(period, self.resync_check_period), now=self.clock.now(),
            upstream_has_synced=self.has_synced, clock=self.clock, notify_sync=self._notify_sync,
        )
        listener.owner = self
        self._processor.add_listener(listener)
        if self._started:
            for obj in self._indexer.list():
                listener.add((ADD, obj, True))
        return listener

    def remove_event_handler(self, registration: Registration) -> None:
        """Stop delivering to a handler (buffered notifications are dropped). Unknown: no-op."""
        self._processor.remove_listener(registration)

    # --- running ---
    def _handle_deltas(self, deltas: Deltas, is_in_initial_list: bool) -> None:
        process_deltas(self._distributor, self._indexer, deltas, is_in_initial_list)

    def _process_keyed(self, key: str, deltas: RawDeltas, is_in_initial_list: bool) -> None:
        """:meth:`_handle_deltas` with the FIFO's key (see the module docstring). Hot path: one cache write
        and one notification tuple per change, no per-change records or key recomputation."""
        store = self._store
        listeners = self._listeners
        i, end = 0, len(deltas)
        while i < end:  # deltas is flat: type, object, type, object, ...
            typ = deltas[i]
            obj = deltas[i + 1]
            i += 2
            if typ is _DELETED:
                store.delete(key)
                n: Notification = (DELETE, obj, None)
                for listener in listeners:
                    listener.add(n)
                continue
            old = store.update(key, obj)
            if old is None:
                n = (ADD, obj, is_in_initial_list)
                for listener in listeners:
                    listener.add(n)
            elif _same_resource_version(old, obj):
                # a resync or an unchanged relisted object: only for the handlers resyncing now
                n = (UPDATE, old, obj)
                for listener, syncing in listeners.items():
                    if syncing:
                        listener.add(n)
            else:
                n = (UPDATE, old, obj)
                for listener in listeners:
                    listener.add(n)

    async def run(self) -> None:
        """Run until cancelled: list, watch, keep the cache and deliver notifications. Once only."""
        if self._started:
            raise RuntimeError(f"{self!r} has already been started; run it only once")
        fifo = DeltaFIFO(key_func=self._key_func, known_objects=self._indexer, emit_delta_type_replaced=True)
        fifo.on_synced = self._notify_sync
        reflector = Reflector(
            self.client, self.resource, fifo, clock=self.clock, rng=self.rng, namespace=self.namespace,
            labels=self.labels, fields=self.fields, resync_period=self.resync_check_period, name=self.name,
            page_size=self.page_size, use_watch_list=self.use_watch_list,
            should_resync=self._processor.should_resync, min_watch_timeout=self.min_watch_timeout,
            perturber=self.perturber,
        )
        self._fifo = fifo
        self._controller = Controller(fifo, reflector, self._handle_deltas, keyed_process=self._process_keyed,
                                      on_drained=self._notify_sync)
        self._started = True
        self._processor.start()
        try:
            await self._controller.run()
        finally:
            self._stopped = True
            self._notify_sync()
            await self._processor.stop()


async def wait_for_cache_sync(
    *informers_or_has_synced: SharedIndexInformer | Registration | Callable[[], bool], clock: Clock,
    timeout: float | None = None,  # noqa: ASYNC109 - cluster-clock time; asyncio.timeout would be wall time
) -> bool:
    """Wait until every informer, registration or ``has_synced`` callable reports synced: True; False if
    ``timeout`` (clock seconds) passes first (upstream ``WaitForCacheSync``). Informers and registrations
    wake the waiter when they sync; plain callables are polled every 100 ms of clock time, as upstream."""
    items = list(informers_or_has_synced)

    def synced(x: SharedIndexInformer | Registration | Callable[[], bool]) -> bool:
        return x.has_synced() if isinstance(x, SharedIndexInformer | ProcessorListener) else x()

    def informer_of(x: SharedIndexInformer | Registration | Callable[[], bool]) -> SharedIndexInformer | None:
        if isinstance(x, SharedIndexInformer):
            return x
        if isinstance(x, ProcessorListener) and isinstance(x.owner, SharedIndexInformer):
            return x.owner
        return None

    async def wait_all() -> None:
        while True:
            pending = [x for x in items if not synced(x)]
            if not pending:
                return
            informer = informer_of(pending[0])
            if informer is not None and not informer.is_stopped():
                await informer._sync_changed()
            else:
                await clock.sleep(SYNCED_POLL_PERIOD)

    if timeout is None:
        await wait_all()
        return True
    with clock.move_on_after(timeout):
        await wait_all()
        return True
    return all(synced(x) for x in items)
