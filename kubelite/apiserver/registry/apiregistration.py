"""APIService (apiregistration.k8s.io/v1): the strategy, the local APIServices kube-apiserver registers, and
their Available condition.

- Strategy (kube-aggregator ``pkg/registry/apiservice``): status reset on create and kept on update; the
  service port defaults to 443 (``SetDefaults_ServiceReference``); validation in
  :mod:`kubelite.apiserver.validation.apiregistration`.
- :func:`local_apiservices` is what kube-apiserver's autoregister controller creates at start for every
  built-in group/version it serves: ``<version>.<group>`` (``v1`` for the core group), no service, the
  priorities of ``apiVersionPriorities`` (cmd/kube-apiserver/app/aggregator.go), the label
  ``kube-aggregator.kubernetes.io/automanaged: onstart``, and Available=True reason ``Local``.
- Availability (the aggregator's AvailableConditionController), evaluated when the APIService is written:
  a local one is ``Local``; one backed by a Service is ``ServiceNotFound`` or ``MissingEndpoints`` (no
  ready address) when those are missing, else ``Passed`` when kubelite serves the group/version in
  process (an APIService for it is then routed locally) and ``FailedDiscoveryCheck`` otherwise: kubelite
  does not proxy to other servers. Partial: a later change of the Service or its Endpoints does not
  re-evaluate it (upstream re-checks on every such change and every 30 seconds).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

from kubelite.api.resources import ResourceInfo
from kubelite.apiserver.registry.strategy import Strategy
from kubelite.apiserver.registry.tables import ResourceTables
from kubelite.apiserver.validation.apiregistration import (
    validate_apiservice,
    validate_apiservice_status_update,
    validate_apiservice_update,
)
from kubelite.clock import Clock
from kubelite.errors import FieldError

__all__ = ["AUTOMANAGED_LABEL", "PRIORITIES", "APIServiceStrategy", "availability", "local_apiservices"]

AUTOMANAGED_LABEL = "kube-aggregator.kubernetes.io/automanaged"
_GROUP = "apiregistration.k8s.io"

#: apiVersionPriorities: (group, version) -> (groupPriorityMinimum, versionPriority)
PRIORITIES: dict[tuple[str, str], tuple[int, int]] = {
    ("", "v1"): (18000, 1),
    ("apiregistration.k8s.io", "v1"): (18000, 15),
    ("apps", "v1"): (17800, 15),
    ("events.k8s.io", "v1"): (17750, 15),
    ("authentication.k8s.io", "v1"): (17700, 15),
    ("authorization.k8s.io", "v1"): (17600, 15),
    ("autoscaling", "v1"): (17500, 15),
    ("autoscaling", "v2"): (17500, 30),
    ("batch", "v1"): (17400, 15),
    ("certificates.k8s.io", "v1"): (17300, 15),
    ("networking.k8s.io", "v1"): (17200, 15),
    ("policy", "v1"): (17100, 15),
    ("rbac.authorization.k8s.io", "v1"): (17000, 15),
    ("storage.k8s.io", "v1"): (16800, 15),
    ("apiextensions.k8s.io", "v1"): (16700, 15),
    ("admissionregistration.k8s.io", "v1"): (16700, 15),
    ("scheduling.k8s.io", "v1"): (16600, 15),
    ("coordination.k8s.io", "v1"): (16500, 15),
    ("node.k8s.io", "v1"): (16300, 15),
    ("discovery.k8s.io", "v1"): (16200, 15),
    ("flowcontrol.apiserver.k8s.io", "v1"): (16100, 21),
    ("resource.k8s.io", "v1"): (15900, 15),
}

_encode = msgspec.json.Encoder().encode
_decode = msgspec.json.Decoder().decode


def _condition(status: str, reason: str, message: str, now: str) -> dict[str, Any]:
    return {"type": "Available", "status": status, "lastTransitionTime": now, "reason": reason, "message": message}


def local_apiservices(group_versions: list[tuple[str, str]], now: str) -> list[dict[str, Any]]:
    """The autoregistered APIServices of the served built-in ``(group, version)`` pairs with a priority
    (``makeAPIService`` skips the others)."""
    out = []
    for group, version in group_versions:
        prio = PRIORITIES.get((group, version))
        if prio is None:
            continue
        out.append({
            "apiVersion": f"{_GROUP}/v1", "kind": "APIService",
            "metadata": {"name": f"{version}.{group}" if group else version, "labels": {AUTOMANAGED_LABEL: "onstart"}},
            "spec": {"group": group, "version": version, "groupPriorityMinimum": prio[0], "versionPriority": prio[1]},
            "status": {"conditions": [_condition("True", "Local", "Local APIServices are always available", now)]},
        })
    return out


def availability(obj: dict[str, Any], read: Callable[[str, str, str, str], dict[str, Any] | None],
                 serves: Callable[[str, str], bool], now: str) -> dict[str, Any]:
    """The Available condition of ``obj`` (see the module docstring)."""
    spec = obj.get("spec") or {}
    service = spec.get("service")
    if not isinstance(service, dict):
        return _condition("True", "Local", "Local APIServices are always available", now)
    ns, name = service.get("namespace", ""), service.get("name", "")
    if read("", "services", ns, name) is None:
        return _condition("False", "ServiceNotFound", f'service/{name} in "{ns}" is not present', now)
    endpoints = read("", "endpoints", ns, name)
    ready = any((s.get("addresses") or []) for s in (endpoints or {}).get("subsets") or () if isinstance(s, dict))
    if not ready:
        return _condition("False", "MissingEndpoints",
                          f'endpoints for service/{name} in "{ns}" have no addresses with port name ""', now)
    group, version = spec.get("group", ""), spec.get("version", "")
    if serves(group, version):
        return _condition("True", "Passed", "all checks passed", now)
    gv = f"/apis/{group}/{version}" if group else "/api/v1"
    return _condition("False", "FailedDiscoveryCheck",
                      f"failing or missing response from https://{name}.{ns}.svc:{service.get('port', 443)}{gv}: "
                      "kubelite does not proxy to other API servers", now)


class APIServiceStrategy(Strategy):
    def __init__(self, info: ResourceInfo, clock: Clock, tables: ResourceTables) -> None:
        super().__init__(info)
        self.clock = clock
        self.tables = tables

    def default(self, obj: dict[str, Any]) -> None:
        super().default(obj)
        service = (obj.get("spec") or {}).get("service")
        if isinstance(service, dict) and service.get("port") is None:
            service["port"] = 443

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        return validate_apiservice(obj)

    def validate_update(self, obj: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        return validate_apiservice_update(obj, old)

    def validate_status_update(self, obj: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        return validate_apiservice_status_update(obj, old)

    def after_write(self, obj: dict[str, Any] | None, old: dict[str, Any] | None) -> None:
        if obj is None or (old is not None and obj.get("spec") == old.get("spec")
                           and (obj.get("status") or {}).get("conditions")):
            return
        cond = availability(obj, self.tables.read, self._serves, self.clock.timestamp())
        conditions = [c for c in (obj.get("status") or {}).get("conditions") or () if isinstance(c, dict)]
        current = next((c for c in conditions if c.get("type") == "Available"), None)
        if current is not None and all(current.get(k) == cond[k] for k in ("status", "reason", "message")):
            return
        if current is not None and current.get("status") == cond["status"]:
            cond["lastTransitionTime"] = current.get("lastTransitionTime", cond["lastTransitionTime"])
        stored = self.tables.store.get(self.tables.table(self.info), "", obj["metadata"]["name"])
        if stored is None:
            return
        fresh = stored.decode()
        fresh.setdefault("status", {})["conditions"] = [
            c for c in conditions if c.get("type") != "Available"] + [cond]
        self.tables.store.update(self.tables.table(self.info), fresh)

    def _serves(self, group: str, version: str) -> bool:
        for info in self.tables.registry:
            if info.group == group and (info.version == version or version in info.served_versions):
                return True
        return False
