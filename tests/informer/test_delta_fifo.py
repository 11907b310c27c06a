"""DeltaFIFO, ported from client-go ``tools/cache/delta_fifo_test.go`` (pure, no event loop)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import pytest

from kubelite.informer import (
    DeletedFinalStateUnknown,
    Delta,
    DeltaFIFO,
    Deltas,
    DeltaType,
    FIFOClosedError,
    RequeueError,
)

ADDED, UPDATED, DELETED, REPLACED, SYNC = (
    DeltaType.ADDED, DeltaType.UPDATED, DeltaType.DELETED, DeltaType.REPLACED, DeltaType.SYNC,
)


class Obj(NamedTuple):
    name: str
    val: Any


def key(o: Any) -> str:
    return str(o.name)


class Literal:
    """upstream literalListerGetter: a fixed set of known objects."""

    def __init__(self, *objs: Obj) -> None:
        self.objs = objs

    def list_keys(self) -> list[str]:
        return [o.name for o in self.objs]

    def get_by_key(self, k: str) -> Any | None:
        return next((o for o in self.objs if o.name == k), None)


def fifo(*known: Obj, with_known: bool = True, replaced: bool = False) -> DeltaFIFO:
    return DeltaFIFO(key_func=key, known_objects=Literal(*known) if with_known else None,
                     emit_delta_type_replaced=replaced)


def pop(f: DeltaFIFO) -> Deltas:
    got: list[Deltas] = []
    out = f.pop(lambda d, initial: got.append(d))
    assert out is not None and got == [out]
    return out


def pop_all(f: DeltaFIFO) -> list[Deltas]:
    out = []
    while len(f):
        out.append(pop(f))
    return out


def tomb(name: str, obj: Any) -> DeletedFinalStateUnknown:
    return DeletedFinalStateUnknown(name, obj)


def test_fifo_order_and_accumulation() -> None:
    f = fifo(with_known=False)
    f.add(Obj("foo", 10))
    f.update(Obj("foo", 12))
    f.delete(Obj("foo", 15))
    assert f.list() == [Obj("foo", 15)]
    assert f.list_keys() == ["foo"]
    assert pop(f) == [Delta(ADDED, Obj("foo", 10)), Delta(UPDATED, Obj("foo", 12)), Delta(DELETED, Obj("foo", 15))]
    assert len(f) == 0 and f.get(Obj("foo", "")) is None
    assert f.pop(lambda d, i: None) is None


def test_detect_line_jumpers() -> None:
    f = fifo(with_known=False)
    for name, val in [("foo", 10), ("bar", 1), ("foo", 11), ("foo", 13), ("zab", 30)]:
        f.add(Obj(name, val))
    assert pop(f)[-1].object.val == 13
    f.add(Obj("foo", 14))  # foo must not jump back in line
    assert [pop(f)[-1].object.val for _ in range(3)] == [1, 30, 14]


def test_enqueueing_no_lister() -> None:
    f = fifo(with_known=False)
    f.add(Obj("foo", 10))
    f.update(Obj("bar", 15))
    f.add(Obj("qux", 17))
    f.delete(Obj("qux", 18))
    f.delete(Obj("baz", 20))  # baz is neither queued nor known: nothing to report
    assert [d[-1].object.val for d in pop_all(f)] == [10, 15, 18]


def test_enqueueing_with_lister() -> None:
    f = fifo(Obj("foo", 5), Obj("bar", 6), Obj("baz", 7))
    f.add(Obj("foo", 10))
    f.update(Obj("bar", 15))
    f.delete(Obj("baz", 20))  # baz is known: the deletion is queued
    assert [d[-1].object.val for d in pop_all(f)] == [10, 15, 20]


def test_delete_existing_non_propagated() -> None:
    f = fifo()
    f.add(Obj("foo", 5))
    f.delete(Obj("foo", 6))
    assert [d.type for d in f.get_by_key("foo") or []] == [ADDED, DELETED]


def test_consecutive_deletes_dedup_keeps_the_real_object() -> None:
    f = fifo(Obj("foo", 1))
    f.delete(tomb("foo", Obj("foo", 1)))
    f.delete(Obj("foo", 2))  # a real object replaces a tombstone
    f.delete(tomb("foo", Obj("foo", 3)))  # a tombstone never replaces a real object
    f.delete(Obj("foo", 4))  # of two real ones the older stays
    assert pop(f) == [Delta(DELETED, Obj("foo", 2))]


def test_add_replace() -> None:
    f = fifo(with_known=False)
    f.add(Obj("foo", 10))
    f.replace([Obj("foo", 15)], "0")
    assert pop(f)[-1].object.val == 15
    assert len(f) == 0 and f.get(Obj("foo", "")) is None


def test_replace_with_delete_delta_in() -> None:
    """kubernetes#83810: a Sync is queued even after a terminal Deleted for the same key."""
    old, new = Obj("foo", 1), Obj("foo", 2)
    f = fifo(old)
    f.delete(old)
    f.replace([new], "")
    assert pop(f) == [Delta(DELETED, old), Delta(SYNC, new)]


Op = tuple[str, Any]  # (DeltaFIFO method, argument); ("emit_replaced", None) flips the option


def apply(f: DeltaFIFO, ops: list[Op]) -> None:
    for method, arg in ops:
        if method == "emit_replaced":
            f.emit_delta_type_replaced = True
        elif method == "replace":
            f.replace(arg, "0")
        else:
            getattr(f, method)(arg)


OBJ, OBJ_V2 = Obj("foo", 2), Obj("foo", 3)
ONLY_IN_QUEUE: list[tuple[str, list[Op], Deltas]] = [
    ("added", [("add", OBJ), ("replace", [])],
     [Delta(ADDED, OBJ), Delta(DELETED, tomb("foo", OBJ))]),
    ("replaced-single-delete", [("emit_replaced", None), ("add", OBJ), ("replace", [OBJ]), ("replace", [])],
     [Delta(ADDED, OBJ), Delta(REPLACED, OBJ), Delta(DELETED, tomb("foo", OBJ))]),
    ("deleted-single-delete", [("add", OBJ), ("delete", OBJ), ("replace", [])],
     [Delta(ADDED, OBJ), Delta(DELETED, OBJ)]),
    ("synced-single-delete", [("add", OBJ), ("replace", [OBJ]), ("replace", [OBJ]), ("replace", [])],
     [Delta(ADDED, OBJ), Delta(SYNC, OBJ), Delta(SYNC, OBJ), Delta(DELETED, tomb("foo", OBJ))]),
    ("added-multiple-replaces", [("add", OBJ), ("replace", []), ("replace", [])],
     [Delta(ADDED, OBJ), Delta(DELETED, tomb("foo", OBJ))]),
    ("added-deleted-added", [("add", OBJ), ("delete", OBJ), ("add", OBJ_V2), ("replace", [])],
     [Delta(ADDED, OBJ), Delta(DELETED, OBJ), Delta(ADDED, OBJ_V2), Delta(DELETED, tomb("foo", OBJ_V2))]),
]


@pytest.mark.parametrize("with_known", [True, False], ids=["known-objects", "no-known-objects"])
@pytest.mark.parametrize(("ops", "expected"), [c[1:] for c in ONLY_IN_QUEUE], ids=[c[0] for c in ONLY_IN_QUEUE])
def test_replace_makes_deletions_for_objects_only_in_queue(ops: list[Op], expected: Deltas, with_known: bool) -> None:
    f = fifo(with_known=with_known)
    apply(f, ops)
    assert pop(f) == expected
    assert len(f) == 0 and f.list_keys() == []


KNOWN = (Obj("foo", 5), Obj("bar", 6), Obj("baz", 7))
REPLACE_CASES: list[tuple[str, list[Op], list[Deltas]]] = [
    ("pre-existing-delete", [("delete", Obj("baz", 10)), ("replace", [Obj("foo", 5)])], [
        [Delta(DELETED, Obj("baz", 10))],
        [Delta(SYNC, Obj("foo", 5))],
        [Delta(DELETED, tomb("bar", Obj("bar", 6)))],
    ]),
    ("pre-existing-add", [("add", Obj("baz", 10)), ("replace", [Obj("foo", 5)])], [
        [Delta(ADDED, Obj("baz", 10)), Delta(DELETED, tomb("baz", Obj("baz", 10)))],
        [Delta(SYNC, Obj("foo", 5))],
        [Delta(DELETED, tomb("bar", Obj("bar", 6)))],
    ]),
    ("delete-recreate-in-queue", [("delete", Obj("bar", 6)), ("add", Obj("bar", 100)), ("replace", [Obj("foo", 5)])], [
        [Delta(DELETED, Obj("bar", 6)), Delta(ADDED, Obj("bar", 100)),
         Delta(DELETED, tomb("bar", Obj("bar", 100)))],  # the newest queued object, not the known one
        [Delta(SYNC, Obj("foo", 5))],
        [Delta(DELETED, tomb("baz", Obj("baz", 7)))],
    ]),
    ("sync-first-uses-latest", [("replace", [Obj("bar", 100), Obj("foo", 5)]), ("replace", [Obj("foo", 5)])], [
        [Delta(SYNC, Obj("bar", 100)), Delta(DELETED, tomb("bar", Obj("bar", 100)))],
        [Delta(SYNC, Obj("foo", 5)), Delta(SYNC, Obj("foo", 5))],
        [Delta(DELETED, tomb("baz", Obj("baz", 7)))],
    ]),
]


@pytest.mark.parametrize(("ops", "expected"), [c[1:] for c in REPLACE_CASES], ids=[c[0] for c in REPLACE_CASES])
def test_replace_makes_deletions(ops: list[Op], expected: list[Deltas]) -> None:
    f = fifo(*KNOWN)
    apply(f, ops)
    assert pop_all(f) == expected


def test_replace_without_known_objects_only_tombstones_queued_keys() -> None:
    f = fifo(with_known=False)
    f.add(Obj("baz", 10))
    f.replace([Obj("foo", 5)], "0")
    assert pop_all(f) == [
        [Delta(ADDED, Obj("baz", 10)), Delta(DELETED, tomb("baz", Obj("baz", 10)))],
        [Delta(SYNC, Obj("foo", 5))],
    ]


def test_replace_makes_deletions_replaced() -> None:
    f = fifo(*KNOWN, replaced=True)
    f.delete(Obj("baz", 10))
    f.replace([Obj("foo", 6)], "0")
    assert pop_all(f) == [
        [Delta(DELETED, Obj("baz", 10))],
        [Delta(REPLACED, Obj("foo", 6))],
        [Delta(DELETED, tomb("bar", Obj("bar", 6)))],
    ]


def test_replace_delta_type() -> None:
    f = fifo(Obj("foo", 5), replaced=True)
    f.replace([Obj("foo", 5)], "0")
    assert pop_all(f) == [[Delta(REPLACED, Obj("foo", 5))]]


def test_resync_queues_sync_for_known_objects() -> None:
    f = fifo(Obj("foo", 5))
    f.resync()
    assert f.get_by_key("foo") == [Delta(SYNC, Obj("foo", 5))]


def test_resync_skips_keys_already_queued() -> None:
    f = fifo(Obj("foo", 5), Obj("bar", 6))
    f.delete(Obj("foo", 10))
    f.update(Obj("bar", 7))  # UpdateResyncRace: the queued update is newer than the cache
    f.resync()
    assert pop_all(f) == [[Delta(DELETED, Obj("foo", 10))], [Delta(UPDATED, Obj("bar", 7))]]


def test_resync_without_known_objects_is_a_noop() -> None:
    f = fifo(with_known=False)
    f.resync()
    assert len(f) == 0


def test_has_synced_correct_on_deletion() -> None:
    f = fifo(*KNOWN)
    f.replace([Obj("foo", 5)], "0")
    expected = [
        [Delta(SYNC, Obj("foo", 5))],
        [Delta(DELETED, tomb("bar", Obj("bar", 6)))],
        [Delta(DELETED, tomb("baz", Obj("baz", 7)))],
    ]
    seen: list[tuple[Deltas, bool]] = []

    def record(d: Deltas, initial: bool) -> None:
        seen.append((d, initial))

    for want in expected:
        assert not f.has_synced()
        f.pop(record)
        assert seen[-1] == (want, True)
    assert f.has_synced()
    f.add(Obj("new", 1))
    f.pop(record)
    assert seen[-1][1] is False


HAS_SYNCED: list[tuple[str, list[Callable[[DeltaFIFO], Any]], bool]] = [
    ("nothing", [], False),
    ("add-first", [lambda f: f.add(Obj("a", 1))], True),
    ("empty-replace", [lambda f: f.replace([], "0")], True),
    ("replace-unpopped", [lambda f: f.replace([Obj("a", 1), Obj("b", 2)], "0")], False),
    ("replace-half-popped", [lambda f: f.replace([Obj("a", 1), Obj("b", 2)], "0"), pop], False),
    ("replace-popped", [lambda f: f.replace([Obj("a", 1), Obj("b", 2)], "0"), pop, pop], True),
    ("replace-duplicate-keys", [lambda f: f.replace([Obj("a", 1), Obj("a", 2)], "0"), pop], True),
]


@pytest.mark.parametrize(("actions", "synced"), [c[1:] for c in HAS_SYNCED], ids=[c[0] for c in HAS_SYNCED])
def test_has_synced(actions: list[Callable[[DeltaFIFO], Any]], synced: bool) -> None:
    f = fifo(with_known=False)
    for action in actions:
        action(f)
    assert f.has_synced() is synced


@pytest.mark.parametrize(("obj", "expected"), [
    (Obj("A", 0), "A"),
    (tomb("B", None), "B"),
    ([Delta(ADDED, Obj("C", 0))], "C"),
    ([Delta(DELETED, tomb("D", None))], "D"),
], ids=["object", "tombstone", "deltas", "deltas-of-tombstone"])
def test_key_of(obj: Any, expected: str) -> None:
    assert fifo(with_known=False).key_of(obj) == expected


def test_key_of_empty_deltas_fails() -> None:
    with pytest.raises(ValueError, match="0 length Deltas"):
        fifo(with_known=False).key_of([])


def test_pop_requeue_puts_item_back() -> None:
    f = fifo(with_known=False)
    f.add(Obj("foo", 1))
    f.add(Obj("bar", 1))

    def fail(d: Deltas, initial: bool) -> None:
        raise RequeueError()

    assert f.pop(fail) == [Delta(ADDED, Obj("foo", 1))]
    assert f.list_keys() == ["bar", "foo"]  # back at the end of the line


def test_pop_requeue_reraises_inner_error_and_keeps_newer_news() -> None:
    f = fifo(with_known=False)
    f.add(Obj("foo", 1))

    def fail(d: Deltas, initial: bool) -> None:
        f.update(Obj("foo", 2))  # the key is queued again while processing
        raise RequeueError(RuntimeError("boom"))

    with pytest.raises(RuntimeError, match="boom"):
        f.pop(fail)
    assert f.get_by_key("foo") == [Delta(UPDATED, Obj("foo", 2))]


def test_pop_other_errors_drop_the_item() -> None:
    f = fifo(with_known=False)
    f.add(Obj("foo", 1))

    def fail(d: Deltas, initial: bool) -> None:
        raise KeyError("nope")

    with pytest.raises(KeyError):
        f.pop(fail)
    assert len(f) == 0


def test_notify_called_when_a_key_is_queued() -> None:
    calls: list[int] = []
    f = DeltaFIFO(key_func=key, notify=lambda: calls.append(1))
    f.add(Obj("a", 1))
    f.update(Obj("a", 2))  # already queued: no new key
    f.add(Obj("b", 1))
    assert len(calls) == 2


def test_closed_empty_queue_raises() -> None:
    f = fifo(with_known=False)
    f.add(Obj("a", 1))
    f.close()
    assert f.closed
    assert pop(f)[0].object == Obj("a", 1)  # what is queued still pops
    with pytest.raises(FIFOClosedError):
        f.pop(lambda d, i: None)


# --- drain: the informer's keyed, batched consumer; per key it must be exactly pop ---

def drain_all(f: DeltaFIFO) -> list[tuple[str, Deltas, bool, bool]]:
    """(key, deltas, is_in_initial_list, has_synced after the key) for every key drain pops."""
    out: list[tuple[str, Deltas, bool, bool]] = []

    def process(k: str, raw: list[Any], initial: bool) -> None:
        out.append((k, [Delta(raw[i], raw[i + 1]) for i in range(0, len(raw), 2)], initial, False))

    def on_error(err: BaseException) -> None:
        raise AssertionError(f"unexpected error {err!r}")

    assert f.drain(process, on_error) == len(out)
    assert len(f) == 0
    return out


DRAIN_SCENARIOS: list[tuple[str, list[Op]]] = [
    ("accumulate", [("add", Obj("a", 1)), ("update", Obj("a", 2)), ("add", Obj("b", 1)), ("delete", Obj("a", 3))]),
    ("double-delete-dedup", [("add", OBJ), ("replace", []), ("delete", OBJ)]),
    ("replace-with-deletions", [("add", Obj("a", 1)), ("add", Obj("b", 1)), ("replace", [Obj("b", 2), Obj("c", 1)])]),
    ("emit-replaced", [("emit_replaced", None), ("replace", [Obj("x", 1), Obj("y", 1)]), ("update", Obj("x", 2))]),
    *[(f"only-in-queue-{c[0]}", c[1]) for c in ONLY_IN_QUEUE],
]


@pytest.mark.parametrize("with_known", [True, False], ids=["known-objects", "no-known-objects"])
@pytest.mark.parametrize("ops", [c[1] for c in DRAIN_SCENARIOS], ids=[c[0] for c in DRAIN_SCENARIOS])
def test_drain_hands_out_what_pop_does(ops: list[Op], with_known: bool) -> None:
    known = (Obj("b", 0), Obj("k", 0))
    by_pop, by_drain = fifo(*known, with_known=with_known), fifo(*known, with_known=with_known)
    apply(by_pop, ops)
    apply(by_drain, ops)
    want: list[tuple[str, Deltas, bool]] = []
    while len(by_pop):
        by_pop.pop(lambda d, initial: want.append((by_pop.key_of(d), d, initial)))
    got = drain_all(by_drain)
    assert [(k, d, i) for k, d, i, _ in got] == want
    assert by_drain.has_synced() is by_pop.has_synced()
    assert len(by_drain) == 0


def test_drain_marks_initial_list_and_syncs_like_pop() -> None:
    f = fifo(with_known=False)
    f.replace([Obj("a", 1), Obj("b", 2)], "0")
    initial: list[bool] = []
    synced: list[bool] = []

    def process(k: str, raw: list[Any], is_initial: bool) -> None:
        initial.append(is_initial)
        synced.append(f.has_synced())
        if k == "b":
            f.add(Obj("late", 1))  # queued while draining: popped by the same call, after the initial list

    assert f.drain(process, lambda e: None) == 3
    assert initial == [True, True, False]
    assert synced == [False, True, True]
    assert f.has_synced() and len(f) == 0


def test_drain_requeue_puts_the_key_back_and_reports_its_error() -> None:
    f = fifo(with_known=False)
    f.add(Obj("a", 1))
    f.add(Obj("b", 1))
    errors: list[BaseException] = []
    calls: list[str] = []

    def process(k: str, raw: list[Any], initial: bool) -> None:
        calls.append(k)
        if k == "a" and calls.count("a") == 1:
            raise RequeueError(KeyError("retry me"))

    assert f.drain(process, errors.append) == 3  # a (requeued), b, a again
    assert calls == ["a", "b", "a"]
    assert [type(e) for e in errors] == [KeyError]


def test_drain_requeue_loses_to_a_newer_change() -> None:
    f = fifo(with_known=False)
    f.add(Obj("a", 1))
    got: list[list[Any]] = []

    def process(k: str, raw: list[Any], initial: bool) -> None:
        got.append(list(raw))
        if len(got) == 1:
            f.update(Obj("a", 2))  # newer news arrives while the old is being processed
            raise RequeueError()

    f.drain(process, lambda e: None)
    assert got == [[ADDED, Obj("a", 1)], [UPDATED, Obj("a", 2)]]


def test_drain_reports_other_errors_drops_the_key_and_goes_on() -> None:
    f = fifo(with_known=False)
    for name in ("a", "b", "c"):
        f.add(Obj(name, 1))
    errors: list[BaseException] = []
    done: list[str] = []

    def process(k: str, raw: list[Any], initial: bool) -> None:
        if k == "b":
            raise ValueError("bug")
        done.append(k)

    assert f.drain(process, errors.append) == 3
    assert done == ["a", "c"]
    assert [str(e) for e in errors] == ["bug"]
    assert len(f) == 0 and f.get_by_key("b") is None


def test_drain_on_a_closed_empty_queue_returns_zero() -> None:
    f = fifo(with_known=False)
    f.close()
    assert f.drain(lambda k, raw, i: None, lambda e: None) == 0
