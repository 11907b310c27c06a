"""The ``default/kubernetes`` Service and its endpoints, kept by the apiserver itself.

Follows kube-apiserver's bootstrap controllers: ``pkg/controlplane/controller/kubernetesservice``
(``UpdateKubernetesService``, ``CreateOrUpdateMasterServiceIfNeeded``: the Service named ``kubernetes`` in
``default``, ClusterIP the first address of the service CIDR, port ``https`` 443 -> ``--secure-port``) and
``pkg/controlplane/reconcilers`` (``lease.go`` ``ReconcileEndpoints`` through ``endpointsadapter.go``: an
Endpoints ``kubernetes`` labelled ``endpointslice.kubernetes.io/skip-mirror`` and an EndpointSlice
``kubernetes`` labelled ``kubernetes.io/service-name``, each naming the apiserver's advertise address).

Contract:
- :func:`bootstrap_objects` are what a cluster holds when the apiserver has started: the cluster seeds them
  with the other bootstrap objects (no request, no extra work at start) and reserves the Service's ClusterIP.
- :class:`KubernetesServiceController` then runs every ``EndpointInterval`` (10 s) on the cluster clock, as the
  loopback identity through the whole request pipeline: a Service, Endpoints or EndpointSlice that was deleted
  is created again, one whose ports, type, addresses or labels drifted is put back (upstream's
  ``getMasterServiceUpdateIfNeeded`` and the reconciler's semantic comparison); otherwise it writes nothing.
- Also here: the ``kube-system/kube-dns`` Service kubeadm's CoreDNS add-on installs (``k8s-app: kube-dns``,
  ClusterIP the service CIDR's tenth address, ports ``dns``/``dns-tcp``/``metrics``), seeded with the rest. It
  selects CoreDNS's pods; kubelite's cluster DNS is modelled in process (:mod:`kubelite.network.dns`), so no
  pod backs it and its endpoints stay empty.
"""

from __future__ import annotations

import ipaddress
from typing import TYPE_CHECKING, Any

from kubelite.apiserver.auth.user import LOOPBACK
from kubelite.apiserver.ipallocator import DEFAULT_SERVICE_CIDR
from kubelite.clock import Clock
from kubelite.errors import AlreadyExists, ApiError, Conflict
from kubelite.logs import get_logger

if TYPE_CHECKING:
    from kubelite.apiserver.server import ApiServer

__all__ = [
    "ADVERTISE_ADDRESS",
    "DNS_SERVICE_IP",
    "ENDPOINT_INTERVAL",
    "KUBERNETES_SERVICE_IP",
    "SECURE_PORT",
    "KubernetesServiceController",
    "bootstrap_objects",
]

log = get_logger("kubelite.apiserver.kubernetes_service")
_CIDR = ipaddress.ip_network(DEFAULT_SERVICE_CIDR)
#: ``ServiceIPRange``'s first address (``GetIndexedIP(cidr, 1)``)
KUBERNETES_SERVICE_IP = str(_CIDR[1])
#: kubeadm's ``clusterDNS``: the service CIDR's tenth address (``GetDNSIP``)
DNS_SERVICE_IP = str(_CIDR[10])
#: the control-plane node's address, as kind's first control-plane container has it (Endpoints may not name a
#: loopback address); clear of the nodes' 172.16.0.0/16
ADVERTISE_ADDRESS = "172.18.0.2"
#: kube-apiserver's ``--secure-port``
SECURE_PORT = 6443
#: ``--endpoint-reconciler``'s interval (``DefaultEndpointReconcilerInterval``) and the Service controller's
ENDPOINT_INTERVAL = 10.0
_SKIP_MIRROR = "endpointslice.kubernetes.io/skip-mirror"
_SERVICE_NAME = "kubernetes.io/service-name"


def _service_spec(ip: str, ports: list[dict[str, Any]], selector: dict[str, str] | None = None) -> dict[str, Any]:
    """A ClusterIP Service's spec as the apiserver stores it (defaults filled)."""
    spec: dict[str, Any] = {"ports": ports}
    if selector:
        spec["selector"] = selector
    spec.update({"clusterIP": ip, "clusterIPs": [ip], "type": "ClusterIP", "sessionAffinity": "None",
                 "ipFamilies": ["IPv4"], "ipFamilyPolicy": "SingleStack", "internalTrafficPolicy": "Cluster"})
    return spec


def kubernetes_service(port: int = SECURE_PORT) -> dict[str, Any]:
    """``createPortAndServiceSpec`` + ``CreateOrUpdateMasterServiceIfNeeded``'s object."""
    return {
        "apiVersion": "v1", "kind": "Service",
        "metadata": {"name": "kubernetes", "namespace": "default",
                     "labels": {"component": "apiserver", "provider": "kubernetes"}},
        "spec": _service_spec(KUBERNETES_SERVICE_IP,
                              [{"name": "https", "protocol": "TCP", "port": 443, "targetPort": port}]),
        "status": {"loadBalancer": {}},
    }


def kubernetes_endpoints(address: str = ADVERTISE_ADDRESS, port: int = SECURE_PORT) -> dict[str, Any]:
    """The lease reconciler's Endpoints: one subset, the apiserver's address and its ``https`` port."""
    return {
        "apiVersion": "v1", "kind": "Endpoints",
        "metadata": {"name": "kubernetes", "namespace": "default", "labels": {_SKIP_MIRROR: "true"}},
        "subsets": [{"addresses": [{"ip": address}], "ports": [{"name": "https", "port": port, "protocol": "TCP"}]}],
    }


def kubernetes_endpointslice(address: str = ADVERTISE_ADDRESS, port: int = SECURE_PORT) -> dict[str, Any]:
    """``endpointSliceFromEndpoints`` of :func:`kubernetes_endpoints`."""
    return {
        "apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
        "metadata": {"name": "kubernetes", "namespace": "default", "labels": {_SERVICE_NAME: "kubernetes"}},
        "addressType": "IPv4",
        "endpoints": [{"addresses": [address], "conditions": {"ready": True}}],
        "ports": [{"name": "https", "port": port, "protocol": "TCP"}],
    }


def kube_dns_service() -> dict[str, Any]:
    """kubeadm's CoreDNS add-on Service (``cmd/kubeadm/app/phases/addons/dns/manifests.go``)."""
    return {
        "apiVersion": "v1", "kind": "Service",
        "metadata": {"name": "kube-dns", "namespace": "kube-system",
                     "labels": {"k8s-app": "kube-dns", "kubernetes.io/cluster-service": "true",
                                "kubernetes.io/name": "CoreDNS"},
                     "annotations": {"prometheus.io/port": "9153", "prometheus.io/scrape": "true"}},
        "spec": _service_spec(DNS_SERVICE_IP, [
            {"name": "dns", "protocol": "UDP", "port": 53, "targetPort": 53},
            {"name": "dns-tcp", "protocol": "TCP", "port": 53, "targetPort": 53},
            {"name": "metrics", "protocol": "TCP", "port": 9153, "targetPort": 9153},
        ], selector={"k8s-app": "kube-dns"}),
        "status": {"loadBalancer": {}},
    }


def bootstrap_objects() -> tuple[tuple[str, str, dict[str, Any]], ...]:
    """(group, plural, object) of everything this module keeps, as the cluster seeds them at start."""
    return (("", "services", kubernetes_service()), ("", "endpoints", kubernetes_endpoints()),
            ("discovery.k8s.io", "endpointslices", kubernetes_endpointslice()), ("", "services", kube_dns_service()))


class KubernetesServiceController:
    """The apiserver's own reconciler of ``default/kubernetes`` (see the module docstring)."""

    def __init__(self, server: ApiServer, *, clock: Clock, address: str = ADVERTISE_ADDRESS,
                 port: int = SECURE_PORT, interval: float = ENDPOINT_INTERVAL) -> None:
        self.server = server
        self.clock = clock
        self.address = address
        self.port = port
        self.interval = interval

    async def run(self) -> None:
        while True:
            await self.clock.sleep(self.interval)
            await self.reconcile()

    async def reconcile(self) -> None:
        """One pass: the Service, then the Endpoints and the EndpointSlice (writes only what differs)."""
        try:
            await self._ensure("", "services", kubernetes_service(self.port), _service_drift)
            await self._ensure("", "endpoints", kubernetes_endpoints(self.address, self.port), _endpoints_drift)
            await self._ensure("discovery.k8s.io", "endpointslices",
                               kubernetes_endpointslice(self.address, self.port), _slice_drift)
        except (AlreadyExists, Conflict):
            pass  # another writer won the race: the next pass looks again
        except ApiError as e:
            # upstream logs and tries again at the next interval (a terminating ``default`` namespace, a fault)
            log.warning("kubernetes_service_reconcile_failed", reason=e.status.reason, message=e.message)

    async def _ensure(self, group: str, plural: str, want: dict[str, Any], drift: Any) -> None:
        srv = self.server
        current = srv.read(group, plural, "default", "kubernetes")
        if current is None:
            await srv.create(LOOPBACK, group, plural, "default", want, field_manager="kube-apiserver")
            return
        updated = drift(current, want)
        if updated is not None:
            await srv.update(LOOPBACK, group, plural, "default", "kubernetes", updated, field_manager="kube-apiserver")


def _copy(obj: dict[str, Any]) -> dict[str, Any]:
    import copy

    return copy.deepcopy(obj)


def _service_drift(current: dict[str, Any], want: dict[str, Any]) -> dict[str, Any] | None:
    """``getMasterServiceUpdateIfNeeded``: the ports and the type are put back; anything else is the user's."""
    spec = current.get("spec") or {}
    if spec.get("ports") == want["spec"]["ports"] and spec.get("type") == want["spec"]["type"]:
        return None
    out = _copy(current)
    out["spec"]["ports"] = want["spec"]["ports"]
    out["spec"]["type"] = want["spec"]["type"]
    return out


def _endpoints_drift(current: dict[str, Any], want: dict[str, Any]) -> dict[str, Any] | None:
    labels = (current["metadata"].get("labels") or {})
    if current.get("subsets") == want["subsets"] and labels.get(_SKIP_MIRROR) == "true":
        return None
    out = _copy(current)
    out["subsets"] = want["subsets"]
    out["metadata"]["labels"] = {**labels, _SKIP_MIRROR: "true"}
    return out


def _slice_drift(current: dict[str, Any], want: dict[str, Any]) -> dict[str, Any] | None:
    """endpointsadapter's ``ensureEndpointSliceFromEndpoints``: endpoints, ports and labels compared."""
    if (current.get("endpoints") == want["endpoints"] and current.get("ports") == want["ports"]
            and (current["metadata"].get("labels") or {}) == want["metadata"]["labels"]):
        return None
    out = _copy(current)
    out["endpoints"], out["ports"] = want["endpoints"], want["ports"]
    out["metadata"]["labels"] = want["metadata"]["labels"]
    return out
