"""Superseded versions are kept compact in the history window, and read back exactly as they were written.

The store keeps a version that stopped being current (updated or deleted) deflated against its table's
preset dictionary (``CompactObject``): replays, lists at old revisions and watch resumption must see the
same bytes the write stored, the byte bound must count what is really held, and nothing a reader does to
what it gets can reach the store. Most tests here compact every version as soon as it is superseded
(``batch_bytes=1, batch_count=1``); the last ones check the store's default, lazy batches.
"""

from __future__ import annotations

import random
from typing import Any

import msgspec
import pytest

from kubelite.api.fields import parse_field_selector
from kubelite.store import COMPACT_MIN, CompactObject, Store, StoredObject, Table


def pod(name: str, v: int, *, pad: int = 40, **labels: str) -> dict[str, Any]:
    """A pod-shaped object; ``pad`` containers make it larger than :data:`COMPACT_MIN`."""
    containers = [{"name": f"c{i}", "image": f"registry.example.com/team/app:{v}", "ports": [{"containerPort": 8000 + i}]}
                  for i in range(pad)]
    return {"metadata": {"name": name, "namespace": "default", "labels": {"app": "web", **labels}},
            "spec": {"containers": containers, "nodeName": ""}, "status": {"phase": "Pending", "v": v}}


def fields(o: dict[str, Any]) -> dict[str, str]:
    return {"metadata.name": o["metadata"]["name"], "spec.nodeName": o["spec"].get("nodeName", ""),
            "status.phase": o["status"]["phase"]}


@pytest.fixture
def store() -> Store:
    return Store(batch_bytes=1, batch_count=1)  # every version made compact as soon as it is superseded


@pytest.fixture
def pods(store: Store) -> Table:
    return store.add_table("", "pods", namespaced=True, fields_fn=fields, trigger_field="spec.nodeName")


def written(store: Store, pods: Table, n: int) -> list[bytes]:
    """Create ``a`` and update it ``n`` times; the bytes of every version as the store stored it."""
    out = [bytes(store.create(pods, pod("a", 0)).data)]
    for v in range(1, n + 1):
        out.append(bytes(store.update(pods, pod("a", v)).data))
    return out


def test_superseded_versions_are_compact_and_read_back_byte_for_byte(store: Store, pods: Table) -> None:
    versions = written(store, pods, 5)
    assert len(versions[0]) >= COMPACT_MIN
    hist = list(pods.history)
    # every version but the current one is compact, in the event that recorded it and as the next one's prev
    assert [type(ev.cur) for ev in hist] == [CompactObject] * 5 + [StoredObject]
    assert all(hist[i + 1].prev is hist[i].cur for i in range(5))
    assert [ev.cur.data for ev in hist] == versions
    assert [ev.cur.decode() for ev in hist] == [msgspec.json.decode(b) for b in versions]
    # the window's byte bound counts what it holds: the compact versions are a fraction of their JSON
    assert pods.history_bytes == sum(ev.size for ev in hist)
    assert pods.history_bytes < sum(len(b) for b in versions) / 3


def test_a_watch_resumed_in_the_window_and_a_list_at_an_old_revision_see_the_stored_bytes(
    store: Store, pods: Table,
) -> None:
    versions = written(store, pods, 4)
    w = store.watch(pods, resource_version="1")
    replayed = []
    while (ev := w.poll()) is not None:
        replayed.append(ev.data)
    assert replayed == versions[1:]
    for rv, expected in enumerate(versions, start=1):
        items = store.list(pods, resource_version=str(rv), resource_version_match="Exact").items
        assert [o.data for o in items] == [expected]


def test_a_deleted_objects_last_version_is_compact_and_its_delete_is_replayed(store: Store, pods: Table) -> None:
    versions = written(store, pods, 1)
    final = store.delete(pods, "default", "a")
    assert type(pods.history[-1].prev) is CompactObject and pods.history[-1].prev.data == versions[-1]
    w = store.watch(pods, resource_version="1")
    assert [(ev.type, ev.data) for ev in iter(w.poll, None)] == [("MODIFIED", versions[1]), ("DELETED", final.data)]


def test_a_filtered_watcher_gets_deleted_from_a_compact_previous_version(store: Store, pods: Table) -> None:
    """The previous state a selector watch sends as DELETED comes from the compact version (cacheWatcher)."""
    w = store.watch(pods, resource_version="0", predicate=lambda o: (o.labels or {}).get("tier") == "a")
    store.create(pods, pod("a", 0, tier="a"))
    store.update(pods, pod("a", 1, tier="b"))  # stops matching
    evs = list(iter(w.poll, None))
    assert [e.type for e in evs] == ["ADDED", "DELETED"]
    assert evs[1].object["metadata"]["labels"]["tier"] == "a" and evs[1].object["metadata"]["resourceVersion"] == "2"


def test_small_versions_stay_as_they_are(store: Store) -> None:
    leases = store.add_table("coordination.k8s.io", "leases", namespaced=True)
    store.create(leases, {"metadata": {"name": "n", "namespace": "kube-node-lease"}, "spec": {"renewTime": "t0"}})
    store.update(leases, {"metadata": {"name": "n", "namespace": "kube-node-lease"}, "spec": {"renewTime": "t1"}})
    assert [type(ev.cur) for ev in leases.history] == [StoredObject, StoredObject]
    assert leases.history_bytes == sum(len(ev.cur.data) for ev in leases.history)


def test_what_a_reader_does_to_a_compact_version_cannot_reach_the_store(store: Store, pods: Table) -> None:
    versions = written(store, pods, 2)
    old = pods.history[0].cur
    first = old.decode()
    first["metadata"]["name"] = "changed"
    first["spec"]["containers"].clear()
    assert old.data == versions[0] and old.decode() == msgspec.json.decode(versions[0])
    with pytest.raises(AttributeError):
        old.data = b"{}"  # type: ignore[misc]


def test_the_window_stays_bounded_and_drops_what_it_no_longer_holds() -> None:
    """Compact versions let the same byte bound hold more events; a dropped event is forgotten by its
    version, so a current object does not keep the versions before it alive."""
    plain = len(Store().create(Store().add_table("", "pods", namespaced=True), pod("a", 0)).data)
    small = Store(history_bytes=plain * 4, batch_bytes=1, batch_count=1)
    t = small.add_table("", "pods", namespaced=True)
    small.create(t, pod("a", 0))
    for v in range(1, 200):
        small.update(t, pod("a", v))
    assert t.history_bytes <= plain * 4
    assert len(t.history) > 4  # more versions than would fit as plain JSON
    assert t.history_bytes == sum(ev.size for ev in t.history)
    small.compact()
    assert [ev.rv for ev in t.history] == [] and t.history_bytes == 0
    assert t.objects["default/a"].event is None


def test_unchanged_labels_and_fields_are_shared_between_versions(store: Store, pods: Table) -> None:
    a0 = store.create(pods, pod("a", 0))
    a1 = store.update(pods, pod("a", 1))
    assert a1.labels is a0.labels and a1.fields is a0.fields
    changed = pod("a", 2, tier="db")
    changed["status"]["phase"] = "Running"
    a2 = store.update(pods, changed)
    assert a2.labels == {"app": "web", "tier": "db"} and a2.labels is not a1.labels
    assert a2.fields is not a1.fields and a2.fields is not None and a2.fields["status.phase"] == "Running"
    assert a1.fields == {"metadata.name": "a", "status.phase": "Pending"}


@pytest.mark.parametrize(("selector", "selected"), [
    ("spec.nodeName=", True), ("spec.nodeName!=", False), ("spec.nodeName=node-1", False),
    ("status.phase=Pending", True), ("status.phase!=Running,spec.nodeName==", True),
], ids=["empty-equals", "empty-not-equals", "named", "phase", "both"])
def test_empty_fields_are_not_kept_and_still_select_as_empty(store: Store, pods: Table, selector: str,
                                                             selected: bool) -> None:
    """Empty selectable fields are dropped from what a version keeps; a selector reads them as ``""``, and the
    trigger (the pinned watchers' ``spec.nodeName``) is still ``""`` for an unscheduled pod."""
    a = store.create(pods, pod("a", 0))
    assert a.fields is not None and "spec.nodeName" not in a.fields and a.trigger == ""
    assert parse_field_selector(selector).matches(a.fields) is selected
    w = store.watch(pods, resource_version="0", trigger="")
    store.update(pods, pod("a", 1))
    assert [e.type for e in iter(w.poll, None)] == ["ADDED", "MODIFIED"]


def event(name: str, count: int) -> dict[str, Any]:
    return {"metadata": {"name": name, "namespace": "default"}, "involvedObject": {"kind": "Pod", "name": "web-0"},
            "reason": "Pulled", "type": "Normal", "count": count,
            "message": "Successfully pulled image \"registry.example.com/team/app:1.2.3\" in 1.2s"}


def test_events_are_kept_compact_at_rest_and_read_back_exactly(store: Store) -> None:
    """Events (nothing in the control plane reads them back) keep even their current version compact, small as
    they are; gets, lists, watches and the delete's final state read the stored bytes."""
    events = store.add_table("", "events", namespaced=True)
    w = store.watch(events, resource_version="0")
    first = store.create(events, event("e1", 1))
    assert type(events.objects["default/e1"]) is CompactObject  # (the writer got the version it wrote)
    as_written = msgspec.json.Encoder(order="deterministic").encode(  # the canonical stored encoding
        {**event("e1", 1), "metadata": {**event("e1", 1)["metadata"], "resourceVersion": "1"}})
    assert first.data == as_written
    second = store.update(events, event("e1", 2))
    current = store.get(events, "default", "e1")
    assert type(current) is CompactObject and current.data == second.data and second.decode()["count"] == 2
    assert [o.data for o in store.list(events, resource_version="1", resource_version_match="Exact").items] == [as_written]
    final = store.delete(events, "default", "e1")
    assert [(e.type, e.data) for e in iter(w.poll, None)] == [
        ("ADDED", as_written), ("MODIFIED", second.data), ("DELETED", final.data)]
    assert events.history_bytes == sum(ev.size for ev in events.history) < sum(len(ev.cur.data) for ev in events.history)
    store.verify_views()  # (nothing to verify: a compact version is never shared)


# --- lazy batches (the store's default) ---

def test_superseded_versions_wait_until_the_batch_mark_then_share_one_block() -> None:
    """Compaction is lazy: superseded versions stay as they are until the table's pending batch reaches its
    mark (here 4 versions), then all of them are deflated together, as one block, in the event that recorded
    each and as the next one's prev; reads return the stored bytes exactly."""
    store = Store(batch_bytes=10**9, batch_count=4)
    pods = store.add_table("", "pods", namespaced=True)
    versions = written(store, pods, 3)  # 3 superseded: below the mark
    assert [type(ev.cur) for ev in pods.history] == [StoredObject] * 4 and len(pods.pending) == 3
    versions.append(bytes(store.update(pods, pod("a", 4)).data))  # the 4th: the batch is deflated
    hist = list(pods.history)
    assert [type(ev.cur) for ev in hist] == [CompactObject] * 4 + [StoredObject] and not pods.pending
    compact = [ev.cur for ev in hist[:4]]
    assert all(type(c) is CompactObject for c in compact)
    assert len({id(c.block) for c in compact if isinstance(c, CompactObject)}) == 1  # one stream for the batch
    assert all(hist[i + 1].prev is hist[i].cur for i in range(4))
    assert [ev.cur.data for ev in hist] == versions and all(type(c.data) is bytes for c in compact)
    held = [c.held for c in compact if isinstance(c, CompactObject)]
    assert isinstance(compact[0], CompactObject) and sum(held) == len(compact[0].block)
    assert pods.history_bytes == sum(ev.size for ev in hist) < sum(len(b) for b in versions) / 3


def test_the_batch_mark_counts_bytes_too() -> None:
    store = Store(batch_bytes=2 * len(pod_bytes()), batch_count=10**9)
    pods = store.add_table("", "pods", namespaced=True)
    written(store, pods, 1)
    assert len(pods.pending) == 1 and type(pods.history[0].cur) is StoredObject
    written_more = store.update(pods, pod("a", 2))
    assert not pods.pending and [type(ev.cur) for ev in pods.history] == [CompactObject] * 2 + [StoredObject]
    assert store.get(pods, "default", "a") is written_more


def pod_bytes() -> bytes:
    return bytes(Store().create(Store().add_table("", "pods", namespaced=True), pod("a", 0)).data)


def test_a_version_the_window_dropped_before_its_batch_is_never_deflated() -> None:
    """Only what the history window still holds is deflated: versions whose events left it (by the count
    bound here) before their batch was due are let go instead, so a small window costs no compression."""
    store = Store(history=3, batch_bytes=10**9, batch_count=8)
    pods = store.add_table("", "pods", namespaced=True)
    versions = written(store, pods, 8)  # the 8th update supersedes the 8th version: the batch is due
    hist = list(pods.history)
    assert [ev.rv for ev in hist] == [7, 8, 9] and not pods.pending
    kept = [ev.cur for ev in hist[:2]] + [hist[0].prev]
    assert all(isinstance(c, CompactObject) for c in kept)
    block = kept[0].block if isinstance(kept[0], CompactObject) else None
    assert block is not None and len(block.inflate()) == sum(len(v) for v in versions[5:8])  # versions 6-8 only
    assert [ev.cur.data for ev in hist] == versions[6:] and hist[0].prev is not None
    assert hist[0].prev.data == versions[5]


def test_blocks_read_back_exactly_in_any_order() -> None:
    """A table remembers only its last inflated block; reading versions of different blocks in any order
    still returns each one's own bytes."""
    store = Store(batch_bytes=10**9, batch_count=2)
    pods = store.add_table("", "pods", namespaced=True)
    versions = written(store, pods, 6)
    hist = list(pods.history)
    blocks = {id(ev.cur.block) for ev in hist if isinstance(ev.cur, CompactObject)}
    assert len(blocks) == 3
    for i in [5, 0, 3, 1, 0, 4, 2, 2, 6]:
        assert hist[i].cur.data == versions[i]


def test_events_at_rest_are_batched_and_read_back_exactly() -> None:
    store = Store(batch_bytes=10**9, batch_count=3)
    events = store.add_table("", "events", namespaced=True)
    written_ = [bytes(store.create(events, event(f"e{i}", 1)).data) for i in (1, 2)]
    assert [type(o) for o in events.objects.values()] == [StoredObject] * 2  # pending: its batch is not due
    second = store.update(events, event("e1", 2))  # supersedes e1's pending first version: 3 pending
    assert [type(o) for o in events.objects.values()] == [CompactObject] * 2 and not events.pending
    assert [o.data for o in events.objects.values()] == [second.data, written_[1]]
    assert [ev.cur.data for ev in events.history] == [*written_, second.data]
    assert events.history[-1].prev is events.history[0].cur
    store.delete(events, "default", "e2")
    at = [[o.data for o in store.list(events, resource_version=rv, resource_version_match="Exact").items]
          for rv in ("2", "3", "4")]
    assert at == [written_, [second.data, written_[1]], [second.data]]


BATCHES = [(1, 1), (10**9, 3), (20_000, 64), (32 * 1024, 64)]


@pytest.mark.parametrize("cold_after", [10**9, 7], ids=["never-cold", "cold-after-7"])
@pytest.mark.parametrize("seed", [1, 2], ids=["seed1", "seed2"])
@pytest.mark.parametrize("batch", BATCHES, ids=["eager", "every-3", "20k", "default"])
def test_lists_and_watches_at_every_revision_match_a_store_that_never_compacts(
    batch: tuple[int, int], seed: int, cold_after: int,
) -> None:
    """A random mix of creates, updates and deletes of pods and Events: a list at every revision still in
    the window, a watch resumed from each one and the current objects return the bytes a store that never
    compacts returns, whether or not current versions go cold."""
    rng = random.Random(seed)
    plain = Store(batch_bytes=10**12, batch_count=10**9, cold_after=10**9)
    lazy = Store(history=100, batch_bytes=batch[0], batch_count=batch[1], cold_after=cold_after)
    tables = [(s, s.add_table("", "pods", namespaced=True, fields_fn=fields, trigger_field="spec.nodeName"),
               s.add_table("", "events", namespaced=True)) for s in (plain, lazy)]
    for step in range(300):
        name, kind, roll, pad = f"o{rng.randrange(12)}", rng.randrange(2), rng.random(), rng.randrange(1, 40)
        for s, pods, events in tables:
            t = (pods, events)[kind]
            obj = pod(name, step, pad=pad) if kind == 0 else event(name, step)
            if s.get(t, "default", name) is None:
                s.create(t, obj)
            elif roll < 0.2:
                s.delete(t, "default", name)
            else:
                s.update(t, obj)
    assert plain.revision == lazy.revision
    (_, p_pods, p_events), (_, l_pods, l_events) = tables
    for pt, lt in ((p_pods, l_pods), (p_events, l_events)):
        assert lt.dropped_rv > 0  # (the window is smaller than the run: it dropped and let versions go)
        for rv in range(lt.dropped_rv, lazy.revision + 1, 5):
            got = [o.data for o in lazy.list(lt, resource_version=str(rv), resource_version_match="Exact").items]
            want = [o.data for o in plain.list(pt, resource_version=str(rv), resource_version_match="Exact").items]
            assert got == want, rv
            lw, pw = lazy.watch(lt, resource_version=str(rv)), plain.watch(pt, resource_version=str(rv))
            assert [(e.type, e.data) for e in iter(lw.poll, None)] == [(e.type, e.data) for e in iter(pw.poll, None)]
        assert [o.data for o in lt.objects.values()] == [o.data for o in pt.objects.values()]
        got_now = [lazy.get(lt, "default", o.name) for o in pt.objects.values()]
        assert [o.data if o is not None else None for o in got_now] == [o.data for o in pt.objects.values()]
        assert lt.history_bytes == sum(ev.size for ev in lt.history)
    for lt in (l_pods, l_events):  # (the comparison did cover compact versions)
        assert any(isinstance(ev.cur, CompactObject) for ev in lt.history)
    if cold_after < 100 and batch[1] <= 3:
        assert any(isinstance(o, CompactObject) for o in l_pods.objects.values())  # (cold ones)


# --- cold current versions ---

def test_a_current_version_its_table_stopped_rewriting_goes_cold_and_reads_back_exactly() -> None:
    """A large current version that ``cold_after`` of its table's writes did not rewrite is kept compact in
    place (and in the event that recorded it); gets, lists at its revision and watches read its exact bytes,
    and rewriting it makes the object plain and current again, the cold version its prev."""
    store = Store(batch_bytes=10**9, batch_count=1, cold_after=3)
    pods = store.add_table("", "pods", namespaced=True)
    a = bytes(store.create(pods, pod("a", 0)).data)
    store.create(pods, pod("b", 0))
    store.update(pods, pod("b", 1))
    assert type(pods.objects["default/a"]) is StoredObject  # 2 of the table's writes since: still warm
    store.update(pods, pod("b", 2))  # the 3rd: a is cold
    cold = pods.objects["default/a"]
    assert type(cold) is CompactObject and pods.history[0].cur is cold and cold.event is pods.history[0]
    got = store.get(pods, "default", "a")
    assert got is not None and got.data == a and type(got.data) is bytes
    assert [o.data for o in store.list(pods, resource_version="1", resource_version_match="Exact").items] == [a]
    w = store.watch(pods, resource_version="0")
    assert next(ev.data for ev in iter(w.poll, None) if ev.object["metadata"]["name"] == "a") == a
    a1 = store.update(pods, pod("a", 1))
    assert type(pods.objects["default/a"]) is StoredObject and pods.objects["default/a"] is a1
    assert pods.history[-1].prev is cold and cold.data == a


def test_small_and_rewritten_versions_never_go_cold() -> None:
    """Versions under COMPACT_MIN (Leases) stay as they are however long nobody writes them, and a version
    rewritten within ``cold_after`` writes is never cooled (a heartbeat never pays for coldness)."""
    store = Store(batch_bytes=10**9, batch_count=1, cold_after=3)
    leases, pods = store.add_table("coordination.k8s.io", "leases", namespaced=True), store.add_table(
        "", "pods", namespaced=True)
    store.create(leases, {"metadata": {"name": "n", "namespace": "default"}, "spec": {"renewTime": "t0"}})
    for v in range(10):
        store.create(leases, {"metadata": {"name": f"x{v}", "namespace": "default"}, "spec": {}})
        if v:
            store.update(pods, pod("a", v))
        else:
            store.create(pods, pod("a", v))
    assert all(type(o) is StoredObject for o in leases.objects.values())
    assert type(pods.objects["default/a"]) is StoredObject  # rewritten every write of its table


def test_a_cold_versions_shared_views_stay_with_their_holders_and_later_readers_get_private_copies() -> None:
    """Going cold releases the version's shared views: an informer still holding one keeps it intact, and a
    later reader decodes its own copy, which it may change without reaching the store."""
    from kubelite.api.views import STATS, shared_view

    store = Store(batch_bytes=10**9, batch_count=1, cold_after=2)
    pods = store.add_table("", "pods", namespaced=True)
    a = store.create(pods, pod("a", 0))
    held = shared_view(a.data)
    assert shared_view(a.data) is held
    store.create(pods, pod("b", 0))
    store.update(pods, pod("b", 1))
    cold = store.get(pods, "default", "a")
    assert type(cold) is CompactObject
    fresh = STATS.fresh
    mine = shared_view(cold.data)
    assert STATS.fresh == fresh + 1 and mine is not held and mine == held
    copy = cold.decode()
    copy["spec"]["containers"].clear()
    assert cold.data == bytes(a.data) and held["metadata"]["name"] == "a"
