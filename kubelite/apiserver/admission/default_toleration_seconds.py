"""DefaultTolerationSeconds (upstream plugin/pkg/admission/defaulttolerationseconds).

Every pod tolerates ``node.kubernetes.io/not-ready`` and ``node.kubernetes.io/unreachable``
(NoExecute) for 300 s unless it already tolerates them, so taint-based eviction waits five minutes.
"""

from __future__ import annotations

from kubelite.apiserver.request import AdmissionRequest

__all__ = ["DEFAULT_TOLERATION_SECONDS", "DefaultTolerationSeconds"]

DEFAULT_TOLERATION_SECONDS = 300
_KEYS = ("node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable")


class DefaultTolerationSeconds:
    name = "DefaultTolerationSeconds"
    operations = frozenset({"CREATE"})  # NewHandler(...): handles() asked only for these
    resources = frozenset({("", "pods")})  # handles() is False for any other (group, resource)
    # the per-template create memo (admission/chain.py): a pure function of the pod's tolerations
    template_tables: tuple[tuple[str, str], ...] | None = ()

    def handles(self, req: AdmissionRequest) -> bool:
        return req.operation == "CREATE" and req.group == "" and req.resource == "pods" and not req.subresource

    def admit(self, req: AdmissionRequest) -> None:
        assert req.object is not None
        spec = req.object.setdefault("spec", {})
        tolerations = list(spec.get("tolerations") or ())
        for key in _KEYS:
            covered = any(
                (t.get("key") == key or (not t.get("key") and t.get("operator") == "Exists"))
                and t.get("effect") in (None, "", "NoExecute")
                for t in tolerations
            )
            if not covered:
                tolerations.append({
                    "key": key, "operator": "Exists", "effect": "NoExecute",
                    "tolerationSeconds": DEFAULT_TOLERATION_SECONDS,
                })
        spec["tolerations"] = tolerations
