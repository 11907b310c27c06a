"""FieldManager: ownership on updates and server-side apply.

Scenarios are ported from structured-merge-diff's merge tests (multiple_appliers_test.go,
set_test.go, key_test.go) and apimachinery's managedfields fieldmanager_test.go.
"""

from __future__ import annotations

import copy
from typing import Any

import msgspec
import pytest

from kubelite.api.schema import Schema, builtin_schemas
from kubelite.apiserver.ssa import FieldManager, ignore_managed_fields_timestamps
from kubelite.apiserver.ssa.fieldpath import to_fields_v1
from kubelite.errors import ApiError, BadRequest, Conflict, InternalError

T0, T1, T2, T3 = (f"2024-01-01T00:00:0{i}Z" for i in range(4))

LIST_SCHEMA = Schema.of({
    "type": "object",
    "properties": {
        "apiVersion": {"type": "string"},
        "kind": {"type": "string"},
        "metadata": {
            "type": "object",
            "properties": {
                "name": {"type": "string"},
                "uid": {"type": "string"},
                "resourceVersion": {"type": "string"},
                "labels": {"type": "object", "additionalProperties": {"type": "string"}},
                "finalizers": {"type": "array", "items": {"type": "string"}, "x-kubernetes-list-type": "set"},
                "managedFields": {"type": "array", "items": {"type": "object"}},
            },
        },
        "spec": {
            "type": "object",
            "properties": {
                "replicas": {"type": "integer"},
                "paused": {"type": "boolean"},
                "list": {
                    "type": "array",
                    "x-kubernetes-list-type": "map",
                    "x-kubernetes-list-map-keys": ["name"],
                    "items": {"type": "object", "properties": {"name": {"type": "string"}, "value": {"type": "integer"}}},
                },
                "set": {"type": "array", "items": {"type": "string"}, "x-kubernetes-list-type": "set"},
            },
        },
        "status": {"type": "object", "properties": {"phase": {"type": "string"}}},
    },
})


def obj(spec: dict[str, Any] | None = None, **meta: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"apiVersion": "v1", "kind": "Thing", "metadata": {"name": "x", **meta}}
    if spec is not None:
        out["spec"] = spec
    return out


def apply(fm: FieldManager, live: dict[str, Any] | None, patch: dict[str, Any], manager: str, now: str = T0, **kw: Any) -> dict[str, Any]:
    return fm.apply(live, patch, manager=manager, schema=LIST_SCHEMA, api_version="v1", now=now, **kw)


def update(fm: FieldManager, live: dict[str, Any] | None, new: dict[str, Any], manager: str, now: str = T0, **kw: Any) -> dict[str, Any]:
    return fm.update(live, new, manager=manager, schema=LIST_SCHEMA, api_version="v1", now=now, **kw)


def owners(o: dict[str, Any]) -> dict[tuple[str, str, str], dict[str, Any]]:
    return {
        (e["manager"], e["operation"], e.get("subresource", "")): e["fieldsV1"]
        for e in o["metadata"].get("managedFields", [])
    }


def item(name: str) -> str:
    return f'k:{{"name":"{name}"}}'


def items_owned(*names: str, value: bool = False) -> dict[str, Any]:
    return {
        item(n): ({".": {}, "f:name": {}, "f:value": {}} if value else {".": {}, "f:name": {}}) for n in names
    }


# --- multiple appliers on an associative list (multiple_appliers_test.go TestMultipleAppliersSet) ---


@pytest.mark.parametrize(
    ("ops", "want_list", "want_owners"),
    [
        (
            [("one", ["a", "b"]), ("two", ["c"]), ("one", ["a"])],
            ["a", "c"],
            {"one": items_owned("a"), "two": items_owned("c")},
        ),
        (
            [("one", ["a", "b", "c"]), ("two", ["c", "d"]), ("one", ["a"])],
            ["a", "c", "d"],
            {"one": items_owned("a"), "two": items_owned("c", "d")},
        ),
        (
            [("one", ["a", "b"]), ("two", ["b"]), ("one", [])],
            ["b"],
            {"two": items_owned("b")},
        ),
    ],
    ids=["remove_one", "remove_one_keep_one", "shared_item_survives"],
)
def test_multiple_appliers_list(ops: list[tuple[str, list[str]]], want_list: list[str], want_owners: dict[str, Any]) -> None:
    fm = FieldManager()
    live: dict[str, Any] | None = None
    for manager, names in ops:
        live = apply(fm, live, obj({"list": [{"name": n} for n in names]}), manager)
    assert live is not None
    assert [i["name"] for i in live["spec"]["list"]] == want_list
    got = {m: f["f:spec"]["f:list"] for (m, _, _), f in owners(live).items()}
    assert got == want_owners


def test_same_value_no_conflict_both_own() -> None:
    fm = FieldManager()
    live = apply(fm, None, obj({"list": [{"name": "a", "value": 0}]}), "one")
    live = apply(fm, live, obj({"list": [{"name": "a", "value": 0}]}), "two", T1)
    got = owners(live)
    assert got[("one", "Apply", "")] == got[("two", "Apply", "")] == {"f:spec": {"f:list": items_owned("a", value=True)}}


def test_change_value_conflicts_with_exact_message() -> None:
    fm = FieldManager()
    live = apply(fm, None, obj({"list": [{"name": "a", "value": 0}]}), "one")
    before = copy.deepcopy(live)
    with pytest.raises(Conflict) as e:
        apply(fm, live, obj({"list": [{"name": "a", "value": 1}]}), "two", T1)
    assert e.value.status.code == 409
    assert e.value.message == 'Apply failed with 1 conflict: conflict with "one": .spec.list[name="a"].value'
    assert [(c.reason, c.message, c.field) for c in e.value.causes] == [
        ("FieldManagerConflict", 'conflict with "one"', '.spec.list[name="a"].value'),
    ]
    assert live == before


def test_force_moves_ownership() -> None:
    fm = FieldManager()
    live = apply(fm, None, obj({"replicas": 1, "paused": True}), "one")
    live = apply(fm, live, obj({"replicas": 2}), "two", T1, force=True)
    assert live["spec"] == {"replicas": 2, "paused": True}
    got = owners(live)
    assert got[("one", "Apply", "")] == {"f:spec": {"f:paused": {}}}
    assert got[("two", "Apply", "")] == {"f:spec": {"f:replicas": {}}}


def test_several_conflicts_are_listed() -> None:
    fm = FieldManager()
    live = apply(fm, None, obj({"replicas": 1, "paused": True}), "one")
    with pytest.raises(Conflict) as e:
        apply(fm, live, obj({"replicas": 2, "paused": False}), "two", T1)
    assert e.value.message == 'Apply failed with 2 conflicts: conflicts with "one":\n- .spec.paused\n- .spec.replicas'


def test_update_then_conflicting_apply() -> None:
    fm = FieldManager()
    live = apply(fm, None, obj({"replicas": 1}), "kubectl")
    edited = copy.deepcopy(live)
    edited["spec"]["replicas"] = 3
    live = update(fm, live, edited, "kubectl-edit", T1)
    assert owners(live) == {("kubectl-edit", "Update", ""): {"f:spec": {"f:replicas": {}}}}
    with pytest.raises(Conflict) as e:
        apply(fm, live, obj({"replicas": 1}), "kubectl", T2)
    assert e.value.message == 'Apply failed with 1 conflict: conflict with "kubectl-edit" using v1: .spec.replicas'
    assert e.value.causes[0].message == 'conflict with "kubectl-edit" using v1'


@pytest.mark.parametrize(
    ("other_owns", "want_spec"),
    [(False, {"paused": True}), (True, {"replicas": 1, "paused": True})],
    ids=["unowned-is-deleted", "co-owned-is-kept"],
)
def test_dropping_a_field_from_the_configuration(other_owns: bool, want_spec: dict[str, Any]) -> None:
    fm = FieldManager()
    live = apply(fm, None, obj({"replicas": 1, "paused": True}), "one")
    if other_owns:
        live = apply(fm, live, obj({"replicas": 1}), "two", T1)
    live = apply(fm, live, obj({"paused": True}), "one", T2)
    assert live["spec"] == want_spec
    assert owners(live)[("one", "Apply", "")] == {"f:spec": {"f:paused": {}}}


def test_dropping_a_field_owned_by_an_updater_keeps_it() -> None:
    fm = FieldManager()
    live = apply(fm, None, obj({"replicas": 1}), "one")
    edited = copy.deepcopy(live)
    edited["metadata"]["labels"] = {"team": "a"}
    live = update(fm, live, edited, "editor", T1)
    live = apply(fm, live, obj({"paused": True}), "one", T2)
    assert live["spec"] == {"paused": True}
    assert live["metadata"]["labels"] == {"team": "a"}


def test_set_list_appliers() -> None:
    fm = FieldManager()
    live = apply(fm, None, obj({"set": ["a", "b"]}), "one")
    live = apply(fm, live, obj({"set": ["c"]}), "two", T1)
    live = apply(fm, live, obj({"set": ["b"]}), "one", T2)
    assert live["spec"]["set"] == ["b", "c"]
    assert owners(live)[("two", "Apply", "")] == {"f:spec": {"f:set": {'v:"c"': {}}}}


def test_merge_keeps_live_order_and_appends_new_items() -> None:
    fm = FieldManager()
    live = apply(fm, None, obj({"list": [{"name": "a"}, {"name": "b"}]}), "one")
    live = apply(fm, live, obj({"list": [{"name": "c"}, {"name": "b", "value": 2}]}), "two", T1)
    assert live["spec"]["list"] == [{"name": "a"}, {"name": "c"}, {"name": "b", "value": 2}]


# --- updates --------------------------------------------------------------------------------------


def test_create_owns_every_field_set() -> None:
    fm = FieldManager()
    new = obj({"replicas": 1, "list": [{"name": "a"}]}, labels={"app": "x"})
    out = update(fm, None, new, "kubectl-create")
    assert out["metadata"]["managedFields"] == [{
        "manager": "kubectl-create", "operation": "Update", "apiVersion": "v1", "time": T0, "fieldsType": "FieldsV1",
        "fieldsV1": {
            "f:metadata": {"f:labels": {".": {}, "f:app": {}}},
            "f:spec": {".": {}, "f:list": {".": {}, item("a"): {".": {}, "f:name": {}}}, "f:replicas": {}},
        },
    }]
    assert "managedFields" not in new["metadata"]


def test_update_takes_changed_fields_and_keeps_time_when_nothing_changes() -> None:
    fm = FieldManager()
    live = update(fm, None, obj({"replicas": 1, "paused": False}, uid="u"), "creator")
    new = copy.deepcopy(live)
    new["spec"]["replicas"] = 2
    live = update(fm, live, new, "scaler", T1)
    got = owners(live)
    assert got[("creator", "Update", "")] == {"f:spec": {".": {}, "f:paused": {}}}
    assert got[("scaler", "Update", "")] == {"f:spec": {"f:replicas": {}}}
    again = update(fm, live, copy.deepcopy(live), "scaler", T2)
    assert again["metadata"]["managedFields"] == live["metadata"]["managedFields"]


def test_status_subresource_managers_are_separate() -> None:
    fm = FieldManager()
    live = update(fm, None, obj({"replicas": 1}, uid="u"), "ctl")
    new = copy.deepcopy(live)
    new["status"] = {"phase": "Running"}
    live = update(fm, live, new, "ctl", T1, subresource="status")
    entries = live["metadata"]["managedFields"]
    assert [(e["manager"], e.get("subresource")) for e in entries] == [("ctl", None), ("ctl", "status")]
    assert entries[1]["fieldsV1"] == {"f:status": {".": {}, "f:phase": {}}}


def test_subresource_ignores_request_managed_fields() -> None:
    fm = FieldManager()
    live = update(fm, None, obj({"replicas": 1}, uid="u"), "ctl")
    new = copy.deepcopy(live)
    new["metadata"]["managedFields"] = []
    new["status"] = {"phase": "Running"}
    out = update(fm, live, new, "kubelet", T1, subresource="status")
    assert set(owners(out)) == {("ctl", "Update", ""), ("kubelet", "Update", "status")}


@pytest.mark.parametrize(
    ("requested", "want"),
    [
        (None, {("ctl", "Update", ""), ("editor", "Update", "")}),
        ([], set()),
        ([{}], set()),
        (
            [{"manager": "forged", "operation": "Apply", "apiVersion": "v1", "fieldsType": "FieldsV1", "fieldsV1": {"f:spec": {"f:paused": {}}}}],
            {("forged", "Apply", ""), ("editor", "Update", "")},
        ),
        ([{"manager": "bad", "operation": "Nope"}], {("ctl", "Update", ""), ("editor", "Update", "")}),
    ],
    ids=["absent-keeps-live", "empty-resets", "single-empty-entry-resets", "non-empty-replaces", "invalid-keeps-live"],
)
def test_request_managed_fields(requested: list[Any] | None, want: set[tuple[str, str, str]]) -> None:
    fm = FieldManager()
    live = update(fm, None, obj({"replicas": 1, "paused": True}, uid="u"), "ctl")
    new = copy.deepcopy(live)
    new["spec"]["replicas"] = 2
    if requested is None:
        del new["metadata"]["managedFields"]
    else:
        new["metadata"]["managedFields"] = requested
    out = update(fm, live, new, "editor", T1)
    assert set(owners(out)) == want


def test_update_of_untracked_object_stays_untracked() -> None:
    fm = FieldManager()
    live = obj({"replicas": 1}, uid="u")
    new = obj({"replicas": 2}, uid="u")
    out = update(fm, live, new, "editor")
    assert "managedFields" not in out["metadata"]
    assert out == new
    assert out is not new


def test_meta_fields_are_never_owned() -> None:
    fm = FieldManager()
    out = update(fm, None, obj({"replicas": 1}, uid="u", resourceVersion="7"), "ctl")
    assert out["metadata"]["managedFields"][0]["fieldsV1"] == {"f:spec": {".": {}, "f:replicas": {}}}


def test_update_manager_cap() -> None:
    fm = FieldManager(max_update_managers=10)
    live = update(fm, None, obj({}, uid="u"), "creator", "2024-01-01T00:00:00Z")
    for i in range(12):
        new = copy.deepcopy(live)
        new["metadata"].setdefault("labels", {})[f"l{i}"] = "x"
        live = update(fm, live, new, f"m{i:02d}", f"2024-01-01T00:01:{i:02d}Z")
    names = [e["manager"] for e in live["metadata"]["managedFields"]]
    assert len(names) == 10
    assert names[0] == "ancient-changes"
    # The oldest updater (creator) becomes the bucket; m00..m02 are folded into it.
    assert live["metadata"]["managedFields"][0]["fieldsV1"] == {
        "f:metadata": {"f:labels": {".": {}, "f:l0": {}, "f:l1": {}, "f:l2": {}}},
        "f:spec": {},
    }
    assert live["metadata"]["managedFields"][0]["time"] == "2024-01-01T00:01:02Z"
    assert names[1:] == [f"m{i:02d}" for i in range(3, 12)]


# --- apply specifics ------------------------------------------------------------------------------


def test_create_via_apply_returns_the_patch_with_ownership() -> None:
    fm = FieldManager()
    patch = obj({"replicas": 1})
    out = apply(fm, None, patch, "kubectl")
    assert {k: v for k, v in out.items() if k != "metadata"} == {k: v for k, v in patch.items() if k != "metadata"}
    assert out["metadata"]["managedFields"] == [{
        "manager": "kubectl", "operation": "Apply", "apiVersion": "v1", "time": T0, "fieldsType": "FieldsV1",
        "fieldsV1": {"f:spec": {"f:replicas": {}}},
    }]
    out["spec"]["replicas"] = 5
    assert patch["spec"]["replicas"] == 1


def test_first_apply_attributes_existing_fields_to_before_first_apply() -> None:
    fm = FieldManager()
    live = obj({"replicas": 1, "paused": True}, uid="u")
    with pytest.raises(Conflict) as e:
        apply(fm, live, obj({"replicas": 2}), "kubectl")
    assert e.value.message == 'Apply failed with 1 conflict: conflict with "before-first-apply" using v1: .spec.replicas'
    out = apply(fm, live, obj({"replicas": 1}), "kubectl")
    assert set(owners(out)) == {("before-first-apply", "Update", ""), ("kubectl", "Apply", "")}


def test_noop_apply_retimes_and_is_then_ignored() -> None:
    # ReturnInputOnNoop: the field manager re-times the applier; IgnoreManagedFieldsTimestampsTransformer
    # then sees a timestamp-only change and keeps the stored entries (no write).
    fm = FieldManager()
    live = apply(fm, None, obj({"replicas": 1}), "kubectl", T0)
    again = apply(fm, live, obj({"replicas": 1}), "kubectl", T3)
    assert again["metadata"]["managedFields"][0]["time"] == T3
    assert ignore_managed_fields_timestamps(again, live)
    assert again["metadata"]["managedFields"][0]["time"] == T0


def test_apply_sharing_a_field_is_not_a_timestamp_only_change() -> None:
    fm = FieldManager()
    live = apply(fm, None, obj({"replicas": 1, "paused": True}), "a", T0)
    shared = apply(fm, live, obj({"replicas": 1}), "b", T1)
    assert shared["spec"] == live["spec"]
    assert not ignore_managed_fields_timestamps(shared, live)
    assert set(owners(shared)) == {("a", "Apply", ""), ("b", "Apply", "")}


@pytest.mark.parametrize(
    ("patch", "cls", "message"),
    [
        ({"kind": "Thing", "metadata": {"name": "x"}}, BadRequest, "invalid object type: /, Kind=Thing"),
        ({"apiVersion": "v1", "metadata": {"name": "x"}}, BadRequest, "invalid object type: /v1, Kind="),
        ({"apiVersion": "apps/v2", "kind": "Thing"}, BadRequest, "invalid object type: apps/v2, Kind=Thing"),
        ({"apiVersion": "v1", "kind": "Thing", "metadata": {"managedFields": []}}, BadRequest, "metadata.managedFields must be nil"),
        (
            {"apiVersion": "v1", "kind": "Thing", "metadata": {"name": "x"}, "spec": {"list": [{"name": "a"}, {"name": "a"}]}},
            InternalError,
            'failed to create typed patch object (/x; /v1, Kind=Thing): .spec.list: duplicate entries for key [name="a"]',
        ),
        (
            {"apiVersion": "v1", "kind": "Thing", "metadata": {"name": "x"}, "spec": {"bogus": 1, "list": [{"value": 1}]}},
            InternalError,
            "failed to create typed patch object (/x; /v1, Kind=Thing): errors:\n  .spec.bogus: field not declared in schema\n"
            '  .spec.list: element 0: associative list with keys has an element that omits all key fields ["name"] '
            "(and doesn't have default values for any key fields)",
        ),
    ],
    ids=["no-api-version", "no-kind", "wrong-version", "managed-fields", "duplicates", "undeclared-and-keyless"],
)
def test_apply_rejects(patch: dict[str, Any], cls: type[ApiError], message: str) -> None:
    with pytest.raises(cls) as e:
        apply(FieldManager(), None, patch, "kubectl")
    assert e.value.message == message
    assert e.value.status.code == cls.code


def test_apply_checks_kind_against_live() -> None:
    fm = FieldManager()
    live = apply(fm, None, obj({"replicas": 1}), "kubectl")
    with pytest.raises(BadRequest) as e:
        apply(fm, live, {"apiVersion": "v1", "kind": "Other", "metadata": {"name": "x"}}, "kubectl")
    assert e.value.message == "invalid object type: /v1, Kind=Other"


def test_ignored_fields_are_not_owned() -> None:
    fm = FieldManager()
    out = fm.apply(
        None, {**obj({"replicas": 1}), "status": {"phase": "x"}}, manager="m", schema=LIST_SCHEMA, api_version="v1",
        now=T0, ignored_fields={"f:status": {}},
    )
    assert owners(out)[("m", "Apply", "")] == {"f:spec": {"f:replicas": {}}}


# --- the built-in Deployment schema ----------------------------------------------------------------

DEPLOYMENT = builtin_schemas().get("io.k8s.api.apps.v1.Deployment")


def deployment(replicas: int = 2, image: str = "nginx:1", **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "default", "labels": {"app": "web"}},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": "web"}},
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [{"name": "nginx", "image": image, "ports": [{"containerPort": 80, "protocol": "TCP"}]}]},
            },
            **spec,
        },
    }


def dapply(fm: FieldManager, live: dict[str, Any] | None, patch: dict[str, Any], manager: str, now: str = T0, **kw: Any) -> dict[str, Any]:
    return fm.apply(live, patch, manager=manager, schema=DEPLOYMENT, api_version="apps/v1", now=now, kind="Deployment", **kw)


def test_deployment_apply_fields() -> None:
    out = dapply(FieldManager(), None, deployment(), "kubectl")
    assert out["metadata"]["managedFields"][0]["fieldsV1"] == {
        "f:metadata": {"f:labels": {"f:app": {}}},
        "f:spec": {
            "f:replicas": {},
            "f:selector": {},
            "f:template": {
                "f:metadata": {"f:labels": {"f:app": {}}},
                "f:spec": {"f:containers": {'k:{"name":"nginx"}': {
                    ".": {}, "f:image": {}, "f:name": {},
                    "f:ports": {'k:{"containerPort":80,"protocol":"TCP"}': {".": {}, "f:containerPort": {}, "f:protocol": {}}},
                }}},
            },
        },
    }


def test_deployment_scale_by_editor_conflicts_with_reapply() -> None:
    fm = FieldManager()
    live = dapply(fm, None, deployment(), "kubectl")
    live["metadata"]["uid"] = "u"
    edited = copy.deepcopy(live)
    edited["spec"]["replicas"] = 5
    live = fm.update(live, edited, manager="kubectl-edit", schema=DEPLOYMENT, api_version="apps/v1", now=T1)
    with pytest.raises(Conflict) as e:
        dapply(fm, live, deployment(image="nginx:2"), "kubectl", T2)
    assert e.value.message == 'Apply failed with 1 conflict: conflict with "kubectl-edit" using apps/v1: .spec.replicas'
    # Leaving replicas out of the configuration hands it over without a conflict.
    cfg = deployment(image="nginx:2")
    del cfg["spec"]["replicas"]
    out = dapply(fm, live, cfg, "kubectl", T2)
    assert out["spec"]["replicas"] == 5
    assert out["spec"]["template"]["spec"]["containers"][0]["image"] == "nginx:2"


def test_deployment_container_removed_when_dropped_from_config() -> None:
    fm = FieldManager()
    cfg = deployment()
    cfg["spec"]["template"]["spec"]["containers"].append({"name": "sidecar", "image": "envoy"})
    live = dapply(fm, None, cfg, "kubectl")
    live = dapply(fm, live, deployment(), "kubectl", T1)
    assert [c["name"] for c in live["spec"]["template"]["spec"]["containers"]] == ["nginx"]


def test_deployment_two_appliers_share_labels() -> None:
    fm = FieldManager()
    live = dapply(fm, None, deployment(), "kubectl")
    other = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "labels": {"app": "web", "team": "a"}}}
    live = dapply(fm, live, other, "labeler", T1)
    assert live["metadata"]["labels"] == {"app": "web", "team": "a"}
    got = owners(live)
    assert got[("labeler", "Apply", "")] == {"f:metadata": {"f:labels": {"f:app": {}, "f:team": {}}}}
    # kubectl drops its labels: app stays (labeler owns it too).
    cfg = deployment()
    del cfg["metadata"]["labels"]
    live = dapply(fm, live, cfg, "kubectl", T2)
    assert live["metadata"]["labels"] == {"app": "web", "team": "a"}


def test_create_fields_are_in_wire_order() -> None:
    cfg = deployment()
    cfg["spec"]["template"]["spec"]["containers"] = [
        {"name": "z", "image": "b", "ports": [{"containerPort": 9, "protocol": "UDP"}, {"containerPort": 10, "protocol": "TCP"}]},
        {"name": "a", "image": "a"},
    ]
    out = FieldManager().update(None, cfg, manager="kubectl-create", schema=DEPLOYMENT, api_version="apps/v1", now=T0)
    fields = out["metadata"]["managedFields"][0]["fieldsV1"]
    assert msgspec.json.encode(fields) == msgspec.json.encode(to_fields_v1(fields))
    containers = fields["f:spec"]["f:template"]["f:spec"]["f:containers"]
    assert list(containers) == [".", 'k:{"name":"a"}', 'k:{"name":"z"}']
    assert list(containers['k:{"name":"z"}']["f:ports"]) == [
        ".", 'k:{"containerPort":9,"protocol":"UDP"}', 'k:{"containerPort":10,"protocol":"TCP"}',
    ]
