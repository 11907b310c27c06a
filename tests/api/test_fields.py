"""Field selectors (fields/selector_test.go) and per-resource field sets (registry strategies)."""

from __future__ import annotations

from typing import Any

import pytest

from kubelite.api.fields import (
    EVERYTHING,
    SUPPORTED,
    FieldSelector,
    check_supported,
    convert_selector,
    escape_value,
    object_fields,
    parse_field_selector,
    unescape_value,
)
from kubelite.errors import BadRequest

PARSE = [
    ("", ()),
    (",", ()),
    ("spec.nodeName=n1", (("spec.nodeName", "=", "n1"),)),
    ("a==b", (("a", "=", "b"),)),
    ("a!=b", (("a", "!=", "b"),)),
    ("a=", (("a", "=", ""),)),
    ("b=1,a=2", (("a", "=", "2"), ("b", "=", "1"))),  # terms are sorted as text
    ("a=x\\,y", (("a", "=", "x,y"),)),
    ("a=x\\=y", (("a", "=", "x=y"),)),
    ("a=x\\\\y", (("a", "=", "x\\y"),)),
    ("a!=x\\,y,b=c", (("a", "!=", "x,y"), ("b", "=", "c"))),
    ("a==", (("a", "=", ""),)),
]


@pytest.mark.parametrize(("text", "terms"), PARSE, ids=[repr(p[0]) for p in PARSE])
def test_parse(text: str, terms: tuple[tuple[str, str, str], ...]) -> None:
    selector = parse_field_selector(text)
    assert selector.requirements == terms
    assert parse_field_selector(str(selector)) == selector  # String() parses back to the same selector


ERRORS = [
    ("a", "invalid selector: 'a'; can't understand 'a'"),
    ("a=b,c", "invalid selector: 'a=b,c'; can't understand 'c'"),
    ("a!b", "invalid selector: 'a!b'; can't understand 'a!b'"),
    ("a=b\\q", "invalid field selector: invalid escape sequence: \\q"),
    ("a=b\\", "invalid field selector: invalid escape sequence: \\"),
    ("a=b=c", "invalid field selector: unescaped character in value: 61"),
    ("a!==b", "invalid field selector: unescaped character in value: 61"),
]


@pytest.mark.parametrize(("text", "message"), ERRORS, ids=[repr(e[0]) for e in ERRORS])
def test_parse_errors(text: str, message: str) -> None:
    with pytest.raises(ValueError) as info:
        parse_field_selector(text)
    assert str(info.value) == message


@pytest.mark.parametrize(
    ("raw", "escaped"),
    [("plain", "plain"), ("a,b", "a\\,b"), ("a=b", "a\\=b"), ("a\\b", "a\\\\b"), ("", "")],
    ids=["plain", "comma", "equals", "backslash", "empty"],
)
def test_escape_round_trip(raw: str, escaped: str) -> None:
    assert escape_value(raw) == escaped
    assert unescape_value(escaped) == raw


MATCHES = [
    ("", {"x": "y"}, True),
    ("x=y", {"x": "y"}, True),
    ("x=y", {"x": "z"}, False),
    ("x=y", {}, False),
    ("x=", {}, True),  # a missing field reads as ""
    ("x!=y", {}, True),
    ("x!=y", {"x": "y"}, False),
    ("x=y,z!=w", {"x": "y", "z": "v"}, True),
    ("x=y,z!=w", {"x": "y", "z": "w"}, False),
]


@pytest.mark.parametrize(("text", "fields", "expected"), MATCHES, ids=[f"{m[0]!r}-{m[1]}" for m in MATCHES])
def test_matches(text: str, fields: dict[str, str], expected: bool) -> None:
    assert parse_field_selector(text).matches(fields) is expected


def test_selector_introspection() -> None:
    s = parse_field_selector("spec.nodeName=n1,status.phase!=Failed,spec.nodeName=n1")
    assert s.fields() == ("spec.nodeName", "status.phase")
    assert s.single_value("spec.nodeName") == "n1"
    assert s.single_value("status.phase") is None
    assert s.single_value("metadata.name") is None
    assert not s.empty()
    assert EVERYTHING.empty()
    assert parse_field_selector("") is EVERYTHING
    assert str(s) == "spec.nodeName=n1,spec.nodeName=n1,status.phase!=Failed"
    assert repr(FieldSelector([("a", "=", "b")])) == "FieldSelector('a=b')"
    with pytest.raises(AttributeError):
        s.requirements = ()
    assert hash(s) == hash(parse_field_selector(str(s)))


POD: dict[str, Any] = {
    "metadata": {"name": "web-1", "namespace": "default"},
    "spec": {"nodeName": "node-1", "restartPolicy": "Always", "schedulerName": "default-scheduler",
             "serviceAccountName": "default", "hostNetwork": True},
    "status": {"phase": "Running", "podIPs": [{"ip": "10.0.0.5"}, {"ip": "fd00::5"}], "podIP": "ignored"},
}
EVENT: dict[str, Any] = {
    "metadata": {"name": "e1", "namespace": "default"},
    "involvedObject": {"kind": "Pod", "namespace": "default", "name": "web-1", "uid": "u1",
                       "apiVersion": "v1", "resourceVersion": "7", "fieldPath": "spec.containers{c}"},
    "reason": "Scheduled", "type": "Normal", "reportingComponent": "default-scheduler",
}

OBJECT_FIELDS = [
    ("pod", "", "pods", POD, {
        "metadata.name": "web-1", "metadata.namespace": "default", "spec.nodeName": "node-1",
        "spec.restartPolicy": "Always", "spec.schedulerName": "default-scheduler",
        "spec.serviceAccountName": "default", "spec.hostNetwork": "true", "status.phase": "Running",
        "status.podIP": "10.0.0.5", "status.nominatedNodeName": "",
    }),
    ("unscheduled-pod", "", "pods", {"metadata": {"name": "p", "namespace": "ns"}}, {
        "metadata.name": "p", "metadata.namespace": "ns", "spec.nodeName": "", "spec.restartPolicy": "",
        "spec.schedulerName": "", "spec.serviceAccountName": "", "spec.hostNetwork": "false",
        "status.phase": "", "status.podIP": "", "status.nominatedNodeName": "",
    }),
    ("event", "", "events", EVENT, {
        "metadata.name": "e1", "metadata.namespace": "default", "involvedObject.kind": "Pod",
        "involvedObject.namespace": "default", "involvedObject.name": "web-1", "involvedObject.uid": "u1",
        "involvedObject.apiVersion": "v1", "involvedObject.resourceVersion": "7",
        "involvedObject.fieldPath": "spec.containers{c}", "reason": "Scheduled",
        "reportingComponent": "default-scheduler", "source": "default-scheduler", "type": "Normal",
    }),
    ("event-source-component", "", "events",
     {"metadata": {"name": "e"}, "source": {"component": "kubelet"}, "reportingComponent": "x"},
     {"source": "kubelet", "reportingComponent": "x"}),
    ("node", "", "nodes", {"metadata": {"name": "n1"}, "spec": {"unschedulable": True}},
     {"metadata.name": "n1", "spec.unschedulable": "true"}),
    ("node-default", "", "nodes", {"metadata": {"name": "n1"}}, {"metadata.name": "n1", "spec.unschedulable": "false"}),
    ("namespace", "", "namespaces", {"metadata": {"name": "ns"}, "status": {"phase": "Active"}},
     {"metadata.name": "ns", "status.phase": "Active", "name": "ns"}),
    ("secret", "", "secrets", {"metadata": {"name": "s", "namespace": "d"}, "type": "Opaque"},
     {"metadata.name": "s", "metadata.namespace": "d", "type": "Opaque"}),
    ("service", "", "services", {"metadata": {"name": "s", "namespace": "d"}, "spec": {"clusterIP": "10.96.0.1"}},
     {"metadata.name": "s", "metadata.namespace": "d", "spec.clusterIP": "10.96.0.1", "spec.type": ""}),
    ("replicaset", "apps", "replicasets", {"metadata": {"name": "r", "namespace": "d"}, "status": {"replicas": 3}},
     {"metadata.name": "r", "metadata.namespace": "d", "status.replicas": "3"}),
    ("rc-no-status", "", "replicationcontrollers", {"metadata": {"name": "r", "namespace": "d"}},
     {"metadata.name": "r", "metadata.namespace": "d", "status.replicas": "0"}),
    ("job", "batch", "jobs", {"metadata": {"name": "j", "namespace": "d"}, "status": {"succeeded": 2}},
     {"metadata.name": "j", "metadata.namespace": "d", "status.successful": "2"}),
    ("deployment", "apps", "deployments", {"metadata": {"name": "d", "namespace": "x"}, "spec": {"replicas": 1}},
     {"metadata.name": "d", "metadata.namespace": "x"}),
]


@pytest.mark.parametrize(("group", "plural", "obj", "expected"), [c[1:] for c in OBJECT_FIELDS],
                         ids=[c[0] for c in OBJECT_FIELDS])
def test_object_fields(group: str, plural: str, obj: dict[str, Any], expected: dict[str, str]) -> None:
    fields = object_fields(group, plural, obj)
    for label, value in expected.items():
        assert fields[label] == value, label
    if len(expected) > 3:  # the full tables are exact
        assert fields == expected


def test_object_fields_does_not_mutate() -> None:
    before = repr(POD)
    object_fields("", "pods", POD)
    assert repr(POD) == before


def test_custom_resource_selectable_fields() -> None:
    obj = {"metadata": {"name": "w", "namespace": "ns"},
           "spec": {"color": "red", "size": 3, "enabled": False, "ratio": 2.0, "nested": {"x": 1}}}
    fields = object_fields("example.com", "widgets", obj,
                           [".spec.color", ".spec.size", ".spec.enabled", ".spec.ratio", ".spec.missing"])
    assert fields == {
        "metadata.name": "w", "metadata.namespace": "ns", "spec.color": "red", "spec.size": "3",
        "spec.enabled": "false", "spec.ratio": "2", "spec.missing": "",
    }
    assert object_fields("example.com", "clusterwidgets", obj, namespaced=False) == {"metadata.name": "w"}
    assert parse_field_selector("spec.color=red,spec.missing=").matches(fields)


UNSUPPORTED = [
    ("pod", "", "pods", "spec.foo=1", None, "field label not supported: spec.foo"),
    ("node-namespace", "", "nodes", "metadata.namespace=x", None, "field label not supported: metadata.namespace"),
    ("job", "batch", "jobs", "status.succeeded=1", None, 'field label "status.succeeded" not supported for batchv1.Job'),
    ("deployment", "apps", "deployments", "spec.replicas=1", None,
     '"spec.replicas" is not a known field selector: only "metadata.name", "metadata.namespace"'),
    ("replicaset", "apps", "replicasets", "status.replicas=1", None,
     '"status.replicas" is not a known field selector: only "metadata.name", "metadata.namespace"'),
    ("crd", "example.com", "widgets", "spec.size=1", [".spec.color"], "field label not supported: spec.size"),
    ("crd-no-fields", "example.com", "widgets", "spec.color=red", [], "field label not supported: spec.color"),
]


@pytest.mark.parametrize(("group", "plural", "text", "selectable", "message"), [c[1:] for c in UNSUPPORTED],
                         ids=[c[0] for c in UNSUPPORTED])
def test_unsupported_labels_are_bad_requests(group: str, plural: str, text: str, selectable: list[str] | None,
                                             message: str) -> None:
    with pytest.raises(BadRequest) as info:
        check_supported(group, plural, parse_field_selector(text), selectable)
    assert info.value.status.code == 400
    assert info.value.status.reason == "BadRequest"
    assert info.value.message == message


SUPPORTED_CASES = [
    ("pod-node", "", "pods", "spec.nodeName=n1,status.phase=Running", None),
    ("pod-ips", "", "pods", "status.podIPs=x", None),
    ("node", "", "nodes", "spec.unschedulable=false,metadata.name=n", None),
    ("event", "", "events", "involvedObject.uid=u,reason=Killing,source=kubelet", None),
    ("deployment-meta", "apps", "deployments", "metadata.name=a,metadata.namespace=b", None),
    ("crd", "example.com", "widgets", "spec.color=red,metadata.namespace=ns", [".spec.color"]),
]


@pytest.mark.parametrize(("group", "plural", "text", "selectable"), [c[1:] for c in SUPPORTED_CASES],
                         ids=[c[0] for c in SUPPORTED_CASES])
def test_supported_labels_pass(group: str, plural: str, text: str, selectable: list[str] | None) -> None:
    selector = parse_field_selector(text)
    check_supported(group, plural, selector, selectable)
    assert convert_selector(group, plural, selector, selectable) is selector


def test_cluster_scoped_crd_rejects_namespace() -> None:
    with pytest.raises(BadRequest) as info:
        check_supported("example.com", "clusterwidgets", parse_field_selector("metadata.namespace=x"), [],
                        namespaced=False)
    assert info.value.message == "field label not supported: metadata.namespace"


def test_legacy_spec_host_becomes_node_name() -> None:
    converted = convert_selector("", "pods", parse_field_selector("spec.host=n1"))
    assert converted.requirements == (("spec.nodeName", "=", "n1"),)
    assert converted.single_value("spec.nodeName") == "n1"


def test_supported_table() -> None:
    assert "spec.nodeName" in SUPPORTED[("", "pods")]
    assert "metadata.name" not in SUPPORTED[("", "pods")]
    assert SUPPORTED[("", "nodes")] == ("spec.unschedulable",)
    assert SUPPORTED[("batch", "jobs")] == ("status.successful",)
