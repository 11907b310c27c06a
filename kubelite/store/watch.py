"""Watch channels: one bounded queue per watcher, filled synchronously by store writes.

Guarantees:
- Events reach a watcher in revision order, each exactly once, until the watcher is closed.
- Delivery never blocks a writer: a store write appends to the watcher's queue and returns. A watcher
  whose queue is full has fallen too far behind; it is closed with ``reason="too slow"`` instead of
  silently losing events (its client relists or re-watches from the last revision it saw, as a
  client-go Reflector does).
- A closed watcher yields the events it already holds and then ends.
- Events carry the stored bytes; each consumer decodes its own copy, so no watcher can corrupt the
  store or another watcher's view.
- One event object is shared by every watcher it is offered to unchanged, and it caches its own
  serializations (:meth:`WatchEvent.cache_encode`, upstream's ``cachingObject``): a watch event is encoded
  once per format and version however many watchers receive it.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import AsyncIterator, Callable, Hashable
from typing import Any, TypeVar

import msgspec

__all__ = ["ADDED", "BOOKMARK", "DELETED", "ERROR", "MODIFIED", "WatchEvent", "Watcher"]

ADDED = "ADDED"
MODIFIED = "MODIFIED"
DELETED = "DELETED"
BOOKMARK = "BOOKMARK"
ERROR = "ERROR"

_decoder = msgspec.json.Decoder()
_T = TypeVar("_T")


class WatchEvent:
    """One watch event: its type, the revision it happened at, and the object as JSON bytes.

    Immutable, so one instance is shared by every watcher that receives the same event; the serializations
    cached on it are immutable too (bytes, or converted events).
    """

    __slots__ = ("_serialized", "data", "rv", "type")

    def __init__(self, type: str, rv: int, data: bytes) -> None:
        self.type = type
        self.rv = rv
        self.data = data
        self._serialized: dict[Hashable, Any] | None = None

    def cache_encode(self, key: Hashable, encode: Callable[[WatchEvent], _T]) -> _T:
        """``encode(self)``, computed on the first call with ``key`` and shared by every later one.

        Upstream's ``cachingObject.CacheEncode`` (``k8s.io/apiserver/pkg/storage/cacher``): the cacher wraps
        each dispatched event's object so that every watcher served through the same encoder (the
        ``runtime.Identifier`` of its watch encoder: media type, version, Table options, event type) writes
        the bytes the first one produced. ``key`` plays the identifier: it must name everything the result
        depends on. The cache lives as long as the event, i.e. until every watcher it was offered to has
        taken it (upstream likewise drops the serializations after dispatch).
        """
        cache = self._serialized
        if cache is None:
            cache = self._serialized = {}
        elif key in cache:
            return cache[key]  # type: ignore[no-any-return]
        out = cache[key] = encode(self)
        return out

    @property
    def object(self) -> dict[str, Any]:
        """The object as a plain dict: a fresh copy on every access."""
        return _decoder.decode(self.data)  # type: ignore[no-any-return]

    def __repr__(self) -> str:
        return f"WatchEvent({self.type}, rv={self.rv})"


Predicate = Callable[[Any], bool]


class Watcher:
    """The receiving end of a watch. Iterate it (``async for ev in watcher``) or call :meth:`next`.

    Invariants: ``closed`` never goes back to False; after close no event is appended.
    """

    __slots__ = (
        "_on_close",
        "_waiter",
        "allow_bookmarks",
        "capacity",
        "close_reason",
        "closed",
        "namespace",
        "position",
        "predicate",
        "queue",
        "transform",
        "trigger",
    )

    def __init__(
        self,
        *,
        namespace: str | None,
        predicate: Predicate | None,
        capacity: int,
        allow_bookmarks: bool = False,
        trigger: str | None = None,
    ) -> None:
        self.namespace = namespace
        self.predicate = predicate
        self.capacity = capacity
        self.allow_bookmarks = allow_bookmarks
        # value of the table's trigger field this watcher is pinned to (e.g. a node name), if any
        self.trigger = trigger
        self.queue: deque[WatchEvent] = deque()
        self.closed = False
        self.close_reason = ""
        # revision of the last event queued (bookmarks included)
        self.position = 0
        self._waiter: asyncio.Future[None] | None = None
        self._on_close: Callable[[Watcher], None] | None = None
        # applied to each event as the consumer takes it (the apiserver's conversion to the watch's API
        # version); the queued events stay the store's shared ones
        self.transform: Callable[[WatchEvent], WatchEvent] | None = None

    # --- producer side (sync, called by the store) ---
    def push(self, event: WatchEvent) -> None:
        if self.closed:
            return
        if len(self.queue) >= self.capacity:
            self.close("too slow")
            return
        self.queue.append(event)
        self.position = event.rv
        w = self._waiter
        if w is not None and not w.done():
            w.set_result(None)

    def add_close_callback(self, fn: Callable[[Watcher], None]) -> None:
        """Run ``fn(watcher)`` when the watcher closes (after the callbacks added before it)."""
        prev = self._on_close
        if prev is None:
            self._on_close = fn
            return

        def both(w: Watcher) -> None:
            prev(w)
            fn(w)

        self._on_close = both

    def close(self, reason: str = "closed") -> None:
        if self.closed:
            return
        self.closed = True
        self.close_reason = reason
        if self._on_close is not None:
            self._on_close(self)
            self._on_close = None
        w = self._waiter
        if w is not None and not w.done():
            w.set_result(None)

    # --- consumer side ---
    def poll(self) -> WatchEvent | None:
        """The next queued event without waiting, or None."""
        if not self.queue:
            return None
        ev = self.queue.popleft()
        return ev if self.transform is None else self.transform(ev)

    def take(self, limit: int) -> list[WatchEvent]:
        """Up to ``limit`` queued events without waiting (in order; empty if none), for a consumer that writes
        them out together (the HTTP watch coalesces what is queued into one chunk, as upstream's watch server
        flushes only when its channel is empty)."""
        q = self.queue
        if len(q) <= limit:
            evs = list(q)
            q.clear()
        else:
            evs = [q.popleft() for _ in range(limit)]
        t = self.transform
        return evs if t is None else [t(ev) for ev in evs]

    async def next(self) -> WatchEvent | None:
        """The next event, waiting for one; None once the watcher is closed and drained."""
        while not self.queue:
            if self.closed:
                return None
            self._waiter = asyncio.get_running_loop().create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None
        ev = self.queue.popleft()
        return ev if self.transform is None else self.transform(ev)

    def __aiter__(self) -> AsyncIterator[WatchEvent]:
        return self._iter()

    async def _iter(self) -> AsyncIterator[WatchEvent]:
        while True:
            ev = await self.next()
            if ev is None:
                return
            yield ev

    def __enter__(self) -> Watcher:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close("stopped")
