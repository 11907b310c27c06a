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
"""

from __future__ import annotations

from kubelite.api.quantity import parse_quantity
from kubelite.api.quota import format_list, matches_scopes, namespace_usage, object_usage, resources_of
from kubelite.apiserver.admission.chain import ObjectReader
from kubelite.apiserver.request import AdmissionRequest
from kubelite.errors import Forbidden

__all__ = ["ResourceQuotaAdmission"]


class ResourceQuotaAdmission:
    name = "ResourceQuota"
    operations = frozenset({"CREATE"})  # NewHandler(...): handles() asked only for these
    # the per-template create memo (admission/chain.py): usage changes with every create: runs on each one, changes nothing
    template_tables: tuple[tuple[str, str], ...] | None = None

    def __init__(self, reader: ObjectReader) -> None:
        self.reader = reader

    def handles(self, req: AdmissionRequest) -> bool:
        return req.operation == "CREATE" and bool(req.namespace) and not req.subresource

    def validate(self, req: AdmissionRequest) -> None:
        assert req.object is not None
        quotas = self.reader.read_all("", "resourcequotas", req.namespace)
        if not quotas:
            return
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
            objects = {gr: self.reader.read_all(gr[0], gr[1], req.namespace) for gr in resources_of(quota)}
            used = namespace_usage(quota, objects)
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
