"""LimitRanger admission (upstream ``plugin/pkg/admission/limitranger``).

Mutating, on pod creates: for every ``Container`` item of the namespace's LimitRanges, a container (init
containers too) without a request or limit for a resource gets ``defaultRequest`` / ``default``
(``mergeContainerResources``), and the pod is annotated ``kubernetes.io/limit-ranger: LimitRanger plugin
set: cpu request for container app; cpu limit for container app``.

Validating, on pod creates: ``Container`` items check each container and ``Pod`` items the pod's sums
(``PodValidateLimitFunc``): ``min`` against requests, ``max`` against limits, ``maxLimitRequestRatio``
against limit/request, with upstream's messages (``maximum cpu usage per Container is 2, but limit is 4``);
several problems are reported together as ``[a, b]``, in a 403 Forbidden.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from kubelite.api.quantity import Quantity, parse_quantity
from kubelite.api.quota import pod_totals
from kubelite.apiserver.admission.chain import ObjectReader
from kubelite.apiserver.request import AdmissionRequest
from kubelite.errors import Forbidden

__all__ = ["LIMIT_RANGER_ANNOTATION", "LimitRanger"]

LIMIT_RANGER_ANNOTATION = "kubernetes.io/limit-ranger"


def _ql(values: Any) -> dict[str, Quantity]:
    out: dict[str, Quantity] = {}
    for k, v in (values or {}).items() if isinstance(values, dict) else ():
        try:
            out[k] = parse_quantity(v)
        except (TypeError, ValueError):
            continue
    return out


def _containers(pod: dict[str, Any]) -> list[dict[str, Any]]:
    spec = pod.get("spec") or {}
    return [c for c in [*(spec.get("initContainers") or ()), *(spec.get("containers") or ())] if isinstance(c, dict)]


def _ratio(limit: Quantity, request: Quantity) -> Fraction:
    return limit.as_fraction() / request.as_fraction()


def _check(kind: str, item: dict[str, Any], requests: dict[str, Quantity], limits: dict[str, Quantity],
           errs: list[str]) -> None:
    for name, mn in sorted(_ql(item.get("min")).items()):
        req = requests.get(name)
        if req is None:
            errs.append(f"minimum {name} usage per {kind} is {mn}.  No request is specified")
        elif req < mn:
            errs.append(f"minimum {name} usage per {kind} is {mn}, but request is {req}")
    for name, mx in sorted(_ql(item.get("max")).items()):
        lim = limits.get(name)
        if lim is None:
            errs.append(f"maximum {name} usage per {kind} is {mx}.  No limit is specified")
        elif lim > mx:
            errs.append(f"maximum {name} usage per {kind} is {mx}, but limit is {lim}")
    for name, ratio in sorted(_ql(item.get("maxLimitRequestRatio")).items()):
        lim, req = limits.get(name), requests.get(name)
        if lim is None or lim.is_zero():
            errs.append(f"{name} max limit to request ratio per {kind} is {ratio}, but no limit is specified or "
                        "limit is 0")
        elif req is None or req.is_zero():
            errs.append(f"{name} max limit to request ratio per {kind} is {ratio}, but no request is specified or "
                        "request is 0")
        elif _ratio(lim, req) > ratio.as_fraction():
            errs.append(f"{name} max limit to request ratio per {kind} is {ratio}, but provided ratio is "
                        f"{float(_ratio(lim, req)):f}")


class LimitRanger:
    name = "LimitRanger"
    operations = frozenset({"CREATE"})  # NewHandler(...): handles() asked only for these
    resources = frozenset({("", "pods")})  # handles() is False for any other (group, resource)
    # the per-template create memo (admission/chain.py): the pod's containers and the namespace's LimitRanges
    template_tables: tuple[tuple[str, str], ...] | None = (("", "limitranges"),)

    def __init__(self, reader: ObjectReader) -> None:
        self.reader = reader

    def handles(self, req: AdmissionRequest) -> bool:
        return (req.operation == "CREATE" and req.group == "" and req.resource == "pods" and not req.subresource
                and bool(self._items(req.namespace)))

    def _items(self, namespace: str) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for lr in sorted(self.reader.read_all("", "limitranges", namespace), key=lambda o: o["metadata"]["name"]):
            out.extend(i for i in ((lr.get("spec") or {}).get("limits") or ()) if isinstance(i, dict))
        return out

    def admit(self, req: AdmissionRequest) -> None:
        """``mergeContainerResources`` for every Container item."""
        assert req.object is not None
        notes: list[str] = []
        for item in self._items(req.namespace):
            if item.get("type") != "Container":
                continue
            default_req = (item.get("defaultRequest") or {})
            default_lim = (item.get("default") or {})
            for c in _containers(req.object):
                res = c.get("resources")
                if not isinstance(res, dict):
                    res = c["resources"] = {}
                for kind, defaults, word in (("requests", default_req, "request"), ("limits", default_lim, "limit")):
                    if not defaults:
                        continue
                    values = res.get(kind)
                    if not isinstance(values, dict):
                        values = res[kind] = {}
                    for name in sorted(defaults):
                        if name not in values:
                            values[name] = defaults[name]
                            notes.append(f"{name} {word} for container {c.get('name')}")
        if notes:
            meta = req.object.setdefault("metadata", {})
            annotations = meta.get("annotations")
            if not isinstance(annotations, dict):
                annotations = meta["annotations"] = {}
            annotations[LIMIT_RANGER_ANNOTATION] = "LimitRanger plugin set: " + "; ".join(notes)

    def validate(self, req: AdmissionRequest) -> None:
        assert req.object is not None
        errs: list[str] = []
        containers = _containers(req.object)
        for item in self._items(req.namespace):
            kind = item.get("type")
            if kind == "Container":
                for c in containers:
                    res = c.get("resources") or {}
                    _check("Container", item, _ql(res.get("requests")), _ql(res.get("limits")), errs)
            elif kind == "Pod":
                spec = req.object.get("spec") or {}
                _check("Pod", item, pod_totals(spec, "requests"), pod_totals(spec, "limits"), errs)
        if errs:
            detail = errs[0] if len(errs) == 1 else "[" + ", ".join(errs) + "]"
            prefix = f'pods "{req.name}" is forbidden' if req.name else "pods is forbidden"
            raise Forbidden.make(f"{prefix}: {detail}", name=req.name or None, group="", kind="pods")
