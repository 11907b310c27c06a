"""The simulated data plane (layer 5): kube-proxy per node, cluster DNS, a traffic generator and NetworkPolicy
enforcement.

Reads through informers only; never writes to the API. Wire it into a cluster with
:class:`~kubelite.network.network.Network`.
"""

from kubelite.network.dns import ClusterDNS
from kubelite.network.network import Network
from kubelite.network.policy import Peer, PolicySet, compile_policy
from kubelite.network.proxy import Endpoint, KubeProxy, ServiceTable, programming_delay
from kubelite.network.traffic import Traffic, TrafficHandle, TrafficReport

__all__ = [
    "ClusterDNS",
    "Endpoint",
    "KubeProxy",
    "Network",
    "Peer",
    "PolicySet",
    "ServiceTable",
    "Traffic",
    "TrafficHandle",
    "TrafficReport",
    "compile_policy",
    "programming_delay",
]
