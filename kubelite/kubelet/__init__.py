"""Fake kubelets: nodes whose pods play out the real kubelet's lifecycle on virtual time.

See ``docs/workload-profiles.md`` for the image-profile format and :mod:`kubelite.kubelet.kubelet` for
the contract. Layer 5: reads through informers, writes through the client only.

The names below load on first use (:mod:`kubelite.lazy`): a cluster without nodes imports no kubelet.
"""

from typing import TYPE_CHECKING

from kubelite.lazy import lazy_exports

if TYPE_CHECKING:
    from kubelite.kubelet.ipam import ClusterCIDRAllocator, HostLocalIPAM
    from kubelite.kubelet.kubelet import DEFAULT_CAPACITY, Kubelet
    from kubelite.kubelet.pool import NodePool
    from kubelite.workload import ImageProfile, ImageRegistry

__all__ = ["DEFAULT_CAPACITY", "ClusterCIDRAllocator", "HostLocalIPAM", "ImageProfile", "ImageRegistry", "Kubelet",
           "NodePool"]

__getattr__, __dir__ = lazy_exports(__name__, {
    "ClusterCIDRAllocator": "kubelite.kubelet.ipam", "HostLocalIPAM": "kubelite.kubelet.ipam",
    "DEFAULT_CAPACITY": "kubelite.kubelet.kubelet", "Kubelet": "kubelite.kubelet.kubelet",
    "NodePool": "kubelite.kubelet.pool", "ImageProfile": "kubelite.workload", "ImageRegistry": "kubelite.workload",
})
