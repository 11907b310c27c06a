"""DefaultStorageClass (upstream plugin/pkg/admission/storage/storageclass/setdefault).

A PersistentVolumeClaim that names no storage class gets the cluster's default class (the one
annotated ``storageclass.kubernetes.io/is-default-class: "true"``; the newest if several).
"""

from __future__ import annotations

from kubelite.apiserver.admission.chain import ObjectReader
from kubelite.apiserver.request import AdmissionRequest

__all__ = ["DEFAULT_CLASS_ANNOTATION", "DefaultStorageClass"]

DEFAULT_CLASS_ANNOTATION = "storageclass.kubernetes.io/is-default-class"


class DefaultStorageClass:
    name = "DefaultStorageClass"
    operations = frozenset({"CREATE"})  # NewHandler(...): handles() asked only for these
    resources = frozenset({("", "persistentvolumeclaims")})  # handles() is False for any other (group, resource)
    # the per-template create memo (admission/chain.py): PersistentVolumeClaims only: not a templated kind
    template_tables: tuple[tuple[str, str], ...] | None = None

    def __init__(self, reader: ObjectReader) -> None:
        self.reader = reader

    def handles(self, req: AdmissionRequest) -> bool:
        return (
            req.operation == "CREATE" and req.group == "" and req.resource == "persistentvolumeclaims"
            and not req.subresource
        )

    def admit(self, req: AdmissionRequest) -> None:
        assert req.object is not None
        spec = req.object.setdefault("spec", {})
        if "storageClassName" in spec:
            return
        defaults = [
            sc for sc in self.reader.read_all("storage.k8s.io", "storageclasses")
            if (sc["metadata"].get("annotations") or {}).get(DEFAULT_CLASS_ANNOTATION) == "true"
        ]
        if defaults:
            newest = max(defaults, key=lambda sc: (sc["metadata"].get("creationTimestamp", ""), sc["metadata"]["name"]))
            spec["storageClassName"] = newest["metadata"]["name"]
