"""ImageLocality (upstream ``plugins/imagelocality``): prefer nodes that already have the pod's images,
weighted by image size and by how widely the image is spread (to avoid piling onto the one node
that has it). Scores between 23 MB and 1000 MB per container map linearly onto [0, 100]."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from operator import attrgetter
from typing import Any

from kubelite.scheduler.framework.cycle_state import CycleState
from kubelite.scheduler.framework.interface import ADD, UPDATE, ClusterEvent, ClusterEventWithHint
from kubelite.scheduler.framework.status import SKIP, Status
from kubelite.scheduler.framework.types import NodeInfo, PodInfo

__all__ = ["NAME", "ImageLocality", "new", "normalized_image_name"]

NAME = "ImageLocality"
_MB = 1024 * 1024
MIN_THRESHOLD = 23 * _MB
MAX_CONTAINER_THRESHOLD = 1000 * _MB
_KEY = "PreScore" + NAME
_SKIP = Status(SKIP)
_IMAGE_SIZES = attrgetter("image_sizes")


def normalized_image_name(name: str) -> str:
    """Add ``:latest`` to an untagged, undigested image name (upstream ``normalizedImageName``)."""
    if "@" in name or ":" in name.rsplit("/", 1)[-1]:
        return name
    return name + ":latest"


def _scaled(total: int, n_containers: int) -> int:
    max_threshold = MAX_CONTAINER_THRESHOLD * n_containers
    total = min(max(total, MIN_THRESHOLD), max_threshold)
    return 100 * (total - MIN_THRESHOLD) // (max_threshold - MIN_THRESHOLD)


class ImageLocality:
    name = NAME

    def __init__(self, handle: Any) -> None:
        self.handle = handle

    def pre_score(self, state: CycleState, pod: PodInfo, nodes: Sequence[NodeInfo]) -> Status | None:
        spec = pod.pod.spec
        containers = list((spec.init_containers or []) + (spec.containers or [])) if spec is not None else []
        total_nodes = len(self.handle.node_infos())
        images: list[tuple[str, float]] = []
        for c in containers:
            if not c.image:
                continue
            n = normalized_image_name(c.image)
            have = self.handle.image_num_nodes(n)
            if have:
                images.append((n, have / total_nodes if total_nodes else 0.0))
        if not images:
            return _SKIP
        state.write(_KEY, (images, max(1, len(containers))))
        return None

    def score_nodes(self, state: CycleState, pod: PodInfo, nodes: Sequence[NodeInfo]) -> list[int]:
        """``[score(n) for n in nodes]``; a node without images scores as an empty sum."""
        if type(self).score is not ImageLocality.score:  # a subclass may score image-less nodes
            return [self.score(state, pod, ni) for ni in nodes]
        n_containers: int
        _, n_containers = state.read(_KEY)
        empty = _scaled(0, n_containers)
        if not any(map(_IMAGE_SIZES, nodes)):
            return [empty] * len(nodes)
        score = self.score
        return [score(state, pod, ni) if ni.image_sizes else empty for ni in nodes]

    def score(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> int:
        images: list[tuple[str, float]]
        n_containers: int
        images, n_containers = state.read(_KEY)
        sizes = node.image_sizes
        total = 0
        for name, spread in images:
            size = sizes.get(name)
            if size:
                total += int(size * spread)
        return _scaled(total, n_containers)

    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [ClusterEventWithHint(ClusterEvent("Node", ADD | UPDATE))]


def new(args: Mapping[str, Any], handle: Any) -> ImageLocality:
    return ImageLocality(handle)
