"""autoscaling/v1 HorizontalPodAutoscaler <-> autoscaling/v2 (the storage version), as upstream converts it.

Upstream's ``pkg/apis/autoscaling/v1/conversion.go`` converts v1 to and from the internal type, which has
the shape of autoscaling/v2; kubelite stores v2, so these functions are that conversion on v2 JSON data.

Contract:
- v1 carries only ``spec.targetCPUUtilizationPercentage`` and ``status.currentCPUUtilizationPercentage``.
  Everything else v2 has travels in annotations, so a v1 client that reads an object and writes it back
  loses nothing (the round trip of upstream's fuzz tests):
  ``autoscaling.alpha.kubernetes.io/metrics`` (every spec metric except the CPU-utilization ones, as v1
  ``MetricSpec``), ``.../current-metrics`` (every status metric, as v1 ``MetricStatus``),
  ``.../conditions`` (the status conditions) and ``.../behavior`` (spec.behavior, in the internal type's
  JSON, whose keys are Go's field names: upstream marshals the internal struct, which has no json tags).
- v1 -> v2 consumes those annotations (they are not stored); with no metric at all the v1 implicit
  default applies explicitly: CPU utilization 80%.
- v2 never shows them: a v2 object's round-trip annotations are dropped in both directions
  (``DropRoundTripHorizontalPodAutoscalerAnnotations`` in the v2 conversion).
- Annotation values are JSON as Go's ``encoding/json`` writes it: compact, struct field order, ``<``,
  ``>`` and ``&`` escaped, a non-pointer Quantity always present (``"0"`` when zero), a zero
  ``metav1.Time`` as ``null``.
- The functions take and return JSON data and never mutate their argument.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = [
    "BEHAVIOR_SPECS_ANNOTATION",
    "CONDITIONS_ANNOTATION",
    "DEFAULT_CPU_UTILIZATION",
    "METRIC_SPECS_ANNOTATION",
    "METRIC_STATUSES_ANNOTATION",
    "drop_round_trip_annotations",
    "from_v1",
    "hub",
    "to_v1",
]

METRIC_SPECS_ANNOTATION = "autoscaling.alpha.kubernetes.io/metrics"
METRIC_STATUSES_ANNOTATION = "autoscaling.alpha.kubernetes.io/current-metrics"
CONDITIONS_ANNOTATION = "autoscaling.alpha.kubernetes.io/conditions"
BEHAVIOR_SPECS_ANNOTATION = "autoscaling.alpha.kubernetes.io/behavior"
DEFAULT_CPU_UTILIZATION = 80
_ROUND_TRIP = (METRIC_SPECS_ANNOTATION, BEHAVIOR_SPECS_ANNOTATION, METRIC_STATUSES_ANNOTATION,
               CONDITIONS_ANNOTATION)

Obj = dict[str, Any]


class ConversionError(ValueError):
    """An annotation that does not hold what its conversion expects (upstream: the json.Unmarshal error)."""


def _go_json(value: Any) -> str:
    """``json.Marshal``: compact, with Go's HTML-safe escapes."""
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _put(out: Obj, key: str, value: Any) -> None:
    if value is not None:
        out[key] = value


def _d(value: Any) -> Obj:
    return value if isinstance(value, dict) else {}


def _meta(obj: Obj) -> Obj:
    return {k: v for k, v in _d(obj.get("metadata")).items()}


def drop_round_trip_annotations(meta: Obj) -> Obj:
    """``DropRoundTripHorizontalPodAutoscalerAnnotations``: ``meta`` without the four annotations (a copy
    when any was there; an emptied map is removed, as Go's omitempty drops it)."""
    annotations = meta.get("annotations")
    if not isinstance(annotations, dict) or not any(k in annotations for k in _ROUND_TRIP):
        return meta
    kept = {k: v for k, v in annotations.items() if k not in _ROUND_TRIP}
    out = {k: v for k, v in meta.items() if k != "annotations"}
    if kept:
        out["annotations"] = kept
    return out


def hub(obj: Obj) -> Obj:
    """A v2 object as v2 stores and serves it: without the v1 round-trip annotations."""
    meta = obj.get("metadata")
    if not isinstance(meta, dict):
        return obj
    dropped = drop_round_trip_annotations(meta)
    return obj if dropped is meta else {**obj, "metadata": dropped}


# --- metric identifiers and references ---

def _ref(r: Any) -> Obj:
    """CrossVersionObjectReference (kind, name, apiVersion omitempty): the same shape in both versions."""
    r = _d(r)
    out: Obj = {"kind": r.get("kind", ""), "name": r.get("name", "")}
    if r.get("apiVersion"):
        out["apiVersion"] = r["apiVersion"]
    return out


def _zero(q: Any) -> Any:
    return "0" if q is None else q


# --- spec metrics: v2 MetricSpec <-> v1 MetricSpec (the annotation's element type) ---

def _metric_spec_to_v1(m: Obj) -> Obj:
    out: Obj = {"type": m.get("type", "")}
    if isinstance(m.get("object"), dict):
        o = m["object"]
        metric, target = _d(o.get("metric")), _d(o.get("target"))
        src: Obj = {"target": _ref(o.get("describedObject")), "metricName": metric.get("name", ""),
                    "targetValue": _zero(target.get("value"))}
        _put(src, "selector", metric.get("selector"))
        _put(src, "averageValue", target.get("averageValue"))
        out["object"] = src
    if isinstance(m.get("pods"), dict):
        p = m["pods"]
        metric, target = _d(p.get("metric")), _d(p.get("target"))
        src = {"metricName": metric.get("name", ""), "targetAverageValue": _zero(target.get("averageValue"))}
        _put(src, "selector", metric.get("selector"))
        out["pods"] = src
    for key in ("resource", "containerResource"):
        if isinstance(m.get(key), dict):
            r = m[key]
            target = _d(r.get("target"))
            src = {"name": r.get("name", "")}
            _put(src, "targetAverageUtilization", target.get("averageUtilization"))
            _put(src, "targetAverageValue", target.get("averageValue"))
            if key == "containerResource":
                src["container"] = r.get("container", "")
            out[key] = src
    if isinstance(m.get("external"), dict):
        e = m["external"]
        metric, target = _d(e.get("metric")), _d(e.get("target"))
        src = {"metricName": metric.get("name", "")}
        _put(src, "metricSelector", metric.get("selector"))
        _put(src, "targetValue", target.get("value"))
        _put(src, "targetAverageValue", target.get("averageValue"))
        out["external"] = src
    return out


def _identifier(name: Any, selector: Any) -> Obj:
    out: Obj = {"name": name if isinstance(name, str) else ""}
    _put(out, "selector", selector)
    return out


def _metric_spec_from_v1(m: Obj) -> Obj:
    out: Obj = {"type": m.get("type", "")}
    if isinstance(m.get("object"), dict):
        o = m["object"]
        target: Obj = {"type": "Value" if o.get("averageValue") is None else "AverageValue",
                       "value": _zero(o.get("targetValue"))}
        _put(target, "averageValue", o.get("averageValue"))
        out["object"] = {"describedObject": _ref(o.get("target")),
                         "metric": _identifier(o.get("metricName"), o.get("selector")), "target": target}
    if isinstance(m.get("pods"), dict):
        p = m["pods"]
        out["pods"] = {"metric": _identifier(p.get("metricName"), p.get("selector")),
                       "target": {"type": "AverageValue", "averageValue": _zero(p.get("targetAverageValue"))}}
    for key in ("resource", "containerResource"):
        if isinstance(m.get(key), dict):
            r = m[key]
            utilization = r.get("targetAverageUtilization")
            target = {"type": "AverageValue" if utilization is None else "Utilization"}
            _put(target, "averageUtilization", utilization)
            _put(target, "averageValue", r.get("targetAverageValue"))
            src: Obj = {"name": r.get("name", ""), "target": target}
            if key == "containerResource":
                src["container"] = r.get("container", "")
            out[key] = src
    if isinstance(m.get("external"), dict):
        e = m["external"]
        target = {"type": "AverageValue" if e.get("targetValue") is None else "Value"}
        _put(target, "value", e.get("targetValue"))
        _put(target, "averageValue", e.get("targetAverageValue"))
        out["external"] = {"metric": _identifier(e.get("metricName"), e.get("metricSelector")), "target": target}
    return out


# --- status metrics: v2 MetricStatus <-> v1 MetricStatus ---

def _metric_status_to_v1(m: Obj) -> Obj:
    out: Obj = {"type": m.get("type", "")}
    if isinstance(m.get("object"), dict):
        o = m["object"]
        metric, current = _d(o.get("metric")), _d(o.get("current"))
        src: Obj = {"target": _ref(o.get("describedObject")), "metricName": metric.get("name", ""),
                    "currentValue": _zero(current.get("value"))}
        _put(src, "selector", metric.get("selector"))
        _put(src, "averageValue", current.get("averageValue"))
        out["object"] = src
    if isinstance(m.get("pods"), dict):
        p = m["pods"]
        metric, current = _d(p.get("metric")), _d(p.get("current"))
        src = {"metricName": metric.get("name", ""), "currentAverageValue": _zero(current.get("averageValue"))}
        _put(src, "selector", metric.get("selector"))
        out["pods"] = src
    for key in ("resource", "containerResource"):
        if isinstance(m.get(key), dict):
            r = m[key]
            current = _d(r.get("current"))
            src = {"name": r.get("name", "")}
            _put(src, "currentAverageUtilization", current.get("averageUtilization"))
            src["currentAverageValue"] = _zero(current.get("averageValue"))
            if key == "containerResource":
                src["container"] = r.get("container", "")
            out[key] = src
    if isinstance(m.get("external"), dict):
        e = m["external"]
        metric, current = _d(e.get("metric")), _d(e.get("current"))
        src = {"metricName": metric.get("name", "")}
        _put(src, "metricSelector", metric.get("selector"))
        src["currentValue"] = _zero(current.get("value"))
        _put(src, "currentAverageValue", current.get("averageValue"))
        out["external"] = src
    return out


def _metric_status_from_v1(m: Obj) -> Obj:
    out: Obj = {"type": m.get("type", "")}
    if isinstance(m.get("object"), dict):
        o = m["object"]
        current: Obj = {"value": _zero(o.get("currentValue"))}
        _put(current, "averageValue", o.get("averageValue"))
        out["object"] = {"current": current, "describedObject": _ref(o.get("target")),
                         "metric": _identifier(o.get("metricName"), o.get("selector"))}
    if isinstance(m.get("pods"), dict):
        p = m["pods"]
        out["pods"] = {"current": {"averageValue": _zero(p.get("currentAverageValue"))},
                       "metric": _identifier(p.get("metricName"), p.get("selector"))}
    for key in ("resource", "containerResource"):
        if isinstance(m.get(key), dict):
            r = m[key]
            current = {"averageValue": _zero(r.get("currentAverageValue"))}
            _put(current, "averageUtilization", r.get("currentAverageUtilization"))
            src: Obj = {"name": r.get("name", ""), "current": current}
            if key == "containerResource":
                src["container"] = r.get("container", "")
            out[key] = src
    if isinstance(m.get("external"), dict):
        e = m["external"]
        current = {"value": _zero(e.get("currentValue"))}
        _put(current, "averageValue", e.get("currentAverageValue"))
        out["external"] = {"current": current, "metric": _identifier(e.get("metricName"), e.get("metricSelector"))}
    return out


def _condition_to_v1(c: Obj) -> Obj:
    # HorizontalPodAutoscalerCondition: lastTransitionTime is a metav1.Time (a struct): omitempty keeps it
    out: Obj = {"type": c.get("type", ""), "status": c.get("status", ""),
                "lastTransitionTime": c.get("lastTransitionTime")}
    _put(out, "reason", c.get("reason") or None)
    _put(out, "message", c.get("message") or None)
    return out


def _condition_from_v1(c: Obj) -> Obj:
    out: Obj = {"type": c.get("type", ""), "status": c.get("status", "")}
    for key in ("lastTransitionTime", "reason", "message"):
        if c.get(key):
            out[key] = c[key]
    return out


# --- behavior: the internal type's JSON (Go field names) ---

_RULES_FIELDS = (("StabilizationWindowSeconds", "stabilizationWindowSeconds"), ("SelectPolicy", "selectPolicy"),
                 ("Policies", "policies"), ("Tolerance", "tolerance"))
_POLICY_FIELDS = (("Type", "type"), ("Value", "value"), ("PeriodSeconds", "periodSeconds"))


def _behavior_to_internal(b: Obj) -> Obj:
    def rules(r: Any) -> Obj | None:
        if not isinstance(r, dict):
            return None
        out: Obj = {}
        for go, js in _RULES_FIELDS:
            value = r.get(js)
            if js == "policies" and isinstance(value, list):
                value = [{go2: (p.get(js2) if p.get(js2) is not None else ("" if js2 == "type" else 0))
                          for go2, js2 in _POLICY_FIELDS} for p in value if isinstance(p, dict)]
            out[go] = value
        return out

    return {"ScaleUp": rules(b.get("scaleUp")), "ScaleDown": rules(b.get("scaleDown"))}


def _ci(obj: Obj, go_name: str) -> Any:
    """A field of Go-marshalled JSON, matched case-insensitively as ``json.Unmarshal`` matches it."""
    if go_name in obj:
        return obj[go_name]
    lowered = go_name.lower()
    for k, v in obj.items():
        if k.lower() == lowered:
            return v
    return None


def _behavior_from_internal(b: Any) -> Obj:
    if not isinstance(b, dict):
        raise ConversionError(f"{BEHAVIOR_SPECS_ANNOTATION}: expected an object")

    def rules(r: Any) -> Obj | None:
        if r is None:
            return None
        if not isinstance(r, dict):
            raise ConversionError(f"{BEHAVIOR_SPECS_ANNOTATION}: expected an object")
        out: Obj = {}
        for go, js in _RULES_FIELDS:
            value = _ci(r, go)
            if js == "policies" and isinstance(value, list):
                value = [{js2: _ci(p, go2) for go2, js2 in _POLICY_FIELDS} for p in value if isinstance(p, dict)]
            _put(out, js, value)
        return out

    out: Obj = {}
    _put(out, "scaleUp", rules(_ci(b, "ScaleUp")))
    _put(out, "scaleDown", rules(_ci(b, "ScaleDown")))
    return out


def _is_cpu(m: Any, field: str) -> bool:
    return (isinstance(m, dict) and m.get("type") == "Resource" and isinstance(m.get("resource"), dict)
            and m["resource"].get("name") == "cpu" and _d(m["resource"].get(field)).get("averageUtilization") is not None)


# --- the whole object ---

def to_v1(obj: Obj) -> Obj:
    """``Convert_autoscaling_HorizontalPodAutoscaler_To_v1_HorizontalPodAutoscaler`` on v2 data."""
    spec, status = _d(obj.get("spec")), _d(obj.get("status"))
    metrics = [m for m in spec.get("metrics") or () if isinstance(m, dict)]
    v1_spec: Obj = {"scaleTargetRef": _ref(spec.get("scaleTargetRef"))}
    _put(v1_spec, "minReplicas", spec.get("minReplicas"))
    v1_spec["maxReplicas"] = spec.get("maxReplicas", 0)
    for m in metrics:  # the first CPU utilization metric (kubernetes#101370: not the first CPU metric)
        if _is_cpu(m, "target"):
            v1_spec["targetCPUUtilizationPercentage"] = m["resource"]["target"]["averageUtilization"]
            break
    v1_status: Obj = {}
    _put(v1_status, "observedGeneration", status.get("observedGeneration"))
    _put(v1_status, "lastScaleTime", status.get("lastScaleTime"))
    v1_status["currentReplicas"] = status.get("currentReplicas", 0)
    v1_status["desiredReplicas"] = status.get("desiredReplicas", 0)
    current = [m for m in status.get("currentMetrics") or () if isinstance(m, dict)]
    for m in current:  # no break: the last CPU utilization wins
        if m.get("type") == "Resource" and _d(m.get("resource")).get("name") == "cpu":
            _put(v1_status, "currentCPUUtilizationPercentage",
                 _d(m["resource"].get("current")).get("averageUtilization"))

    meta = drop_round_trip_annotations(_meta(obj))
    extra: dict[str, str] = {}
    other = [_metric_spec_to_v1(m) for m in metrics if not _is_cpu(m, "target")]
    if other:
        extra[METRIC_SPECS_ANNOTATION] = _go_json(other)
    if current:
        extra[METRIC_STATUSES_ANNOTATION] = _go_json([_metric_status_to_v1(m) for m in current])
    conditions = [c for c in status.get("conditions") or () if isinstance(c, dict)]
    if conditions:
        extra[CONDITIONS_ANNOTATION] = _go_json([_condition_to_v1(c) for c in conditions])
    if isinstance(spec.get("behavior"), dict):
        extra[BEHAVIOR_SPECS_ANNOTATION] = _go_json(_behavior_to_internal(spec["behavior"]))
    if extra:
        meta["annotations"] = {**_d(meta.get("annotations")), **extra}
    out: Obj = {"apiVersion": "autoscaling/v1", "kind": "HorizontalPodAutoscaler", "metadata": meta,
                "spec": v1_spec, "status": v1_status}
    return out


def _annotation_list(meta: Obj, key: str) -> list[Obj] | None:
    raw = _d(meta.get("annotations")).get(key)
    if raw is None:
        return None
    try:
        value = json.loads(raw)
    except (TypeError, ValueError) as e:
        raise ConversionError(f"{key}: {e}") from None
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        raise ConversionError(f"{key}: expected a JSON array of objects")
    return value


def from_v1(obj: Obj) -> Obj:
    """``Convert_v1_HorizontalPodAutoscaler_To_autoscaling_HorizontalPodAutoscaler``: v2 data of a v1 object.
    Raises :class:`ConversionError` for a round-trip annotation that does not decode."""
    spec, status = _d(obj.get("spec")), _d(obj.get("status"))
    meta = _meta(obj)
    v2_spec: Obj = {"scaleTargetRef": _ref(spec.get("scaleTargetRef"))}
    _put(v2_spec, "minReplicas", spec.get("minReplicas"))
    _put(v2_spec, "maxReplicas", spec.get("maxReplicas"))
    metrics: list[Obj] = []
    if spec.get("targetCPUUtilizationPercentage") is not None:
        metrics = [{"type": "Resource", "resource": {"name": "cpu", "target": {
            "type": "Utilization", "averageUtilization": spec["targetCPUUtilizationPercentage"]}}}]
    other = _annotation_list(meta, METRIC_SPECS_ANNOTATION)
    if other is not None:
        # the annotation's metrics first, then the one the CPU target made
        metrics = [_metric_spec_from_v1(m) for m in other] + metrics
    if not metrics:  # v1's implicit default, applied explicitly
        metrics = [{"type": "Resource", "resource": {"name": "cpu", "target": {
            "type": "Utilization", "averageUtilization": DEFAULT_CPU_UTILIZATION}}}]
    v2_spec["metrics"] = metrics
    behavior_raw = _d(meta.get("annotations")).get(BEHAVIOR_SPECS_ANNOTATION)
    if behavior_raw is not None:
        try:
            behavior = json.loads(behavior_raw)
        except (TypeError, ValueError) as e:
            raise ConversionError(f"{BEHAVIOR_SPECS_ANNOTATION}: {e}") from None
        v2_spec["behavior"] = _behavior_from_internal(behavior)

    v2_status: Obj = {}
    _put(v2_status, "observedGeneration", status.get("observedGeneration"))
    _put(v2_status, "lastScaleTime", status.get("lastScaleTime"))
    _put(v2_status, "currentReplicas", status.get("currentReplicas") or None)  # omitempty in v2
    _put(v2_status, "desiredReplicas", status.get("desiredReplicas"))
    if status.get("currentCPUUtilizationPercentage") is not None:
        v2_status["currentMetrics"] = [{"type": "Resource", "resource": {
            "name": "cpu", "current": {"averageUtilization": status["currentCPUUtilizationPercentage"]}}}]
    current = _annotation_list(meta, METRIC_STATUSES_ANNOTATION)
    if current is not None:  # more information than the CPU figure: it replaces it
        v2_status["currentMetrics"] = [_metric_status_from_v1(m) for m in current]
    conditions = _annotation_list(meta, CONDITIONS_ANNOTATION)
    if conditions is not None:
        v2_status["conditions"] = [_condition_from_v1(c) for c in conditions]

    out: Obj = {"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
                "metadata": drop_round_trip_annotations(meta), "spec": v2_spec}
    if any(v for k, v in v2_status.items() if k != "desiredReplicas") or v2_status.get("desiredReplicas"):
        out["status"] = v2_status  # a zero status is the empty one v1's non-omitempty replicas fields imply
    return out
