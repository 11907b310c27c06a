"""The specialised managedFields paths agree exactly with the straightforward reference.

Invariant: for any object history, :class:`FieldManager` returns the same object (same values *and*
the same JSON bytes, so the same key order) as ``ssa_reference.ReferenceFieldManager`` (tests/apiserver/ssa/ssa_reference.py), raises the same
errors, and never mutates its inputs; the copy-on-write set algebra equals the copying one.
"""

from __future__ import annotations

import copy
import functools
from typing import Any

import msgspec
import pytest
import ssa_reference as _reference
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kubelite.api.schema import Schema, builtin_schemas
from kubelite.apiserver.ssa import FieldManager
from kubelite.apiserver.ssa.apply import TypedError
from kubelite.apiserver.ssa.compare import all_fields, compare, created_fields, to_field_set
from kubelite.apiserver.ssa.fieldpath import difference, intersection, recursive_difference, union
from kubelite.apiserver.ssa.managed_fields import meta_stripped
from kubelite.errors import ApiError

_encode = msgspec.json.encode
_decode = msgspec.json.decode
POD = builtin_schemas().get("io.k8s.api.core.v1.Pod")
DEPLOYMENT = builtin_schemas().get("io.k8s.api.apps.v1.Deployment")
THING = Schema.of({
    "type": "object",
    "properties": {
        "apiVersion": {"type": "string"},
        "kind": {"type": "string"},
        "metadata": {"type": "object", "properties": {
            "name": {"type": "string"}, "uid": {"type": "string"},
            "labels": {"type": "object", "additionalProperties": {"type": "string"}},
            "finalizers": {"type": "array", "items": {"type": "string"}, "x-kubernetes-list-type": "set"},
        }},
        "spec": {"type": "object", "properties": {
            "set": {"type": "array", "items": {"type": "integer"}, "x-kubernetes-list-type": "set"},
            "ports": {
                "type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["port", "protocol"],
                "items": {"type": "object", "properties": {
                    "port": {"type": "integer"}, "protocol": {"type": "string", "default": "TCP"},
                    "name": {"type": "string"},
                }},
            },
            "selector": {"type": "object", "x-kubernetes-map-type": "atomic"},
            "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
        }},
        "status": {"type": "object", "properties": {"phase": {"type": "string"}}},
    },
})
MAIN_RESET: dict[str, Any] = {"f:status": {}}
STATUS_RESET: dict[str, Any] = {"f:spec": {}, "f:metadata": {"f:labels": {}, "f:annotations": {}}}


def _container(name: str, port: int) -> dict[str, Any]:
    return {
        "name": name, "image": f"{name}:1", "args": ["-v"],
        "ports": [{"containerPort": port, "protocol": "TCP"}, {"containerPort": port + 1, "name": "m"}],
        "env": [{"name": "A", "value": "1"}, {"name": "B", "valueFrom": {"fieldRef": {"fieldPath": "x"}}}],
        "resources": {"requests": {"cpu": "1"}, "limits": {"cpu": "2"}},
        "readinessProbe": {"httpGet": {"path": "/", "port": port}, "periodSeconds": 5},
        "volumeMounts": [{"name": "v", "mountPath": "/v"}],
    }


def _pod() -> dict[str, Any]:
    return {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "p", "namespace": "ns", "uid": "u", "labels": {"app": "a"}, "finalizers": ["f1"],
                     "ownerReferences": [{"apiVersion": "v1", "kind": "RS", "name": "r", "uid": "o1"}]},
        "spec": {"containers": [_container("a", 80), _container("b", 90)],
                 "volumes": [{"name": "v", "emptyDir": {}}],
                 "tolerations": [{"key": "k", "operator": "Exists"}], "nodeSelector": {"d": "1"}},
        "status": {"phase": "Running",
                   "conditions": [{"type": "Ready", "status": "True"}, {"type": "Initialized", "status": "True"}],
                   "containerStatuses": [{"name": "a", "ready": True, "state": {"running": {}}}]},
    }


def _deployment() -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d", "namespace": "ns", "uid": "u"},
        "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "a"}},
                 "template": {"metadata": {"labels": {"app": "a"}}, "spec": {"containers": [_container("a", 80)]}}},
    }


def _thing() -> dict[str, Any]:
    return {
        "apiVersion": "v1", "kind": "Thing", "metadata": {"name": "t", "uid": "u", "labels": {"x": "1"}},
        "spec": {"set": [1, 2, 3], "ports": [{"port": 80}, {"port": 80, "protocol": "UDP", "name": "u"}],
                 "selector": {"a": {"b": 1}}, "free": {"a": {"b": [1, {"c": 2}]}, "n": None}},
    }


KINDS = [("v1", POD, _pod), ("apps/v1", DEPLOYMENT, _deployment), ("v1", THING, _thing)]
SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.sampled_from(["", "a", "b", "TCP", "UDP", "<&>"]))
KEYS = st.sampled_from(["name", "type", "a", "b", "port", "protocol", "value", "containerPort", "status", "x"])


def _paths(v: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(v, dict):
        for k, c in v.items():
            out.extend(_paths(c, (*prefix, k)))
    elif isinstance(v, list):
        for i, c in enumerate(v):
            out.extend(_paths(c, (*prefix, i)))
    return out


def _mutate(data: st.DataObject, obj: dict[str, Any]) -> dict[str, Any]:
    """A few random edits: replace, delete, duplicate or add anywhere in the object."""
    obj = copy.deepcopy(obj)
    for _ in range(data.draw(st.integers(1, 4))):
        # the apiserver guarantees apiVersion, kind and a metadata dict; managedFields are drawn apart
        paths = [p for p in _paths(obj) if (len(p) > 1 and p[:2] != ("metadata", "managedFields"))
                 or p in (("spec",), ("status",))]
        if not paths:
            break
        path = data.draw(st.sampled_from(paths))
        parent: Any = obj
        for p in path[:-1]:
            parent = parent[p]
        last = path[-1]
        op = data.draw(st.sampled_from(["scalar", "delete", "empty", "dup", "add", "retag"]))
        if op == "scalar":
            parent[last] = data.draw(SCALARS)
        elif op == "delete":
            del parent[last]
        elif op == "empty":
            parent[last] = data.draw(st.sampled_from([{}, [], None]))
        elif op == "dup" and isinstance(parent, list):
            parent.insert(last, copy.deepcopy(parent[last]))
        elif op == "add" and isinstance(parent[last], dict):
            parent[last][data.draw(KEYS)] = data.draw(st.one_of(SCALARS, st.dictionaries(KEYS, SCALARS, max_size=2)))
        elif op == "retag" and isinstance(parent[last], dict) and parent[last]:
            key = data.draw(st.sampled_from(sorted(parent[last])))
            parent[last][key] = data.draw(SCALARS)
    return obj


def _same(fast: Any, ref: Any) -> None:
    assert fast == ref
    assert _encode(fast) == _encode(ref)  # same key order too: the stored bytes are identical


def _outcome(fn: Any, *args: Any) -> Any:
    try:
        return fn(*args)
    except TypedError as e:
        return ["TypedError", e.text()]


def _run(fn: Any, *args: Any, **kw: Any) -> Any:
    try:
        return fn(*args, **kw)
    except ApiError as e:
        return [type(e).__name__, e.message, [[c.reason, c.message, c.field] for c in e.causes]]
    except TypedError as e:  # escapes apply's before-first-apply step (in the reference too)
        return ["TypedError", e.text()]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_histories_match_the_reference(data: st.DataObject) -> None:
    api_version, schema, make = data.draw(st.sampled_from(KINDS))
    fast, ref = FieldManager(max_update_managers=3), _reference.ReferenceFieldManager(max_update_managers=3)
    live: dict[str, Any] | None = None
    obj = make()
    for step in range(data.draw(st.integers(1, 6))):
        now = f"2024-01-01T00:00:{step:02d}Z"
        manager = data.draw(st.sampled_from(["kubelet", "ctl", "kubectl", ""]))
        new = _mutate(data, obj) if step else obj
        if live is not None:
            meta = new.setdefault("metadata", {})
            choice = data.draw(st.sampled_from(["live", "absent", "reset", "edited"]))
            if choice == "live":
                meta["managedFields"] = copy.deepcopy(live["metadata"].get("managedFields"))
            elif choice == "reset":
                meta["managedFields"] = []
            elif choice == "edited" and live["metadata"].get("managedFields"):
                entries = copy.deepcopy(live["metadata"]["managedFields"])
                entries[0]["manager"] = "other"
                meta["managedFields"] = entries
            else:
                meta.pop("managedFields", None)
        if data.draw(st.booleans()):
            sub = data.draw(st.sampled_from(["", "status"])) if live is not None else ""
            ignored = STATUS_RESET if sub else data.draw(st.sampled_from([MAIN_RESET, None]))
            args = (copy.deepcopy(live), copy.deepcopy(new))
            kw = {"manager": manager, "schema": schema, "api_version": api_version, "now": now,
                  "subresource": sub, "ignored_fields": ignored}
            got = _run(fast.update, *args, **kw)
            assert args == (live, new)  # inputs untouched
            want = _run(ref.update, copy.deepcopy(live), copy.deepcopy(new), **kw)
        else:
            patch = copy.deepcopy(new)
            patch.get("metadata", {}).pop("managedFields", None)
            kw = {"manager": manager or "m", "schema": schema, "api_version": api_version, "now": now,
                  "force": data.draw(st.booleans()), "ignored_fields": MAIN_RESET}
            got = _run(fast.apply, copy.deepcopy(live), patch, **kw)
            want = _run(ref.apply, copy.deepcopy(live), copy.deepcopy(patch), **kw)
        _same(got, want)
        if isinstance(got, dict):
            live = _decode(_encode(got))  # what the store hands the next request
            obj = {k: v for k, v in live.items()}


@settings(max_examples=200, deadline=None)
@given(data=st.data())
def test_field_set_walks_match_the_reference(data: st.DataObject) -> None:
    _, schema, make = data.draw(st.sampled_from(KINDS))
    lhs = _mutate(data, make())
    rhs = _mutate(data, lhs)
    for fn, ref_fn, args in [(compare, _reference.compare, (lhs, rhs, schema)),
                             (all_fields, _reference.all_fields, (rhs, schema)),
                             (to_field_set, _reference.to_field_set, (rhs, schema)),
                             (functools.partial(to_field_set, strict=True),
                              functools.partial(_reference.to_field_set, strict=True), (rhs, schema))]:
        _same(_outcome(fn, *args), _outcome(ref_fn, *args))


def _created_composed(obj: dict[str, Any], schema: Schema, ignored: dict[str, Any] | None) -> Any:
    """What a create's manager owned before ``created_fields``: the whole set, less the reset fields
    (RecursiveDifference), less stripmeta's paths (Difference)."""
    fields = all_fields(obj, schema)
    return meta_stripped(recursive_difference(fields, ignored) if ignored else fields)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_created_fields_is_the_composition_it_replaces(data: st.DataObject) -> None:
    """A create's set in one walk equals the whole set less the reset fields less stripmeta's paths, in
    value and in wire order, for every kind, reset-field set and mutation (None only when stripmeta would
    keep something below a stripped field, which the composition then handles)."""
    _, schema, make = data.draw(st.sampled_from(KINDS))
    obj = _mutate(data, make())
    ignored = data.draw(st.sampled_from([None, MAIN_RESET, STATUS_RESET]))
    before = copy.deepcopy(obj)
    got = _outcome(created_fields, obj, schema, ignored)
    assert obj == before  # input untouched
    want = _outcome(_created_composed, obj, schema, ignored)
    if got is None:
        stripped = [v for k, v in {**obj, **obj["metadata"]}.items()
                    if k in ("apiVersion", "kind", "name", "namespace", "uid", "generation", "creationTimestamp")]
        assert any(type(v) in (dict, list) and v for v in [*stripped, obj["metadata"]]), obj
        return
    _same(got, want)


@pytest.mark.parametrize(("obj", "ignored", "want"), [
    ({"apiVersion": "v1", "kind": "Thing", "metadata": {}}, None, {}),
    ({"apiVersion": "v1", "kind": "Thing", "metadata": {"name": "t", "uid": "u"}}, None, {}),
    ({"apiVersion": "v1", "kind": "Thing", "metadata": {"name": "t", "labels": {"a": "1"}}}, None,
     {"f:metadata": {"f:labels": {".": {}, "f:a": {}}}}),
    ({"apiVersion": "v1", "kind": "Thing", "metadata": {"labels": {"a": "1"}}, "spec": {"set": [1]}},
     {"f:spec": {}, "f:metadata": {"f:labels": {}, "f:annotations": {}}}, {}),
    ({"apiVersion": "v1", "kind": "Thing", "metadata": {"name": "t"}, "status": {"x": 1}}, MAIN_RESET, {}),
    ({"apiVersion": "v1", "kind": "Thing", "metadata": {"name": {"a": 1}}}, None, None),
    ({"apiVersion": ["v1"], "kind": "Thing", "metadata": {}}, None, None),
], ids=["empty-metadata", "only-stripped-metadata", "labels", "nested-reset-empties-all", "status-reset",
        "granular-stripped-name", "granular-apiversion"])
def test_created_fields_table(obj: dict[str, Any], ignored: dict[str, Any] | None, want: Any) -> None:
    got = created_fields(obj, THING, ignored)
    assert got == want
    if want is not None:
        _same(got, _created_composed(obj, THING, ignored))


_PES = ["f:a", "f:b", "f:c", 'k:{"name":"x"}', "v:1", "i:0"]


@st.composite
def _tries(draw: st.DrawFn, depth: int = 3) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if depth == 0:
        return out
    for pe in draw(st.lists(st.sampled_from(_PES), max_size=3, unique=True)):
        child: dict[str, Any] = draw(_tries(depth - 1))
        member: bool = draw(st.booleans())
        if child and member:
            child = {".": {}, **child}
        out[pe] = child
    return out


@settings(max_examples=300, deadline=None)
@given(a=_tries(), b=_tries())
def test_set_algebra_matches_the_reference(a: dict[str, Any], b: dict[str, Any]) -> None:
    before = copy.deepcopy((a, b))
    for fn, ref_fn in [(union, _reference.union), (intersection, _reference.intersection),
                       (difference, _reference.difference), (recursive_difference, _reference.recursive_difference)]:
        assert fn(a, b) == ref_fn(a, b), fn.__name__
    assert (a, b) == before


@pytest.mark.parametrize(
    ("lhs", "rhs"),
    [
        ([{"port": 1}], [{"port": 1}, {"port": 1, "name": "x"}]),
        ([{"port": 1}, {"port": 1, "name": "x"}], [{"port": 1, "name": "y"}]),
        ([{"port": 1}, {"port": 1}], [{"port": 1}, {"port": 1, "name": "x"}]),
        ([{"port": 1}, {"port": 1}], [{"port": 1}, {"port": 1}, {"port": 2}]),
        ([{"port": 1}, {"port": 1}], []),
    ],
    ids=["dup-appears", "dup-disappears", "dups-change", "dups-kept", "dups-removed"],
)
def test_compare_duplicate_keys_matches_the_reference(lhs: list[Any], rhs: list[Any]) -> None:
    a, b = {"spec": {"ports": lhs}}, {"spec": {"ports": rhs}}
    _same(compare(a, b, THING), _reference.compare(a, b, THING))


def _status_write(data: st.DataObject, obj: dict[str, Any], now: str) -> dict[str, Any]:
    """A kubelet-like status write: usually one field it already owns, sometimes more or less."""
    new = copy.deepcopy(obj)
    status = new.setdefault("status", {})
    conditions = status.setdefault("conditions", [{"type": "Ready", "status": "True"}])
    op = data.draw(st.sampled_from(["heartbeat", "heartbeat", "flip", "phase", "same", "drop", "add", "rv"]))
    if op == "heartbeat":
        conditions[0]["lastProbeTime"] = now
    elif op == "flip" and conditions:
        cond = conditions[data.draw(st.integers(0, len(conditions) - 1))]
        cond["status"] = "False" if cond.get("status") == "True" else "True"
    elif op == "phase":
        status["phase"] = data.draw(st.sampled_from(["Running", "Pending", "Failed"]))
    elif op == "drop" and len(conditions) > 1:
        conditions.pop()
        if data.draw(st.booleans()):
            conditions[0]["lastProbeTime"] = now  # removed and changed fields in one write
    elif op == "add":
        conditions.append({"type": data.draw(st.sampled_from(["Extra", "Other"])), "status": "True"})
    elif op == "rv":  # a field nobody may own changes along with an owned one
        new["metadata"]["resourceVersion"] = now
        conditions[0]["lastProbeTime"] = now
    return new


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_repeated_same_manager_updates_match_the_reference(data: st.DataObject) -> None:
    """Kubelet-style renewals (the retimed fast path) interleaved with other writers and appliers."""
    limit = data.draw(st.sampled_from([2, 10]))
    fast, ref = FieldManager(max_update_managers=limit), _reference.ReferenceFieldManager(max_update_managers=limit)
    live: dict[str, Any] = fast.update(None, _pod(), manager="kcm", schema=POD, api_version="v1",
                                       now="2024-01-01T00:00:00Z", ignored_fields=MAIN_RESET)
    second = 0
    for _ in range(data.draw(st.integers(2, 14))):
        second += data.draw(st.integers(0, 2))  # equal seconds tie: the order falls back to names
        now = f"2024-01-01T00:00:{second:02d}Z"
        who = data.draw(st.sampled_from(
            ["kubelet", "kubelet", "kubelet", "node-controller", "kubectl", "applier", "status-applier"]
        ))
        if who.endswith("applier"):
            patch: dict[str, Any] = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "ns"}}
            if who == "applier":
                patch["metadata"]["labels"] = {"ssa": now[-3:-1]}
                kw: dict[str, Any] = {"ignored_fields": MAIN_RESET}
            else:  # applying live's own values makes the applier a co-owner (no conflict)
                patch["status"] = {"phase": live.get("status", {}).get("phase", "Running")}
                kw = {"subresource": "status", "ignored_fields": STATUS_RESET}
            kw |= {"manager": who, "schema": POD, "api_version": "v1", "now": now, "force": data.draw(st.booleans())}
            got = _run(fast.apply, copy.deepcopy(live), copy.deepcopy(patch), **kw)
            want = _run(ref.apply, copy.deepcopy(live), patch, **kw)
        else:
            if who == "kubectl":
                new = copy.deepcopy(live)
                new["metadata"]["labels"][data.draw(st.sampled_from(["app", "x"]))] = now
                kw = {"subresource": "", "ignored_fields": MAIN_RESET}
            else:
                new = _status_write(data, live, now)
                kw = {"subresource": "status", "ignored_fields": STATUS_RESET}
            if data.draw(st.booleans()):
                new["metadata"].pop("managedFields", None)  # a patch that leaves them out
            kw |= {"manager": who, "schema": POD, "api_version": "v1", "now": now}
            args = (copy.deepcopy(live), copy.deepcopy(new))
            got = _run(fast.update, *args, **kw)
            assert args == (live, new)  # inputs untouched
            want = _run(ref.update, copy.deepcopy(live), new, **kw)
        _same(got, want)
        live = _decode(_encode(got))


@pytest.mark.parametrize(
    ("field", "value", "shared"),
    [
        ("phase", "Failed", True),
        ("qosClass", "BestEffort", False),  # a field new to the kubelet: the general path
    ],
    ids=["owned-field-retimed", "new-field-general"],
)
def test_owned_field_update_only_retimes(field: str, value: str, shared: bool) -> None:
    fm = FieldManager()
    pod = _pod()
    status = pod.pop("status")
    created = fm.update(None, pod, manager="kcm", schema=POD, api_version="v1", now="2024-01-01T00:00:01Z")
    running = fm.update(created, {**created, "status": status}, manager="kubelet", schema=POD, api_version="v1",
                        now="2024-01-01T00:00:02Z", subresource="status", ignored_fields=STATUS_RESET)
    live = _decode(_encode(running))
    new = copy.deepcopy(live)
    new["status"][field] = value
    got = fm.update(live, new, manager="kubelet", schema=POD, api_version="v1", now="2024-01-01T00:00:03Z",
                    subresource="status", ignored_fields=STATUS_RESET)
    before, after = live["metadata"]["managedFields"], got["metadata"]["managedFields"]
    assert [e["manager"] for e in after] == ["kcm", "kubelet"]
    assert after[0] == before[0]
    assert after[1]["time"] == "2024-01-01T00:00:03Z"
    # the fast path hands live's FieldsV1 on as is; the general path rebuilds the changed set
    assert (after[1]["fieldsV1"] is before[1]["fieldsV1"]) is shared
    assert {**after[1], "time": None} == {**before[1], "time": None} or not shared


def _untyped_template(containers: list[Any]) -> dict[str, Any]:
    return {"metadata": {"labels": {"app": "a"}}, "spec": {"containers": containers}}


@pytest.mark.parametrize(
    ("template", "error"),
    [
        (_untyped_template([None]), ".spec.template.spec.containers: element 0: "
                                    "associative list with keys may not have a null element"),
        (_untyped_template([{"name": "a", "image": "a:1", "ports": [{"containerPort": 80}, 7]}]),
         '.spec.template.spec.containers[name="a"].ports: element 1: '
         "associative list with keys may not have non-map elements"),
    ],
    ids=["null-container", "scalar-port"],
)
def test_reapply_over_an_untyped_update_is_rejected(template: dict[str, Any], error: str) -> None:
    """Regression (found by test_histories_match_the_reference under HYPOTHESIS_PROFILE=explore): an update
    stores an object SMD cannot type (UpdateNoErrors keeps the old ownership), then the same applier applies
    the same configuration again. Pruning types the merged object (addBackOwnedItems' ToFieldSet) and fails;
    the re-apply fast path skipped pruning and so stored the untyped object instead of failing."""
    config = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d", "namespace": "ns"},
              "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "a"}}}}
    kw: dict[str, Any] = {"schema": DEPLOYMENT, "api_version": "apps/v1", "ignored_fields": MAIN_RESET}
    outcomes = []
    for fm in (FieldManager(), _reference.ReferenceFieldManager()):
        live = _decode(_encode(fm.apply(None, copy.deepcopy(config), manager="m", now="2024-01-01T00:00:00Z", **kw)))
        new = copy.deepcopy(live)
        new["spec"]["template"] = copy.deepcopy(template)
        stored = fm.update(live, new, manager="ctl", now="2024-01-01T00:00:01Z", **kw)
        assert stored["metadata"]["managedFields"] == live["metadata"]["managedFields"]  # ownership unchanged
        outcomes.append(_run(fm.apply, _decode(_encode(stored)), copy.deepcopy(config), manager="m",
                             now="2024-01-01T00:00:02Z", **kw))
    assert outcomes[0] == outcomes[1] == ["InternalError", f"failed to merge config: {error}", []]
