"""ServiceAccount (upstream plugin/pkg/admission/serviceaccount), the defaulting part.

Pods that name no service account run as ``default``; ``serviceAccount`` (the deprecated alias) is
kept in step. Kubelite does not project token volumes (there is no real container to read them).
"""

from __future__ import annotations

from kubelite.apiserver.request import AdmissionRequest

__all__ = ["ServiceAccountAdmission"]


class ServiceAccountAdmission:
    name = "ServiceAccount"

    def handles(self, req: AdmissionRequest) -> bool:
        return req.operation == "CREATE" and req.resource == "pods" and req.group == "" and not req.subresource

    def admit(self, req: AdmissionRequest) -> None:
        assert req.object is not None
        spec = req.object.setdefault("spec", {})
        sa = spec.get("serviceAccountName") or spec.get("serviceAccount") or "default"
        spec["serviceAccountName"] = sa
        spec["serviceAccount"] = sa
