"""TaintNodesByCondition (upstream plugin/pkg/admission/nodetaint).

A newly registered Node gets ``node.kubernetes.io/not-ready:NoSchedule`` until the node lifecycle
controller sees it Ready, so nothing is scheduled onto a node that has not reported in.
"""

from __future__ import annotations

from kubelite.apiserver.request import AdmissionRequest

__all__ = ["TaintNodesByCondition"]

_TAINT = {"key": "node.kubernetes.io/not-ready", "effect": "NoSchedule"}


class TaintNodesByCondition:
    name = "TaintNodesByCondition"
    operations = frozenset({"CREATE"})  # NewHandler(...): handles() asked only for these
    resources = frozenset({("", "nodes")})  # handles() is False for any other (group, resource)
    # the per-template create memo (admission/chain.py): Nodes only: not a templated kind
    template_tables: tuple[tuple[str, str], ...] | None = None

    def handles(self, req: AdmissionRequest) -> bool:
        return req.operation == "CREATE" and req.group == "" and req.resource == "nodes" and not req.subresource

    def admit(self, req: AdmissionRequest) -> None:
        assert req.object is not None
        spec = req.object.setdefault("spec", {})
        taints = list(spec.get("taints") or ())
        if not any(t.get("key") == _TAINT["key"] and t.get("effect") == "NoSchedule" for t in taints):
            taints.append(dict(_TAINT))
        spec["taints"] = taints
