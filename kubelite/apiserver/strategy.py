"""Registry strategies: what a resource's storage does to an object before it is written.

Mirrors the ``PrepareForCreate`` / ``PrepareForUpdate`` / status-strategy split of upstream's
``pkg/registry/<group>/<resource>/strategy.go``:
- On create, resources with a status subresource start with a fresh status (pods ``Pending`` with
  their QoS class, namespaces ``Active``, persistent volumes and claims ``Pending``; nodes keep the
  status the kubelet registers), and resources that track generations start at generation 1.
- An update of the main resource keeps the stored status; an update of ``/status`` keeps everything
  but the status (``ResetObjectMetaForStatus``).
- ``metadata.generation`` is bumped when the spec changes (Deployments also on annotation changes;
  custom resources on any change outside metadata and, with a status subresource, status).
- System metadata (uid, creationTimestamp, deletionTimestamp, deletionGracePeriodSeconds) cannot be
  changed by an update.
All functions mutate the private dict the apiserver passes in and never keep a reference to it.
"""

from __future__ import annotations

from typing import Any

import msgspec

from kubelite.api.quantity import parse_quantity
from kubelite.api.resources import ResourceInfo

__all__ = [
    "compute_qos_class",
    "finish_create",
    "prepare_for_finalize",
    "keeps_generation",
    "prepare_for_create",
    "prepare_for_status_update",
    "prepare_for_update",
]

# (group, plural) of built-in resources whose strategies set metadata.generation.
_GENERATION: frozenset[tuple[str, str]] = frozenset({
    ("", "pods"), ("apps", "deployments"), ("apps", "replicasets"), ("apps", "statefulsets"),
    ("apps", "daemonsets"), ("batch", "jobs"), ("batch", "cronjobs"), ("policy", "poddisruptionbudgets"),
    ("apiextensions.k8s.io", "customresourcedefinitions"), ("", "replicationcontrollers"),
    ("autoscaling", "horizontalpodautoscalers"),
})
# Resources whose create keeps the caller's status although they have a status subresource.
_KEEP_STATUS_ON_CREATE: frozenset[tuple[str, str]] = frozenset({("", "nodes"), ("", "events")})


def keeps_generation(info: ResourceInfo) -> bool:
    return info.struct is None or (info.group, info.plural) in _GENERATION


# GetPodQOS reads only the containers' resources; pods created from one template share them.
_QOS: dict[bytes, str] = {}
_QOS_LIMIT = 1024
_encode = msgspec.json.Encoder().encode


def compute_qos_class(pod: dict[str, Any]) -> str:
    """``qos.GetPodQOS`` (pkg/apis/core/helper/qos): Guaranteed, Burstable or BestEffort (memoised on the
    encoded containers)."""
    spec = pod.get("spec") or {}
    try:
        key: bytes | None = _encode((spec.get("initContainers"), spec.get("containers")))
    except (TypeError, ValueError):
        key = None
    if key is not None:
        hit = _QOS.get(key)
        if hit is not None:
            return hit
    qos = _compute_qos_class(spec)
    if key is not None:
        if len(_QOS) >= _QOS_LIMIT:
            _QOS.clear()
        _QOS[key] = qos
    return qos


def _compute_qos_class(spec: dict[str, Any]) -> str:
    requests: dict[str, Any] = {}
    limits: dict[str, Any] = {}
    guaranteed = True
    any_set = False
    for c in [*(spec.get("initContainers") or ()), *(spec.get("containers") or ())]:
        res = c.get("resources") or {}
        req = res.get("requests") or {}
        lim = res.get("limits") or {}
        for name, q in req.items():
            if name in ("cpu", "memory") and parse_quantity(q) > parse_quantity(0):
                any_set = True
                requests[name] = q
        cpu_mem_limits = 0
        for name, q in lim.items():
            if name in ("cpu", "memory") and parse_quantity(q) > parse_quantity(0):
                any_set = True
                limits[name] = q
                cpu_mem_limits += 1
        if cpu_mem_limits != 2:
            guaranteed = False
        for name in ("cpu", "memory"):
            if name in req and name in lim and parse_quantity(req[name]) != parse_quantity(lim[name]):
                guaranteed = False
    if not any_set:
        return "BestEffort"
    if guaranteed:
        return "Guaranteed"
    return "Burstable"


def finish_create(info: ResourceInfo, obj: dict[str, Any]) -> None:
    """What a strategy sets once the name and uid exist (``PrepareForCreate`` runs after name generation
    upstream): a Job's generated selector and labels, a Namespace's ``kubernetes.io/metadata.name``."""
    key = (info.group, info.plural)
    meta = obj["metadata"]
    if key == ("batch", "jobs"):
        _generate_job_selector(obj)
    elif key == ("", "namespaces"):
        meta.setdefault("labels", {})["kubernetes.io/metadata.name"] = meta.get("name") or ""


def _generate_job_selector(job: dict[str, Any]) -> None:
    """pkg/registry/batch/job/strategy.go generateSelector: unless ``spec.manualSelector``, the selector is
    the job's controller uid and the pod template carries the uid and job-name labels (both the
    ``batch.kubernetes.io/`` keys and the legacy ones)."""
    spec = job.setdefault("spec", {})
    if spec.get("manualSelector"):
        return
    uid, name = job["metadata"]["uid"], job["metadata"].get("name") or ""  # a missing name fails validation
    template = spec.setdefault("template", {})
    tmeta = template.setdefault("metadata", {})
    labels = tmeta.setdefault("labels", {})
    for k, v in (("batch.kubernetes.io/controller-uid", uid), ("batch.kubernetes.io/job-name", name),
                 ("controller-uid", uid), ("job-name", name)):
        labels.setdefault(k, v)
    if not spec.get("selector"):
        spec["selector"] = {"matchLabels": {"batch.kubernetes.io/controller-uid": uid}}


def prepare_for_create(info: ResourceInfo, obj: dict[str, Any]) -> None:
    key = (info.group, info.plural)
    if "status" in info.subresources and key not in _KEEP_STATUS_ON_CREATE:
        if key == ("", "pods"):
            obj["status"] = {"phase": "Pending", "qosClass": compute_qos_class(obj)}
        elif key == ("", "namespaces"):
            obj["status"] = {"phase": "Active"}
        elif key in (("", "persistentvolumes"), ("", "persistentvolumeclaims")):
            obj["status"] = {"phase": "Pending"}
        elif info.struct is None:
            obj.pop("status", None)
        else:
            obj["status"] = {}
    if key == ("", "namespaces"):
        spec = obj.setdefault("spec", {})
        if not spec.get("finalizers"):
            spec["finalizers"] = ["kubernetes"]
    if keeps_generation(info):
        obj["metadata"]["generation"] = 1


_SYSTEM_META = ("uid", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "generation")


def _keep_system_meta(new_meta: dict[str, Any], old_meta: dict[str, Any]) -> None:
    for k in _SYSTEM_META:
        if k in old_meta:
            new_meta[k] = old_meta[k]
        else:
            new_meta.pop(k, None)
    new_meta.pop("selfLink", None)


def prepare_for_update(info: ResourceInfo, obj: dict[str, Any], old: dict[str, Any]) -> None:
    """Main-resource update: keep stored status and system metadata; bump generation on spec change."""
    _keep_system_meta(obj["metadata"], old["metadata"])
    if (info.group, info.plural) == ("", "namespaces"):
        # pkg/registry/core/namespace/strategy.go: spec.finalizers only change through /finalize
        old_fin = (old.get("spec") or {}).get("finalizers")
        spec = obj.setdefault("spec", {})
        if old_fin is None:
            spec.pop("finalizers", None)
        else:
            spec["finalizers"] = old_fin
    has_status = "status" in info.subresources
    if has_status:
        if "status" in old:
            obj["status"] = old["status"]
        else:
            obj.pop("status", None)
    if not keeps_generation(info):
        return
    if info.struct is None:
        changed = any(
            obj.get(k) != old.get(k) for k in {*obj, *old} - {"metadata", "apiVersion", "kind", "status"}
        ) or (not has_status and obj.get("status") != old.get("status"))
    else:
        changed = obj.get("spec") != old.get("spec")
        if (info.group, info.plural) == ("apps", "deployments"):
            changed = changed or obj["metadata"].get("annotations") != old["metadata"].get("annotations")
    gen = old["metadata"].get("generation") or 0
    obj["metadata"]["generation"] = gen + 1 if changed else gen


def prepare_for_finalize(obj: dict[str, Any], old: dict[str, Any]) -> dict[str, Any]:
    """``namespaces/finalize``: the stored namespace with only ``spec.finalizers`` from the request."""
    result = {k: v for k, v in old.items() if k != "spec"}
    spec = dict(old.get("spec") or {})
    fin = (obj.get("spec") or {}).get("finalizers")
    if fin:
        spec["finalizers"] = list(fin)
    else:
        spec.pop("finalizers", None)
    result["spec"] = spec
    return result


def prepare_for_status_update(info: ResourceInfo, obj: dict[str, Any], old: dict[str, Any]) -> dict[str, Any]:
    """``/status`` update.

    Built-in kinds follow their status strategies (e.g. deploymentStatusStrategy, podStatusStrategy): the
    spec, labels, ownerReferences and system metadata come from the stored object; everything else in
    ``metadata`` (annotations, finalizers) and ``status`` from the request. Custom resources follow
    ``ResetObjectMetaForStatus``: only ``status`` (and managedFields) change.
    """
    if info.struct is None:
        result = {k: v for k, v in old.items() if k != "status"}
        meta = dict(old["metadata"])
        if "managedFields" in obj["metadata"]:
            meta["managedFields"] = obj["metadata"]["managedFields"]
        result["metadata"] = meta
        if "status" in obj:
            result["status"] = obj["status"]
        return result
    result = {k: v for k, v in old.items() if k not in ("status", "metadata")}
    meta = dict(obj["metadata"])
    old_meta = old["metadata"]
    for k in (*_SYSTEM_META, "labels", "ownerReferences", "name", "namespace"):
        if k in old_meta:
            meta[k] = old_meta[k]
        else:
            meta.pop(k, None)
    result["metadata"] = meta
    if "status" in obj:
        result["status"] = obj["status"]
    return result
