"""Priority (upstream plugin/pkg/admission/priority).

A pod's ``spec.priorityClassName`` resolves to ``spec.priority`` and ``spec.preemptionPolicy``; with
no class name the cluster's ``globalDefault`` class applies, else priority 0. An unknown class is
403 ``no PriorityClass with name X was found``; a pod may not set a priority that disagrees with
its class. The two system classes always exist.
"""

from __future__ import annotations

from typing import Any

from kubelite.apiserver.admission.chain import ObjectReader
from kubelite.apiserver.request import AdmissionRequest
from kubelite.errors import Forbidden

__all__ = ["SYSTEM_PRIORITY_CLASSES", "PriorityAdmission"]

SYSTEM_PRIORITY_CLASSES: dict[str, int] = {
    "system-node-critical": 2000001000,
    "system-cluster-critical": 2000000000,
}


class PriorityAdmission:
    name = "Priority"
    operations = frozenset({"CREATE"})  # NewHandler(...): handles() asked only for these
    resources = frozenset({("", "pods")})  # handles() is False for any other (group, resource)
    # the per-template create memo (admission/chain.py): the pod's priorityClassName and the PriorityClasses
    template_tables: tuple[tuple[str, str], ...] | None = (("scheduling.k8s.io", "priorityclasses"),)

    def __init__(self, reader: ObjectReader) -> None:
        self.reader = reader

    def handles(self, req: AdmissionRequest) -> bool:
        return req.operation == "CREATE" and req.group == "" and req.resource == "pods" and not req.subresource

    def _default_class(self) -> dict[str, Any] | None:
        best: dict[str, Any] | None = None
        for pc in self.reader.read_all("scheduling.k8s.io", "priorityclasses"):
            if pc.get("globalDefault") and (best is None or pc.get("value", 0) < best.get("value", 0)):
                best = pc
        return best

    def admit(self, req: AdmissionRequest) -> None:
        assert req.object is not None
        spec = req.object.setdefault("spec", {})
        name = spec.get("priorityClassName") or ""
        policy = "PreemptLowerPriority"
        if name:
            pc = self.reader.read("scheduling.k8s.io", "priorityclasses", "", name)
            if pc is None:
                raise Forbidden.make(
                    f'pods "{req.name}" is forbidden: no PriorityClass with name {name} was found',
                    name=req.name or None, kind="pods",
                )
            value = int(pc.get("value", 0))
            policy = pc.get("preemptionPolicy") or policy
        else:
            pc = self._default_class()
            if pc is not None:
                spec["priorityClassName"] = name = pc["metadata"]["name"]
                value = int(pc.get("value", 0))
                policy = pc.get("preemptionPolicy") or policy
            else:
                value = 0
        given = spec.get("priority")
        if given is not None and given != value:
            raise Forbidden.make(
                f'pods "{req.name}" is forbidden: the integer value of priority ({given}) must not be provided '
                f"in pod spec; priority admission controller computed {value} from the given PriorityClass name",
                name=req.name or None, kind="pods",
            )
        spec["priority"] = value
        spec.setdefault("preemptionPolicy", policy)
