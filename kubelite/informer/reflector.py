"""Reflector: keeps a Store in step with the apiserver by list-then-watch; client-go ``tools/cache/reflector.go``.

Contract:
- **Consistent start.** :meth:`Reflector.list_and_watch` lists every matching object (paginated,
  every page at the first page's revision) and hands the whole set to ``store.replace(items, rv)``,
  then watches from exactly that revision, so no change between the list and the watch is lost. With
  ``use_watch_list`` it asks for the list as a watch stream instead (``sendInitialEvents=true``) and
  replaces the store when the ``k8s.io/initial-events-end`` bookmark arrives, falling back to a
  list if that fails.
- **Every change once, in order.** Watch events become ``store.add``/``update``/``delete`` in revision
  order; after each event (bookmarks too) :meth:`last_sync_resource_version` is its revision.
- **Closed watches resume.** When the server ends a watch (its ``timeoutSeconds`` ran out, the
  watcher fell too far behind, a fault closed it) the reflector re-watches from the last revision it
  saw, without relisting: events that happened in the gap are replayed by the server.
- **410 relists.** If the server has compacted that revision (``Expired``), the reflector backs off
  and relists; the store's ``replace`` turns objects that vanished meanwhile into tombstones.
- **Errors back off.** Any other :class:`~kubelite.errors.ApiError` ends the attempt; the reflector
  waits (exponential backoff: 800 ms doubling to 30 s, jitter 1.0, reset every 2 minutes) and starts
  over with a list. A 429 on opening a watch backs off and re-watches without relisting. Other
  exceptions are bugs and propagate out of :meth:`run`.
- **Undecodable objects are skipped.** An object the typed decoder rejects (listed or watched) is
  logged (``list_item_undecodable``/``watch_event_undecodable``), counted in ``undecodable`` and
  skipped; the informer keeps serving every other object.
- **Watches rotate.** Each watch asks for a random ``timeoutSeconds`` in [5 min, 10 min) (upstream
  ``minWatchTimeout``), so long runs spread re-watches over virtual time.
- **Resync.** While watching, every ``resync_period`` seconds (0: never) ``store.resync()`` is called
  if ``should_resync()`` (default: always) says so.

All waiting is on ``clock``; all randomness comes from ``rng``. Counters (``lists``, ``watches``,
``relists_after_expired``, ``errors``, ``resyncs``) are plain ints for tests and diagnostics.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any, Protocol

import msgspec

from kubelite.client import Client, WatchStream
from kubelite.clock import Clock, TimerHandle
from kubelite.errors import (
    ApiError,
    Expired,
    InternalError,
    ServerTimeout,
    Status,
    TooManyRequests,
    error_from_status,
)
from kubelite.informer.backoff import BackoffManager
from kubelite.informer.meta import annotations_of
from kubelite.informer.store import meta_namespace_key_func
from kubelite.logs import get_logger
from kubelite.perturb import Perturber

__all__ = ["DEFAULT_PAGE_SIZE", "MIN_WATCH_TIMEOUT", "Reflector", "ReflectorStore"]

log = get_logger("kubelite.informer")

#: upstream ``defaultMinWatchTimeout``: watches last a random time in [this, 2 * this).
MIN_WATCH_TIMEOUT = 300.0
#: The pager's default page size (upstream ``tools/pager`` ``defaultPageSize``).
DEFAULT_PAGE_SIZE = 500
_INITIAL_EVENTS_END = "k8s.io/initial-events-end"

_ADDED, _MODIFIED, _DELETED, _BOOKMARK = "ADDED", "MODIFIED", "DELETED", "BOOKMARK"
_CHANGES = (_ADDED, _MODIFIED, _DELETED)


class ReflectorStore(Protocol):
    """What the reflector writes to (a DeltaFIFO, or any Store)."""

    def add(self, obj: Any) -> None: ...

    def update(self, obj: Any) -> None: ...

    def delete(self, obj: Any) -> None: ...

    def replace(self, items: list[Any], resource_version: str) -> None: ...

    def resync(self) -> None: ...


def _is_too_large_rv(err: ApiError) -> bool:
    """upstream ``isTooLargeResourceVersionError``."""
    if not isinstance(err, ServerTimeout):
        return False
    return any(c.reason == "ResourceVersionTooLarge" for c in err.causes) or (
        "Too large resource version" in err.message
    )


class Reflector:
    """See the module docstring."""

    def __init__(
        self, client: Client, resource: Any, store: ReflectorStore, *, clock: Clock, rng: random.Random,
        namespace: str | None = None, labels: str | dict[str, Any] | None = None,
        fields: str | dict[str, str] | None = None, resync_period: float = 0.0, name: str = "",
        page_size: int | None = None, use_watch_list: bool = False,
        should_resync: Callable[[], bool] | None = None, backoff: BackoffManager | None = None,
        min_watch_timeout: float = MIN_WATCH_TIMEOUT, perturber: Perturber | None = None,
    ) -> None:
        self.client = client
        self.resource = resource
        self.store = store
        self.clock = clock
        self.rng = rng
        self.namespace = namespace
        self.labels = labels
        self.fields = fields
        self.resync_period = resync_period
        self.name = name or (resource if isinstance(resource, str) else getattr(resource, "__name__", "?"))
        self.page_size = page_size if page_size is not None else DEFAULT_PAGE_SIZE
        self.use_watch_list = use_watch_list
        self.should_resync = should_resync
        self.backoff = backoff if backoff is not None else BackoffManager.reflector_default(clock=clock, rng=rng)
        # upstream: a minimum above the default raises the maximum with it; never below the default
        self.min_watch_timeout = max(min_watch_timeout, MIN_WATCH_TIMEOUT)
        # the ``watch`` perturbation point (kubelite.perturb); None: the plain hot path
        self.perturber = perturber
        self.site = f"{client.user.name}/{self.name}"
        self._last_sync_rv = ""
        # The last list or watch at _last_sync_rv got 410/too large: relist from the latest revision.
        self._last_sync_rv_unavailable = False
        self._relist_after_expired = False
        self._resync_handle: TimerHandle | None = None
        self.lists = 0
        self.undecodable = 0  # objects skipped because the typed decoder rejected them
        self.watches = 0
        self.relists_after_expired = 0
        self.errors = 0
        self.resyncs = 0
        self.last_error: ApiError | None = None

    # --- resource versions ---
    def last_sync_resource_version(self) -> str:
        """The revision of the last list or watch event (bookmarks included) applied to the store."""
        return self._last_sync_rv

    def _relist_resource_version(self) -> str:
        """upstream ``relistResourceVersion``: "" after a 410 (latest, consistent), "0" at first (any),
        else the last revision seen (not older than what we already have)."""
        if self._last_sync_rv_unavailable:
            return ""
        return self._last_sync_rv or "0"

    def _rewatch_resource_version(self) -> str:
        return "" if self._last_sync_rv_unavailable else self._last_sync_rv

    def _watch_timeout(self) -> int:
        lo = self.min_watch_timeout
        return int(lo + self.rng.random() * lo)

    # --- the loop ---
    async def run(self) -> None:
        """ListAndWatch forever, backing off between attempts (upstream ``Reflector.Run``). Cancel to stop."""
        while True:
            try:
                await self.list_and_watch()
            except ApiError as err:
                self._note_error(err)
            await self.clock.sleep(self.backoff.step())

    def _note_error(self, err: ApiError) -> None:
        self.errors += 1
        self.last_error = err
        if isinstance(err, Expired):
            # upstream DefaultWatchErrorHandler: the next list asks for "not older than" our revision.
            self._relist_after_expired = True
            log.debug("watch_closed", reflector=self.name, error=err.message)
        else:
            log.warning("list_and_watch_failed", reflector=self.name, error=repr(err))

    async def list_and_watch(self) -> None:
        """One attempt: list (or watch-list), then watch until an error ends it. Raises ApiError."""
        stream: WatchStream | None = None
        if self.use_watch_list:
            try:
                stream = await self._watch_list()
            except ApiError as err:
                log.debug("watch_list_fallback", reflector=self.name, error=repr(err))
                stream = None
        if stream is None:
            await self._list()
        self._start_resync()
        try:
            await self._watch(stream)
        finally:
            self._stop_resync()

    # --- list ---
    async def _list(self) -> None:
        self.lists += 1
        try:
            items, rv = await self._list_all(self._relist_resource_version())
        except ApiError as err:
            if not (isinstance(err, Expired) or _is_too_large_rv(err)):
                raise
            # upstream: retry at once against the latest revision (a consistent read).
            self._last_sync_rv_unavailable = True
            items, rv = await self._list_all(self._relist_resource_version())
        self._sync_with(items, rv)

    def _sync_with(self, items: list[Any], rv: str) -> None:
        self._last_sync_rv_unavailable = False
        if self._relist_after_expired:
            self._relist_after_expired = False
            self.relists_after_expired += 1
        self.store.replace(items, rv)
        self._last_sync_rv = rv

    def _scope(self) -> dict[str, Any]:
        # shared: an informer's reads get the shared read-only views when its client shares decodes
        # (kubelite.api.views; upstream's shared informers also hand every handler the cached object)
        if self.namespace:
            return {"namespace": self.namespace, "labels": self.labels, "fields": self.fields, "shared": True}
        return {"all_namespaces": True, "labels": self.labels, "fields": self.fields, "shared": True}

    async def _list_all(self, rv: str) -> tuple[list[Any], str]:
        """Every page of a list (upstream ``tools/pager``), falling back to one unpaged list if a
        continue token expires mid-way. An object the typed decoder rejects is logged and skipped, so one
        bad object cannot starve every consumer of the informer."""
        try:
            return await self._list_pages(rv, self.resource)
        except (msgspec.ValidationError, msgspec.DecodeError):
            pass
        raw, list_rv = await self._list_pages(rv, self.client._info(self.resource).group_resource)  # as dicts
        cls: Any = self.resource
        items = []
        for d in raw:
            try:
                items.append(msgspec.convert(d, cls))
            except msgspec.ValidationError as err:
                self.undecodable += 1
                log.error("list_item_undecodable", reflector=self.name, key=meta_namespace_key_func(d), error=str(err))
        return items, list_rv

    async def _list_pages(self, rv: str, res: Any) -> tuple[list[Any], str]:
        scope = self._scope()
        client = self.client
        page = await client.list_page(res, resource_version=rv or None, limit=self.page_size, **scope)
        items = list(page.items)
        list_rv = page.resource_version
        while page.continue_:
            try:
                page = await client.list_page(res, continue_=page.continue_, limit=self.page_size, **scope)
            except Expired:
                page = await client.list_page(res, **scope)
                return list(page.items), page.resource_version
            items.extend(page.items)
        return items, list_rv

    # --- watch ---
    async def _open_watch(self, rv: str, *, send_initial_events: bool | None = None) -> WatchStream:
        stream = await self.client.open_watch(
            self.resource, resource_version=rv or None, allow_bookmarks=True,
            send_initial_events=send_initial_events, timeout_seconds=self._watch_timeout(), **self._scope(),
        )
        self.watches += 1
        return stream

    async def _watch(self, stream: WatchStream | None) -> None:
        """Watch until an error (which propagates); a watch the server closed is reopened from the last
        revision seen (upstream ``Reflector.watch``)."""
        while True:
            if stream is None:
                try:
                    stream = await self._open_watch(self._last_sync_rv)
                except TooManyRequests as err:
                    self.errors += 1
                    self.last_error = err
                    await self.clock.sleep(self.backoff.step())
                    continue
            relist = False
            try:
                if self.perturber is None:
                    await self._handle_watch(stream)
                else:
                    relist = await self._handle_watch_perturbed(stream, self.perturber)
            finally:
                stream.stop()
            if relist:  # the perturber dropped the watch: relist, then watch again
                await self._list()
                stream = None
                continue
            if stream.close_reason != "timeout":  # a timeout is the normal rotation
                log.debug("watch_closed", reflector=self.name, reason=stream.close_reason)
            stream = None

    async def _handle_watch(self, stream: WatchStream) -> None:
        """Apply events to the store until the stream ends (upstream ``handleAnyWatch``). Hot path."""
        store = self.store
        add, update, delete = store.add, store.update, store.delete
        # Take every event already delivered with poll() and suspend (through the stream's iterator)
        # only when none is left: one await per batch instead of one async-generator step per event.
        # Mixing the two is safe: the iterator holds no event between steps.
        poll = stream.poll
        events = aiter(stream)
        while True:
            try:
                ev = poll()
                if ev is None:
                    ev = await anext(events, None)
                    if ev is None:
                        return
            except (msgspec.ValidationError, msgspec.DecodeError) as err:
                # an object the typed decoder rejects: skip it rather than let the informer die
                self.undecodable += 1
                log.error("watch_event_undecodable", reflector=self.name, error=str(err))
                continue
            typ, obj, rv = ev
            if typ == _MODIFIED:
                update(obj)
            elif typ == _ADDED:
                add(obj)
            elif typ == _DELETED:
                delete(obj)
            elif typ != _BOOKMARK:
                raise self._watch_error(obj)
            self._last_sync_rv = rv

    async def _handle_watch_perturbed(self, stream: WatchStream, p: Perturber) -> bool:
        """:meth:`_handle_watch` asking ``p`` before each event; True when it dropped the watch to relist.

        A delay sleeps before applying the event (the events behind it wait in order, as on a slow
        connection); a hold collects up to that many more events (at most one second) and applies them
        back to back; a relist drops the watch, waits out the gap (events meanwhile are missed, so
        deletions come back from the relist as tombstones) and lists again, at the last revision seen
        or, for ``expire``, at the latest one as after a compaction (410)."""
        store, clock, site = self.store, self.clock, self.site
        while True:
            ev = stream.poll()
            if ev is None:
                ev = await anext(aiter(stream), None)
                if ev is None:
                    return False
            batch = [ev]
            action = p.watch_event(site, f"{ev[0]} {meta_namespace_key_func(ev[1])}") if ev[0] in _CHANGES else None
            if action is not None:
                kind, amount = action
                with p.holding():
                    if kind == "delay":
                        await clock.sleep(amount)
                    elif kind == "hold":
                        with clock.move_on_after(1.0):
                            while len(batch) <= amount:
                                more = stream.poll() or await anext(aiter(stream), None)
                                if more is None:
                                    break
                                batch.append(more)
                    else:  # relist / expire
                        stream.stop()
                        await clock.sleep(amount)
                        if kind == "expire":
                            self._last_sync_rv_unavailable = True
                            self._relist_after_expired = True
                        return True
            for typ, obj, rv in batch:
                if typ == _MODIFIED:
                    store.update(obj)
                elif typ == _ADDED:
                    store.add(obj)
                elif typ == _DELETED:
                    store.delete(obj)
                elif typ != _BOOKMARK:
                    raise self._watch_error(obj)
                self._last_sync_rv = rv

    @staticmethod
    def _watch_error(obj: Any) -> ApiError:
        """An ERROR event carries a Status (upstream ``apierrors.FromObject``)."""
        try:
            status = msgspec.convert(obj if isinstance(obj, dict) else msgspec.to_builtins(obj), Status)
        except (msgspec.ValidationError, TypeError):
            return InternalError.make(f"unexpected watch event object: {obj!r}")
        return error_from_status(status)

    async def _watch_list(self) -> WatchStream:
        """List through a watch stream (``sendInitialEvents``): collect the initial events, replace the
        store at the ``initial-events-end`` bookmark, and return the still-open stream."""
        try:
            stream = await self._open_watch(self._rewatch_resource_version(), send_initial_events=True)
        except ApiError as err:
            if isinstance(err, Expired) or _is_too_large_rv(err):
                self._last_sync_rv_unavailable = True
            raise
        temp: dict[str, Any] = {}
        key = meta_namespace_key_func
        async for typ, obj, rv in stream:
            if typ in (_ADDED, _MODIFIED):
                temp[key(obj)] = obj
            elif typ == _DELETED:
                temp.pop(key(obj), None)
            elif typ == _BOOKMARK:
                annotations = annotations_of(obj)
                if annotations and annotations.get(_INITIAL_EVENTS_END) == "true":
                    self._sync_with(list(temp.values()), rv)
                    return stream
            else:
                stream.stop()
                raise self._watch_error(obj)
        stream.stop()
        raise InternalError.make(f"watch list for {self.name} ended before the initial-events-end bookmark "
                                 f"({stream.close_reason})")

    # --- resync ---
    def _start_resync(self) -> None:
        period = self.resync_period
        if period <= 0:
            return

        def fire() -> None:
            if self.should_resync is None or self.should_resync():
                self.resyncs += 1
                self.store.resync()
            self._resync_handle = self.clock.call_later(period, fire)

        self._resync_handle = self.clock.call_later(period, fire)

    def _stop_resync(self) -> None:
        if self._resync_handle is not None:
            self._resync_handle.cancel()
            self._resync_handle = None
