"""Store semantics: revisions, lists at revisions, pagination, watches, compaction, slow watchers."""

from __future__ import annotations

from typing import Any

import pytest

from kubelite.errors import AlreadyExists, BadRequest, Conflict, Expired, NotFound, ServerTimeout
from kubelite.store import ADDED, BOOKMARK, DELETED, MODIFIED, Store, Table


def obj(name: str, ns: str = "default", **labels: str) -> dict[str, Any]:
    return {"metadata": {"name": name, "namespace": ns, "labels": dict(labels)}, "spec": {"v": 0}}


def fields(o: dict[str, Any]) -> dict[str, str]:
    return {"metadata.name": o["metadata"]["name"], "spec.nodeName": o.get("spec", {}).get("nodeName", "")}


@pytest.fixture
def store() -> Store:
    return Store()


@pytest.fixture
def pods(store: Store) -> Table:
    return store.add_table("", "pods", namespaced=True, fields_fn=fields, trigger_field="spec.nodeName")


def drain(w: Any) -> list[tuple[str, int, str]]:
    out = []
    while (ev := w.poll()) is not None:
        out.append((ev.type, ev.rv, ev.object["metadata"].get("name", "")))
    return out


def test_every_write_takes_the_next_global_revision(store: Store, pods: Table) -> None:
    other = store.add_table("", "configmaps", namespaced=True)
    a = store.create(pods, obj("a"))
    b = store.create(other, obj("b"))
    a2 = store.update(pods, {**obj("a"), "spec": {"v": 1}})
    gone = store.delete(other, "default", "b")
    assert [a.rv, b.rv, a2.rv, gone.rv] == [1, 2, 3, 4]
    assert a2.decode()["metadata"]["resourceVersion"] == "3"
    # a deleted object's final state carries the deletion's revision, as etcd3 storage reports it
    assert gone.decode()["metadata"]["resourceVersion"] == "4"


@pytest.mark.parametrize(
    ("op", "error"),
    [
        (lambda s, t: s.create(t, obj("a")), AlreadyExists),
        (lambda s, t: s.update(t, obj("missing")), NotFound),
        (lambda s, t: s.update(t, obj("a"), expect_rv=999), Conflict),
        (lambda s, t: s.delete(t, "default", "missing"), NotFound),
        (lambda s, t: s.delete(t, "default", "a", expect_rv=999), Conflict),
    ],
    ids=["create-exists", "update-missing", "update-stale-rv", "delete-missing", "delete-stale-rv"],
)
def test_rejected_writes_change_nothing(store: Store, pods: Table, op: Any, error: type) -> None:
    store.create(pods, obj("a"))
    before = (store.revision, {k: v.data for k, v in pods.objects.items()})
    with pytest.raises(error):
        op(store, pods)
    assert (store.revision, {k: v.data for k, v in pods.objects.items()}) == before


def test_conflict_message_matches_upstream(store: Store, pods: Table) -> None:
    store.create(pods, obj("a"))
    with pytest.raises(Conflict) as e:
        store.update(pods, obj("a"), expect_rv=7)
    assert e.value.status.code == 409
    assert e.value.message == (
        'Operation cannot be fulfilled on pods "a": the object has been modified; please apply your changes '
        "to the latest version and try again"
    )


def test_mutating_a_handed_object_cannot_change_the_store(store: Store, pods: Table) -> None:
    body = obj("a", app="web")
    stored = store.create(pods, body)
    body["metadata"]["labels"]["app"] = "evil"
    decoded = stored.decode()
    decoded["spec"]["v"] = 42
    assert store.get(pods, "default", "a").decode()["metadata"]["labels"] == {"app": "web"}  # type: ignore[union-attr]
    assert store.get(pods, "default", "a").decode()["spec"] == {"v": 0}  # type: ignore[union-attr]


def test_list_is_in_key_order_and_namespace_scoped(store: Store, pods: Table) -> None:
    for ns, name in [("b", "z"), ("a", "y"), ("a", "x"), ("ab", "w")]:
        store.create(pods, obj(name, ns))
    assert [o.key for o in store.list(pods).items] == ["a/x", "a/y", "ab/w", "b/z"]
    assert [o.key for o in store.list(pods, namespace="a").items] == ["a/x", "a/y"]


def test_pagination_reads_a_consistent_snapshot(store: Store, pods: Table) -> None:
    for i in range(5):
        store.create(pods, obj(f"p{i}"))
    page1 = store.list(pods, limit=2)
    assert [o.name for o in page1.items] == ["p0", "p1"]
    assert page1.remaining == 3
    # changes after the first page do not show up in later pages
    store.delete(pods, "default", "p3")
    store.create(pods, obj("p9"))
    store.update(pods, {**obj("p2"), "spec": {"v": 7}})
    page2 = store.list(pods, limit=2, continue_=page1.continue_)
    assert [o.name for o in page2.items] == ["p2", "p3"]
    assert page2.items[0].decode()["spec"] == {"v": 0}
    page3 = store.list(pods, limit=2, continue_=page2.continue_)
    assert [o.name for o in page3.items] == ["p4"]
    assert page3.continue_ is None
    assert page1.rv == page2.rv == page3.rv


def test_list_at_exact_revision_rebuilds_the_past(store: Store, pods: Table) -> None:
    store.create(pods, obj("a"))
    rv = store.create(pods, obj("b")).rv
    store.delete(pods, "default", "a")
    store.create(pods, obj("c"))
    past = store.list(pods, resource_version=str(rv), resource_version_match="Exact")
    assert [o.name for o in past.items] == ["a", "b"]
    assert past.rv == rv


@pytest.mark.parametrize(
    ("rv", "match", "error"),
    [
        ("99", None, ServerTimeout),
        ("99", "Exact", ServerTimeout),
        ("0", "Exact", BadRequest),
        ("", "Exact", BadRequest),
        ("x", None, BadRequest),
        ("1", "Sometime", BadRequest),
    ],
    ids=["too-large", "too-large-exact", "exact-zero", "match-without-rv", "not-a-number", "bad-match"],
)
def test_list_resource_version_errors(store: Store, pods: Table, rv: str, match: str | None, error: type) -> None:
    store.create(pods, obj("a"))
    with pytest.raises(error):
        store.list(pods, resource_version=rv, resource_version_match=match)


def test_watch_resumes_from_any_revision_in_the_window(store: Store, pods: Table) -> None:
    store.create(pods, obj("a"))
    rv = store.create(pods, obj("b")).rv
    store.update(pods, obj("a"))
    store.delete(pods, "default", "b")
    w = store.watch(pods, resource_version=str(rv))
    store.create(pods, obj("c"))
    assert drain(w) == [(MODIFIED, 3, "a"), (DELETED, 4, "b"), (ADDED, 5, "c")]


def test_watch_without_revision_starts_with_current_state(store: Store, pods: Table) -> None:
    store.create(pods, obj("a"))
    store.create(pods, obj("b"))
    store.delete(pods, "default", "a")
    w = store.watch(pods)
    assert drain(w) == [(ADDED, 2, "b")]


def test_watch_after_compaction_is_410_then_relist_works(store: Store, pods: Table) -> None:
    for i in range(4):
        store.create(pods, obj(f"p{i}"))
    store.compact(3)
    with pytest.raises(Expired) as e:
        store.watch(pods, resource_version="2")
    assert e.value.status.code == 410
    assert e.value.status.reason == "Expired"
    assert e.value.message == "too old resource version: 2 (3)"
    with pytest.raises(Expired):
        store.list(pods, resource_version="2", resource_version_match="Exact")
    relist = store.list(pods)
    w = store.watch(pods, resource_version=str(relist.rv))
    store.create(pods, obj("p9"))
    assert drain(w) == [(ADDED, 5, "p9")]


def test_history_window_expires_old_revisions(store: Store) -> None:
    small = Store(history=3)
    t = small.add_table("", "pods", namespaced=True)
    for i in range(6):
        small.create(t, obj(f"p{i}"))
    with pytest.raises(Expired):
        small.watch(t, resource_version="1")
    w = small.watch(t, resource_version="3")
    assert [e[2] for e in drain(w)] == ["p3", "p4", "p5"]


def test_history_window_is_bounded_by_bytes() -> None:
    """The window holds at most ``history_bytes`` of object JSON (the watch cache's capacity, etcd's
    compaction): the oldest events leave it, a watch from before it is 410, one inside it replays."""
    small = Store(history_bytes=1000)
    t = small.add_table("", "pods", namespaced=True)
    sizes = [len(small.create(t, obj(f"p{i}")).data) for i in range(30)]
    assert t.history_bytes <= 1000
    assert t.history_bytes == sum(sizes[-len(t.history):])
    kept = len(t.history)
    assert 0 < kept < 30 and kept == 1000 // sizes[-1]
    oldest = t.history[0].rv
    with pytest.raises(Expired):
        small.watch(t, resource_version=str(oldest - 2))
    w = small.watch(t, resource_version=str(oldest - 1))
    assert [e[1] for e in drain(w)] == list(range(oldest, 31))
    # updates of one object keep the window bounded too (nothing grows with the number of writes)
    for v in range(200):
        small.update(t, {"metadata": {"name": "p0", "namespace": "default"}, "spec": {"v": v}})
    assert t.history_bytes <= 1000 and len(t.history) <= kept + 1


def test_history_window_keeps_the_newest_event_however_large() -> None:
    small = Store(history_bytes=10)
    t = small.add_table("", "pods", namespaced=True)
    for i in range(3):
        small.create(t, obj(f"p{i}"))
    assert [e.rv for e in t.history] == [3]
    w = small.watch(t, resource_version="2")
    assert drain(w) == [(ADDED, 3, "p2")]


def test_compaction_releases_history_bytes(store: Store, pods: Table) -> None:
    for i in range(4):
        store.create(pods, obj(f"p{i}"))
    assert pods.history_bytes == sum(len(o.data) for o in pods.objects.values())
    store.compact(3)
    assert pods.history_bytes == len(pods.objects["default/p3"].data)


@pytest.mark.parametrize(("history", "history_bytes"), [(0, 10), (10, 0)], ids=["no-events", "no-bytes"])
def test_an_empty_history_window_is_rejected(history: int, history_bytes: int) -> None:
    with pytest.raises(ValueError, match="history window"):
        Store(history=history, history_bytes=history_bytes)


def test_selector_transitions_send_added_and_deleted(store: Store, pods: Table) -> None:
    w = store.watch(pods, resource_version="0", predicate=lambda o: (o.labels or {}).get("app") == "web")
    store.create(pods, obj("a", app="db"))
    store.update(pods, obj("a", app="web"))  # starts matching -> ADDED
    store.update(pods, obj("a", app="web"))  # still matching -> MODIFIED
    store.update(pods, obj("a", app="db"))  # stops matching -> DELETED with previous state
    events = []
    while (ev := w.poll()) is not None:
        events.append((ev.type, ev.rv, ev.object["metadata"]["labels"]["app"], ev.object["metadata"]["resourceVersion"]))
    assert events == [(ADDED, 2, "web", "2"), (MODIFIED, 3, "web", "3"), (DELETED, 4, "web", "4")]


def test_pinned_watchers_only_see_their_node(store: Store, pods: Table) -> None:
    w1 = store.watch(pods, resource_version="0", trigger="node-1")
    w2 = store.watch(pods, resource_version="0", trigger="node-2")
    store.create(pods, {**obj("a"), "spec": {"nodeName": "node-1"}})
    store.create(pods, {**obj("b"), "spec": {"nodeName": "node-2"}})
    store.update(pods, {**obj("a"), "spec": {"nodeName": "node-2"}})
    assert drain(w1) == [(ADDED, 1, "a"), (DELETED, 3, "a")]
    assert drain(w2) == [(ADDED, 2, "b"), (ADDED, 3, "a")]


def test_slow_watcher_is_closed_not_silently_lossy(store: Store, pods: Table) -> None:
    w = store.watch(pods, resource_version="0", capacity=3)
    for i in range(5):
        store.create(pods, obj(f"p{i}"))
    assert w.closed
    assert w.close_reason == "too slow"
    # it still yields what it had, in order, then ends; the writer never blocked
    assert [e[2] for e in drain(w)] == ["p0", "p1", "p2"]
    assert store.revision == 5
    assert pods.watchers == []


def test_bookmarks_and_initial_events_end(store: Store, pods: Table) -> None:
    store.create(pods, obj("a"))

    def bm(rv: int, initial: bool) -> bytes:
        ann = ',"annotations":{"k8s.io/initial-events-end":"true"}' if initial else ""
        return f'{{"metadata":{{"resourceVersion":"{rv}"{ann}}}}}'.encode()

    w = store.watch(pods, send_initial_events=True, allow_bookmarks=True, bookmark_data=bm)
    first, end = w.poll(), w.poll()
    assert first is not None and first.type == ADDED
    assert end is not None and end.type == BOOKMARK
    assert end.object["metadata"]["annotations"] == {"k8s.io/initial-events-end": "true"}
    store.create(pods, obj("b"))
    w.poll()
    store.create(store.add_table("", "configmaps", namespaced=True), obj("c"))
    store.bookmark(pods, bm)
    ev = w.poll()
    assert ev is not None and ev.type == BOOKMARK and ev.rv == 3


def test_a_bookmark_round_is_one_event_and_one_shared_view_for_every_watcher(store: Store, pods: Table) -> None:
    """Upstream's cacher sends every bookmark watcher a bookmark about once a minute; with a kubelet's pod
    and Node watch per node that is two per node per minute, so one round is one event (and one decode per
    informer type through ``shared_view``), not one per watcher."""
    from kubelite.api.views import shared_view

    store.create(pods, obj("a"))
    calls: list[int] = []

    def bm(rv: int, initial: bool) -> bytes:
        calls.append(rv)
        return f'{{"metadata":{{"resourceVersion":"{rv}"}}}}'.encode()

    ws = [store.watch(pods, resource_version=str(store.revision), allow_bookmarks=True, bookmark_data=bm)
          for _ in range(3)]
    store.bookmark(pods, bm)
    evs = [w.poll() for w in ws]
    assert all(ev is not None and ev.type == BOOKMARK and ev.rv == 1 for ev in evs)
    assert calls == [1]
    first = evs[0]
    assert first is not None
    assert all(ev is first for ev in evs)
    assert shared_view(first.data) is shared_view(first.data)


def test_namespace_watchers_see_their_namespace_only_and_share_the_event(store: Store, pods: Table) -> None:
    w_default = store.watch(pods, namespace="default", resource_version="0")
    w_other = store.watch(pods, namespace="other", resource_version="0")
    w_all = store.watch(pods, resource_version="0")
    store.create(pods, obj("a"))
    store.create(pods, obj("b", ns="other"))
    store.update(pods, {**obj("a"), "spec": {"v": 1}})
    store.delete(pods, "other", "b")
    seen = {name: [(e.type, e.rv) for e in w.take(10)] for name, w in
            (("default", w_default), ("other", w_other), ("all", w_all))}
    assert seen == {"default": [(ADDED, 1), (MODIFIED, 3)], "other": [(ADDED, 2), (DELETED, 4)],
                    "all": [(ADDED, 1), (ADDED, 2), (MODIFIED, 3), (DELETED, 4)]}
    store.create(pods, obj("c"))
    # one event object for every watcher it reaches unchanged, so its cached serializations are shared
    assert w_default.take(1)[0] is w_all.take(1)[0]


@pytest.mark.parametrize(("limit", "first", "rest"), [(2, [1, 2], [3]), (3, [1, 2, 3], []), (10, [1, 2, 3], [])],
                         ids=["fewer-than-queued", "exactly", "more-than-queued"])
def test_take_returns_queued_events_in_order_up_to_a_limit(store: Store, pods: Table, limit: int,
                                                           first: list[int], rest: list[int]) -> None:
    w = store.watch(pods, resource_version="0")
    for name in ("a", "b", "c"):
        store.create(pods, obj(name))
    assert [e.rv for e in w.take(limit)] == first
    assert [e.rv for e in w.take(limit)] == rest
    assert w.take(limit) == []
