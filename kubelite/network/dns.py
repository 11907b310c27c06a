"""The cluster's one DNS model: the records CoreDNS's ``kubernetes`` plugin answers (``plugin/kubernetes``:
``parse.go``, ``kubernetes.go`` ``Records``/``findServices``/``findPods``, ``reverse.go``), following the
Kubernetes DNS specification (github.com/kubernetes/dns ``docs/specification.md``, schema 1.1.0), and the
stub resolver a pod runs over the ``resolv.conf`` the kubelet writes for ``dnsPolicy: ClusterFirst``
(``pkg/kubelet/network/dns``: ``search <ns>.svc.<zone> svc.<zone> <zone>``, ``options ndots:5``).

Every lookup in the cluster goes through it: the data plane's traffic (``resolve``) and the kubelet's
container model (``resolves``: whether ``nslookup NAME`` in a pod exits 0, for ``until nslookup ...`` wait
loops, and ``wait``: wake a pod when an answer for a name may have appeared). The kubelet only writes
resolv.conf, as upstream's does; it asks this model as a pod asks CoreDNS.

Contract:
- Reads Services and EndpointSlices through informers only (CoreDNS's own identity), so answers lag the API
  exactly as much as the informers do (CoreDNS also answers from its watch cache).
- **NXDOMAIN (and NODATA) is an empty list**, never an exception. Lookups are case-insensitive (spec 2.1).

  ==========================================  ==================================================
  ``<svc>.<ns>.svc.<zone>``                   A: the ClusterIP (2.3.1); headless: one per ready
                                              endpoint address, NXDOMAIN with none ready (2.4.1)
  ``<host>.<svc>.<ns>.svc.<zone>``            headless: the ready endpoint with that hostname,
                                              or dashed IP ``10-244-1-5`` (2.4.1)
  ``_<port>._<proto>.<svc>.<ns>.svc.<zone>``  SRV per named port (2.3.2); headless: per ready
                                              endpoint and named port (2.4.2)
  ``<d>.<c>.<b>.<a>.in-addr.arpa``            PTR of a ClusterIP (2.3.3) or headless endpoint
                                              with a hostname (2.4.3)
  ``dns-version.<zone>``                      TXT ``1.1.0`` (2.2)
  ExternalName Service                        CNAME to its target (2.5); ``resolve`` follows it
                                              when the target is a cluster name
  ``<a-b-c-d>.<ns>.pod.<zone>``               ``a.b.c.d`` (CoreDNS ``pods insecure``, the default)
  ==========================================  ==================================================
- The stub resolver (:meth:`search_names`) tries a relative name with fewer than ``ndots`` (5) dots with each
  search suffix in order and then as is; with more, as is first; an absolute name (trailing dot) only as is,
  as glibc's ``res_search`` does.
- Names outside the cluster zone are forwarded upstream (CoreDNS's ``forward . /etc/resolv.conf``). kubelite
  has no internet: a forwarded name with a dot resolves, unless the search list could have made it a cluster
  Service name (``<svc>.<ns>``), which is taken as asking for that Service; a single label does not.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable
from typing import Any, NamedTuple

from kubelite.informer import Indexer, Lister
from kubelite.informer.handlers import ResourceEventHandlerFuncs
from kubelite.network.proxy import LABEL_SERVICE_NAME, SLICES_BY_SERVICE

__all__ = ["DNS_SCHEMA_VERSION", "NDOTS", "ClusterDNS", "SRVRecord"]

NDOTS = 5
#: the schema version the records follow (spec 2.2: the ``dns-version.<zone>`` TXT record)
DNS_SCHEMA_VERSION = "1.1.0"


class SRVRecord(NamedTuple):
    """An SRV answer: ``port`` served by ``target`` (priority and weight are CoreDNS's defaults: 0, 100)."""

    port: int
    target: str
    priority: int = 0
    weight: int = 100


class ClusterDNS:
    """See the module docstring."""

    def __init__(self, services: Lister[Any], slices: Indexer, *, domain: str = "cluster.local") -> None:
        self._services = services
        self._slices = slices
        self.domain = domain.strip(".").lower()
        self._svc_suffix = f".svc.{self.domain}"
        self._pod_suffix = f".pod.{self.domain}"
        # pods waiting for a name: (namespace, service) -> (owner, pod uid) -> wake
        self._waiters: dict[tuple[str, str], dict[tuple[str, str], Callable[[], None]]] = {}

    def attach(self, services: Any, slices: Any) -> None:
        """Wake waiters (:meth:`wait`) on changes of the Services and EndpointSlices these informers see."""
        services.add_event_handler(ResourceEventHandlerFuncs(
            on_add=self._service_changed, on_update=lambda _, new: self._service_changed(new)))
        slices.add_event_handler(ResourceEventHandlerFuncs(
            on_add=self._slice_changed, on_update=lambda _, new: self._slice_changed(new)))

    # --- the stub resolver (the pod's side: resolv.conf as the kubelet writes it) ---
    def search_path(self, namespace: str) -> list[str]:
        """The search list of a pod in ``namespace`` (kubelet's ``generateSearchesForDNSClusterFirst``)."""
        return [f"{namespace}.svc.{self.domain}", f"svc.{self.domain}", self.domain]

    def search_names(self, name: str, namespace: str | None) -> list[str]:
        """The names a pod in ``namespace`` queries for ``name``, in order (glibc ``res_search``, ndots:5);
        ``namespace=None`` queries ``name`` as is."""
        name = name.lower()
        if name.endswith(".") or namespace is None:
            return [name.rstrip(".")]
        searched = [f"{name}.{s}" for s in self.search_path(namespace)]
        return [name, *searched] if name.count(".") >= NDOTS else [*searched, name]

    def resolve(self, name: str, *, namespace: str | None = None) -> list[str]:
        """A records of ``name`` (see the module docstring); [] for NXDOMAIN (and for forwarded names: kubelite
        has no addresses for the internet)."""
        for fqdn in self.search_names(name, namespace):
            ips = self._lookup(fqdn, 0)
            if ips:
                return ips
        return []

    def resolves(self, name: str, namespace: str) -> bool:
        """Whether ``nslookup name`` in a pod in ``namespace`` finds an answer: an address in the cluster, a
        CNAME out of it, or a forwarded name upstream would answer (module docstring)."""
        for fqdn in self.search_names(name, namespace):
            if self._in_zone(fqdn):
                if self._lookup(fqdn, 0) or self._external_target(fqdn):
                    return True
            elif self._upstream(fqdn, None if name.endswith(".") else namespace):  # the name as is, forwarded
                return True
        return False

    def wait(self, name: str, namespace: str, owner: str, uid: str, wake: Callable[[], None]) -> None:
        """Call ``wake`` once when an answer for ``name`` (from a pod in ``namespace``) may have appeared: a
        Service or EndpointSlice of a Service the name may mean changed (one entry per owner and pod)."""
        for key in self._service_keys(name, namespace):
            self._waiters.setdefault(key, {})[(owner, uid)] = wake

    # --- the records (CoreDNS's side) ---
    def cname(self, name: str) -> str | None:
        """The ExternalName target of ``<svc>.<ns>.svc.<zone>``, if that is an ExternalName Service (2.5)."""
        svc = self._service_for(name.lower().rstrip("."))
        if svc is None or svc.spec is None or svc.spec.type != "ExternalName":
            return None
        return svc.spec.external_name  # type: ignore[no-any-return]

    def srv(self, name: str) -> list[SRVRecord]:
        """SRV records of ``_<port>._<proto>.<svc>.<ns>.svc.<zone>`` (2.3.2, 2.4.2); unnamed ports have none."""
        labels = name.lower().rstrip(".")
        if not labels.endswith(self._svc_suffix):
            return []
        parts = labels[: -len(self._svc_suffix)].split(".")
        if len(parts) != 4 or not parts[0].startswith("_") or not parts[1].startswith("_"):
            return []
        port_name, proto, svc_name, ns = parts[0][1:], parts[1][1:], parts[2], parts[3]
        svc = self._get(ns, svc_name)
        if svc is None or svc.spec is None or svc.spec.type == "ExternalName":
            return []
        ports = [p for p in svc.spec.ports or () if p.name and p.name.lower() == port_name
                 and (p.protocol or "TCP").lower() == proto]
        base = f"{svc_name}.{ns}{self._svc_suffix}"
        if not ports:
            return []
        if _has_cluster_ip(svc.spec):
            return [SRVRecord(int(p.port), base) for p in ports]
        out: list[SRVRecord] = []
        for host in dict.fromkeys(h for h, _ in self._ready_endpoints(ns, svc_name)):
            out.extend(SRVRecord(int(p.port), f"{host}.{base}") for p in ports)
        return out

    def ptr(self, name: str) -> list[str]:
        """PTR records of ``<d>.<c>.<b>.<a>.in-addr.arpa``: a ClusterIP's Service name (2.3.3), a headless
        endpoint's ``<hostname>.<svc>.<ns>.svc.<zone>`` (2.4.3)."""
        labels = name.lower().rstrip(".")
        if not labels.endswith(".in-addr.arpa"):
            return []
        octets = labels[: -len(".in-addr.arpa")].split(".")
        if len(octets) != 4:
            return []
        ip = ".".join(reversed(octets))
        out: list[str] = []
        for svc in self._services.list():
            meta, spec = svc.metadata, svc.spec
            if meta is None or spec is None:
                continue
            base = f"{meta.name}.{meta.namespace}{self._svc_suffix}"
            if _has_cluster_ip(spec):
                if ip in (spec.cluster_ips or [spec.cluster_ip]):
                    out.append(base)
                continue
            for s in self._slices.by_index(SLICES_BY_SERVICE, f"{meta.namespace}/{meta.name}"):
                for ep in s.get("endpoints") or ():
                    if _ready(ep) and ep.get("hostname") and ip in (ep.get("addresses") or ()):
                        out.append(f"{ep['hostname']}.{base}")
        return out

    def txt(self, name: str) -> list[str]:
        """TXT records: ``dns-version.<zone>`` carries the schema version (2.2)."""
        return [DNS_SCHEMA_VERSION] if name.lower().rstrip(".") == f"dns-version.{self.domain}" else []

    # --- lookups ---
    def _in_zone(self, fqdn: str) -> bool:
        return fqdn == self.domain or fqdn.endswith(f".{self.domain}")

    def _service_for(self, fqdn: str) -> Any:
        if not fqdn.endswith(self._svc_suffix):
            return None
        parts = fqdn[: -len(self._svc_suffix)].split(".")
        if len(parts) != 2:
            return None
        return self._get(parts[1], parts[0])

    def _get(self, namespace: str, name: str) -> Any:
        return self._services.indexer.get_by_key(f"{namespace}/{name}")

    def _external_target(self, fqdn: str) -> bool:
        """An ExternalName Service whose target is outside the cluster (forwarded: it answers upstream)."""
        target = (self.cname(fqdn) or "").lower().rstrip(".")
        return bool(target) and not self._in_zone(target)

    def _service_keys(self, name: str, namespace: str) -> list[tuple[str, str]]:
        """The ``(namespace, service)`` pairs the pod's queries for ``name`` may be answered from."""
        out: list[tuple[str, str]] = []
        for fqdn in self.search_names(name, namespace):
            if fqdn.endswith(self._svc_suffix):
                parts = fqdn[: -len(self._svc_suffix)].split(".")
                if len(parts) in (2, 3) and all(parts):
                    out.append((parts[-1], parts[-2]))
        return out

    def _upstream(self, fqdn: str, namespace: str | None) -> bool:
        """Whether a forwarded name would be answered upstream (module docstring: kubelite has no internet):
        one with a dot, unless the pod's search list (``namespace``; None: an absolute name) could have made it
        a ``<svc>.<ns>`` Service name."""
        if "." not in fqdn or fqdn.endswith(".in-addr.arpa"):
            return False
        if namespace is None:
            return True
        return not any(len(q[: -len(self._svc_suffix)].split(".")) == 2
                       for q in self.search_names(fqdn, namespace) if q.endswith(self._svc_suffix))

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
        if _has_cluster_ip(spec):
            return [spec.cluster_ip] if host is None else []  # endpoint names exist for headless only
        out: list[str] = []
        for ep_host, ip in self._ready_endpoints(ns, svc_name):
            if (host is None or host == ep_host) and ip not in out:
                out.append(ip)
        return out

    def _ready_endpoints(self, ns: str, svc_name: str) -> list[tuple[str, str]]:
        """(hostname, address) of each ready endpoint address of a Service (the hostname field, else the dashed
        address: the spec's system-assigned identifier)."""
        out: list[tuple[str, str]] = []
        for s in self._slices.by_index(SLICES_BY_SERVICE, f"{ns}/{svc_name}"):
            for ep in s.get("endpoints") or ():
                if not _ready(ep):
                    continue
                for ip in ep.get("addresses") or ():
                    out.append(((ep.get("hostname") or ip.replace(".", "-")).lower(), ip))
        return out

    # --- waiters ---
    def _wake(self, namespace: str, name: str) -> None:
        waiters = self._waiters.pop((namespace, name), None)
        for wake in (waiters or {}).values():
            wake()

    def _service_changed(self, svc: Any) -> None:
        meta = svc.get("metadata") if isinstance(svc, dict) else getattr(svc, "metadata", None)
        if isinstance(meta, dict):
            self._wake(meta.get("namespace", ""), meta.get("name", ""))
        elif meta is not None:
            self._wake(meta.namespace or "", meta.name or "")

    def _slice_changed(self, s: Any) -> None:
        meta = (s.get("metadata") if isinstance(s, dict) else None) or {}
        svc = (meta.get("labels") or {}).get(LABEL_SERVICE_NAME)
        if svc:
            self._wake(meta.get("namespace", ""), svc)


def _has_cluster_ip(spec: Any) -> bool:
    return bool(spec.cluster_ip) and spec.cluster_ip != "None"


def _ready(ep: dict[str, Any]) -> bool:
    # EndpointSlice conditions: ready unset means ready; the endpointslice controller already sets ready for
    # a Service that publishes not-ready addresses (the spec's tolerate-unready-endpoints)
    return (ep.get("conditions") or {}).get("ready") is not False


def _dashed_ip(label: str) -> str | None:
    ip = label.replace("-", ".")
    try:
        ipaddress.IPv4Address(ip)
    except ValueError:
        return None
    return ip
