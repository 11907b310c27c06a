"""What a pod's DNS lookups of Service names answer, for scripts that wait for a Service to resolve.

The docs' init-container example waits with ``until nslookup myservice.<ns>.svc.cluster.local; do
sleep 2; done``; such a loop ends at its first poll after the Service exists. The answer follows the
pod's ``resolv.conf`` as the kubelet writes it for ``dnsPolicy: ClusterFirst`` (``search <ns>.svc.cluster.local
svc.cluster.local cluster.local``, ``ndots:5``) and CoreDNS's kubernetes plugin: ``<svc>.<ns>.svc.cluster.local``
resolves while the Service exists. A name outside ``cluster.local`` with a dot in it is taken to resolve
upstream (the internet); a bare name that no search suffix turns into a Service is NXDOMAIN.

Services come from an informer on all Services, as the kubelet's own ``serviceLister`` (upstream uses
it for the service environment variables); a pool of kubelets shares one. :class:`ServiceDNS` keeps the
containers waiting on a name by ``(namespace, service)``, so a Service added wakes only its waiters
(nothing walks every node or pod per event). Limits: a headless Service resolves once it exists (CoreDNS
answers its ready endpoints; kubelite does not look at them here), and pod hostnames
(``<host>.<subdomain>.<ns>.svc``) do not resolve.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["CLUSTER_DOMAIN", "ServiceDNS", "service_keys"]

CLUSTER_DOMAIN = "cluster.local"
_SVC_SUFFIX = f".svc.{CLUSTER_DOMAIN}"


def service_keys(name: str, namespace: str) -> list[tuple[str, str]] | None:
    """The ``(namespace, service)`` pairs a lookup of ``name`` from a pod in ``namespace`` may resolve to,
    in resolver order; None: a name outside the cluster domain (resolves upstream)."""
    name = name.rstrip(".").lower()
    search = [f"{namespace}{_SVC_SUFFIX}", _SVC_SUFFIX[1:], CLUSTER_DOMAIN]
    fqdn = name.endswith(f".{CLUSTER_DOMAIN}") or name == CLUSTER_DOMAIN
    candidates = [name] if fqdn else [f"{name}.{s}" for s in search]
    out: list[tuple[str, str]] = []
    for c in candidates:
        if c.endswith(_SVC_SUFFIX):
            parts = c[: -len(_SVC_SUFFIX)].split(".")
            if len(parts) == 2 and all(parts):
                out.append((parts[1], parts[0]))
    if not out and not fqdn and "." in name:
        return None
    return out


class ServiceDNS:
    """Service lookups over a Service indexer, and the containers waiting on them."""

    def __init__(self) -> None:
        self._get: Callable[[str], Any] | None = None
        self._waiters: dict[tuple[str, str], dict[tuple[str, str], Callable[[], None]]] = {}

    def attach(self, informer: Any) -> None:
        """Use ``informer`` (on ``services``); idempotent, so every kubelet of a pool may call it."""
        if self._get is not None:
            return
        from kubelite.informer.handlers import ResourceEventHandlerFuncs

        indexer = informer.get_indexer()
        self._get = indexer.get_by_key
        informer.add_event_handler(ResourceEventHandlerFuncs(on_add=self._on_add))

    def resolves(self, name: str, namespace: str) -> bool:
        keys = service_keys(name, namespace)
        if keys is None:
            return True
        get = self._get
        return get is not None and any(get(f"{ns}/{svc}") is not None for ns, svc in keys)

    def wait(self, name: str, namespace: str, owner: str, uid: str, wake: Callable[[], None]) -> None:
        """Call ``wake`` once when a Service ``name`` may resolve to appears (one entry per owner and pod)."""
        for key in service_keys(name, namespace) or ():
            self._waiters.setdefault(key, {})[(owner, uid)] = wake

    def _on_add(self, svc: dict[str, Any]) -> None:
        meta = svc.get("metadata") or {}
        waiters = self._waiters.pop((meta.get("namespace", ""), meta.get("name", "")), None)
        for wake in (waiters or {}).values():
            wake()
