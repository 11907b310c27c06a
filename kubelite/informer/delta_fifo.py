"""DeltaFIFO: a producer/consumer queue of per-object change lists; client-go ``tools/cache/delta_fifo.go``.

Contract (upstream's, restated):
- The Reflector produces (``add``/``update``/``delete``/``replace``/``resync``); one consumer calls
  :meth:`DeltaFIFO.pop`. Each key is queued at most once; its :data:`Deltas` accumulate every change
  since the consumer last saw it, oldest first, so the consumer processes each change at most once and
  always sees the whole history of an object since it last looked.
- Keys pop in the order they were first queued (FIFO); new changes to a queued key do not move it.
- Two consecutive ``Deleted`` deltas collapse into one, keeping the one with more information (a real
  object beats a :class:`DeletedFinalStateUnknown` tombstone).
- ``known_objects`` (the consumer's cache, the informer's Indexer) is what the consumer already has:
  ``delete`` of an object neither queued nor known is dropped (it was already reported), ``replace``
  emits a tombstone for every known or queued key missing from the new list, and ``resync`` queues a
  ``Sync`` delta for every known key not already queued.
- ``replace`` queues ``Replaced`` deltas when ``emit_delta_type_replaced`` is set (what informers use),
  ``Sync`` otherwise (upstream's backwards-compatible default).
- :meth:`has_synced` becomes true once the items of the first ``replace`` have all been popped, or at
  once if an add/update/delete came first; it never goes back to false.
- Sans-IO: every method is synchronous. The consumer learns that work arrived through the optional
  ``notify`` callback, called whenever a key joins the queue.

The objects inside deltas are shared with the consumer's cache; nobody may mutate them.

Two consumer interfaces. :meth:`DeltaFIFO.pop` is upstream's: one key at a time, its changes as
:class:`Delta` records. :meth:`DeltaFIFO.drain` is the informer's hot path: it pops every queued key
in one call and hands ``process`` the key (computed once, when the change was queued) and the queue's
own flat list ``[type0, object0, type1, object1, ...]``, so a change costs no record and no pair: with
thousands of changes queued at once, every container allocated per change lives until it is popped
and is traversed by each garbage collection meanwhile. Both give the same
order, the same ``is_in_initial_list`` and the same ``has_synced`` bookkeeping.
"""

from __future__ import annotations

import builtins
from collections import deque
from collections.abc import Callable, Iterable
from enum import StrEnum
from typing import Any, NamedTuple

from kubelite.informer.store import (
    DeletedFinalStateUnknown,
    KeyFunc,
    KeyListerGetter,
    meta_namespace_key_func,
)

__all__ = [
    "Delta",
    "DeltaFIFO",
    "DeltaType",
    "Deltas",
    "FIFOClosedError",
    "KeyedProcessFunc",
    "RawDeltas",
    "RequeueError",
]


class DeltaType(StrEnum):
    """The kinds of delta (upstream ``DeltaType``): Added, Updated, Deleted, Replaced, Sync."""
    ADDED = "Added"
    UPDATED = "Updated"
    DELETED = "Deleted"
    #: The object was in a relist; whether it changed is unknown.
    REPLACED = "Replaced"
    #: A synthetic periodic resync of an object the consumer already has.
    SYNC = "Sync"


class Delta(NamedTuple):
    """One change: its type and the object's state after it (before it, for a deletion)."""

    type: DeltaType
    object: Any


#: Changes to one object, oldest first; never empty while queued.
Deltas = list[Delta]
#: The queue's own form of Deltas, flat: ``[type0, object0, type1, object1, ...]``, oldest first.
RawDeltas = list[Any]

_ADDED, _UPDATED, _DELETED, _REPLACED, _SYNC = (
    DeltaType.ADDED, DeltaType.UPDATED, DeltaType.DELETED, DeltaType.REPLACED, DeltaType.SYNC,
)


class FIFOClosedError(Exception):
    """Raised by :meth:`DeltaFIFO.pop` on a closed, empty queue (upstream ``ErrFIFOClosed``)."""

    def __init__(self) -> None:
        super().__init__("DeltaFIFO: manipulating with closed queue")


class RequeueError(Exception):
    """Raise from a ``pop`` process function to put the item back (unless the key was queued again
    meanwhile); ``err``, if given, is then raised by ``pop`` (upstream ``ErrRequeue``)."""

    def __init__(self, err: BaseException | None = None) -> None:
        super().__init__(str(err) if err is not None else "requeue")
        self.err = err


PopProcessFunc = Callable[[Deltas, bool], None]
#: ``process(key, raw_deltas, is_in_initial_list)`` for :meth:`DeltaFIFO.drain`.
KeyedProcessFunc = Callable[[str, RawDeltas, bool], None]


def _as_deltas(raw: RawDeltas) -> Deltas:
    return [Delta(raw[i], raw[i + 1]) for i in range(0, len(raw), 2)]


class DeltaFIFO:
    """See the module docstring."""

    def __init__(
        self, *, key_func: KeyFunc = meta_namespace_key_func, known_objects: KeyListerGetter | None = None,
        emit_delta_type_replaced: bool = False, notify: Callable[[], None] | None = None,
    ) -> None:
        # Invariant: a key is in `_queue` iff it is in `_items`, and its Deltas are non-empty.
        self._items: dict[str, RawDeltas] = {}
        self._queue: deque[str] = deque()
        # True once the first replace() was queued, or an add/update/delete came first.
        self._populated = False
        # How many items of the first replace() have not been popped yet.
        self._initial_population_count = 0
        self._synced = False
        self._closed = False
        self.key_func = key_func
        self.known_objects = known_objects
        self.emit_delta_type_replaced = emit_delta_type_replaced
        self.notify = notify
        #: called once, when :meth:`has_synced` turns true (the informer wakes its sync waiters)
        self.on_synced: Callable[[], None] | None = None

    # --- keys ---
    def key_of(self, obj: Any) -> str:
        """The key of an object, a non-empty Deltas, or a tombstone."""
        if isinstance(obj, list):
            if not obj:
                raise ValueError("0 length Deltas object; can't get key")
            obj = obj[-1][1]
        if isinstance(obj, DeletedFinalStateUnknown):
            return obj.key
        return self.key_func(obj)

    # --- sync state ---
    def has_synced(self) -> bool:
        """Whether the first replace's items have all been popped (upstream ``HasSynced``)."""
        return self._synced

    def _check_synced(self) -> None:
        if not self._synced and self._populated and self._initial_population_count == 0:
            self._synced = True
            if self.on_synced is not None:
                self.on_synced()

    def _mark_populated(self) -> None:
        if not self._populated:
            self._populated = True
            self._check_synced()

    # --- producer side ---
    # add and update are the reflector's per-event calls: they inline _queue_action (ADDED and UPDATED
    # never collapse, so they only append) and compute the key exactly once.
    def add(self, obj: Any) -> None:
        """Queue an ``Added`` delta."""
        if not self._populated:
            self._mark_populated()
        key = self.key_func(obj)
        deltas = self._items.get(key)
        if deltas is not None:
            deltas += (_ADDED, obj)
            return
        self._items[key] = [_ADDED, obj]
        self._queue.append(key)
        if self.notify is not None:
            self.notify()

    def update(self, obj: Any) -> None:
        """Queue an ``Updated`` delta."""
        if not self._populated:
            self._mark_populated()
        key = self.key_func(obj)
        deltas = self._items.get(key)
        if deltas is not None:
            deltas += (_UPDATED, obj)
            return
        self._items[key] = [_UPDATED, obj]
        self._queue.append(key)
        if self.notify is not None:
            self.notify()

    def delete(self, obj: Any) -> None:
        """Queue a deletion, unless the object is neither queued nor known (already reported, e.g. by a
        relist's tombstone)."""
        key = self.key_of(obj)
        self._mark_populated()
        if key not in self._items:
            known = self.known_objects
            if known is None or known.get_by_key(key) is None:
                return
        self._queue_action(_DELETED, obj, key)

    def add_if_not_present(self, deltas: Deltas) -> None:
        """Put popped Deltas back, unless the key was queued again since (newer news wins)."""
        self._requeue(self.key_of(deltas), [x for d in deltas for x in d])

    def _requeue(self, key: str, raw: RawDeltas) -> None:
        self._populated = True
        if key in self._items:
            return
        self._items[key] = raw
        self._queue.append(key)
        if self.notify is not None:
            self.notify()

    def _queue_action(self, action: DeltaType, obj: Any, key: str) -> None:
        deltas = self._items.get(key)
        if deltas is None:
            self._items[key] = [action, obj]
            self._queue.append(key)
            if self.notify is not None:
                self.notify()
            return
        # dedupDeltas: of two consecutive deletions keep the one that knows more.
        if action is _DELETED and deltas[-2] is _DELETED:
            if isinstance(deltas[-1], DeletedFinalStateUnknown):
                deltas[-1] = obj
            return
        deltas += (action, obj)

    def replace(self, items: Iterable[Any], resource_version: str = "") -> None:
        """Queue ``Replaced`` (or ``Sync``) for every listed object, then a tombstone deletion for every
        queued or known key that is not in the list. ``resource_version`` is informational."""
        action = _REPLACED if self.emit_delta_type_replaced else _SYNC
        # Keys queued before this replace, in queue order: the only candidates for the deletions below
        # (every key queued by the loop is in `keys`), so a cold start with an empty queue skips them.
        queued_before = list(self._items) if self._items else []
        keys: set[str] = set()
        key_func, queue_action = self.key_func, self._queue_action
        for obj in items:
            key = obj.key if isinstance(obj, DeletedFinalStateUnknown) else key_func(obj)
            keys.add(key)
            queue_action(action, obj, key)

        queued_deletions = 0
        # Deletions among queued items (dict order: deterministic).
        for key in queued_before:
            if key in keys:
                continue
            last = self._items[key][-1]
            if isinstance(last, DeletedFinalStateUnknown):
                last = last.obj
            queued_deletions += 1
            self._queue_action(_DELETED, DeletedFinalStateUnknown(key, last), key)

        known = self.known_objects
        if known is not None:
            for key in known.list_keys():
                if key in keys or key in self._items:
                    continue
                queued_deletions += 1
                self._queue_action(_DELETED, DeletedFinalStateUnknown(key, known.get_by_key(key)), key)

        if not self._populated:
            self._populated = True
            self._initial_population_count = len(keys) + queued_deletions
            self._check_synced()

    def resync(self) -> None:
        """Queue a ``Sync`` delta for every known object whose key is not already queued (a queued
        change is newer than the cache and will be processed anyway)."""
        known = self.known_objects
        if known is None:
            return
        items = self._items
        for key in known.list_keys():
            if key in items:
                continue
            obj = known.get_by_key(key)
            if obj is None:
                continue
            self._queue_action(_SYNC, obj, key)

    def close(self) -> None:
        """Close the queue: ``pop`` then raises ``FIFOClosedError``."""
        self._closed = True
        if self.notify is not None:
            self.notify()

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` was called."""
        return self._closed

    # --- consumer side ---
    def __len__(self) -> int:
        return len(self._queue)

    def pop(self, process: PopProcessFunc) -> Deltas | None:
        """Remove the oldest queued key and call ``process(deltas, is_in_initial_list)`` with its Deltas,
        then return them. Returns None if the queue is empty (FIFOClosedError once closed).

        ``process`` raising :class:`RequeueError` puts the Deltas back (see ``add_if_not_present``);
        any other exception propagates, and the item is gone, as upstream.
        """
        if not self._queue:
            if self._closed:
                raise FIFOClosedError()
            return None
        is_in_initial_list = not self._synced
        key = self._queue.popleft()
        if self._initial_population_count > 0:
            self._initial_population_count -= 1
            if self._initial_population_count == 0:
                self._check_synced()
        deltas = _as_deltas(self._items.pop(key))
        try:
            process(deltas, is_in_initial_list)
        except RequeueError as e:
            self.add_if_not_present(deltas)
            if e.err is not None:
                raise e.err from None
        return deltas

    def drain(self, process: KeyedProcessFunc, on_error: Callable[[BaseException], None]) -> int:
        """Pop every queued key, oldest first, until the queue is empty (keys queued meanwhile, e.g. by
        ``process`` itself, included) and call ``process(key, raw_deltas, is_in_initial_list)`` for each;
        return how many were popped. Never waits and never raises :class:`FIFOClosedError`.

        Per key this is :meth:`pop` exactly, except that ``process`` gets the queue's key and its flat
        :data:`RawDeltas` list (it owns that list from now on), and that an exception is handed to
        ``on_error`` instead of ending the call: a :class:`RequeueError` puts the key back (its ``err``,
        if any, goes to ``on_error``); any other exception drops the key, as upstream's processLoop.
        """
        queue, items = self._queue, self._items
        popleft, take = queue.popleft, items.pop
        n = 0
        while queue:
            is_in_initial_list = not self._synced
            key = popleft()
            if self._initial_population_count > 0:
                self._initial_population_count -= 1
                if self._initial_population_count == 0:
                    self._check_synced()
            raw = take(key)
            n += 1
            try:
                process(key, raw, is_in_initial_list)
            except RequeueError as e:
                self._requeue(key, raw)
                if e.err is not None:
                    on_error(e.err)
            except Exception as err:
                on_error(err)
        return n

    # --- reads (copies of the delta lists; the objects are shared) ---
    def list(self) -> builtins.list[Any]:
        """The newest object of every queued key, in queue order."""
        return [self._items[k][-1] for k in self._queue]

    def list_keys(self) -> builtins.list[str]:
        """The queued keys, in queue order."""
        return list(self._queue)

    def get(self, obj: Any) -> Deltas | None:
        """The queued deltas of ``obj``'s key (a copy), or None."""
        return self.get_by_key(self.key_of(obj))

    def get_by_key(self, key: str) -> Deltas | None:
        """The queued deltas of ``key`` (a copy), or None."""
        deltas = self._items.get(key)
        return _as_deltas(deltas) if deltas is not None else None
