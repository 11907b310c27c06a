"""The revisioned object store: kubelite's etcd plus the apiserver's watch cache.

Guarantees:
- One global revision. Every successful write (create, update, delete) takes the next revision, and
  an object's ``metadata.resourceVersion`` is the revision of its last write (for a deletion, the
  deletion's revision, as the etcd3 storage layer reports it).
- Objects are kept as immutable JSON bytes (:class:`~kubelite.api.views.StoredBytes`, which can carry
  the version's shared read-only views). Writers hand the store a dict it may modify (it sets
  ``metadata.resourceVersion``); readers get bytes and decode their own copy or ask for the shared
  view. Nothing a caller does to a returned object can change the store.
- Lists are served in key order (``namespace/name``) from any revision still in the history window:
  ``resourceVersionMatch=Exact`` and ``continue`` tokens read a consistent snapshot.
- A watch from revision R delivers every later change of its resource in revision order. A watch
  from a revision older than the history window fails with 410 Expired ("too old resource
  version"), and so does a list at such a revision; the client relists.
- **The history window is bounded** per table by event count and by bytes (the JSON of the versions it
  holds), as the apiserver's watch cache is by capacity and etcd's history by compaction: the oldest
  events go first, and nothing a steady cluster does grows it past its bounds. Compaction
  (:meth:`Store.compact`, the cluster's five-minute tick) trims it further.
- **Superseded versions are kept compact, lazily and in batches.** A version the store supersedes (an update
  or a delete, and a deleted object's final state) is first kept as it is, pending; once a table's pending
  versions reach :data:`COMPACT_BATCH_BYTES` of JSON (or :data:`COMPACT_BATCH_COUNT` versions), the ones the
  history window still holds are deflated together, as one zlib stream (level 1) against a preset dictionary
  per table (:class:`CompactObject`, sharing one :class:`CompactBlock`); the ones it no longer holds are simply
  let go. Compaction is driven by the write sequence alone (bytes and counts, never time), so a replay compacts
  the same versions at the same writes. Batching is the point: setting up a deflate stream with its dictionary
  costs more than deflating a pod, so one stream per batch instead of one per write takes the compression off
  the write path (a pod's update paid ~45 µs for it), and consecutive versions of an object, the objects of one
  table and the block's earlier versions share their keys, managedFields' shapes and most of their values, so
  the batch deflates further than each version alone. Readers see no difference: ``data`` inflates the block
  (the table remembers its last inflated block, so a watch replay reads each block once) and returns the
  version's bytes exactly (plain ``bytes``: a superseded version has no shared views, so every reader of it
  decodes privately, as before). Versions under :data:`COMPACT_MIN` bytes (Leases) stay as they are, and the
  byte bound of the window counts the bytes it really holds (a compact version its share of its block).
- **Cold current versions are kept compact too.** A current version at least :data:`COMPACT_MIN` bytes long
  that :data:`COLD_AFTER` of its table's writes have not rewritten (a Running pod nothing touches, a settled
  Deployment) joins the pending batch and is kept compact in place, as etcd keeps what nobody reads on disk:
  a steady cluster's objects are mostly cold, so most of what the store holds is deflated, managedFields
  (their shapes shared by every replica of a template) and all. Coldness counts the table's writes, never
  time, so a replay cools the same versions at the same writes; a table whose objects are all rewritten
  within that many writes (Nodes, Leases) never goes cold and never pays for it. Reading a cold version
  inflates its block (its views were released when it went cold: the holders keep theirs, a later reader
  decodes privately), and rewriting it makes it plain and current again.
- **Tables kept compact at rest** (:data:`COMPACT_AT_REST`: Events, which nothing in the control plane
  watches or reads back, written once and read by kubectl and reports) keep their *current* versions compact
  too, whatever their size, batched the same way; every read of a compact one inflates it (so nobody shares a
  view of one).
- Watchers are filtered by namespace and a predicate. An object that stops matching is sent as
  DELETED (its previous state at the new revision), one that starts matching as ADDED, as the
  apiserver's cacheWatcher does. Watchers pinned to one value of the table's trigger field (pods by
  ``spec.nodeName``) are only offered events whose old or new object has that value.
- Everything here is synchronous: in single-threaded asyncio a write is atomic.
"""

from __future__ import annotations

import base64
import sys
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import msgspec
from sortedcontainers import SortedDict

from kubelite.api.views import StoredBytes, release_views, verify_views
from kubelite.errors import (
    AlreadyExists,
    BadRequest,
    Conflict,
    Expired,
    NotFound,
    ServerTimeout,
    StatusCause,
)
from kubelite.store.compact import (
    CompactObject,
    Inflated,
    StoredObject,
    deflate,
    interned,
    object_key,
    selectable,
)
from kubelite.store.watch import ADDED, BOOKMARK, DELETED, MODIFIED, Predicate, Watcher, WatchEvent

__all__ = [
    "COLD_AFTER", "COMPACT_AT_REST", "COMPACT_BATCH_BYTES", "COMPACT_BATCH_COUNT", "COMPACT_MIN", "CompactObject", "ListResult", "Store",
    "StoredObject", "Table", "object_key",
]

_encode = msgspec.json.Encoder().encode
#: the stored encoding: canonical, keys sorted at every level, so an object's bytes depend on its content only,
#: never on the order admission, defaulting or a client happened to insert its keys (upstream's encoding of a
#: Go struct has the field order of its type, maps sorted; kubelite's generated types order their fields by
#: name, so a typed round trip and a stored object agree)
_encode_object = msgspec.json.Encoder(order="deterministic").encode
_decode = msgspec.json.Decoder().decode
_intern = sys.intern

# Per-table event history kept for watch resumption and snapshot reads: at most this many events (the
# watch cache's largest capacity upstream, 100 * 1024) and this many bytes of object JSON.
DEFAULT_HISTORY = 102_400
DEFAULT_HISTORY_BYTES = 64 * 2**20
DEFAULT_WATCH_CAPACITY = 100_000
#: superseded versions at least this many bytes long are kept deflated in the history window
COMPACT_MIN = 1024
#: a table's pending versions are deflated together once they hold this many bytes of JSON (deflate's window:
#: a batch's later versions can refer back to all of its earlier ones) ...
COMPACT_BATCH_BYTES = 32 * 1024
#: ... or once this many versions are pending (small ones: Events at rest)
COMPACT_BATCH_COUNT = 64
#: a table's current version that this many of the table's writes have not rewritten is cold: kept compact
COLD_AFTER = 2_000
#: tables whose current versions are kept compact too (see the module docstring)
COMPACT_AT_REST = frozenset({("", "events"), ("events.k8s.io", "events")})


class _Event:
    __slots__ = ("cur", "prev", "rv", "size", "type")

    def __init__(self, type: str, rv: int, cur: StoredObject, prev: StoredObject | None) -> None:
        self.type = type
        self.rv = rv
        self.cur = cur
        self.prev = prev
        self.size = 0  # bytes of ``cur`` the window counts (set when recorded, shrunk when ``cur`` is compacted)


class ListResult:
    __slots__ = ("continue_", "items", "remaining", "rv")

    def __init__(self, items: list[StoredObject], rv: int, continue_: str | None, remaining: int | None) -> None:
        self.items = items
        self.rv = rv
        self.continue_ = continue_
        self.remaining = remaining


FieldsFn = Callable[[dict[str, Any]], dict[str, str] | None]


class Table:
    """All objects of one resource (e.g. ``deployments.apps``), with their history and watchers."""

    def __init__(
        self, group: str, plural: str, *, namespaced: bool, fields_fn: FieldsFn | None = None,
        trigger_field: str | None = None, history: int = DEFAULT_HISTORY,
        history_bytes: int = DEFAULT_HISTORY_BYTES, batch_bytes: int = COMPACT_BATCH_BYTES,
        batch_count: int = COMPACT_BATCH_COUNT, cold_after: int = COLD_AFTER,
    ) -> None:
        self.group = group
        self.plural = plural
        self.namespaced = namespaced
        self.fields_fn = fields_fn
        self.trigger_field = trigger_field
        self.objects: SortedDict = SortedDict()  # key -> StoredObject
        self.history: deque[_Event] = deque()
        self.history_limit = history
        self.history_bytes_limit = history_bytes
        # bytes of object JSON the history holds (each event's current object)
        self.history_bytes = 0
        # every event with rv > dropped_rv is still in history
        self.dropped_rv = 0
        self.watchers: list[Watcher] = []
        self.pinned: dict[str, list[Watcher]] = {}
        # revision of the last write to this table (0: never written); lets readers cache derived views
        self.last_write = 0
        # the preset dictionary its superseded versions are deflated against: the first one compacted (a
        # version of this table's kind: the keys and shapes its versions share)
        self.zdict: bytes | None = None
        self.at_rest = (group, plural) in COMPACT_AT_REST
        #: versions waiting to be made compact, in the order they stopped being current (or, at rest, were
        #: written), each with the event whose ``prev`` it is (None until superseded); a version is here iff it
        #: is plain and will be compact once the batch is deflated
        self.pending: dict[StoredObject, _Event | None] = {}
        self.pending_bytes = 0  # the pending versions' JSON
        self.batch_bytes = batch_bytes
        self.batch_count = batch_count
        self.inflated = Inflated()  # its last inflated block
        #: this table's writes so far, and (write number, key, revision) of its large current versions in the
        #: order they were written: a version still current ``cold_after`` writes later is cold (see the
        #: module docstring); keys and revisions, not the versions, so a superseded one is not kept alive
        self.writes = 0
        self.recent: deque[tuple[int, str, int]] = deque()
        self.cold_after = cold_after

    def __len__(self) -> int:
        return len(self.objects)


class Store:
    """The revisioned store. See the module docstring for the contract."""

    def __init__(
        self, *, history: int = DEFAULT_HISTORY, history_bytes: int = DEFAULT_HISTORY_BYTES,
        batch_bytes: int = COMPACT_BATCH_BYTES, batch_count: int = COMPACT_BATCH_COUNT,
        cold_after: int = COLD_AFTER,
    ) -> None:
        """``history``/``history_bytes``: each table's history window, in events and in bytes of JSON.
        ``batch_bytes``/``batch_count``: the bytes or versions pending before a table deflates them (``1``:
        every version as soon as it is superseded). ``cold_after``: the table's writes after which a current
        version nobody rewrote is kept compact too."""
        if history < 1 or history_bytes < 1:
            raise ValueError("the history window must hold at least one event and one byte")
        if batch_bytes < 1 or batch_count < 1:
            raise ValueError("a compaction batch holds at least one version")
        if cold_after < 1:
            raise ValueError("a version goes cold at least one write after it was written")
        self._batch = (batch_bytes, batch_count)
        self._cold_after = cold_after
        self.revision = 0
        self.compacted = 0
        self.tables: dict[tuple[str, str], Table] = {}
        self._history = history
        self._history_bytes = history_bytes
        self.writes = 0
        self.events_delivered = 0
        #: Called synchronously after every committed write, before any watcher hears of it, as
        #: ``observer(table, type, revision, current, previous)`` (``previous`` is None for a create;
        #: for a delete ``current`` is the final state). Observers must not write to the store.
        self.observers: list[Callable[[Table, str, int, StoredObject, StoredObject | None], None]] = []

    # --- tables ---
    def add_table(
        self, group: str, plural: str, *, namespaced: bool, fields_fn: FieldsFn | None = None,
        trigger_field: str | None = None,
    ) -> Table:
        key = (group, plural)
        table = self.tables.get(key)
        if table is None:
            table = self.tables[key] = Table(
                group, plural, namespaced=namespaced, fields_fn=fields_fn, trigger_field=trigger_field,
                history=self._history, history_bytes=self._history_bytes, batch_bytes=self._batch[0],
                batch_count=self._batch[1], cold_after=self._cold_after,
            )
        return table

    def remove_table(self, group: str, plural: str) -> None:
        table = self.tables.pop((group, plural), None)
        if table is not None:
            for w in [*table.watchers, *(w for ws in table.pinned.values() for w in ws)]:
                w.close("resource removed")

    def table(self, group: str, plural: str) -> Table:
        return self.tables[(group, plural)]

    # --- reads ---
    def get(self, table: Table, namespace: str, name: str) -> StoredObject | None:
        obj: StoredObject | None = table.objects.get(object_key(namespace, name))
        return obj

    def list(
        self, table: Table, *, namespace: str | None = None, predicate: Predicate | None = None,
        resource_version: str | None = None, resource_version_match: str | None = None,
        limit: int | None = None, continue_: str | None = None,
    ) -> ListResult:
        """Upstream list semantics (k8s.io/apiserver storage/cacher + etcd3 GetList)."""
        start_key = ""
        if continue_:
            if resource_version not in (None, "", "0") and resource_version_match is None:
                raise BadRequest.make("specifying resource version is not allowed when using continue")
            at_rv, start_key = self._decode_continue(continue_)
            if at_rv > self.revision:
                raise self._too_large(at_rv)  # etcd's ErrFutureRev for the token's revision
            self._check_not_compacted(table, at_rv, continue_token=True)
        else:
            at_rv = self._list_revision(table, resource_version, resource_version_match)
        prefix = f"{namespace}/" if namespace and table.namespaced else ""
        if prefix and start_key < prefix:
            start_key = prefix
        items: list[StoredObject] = []
        next_key: str | None = None
        matched_after = 0
        count_rest = limit is not None and predicate is None
        for obj in self._iter_snapshot(table, at_rv, start_key):
            if prefix and not obj.key.startswith(prefix):
                break
            if predicate is not None and not predicate(obj):
                continue
            if limit is not None and len(items) >= limit:
                if next_key is None:
                    next_key = obj.key
                    if not count_rest:
                        break
                matched_after += 1
                continue
            items.append(obj)
        token = self._encode_continue(at_rv, next_key) if next_key is not None else None
        remaining = matched_after if (token is not None and count_rest) else None
        return ListResult(items, at_rv, token, remaining)

    def _list_revision(self, table: Table, rv: str | None, match: str | None) -> int:
        if match not in (None, "", "Exact", "NotOlderThan"):
            raise BadRequest.make(f'unsupported resourceVersionMatch value "{match}"')
        if rv in (None, ""):
            if match:
                raise BadRequest.make("resourceVersionMatch is forbidden unless resourceVersion is provided")
            return self.revision
        n = self._parse_rv(rv)
        if match == "Exact":
            if n == 0:
                raise BadRequest.make('resourceVersionMatch "Exact" is forbidden for resourceVersion "0"')
            if n > self.revision:
                raise self._too_large(n)
            self._check_not_compacted(table, n)
            return n
        # NotOlderThan (the default for a non-zero resourceVersion) and "0" (any): we are never stale.
        if n > self.revision:
            raise self._too_large(n)
        return self.revision

    def _too_large(self, n: int) -> ServerTimeout:
        err = ServerTimeout.make(
            f"Too large resource version: {n}, current: {self.revision}",
            causes=[StatusCause(reason="ResourceVersionTooLarge", message="Too large resource version")],
            retry_after_seconds=1,
        )
        assert isinstance(err, ServerTimeout)
        return err

    @staticmethod
    def _parse_rv(rv: str) -> int:
        try:
            n = int(rv)
        except ValueError:
            raise BadRequest.make(f'invalid resource version "{rv}"') from None
        if n < 0:
            raise BadRequest.make(f'invalid resource version "{rv}"')
        return n

    def _check_not_compacted(self, table: Table, rv: int, *, continue_token: bool = False) -> None:
        oldest = max(self.compacted, table.dropped_rv)
        if rv < oldest:
            if continue_token:
                raise Expired.make(
                    "The provided continue parameter is too old to display a consistent list result. You "
                    "can start a new list without the continue parameter."
                )
            raise Expired.make(f"too old resource version: {rv} ({oldest})")

    def _iter_snapshot(self, table: Table, at_rv: int, start_key: str) -> Iterator[StoredObject]:
        """Objects as of revision ``at_rv`` with key >= start_key, in key order."""
        objects = table.objects
        if at_rv >= self.revision or not table.history or table.history[-1].rv <= at_rv:
            for key in objects.irange(minimum=start_key):
                yield objects[key]
            return
        # Undo, newest first, every change made after at_rv: the earliest change's prev wins.
        overrides: dict[str, StoredObject | None] = {}
        for ev in reversed(table.history):
            if ev.rv <= at_rv:
                break
            overrides[ev.cur.key] = ev.prev
        keys = sorted({*objects.irange(minimum=start_key), *(k for k in overrides if k >= start_key)})
        for key in keys:
            if key in overrides:
                prev = overrides[key]
                if prev is not None:
                    yield prev
            else:
                yield objects[key]

    @staticmethod
    def _encode_continue(rv: int, key: str) -> str:
        raw = _encode({"v": "meta.k8s.io/v1", "rv": rv, "start": key})
        return base64.urlsafe_b64encode(raw).decode().rstrip("=")

    @staticmethod
    def _decode_continue(token: str) -> tuple[int, str]:
        """storage.DecodeContinue: a meta.k8s.io/v1 token with a positive revision and a start key."""
        try:
            raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
            data = _decode(raw)
            rv, start = data["rv"], data["start"]
            valid = (data.get("v") == "meta.k8s.io/v1" and type(rv) is int and rv > 0
                     and isinstance(start, str) and start)
        except Exception:
            valid = False
        if not valid:
            raise BadRequest.make(f'continue key is not valid: "{token}"')
        return rv, start

    # --- writes ---
    def _stored(
        self, table: Table, obj: dict[str, Any], rv: int, spliced: dict[str, msgspec.Raw] | None = None,
        key: str | None = None,
    ) -> StoredObject:
        """The version ``obj`` written at ``rv``; ``key``: its key when the caller has it (the table's own key
        string, so the table and every version of the object hold one copy)."""
        meta = obj["metadata"]
        meta["resourceVersion"] = str(rv)
        ns = _intern(meta.get("namespace") or "")  # (one string per namespace for all its versions)
        name = meta["name"]
        labels = meta.get("labels")
        computed = table.fields_fn(obj) if table.fields_fn is not None else None
        trigger = computed.get(table.trigger_field) if (computed is not None and table.trigger_field) else None
        data = _encode_object(obj if spliced is None else {**obj, **spliced})
        return StoredObject(
            key or object_key(ns, name), ns, name, rv, StoredBytes(data), interned(labels) if labels else None,
            selectable(computed) if computed else computed, trigger,
        )

    def create(self, table: Table, obj: dict[str, Any], *, spliced: dict[str, msgspec.Raw] | None = None) -> StoredObject:
        """Insert a new object; 409 AlreadyExists if the key is taken. Sets metadata.resourceVersion.

        ``spliced``: top-level fields whose encoding the caller already has (the per-template create
        memo's spec and status, ``msgspec.Raw``): written in place of ``obj``'s, which must encode to the
        same bytes; everything else (field selectors, labels) reads ``obj``."""
        meta = obj["metadata"]
        key = object_key(meta.get("namespace") or "", meta["name"])
        if key in table.objects:
            raise AlreadyExists.for_object(table.group, table.plural, meta["name"])
        rv = self.revision + 1
        stored = self._stored(table, obj, rv, spliced, key)
        self.revision = rv
        table.objects[key] = stored
        if table.at_rest:  # (whatever its size: Events are ~1 KiB, a tenth of that deflated in a batch)
            self._pend(table, stored)
        self._record(table, _Event(ADDED, rv, stored, None))
        return stored

    def update(self, table: Table, obj: dict[str, Any], *, expect_rv: int | None = None) -> StoredObject:
        """Replace an object; 404 if absent, 409 Conflict if ``expect_rv`` is stale."""
        meta = obj["metadata"]
        key = object_key(meta.get("namespace") or "", meta["name"])
        old: StoredObject | None = table.objects.get(key)
        if old is None:
            raise NotFound.for_object(table.group, table.plural, meta["name"])
        if expect_rv is not None and expect_rv != old.rv:
            raise Conflict.for_object(
                table.group, table.plural, meta["name"],
                "the object has been modified; please apply your changes to the latest version and try again",
            )
        rv = self.revision + 1
        stored = self._stored(table, obj, rv, key=old.key)
        # a version whose labels or selectable fields did not change shares them with the one before
        if stored.labels is not None and stored.labels == old.labels:
            stored.labels = old.labels
        if stored.fields is not None and stored.fields == old.fields:
            stored.fields = old.fields
        self.revision = rv
        table.objects[key] = stored
        if table.at_rest:
            self._pend(table, stored)
        if type(old) is not CompactObject:
            release_views(old.data)
        ev = _Event(MODIFIED, rv, stored, old)
        self._supersede(table, old, ev)
        self._record(table, ev)
        return stored

    def delete(self, table: Table, namespace: str, name: str, *, expect_rv: int | None = None) -> StoredObject:
        """Remove an object; returns its final state stamped with the deletion's revision."""
        key = object_key(namespace, name)
        old: StoredObject | None = table.objects.get(key)
        if old is None:
            raise NotFound.for_object(table.group, table.plural, name)
        if expect_rv is not None and expect_rv != old.rv:
            raise Conflict.for_object(
                table.group, table.plural, name,
                "the object has been modified; please apply your changes to the latest version and try again",
            )
        rv = self.revision + 1
        final = self._stored(table, old.decode(), rv, key=old.key)
        self.revision = rv
        del table.objects[key]
        if type(old) is not CompactObject:
            release_views(old.data)
        ev = _Event(DELETED, rv, final, old)
        self._supersede(table, old, ev)
        if table.at_rest or len(final.data) >= COMPACT_MIN:  # (a final version is never current)
            self._pend(table, final)
        self._record(table, ev)
        return final

    @staticmethod
    def _pend(table: Table, version: StoredObject, prev_of: _Event | None = None) -> None:
        table.pending[version] = prev_of
        table.pending_bytes += len(version.data)

    def _supersede(self, table: Table, old: StoredObject, ev: _Event) -> None:
        """``old`` stops being current (``ev``'s ``prev``): it joins the pending batch, and is made compact with
        it in the event that recorded it (when that is still in the window) and as ``ev``'s ``prev``."""
        if type(old) is CompactObject:  # kept compact at rest already
            old.event = None
            return
        pending = table.pending
        if old in pending:  # at rest, its batch not deflated yet
            pending[old] = ev
        elif len(old.data) >= COMPACT_MIN:
            self._pend(table, old, ev)
        else:
            old.event = None

    def _deflate_pending(self, table: Table) -> None:
        """Make the pending batch compact (see the module docstring): the versions the window no longer holds,
        and the superseded ones no event holds any more, are let go instead."""
        oldest = max(self.compacted, table.dropped_rv)
        objects = table.objects
        keep: list[StoredObject] = []
        holders: list[_Event | None] = []
        for version, prev_of in table.pending.items():
            ev = version.event
            if prev_of is not None and prev_of.rv <= oldest:
                prev_of = None  # (that event left the window)
            current = objects.get(version.key) is version
            if ev is None and prev_of is None and not current:
                continue
            keep.append(version)
            holders.append(prev_of)
        table.pending = {}
        table.pending_bytes = 0
        if not keep:
            return
        zdict = table.zdict
        if zdict is None:  # (the first version compacted: the keys and shapes the table's versions share)
            zdict = table.zdict = bytes(keep[0].data)
        for version, prev_of, compact in zip(keep, holders, deflate(keep, zdict, table.inflated), strict=True):
            ev = version.event
            if ev is not None:  # the event that recorded it is in the window
                version.event = None
                ev.cur = compact
                table.history_bytes -= ev.size - compact.held
                ev.size = compact.held
            if objects.get(version.key) is version:  # current: at rest, or cold
                objects[version.key] = compact
                compact.event = ev
            if prev_of is not None:
                prev_of.prev = compact

    def _record(self, table: Table, ev: _Event) -> None:
        self.writes += 1
        table.last_write = ev.rv
        n = table.writes = table.writes + 1
        cur = ev.cur
        if ev.type != DELETED and not table.at_rest and len(cur.data) >= COMPACT_MIN:
            table.recent.append((n, cur.key, cur.rv))
        hist = table.history
        hist.append(ev)
        cur.event = ev
        ev.size = len(cur.data)
        size = table.history_bytes = table.history_bytes + ev.size
        if len(hist) > table.history_limit or size > table.history_bytes_limit:
            # the oldest events leave the window (the newest always stays)
            while len(hist) > 1 and (len(hist) > table.history_limit or size > table.history_bytes_limit):
                dropped = self._drop(hist.popleft())
                size -= dropped.size
                table.dropped_rv = dropped.rv
            table.history_bytes = size
        if self.observers:
            for observer in self.observers:
                observer(table, ev.type, ev.rv, ev.cur, ev.prev)
        self._dispatch(table, ev)
        recent = table.recent
        if recent and recent[0][0] <= n - table.cold_after:
            self._cool(table, n - table.cold_after)
        if table.pending_bytes >= table.batch_bytes or len(table.pending) >= table.batch_count:
            self._deflate_pending(table)

    def _cool(self, table: Table, upto: int) -> None:
        """The current versions written at or before the table's write ``upto`` and not rewritten since are
        cold: they join the pending batch, to be kept compact in place (as at rest)."""
        recent, objects, pending = table.recent, table.objects, table.pending
        while recent and recent[0][0] <= upto:
            _, key, rv = recent.popleft()
            obj = objects.get(key)
            if obj is not None and obj.rv == rv and type(obj) is not CompactObject and obj not in pending:
                release_views(obj.data)  # (its holders keep them; a later reader decodes privately)
                self._pend(table, obj)

    # --- watches ---
    def watch(
        self, table: Table, *, namespace: str | None = None, predicate: Predicate | None = None,
        resource_version: str | None = None, send_initial_events: bool | None = None,
        allow_bookmarks: bool = False, capacity: int = DEFAULT_WATCH_CAPACITY, trigger: str | None = None,
        bookmark_data: Callable[[int, bool], bytes] | None = None,
    ) -> Watcher:
        """Open a watch (upstream semantics for resourceVersion "", "0" and N; sendInitialEvents)."""
        if trigger is not None and table.trigger_field is None:
            trigger = None
        w = Watcher(
            namespace=namespace if table.namespaced else None, predicate=predicate, capacity=capacity,
            allow_bookmarks=allow_bookmarks, trigger=trigger,
        )
        initial = send_initial_events
        if initial is None:
            initial = resource_version in (None, "", "0")
        if initial:
            if resource_version not in (None, "", "0"):
                # sendInitialEvents with an explicit revision: state as of that revision, then changes.
                start = self._list_revision(table, resource_version, "NotOlderThan")
            else:
                start = self.revision
            for obj in self._iter_snapshot(table, start, ""):
                if self._visible(w, obj):
                    w.push(WatchEvent(ADDED, obj.rv, obj.data))
            if send_initial_events and allow_bookmarks and bookmark_data is not None:
                w.push(WatchEvent(BOOKMARK, start, bookmark_data(start, True)))
        elif resource_version in (None, "", "0"):
            start = self.revision  # sendInitialEvents=false without a revision: from the most recent
        else:
            start = self._parse_rv(resource_version)
            if start > self.revision:
                raise self._too_large(start)
            self._check_not_compacted(table, start)
            for ev in self._history_after(table, start):
                self._offer(w, ev, WatchEvent(ev.type, ev.rv, ev.cur.data))
        w.position = max(w.position, start)
        self._register(table, w)
        return w

    @staticmethod
    def _history_after(table: Table, rv: int) -> Iterable[_Event]:
        hist = table.history
        # history is in revision order; find the first event after rv by bisection
        lo, hi = 0, len(hist)
        while lo < hi:
            mid = (lo + hi) // 2
            if hist[mid].rv <= rv:
                lo = mid + 1
            else:
                hi = mid
        for i in range(lo, len(hist)):
            yield hist[i]

    def _register(self, table: Table, w: Watcher) -> None:
        if w.trigger is not None:
            table.pinned.setdefault(w.trigger, []).append(w)
        else:
            table.watchers.append(w)

        def unregister(watcher: Watcher) -> None:
            if watcher.trigger is not None:
                lst = table.pinned.get(watcher.trigger)
                if lst is not None and watcher in lst:
                    lst.remove(watcher)
                    if not lst:
                        del table.pinned[watcher.trigger]
            elif watcher in table.watchers:
                table.watchers.remove(watcher)

        w._on_close = unregister
        if w.closed:  # overflowed while replaying history
            unregister(w)

    @staticmethod
    def _visible(w: Watcher, obj: StoredObject) -> bool:
        if w.namespace is not None and obj.namespace != w.namespace:
            return False
        if w.trigger is not None and obj.trigger != w.trigger:
            return False
        return w.predicate is None or w.predicate(obj)

    def _offer(self, w: Watcher, ev: _Event, shared: WatchEvent | None = None) -> None:
        cur, prev = ev.cur, ev.prev
        if w.trigger is None and w.predicate is None:
            # unfiltered (or namespace-only: an object never changes namespace) watcher: the event passes
            # unchanged or not at all, so the one shared event object will do
            if w.namespace is None or cur.namespace == w.namespace:
                w.push(shared if shared is not None else WatchEvent(ev.type, ev.rv, cur.data))
                self.events_delivered += 1
            return
        if ev.type == DELETED:
            if self._visible(w, prev if prev is not None else cur):
                w.push(shared if shared is not None else WatchEvent(DELETED, ev.rv, cur.data))
                self.events_delivered += 1
            return
        now_ok = self._visible(w, cur)
        was_ok = prev is not None and self._visible(w, prev)
        if now_ok:
            if was_ok or ev.type == ADDED:
                w.push(shared if shared is not None else WatchEvent(ev.type, ev.rv, cur.data))
            else:
                w.push(WatchEvent(ADDED, ev.rv, cur.data))
            self.events_delivered += 1
        elif was_ok:
            assert prev is not None
            last = prev.decode()
            last["metadata"]["resourceVersion"] = str(ev.rv)
            w.push(WatchEvent(DELETED, ev.rv, _encode_object(last)))
            self.events_delivered += 1

    def _dispatch(self, table: Table, ev: _Event) -> None:
        if not table.watchers and not table.pinned:
            return
        shared = WatchEvent(ev.type, ev.rv, ev.cur.data)
        if table.watchers:
            for w in list(table.watchers):
                self._offer(w, ev, shared)
        if table.pinned:
            t_new = ev.cur.trigger
            t_old = ev.prev.trigger if ev.prev is not None else None
            targets = table.pinned.get(t_new, []) if t_new is not None else []
            if t_old is not None and t_old != t_new:
                targets = [*targets, *table.pinned.get(t_old, [])]
            for w in list(targets):
                self._offer(w, ev, shared)

    def bookmark(self, table: Table, data: Callable[[int, bool], bytes]) -> None:
        """Send a BOOKMARK at the current revision to every watcher of ``table`` that asked for them, also when
        nothing changed since its last event: upstream's cacher sends every bookmark watcher one about every
        minute whatever happened (clients such as kopf treat a minute-plus of silence as a dead stream)."""
        rv = self.revision
        ev: WatchEvent | None = None  # one event for every watcher (one decode of it per informer type)
        for w in [*table.watchers, *(w for ws in table.pinned.values() for w in ws)]:
            if w.allow_bookmarks and not w.closed and w.position <= rv:
                if ev is None:
                    ev = WatchEvent(BOOKMARK, rv, StoredBytes(data(rv, False)))
                w.push(ev)

    def close_watches(self, table: Table | None = None, reason: str = "closed by fault injection") -> int:
        tables = [table] if table is not None else list(self.tables.values())
        n = 0
        for t in tables:
            for w in [*t.watchers, *(w for ws in t.pinned.values() for w in ws)]:
                w.close(reason)
                n += 1
        return n

    def verify_views(self) -> None:
        """Check that no reader mutated a shared view of a current object (``SharedViewMutated``)."""
        for table in self.tables.values():
            name = f"{table.plural}.{table.group}" if table.group else table.plural
            for obj in table.objects.values():
                if type(obj) is not CompactObject:  # (a compact version is never shared)
                    verify_views(obj.data, f"{name} {obj.key}")

    # --- compaction ---
    def compact(self, revision: int | None = None) -> int:
        """Forget history up to ``revision`` (default: now). Lists and watches at older revisions get 410."""
        rev = self.revision if revision is None else min(revision, self.revision)
        if rev <= self.compacted:
            return self.compacted
        self.compacted = rev
        for table in self.tables.values():
            hist = table.history
            while hist and hist[0].rv <= rev:
                table.history_bytes -= self._drop(hist.popleft()).size
        return rev

    @staticmethod
    def _drop(ev: _Event) -> _Event:
        """``ev`` leaves the history window: its version forgets it (so a current object does not keep a
        dropped event, and the versions before it, alive)."""
        if ev.cur.event is ev:
            ev.cur.event = None
        return ev
