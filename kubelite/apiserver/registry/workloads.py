"""Strategies of the workload kinds (apps, batch, policy, autoscaling).

- Every one tracks ``metadata.generation`` (their ``PrepareForUpdate`` bumps it on a spec change);
  Deployments also on an annotation change (``pkg/registry/apps/deployment/strategy.go``, for the
  rollback annotation's legacy).
- Jobs generate their selector and pod-template labels from their uid unless ``spec.manualSelector``
  (``pkg/registry/batch/job/strategy.go`` generateSelector).
"""

from __future__ import annotations

from typing import Any

from kubelite.apiserver.registry.strategy import Strategy

__all__ = ["DeploymentStrategy", "GenerationStrategy", "JobStrategy"]


class GenerationStrategy(Strategy):
    tracks_generation = True


class DeploymentStrategy(GenerationStrategy):
    def spec_changed(self, obj: dict[str, Any], old: dict[str, Any]) -> bool:
        return super().spec_changed(obj, old) or (
            obj["metadata"].get("annotations") != old["metadata"].get("annotations"))


class JobStrategy(GenerationStrategy):
    def finish_create(self, obj: dict[str, Any]) -> None:
        """generateSelector: unless ``spec.manualSelector``, the selector is the job's controller uid and
        the pod template carries the uid and job-name labels (``batch.kubernetes.io/`` and legacy keys)."""
        spec = obj.setdefault("spec", {})
        if spec.get("manualSelector"):
            return
        uid, name = obj["metadata"]["uid"], obj["metadata"].get("name") or ""  # a missing name fails validation
        template = spec.setdefault("template", {})
        tmeta = template.setdefault("metadata", {})
        labels = tmeta.setdefault("labels", {})
        for k, v in (("batch.kubernetes.io/controller-uid", uid), ("batch.kubernetes.io/job-name", name),
                     ("controller-uid", uid), ("job-name", name)):
            labels.setdefault(k, v)
        if not spec.get("selector"):
            spec["selector"] = {"matchLabels": {"batch.kubernetes.io/controller-uid": uid}}
