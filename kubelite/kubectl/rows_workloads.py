"""``kubectl get`` rows for workload, autoscaling and policy kinds.

Each function follows the same-named ``print*`` in ``pkg/printers/internalversion/printers.go``:
``printDeployment``, ``printReplicaSet``, ``printStatefulSet``, ``printDaemonSet``, ``printJob`` (with the
STATUS column of Kubernetes 1.30+), ``printCronJob`` (with TIMEZONE), ``printHorizontalPodAutoscaler``
(``formatHPAMetrics``) and ``printPodDisruptionBudget``. Row functions never mutate the object.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kubelite.kubectl.status import format_labels, format_selector, layout_containers
from kubelite.kubectl.timefmt import human_duration, since, timestamp

__all__ = ["ROWS"]

Obj = Mapping[str, Any]


def _meta(o: Obj) -> Obj:
    return o.get("metadata") or {}


def _age(o: Obj, now: float) -> str:
    return since(_meta(o).get("creationTimestamp"), now)


def _template_cells(o: Obj, with_selector: bool = True) -> list[str]:
    spec = o.get("spec") or {}
    names, images = layout_containers(((spec.get("template") or {}).get("spec") or {}).get("containers") or ())
    return [names, images, format_selector(spec.get("selector"))] if with_selector else [names, images]


def deployment_row(d: Obj, now: float, wide: bool) -> list[str]:
    spec, st = d.get("spec") or {}, d.get("status") or {}
    row = [str(_meta(d).get("name", "")), f"{st.get('readyReplicas', 0)}/{spec.get('replicas', 0)}",
           str(st.get("updatedReplicas", 0)), str(st.get("availableReplicas", 0)), _age(d, now)]
    return row + _template_cells(d) if wide else row


def replicaset_row(r: Obj, now: float, wide: bool) -> list[str]:
    spec, st = r.get("spec") or {}, r.get("status") or {}
    row = [str(_meta(r).get("name", "")), str(spec.get("replicas", 0)), str(st.get("replicas", 0)),
           str(st.get("readyReplicas", 0)), _age(r, now)]
    return row + _template_cells(r) if wide else row


def statefulset_row(s: Obj, now: float, wide: bool) -> list[str]:
    spec, st = s.get("spec") or {}, s.get("status") or {}
    row = [str(_meta(s).get("name", "")), f"{st.get('readyReplicas', 0)}/{spec.get('replicas', 0)}", _age(s, now)]
    return row + _template_cells(s, with_selector=False) if wide else row


def daemonset_row(d: Obj, now: float, wide: bool) -> list[str]:
    st = d.get("status") or {}
    node_selector = (((d.get("spec") or {}).get("template") or {}).get("spec") or {}).get("nodeSelector")
    row = [str(_meta(d).get("name", "")), str(st.get("desiredNumberScheduled", 0)),
           str(st.get("currentNumberScheduled", 0)), str(st.get("numberReady", 0)),
           str(st.get("updatedNumberScheduled", 0)), str(st.get("numberAvailable", 0)),
           format_labels(node_selector), _age(d, now)]
    return row + _template_cells(d) if wide else row


def _has_condition(o: Obj, type_: str) -> bool:
    return any(c.get("type") == type_ and c.get("status") == "True"
               for c in (o.get("status") or {}).get("conditions") or ())


def job_status(j: Obj) -> str:
    for cond, text in (("Complete", "Complete"), ("Failed", "Failed")):
        if _has_condition(j, cond):
            return text
    if _meta(j).get("deletionTimestamp"):
        return "Terminating"
    for cond in ("Suspended", "FailureTarget", "SuccessCriteriaMet"):
        if _has_condition(j, cond):
            return cond
    return "Running"


def job_completions(j: Obj) -> str:
    spec, st = j.get("spec") or {}, j.get("status") or {}
    done = st.get("succeeded", 0)
    if spec.get("completions") is not None:
        return f"{done}/{spec['completions']}"
    par = spec.get("parallelism") or 0
    return f"{done}/1 of {par}" if par > 1 else f"{done}/1"


def job_duration(j: Obj, now: float) -> str:
    st = j.get("status") or {}
    start, end = timestamp(st.get("startTime")), timestamp(st.get("completionTime"))
    if start is None:
        return ""
    return human_duration((end if end is not None else now) - start)


def job_row(j: Obj, now: float, wide: bool) -> list[str]:
    row = [str(_meta(j).get("name", "")), job_status(j), job_completions(j), job_duration(j, now), _age(j, now)]
    return row + _template_cells(j) if wide else row


def cronjob_row(c: Obj, now: float, wide: bool) -> list[str]:
    spec, st = c.get("spec") or {}, c.get("status") or {}
    suspend = spec.get("suspend")
    last = since(st["lastScheduleTime"], now) if st.get("lastScheduleTime") else "<none>"
    row = [str(_meta(c).get("name", "")), str(spec.get("schedule", "")), str(spec.get("timeZone") or "<none>"),
           "<unset>" if suspend is None else ("True" if suspend else "False"), str(len(st.get("active") or ())),
           last, _age(c, now)]
    if wide:
        job = ((spec.get("jobTemplate") or {}).get("spec") or {})
        row += _template_cells({"spec": job})
    return row


def _hpa_metric(spec: Obj, status: Obj | None) -> str:
    """One entry of ``formatHPAMetrics`` ("cpu: 40%/80%", "<unknown>" until the controller reports)."""
    typ = spec.get("type")
    if typ in ("Resource", "ContainerResource"):
        key = "resource" if typ == "Resource" else "containerResource"
        src, target = spec.get(key) or {}, (spec.get(key) or {}).get("target") or {}
        cur = ((status or {}).get(key) or {}).get("current") or {}
        if target.get("averageValue") is not None:
            return f"{src.get('name')}: {cur.get('averageValue', '<unknown>')}/{target['averageValue']}"
        current = f"{cur['averageUtilization']}%" if cur.get("averageUtilization") is not None else "<unknown>"
        want = f"{target['averageUtilization']}%" if target.get("averageUtilization") is not None else "<auto>"
        return f"{src.get('name')}: {current}/{want}"
    key = {"Pods": "pods", "Object": "object", "External": "external"}.get(str(typ), "")
    target = ((spec.get(key) or {}).get("target") or {})
    cur = ((status or {}).get(key) or {}).get("current") or {}
    want = target.get("averageValue") or target.get("value") or "<unknown>"
    have = cur.get("averageValue") or cur.get("value") or "<unknown>"
    return f"{have}/{want}" + (" (avg)" if key in ("object", "external") and target.get("averageValue") else "")


def hpa_row(h: Obj, now: float, wide: bool) -> list[str]:
    spec, st = h.get("spec") or {}, h.get("status") or {}
    ref = spec.get("scaleTargetRef") or {}
    metrics, current = spec.get("metrics") or (), st.get("currentMetrics") or ()
    items = [_hpa_metric(m, current[i] if i < len(current) else None) for i, m in enumerate(metrics)]
    targets = "<none>" if not items else ", ".join(items[:2]) + (
        f" + {len(items) - 2} more..." if len(items) > 2 else "")
    return [str(_meta(h).get("name", "")), f"{ref.get('kind')}/{ref.get('name')}", targets,
            str(spec.get("minReplicas", "<unset>")), str(spec.get("maxReplicas", 0)),
            str(st.get("currentReplicas", 0)), _age(h, now)]


def pdb_row(p: Obj, now: float, wide: bool) -> list[str]:
    spec, st = p.get("spec") or {}, p.get("status") or {}
    return [str(_meta(p).get("name", "")), str(spec.get("minAvailable", "N/A")),
            str(spec.get("maxUnavailable", "N/A")), str(st.get("disruptionsAllowed", 0)), _age(p, now)]


ROWS: dict[str, tuple[tuple[str, ...], tuple[str, ...], Any]] = {
    "deployments": (("NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE"), ("CONTAINERS", "IMAGES", "SELECTOR"),
                    deployment_row),
    "replicasets": (("NAME", "DESIRED", "CURRENT", "READY", "AGE"), ("CONTAINERS", "IMAGES", "SELECTOR"),
                    replicaset_row),
    "statefulsets": (("NAME", "READY", "AGE"), ("CONTAINERS", "IMAGES"), statefulset_row),
    "daemonsets": (("NAME", "DESIRED", "CURRENT", "READY", "UP-TO-DATE", "AVAILABLE", "NODE SELECTOR", "AGE"),
                   ("CONTAINERS", "IMAGES", "SELECTOR"), daemonset_row),
    "jobs": (("NAME", "STATUS", "COMPLETIONS", "DURATION", "AGE"), ("CONTAINERS", "IMAGES", "SELECTOR"), job_row),
    "cronjobs": (("NAME", "SCHEDULE", "TIMEZONE", "SUSPEND", "ACTIVE", "LAST SCHEDULE", "AGE"),
                 ("CONTAINERS", "IMAGES", "SELECTOR"), cronjob_row),
    "horizontalpodautoscalers": (("NAME", "REFERENCE", "TARGETS", "MINPODS", "MAXPODS", "REPLICAS", "AGE"), (),
                                 hpa_row),
    "poddisruptionbudgets": (("NAME", "MIN AVAILABLE", "MAX UNAVAILABLE", "ALLOWED DISRUPTIONS", "AGE"), (),
                             pdb_row),
}
