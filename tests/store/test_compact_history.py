"""Superseded versions are kept compact in the history window, and read back exactly as they were written.

The store keeps a version that stopped being current (updated or deleted) deflated against its table's
preset dictionary (``CompactObject``): replays, lists at old revisions and watch resumption must see the
same bytes the write stored, the byte bound must count what is really held, and nothing a reader does to
what it gets can reach the store.
"""

from __future__ import annotations

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
    return Store()


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
    small = Store(history_bytes=plain * 4)
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
    # the table keeps it compact; the writer gets the version as written, so its response is not inflated back
    assert type(events.objects["default/e1"]) is CompactObject and type(first) is StoredObject
    assert events.objects["default/e1"].data == first.data and events.objects["default/e1"].rv == first.rv == 1
    as_written = msgspec.json.Encoder(order="deterministic").encode(  # the canonical stored encoding
        {**event("e1", 1), "metadata": {**event("e1", 1)["metadata"], "resourceVersion": "1"}})
    assert first.data == as_written
    second = store.update(events, event("e1", 2))
    kept = store.get(events, "default", "e1")
    assert type(kept) is CompactObject and kept.data == second.data and second.decode()["count"] == 2
    assert [o.data for o in store.list(events, resource_version="1", resource_version_match="Exact").items] == [as_written]
    final = store.delete(events, "default", "e1")
    assert [(e.type, e.data) for e in iter(w.poll, None)] == [
        ("ADDED", as_written), ("MODIFIED", second.data), ("DELETED", final.data)]
    assert events.history_bytes == sum(ev.size for ev in events.history) < sum(len(ev.cur.data) for ev in events.history)
    store.verify_views()  # (nothing to verify: a compact version is never shared)
