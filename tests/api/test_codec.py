"""Codec: JSON and dict conversions, kubectl-compatible YAML loading and dumping, decode errors."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from kubelite.api import codec
from kubelite.api import types as t
from kubelite.api.resources import Registry
from kubelite.api.types import core_v1
from kubelite.errors import BadRequest

MANIFESTS = Path(__file__).parent / "manifests"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a: on\nb: yes\nc: off\n", {"a": True, "b": True, "c": False}),
        ("v: 1.10\ns: '1.10'\n", {"v": 1.1, "s": "1.10"}),
        ("mode: 0644\n", {"mode": 420}),
        ("t: 2025-01-01T00:00:00Z\n", {"t": "2025-01-01T00:00:00Z"}),
        ("d: 2025-01-01\n", {"d": "2025-01-01"}),
        ("at: 1:30\nf: 1:30.5\n", {"at": "1:30", "f": "1:30.5"}),
        ("1: a\ntrue: b\n", {"1": "a", "true": "b"}),
        ("base: &b {x: 1}\nder:\n  <<: *b\n  y: 2\n", {"base": {"x": 1}, "der": {"x": 1, "y": 2}}),
    ],
    ids=["yaml11-bools", "float-vs-string", "octal", "timestamp-stays-string", "date-stays-string",
         "sexagesimal-stays-string", "non-string-keys", "merge-keys"],
)
def test_load_yaml_reads_like_kubectl(text: str, expected: dict[str, Any]) -> None:
    assert codec.load_yaml(text) == [expected]


def test_load_yaml_multi_document_and_lists() -> None:
    text = """
---
# only a comment
---
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: ConfigMap
  metadata: {name: a}
- apiVersion: v1
  kind: List
  items:
  - {apiVersion: v1, kind: Secret, metadata: {name: b}}
---
apiVersion: v1
kind: PodList
items:
- metadata: {name: c}
---
{}
"""
    docs = codec.load_yaml(text)
    assert [(d["kind"], d["metadata"]["name"]) for d in docs] == [("ConfigMap", "a"), ("Secret", "b"), ("Pod", "c")]
    assert docs[2]["apiVersion"] == "v1"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("a: [1, 2\n", "error converting YAML to JSON"),
        ("- 1\n- 2\n", "cannot unmarshal array into an object"),
        ("just a string\n", "cannot unmarshal string into an object"),
    ],
    ids=["syntax", "array", "scalar"],
)
def test_load_yaml_rejects_bad_documents(text: str, message: str) -> None:
    with pytest.raises(BadRequest, match=message):
        codec.load_yaml(text)


def test_load_objects_types_builtins_and_keeps_unknown_kinds_as_dicts() -> None:
    text = (MANIFESTS / "rbac.yaml").read_text() + "---\napiVersion: stable.example.com/v1\nkind: CronTab\n" \
        "metadata: {name: x}\nspec: {cronSpec: '* * * * */5'}\n"
    objects = codec.load_objects(text, Registry())
    assert [type(o) for o in objects] == [t.Role, t.RoleBinding, t.ClusterRole, t.ClusterRoleBinding, dict]
    assert objects[0].rules[0].resources == ["pods", "pods/log"]
    assert objects[4]["spec"] == {"cronSpec": "* * * * */5"}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("metadata: {name: a}\n", r"error validating data: \[apiVersion not set, kind not set\]"),
        ("apiVersion: v1\nmetadata: {name: a}\n", r"error validating data: \[kind not set\]"),
        ("apiVersion: apps/v1\nkind: Deployment\nspec: {replicas: two}\n",
         'Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal string into '
         "Go struct field spec.replicas of type int"),
        ("apiVersion: apps/v1\nkind: Deployment\nspec:\n  template:\n    spec:\n      containers:\n"
         "      - name: a\n        imagee: nginx\n",
         'Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field '
         '"spec.template.spec.containers\\[0\\].imagee"'),
        ("apiVersion: v1\nkind: Pod\nbogus: 1\n",
         'Pod in version "v1" cannot be handled as a Pod: strict decoding error: unknown field "bogus"'),
    ],
    ids=["no-gvk", "no-kind", "wrong-type", "unknown-nested-field", "unknown-top-field"],
)
def test_load_objects_errors(text: str, message: str) -> None:
    with pytest.raises(BadRequest, match=message) as exc:
        codec.load_objects(text, Registry())
    assert exc.value.status.code == 400


def test_json_round_trip_typed_and_untyped() -> None:
    pod = t.Pod(metadata=t.ObjectMeta(name="a"), spec=core_v1.PodSpec(containers=[core_v1.Container(name="c")]))
    data = codec.encode_json(pod)
    assert data == b'{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a"},"spec":{"containers":[{"name":"c"}]}}'
    assert codec.decode_json(data, t.Pod) == pod
    assert codec.decode_json(data) == codec.to_dict(pod)


@pytest.mark.parametrize(
    ("data", "cls", "message"),
    [
        (b"{", None, "invalid JSON"),
        (b"{", t.Pod, "invalid JSON"),
        (b'{"spec": {"nodeName": 3}}', t.Pod, "cannot unmarshal number into Go struct field spec.nodeName of type string"),
    ],
    ids=["untyped-syntax", "typed-syntax", "typed-wrong-type"],
)
def test_decode_json_errors(data: bytes, cls: type | None, message: str) -> None:
    with pytest.raises(BadRequest, match=message):
        codec.decode_json(data, cls)


def test_to_dict_shares_nothing() -> None:
    source = {"metadata": {"labels": {"a": "b"}}, "spec": {"items": [[1]]}}
    copied = codec.to_dict(source)
    copied["metadata"]["labels"]["a"] = "changed"
    copied["spec"]["items"][0].append(2)
    assert source == {"metadata": {"labels": {"a": "b"}}, "spec": {"items": [[1]]}}

    pod = t.Pod(metadata=t.ObjectMeta(labels={"a": "b"}))
    as_dict = codec.to_dict(pod)
    as_dict["metadata"]["labels"]["a"] = "changed"
    assert pod.metadata is not None
    assert pod.metadata.labels == {"a": "b"}
    with pytest.raises(TypeError):
        codec.to_dict([1, 2])


def test_from_dict_is_strict() -> None:
    assert codec.from_dict({"metadata": {"name": "a"}}, t.ConfigMap).metadata == t.ObjectMeta(name="a")
    with pytest.raises(BadRequest, match=r'unknown field "metadata\.nme"'):
        codec.from_dict({"metadata": {"nme": "a"}}, t.ConfigMap)


def test_dump_yaml_orders_keys_like_kubectl() -> None:
    cm = t.ConfigMap(
        metadata=t.ObjectMeta(name="cfg", labels={"z": "1", "a": "2"}),
        data={"script.sh": "echo a\necho b\n", "flag": "yes", "version": "1.10"},
    )
    assert codec.dump_yaml(cm) == (
        "apiVersion: v1\n"
        "kind: ConfigMap\n"
        "metadata:\n"
        "  labels:\n"
        "    a: '2'\n"
        "    z: '1'\n"
        "  name: cfg\n"
        "data:\n"
        "  flag: 'yes'\n"
        "  script.sh: |\n"
        "    echo a\n"
        "    echo b\n"
        "  version: '1.10'\n"
    )


def test_dump_then_load_round_trips_every_manifest() -> None:
    registry = Registry()
    for path in sorted(MANIFESTS.glob("*.yaml")):
        objects = codec.load_objects(path.read_text(), registry)
        again = codec.load_objects(codec.dump_yaml(objects), registry)
        assert again == objects, path.name
