"""ResourceQuota admission (upstream ``plugin/pkg/admission/resourcequota``, the last validating plugin).

A create in a namespace with ResourceQuotas is rejected when, for any quota that covers the object (its
scopes match), the namespace's usage plus what the object requests would exceed ``spec.hard`` for a resource
the object uses: 403 ``<resource> "<name>" is forbidden: exceeded quota: <quota>, requested: <r>, used: <u>,
limited: <h>``, each list holding only the exceeded resources, as upstream's ``prettyPrint`` prints them.

Deviation, deliberately: upstream reads ``status.used`` and charges the request to it inside admission (a
quota write before the object's write). Here usage is computed from the stored objects at admission time
(:func:`kubelite.api.quota.namespace_usage`, the same evaluator the quota controller writes ``status.used``
with), so a request rejected later in the pipeline has spent nothing, and back-to-back creates cannot
overshoot while the controller catches up. The decisions and messages are upstream's once the controller
has caught up.

Cost: usage is kept, not recounted. Per namespace with quotas the plugin keeps, for each resource a quota
charges, the objects' last seen versions and each quota's running total; a create reads the table's writes
since the last one (the store's history) and charges their deltas, decoding each written version at most
once, as upstream's evaluator charges the request's delta to ``status.used`` instead of relisting. Before,
every pod write cleared a cache and the next create decoded every pod in the namespace again (quadratic in
pods). When the history no longer reaches back, the namespace is read again, decoding only versions it has
not seen.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

import msgspec

from kubelite.api.quantity import parse_quantity
from kubelite.api.quota import (
    ResourceList,
    format_list,
    matches_scopes,
    namespace_usage,
    object_usage,
    resources_of,
)
from kubelite.apiserver.admission.chain import ObjectReader
from kubelite.apiserver.request import AdmissionRequest
from kubelite.errors import Forbidden
from kubelite.store import DELETED, StoredObject

__all__ = ["ResourceQuotaAdmission"]


class StoredReader(ObjectReader, Protocol):
    """The reads the plugin keeps its usage with (``registry.tables.ResourceTables``)."""

    def stored(self, group: str, plural: str, namespace: str) -> tuple[int, list[StoredObject]]: ...

    def writes_after(
        self, group: str, plural: str, rv: int,
    ) -> tuple[int, Sequence[tuple[str, StoredObject]] | None]: ...


_encode = msgspec.json.Encoder(order="sorted").encode


class _Ledger:
    """One resource's objects in one namespace, as last seen, and each covering quota's total over them.

    Invariant: ``records`` holds every object of the namespace as of table revision ``synced``, and each
    ``totals[key]`` is :func:`namespace_usage` of the quota with that key over ``records``."""

    __slots__ = ("group", "plural", "records", "synced", "totals")

    def __init__(self, group: str, plural: str) -> None:
        self.group = group
        self.plural = plural
        self.synced = -1
        self.records: dict[str, tuple[int, dict[str, Any]]] = {}
        #: quota key (name, spec) -> (the quota, its usage over ``records``)
        self.totals: dict[tuple[str, bytes], tuple[dict[str, Any], ResourceList]] = {}

    def sync(self, reader: StoredReader, namespace: str) -> None:
        last, writes = reader.writes_after(self.group, self.plural, self.synced)
        if writes is None or last < self.synced or self.synced < 0:
            self._reread(reader, namespace)
            return
        latest: dict[str, tuple[str, StoredObject]] = {}
        for kind, obj in writes:
            if obj.namespace == namespace:
                latest[obj.name] = (kind, obj)
        for name, (kind, obj) in latest.items():
            old = self.records.get(name)
            if old is not None and old[0] == obj.rv and kind != DELETED:
                continue
            new = None if kind == DELETED else obj.decode()
            if new is None:
                self.records.pop(name, None)
            else:
                self.records[name] = (obj.rv, new)
            self._charge(None if old is None else old[1], new)
        self.synced = last

    def _reread(self, reader: StoredReader, namespace: str) -> None:
        last, objs = reader.stored(self.group, self.plural, namespace)
        records = {}
        for o in objs:
            seen = self.records.get(o.name)
            records[o.name] = seen if seen is not None and seen[0] == o.rv else (o.rv, o.decode())
        self.records = records
        self.totals.clear()
        self.synced = last

    def _charge(self, old: dict[str, Any] | None, new: dict[str, Any] | None) -> None:
        """Move each total by what the object's change charges (its old version's usage out, the new one's in)."""
        for quota, used in self.totals.values():
            for obj, sign in ((old, -1), (new, 1)):
                if obj is None or not matches_scopes(quota, self.group, self.plural, obj):
                    continue
                for k, q in object_usage(self.group, self.plural, obj).items():
                    if k in used:
                        used[k] = used[k] + q if sign > 0 else used[k] - q

    def used(self, quota: dict[str, Any], key: tuple[str, bytes]) -> ResourceList:
        hit = self.totals.get(key)
        if hit is None:
            hit = self.totals[key] = (quota, namespace_usage(quota, {(self.group, self.plural):
                                                                     [r[1] for r in self.records.values()]}))
        return hit[1]


class ResourceQuotaAdmission:
    name = "ResourceQuota"
    operations = frozenset({"CREATE"})  # NewHandler(...): handles() asked only for these
    # the per-template create memo (admission/chain.py): usage changes with every create: runs on each one, changes nothing
    template_tables: tuple[tuple[str, str], ...] | None = None

    def __init__(self, reader: StoredReader) -> None:
        self.reader = reader
        #: namespace -> (group, plural) -> its ledger; a namespace's go when it has no quota left
        self._ledgers: dict[str, dict[tuple[str, str], _Ledger]] = {}

    def handles(self, req: AdmissionRequest) -> bool:
        return req.operation == "CREATE" and bool(req.namespace) and not req.subresource

    def used(self, namespace: str, quota: dict[str, Any]) -> ResourceList:
        """``quota``'s usage in ``namespace`` now: every hard resource, what the stored objects charge it
        (:func:`namespace_usage` over them, kept by the ledgers)."""
        ledgers = self._ledgers.setdefault(namespace, {})
        key = (quota["metadata"]["name"], _encode(quota.get("spec") or {}))
        used = namespace_usage(quota, {})  # every hard resource, at zero
        for gr in resources_of(quota):
            ledger = ledgers.get(gr)
            if ledger is None:
                ledger = ledgers[gr] = _Ledger(*gr)
            ledger.sync(self.reader, namespace)
            for k, q in ledger.used(quota, key).items():
                used[k] = used[k] + q
        return used

    def validate(self, req: AdmissionRequest) -> None:
        assert req.object is not None
        quotas = self.reader.read_all("", "resourcequotas", req.namespace)
        if not quotas:
            self._ledgers.pop(req.namespace, None)
            return
        keys = {(q["metadata"]["name"], _encode(q.get("spec") or {})) for q in quotas}
        for ledger in self._ledgers.get(req.namespace, {}).values():  # a changed or deleted quota's total goes
            for key in [k for k in ledger.totals if k not in keys]:
                del ledger.totals[key]
        requested_all = object_usage(req.group, req.resource, req.object)
        for quota in sorted(quotas, key=lambda q: q["metadata"]["name"]):
            if not matches_scopes(quota, req.group, req.resource, req.object):
                continue
            hard = {}
            for name, value in ((quota.get("spec") or {}).get("hard") or {}).items():
                try:
                    hard[name] = parse_quantity(value)
                except (TypeError, ValueError):
                    continue
            requested = {k: v for k, v in requested_all.items() if k in hard}
            if not requested:
                continue
            used = self.used(req.namespace, quota)
            exceeded = sorted(k for k, q in requested.items() if used[k] + q > hard[k])
            if exceeded:
                detail = (f"exceeded quota: {quota['metadata']['name']}, "
                          f"requested: {format_list({k: requested[k] for k in exceeded})}, "
                          f"used: {format_list({k: used[k] for k in exceeded})}, "
                          f"limited: {format_list({k: hard[k] for k in exceeded})}")
                qualified = f"{req.resource}.{req.group}" if req.group else req.resource
                prefix = f'{qualified} "{req.name}" is forbidden' if req.name else f"{qualified} is forbidden"
                raise Forbidden.make(f"{prefix}: {detail}", name=req.name or None, group=req.group,
                                     kind=req.resource)
