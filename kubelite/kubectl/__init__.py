"""kubectl's output, computed from API objects on virtual time: ``kubectl get`` tables
(:func:`print_table`) and ``kubectl describe`` (:func:`describe`).

Everything here is a pure function of the objects, the events and a virtual ``now``: the same run
prints the same bytes. Nothing here talks to a cluster; callers pass the objects in (for example a
scenario's ``RunResult.objects``).
"""

from typing import TYPE_CHECKING

from kubelite.lazy import lazy_exports

if TYPE_CHECKING:
    from kubelite.kubectl.describe import DESCRIBABLE, describe
    from kubelite.kubectl.printers import (
        CLUSTER_SCOPED,
        KINDS,
        RESOURCES,
        no_resources_message,
        print_table,
        resolve_resource,
        select,
    )
    from kubelite.kubectl.status import node_status, pod_summary
    from kubelite.kubectl.timefmt import human_duration

__all__ = ["CLUSTER_SCOPED", "DESCRIBABLE", "KINDS", "RESOURCES", "describe", "human_duration",
           "no_resources_message", "node_status", "pod_summary", "print_table", "resolve_resource", "select"]

# imported when first read, so that the API server's Table rows (kubelite.http.tables imports the row
# modules) do not load describe and the printers (issue #17, cold start of a served cluster)
__getattr__, __dir__ = lazy_exports(__name__, {
    "DESCRIBABLE": "kubelite.kubectl.describe", "describe": "kubelite.kubectl.describe",
    **{name: "kubelite.kubectl.printers" for name in (
        "CLUSTER_SCOPED", "KINDS", "RESOURCES", "no_resources_message", "print_table", "resolve_resource", "select")},
    "node_status": "kubelite.kubectl.status", "pod_summary": "kubelite.kubectl.status",
    "human_duration": "kubelite.kubectl.timefmt",
})
