"""The node IPAM controller: every Node gets a pod CIDR from the cluster CIDR.

Follows ``pkg/controller/nodeipam/ipam/range_allocator.go`` (``NewCIDRRangeAllocator``,
``AllocateOrOccupyCIDR``, ``ReleaseCIDR``, ``updateCIDRsAllocation``) with ``cidrset``:

- The cluster CIDR (``--cluster-cidr``; option ``cluster_cidr``, default ``10.244.0.0/14``; the cluster passes its own) is cut into
  ``/node_cidr_mask_size`` subnets (default 24), handed out lowest free first.
- Before the first allocation every Node that already has ``spec.podCIDR`` occupies it, so a restarted
  controller never hands out a CIDR twice.
- A Node without a pod CIDR gets one with a patch of ``spec.podCIDR`` and ``spec.podCIDRs``; a Node with
  one keeps it (``podCIDR`` is immutable once set).
- When the range is exhausted the Node gets a ``CIDRNotAvailable`` event and is retried (a Node being
  deleted frees its CIDR).
- A deleted Node's CIDR is released.
One IP space per cluster: node pools and late-added nodes all draw from this one allocator.
"""

from __future__ import annotations

from kubelite.api.types import Node
from kubelite.cidrset import CIDRNotAvailable, ClusterCIDRAllocator
from kubelite.controllers.kcm import ControllerContext
from kubelite.controllers.reconcile import Request, Result
from kubelite.errors import ApiError, NotFound
from kubelite.informer import Indexer

__all__ = ["NAME", "NodeIPAMController", "register"]

NAME = "nodeipam"
#: the keys ``controller_options[NAME]`` may hold (kcm.start_controllers rejects any other, as
#: kube-controller-manager rejects an unknown flag)
OPTIONS = frozenset({"cluster_cidr", "node_cidr_mask_size"})
#: how soon a Node the exhausted range could not serve is tried again
RETRY_SECONDS = 10.0


class NodeIPAMController:
    def __init__(self, ctx: ControllerContext, *, nodes: Indexer, cluster_cidr: str, node_mask: int) -> None:
        self.client, self.nodes = ctx.client, nodes
        self.recorder = ctx.recorder("cidrAllocator")
        self.cidrs = ClusterCIDRAllocator(cluster_cidr, node_mask)
        self._occupied = False

    def _occupy_existing(self) -> None:
        for node in self.nodes.list():
            cidr = node.spec.pod_cidr if node.spec is not None else None
            if cidr and node.metadata is not None and node.metadata.name:
                self.cidrs.occupy(node.metadata.name, cidr)
        self._occupied = True

    async def reconcile(self, req: Request) -> Result | None:
        node: Node | None = self.nodes.get_by_key(req.name)
        if node is None:
            self.cidrs.release(req.name)
            return None
        if not self._occupied:
            self._occupy_existing()
        have = node.spec.pod_cidr if node.spec is not None else None
        if have:
            self.cidrs.occupy(req.name, have)
            return None
        if node.metadata is not None and node.metadata.deletion_timestamp:
            return None
        try:
            cidr = self.cidrs.allocate(req.name)
        except CIDRNotAvailable:
            self.recorder.event({"apiVersion": "v1", "kind": "Node", "name": req.name, "uid": req.name},
                                "Normal", "CIDRNotAvailable",
                                f"Node {req.name} status is now: CIDRNotAvailable")
            return Result(requeue_after=RETRY_SECONDS)
        try:
            await self.client.patch("nodes", req.name, {"spec": {"podCIDR": cidr, "podCIDRs": [cidr]}},
                                    patch_type="merge")
        except NotFound:
            self.cidrs.release(req.name)
        except ApiError:
            self.cidrs.release(req.name)  # updateCIDRsAllocation failed: release and retry
            raise
        return None


def register(ctx: ControllerContext) -> None:
    nodes = ctx.informers.informer_for(Node).get_indexer()
    cidr = ctx.option(NAME, "cluster_cidr", "10.244.0.0/14")
    mask = int(ctx.option(NAME, "node_cidr_mask_size", 24))
    ctx.manager.controller("node-ipam-controller").for_(Node).complete(
        NodeIPAMController(ctx, nodes=nodes, cluster_cidr=cidr, node_mask=mask))
