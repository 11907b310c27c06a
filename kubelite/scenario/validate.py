"""Validation before running: every manifest a scenario applies, checked by a real apiserver first.

Contract:
- :func:`check_manifests` applies every manifest of the scenario (the initial ``manifests``, then those
  of ``apply`` steps, in order) to a scratch control plane (no nodes, controllers or scheduler: nothing
  acts on them) as ``kubectl apply --server-side`` sends them: field manager ``kubectl``, ``force``, and
  ``fieldValidation=Strict``, kubectl's default since 1.27, so an unknown or duplicated field
  (``imagePullPolisy``) is rejected with the decoder's "strict decoding error" instead of being dropped.
  The apiserver's whole pipeline runs: decoding, admission (mutating and validating), defaulting and
  validation. Applying in order (rather than dry-running each alone) lets a manifest depend on an
  earlier one: a Namespace then its objects, a PriorityClass then pods using it, a CRD then its resources.
- Every rejection is collected with the manifest's file and line; if there are any,
  :class:`~kubelite.scenario.format.ScenarioError` lists them all and nothing has run.
"""

from __future__ import annotations

from typing import Any

from kubelite.errors import ApiError
from kubelite.scenario.format import Scenario, ScenarioError

__all__ = ["check_manifests"]


def _what(obj: dict[str, Any]) -> str:
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    name = (meta or {}).get("name") or (meta or {}).get("generateName") or "?"
    return f"{str(obj.get('kind', '?')).lower()}/{name}"


async def check_manifests(sc: Scenario) -> None:
    """Raise :class:`ScenarioError` listing every manifest the apiserver rejects (see the module docstring)."""
    if not sc.all_manifests:
        return
    from kubelite.cluster import Cluster

    errors: list[ScenarioError] = []
    async with Cluster(seed=0, nodes=0, scheduler=False, controllers=False, network=False, tune_gc=False) as scratch:
        client = scratch.client
        for obj, file, line in sc.all_manifests:
            try:
                await client.apply(obj, field_manager="kubectl", force=True, field_validation="Strict")
            except ApiError as e:
                errors.append(ScenarioError(file, line, "", f"{_what(obj)}: Error from server ({e.status.reason}): "
                                                            f"{e.message}"))
            except (ValueError, TypeError, KeyError) as e:
                errors.append(ScenarioError(file, line, "", f"{_what(obj)}: {e}"))
    if errors:
        raise ScenarioError.of(errors)
