"""What the kubelet's container model asks of cluster DNS: whether a pod's lookup of a name finds an answer,
for scripts that wait for a Service to resolve (``until nslookup myservice; do sleep 2; done``).

As upstream, the kubelet itself answers no names: it writes the pod's ``resolv.conf`` (``dnsPolicy:
ClusterFirst``: ``search <ns>.svc.<zone> svc.<zone> <zone>``, ``ndots:5``) and the pod asks the cluster DNS.
The one model of those answers is :class:`kubelite.network.dns.ClusterDNS` (CoreDNS's kubernetes plugin and
the stub resolver); the cluster passes it in as the kubelets' ``dns=`` collaborator (kubelets never import
the data plane). Without a data plane (``Cluster(network=False)``) there is no cluster DNS, so, as in a
cluster without CoreDNS, no lookup is answered (:class:`NoClusterDNS`): a wait loop keeps waiting.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

__all__ = ["CLUSTER_DOMAIN", "NoClusterDNS", "PodDNS"]

CLUSTER_DOMAIN = "cluster.local"


class PodDNS(Protocol):
    """Cluster DNS as a pod sees it (``ClusterDNS`` implements it)."""

    def resolves(self, name: str, namespace: str) -> bool:
        """Whether ``nslookup name`` in a pod in ``namespace`` finds an answer."""
        ...

    def wait(self, name: str, namespace: str, owner: str, uid: str, wake: Callable[[], None]) -> None:
        """Call ``wake`` once when an answer for ``name`` may have appeared (one entry per owner and pod)."""
        ...


class NoClusterDNS:
    """No cluster DNS is running: every lookup times out (nothing ever resolves, nothing to wait for)."""

    def resolves(self, name: str, namespace: str) -> bool:
        return False

    def wait(self, name: str, namespace: str, owner: str, uid: str, wake: Callable[[], None]) -> None:
        return None
