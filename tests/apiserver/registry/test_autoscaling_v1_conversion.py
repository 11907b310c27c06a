"""autoscaling/v1 <-> autoscaling/v2 HorizontalPodAutoscaler conversion, as upstream converts it.

The first table ports ``TestConvert_autoscaling_HorizontalPodAutoscalerSpec_To_v1_HorizontalPodAutoscalerSpec``
(pkg/apis/autoscaling/v1/conversion_test.go, the #101370 cases: the first CPU metric decides the target,
and a CPU metric with an average *value* yields no target). The others pin the rest of conversion.go:
the round-trip annotations, the implicit 80% default, the metric order, Go's JSON in the annotations, and
that a v2 object survives v2 -> v1 -> v2 unchanged.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from kubelite.apiserver.registry.autoscaling_v1 import (
    BEHAVIOR_SPECS_ANNOTATION,
    CONDITIONS_ANNOTATION,
    METRIC_SPECS_ANNOTATION,
    METRIC_STATUSES_ANNOTATION,
    ConversionError,
    from_v1,
    hub,
    to_v1,
)

REF = {"kind": "Deployment", "name": "web", "apiVersion": "apps/v1"}
CPU_VALUE = {"type": "Resource", "resource": {"name": "cpu", "target": {"type": "AverageValue", "averageValue": "300m"}}}


def _cpu(util: int) -> dict[str, Any]:
    return {"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": util}}}


def _v2(spec: dict[str, Any], status: dict[str, Any] | None = None, **meta: Any) -> dict[str, Any]:
    obj: dict[str, Any] = {"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
                           "metadata": {"name": "web", "namespace": "default", **meta},
                           "spec": {"scaleTargetRef": REF, **spec}}
    if status is not None:
        obj["status"] = status
    return obj


# conversion_test.go: (name, v2 spec metrics, expected v1 spec). Go converts into a pre-filled ``out``; a case
# whose input sets no target keeps out's (TestConversionWithoutMetrics: 60). Converting into a fresh object,
# as the apiserver does, there is then no target at all.
SPEC_CASES = [
    ("TestConversionWithCPUAverageValueAndUtilizationBoth1", [CPU_VALUE, _cpu(70)],
     {"minReplicas": 1, "maxReplicas": 3, "targetCPUUtilizationPercentage": 70}),
    ("TestConversionWithCPUAverageValueAndUtilizationBoth2", [CPU_VALUE, _cpu(70)],
     {"minReplicas": 1, "maxReplicas": 3, "targetCPUUtilizationPercentage": 70}),
    ("TestConversionWithoutMetrics", [], {"minReplicas": 1, "maxReplicas": 3}),
    ("TestConversionWithCPUUtilizationOnly", [_cpu(60)],
     {"minReplicas": 1, "maxReplicas": 3, "targetCPUUtilizationPercentage": 60}),
]


@pytest.mark.parametrize(("metrics", "expected"), [c[1:] for c in SPEC_CASES], ids=[c[0] for c in SPEC_CASES])
def test_spec_to_v1_as_upstream(metrics: list[dict[str, Any]], expected: dict[str, Any]) -> None:
    v1 = to_v1(_v2({"minReplicas": 1, "maxReplicas": 3, "metrics": metrics}))
    assert v1["spec"] == {"scaleTargetRef": REF, **expected}


def test_first_cpu_utilization_metric_decides_the_target() -> None:
    v1 = to_v1(_v2({"maxReplicas": 3, "metrics": [CPU_VALUE, _cpu(40), _cpu(90)]}))
    assert v1["spec"]["targetCPUUtilizationPercentage"] == 40
    # only the utilization metrics leave for the target; the average-value CPU one rides in the annotation
    assert json.loads(v1["metadata"]["annotations"][METRIC_SPECS_ANNOTATION]) == [
        {"type": "Resource", "resource": {"name": "cpu", "targetAverageValue": "300m"}}]


@pytest.mark.parametrize(("spec", "expected_metrics"), [
    ({"maxReplicas": 3}, [_cpu(80)]),
    ({"maxReplicas": 3, "targetCPUUtilizationPercentage": 55}, [_cpu(55)]),
], ids=["implicit-default-80", "target-cpu"])
def test_v1_spec_to_v2_metrics(spec: dict[str, Any], expected_metrics: list[dict[str, Any]]) -> None:
    v2 = from_v1({"apiVersion": "autoscaling/v1", "kind": "HorizontalPodAutoscaler", "metadata": {"name": "a"},
                  "spec": {"scaleTargetRef": REF, **spec}})
    assert v2["apiVersion"] == "autoscaling/v2"
    assert v2["spec"]["metrics"] == expected_metrics


MEMORY = {"type": "Resource", "resource": {"name": "memory", "target": {"type": "AverageValue", "averageValue": "1Gi"}}}
PODS = {"type": "Pods", "pods": {"metric": {"name": "qps"}, "target": {"type": "AverageValue", "averageValue": "10"}}}
OBJECT = {"type": "Object", "object": {
    "describedObject": {"kind": "Ingress", "name": "main", "apiVersion": "networking.k8s.io/v1"},
    "metric": {"name": "requests", "selector": {"matchLabels": {"a": "b"}}},
    "target": {"type": "Value", "value": "2k"}}}
EXTERNAL = {"type": "External", "external": {"metric": {"name": "queue"}, "target": {"type": "AverageValue",
                                                                                       "averageValue": "30"}}}
CONTAINER = {"type": "ContainerResource", "containerResource": {
    "name": "cpu", "container": "app", "target": {"type": "Utilization", "averageUtilization": 65}}}
BEHAVIOR = {"scaleDown": {"stabilizationWindowSeconds": 300, "selectPolicy": "Max",
                          "policies": [{"type": "Percent", "value": 100, "periodSeconds": 15}]},
            "scaleUp": {"stabilizationWindowSeconds": 0, "selectPolicy": "Max",
                        "policies": [{"type": "Percent", "value": 100, "periodSeconds": 15},
                                     {"type": "Pods", "value": 4, "periodSeconds": 15}]}}
STATUS = {"observedGeneration": 3, "currentReplicas": 2, "desiredReplicas": 4,
          "lastScaleTime": "2025-01-01T00:01:00Z",
          "currentMetrics": [
              {"type": "Resource", "resource": {"name": "cpu", "current": {"averageUtilization": 91,
                                                                           "averageValue": "455m"}}},
              {"type": "Pods", "pods": {"metric": {"name": "qps"}, "current": {"averageValue": "12"}}}],
          "conditions": [{"type": "AbleToScale", "status": "True", "reason": "SucceededRescale",
                          "message": "the HPA controller was able to update the target scale to 4",
                          "lastTransitionTime": "2025-01-01T00:01:00Z"}]}


@pytest.mark.parametrize("obj", [
    _v2({"minReplicas": 1, "maxReplicas": 5, "metrics": [_cpu(50)]}),
    _v2({"minReplicas": 2, "maxReplicas": 9, "metrics": [MEMORY, PODS, OBJECT, EXTERNAL, CONTAINER, _cpu(70)],
         "behavior": BEHAVIOR}, STATUS),
    _v2({"maxReplicas": 4, "metrics": [PODS, _cpu(60)]}, {"currentReplicas": 1, "desiredReplicas": 1},
        labels={"app": "web"}, annotations={"team": "a"}),
], ids=["cpu-only", "every-source-behavior-status", "annotations-kept"])
def test_v2_round_trips_through_v1(obj: dict[str, Any]) -> None:
    """What a v1 client reads and writes back is the same v2 object (upstream's round-trip fuzz tests)."""
    back = from_v1(json.loads(json.dumps(to_v1(obj))))
    assert back == obj


def test_v2_only_fields_travel_in_annotations() -> None:
    v1 = to_v1(_v2({"minReplicas": 2, "maxReplicas": 9, "metrics": [MEMORY, _cpu(70)], "behavior": BEHAVIOR},
                   STATUS))
    annotations = v1["metadata"]["annotations"]
    assert v1["spec"]["targetCPUUtilizationPercentage"] == 70
    assert v1["status"]["currentCPUUtilizationPercentage"] == 91
    # v1 MetricSpec, in Go's field order, without the CPU-utilization metric
    assert annotations[METRIC_SPECS_ANNOTATION] == (
        '[{"type":"Resource","resource":{"name":"memory","targetAverageValue":"1Gi"}}]')
    # every status metric, the CPU one too (it keeps its raw value)
    assert json.loads(annotations[METRIC_STATUSES_ANNOTATION]) == [
        {"type": "Resource", "resource": {"name": "cpu", "currentAverageUtilization": 91,
                                          "currentAverageValue": "455m"}},
        {"type": "Pods", "pods": {"metricName": "qps", "currentAverageValue": "12"}}]
    assert json.loads(annotations[CONDITIONS_ANNOTATION]) == [
        {"type": "AbleToScale", "status": "True", "lastTransitionTime": "2025-01-01T00:01:00Z",
         "reason": "SucceededRescale", "message": "the HPA controller was able to update the target scale to 4"}]
    # the internal type marshalled: Go's field names, every field (nil as null)
    assert annotations[BEHAVIOR_SPECS_ANNOTATION] == (
        '{"ScaleUp":{"StabilizationWindowSeconds":0,"SelectPolicy":"Max","Policies":[{"Type":"Percent",'
        '"Value":100,"PeriodSeconds":15},{"Type":"Pods","Value":4,"PeriodSeconds":15}],"Tolerance":null},'
        '"ScaleDown":{"StabilizationWindowSeconds":300,"SelectPolicy":"Max","Policies":[{"Type":"Percent",'
        '"Value":100,"PeriodSeconds":15}],"Tolerance":null}}')


def test_annotation_metrics_come_before_the_cpu_target() -> None:
    """conversion.go: ``outMetrics[len(otherMetrics)] = out.Spec.Metrics[0]``."""
    v1 = {"apiVersion": "autoscaling/v1", "kind": "HorizontalPodAutoscaler", "metadata": {"name": "a", "annotations": {
        METRIC_SPECS_ANNOTATION: '[{"type":"Pods","pods":{"metricName":"qps","targetAverageValue":"10"}}]'}},
        "spec": {"scaleTargetRef": REF, "maxReplicas": 3, "targetCPUUtilizationPercentage": 50}}
    v2 = from_v1(v1)
    assert v2["spec"]["metrics"] == [PODS, _cpu(50)]
    assert "annotations" not in v2["metadata"]  # consumed, and an emptied map is dropped


def test_current_metrics_annotation_replaces_the_cpu_figure() -> None:
    v1 = {"apiVersion": "autoscaling/v1", "kind": "HorizontalPodAutoscaler", "metadata": {"name": "a"},
          "spec": {"scaleTargetRef": REF, "maxReplicas": 3},
          "status": {"currentReplicas": 1, "desiredReplicas": 1, "currentCPUUtilizationPercentage": 30}}
    assert from_v1(v1)["status"]["currentMetrics"] == [
        {"type": "Resource", "resource": {"name": "cpu", "current": {"averageUtilization": 30}}}]
    v1["metadata"]["annotations"] = {METRIC_STATUSES_ANNOTATION: "[]"}
    assert from_v1(v1)["status"]["currentMetrics"] == []


def test_behavior_annotation_reads_go_names_case_insensitively() -> None:
    v1 = {"apiVersion": "autoscaling/v1", "kind": "HorizontalPodAutoscaler", "metadata": {"name": "a", "annotations": {
        BEHAVIOR_SPECS_ANNOTATION: '{"scaleDown":{"stabilizationwindowseconds":60,"Policies":null}}'}},
        "spec": {"scaleTargetRef": REF, "maxReplicas": 3}}
    assert from_v1(v1)["spec"]["behavior"] == {"scaleDown": {"stabilizationWindowSeconds": 60}}


def test_go_json_escapes_html() -> None:
    sel = {"matchLabels": {"tier": "a&b<c>"}}
    pods = {"type": "Pods", "pods": {"metric": {"name": "qps", "selector": sel}, "target": {"type": "AverageValue",
                                                                                            "averageValue": "1"}}}
    raw = to_v1(_v2({"maxReplicas": 2, "metrics": [pods]}))["metadata"]["annotations"][METRIC_SPECS_ANNOTATION]
    assert "a\\u0026b\\u003cc\\u003e" in raw


@pytest.mark.parametrize("value", ["{not json", '{"a":1}', "[1]"], ids=["syntax", "object", "scalars"])
def test_bad_round_trip_annotation_is_an_error(value: str) -> None:
    v1 = {"apiVersion": "autoscaling/v1", "kind": "HorizontalPodAutoscaler",
          "metadata": {"name": "a", "annotations": {METRIC_SPECS_ANNOTATION: value}},
          "spec": {"scaleTargetRef": REF, "maxReplicas": 3}}
    with pytest.raises(ConversionError):
        from_v1(v1)


def test_v2_drops_round_trip_annotations() -> None:
    """v2 round-trips without annotations: any from other versions are dropped (v2/conversion.go)."""
    obj = _v2({"maxReplicas": 2}, annotations={METRIC_SPECS_ANNOTATION: "[]", "keep": "me"})
    assert hub(obj)["metadata"]["annotations"] == {"keep": "me"}
    plain = _v2({"maxReplicas": 2})
    assert hub(plain) is plain


def test_conversion_does_not_mutate_its_argument() -> None:
    obj = _v2({"minReplicas": 2, "maxReplicas": 9, "metrics": [MEMORY, _cpu(70)], "behavior": BEHAVIOR}, STATUS,
              annotations={"x": "y"})
    before = json.dumps(obj, sort_keys=True)
    v1 = to_v1(obj)
    assert json.dumps(obj, sort_keys=True) == before
    before_v1 = json.dumps(v1, sort_keys=True)
    from_v1(v1)
    assert json.dumps(v1, sort_keys=True) == before_v1
