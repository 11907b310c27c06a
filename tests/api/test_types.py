"""Generated Structs and openapi.json: realistic manifests round-trip, strictness, conventions."""

from __future__ import annotations

import copy
import importlib
import importlib.util
import inspect
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest
import yaml

from kubelite.api import types as t
from kubelite.api.types import K8sStruct, apiextensions_v1, core_v1

MANIFESTS = Path(__file__).parent / "manifests"
ROOT = Path(__file__).resolve().parents[2]
TYPE_MODULES = sorted(p.stem for p in (ROOT / "kubelite/api/types").glob("*_v*.py"))


def _documents() -> list[Any]:
    params = []
    for path in sorted(MANIFESTS.glob("*.yaml")):
        for doc in yaml.safe_load_all(path.read_text()):
            if doc:
                params.append(pytest.param(doc, id=f"{path.stem}:{doc['kind']}/{doc['metadata']['name']}"))
    return params


def _struct_classes() -> list[type[K8sStruct]]:
    out: list[type[K8sStruct]] = []
    for name in TYPE_MODULES:
        module = importlib.import_module(f"kubelite.api.types.{name}")
        out.extend(c for _, c in inspect.getmembers(module, inspect.isclass)
                   if issubclass(c, K8sStruct) and c.__module__ == module.__name__)
    return out


@pytest.mark.parametrize("doc", _documents())
def test_manifest_round_trips(doc: dict[str, Any]) -> None:
    cls = getattr(t, doc["kind"])
    obj = msgspec.convert(doc, cls)
    assert isinstance(obj, cls)
    back = msgspec.json.decode(msgspec.json.encode(obj))
    expected = copy.deepcopy(doc)
    if doc["kind"] == "StatefulSet":
        # Embedded PVC templates gain apiVersion/kind, as on a real apiserver's stored object.
        for template in expected["spec"]["volumeClaimTemplates"]:
            template.update(apiVersion="v1", kind="PersistentVolumeClaim")
    assert back == expected
    # The JSON decoder path agrees with convert().
    assert msgspec.json.decode(json.dumps(doc).encode(), type=cls) == obj


def test_manifest_corpus_covers_the_requested_kinds() -> None:
    kinds = {p.values[0]["kind"] for p in _documents()}
    assert kinds >= {
        "Pod", "Deployment", "Service", "StatefulSet", "Job", "DaemonSet", "CustomResourceDefinition",
        "HorizontalPodAutoscaler", "PodDisruptionBudget", "Role", "RoleBinding", "ClusterRole",
        "ClusterRoleBinding", "PriorityClass", "EndpointSlice", "Lease", "Node",
    }


def test_nested_crd_schema_decodes_recursively() -> None:
    doc = yaml.safe_load((MANIFESTS / "crd.yaml").read_text())
    crd = msgspec.convert(doc, t.CustomResourceDefinition)
    assert crd.spec is not None
    assert crd.spec.versions is not None
    schema = crd.spec.versions[0].schema
    assert schema is not None
    assert schema.open_api_v3_schema is not None
    spec = (schema.open_api_v3_schema.properties or {})["spec"]
    props = spec.properties or {}
    containers = props["containers"]
    assert isinstance(containers.items, apiextensions_v1.JSONSchemaProps)
    env = (containers.items.properties or {})["env"]
    assert isinstance(env.additional_properties, apiextensions_v1.JSONSchemaProps)
    assert env.additional_properties.type == "string"
    assert props["replicas"].default == 1
    assert props["port"].x_kubernetes_int_or_string is True
    assert props["containers"].x_kubernetes_list_map_keys == ["name"]
    status_conditions = (schema.open_api_v3_schema.properties or {})["status"].properties or {}
    assert status_conditions["conditions"].items.additional_properties is False  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("cls", "data", "message"),
    [
        (t.Pod, {"spec": {"bogus": 1}}, "Object contains unknown field `bogus` - at `$.spec`"),
        (t.Deployment, {"spec": {"template": {"spec": {"containers": [{"name": "a", "imagePullPolicyy": "x"}]}}}},
         "Object contains unknown field `imagePullPolicyy` - at `$.spec.template.spec.containers[0]`"),
        (t.Pod, {"metadata": {"labels": {"a": 1}}}, "Expected `str`, got `int` - at `$.metadata.labels[...]`"),
        (t.Deployment, {"spec": {"replicas": "3"}}, "Expected `int | null`, got `str` - at `$.spec.replicas`"),
    ],
    ids=["unknown-field", "unknown-nested-field", "wrong-map-value", "wrong-scalar"],
)
def test_strict_decoding_names_the_field(cls: type, data: dict[str, Any], message: str) -> None:
    with pytest.raises(msgspec.ValidationError) as exc:
        msgspec.convert(data, cls)
    assert str(exc.value) == message


@pytest.mark.parametrize(
    ("obj", "expected"),
    [
        # a kind's metadata is never None and always encoded, as Go encodes the ObjectMeta struct
        (t.Pod(), {"apiVersion": "v1", "kind": "Pod", "metadata": {}}),
        (t.Deployment(), {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {}}),
        (t.CustomResourceDefinition(), {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
                                        "metadata": {}}),
        (t.Scale(), {"apiVersion": "autoscaling/v1", "kind": "Scale", "metadata": {}}),
        (t.HorizontalPodAutoscaler(), {"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
                                       "metadata": {}}),
        (t.DeleteOptions(), {}),  # one struct for many group/versions: no default
        (core_v1.PodStatus(pod_ips=[core_v1.PodIP(ip="10.0.0.1")], host_ip="192.0.2.1"),
         {"podIPs": [{"ip": "10.0.0.1"}], "hostIP": "192.0.2.1"}),
        (apiextensions_v1.JSONSchemaProps(ref="#/x", not_=apiextensions_v1.JSONSchemaProps(type="string"),
                                          x_kubernetes_list_type="set"),
         {"$ref": "#/x", "not": {"type": "string"}, "x-kubernetes-list-type": "set"}),
        (t.ObjectMeta(labels={}), {"labels": {}}),
    ],
    ids=["pod", "deployment", "crd", "scale", "hpa", "delete-options", "acronyms", "json-names", "empty-map-kept"],
)
def test_encoding_uses_exact_json_names(obj: K8sStruct, expected: dict[str, Any]) -> None:
    assert msgspec.json.decode(msgspec.json.encode(obj)) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [("500m", "500m"), (2, 2), (1.5, 1.5)],
    ids=["string", "int", "float"],
)
def test_quantity_accepts_strings_and_numbers(value: Any, expected: Any) -> None:
    req = msgspec.convert({"limits": {"cpu": value}}, core_v1.ResourceRequirements)
    assert req.limits == {"cpu": expected}


def test_int_or_string_keeps_its_kind() -> None:
    port = msgspec.convert({"port": "http"}, core_v1.HTTPGetAction).port
    number = msgspec.convert({"port": 8080}, core_v1.HTTPGetAction).port
    assert (port, number) == ("http", 8080)


def test_null_fields_decode_to_none_and_are_omitted() -> None:
    pod = msgspec.convert({"metadata": {"creationTimestamp": None, "name": "a"}}, t.Pod)
    assert pod.metadata is not None
    assert pod.metadata.creation_timestamp is None
    assert msgspec.json.decode(msgspec.json.encode(pod))["metadata"] == {"name": "a"}


def test_every_struct_follows_the_conventions() -> None:
    classes = _struct_classes()
    assert len(classes) > 300
    for cls in classes:
        config = cls.__struct_config__
        assert config.omit_defaults, cls
        assert config.forbid_unknown_fields, cls
        params = inspect.signature(cls).parameters.values()
        assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in params), cls
        assert not config.frozen, cls
        assert cls.__doc__, cls
        for field in msgspec.structs.fields(cls):
            if field.encode_name in ("apiVersion", "kind") and field.default_factory is not msgspec.NODEFAULT:
                continue
            if field.encode_name == "metadata" and field.default_factory is t.ObjectMeta:
                continue  # a kind's metadata: never None, still optional in a manifest
            assert field.default is None, (cls, field.name)


def test_a_kind_without_metadata_decodes_with_empty_metadata() -> None:
    pod = msgspec.convert({"apiVersion": "v1", "kind": "Pod"}, t.Pod)
    assert pod.metadata == t.ObjectMeta() and pod.metadata.name is None


def test_kinds_are_reexported() -> None:
    for name in ("Pod", "Deployment", "Lease", "Eviction", "Binding", "Scale", "ObjectMeta", "Status"):
        assert name in t.__all__
        assert issubclass(getattr(t, name), K8sStruct)


# --- openapi.json ---

def _definitions() -> dict[str, Any]:
    doc = json.loads((ROOT / "kubelite/api/openapi.json").read_text())
    defs: dict[str, Any] = doc["definitions"]
    return defs


def _walk(node: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """Every schema node under ``node`` (not the ``properties`` maps themselves)."""
    yield node
    for sub in (node.get("properties") or {}).values():
        yield from _walk(sub)
    for key in ("items", "additionalProperties"):
        if isinstance(node.get(key), dict):
            yield from _walk(node[key])


def test_openapi_is_structural_and_closed() -> None:
    defs = _definitions()
    for name, node in defs.items():
        for sub in _walk(node):
            assert "description" not in sub, name
            assert "oneOf" not in sub, name
            if "type" in sub:
                assert sub["type"] in ("string", "integer", "number", "boolean", "array", "object"), name
            ref = sub.get("$ref")
            if isinstance(ref, str):
                assert ref in defs, (name, ref)


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("io.k8s.apimachinery.pkg.api.resource.Quantity", {"x-kubernetes-int-or-string": True, "format": "quantity"}),
        ("io.k8s.apimachinery.pkg.util.intstr.IntOrString", {"x-kubernetes-int-or-string": True}),
        ("io.k8s.apimachinery.pkg.apis.meta.v1.Time", {"type": "string", "format": "date-time"}),
        ("io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime", {"type": "string", "format": "date-time"}),
        ("io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1",
         {"type": "object", "x-kubernetes-preserve-unknown-fields": True}),
        ("io.k8s.apimachinery.pkg.runtime.RawExtension",
         {"type": "object", "x-kubernetes-preserve-unknown-fields": True}),
        ("io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSON", {"x-kubernetes-preserve-unknown-fields": True}),
    ],
    ids=["quantity", "intorstring", "time", "microtime", "fieldsv1", "rawextension", "json"],
)
def test_openapi_special_definitions(name: str, expected: dict[str, Any]) -> None:
    assert _definitions()[name] == expected


def test_openapi_keeps_kinds_and_extensions() -> None:
    defs = _definitions()
    deployment = defs["io.k8s.api.apps.v1.Deployment"]
    assert deployment["x-kubernetes-group-version-kind"] == [{"group": "apps", "kind": "Deployment", "version": "v1"}]
    assert deployment["properties"]["kind"] == {"type": "string"}
    assert deployment["properties"]["spec"] == {"$ref": "io.k8s.api.apps.v1.DeploymentSpec"}
    containers = defs["io.k8s.api.core.v1.PodSpec"]["properties"]["containers"]
    assert containers["x-kubernetes-list-type"] == "map"
    assert containers["x-kubernetes-list-map-keys"] == ["name"]
    assert containers["x-kubernetes-patch-strategy"] == "merge"
    assert not any(name.endswith("List") and "items" in defs[name].get("properties", {}) for name in defs)


def test_builtin_schema_reads_patch_merge_key() -> None:
    from kubelite.api.schema import builtin_schemas

    pod = builtin_schemas().get("io.k8s.api.core.v1.Pod")
    spec = pod.property("spec")
    assert spec is not None
    containers = spec.property("containers")
    assert containers is not None
    assert containers.patch_merge_key == "name"


def test_generated_files_are_up_to_date() -> None:
    """tools/gen_api.py is deterministic and the committed output matches it."""
    gen = _load_generator()  # needs kubernetes-validate (in the test extra)
    defs = gen.load_source()
    names = gen.reachable(defs)
    assert gen.build_openapi(defs, names) == (ROOT / "kubelite/api/openapi.json").read_bytes()
    for filename, text in gen.build_types(defs, names).items():
        assert text == (ROOT / "kubelite/api/types" / filename).read_text(), filename


def _load_generator() -> Any:
    spec = importlib.util.spec_from_file_location("_gen_api", ROOT / "tools/gen_api.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_generated_descriptions_are_up_to_date() -> None:
    """tools/gen_descriptions.py's table (``kubectl explain``'s text) matches upstream's schemas for every
    definition openapi.json holds."""
    import gzip
    import json
    import sys

    sys.path.insert(0, str(ROOT / "tools"))
    try:
        spec = importlib.util.spec_from_file_location("_gen_descriptions", ROOT / "tools/gen_descriptions.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(ROOT / "tools"))
    names = sorted(json.loads((ROOT / "kubelite/api/openapi.json").read_text())["definitions"])
    table = module.build(_load_generator().load_source(), names)
    committed = json.loads(gzip.decompress((ROOT / "kubelite/api/openapi_descriptions.json.gz").read_bytes()))
    assert committed == table
    assert committed["io.k8s.api.core.v1.Pod"][0].startswith("Pod is a collection of containers")
