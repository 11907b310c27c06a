"""Strategies of the core/v1 kinds with their own storage behaviour.

- Pods (``pkg/registry/core/pod/strategy.go``): start ``Pending`` with their QoS class, track generations,
  and delete gracefully when bound to a node (``CheckGracefulDeleteByPod``).
- Namespaces (``pkg/registry/core/namespace``): start ``Active`` with the ``kubernetes`` finalizer and the
  ``kubernetes.io/metadata.name`` label; ``spec.finalizers`` change only through ``/finalize``; deletion
  marks them ``Terminating`` until both finalizer lists are empty.
- Services (``pkg/registry/core/service/storage``): ClusterIPs and NodePorts are allocated before the write
  and given back if the write does not happen, or when the Service is deleted.
- Endpoints are stored repacked (``RepackSubsets``); Services, Endpoints, Events and Leases may be created
  by a PUT.
- Nodes keep the status the kubelet registers; PersistentVolumes and claims start ``Pending``.
"""

from __future__ import annotations

from typing import Any

import msgspec

from kubelite.api.quantity import parse_quantity
from kubelite.api.resources import ResourceInfo
from kubelite.apiserver.ipallocator import ServiceIPAllocator
from kubelite.apiserver.registry.strategy import DELETE_NOW, UNCHANGED, WRITE, Allocation, Strategy
from kubelite.apiserver.validation.pod import validate_pod_create_metadata
from kubelite.errors import FieldError, invalid
from kubelite.memo import ENCODED_KEYS, BoundedCache, memoize

__all__ = [
    "CreateOnUpdateStrategy",
    "EndpointsStrategy",
    "NamespaceStrategy",
    "NodeStrategy",
    "PendingStrategy",
    "PodStrategy",
    "ServiceStrategy",
    "compute_qos_class",
    "repack_subsets",
]

# GetPodQOS reads only the containers' resources; pods created from one template share them.
#: one entry per distinct set of container resources (per pod template, in practice)
_QOS: BoundedCache[bytes, str] = BoundedCache("apiserver.pod_qos", maxsize=1024)
_encode = msgspec.json.Encoder().encode


def compute_qos_class(pod: dict[str, Any]) -> str:
    """``qos.GetPodQOS`` (pkg/apis/core/helper/qos): Guaranteed, Burstable or BestEffort (memoised on the
    encoded containers)."""
    spec = pod.get("spec") or {}
    try:
        key: bytes | None = (_encode((spec.get("initContainers"), spec.get("containers"))) if ENCODED_KEYS.on
                             else None)
    except (TypeError, ValueError):
        key = None
    if key is not None:
        hit = _QOS.get(key)
        if hit is not None:
            return hit
    qos = _compute_qos_class(spec)
    if key is not None:
        _QOS.put(key, qos)
    return qos


#: bound: distinct cpu and memory quantities sent (a few per template; canonical strings after decoding)
@memoize("apiserver.pod_qos.positive", maxsize=4096, typed=True)
def _positive(q: str | int | float) -> bool:
    """``quantity.Cmp(zero) > 0`` of ``GetPodQOS``, per quantity (parsing is cached too)."""
    return parse_quantity(q) > _ZERO


_ZERO = parse_quantity(0)


def _compute_qos_class(spec: dict[str, Any]) -> str:
    requests: dict[str, Any] = {}
    limits: dict[str, Any] = {}
    guaranteed = True
    any_set = False
    for c in [*(spec.get("initContainers") or ()), *(spec.get("containers") or ())]:
        res = c.get("resources") or {}
        req = res.get("requests") or {}
        lim = res.get("limits") or {}
        for name, q in req.items():
            if name in ("cpu", "memory") and _positive(q):
                any_set = True
                requests[name] = q
        cpu_mem_limits = 0
        for name, q in lim.items():
            if name in ("cpu", "memory") and _positive(q):
                any_set = True
                limits[name] = q
                cpu_mem_limits += 1
        if cpu_mem_limits != 2:
            guaranteed = False
        for name in ("cpu", "memory"):
            if name in req and name in lim and parse_quantity(req[name]) != parse_quantity(lim[name]):
                guaranteed = False
    if not any_set:
        return "BestEffort"
    if guaranteed:
        return "Guaranteed"
    return "Burstable"


class PodStrategy(Strategy):
    tracks_generation = True
    # pod defaulting, the initial status (QoS) and ValidatePodSpec read only the spec
    template_field = "spec"

    def validate_metadata(self, obj: dict[str, Any]) -> list[FieldError]:
        return validate_pod_create_metadata(obj)

    def initial_status(self, obj: dict[str, Any]) -> dict[str, Any] | None:
        return {"phase": "Pending", "qosClass": compute_qos_class(obj)}

    def grace_period(self, obj: dict[str, Any], requested: int | None) -> int:
        """CheckGracefulDeleteByPod: unbound and terminal pods are deleted at once."""
        spec = obj.get("spec") or {}
        grace = requested if requested is not None else spec.get("terminationGracePeriodSeconds", 30)
        if not spec.get("nodeName"):
            return 0
        if (obj.get("status") or {}).get("phase") in ("Failed", "Succeeded"):
            return 0
        return int(grace or 0)


class NamespaceStrategy(Strategy):
    def initial_status(self, obj: dict[str, Any]) -> dict[str, Any] | None:
        return {"phase": "Active"}

    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        super().prepare_for_create(obj)
        spec = obj.setdefault("spec", {})
        if not spec.get("finalizers"):
            spec["finalizers"] = ["kubernetes"]

    def finish_create(self, obj: dict[str, Any]) -> None:
        meta = obj["metadata"]
        meta.setdefault("labels", {})["kubernetes.io/metadata.name"] = meta.get("name") or ""

    def prepare_for_update(self, obj: dict[str, Any], old: dict[str, Any], *, mutated: bool) -> None:
        super().prepare_for_update(obj, old, mutated=mutated)
        # spec.finalizers only change through /finalize
        old_fin = (old.get("spec") or {}).get("finalizers")
        spec = obj.setdefault("spec", {})
        if old_fin is None:
            spec.pop("finalizers", None)
        else:
            spec["finalizers"] = old_fin

    def spec_finalizers(self, obj: dict[str, Any]) -> list[str]:
        return list((obj.get("spec") or {}).get("finalizers") or ())

    own_delete = True

    def before_delete(self, obj: dict[str, Any], now: str) -> str:
        """Namespaces are finalized by the namespace controller: deletion marks them Terminating."""
        meta = obj["metadata"]
        if not self.spec_finalizers(obj) and not meta.get("finalizers"):
            return DELETE_NOW
        if meta.get("deletionTimestamp"):
            return UNCHANGED
        meta["deletionTimestamp"] = now
        meta["deletionGracePeriodSeconds"] = 0
        obj.setdefault("status", {})["phase"] = "Terminating"
        return WRITE


class CreateOnUpdateStrategy(Strategy):
    """Endpoints, Events and Leases: a PUT of a missing object creates it (AllowCreateOnUpdate)."""

    allow_create_on_update = True


class EndpointsStrategy(CreateOnUpdateStrategy):
    def canonicalize(self, obj: dict[str, Any]) -> None:
        subsets = obj.get("subsets")
        if isinstance(subsets, list) and subsets:
            obj["subsets"] = repack_subsets(subsets)


def repack_subsets(subsets: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``endpoints.RepackSubsets`` (pkg/api/endpoints/util.go): the N-to-M form of the same endpoints.

    Addresses are identified by (ip, targetRef.uid); an address not ready on a port in any subset is not
    ready there ("not ready always trumps ready"); addresses offering the same ports with the same
    readiness share one subset; a subset without ports keeps its addresses. Addresses sort by ip then
    uid as upstream's ``LessEndpointAddress``; ports and subsets, which upstream orders by an md5 of Go's
    spew rendering, sort here by their JSON (equally arbitrary, and stable).
    """
    all_addrs: dict[tuple[str, str], dict[str, Any]] = {}
    # port (JSON) -> address key -> ready
    by_port: dict[bytes, dict[tuple[str, str], bool]] = {}
    ports: dict[bytes, dict[str, Any] | None] = {}
    sentinel = b"null"
    for subset in subsets:
        subset_ports = subset.get("ports") or [None]
        for port in subset_ports:
            pkey = sentinel if port is None else _encode(port)
            ports[pkey] = port
            ready_map = by_port.setdefault(pkey, {})
            for field, ready in (("addresses", True), ("notReadyAddresses", False)):
                for addr in subset.get(field) or ():
                    key = (addr.get("ip") or "", (addr.get("targetRef") or {}).get("uid") or "")
                    all_addrs.setdefault(key, addr)
                    if ready_map.get(key, True):
                        ready_map[key] = ready
    # the set of (address, readiness) -> the ports it offers
    groups: dict[bytes, tuple[dict[tuple[str, str], bool], list[dict[str, Any]]]] = {}
    for pkey, ready_map in by_port.items():
        gkey = _encode(sorted(ready_map.items()))
        group = groups.setdefault(gkey, (ready_map, []))
        port = ports[pkey]
        if port is not None:
            group[1].append(port)
    final: list[dict[str, Any]] = []
    for ready_map, group_ports in groups.values():
        keys = sorted(ready_map)
        packed: dict[str, Any] = {}
        ready_addrs = [all_addrs[k] for k in keys if ready_map[k]]
        not_ready = [all_addrs[k] for k in keys if not ready_map[k]]
        if ready_addrs:
            packed["addresses"] = ready_addrs
        if not_ready:
            packed["notReadyAddresses"] = not_ready
        if group_ports:
            packed["ports"] = sorted(group_ports, key=_encode)
        final.append(packed)
    return sorted(final, key=_encode)


class NodeStrategy(Strategy):
    def initial_status(self, obj: dict[str, Any]) -> dict[str, Any] | None:
        return None  # the kubelet registers its node with its status


class PendingStrategy(Strategy):
    """PersistentVolumes and PersistentVolumeClaims start ``Pending``."""

    def initial_status(self, obj: dict[str, Any]) -> dict[str, Any] | None:
        return {"phase": "Pending"}


class _Reserved:
    __slots__ = ("undo",)

    def __init__(self, undo: Any) -> None:
        self.undo = undo

    def rollback(self) -> None:
        self.undo()


class ServiceStrategy(Strategy):
    """The Service REST storage's ClusterIP and NodePort allocation."""

    allow_create_on_update = True

    def __init__(self, info: ResourceInfo, allocator: ServiceIPAllocator) -> None:
        super().__init__(info)
        self.allocator = allocator

    def allocate(self, obj: dict[str, Any], old: dict[str, Any] | None) -> Allocation | None:
        alloc = self.allocator
        if old is None:
            errs = alloc.allocate(obj)
            if errs:
                raise invalid(self.info.kind, obj["metadata"]["name"], errs)
            return _Reserved(lambda: alloc.release(obj))
        errs = alloc.update(old, obj)
        if errs:
            raise invalid(self.info.kind, obj["metadata"]["name"], errs)
        return _Reserved(lambda: alloc.revert_update(old, obj))

    def after_write(self, obj: dict[str, Any] | None, old: dict[str, Any] | None) -> None:
        if obj is None and old is not None:
            self.allocator.release(old)
