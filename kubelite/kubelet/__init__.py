"""Fake kubelets: nodes whose pods play out the real kubelet's lifecycle on virtual time.

See ``docs/workload-profiles.md`` for the image-profile format and :mod:`kubelite.kubelet.kubelet` for
the contract. Layer 5: reads through informers, writes through the client only.
"""

from kubelite.kubelet.ipam import ClusterCIDRAllocator, HostLocalIPAM
from kubelite.kubelet.kubelet import DEFAULT_CAPACITY, Kubelet
from kubelite.kubelet.pool import NodePool
from kubelite.workload import ImageProfile, ImageRegistry

__all__ = ["DEFAULT_CAPACITY", "ClusterCIDRAllocator", "HostLocalIPAM", "ImageProfile", "ImageRegistry", "Kubelet",
           "NodePool"]
