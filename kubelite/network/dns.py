"""Cluster DNS with the semantics of CoreDNS's ``kubernetes`` plugin (``plugin/kubernetes``:
``parse.go``, ``kubernetes.go`` ``Records``/``findServices``/``findPods``) and the pod ``resolv.conf`` the
kubelet writes (``pkg/kubelet/network/dns``: search ``<ns>.svc.<domain> svc.<domain> <domain>``,
``ndots:5``).

Contract:
- Reads Services and EndpointSlices through informers only, so answers lag the API exactly as much
  as the informers do (CoreDNS also answers from its watch cache).
- :meth:`ClusterDNS.resolve` returns the A records of a name as a list of IPv4 strings; **NXDOMAIN
  (and NODATA) is an empty list**, never an exception. Lookups are case-insensitive.

  ==========================================  ==================================================
  ``<svc>.<ns>.svc.<domain>``                 the ClusterIP; headless: the ready endpoints' IPs
  ``<host>.<svc>.<ns>.svc.<domain>``          headless: the endpoint with that hostname (or
                                              dashed IP, ``10-244-1-5``)
  ``<a-b-c-d>.<ns>.pod.<domain>``             ``a.b.c.d`` (CoreDNS ``pods insecure``, the default)
  ExternalName Service                        :meth:`cname` gives the target; ``resolve`` follows it
                                              when it is a cluster name, else returns []
  ==========================================  ==================================================
- With ``namespace=`` (the asking pod's namespace) a relative name with fewer than 5 dots is tried
  with each search suffix in order, then as is, as glibc does with the kubelet's resolv.conf.
"""

from __future__ import annotations

import ipaddress
from typing import Any

from kubelite.informer import Indexer, Lister
from kubelite.network.proxy import SLICES_BY_SERVICE

__all__ = ["NDOTS", "ClusterDNS"]

NDOTS = 5


class ClusterDNS:
    """See the module docstring."""

    def __init__(self, services: Lister[Any], slices: Indexer, *, domain: str = "cluster.local") -> None:
        self._services = services
        self._slices = slices
        self.domain = domain.strip(".").lower()
        self._svc_suffix = f".svc.{self.domain}"
        self._pod_suffix = f".pod.{self.domain}"

    def search_path(self, namespace: str) -> list[str]:
        """The search list of a pod in ``namespace`` (kubelet's ``generateSearchesForDNSClusterFirst``)."""
        return [f"{namespace}.svc.{self.domain}", f"svc.{self.domain}", self.domain]

    def resolve(self, name: str, *, namespace: str | None = None) -> list[str]:
        """A records of ``name`` (see the module docstring); [] for NXDOMAIN."""
        name = name.lower()
        if name.endswith(".") or namespace is None:
            return self._lookup(name.rstrip("."), 0)
        candidates = [f"{name}.{s}" for s in self.search_path(namespace)]
        if name.count(".") >= NDOTS:
            candidates.insert(0, name)
        else:
            candidates.append(name)
        for fqdn in candidates:
            ips = self._lookup(fqdn, 0)
            if ips:
                return ips
        return []

    def cname(self, name: str) -> str | None:
        """The ExternalName target of ``<svc>.<ns>.svc.<domain>``, if that is an ExternalName Service."""
        svc = self._service_for(name.lower().rstrip("."))
        if svc is None or svc.spec is None or svc.spec.type != "ExternalName":
            return None
        return svc.spec.external_name  # type: ignore[no-any-return]

    # --- lookups ---
    def _service_for(self, fqdn: str) -> Any:
        if not fqdn.endswith(self._svc_suffix):
            return None
        parts = fqdn[: -len(self._svc_suffix)].split(".")
        if len(parts) != 2:
            return None
        return self._get(parts[1], parts[0])

    def _get(self, namespace: str, name: str) -> Any:
        return self._services.indexer.get_by_key(f"{namespace}/{name}")

    def _lookup(self, fqdn: str, depth: int) -> list[str]:
        if fqdn.endswith(self._pod_suffix):
            parts = fqdn[: -len(self._pod_suffix)].split(".")
            return [ip] if len(parts) == 2 and (ip := _dashed_ip(parts[0])) else []
        if not fqdn.endswith(self._svc_suffix):
            return []
        parts = fqdn[: -len(self._svc_suffix)].split(".")
        if len(parts) == 2:
            svc_name, ns = parts
            host = None
        elif len(parts) == 3:
            host, svc_name, ns = parts
        else:
            return []
        svc = self._get(ns, svc_name)
        if svc is None or svc.spec is None:
            return []
        spec = svc.spec
        if spec.type == "ExternalName":
            target = (spec.external_name or "").lower().rstrip(".")
            return self._lookup(target, depth + 1) if host is None and depth < 8 and target else []
        if spec.cluster_ip and spec.cluster_ip != "None":
            return [spec.cluster_ip] if host is None else []  # endpoint names exist for headless only
        out: list[str] = []
        for s in self._slices.by_index(SLICES_BY_SERVICE, f"{ns}/{svc_name}"):
            for ep in s.get("endpoints") or ():
                if (ep.get("conditions") or {}).get("ready") is False:
                    continue
                for ip in ep.get("addresses") or ():
                    if host is not None and host != (ep.get("hostname") or ip.replace(".", "-")):
                        continue
                    if ip not in out:
                        out.append(ip)
        return out


def _dashed_ip(label: str) -> str | None:
    ip = label.replace("-", ".")
    try:
        ipaddress.IPv4Address(ip)
    except ValueError:
        return None
    return ip
