"""Pure DaemonSet placement helpers (pkg/controller/daemon/util/daemonset_util.go and
daemon_controller.go ``NodeShouldRunDaemonPod``, ``predicates``).

- :func:`add_default_tolerations` (``AddOrUpdateDaemonPodTolerations``): not-ready and unreachable
  NoExecute without tolerationSeconds; disk-, memory-, pid-pressure and unschedulable NoSchedule;
  network-unavailable NoSchedule for hostNetwork pods. Existing tolerations with the same key and
  effect are replaced.
- :func:`node_affinity_for` (``ReplaceDaemonSetPodNodeNameNodeAffinity``): the pod's required node
  affinity becomes a single term ``matchFields metadata.name In [node]``, which pins it to that node
  while the default scheduler still binds it.
- :func:`should_run` returns (shouldRun, shouldContinueRunning) for a node.
Nothing here mutates its arguments.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kubelite.api.scheduling import pod_matches_node_selector_and_affinity, tolerates_taint

__all__ = [
    "REVISION_HASH_LABEL",
    "add_default_tolerations",
    "node_affinity_for",
    "should_run",
    "target_node_name",
]

#: ``apps.DefaultDaemonSetUniqueLabelKey`` (= ControllerRevisionHashLabelKey)
REVISION_HASH_LABEL = "controller-revision-hash"

_NO_EXECUTE = ("node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable")
_NO_SCHEDULE = ("node.kubernetes.io/disk-pressure", "node.kubernetes.io/memory-pressure",
                "node.kubernetes.io/pid-pressure", "node.kubernetes.io/unschedulable")
_NETWORK_UNAVAILABLE = "node.kubernetes.io/network-unavailable"


def add_default_tolerations(tolerations: list[dict[str, Any]] | None, host_network: bool) -> list[dict[str, Any]]:
    """``AddOrUpdateDaemonPodTolerations`` on toleration dicts; returns a new list."""
    out = list(tolerations or ())
    wanted = [(k, "NoExecute") for k in _NO_EXECUTE] + [(k, "NoSchedule") for k in _NO_SCHEDULE]
    if host_network:
        wanted.append((_NETWORK_UNAVAILABLE, "NoSchedule"))
    for key, effect in wanted:
        tol = {"key": key, "operator": "Exists", "effect": effect}
        # AddOrUpdateTolerationInPod: a toleration equal in key, operator, value and effect is replaced
        out = [t for t in out if not (t.get("key") == key and t.get("effect") == effect
                                      and (t.get("operator") or "Equal") == "Exists" and not t.get("value"))]
        out.append(tol)
    return out


def node_affinity_for(affinity: Mapping[str, Any] | None, node_name: str) -> dict[str, Any]:
    """``ReplaceDaemonSetPodNodeNameNodeAffinity`` on an affinity dict; returns a new dict."""
    term = {"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node_name]}]}
    out = dict(affinity or {})
    na = dict(out.get("nodeAffinity") or {})
    na["requiredDuringSchedulingIgnoredDuringExecution"] = {"nodeSelectorTerms": [term]}
    out["nodeAffinity"] = na
    return out


def target_node_name(pod: Any) -> str | None:
    """``GetTargetNodeName``: spec.nodeName, else the node its required affinity pins it to."""
    spec = pod.spec
    if spec is None:
        return None
    if spec.node_name:
        return spec.node_name  # type: ignore[no-any-return]
    aff = spec.affinity
    na = aff.node_affinity if aff is not None else None
    req = na.required_during_scheduling_ignored_during_execution if na is not None else None
    for term in (req.node_selector_terms if req is not None else None) or ():
        for f in term.match_fields or ():
            if f.key == "metadata.name" and f.operator == "In" and f.values and len(f.values) == 1:
                return f.values[0]  # type: ignore[no-any-return]
    return None


class _Tol:
    """A toleration dict seen through the attribute names ``tolerates_taint`` reads."""

    __slots__ = ("effect", "key", "operator", "value")

    def __init__(self, d: Mapping[str, Any]) -> None:
        self.key = d.get("key")
        self.operator = d.get("operator")
        self.value = d.get("value")
        self.effect = d.get("effect")


def should_run(node: Any, template_spec: Any, tolerations: list[dict[str, Any]]) -> tuple[bool, bool]:
    """``NodeShouldRunDaemonPod``: (should run, should continue running) on ``node``. ``tolerations``
    are the template's plus the defaults (what the created pod will carry)."""
    name = node.metadata.name or ""
    if template_spec.node_name and template_spec.node_name != name:
        return False, False
    labels = node.metadata.labels or {}
    if not pod_matches_node_selector_and_affinity(template_spec, labels, name):
        return False, False
    taints = (node.spec.taints if node.spec is not None else None) or ()
    tols = [_Tol(t) for t in tolerations]
    fits = True
    keep = True
    for t in taints:
        if t.effect not in ("NoSchedule", "NoExecute"):
            continue
        if any(tolerates_taint(tol, t) for tol in tols):
            continue
        fits = False
        if t.effect == "NoExecute":
            keep = False
    if not fits:
        return False, keep  # scheduled daemon pods stay while they tolerate every NoExecute taint
    return True, True
