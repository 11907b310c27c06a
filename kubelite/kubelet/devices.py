"""The device manager: extended resources (``nvidia.com/gpu``, ...) advertised by device plugins.

Follows ``pkg/kubelet/cm/devicemanager/manager.go`` (``Allocate``, ``devicesToAllocate``,
``GetCapacity``) and the NVIDIA device plugin's ``Allocate`` response (``NVIDIA_VISIBLE_DEVICES``).

Guarantees:
- A device is allocated to at most one container at a time. Allocation is per container, all or
  nothing, and idempotent: asking again for the same ``(pod uid, container)`` returns the same IDs.
- Only healthy devices are allocated; capacity counts every device, allocatable only the healthy ones
  (upstream reports unhealthy devices as capacity but not allocatable).
- :meth:`DeviceManager.free_pod` returns every device of a pod; the kubelet calls it when the pod's
  containers have terminated for good (pod terminal or removed).
- Device IDs are deterministic: ``<prefix>-<node>-<index>``, so seeded runs replay.
"""

from __future__ import annotations

from collections.abc import Mapping

__all__ = ["DEVICE_ENV", "DeviceManager", "UnexpectedAdmissionError"]

#: the environment variable each plugin's Allocate response sets, by resource name
DEVICE_ENV: dict[str, str] = {"nvidia.com/gpu": "NVIDIA_VISIBLE_DEVICES", "amd.com/gpu": "AMD_VISIBLE_DEVICES"}


class UnexpectedAdmissionError(Exception):
    """Allocation failed although admission said the resources fit (upstream's reason name)."""


class DeviceManager:
    """Device inventory and allocations of one node. Mutated only by its kubelet (and fault switches)."""

    def __init__(self, node_name: str, devices: Mapping[str, int]) -> None:
        self.node_name = node_name
        # resource -> device id -> healthy; insertion order is allocation preference order
        self.devices: dict[str, dict[str, bool]] = {}
        # (pod uid, container) -> resource -> ids
        self.allocations: dict[tuple[str, str], dict[str, list[str]]] = {}
        self._in_use: dict[str, set[str]] = {}
        for resource, count in devices.items():
            prefix = "GPU" if resource.endswith("/gpu") else resource.rsplit("/", 1)[-1].upper()
            self.devices[resource] = {f"{prefix}-{node_name}-{i}": True for i in range(count)}
            self._in_use[resource] = set()

    def resources(self) -> list[str]:
        return list(self.devices)

    def capacity(self) -> dict[str, int]:
        return {r: len(ids) for r, ids in self.devices.items()}

    def allocatable(self) -> dict[str, int]:
        return {r: sum(1 for ok in ids.values() if ok) for r, ids in self.devices.items()}

    def set_health(self, device_id: str, healthy: bool) -> None:
        """Fault switch: a device turns (un)healthy. An allocated device stays allocated."""
        for ids in self.devices.values():
            if device_id in ids:
                ids[device_id] = healthy
                return
        raise KeyError(device_id)

    def free_count(self, resource: str) -> int:
        ids = self.devices.get(resource, {})
        used = self._in_use.get(resource, set())
        return sum(1 for d, ok in ids.items() if ok and d not in used)

    def allocate(self, pod_uid: str, container: str, requests: Mapping[str, int]) -> dict[str, list[str]]:
        """Allocate ``requests`` (resource -> count, only device resources are looked at)."""
        key = (pod_uid, container)
        have = self.allocations.get(key)
        if have is not None:
            return have
        wanted = {r: n for r, n in requests.items() if r in self.devices and n > 0}
        for r, n in wanted.items():
            free = self.free_count(r)
            if free < n:
                raise UnexpectedAdmissionError(
                    f"Allocate failed due to requested number of devices unavailable for {r}. "
                    f"Requested: {n}, Available: {free}, which is unexpected")
        out: dict[str, list[str]] = {}
        for r, n in wanted.items():
            used = self._in_use[r]
            ids = [d for d, ok in self.devices[r].items() if ok and d not in used][:n]
            used.update(ids)
            out[r] = ids
        if out:
            self.allocations[key] = out
        return out

    def env(self, pod_uid: str, container: str) -> dict[str, str]:
        """The environment the device plugins' Allocate responses add to the container."""
        alloc = self.allocations.get((pod_uid, container)) or {}
        return {DEVICE_ENV[r]: ",".join(ids) for r, ids in alloc.items() if r in DEVICE_ENV}

    def free_pod(self, pod_uid: str) -> None:
        for key in [k for k in self.allocations if k[0] == pod_uid]:
            for r, ids in self.allocations.pop(key).items():
                self._in_use[r].difference_update(ids)

    def in_use(self, resource: str) -> int:
        return len(self._in_use.get(resource, ()))
