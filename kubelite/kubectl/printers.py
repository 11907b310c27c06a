"""``kubectl get`` tables, exactly as kubectl prints them, from objects as the API returns them.

Contract:
- :func:`print_table` is a pure function of (objects, ``now``, options): ``now`` is a virtual time, so
  the same run prints the same bytes. Objects are never mutated.
- Rows are in the order the API lists them (namespace, then name) unless ``sort_by`` is given
  (``.metadata.creationTimestamp`` or ``.metadata.name``; a stable sort, as kubectl's ``--sort-by``).
- Columns are those of ``pkg/printers/internalversion/printers.go`` (``-o wide`` adds the priority-1
  columns); ``all_namespaces`` prepends NAMESPACE, as ``kubectl get -A`` does; the layout is
  ``printers.GetNewTabWriter`` (see :mod:`kubelite.kubectl.tabwriter`).
- :func:`resolve_resource` accepts what kubectl accepts for these kinds: singular, plural, short names
  and Kind (``po``, ``deploy``, ``rs``, ``sts``, ``ds``, ``cj``, ``svc``, ``no``, ``ns``, ``ev``, ``pvc``,
  ``pv``, ``cm``, ``hpa``, ``pdb``, ...).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from kubelite.kubectl import rows_core, rows_workloads
from kubelite.kubectl.tabwriter import table
from kubelite.kubectl.timefmt import timestamp

__all__ = ["CLUSTER_SCOPED", "KINDS", "RESOURCES", "no_resources_message", "print_table", "resolve_resource",
           "select"]

_ROWS = {**rows_core.ROWS, **rows_workloads.ROWS}
#: the resources this module prints
RESOURCES: tuple[str, ...] = tuple(_ROWS)
CLUSTER_SCOPED = frozenset({"nodes", "namespaces", "persistentvolumes", "componentstatuses"})
#: resource -> Kind
KINDS: dict[str, str] = {
    "pods": "Pod", "nodes": "Node", "namespaces": "Namespace", "services": "Service",
    "endpointslices": "EndpointSlice", "endpoints": "Endpoints", "componentstatuses": "ComponentStatus",
    "events": "Event", "persistentvolumeclaims": "PersistentVolumeClaim",
    "persistentvolumes": "PersistentVolume", "configmaps": "ConfigMap", "secrets": "Secret",
    "deployments": "Deployment", "replicasets": "ReplicaSet", "statefulsets": "StatefulSet",
    "daemonsets": "DaemonSet", "jobs": "Job", "cronjobs": "CronJob",
    "horizontalpodautoscalers": "HorizontalPodAutoscaler", "poddisruptionbudgets": "PodDisruptionBudget",
}
_SHORT = {"po": "pods", "no": "nodes", "ns": "namespaces", "svc": "services", "ev": "events", "ep": "endpoints",
          "pvc": "persistentvolumeclaims", "pv": "persistentvolumes", "cm": "configmaps", "deploy": "deployments",
          "rs": "replicasets", "sts": "statefulsets", "ds": "daemonsets", "cj": "cronjobs",
          "hpa": "horizontalpodautoscalers", "pdb": "poddisruptionbudgets", "cs": "componentstatuses"}
_NAMES: dict[str, str] = {**_SHORT}
for _res, _kind in KINDS.items():
    _NAMES[_res] = _res
    _NAMES[_kind.lower()] = _res
_NAMES["endpointslice"] = "endpointslices"


def resolve_resource(name: str) -> str:
    """The plural resource for a kind as typed on kubectl's command line; KeyError if unknown."""
    key = name.lower()
    for suffix in (".v1", ".apps", ".batch", ".policy", ".autoscaling", ".discovery.k8s.io"):
        key = key.removesuffix(suffix)
    return _NAMES[key]


def select(objects: Iterable[Mapping[str, Any]], resource: str, *, namespace: str | None) -> list[Mapping[str, Any]]:
    """The objects of ``resource`` (by Kind) in ``namespace`` (None: every namespace), in list order."""
    kind = KINDS[resource]
    out = []
    for o in objects:
        if o.get("kind") != kind:
            continue
        if namespace is not None and resource not in CLUSTER_SCOPED \
                and (o.get("metadata") or {}).get("namespace") != namespace:
            continue
        out.append(o)
    out.sort(key=lambda o: (str((o.get("metadata") or {}).get("namespace") or ""),
                            str((o.get("metadata") or {}).get("name") or "")))
    return out


def _sort_key(field: str) -> Any:
    if field in (".metadata.creationTimestamp", "{.metadata.creationTimestamp}"):
        return lambda o: timestamp((o.get("metadata") or {}).get("creationTimestamp")) or 0.0
    if field in (".metadata.name", "{.metadata.name}"):
        return lambda o: str((o.get("metadata") or {}).get("name") or "")
    if field in (".lastTimestamp", "{.lastTimestamp}"):
        return lambda o: timestamp(o.get("lastTimestamp")) or 0.0
    raise ValueError(f"couldn't find any field with path {field!r} in the list of objects (supported: "
                     ".metadata.creationTimestamp, .metadata.name, .lastTimestamp)")


def print_table(resource: str, objects: Sequence[Mapping[str, Any]], *, now: float, wide: bool = False,
                all_namespaces: bool = False, sort_by: str | None = None, no_headers: bool = False) -> str:
    """The table ``kubectl get RESOURCE`` prints for ``objects`` (already filtered to the namespace);
    "" when there are none (see :func:`no_resources_message`)."""
    columns, wide_columns, row = _ROWS[resource]
    items = list(objects)
    if sort_by:
        items.sort(key=_sort_key(sort_by))
    if wide:
        columns = rows_core.EVENT_WIDE_COLUMNS if resource == "events" else columns + wide_columns
    namespaced = all_namespaces and resource not in CLUSTER_SCOPED
    rows = []
    for o in items:
        cells = row(o, now, wide)
        if namespaced:
            cells = [str((o.get("metadata") or {}).get("namespace") or ""), *cells]
        rows.append(cells)
    if not rows:
        return ""
    header = ("NAMESPACE", *columns) if namespaced else columns
    text = table(header, rows)
    return text.split("\n", 1)[1] if no_headers else text


def no_resources_message(resource: str, *, namespace: str | None) -> str:
    """What kubectl writes to stderr for an empty list."""
    if namespace is None or resource in CLUSTER_SCOPED:
        return "No resources found"
    return f"No resources found in {namespace} namespace."
