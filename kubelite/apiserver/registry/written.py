"""The object each current version was written from: a heartbeat's "old" object without a decode.

A kubelet writes the same Lease, Node and pods again and again, and every write through
``GenericStore.update`` starts by decoding the stored version into the "old" object the update is
checked against (GuaranteedUpdate's ``tryUpdate(existing)``; kube-apiserver's watch cache hands its
stored object over the same way instead of decoding etcd's bytes again). The update that wrote that
version already had the object in hand: it is exactly the stored bytes decoded (the store encodes it and
stamps its resourceVersion into it). :class:`WrittenObjects` keeps it, per table, for the next update
of the same object to take as its "old", and the decode is skipped.

Guarantees (``tests/apiserver/test_written.py``, and the heartbeat property test, which compares
stored bytes and responses with the whole path after every write):

- **Only while current.** An entry is keyed by the :class:`~kubelite.store.StoredObject` it was written
  as and answers only while that is still the object's current version (``is``): any later write,
  whoever makes it, supersedes the StoredObject, and the entry is then never used.
- **Only what nobody else holds.** An entry is made only for a write that no admission plugin or hook
  saw (``AdmissionChain.sees`` False: nothing could keep or change the object), not dry-run, of a kind
  whose strategies keep nothing they are handed (:data:`KINDS`: their ``after_write`` and allocations
  hold no reference). The object is handed to the next update as its "old" (which the update path never
  mutates, ``GenericStore.update``'s contract) and dropped from here as that update begins
  (:meth:`take`), so at most one request ever holds it; a request that then runs admission (a hook
  registered since) passes it to the hooks as its own private copy, as a fresh decode would be.
- **Equal to a decode.** The object is decoded JSON data plus what the update path set in it (strings,
  numbers, lists, dicts: no tuples, sets or NaN in these kinds' strategies), so it equals
  ``StoredObject.decode()``; dict key order may differ (the store's encoding sorts keys, so the bytes it
  writes do not depend on it).
- **Bounded, live objects only.** Each table keeps at most :data:`CAPACITY` entries, the most recently
  written; an object written less often than that is decoded as before. A deleted object's entry goes
  with it (:meth:`forget`), so a steady state's churn (Jobs' pods coming and going) keeps nothing.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from kubelite.store import StoredObject, Table

__all__ = ["CAPACITY", "KINDS", "WrittenObjects"]

#: (group, plural) of the kinds whose written objects are kept: the node heartbeat kinds. Not pods: kept
#: pods cost 23.4 KiB each in a running cluster (``python bench/scale.py --pods 3000 --nodes 100``: 70.5
#: KiB per pod with them, 47.1 without; a kept decode also pins the plain version a cold compaction would
#: release) and bought no measurable CPU over the whole run (54.3 against 53.7 s), since each pod is
#: written a few times in its life while a Lease is renewed every 10 s
KINDS = frozenset({("coordination.k8s.io", "leases"), ("", "nodes")})
#: entries per table (a Lease is ~1 KiB decoded, a Node ~10 KiB)
CAPACITY = 2048


class WrittenObjects:
    """Per table, the decoded object each recently written current version was written from."""

    def __init__(self, capacity: int = CAPACITY) -> None:
        self.capacity = capacity
        #: table -> key -> (the StoredObject written, the object it was written from)
        self._tables: dict[Table, OrderedDict[str, tuple[StoredObject, dict[str, Any]]]] = {}
        self.hits = 0

    def take(self, table: Table, current: StoredObject) -> dict[str, Any]:
        """The "old" object of an update of ``current`` (its decode), taken out of here if kept."""
        entries = self._tables.get(table)
        if entries is not None:
            hit = entries.pop(current.key, None)
            if hit is not None and hit[0] is current:
                self.hits += 1
                return hit[1]
        return current.decode()

    def remember(self, table: Table, stored: StoredObject, obj: dict[str, Any]) -> None:
        """``obj`` is what ``stored`` was written from, and nothing else holds it (see the module docstring)."""
        if (table.group, table.plural) not in KINDS:
            return
        entries = self._tables.get(table)
        if entries is None:
            entries = self._tables[table] = OrderedDict()
        entries[stored.key] = (stored, obj)
        if len(entries) > self.capacity:
            entries.popitem(last=False)

    def forget(self, table: Table, key: str) -> None:
        """The object under ``key`` was deleted: nothing is kept for it (so the cache holds live objects only)."""
        entries = self._tables.get(table)
        if entries is not None:
            entries.pop(key, None)

    def clear(self) -> None:
        self._tables.clear()
