"""ServiceAccount (upstream plugin/pkg/admission/serviceaccount).

- Pods that name no service account run as ``default``; ``serviceAccount`` (the deprecated alias) is
  kept in step.
- The named ServiceAccount must exist in the pod's namespace, else the create is 403 Forbidden with
  upstream's message (``pods "p" is forbidden: error looking up service account ns/sa: serviceaccount
  "sa" not found``).
- Deviation: a missing ``default`` ServiceAccount is accepted. Upstream rejects it too (until the
  service account controller has created it); kubelite clusters may run without that controller
  (``controllers=False`` or a subset), and every pod would then be refused.
- Kubelite does not project token volumes (there is no real container to read them).
"""

from __future__ import annotations

from kubelite.apiserver.admission.chain import ObjectReader
from kubelite.apiserver.request import AdmissionRequest
from kubelite.errors import Forbidden

__all__ = ["ServiceAccountAdmission"]

DEFAULT_SERVICE_ACCOUNT = "default"


class ServiceAccountAdmission:
    name = "ServiceAccount"
    operations = frozenset({"CREATE"})  # NewHandler(...): handles() asked only for these
    resources = frozenset({("", "pods")})  # handles() is False for any other (group, resource)
    # the per-template create memo (admission/chain.py): the pod's serviceAccountName and the ServiceAccounts
    template_tables: tuple[tuple[str, str], ...] | None = (("", "serviceaccounts"),)

    def __init__(self, reader: ObjectReader | None = None) -> None:
        self.reader = reader

    def handles(self, req: AdmissionRequest) -> bool:
        return req.operation == "CREATE" and req.resource == "pods" and req.group == "" and not req.subresource

    def admit(self, req: AdmissionRequest) -> None:
        assert req.object is not None
        spec = req.object.get("spec")
        if not isinstance(spec, dict):
            spec = req.object["spec"] = {}
        sa = spec.get("serviceAccountName") or spec.get("serviceAccount") or DEFAULT_SERVICE_ACCOUNT
        spec["serviceAccountName"] = sa
        spec["serviceAccount"] = sa
        if self.reader is None or sa == DEFAULT_SERVICE_ACCOUNT or not isinstance(sa, str):
            return
        if self.reader.read("", "serviceaccounts", req.namespace, sa) is None:
            meta = req.object.get("metadata")
            name = req.name or (meta.get("generateName") if isinstance(meta, dict) else "") or ""
            subject = f'pods "{name}"' if name else "pods"
            raise Forbidden.make(
                f"{subject} is forbidden: error looking up service account {req.namespace}/{sa}: "
                f'serviceaccount "{sa}" not found',
                name=name or None, kind="pods",
            )
