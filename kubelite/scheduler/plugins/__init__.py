"""The in-tree plugins, one module per upstream plugin, each exporting ``NAME`` and ``new(args, handle)``."""

from __future__ import annotations

from kubelite.scheduler.framework.registry import Registry
from kubelite.scheduler.plugins import (
    default_binder,
    default_preemption,
    image_locality,
    inter_pod_affinity,
    node_affinity,
    node_name,
    node_ports,
    node_resources_balanced_allocation,
    node_resources_fit,
    node_unschedulable,
    pod_topology_spread,
    priority_sort,
    scheduling_gates,
    taint_toleration,
    volume_binding,
)

__all__ = ["in_tree_registry"]

_MODULES = (
    default_binder, default_preemption, image_locality, inter_pod_affinity, node_affinity, node_name, node_ports,
    node_resources_balanced_allocation, node_resources_fit, node_unschedulable, pod_topology_spread,
    priority_sort, scheduling_gates, taint_toleration, volume_binding,
)


def in_tree_registry() -> Registry:
    """A fresh registry of every in-tree plugin (upstream ``plugins.NewInTreeRegistry``)."""
    return Registry({m.NAME: m.new for m in _MODULES})
