"""StatefulSet pod identity and storage (pkg/controller/statefulset/stateful_set_utils.go).

- A pod is ``<set>-<ordinal>`` with hostname ``<set>-<ordinal>`` and subdomain ``spec.serviceName``,
  labelled ``statefulset.kubernetes.io/pod-name``, ``apps.kubernetes.io/pod-index`` and
  ``controller-revision-hash`` (the ControllerRevision's name) (``newVersionedStatefulSetPod``).
- Each volumeClaimTemplate ``t`` gives the pod a claim ``<t>-<set>-<ordinal>`` mounted as volume ``t``
  (``updateStorage``, ``getPersistentVolumeClaims``); the claim carries the template's labels plus the
  set's matchLabels.
Nothing here mutates its arguments or does I/O.
"""

from __future__ import annotations

import re
from typing import Any

import msgspec

from kubelite.api.types import Pod, StatefulSet
from kubelite.controllers.controller_utils import owner_reference

__all__ = ["POD_INDEX_LABEL", "POD_NAME_LABEL", "REVISION_LABEL", "claim_bodies", "claim_name", "ordinal",
           "pod_body", "revision_of"]

POD_NAME_LABEL = "statefulset.kubernetes.io/pod-name"
POD_INDEX_LABEL = "apps.kubernetes.io/pod-index"
REVISION_LABEL = "controller-revision-hash"

_ORDINAL = re.compile(r"^(.*)-([0-9]+)$")


def ordinal(set_name: str, pod: Pod) -> int:
    """``getParentNameAndOrdinal``: the pod's ordinal if it is named ``<set>-<n>``, else -1."""
    name = pod.metadata.name if pod.metadata is not None else None
    m = _ORDINAL.match(name or "")
    if m is None or m.group(1) != set_name:
        return -1
    return int(m.group(2))


def revision_of(pod: Pod) -> str | None:
    labels = pod.metadata.labels if pod.metadata is not None else None
    return (labels or {}).get(REVISION_LABEL)


def claim_name(template: str, set_name: str, ord_: int) -> str:
    return f"{template}-{set_name}-{ord_}"


def pod_body(s: StatefulSet, template: dict[str, Any], revision: str, ord_: int) -> dict[str, Any]:
    """``newVersionedStatefulSetPod`` from a template (as dict) of the given revision."""
    meta, spec = s.metadata, s.spec
    assert meta is not None and spec is not None
    name = f"{meta.name}-{ord_}"
    tm = template.get("metadata") or {}
    labels = {**(tm.get("labels") or {}), POD_NAME_LABEL: name, POD_INDEX_LABEL: str(ord_), REVISION_LABEL: revision}
    pm: dict[str, Any] = {"name": name, "namespace": meta.namespace, "labels": labels,
                          "ownerReferences": [owner_reference(s)]}
    for k in ("annotations", "finalizers"):
        if tm.get(k):
            pm[k] = tm[k]
    pod_spec = dict(template.get("spec") or {})
    pod_spec["hostname"] = name
    if spec.service_name:
        pod_spec["subdomain"] = spec.service_name
    claims = spec.volume_claim_templates or ()
    if claims:
        vols = {v.get("name"): v for v in pod_spec.get("volumes") or ()}
        for c in claims:
            cname = c.metadata.name if c.metadata is not None else ""
            vols[cname] = {"name": cname, "persistentVolumeClaim": {"claimName": claim_name(cname or "", meta.name or "",
                                                                                            ord_)}}
        pod_spec["volumes"] = list(vols.values())
    return {"apiVersion": "v1", "kind": "Pod", "metadata": pm, "spec": pod_spec}


def claim_bodies(s: StatefulSet, ord_: int) -> list[dict[str, Any]]:
    """``getPersistentVolumeClaims`` (with ``whenDeleted: Delete`` the set owns its claims)."""
    meta, spec = s.metadata, s.spec
    assert meta is not None and spec is not None
    match = spec.selector.match_labels if spec.selector is not None else None
    policy = spec.persistent_volume_claim_retention_policy
    out = []
    for c in spec.volume_claim_templates or ():
        body = msgspec.to_builtins(c)
        cm = body.setdefault("metadata", {})
        cname = cm.get("name", "")
        cm["name"] = claim_name(cname, meta.name or "", ord_)
        cm["namespace"] = meta.namespace
        cm["labels"] = {**(cm.get("labels") or {}), **(match or {})}
        if policy is not None and policy.when_deleted == "Delete":
            ref = owner_reference(s)
            ref["controller"] = False
            cm["ownerReferences"] = [ref]
        body.pop("status", None)
        body["apiVersion"], body["kind"] = "v1", "PersistentVolumeClaim"
        out.append(body)
    return out
