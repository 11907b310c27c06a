"""Server-side printing: ``Accept: application/json;as=Table;v=v1;g=meta.k8s.io`` (meta.k8s.io/v1 Table).

Contract:
- Kinds that :mod:`kubelite.kubectl` prints get exactly its columns (the ``printers.go`` handlers); priority-1
  columns are the ``-o wide`` ones. Column names and types, and the cells upstream writes as int64 (replica
  counts, DATA, ACTIVE, ...), are upstream's; RESTARTS stays a string ("2 (5m ago)"), as upstream's is. Custom resources get their CRD's ``additionalPrinterColumns`` (simple
  JSONPaths), else Name and Age; every other kind gets upstream's default convertor (Name, Created At).
- ``includeObject``: ``None``, ``Metadata`` (default: a PartialObjectMetadata) or ``Object``.
- Cells are computed on the cluster's clock (``now``), so ages are virtual ages.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from kubelite.api.resources import ResourceInfo
from kubelite.kubectl.timefmt import since

__all__ = ["TABLE_MEDIA_TYPE", "Tabulator", "wants_table"]

TABLE_MEDIA_TYPE = "application/json;as=Table;v=v1;g=meta.k8s.io"

@functools.cache
def _rows() -> dict[str, tuple[tuple[str, ...], tuple[str, ...], Any]]:
    """kubectl's printers' rows by plural, imported with the first Table asked for (issue #17: a served cluster
    whose clients never ask for one, as kopf's, does not load them)."""
    from kubelite.kubectl import rows_core, rows_other, rows_workloads

    return {**rows_core.ROWS, **rows_workloads.ROWS, **rows_other.ROWS}


@functools.cache
def _row_groups() -> dict[str, str]:
    """The API group each printed plural belongs to (a plural of another group gets the default table)."""
    from kubelite.kubectl import rows_other

    return {**_ROW_GROUPS, **rows_other.GROUPS}


_ROW_GROUPS = {"pods": "", "nodes": "", "namespaces": "", "services": "", "endpoints": "", "componentstatuses": "",
               "events": "", "configmaps": "", "secrets": "", "persistentvolumeclaims": "", "persistentvolumes": "", "endpointslices": "discovery.k8s.io",
               "deployments": "apps", "replicasets": "apps", "statefulsets": "apps", "daemonsets": "apps",
               "jobs": "batch", "cronjobs": "batch", "horizontalpodautoscalers": "autoscaling",
               "poddisruptionbudgets": "policy"}


def wants_table(accept: str) -> bool:
    """Whether an Accept header asks for a meta.k8s.io/v1 Table first (kubectl adds a JSON fallback)."""
    if "Table" not in accept:
        return False
    for part in accept.split(","):
        params = {p.strip().partition("=")[0]: p.strip().partition("=")[2] for p in part.split(";")[1:]}
        if params.get("as") == "Table" and params.get("g", "meta.k8s.io") == "meta.k8s.io":
            return params.get("v", "v1") in ("v1", "v1beta1")
    return False


#: Cells upstream's printers (``pkg/printers/internalversion/printers.go``) write as numbers, by resource and
#: kubectl header, with the column's declared type. kubectl's printers give every cell as text; these are
#: turned back into the int64s upstream puts in the Table. Some columns are declared "string" while their
#: cells are integers (a ConfigMap's DATA is "integer", a Secret's is "string"), as upstream declares them.
_NUMERIC: dict[str, dict[str, str]] = {
    "deployments": {"UP-TO-DATE": "integer", "AVAILABLE": "integer"},
    "replicasets": {"DESIRED": "integer", "CURRENT": "integer", "READY": "integer"},
    "daemonsets": {"DESIRED": "integer", "CURRENT": "integer", "READY": "integer", "UP-TO-DATE": "integer",
                   "AVAILABLE": "integer"},
    "cronjobs": {"ACTIVE": "integer"},
    "poddisruptionbudgets": {"ALLOWED DISRUPTIONS": "integer"},
    "configmaps": {"DATA": "integer"},
    "secrets": {"DATA": "string"},
    "horizontalpodautoscalers": {"MAXPODS": "string", "REPLICAS": "string"},
    "events": {"COUNT": "string"},
    "serviceaccounts": {"SECRETS": "string"},
    "priorityclasses": {"VALUE": "integer"},
    "controllerrevisions": {"REVISION": "string"},
}
#: Cells upstream writes as booleans (kubectl's "true"/"false" turned back into them), with the declared type
_BOOLEAN: dict[str, dict[str, str]] = {
    "priorityclasses": {"GLOBAL-DEFAULT": "boolean"},
    "storageclasses": {"ALLOWVOLUMEEXPANSION": "string"},
}
#: Declared types of non-numeric cells that are not "string" (the cell stays printBoolPtr's "True"/"False")
_DECLARED = {("cronjobs", "SUSPEND"): "boolean"}
#: upstream's column names where capitalising kubectl's header does not give them
_NAMES = {"IP": "IP", "CLUSTER-IP": "Cluster-IP", "EXTERNAL-IP": "External-IP", "INTERNAL-IP": "Internal-IP",
          "OS-IMAGE": "OS-Image", "MINPODS": "MinPods", "MAXPODS": "MaxPods", "PORT(S)": "Port(s)",
          "ADDRESSTYPE": "AddressType", "STORAGECLASS": "StorageClass", "VOLUMEMODE": "VolumeMode",
          "VOLUMEATTRIBUTESCLASS": "VolumeAttributesClass", "POD-SELECTOR": "Pod-Selector",
          "SERVICEACCOUNTS": "ServiceAccounts", "RECLAIMPOLICY": "ReclaimPolicy",
          "VOLUMEBINDINGMODE": "VolumeBindingMode", "ALLOWVOLUMEEXPANSION": "AllowVolumeExpansion",
          "GLOBAL-DEFAULT": "Global-Default", "PREEMPTIONPOLICY": "PreemptionPolicy"}


def _col(name: str, priority: int = 0, type_: str = "string", fmt: str = "") -> dict[str, Any]:
    return {"name": name, "type": type_, "format": fmt, "description": "", "priority": priority}


def _title(column: str) -> str:
    return _NAMES.get(column) or " ".join(w.capitalize() for w in column.split())


def _number(cell: Any) -> Any:
    return int(cell) if isinstance(cell, str) and cell.lstrip("-").isdigit() else cell


def _jsonpath(obj: Any, path: str) -> Any:
    """The value at a simple JSONPath (``.spec.replicas``, ``.status.conditions[0].type``), or None."""
    cur = obj
    for part in path.strip().lstrip(".").replace("[", ".[").split("."):
        if not part:
            continue
        if part.startswith("[") and part.endswith("]"):
            idx = part[1:-1]
            if not (isinstance(cur, list) and idx.lstrip("-").isdigit()):
                return None
            i = int(idx)
            cur = cur[i] if -len(cur) <= i < len(cur) else None
        elif isinstance(cur, Mapping):
            cur = cur.get(part)
        else:
            return None
        if cur is None:
            return None
    return cur


class Tabulator:
    """Rows for one resource: built once per request, applied to each object (and each watch event)."""

    def __init__(self, info: ResourceInfo, *, now: Callable[[], float], printer_columns: Sequence[Mapping[str, Any]]
                 | None = None, include_object: str = "Metadata") -> None:
        self.info = info
        self.now = now
        self.include_object = include_object
        #: what the rows depend on besides the object and the clock: the encoder identifier under which a watch
        #: event's Table is cached and shared by every watcher printing it the same way (upstream's
        #: watchEmbeddedEncoder identifier: target kind and TableOptions)
        self.identifier: tuple[Any, ...] = (
            "table", info.group, info.plural, info.version, include_object,
            None if printer_columns is None else repr([sorted(c.items()) for c in printer_columns]),
        )
        printer = _rows().get(info.plural) if _row_groups().get(info.plural) == info.group else None
        self._row: Callable[[Mapping[str, Any]], list[Any]]
        if printer is not None:
            columns, wide, fn = printer
            numeric = _NUMERIC.get(info.plural, {})
            booleans = _BOOLEAN.get(info.plural, {})

            def col(c: str, priority: int) -> dict[str, Any]:
                type_ = numeric.get(c) or booleans.get(c) or _DECLARED.get((info.plural, c), "string")
                return _col(_title(c), priority, type_, "name" if c == "NAME" else "")

            if info.plural == "events":
                # wide events replace the columns (printers.go's eventColumnDefinitions: Subobject, Source,
                # First Seen, Count and Name are priority 1 between and after the default ones)
                from kubelite.kubectl import rows_core

                every: tuple[str, ...] = rows_core.EVENT_WIDE_COLUMNS
                self.columns = [col(c, 0 if c in columns else 1) for c in every]
            else:
                every = (*columns, *wide)
                self.columns = [col(c, 0) for c in columns] + [col(c, 1) for c in wide]
            numbers = [i for i, c in enumerate(every) if c in numeric]
            flags = [i for i, c in enumerate(every) if c in booleans]

            def row(o: Mapping[str, Any]) -> list[Any]:
                cells = list(fn(o, self.now(), True))
                for i in numbers:
                    if i < len(cells):
                        cells[i] = _number(cells[i])
                for i in flags:
                    if i < len(cells):
                        cells[i] = cells[i] == "true"
                return cells

            self._row = row
        elif printer_columns is not None:
            cols = [c for c in printer_columns if c.get("jsonPath")]
            if not cols:
                cols = [{"name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp"}]
            self.columns = [_col("Name", 0, fmt="name")] + [
                _col(str(c.get("name", "")), int(c.get("priority") or 0), str(c.get("type") or "string"),
                     str(c.get("format") or "")) for c in cols]

            def row(o: Mapping[str, Any]) -> list[Any]:
                cells: list[Any] = [(o.get("metadata") or {}).get("name", "")]
                for c in cols:
                    v = _jsonpath(o, str(c["jsonPath"]))
                    if c.get("type") == "date" and isinstance(v, str):
                        v = since(v, self.now())
                    cells.append(v if v is not None else None)
                return cells

            self._row = row
        else:
            self.columns = [_col("Name", 0, fmt="name"), _col("Created At", 0, "date")]

            def row(o: Mapping[str, Any]) -> list[Any]:
                meta = o.get("metadata") or {}
                return [meta.get("name", ""), meta.get("creationTimestamp")]

            self._row = row

    def _object(self, o: Mapping[str, Any]) -> Any:
        if self.include_object == "None":
            return None
        if self.include_object == "Object":
            return o
        return {"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1", "metadata": o.get("metadata") or {}}

    def table(self, objects: Sequence[Mapping[str, Any]], *, list_meta: Mapping[str, Any] | None = None,
              headers: bool = True) -> dict[str, Any]:
        rows = [{"cells": self._row(o), "object": self._object(o)} for o in objects]
        out: dict[str, Any] = {"kind": "Table", "apiVersion": "meta.k8s.io/v1", "metadata": dict(list_meta or {})}
        if headers:
            out["columnDefinitions"] = self.columns
        out["rows"] = rows
        return out
