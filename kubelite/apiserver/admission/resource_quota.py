"""ResourceQuota admission (upstream ``plugin/pkg/admission/resourcequota``, the last validating plugin).

Upstream's evaluator (``k8s.io/apiserver/pkg/admission/plugin/resourcequota/controller.go``: ``CheckRequest``
and ``checkQuotas``), on ``status``, not on the stored objects:

- A quota covers a create when its scopes match the object and its ``status.hard`` names a resource the
  object's evaluator charges. A quota whose status the resource quota controller has not written yet
  (just created) has no ``status.hard``, so it covers nothing yet; one whose ``status.used`` lacks a covered
  resource rejects: ``status unknown for quota: <quota>, resources: <r>``.
- Pods must state each compute resource a covering quota limits (``podEvaluator.Constraints``):
  ``failed quota: <quota>: must specify limits.cpu for: <containers>``.
- The request's usage (zero entries dropped) plus ``status.used`` must fit ``status.hard``, else 403
  ``<resource> "<name>" is forbidden: exceeded quota: <quota>, requested: <r>, used: <u>, limited: <h>``
  (``prettyPrint``, only the exceeded resources).
- Admission then **charges** the request: each covering quota's ``status.used`` grows by it, written as a
  status update with the quota's resourceVersion, through the apiserver as its loopback identity
  (``system:apiserver``). A namespace's creates are checked and charged one at a time (upstream's evaluator
  works a namespace's waiting admissions on one worker), so they never conflict with each other; a conflict
  with another writer (the controller's recalculation) rereads the quotas that failed and checks again, up
  to 3 retries; then the conflict is the answer. A dry run is checked but never charged.
- What admission charged stays charged even when the object's write fails afterwards (an AlreadyExists),
  and a deleted or finished object's share comes back only when the controller recalculates (on the
  deletion's replenishment or its periodic resync), as upstream. So ``status.used`` is what counts, and
  concurrent creates cannot both take the last unit: the second is checked against the first's charge.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from kubelite.api.quantity import parse_quantity
from kubelite.api.quota import ResourceList, format_list, matches_scopes, object_usage, resources_of
from kubelite.apiserver.admission.chain import ObjectReader
from kubelite.apiserver.request import AdmissionRequest
from kubelite.errors import ApiError, Conflict, Forbidden

__all__ = ["RETRIES", "ResourceQuotaAdmission", "UpdateStatus"]

#: ``checkQuotas``' remainingRetries: conflicts on a quota's status update are retried this many times
RETRIES = 3

#: writes a quota (its ``status``) back with its resourceVersion as a precondition; raises Conflict when stale
UpdateStatus = Callable[[dict[str, Any]], Awaitable[Any]]

#: podEvaluator.Constraints' validationSet: the compute resources each container must state when quota'd
_CONSTRAINED = ("cpu", "memory", "requests.cpu", "requests.memory", "limits.cpu", "limits.memory")


def _quantities(values: Mapping[str, Any] | None) -> ResourceList:
    out: ResourceList = {}
    for k, v in (values or {}).items():
        try:
            out[k] = parse_quantity(v)
        except (TypeError, ValueError):
            continue
    return out


def _matching(group: str, plural: str, names: Any) -> list[str]:
    """``evaluator.MatchingResources``: the quota resource names the evaluator of ``group/plural`` charges."""
    return sorted(n for n in names if (group, plural) in resources_of({"spec": {"hard": {n: "0"}}}))


def _container_usage(c: Mapping[str, Any]) -> set[str]:
    """``podComputeUsageHelper``'s names for one container's own requests and limits."""
    res = c.get("resources") or {}
    out: set[str] = set()
    for name in (res.get("requests") or {}):
        out.add(f"requests.{name}")
        if name in ("cpu", "memory"):
            out.add(name)
    for name in (res.get("limits") or {}):
        out.add(f"limits.{name}")
    return out


def _pod_constraints(required: list[str], pod: Mapping[str, Any]) -> str | None:
    """``podEvaluator.Constraints``: with cpu or memory quota'd, every container must state them."""
    needed = set(required).intersection(_CONSTRAINED)
    if not needed:
        return None
    spec = pod.get("spec") or {}
    missing: dict[str, set[str]] = {}
    for c in [*(spec.get("containers") or ()), *(spec.get("initContainers") or ())]:
        for name in needed - _container_usage(c):
            missing.setdefault(name, set()).add(str(c.get("name", "")))
    if not missing:
        return None
    return "must specify " + "; ".join(f"{r} for: {','.join(sorted(missing[r]))}" for r in sorted(missing))


class ResourceQuotaAdmission:
    name = "ResourceQuota"
    operations = frozenset({"CREATE"})  # NewHandler(...): handles() asked only for these
    # the per-template create memo (admission/chain.py): usage changes with every create: runs on each one
    template_tables: tuple[tuple[str, str], ...] | None = None

    def __init__(self, reader: ObjectReader, update_status: UpdateStatus | None = None) -> None:
        self.reader = reader
        #: how a charge is written (the apiserver sets it to its loopback status update); None: never charged
        self.update_status = update_status
        #: namespace -> (its lock, how many requests hold or wait for it); gone when none does
        self._serial: dict[str, tuple[asyncio.Lock, int]] = {}

    def handles(self, req: AdmissionRequest) -> bool:
        return req.operation == "CREATE" and bool(req.namespace) and not req.subresource

    def validate(self, req: AdmissionRequest) -> Awaitable[None] | None:
        """Check (and then charge) ``req`` against its namespace's quotas; None when none can cover it, so
        a namespace without quotas costs one read and no await."""
        quotas = self.reader.read_all("", "resourcequotas", req.namespace)
        if not quotas:
            return None
        return self._evaluate(req, quotas)

    async def _evaluate(self, req: AdmissionRequest, quotas: list[dict[str, Any]]) -> None:
        """One namespace's requests are checked and charged one at a time, as upstream's evaluator works a
        namespace's waiting admissions in one batch on one worker: concurrent creates in a namespace do not
        conflict with each other (only with other writers of the quota, such as its controller)."""
        ns = req.namespace
        lock, users = self._serial.get(ns) or (asyncio.Lock(), 0)
        self._serial[ns] = (lock, users + 1)
        try:
            async with lock:
                if users:  # it waited: what it read before may be stale
                    quotas = self.reader.read_all("", "resourcequotas", ns)
                await self._check_quotas(req, quotas)
        finally:
            lock, users = self._serial[ns]
            if users == 1:
                del self._serial[ns]
            else:
                self._serial[ns] = (lock, users - 1)

    async def _check_quotas(self, req: AdmissionRequest, quotas: list[dict[str, Any]]) -> None:
        """``checkQuotas``: check, charge, and on conflicts reread and check the quotas that failed again."""
        for remaining in range(RETRIES, -1, -1):
            charges = self.check(req, quotas)
            if not charges or req.dry_run or self.update_status is None:
                return
            failed: list[str] = []
            last: Conflict | None = None
            for quota in charges:
                try:
                    await self.update_status(quota)
                except Conflict as e:
                    failed.append(quota["metadata"]["name"])
                    last = e
            if last is None:
                return
            if remaining == 0:
                raise last
            fresh = self.reader.read_all("", "resourcequotas", req.namespace)
            quotas = [q for q in fresh if q["metadata"]["name"] in failed]

    def check(self, req: AdmissionRequest, quotas: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """``CheckRequest``: raise Forbidden when ``req`` does not fit; else the covering quotas with their
        ``status.used`` charged (copies, each carrying the resourceVersion it was read at), [] when nothing
        is to be charged."""
        assert req.object is not None
        group, plural, obj = req.group, req.resource, req.object
        covering: list[tuple[dict[str, Any], list[str]]] = []
        for quota in sorted(quotas, key=lambda q: q["metadata"]["name"]):
            status = quota.get("status") or {}
            restricted = _matching(group, plural, status.get("hard") or {})
            if not restricted or not matches_scopes(quota, group, plural, obj):
                continue  # Matches: no hard resource of this evaluator in status (yet), or out of scope
            name = quota["metadata"]["name"]
            if (group, plural) == ("", "pods"):
                err = _pod_constraints(restricted, obj)
                if err is not None:
                    raise self._forbidden(req, f"failed quota: {name}: {err}")
            used = status.get("used") or {}
            if any(r not in used for r in restricted):
                raise self._forbidden(req, f"status unknown for quota: {name}, resources: {','.join(restricted)}")
            covering.append((quota, restricted))
        if not covering:
            return []
        delta = {k: q for k, q in object_usage(group, plural, obj).items() if q != 0}  # quota.RemoveZeros
        if not delta:
            return []
        out: list[dict[str, Any]] = []
        for quota, _ in covering:
            status = quota["status"]
            hard, used = _quantities(status.get("hard")), _quantities(status.get("used"))
            requested = {k: q for k, q in delta.items() if k in hard}
            new_used = dict(used)
            for k, q in requested.items():
                new_used[k] = new_used[k] + q if k in new_used else q
            exceeded = sorted(k for k in requested if new_used[k] > hard[k])
            if exceeded:
                raise self._forbidden(req, (
                    f"exceeded quota: {quota['metadata']['name']}, "
                    f"requested: {format_list({k: requested[k] for k in exceeded})}, "
                    f"used: {format_list({k: used[k] for k in exceeded if k in used})}, "
                    f"limited: {format_list({k: hard[k] for k in exceeded})}"))
            if requested:
                raw_used = dict(status.get("used") or {})
                raw_used.update({k: str(new_used[k]) for k in requested})
                out.append({**quota, "status": {**status, "used": raw_used}})
        return out

    @staticmethod
    def _forbidden(req: AdmissionRequest, detail: str) -> ApiError:
        """``admission.NewForbidden``: ``<resource> "<name>" is forbidden: <detail>``."""
        qualified = f"{req.resource}.{req.group}" if req.group else req.resource
        prefix = f'{qualified} "{req.name}" is forbidden' if req.name else f"{qualified} is forbidden"
        return Forbidden.make(f"{prefix}: {detail}", name=req.name or None, group=req.group, kind=req.resource)
