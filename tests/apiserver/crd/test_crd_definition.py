"""CRD defaulting and validation (apiextensions validation.go, v1/defaults.go) and CustomResourceSchema."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from kubelite.apiserver.crd import CustomResourceSchema, crd_defaults, validate_crd

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "spec": {
            "type": "object",
            "properties": {
                "replicas": {"type": "integer", "default": 1},
                "color": {"type": "string"},
                "ports": {"type": "array", "items": {"type": "integer"}},
            },
        },
        "status": {"type": "object", "properties": {"replicas": {"type": "integer"}}},
    },
}


def make_crd() -> dict[str, Any]:
    crd: dict[str, Any] = {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {
            "group": "example.com",
            "scope": "Namespaced",
            "names": {"plural": "widgets", "kind": "Widget"},
            "versions": [{
                "name": "v1", "served": True, "storage": True,
                "schema": {"openAPIV3Schema": copy.deepcopy(SCHEMA)},
                "subresources": {"status": {}, "scale": {"specReplicasPath": ".spec.replicas",
                                                         "statusReplicasPath": ".status.replicas"}},
                "selectableFields": [{"jsonPath": ".spec.color"}],
            }],
        },
    }
    crd_defaults(crd)
    return crd


def test_defaults() -> None:
    crd = make_crd()
    assert crd["spec"]["names"]["singular"] == "widget"
    assert crd["spec"]["names"]["listKind"] == "WidgetList"
    assert crd["spec"]["conversion"] == {"strategy": "None"}
    assert crd["status"]["storedVersions"] == ["v1"]


def test_defaults_keep_explicit_names() -> None:
    crd = make_crd()
    crd["spec"]["names"].update(singular="thing", listKind="Things")
    crd_defaults(crd)
    assert (crd["spec"]["names"]["singular"], crd["spec"]["names"]["listKind"]) == ("thing", "Things")


def test_valid_crd() -> None:
    assert validate_crd(make_crd()) == []


def _second_version(crd: dict[str, Any], **kw: Any) -> None:
    v2 = copy.deepcopy(crd["spec"]["versions"][0])
    v2.update({"name": "v2", **kw})
    crd["spec"]["versions"].append(v2)


def _set(path: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def mutate(crd: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        node: Any = crd
        for p in parents:
            node = node[int(p)] if isinstance(node, list) else node[p]
        if value is _DELETE:
            del node[last]
        else:
            node[last] = value
    return mutate


_DELETE = object()
V0 = "spec.versions.0"
SV = "spec.validation.openAPIV3Schema"

CASES: list[tuple[str, Callable[[dict[str, Any]], None], list[str]]] = [
    ("bad-name", _set("metadata.name", "widgets.other.com"),
     ['metadata.name: Invalid value: "widgets.other.com": must be spec.names.plural+"."+spec.group']),
    ("group-without-dot", lambda c: (c["spec"].update(group="example"), c["metadata"].update(name="widgets.example")),
     ['spec.group: Invalid value: "example": should be a domain with at least one dot']),
    ("bad-scope", _set("spec.scope", "Global"),
     ['spec.scope: Unsupported value: "Global": supported values: "Cluster", "Namespaced"']),
    ("two-storage-versions", lambda c: _second_version(c, storage=True),
     ["spec.versions: Invalid value: "]),
    ("duplicate-version-names", lambda c: _second_version(c, name="v1", storage=False),
     ["spec.versions: Invalid value: "]),
    ("no-versions", _set("spec.versions", []), ["spec.versions: Invalid value: []: must have exactly one version"]),
    ("bad-version-name", _set(f"{V0}.name", "V1"), ['spec.versions[0].name: Invalid value: "V1": a DNS-1035 label']),
    ("missing-schema", _set(f"{V0}.schema", _DELETE), [
        "spec.versions[0].schema.openAPIV3Schema: Required value",
        'spec.selectableFields: Invalid value: "": may only be set when validations.schema is included',
    ]),
    ("non-structural", _set(f"{V0}.schema.openAPIV3Schema.properties.spec.properties.color", {}),
     [f"{SV}.properties[spec].properties[color].type: Required value: must not be empty for specified object fields"]),
    ("bad-default", _set(f"{V0}.schema.openAPIV3Schema.properties.spec.properties.replicas.default", "one"),
     [f'{SV}.properties[spec].properties[replicas].default: Invalid value: "string":  in body must be of type '
      'integer: "string"']),
    ("unpruned-default", _set(f"{V0}.schema.openAPIV3Schema.properties.spec.default", {"bogus": 1}),
     [f'{SV}.properties[spec].default: Invalid value: {{"bogus":1}}: must not have unknown fields']),
    ("status-root-keyword", _set(f"{V0}.schema.openAPIV3Schema.minProperties", 1),
     [f"{SV}: Invalid value: "]),
    ("plural-invalid", lambda c: (c["spec"]["names"].update(plural="Widgets"),
                                  c["metadata"].update(name="Widgets.example.com")),
     ['metadata.name: Invalid value: "Widgets.example.com": a lowercase RFC 1123 subdomain',
      'spec.names.plural: Invalid value: "Widgets": a DNS-1035 label']),
    ("kind-equals-list-kind", _set("spec.names.listKind", "Widget"),
     ['spec.names.listKind: Invalid value: "Widget": kind and listKind may not be the same']),
    ("missing-kind", lambda c: c["spec"]["names"].update(kind="", listKind="WL"),
     ["spec.names.kind: Required value"]),
    ("scale-path-not-under-spec", _set(f"{V0}.subresources.scale.specReplicasPath", ".status.replicas"),
     ['spec.subresources.scale.specReplicasPath: Invalid value: ".status.replicas": should be a json path under .spec']),
    ("scale-path-not-json-path", _set(f"{V0}.subresources.scale.statusReplicasPath", "status.replicas"),
     ['spec.subresources.scale.statusReplicasPath: Invalid value: "status.replicas": must be a simple json path '
      "starting with ."]),
    ("selectable-not-scalar", _set(f"{V0}.selectableFields", [{"jsonPath": ".spec.ports"}]),
     ['spec.selectableFields[0].jsonPath: Invalid value: ".spec.ports": must point to a field of type string, '
      "boolean or integer. Enum string fields and strings with formats are allowed."]),
    ("selectable-unknown-field", _set(f"{V0}.selectableFields", [{"jsonPath": ".spec.nope"}]),
     ['spec.selectableFields[0].jsonPath: Invalid value: ".spec.nope": is an invalid path: does not refer to a valid field']),
    ("selectable-duplicate", _set(f"{V0}.selectableFields", [{"jsonPath": ".spec.color"}, {"jsonPath": ".spec.color"}]),
     ['spec.selectableFields[1].jsonPath: Duplicate value: ".spec.color"']),
    ("preserve-unknown-fields-true", _set("spec.preserveUnknownFields", True),
     ["spec.preserveUnknownFields: Invalid value: true: cannot set to true"]),
    ("bad-conversion", _set("spec.conversion", {"strategy": "Webhook"}),
     ["spec.conversion.webhookClientConfig: Required value: required when strategy is set to Webhook"]),
]


@pytest.mark.parametrize(("mutate", "want"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_validate_crd(mutate: Callable[[dict[str, Any]], None], want: list[str]) -> None:
    crd = make_crd()
    mutate(crd)
    before = copy.deepcopy(crd)
    got = [str(e) for e in validate_crd(crd)]
    assert crd == before, "validate_crd must not mutate"
    assert len(got) >= len(want), got
    for prefix, msg in zip(want, got):
        assert msg.startswith(prefix), (msg, got)


def test_storage_version_message() -> None:
    crd = make_crd()
    _second_version(crd, storage=True)
    msgs = [str(e) for e in validate_crd(crd)]
    assert len(msgs) == 1
    assert msgs[0].endswith("must have exactly one version marked as storage version")


def test_too_many_selectable_fields() -> None:
    crd = make_crd()
    props = crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]
    props.update({f"f{i}": {"type": "string"} for i in range(9)})
    crd["spec"]["versions"][0]["selectableFields"] = [{"jsonPath": f".spec.f{i}"} for i in range(9)]
    assert [str(e) for e in validate_crd(crd)] == ["spec.selectableFields: Too many: 9: must have at most 8 items"]


def test_differing_versions_report_per_version_paths() -> None:
    crd = make_crd()
    _second_version(crd, storage=False)
    crd["spec"]["versions"][1]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]["color"] = {}
    assert [str(e) for e in validate_crd(crd)] == [
        "spec.versions[1].schema.openAPIV3Schema.properties[spec].properties[color].type: "
        "Required value: must not be empty for specified object fields"
    ]


def test_custom_resource_schema_from_crd() -> None:
    crd = make_crd()
    crs = CustomResourceSchema.from_crd(crd, "v1")
    assert (crs.group, crs.version, crs.kind, crs.plural) == ("example.com", "v1", "Widget", "widgets")
    assert (crs.namespaced, crs.served, crs.storage, crs.status, crs.scale) == (True, True, True, True, True)
    assert (crs.spec_replicas_path, crs.status_replicas_path) == (".spec.replicas", ".status.replicas")
    assert crs.selectable_fields == (".spec.color",)
    assert crs.schema.property("spec") is not None
    with pytest.raises(KeyError):
        CustomResourceSchema.from_crd(crd, "v9")
