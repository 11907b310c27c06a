"""NamespaceLifecycle (upstream plugin/pkg/admission/namespace/lifecycle).

- Content cannot be created in a namespace that does not exist (404 ``namespaces "x" not found``)
  or that is being terminated (403 with cause ``NamespaceTerminating``).
- The immortal namespaces ``default``, ``kube-system`` and ``kube-public`` cannot be deleted.
- Access reviews (``localsubjectaccessreviews``) are always admitted: a "not found" would tell the
  requester whether a namespace exists (upstream's ``accessReviewResources``).
"""

from __future__ import annotations

from kubelite.apiserver.admission.chain import ObjectReader
from kubelite.apiserver.request import AdmissionRequest
from kubelite.errors import Forbidden, NotFound, StatusCause

__all__ = ["IMMORTAL_NAMESPACES", "NamespaceLifecycle"]

IMMORTAL_NAMESPACES = ("default", "kube-system", "kube-public")
_ACCESS_REVIEW_RESOURCES = {("authorization.k8s.io", "localsubjectaccessreviews")}


class NamespaceLifecycle:
    name = "NamespaceLifecycle"
    operations = frozenset({"CREATE", "DELETE"})  # NewHandler(...): handles() asked only for these
    # the per-template create memo (admission/chain.py): reads the namespace on every create, changes nothing
    template_tables: tuple[tuple[str, str], ...] | None = None

    def __init__(self, reader: ObjectReader) -> None:
        self.reader = reader

    def handles(self, req: AdmissionRequest) -> bool:
        if req.group == "" and req.resource == "namespaces":
            return req.operation == "DELETE"
        if (req.group, req.resource) in _ACCESS_REVIEW_RESOURCES:
            return False
        return bool(req.namespace) and req.operation == "CREATE"

    def admit(self, req: AdmissionRequest) -> None:
        if req.resource == "namespaces":
            if req.name in IMMORTAL_NAMESPACES:
                raise Forbidden.make(
                    f'namespaces "{req.name}" is forbidden: this namespace may not be deleted',
                    name=req.name, kind="namespaces",
                )
            return
        ns = self.reader.read("", "namespaces", "", req.namespace)
        if ns is None:
            raise NotFound.for_object("", "namespaces", req.namespace)
        if (ns.get("status") or {}).get("phase") == "Terminating" or ns["metadata"].get("deletionTimestamp"):
            what = f'{req.resource}.{req.group}' if req.group else req.resource
            raise Forbidden.make(
                f'{what} "{req.name}" is forbidden: unable to create new content in namespace '
                f"{req.namespace} because it is being terminated",
                name=req.name or None, group=req.group, kind=req.resource,
                causes=[StatusCause(
                    reason="NamespaceTerminating",
                    message=f"namespace {req.namespace} is being terminated",
                    field="metadata.namespace",
                )],
            )
