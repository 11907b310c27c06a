"""The ValidatingAdmissionPolicy strategy (upstream ``pkg/registry/admissionregistration/validatingadmissionpolicy``).

Generation is tracked as upstream. ``status`` is what kube-controller-manager's ValidatingAdmissionPolicy
status controller writes: ``observedGeneration`` and ``typeChecking.expressionWarnings``
(:func:`~kubelite.apiserver.admission.policy_typecheck.type_check`). Deliberate deviation: kubelite computes
it in the apiserver, synchronously, whenever the generation changes, instead of in a controller a moment
later; the values are the controller's.
"""

from __future__ import annotations

from typing import Any

from kubelite.api.resources import ResourceInfo
from kubelite.apiserver.admission.policy_typecheck import SchemaLookup, type_check
from kubelite.apiserver.registry.workloads import GenerationStrategy

__all__ = ["ValidatingAdmissionPolicyStrategy"]


class ValidatingAdmissionPolicyStrategy(GenerationStrategy):
    def __init__(self, info: ResourceInfo, lookup: SchemaLookup) -> None:
        super().__init__(info)
        self.lookup = lookup

    def _status(self, obj: dict[str, Any]) -> None:
        try:
            warnings = type_check(obj, self.lookup)
        except (TypeError, ValueError, KeyError, AttributeError):
            warnings = []  # a malformed spec: validation rejects it
        status: dict[str, Any] = {"observedGeneration": obj["metadata"].get("generation", 1),
                                  "typeChecking": {}}
        if warnings:
            status["typeChecking"]["expressionWarnings"] = warnings
        obj["status"] = status

    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        super().prepare_for_create(obj)
        self._status(obj)

    def prepare_for_update(self, obj: dict[str, Any], old: dict[str, Any], *, mutated: bool) -> None:
        super().prepare_for_update(obj, old, mutated=mutated)
        if obj["metadata"].get("generation") != old["metadata"].get("generation"):
            self._status(obj)
