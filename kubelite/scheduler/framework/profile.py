"""Profiles: which plugins run at which extension point, keyed by ``schedulerName``.

Follows ``pkg/scheduler/apis/config`` (``KubeSchedulerProfile``, ``Plugins``, ``PluginSet``,
``getDefaultPlugins`` in ``v1/default_plugins.go``) and ``framework/runtime/framework.go``'s
``NewFramework`` validation. Contract:

- A profile is given in upstream's configuration shape (camelCase dict)::

      {"schedulerName": "bin-packer",
       "plugins": {"multiPoint": {"enabled": [{"name": "Gang"}], "disabled": [{"name": "ImageLocality"}]},
                   "score": {"enabled": [{"name": "NodeResourcesFit", "weight": 5}]}},
       "pluginConfig": [{"name": "NodeResourcesFit",
                         "args": {"scoringStrategy": {"type": "MostAllocated"}}}]}

  ``multiPoint`` plugins are enabled at every extension point they implement; a point-specific
  ``enabled`` list adds (or re-weights) and ``disabled`` removes (``"*"`` removes every default).
  The defaults are upstream's multiPoint set with its score weights.
- :func:`build_plans` validates before anything runs and raises a 422 ``Invalid`` listing every
  problem: unknown plugins, a plugin enabled at a point it does not implement, not exactly one
  QueueSort, no Bind plugin, a non-positive score weight, duplicate scheduler names, and profiles
  whose QueueSort differs (they share one queue, as upstream requires).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from kubelite.errors import FieldError, invalid

__all__ = ["DEFAULT_PLUGINS", "DEFAULT_SCHEDULER_NAME", "EXTENSION_POINTS", "PluginPlan", "build_plans"]

DEFAULT_SCHEDULER_NAME = "default-scheduler"

#: upstream getDefaultPlugins (multiPoint), with score weights.
DEFAULT_PLUGINS: tuple[tuple[str, int | None], ...] = (
    ("SchedulingGates", None),
    ("PrioritySort", None),
    ("NodeUnschedulable", None),
    ("NodeName", None),
    ("TaintToleration", 3),
    ("NodeAffinity", 2),
    ("NodePorts", None),
    ("NodeResourcesFit", 1),
    ("VolumeBinding", None),
    ("PodTopologySpread", 2),
    ("InterPodAffinity", 2),
    ("DefaultPreemption", None),
    ("NodeResourcesBalancedAllocation", 1),
    ("ImageLocality", 1),
    ("DefaultBinder", None),
)

#: config key -> method that marks a plugin as implementing the point.
EXTENSION_POINTS: dict[str, str] = {
    "preEnqueue": "pre_enqueue",
    "queueSort": "less",
    "preFilter": "pre_filter",
    "filter": "filter",
    "postFilter": "post_filter",
    "preScore": "pre_score",
    "score": "score",
    "reserve": "reserve",
    "permit": "permit",
    "preBind": "pre_bind",
    "bind": "bind",
    "postBind": "post_bind",
}


class PluginPlan:
    """A validated profile: plugin name -> args, and per point the ordered (name, weight) list."""

    def __init__(self, scheduler_name: str) -> None:
        self.scheduler_name = scheduler_name
        self.args: dict[str, Mapping[str, Any]] = {}
        self.points: dict[str, list[tuple[str, int]]] = {p: [] for p in EXTENSION_POINTS}


def _names(entries: Sequence[Mapping[str, Any]] | None) -> list[tuple[str, int | None]]:
    return [(str(e.get("name", "")), e.get("weight")) for e in entries or ()]


def _apply(current: list[tuple[str, int | None]], plugin_set: Mapping[str, Any] | None,
           ) -> list[tuple[str, int | None]]:
    if not plugin_set:
        return current
    disabled = {n for n, _ in _names(plugin_set.get("disabled"))}
    out = [] if "*" in disabled else [(n, w) for n, w in current if n not in disabled]
    for name, weight in _names(plugin_set.get("enabled")):
        out = [(n, w) for n, w in out if n != name]
        out.append((name, weight))
    return out


def build_plans(profiles: Sequence[Mapping[str, Any]], implements: Any) -> list[PluginPlan]:
    """Validate ``profiles``; ``implements(name, method) -> bool | None`` answers whether a registered
    plugin has a method (None: unknown plugin)."""
    errors: list[FieldError] = []
    plans: list[PluginPlan] = []
    seen_names: set[str] = set()
    queue_sorts: set[str] = set()
    for i, prof in enumerate(profiles):
        path = f"profiles[{i}]"
        name = prof.get("schedulerName") or DEFAULT_SCHEDULER_NAME
        if name in seen_names:
            errors.append(FieldError(kind="Duplicate", field=f"{path}.schedulerName", value=name))
        seen_names.add(name)
        plan = PluginPlan(name)
        plugins = prof.get("plugins") or {}
        multi = _apply(list(DEFAULT_PLUGINS), plugins.get("multiPoint"))
        for cfg in prof.get("pluginConfig") or ():
            plan.args[str(cfg.get("name", ""))] = cfg.get("args") or {}
        for point, method in EXTENSION_POINTS.items():
            inherited: list[tuple[str, int | None]] = []
            for n, w in multi:
                ok = implements(n, method)
                if ok is None:
                    if point == "preEnqueue":  # report each unknown plugin once
                        errors.append(FieldError.invalid(f"{path}.plugins.multiPoint", n, "plugin not registered"))
                    continue
                if ok:
                    inherited.append((n, w))
            explicit = plugins.get(point)
            final = _apply(inherited, explicit)
            explicit_names = {n for n, _ in _names((explicit or {}).get("enabled"))}
            for n, w in final:
                ok = implements(n, method)
                if ok is None:
                    if n in explicit_names:
                        errors.append(FieldError.invalid(f"{path}.plugins.{point}", n, "plugin not registered"))
                    continue
                if not ok:
                    errors.append(FieldError.invalid(
                        f"{path}.plugins.{point}", n, f"plugin {n} does not extend {point} plugin"))
                    continue
                weight = 1 if w is None else int(w)
                if point == "score" and weight <= 0:
                    errors.append(FieldError.invalid(f"{path}.plugins.score.enabled[{n}].weight", weight,
                                                     "score plugin weight must be positive"))
                plan.points[point].append((n, weight))
        qs = plan.points["queueSort"]
        if len(qs) != 1:
            errors.append(FieldError.invalid(f"{path}.plugins.queueSort", [n for n, _ in qs],
                                             "exactly one queue sort plugin must be enabled"))
        else:
            queue_sorts.add(qs[0][0])
        if not plan.points["bind"]:
            errors.append(FieldError.required(f"{path}.plugins.bind", "at least one bind plugin is needed"))
        plans.append(plan)
    if len(queue_sorts) > 1:
        errors.append(FieldError.invalid("profiles[*].plugins.queueSort", sorted(queue_sorts),
                                         "queueSort must be the same for all profiles"))
    if errors:
        raise invalid("KubeSchedulerConfiguration", "", errors, group="kubescheduler.config.k8s.io")
    return plans
