"""The device manager: extended resources (``nvidia.com/gpu``, ...) advertised by device plugins.

Follows ``pkg/kubelet/cm/devicemanager/manager.go``: ``PluginConnected`` / ``PluginDisconnected``,
``genericDeviceUpdateCallback`` (a plugin's ListAndWatch response replaces the resource's device list and
health), ``GetCapacity``, ``Allocate`` / ``devicesToAllocate`` (with the init containers' devices reused
by the app containers, ``devicesToReuse``), ``sanitizeNodeAllocatable``, ``UpdateAllocatedResourcesStatus``,
and the NVIDIA device plugin's ``Allocate`` response (``NVIDIA_VISIBLE_DEVICES``).

Guarantees:
- A device is allocated to at most one pod at a time (an init container's devices pass to the pod's app
  containers, as upstream's ``devicesToReuse``). Allocation is per container, all or nothing, and
  idempotent: asking again for the same ``(pod uid, container)`` returns the same IDs.
- Only healthy devices are allocated. ``capacity`` counts every device a registered plugin reports,
  ``allocatable`` only the healthy ones. A plugin that disconnects turns all its devices unhealthy
  (allocatable 0); ``ENDPOINT_STOP_GRACE`` (5 min) later its resource is deleted and ``capacity`` reports it
  as deleted, which the node status writes as ``0`` (``nodestatus.MachineInfo``: "Set capacity for removed
  resource to 0 on device removal").
- Nothing here kills a pod: a pod whose device turned unhealthy or vanished keeps it (its container
  status reports the health); the devices of a pod return only by :meth:`DeviceManager.free_pod`, which
  the kubelet calls when the pod's containers have terminated for good (pod terminal or removed).
- Allocation errors carry upstream's texts; the kubelet rejects the pod with ``UnexpectedAdmissionError``
  and ``"Allocate failed due to <text>, which is unexpected"`` (``admission.GetPodAdmitResult``).
- Device IDs are deterministic: ``<prefix>-<node>-<index>``, so seeded runs replay. Plain sync code with
  no clock of its own: callers pass ``now``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["DEVICE_ENV", "ENDPOINT_STOP_GRACE", "DeviceManager", "UnexpectedAdmissionError", "device_ids"]

#: the environment variable each plugin's Allocate response sets, by resource name
DEVICE_ENV: dict[str, str] = {"nvidia.com/gpu": "NVIDIA_VISIBLE_DEVICES", "amd.com/gpu": "AMD_VISIBLE_DEVICES"}
#: endpointStopGracePeriod: how long a disconnected plugin's resource stays in the node's capacity
ENDPOINT_STOP_GRACE = 300.0


class UnexpectedAdmissionError(Exception):
    """Allocation failed although admission said the resources fit (upstream's reason name)."""

    def __init__(self, cause: str) -> None:
        super().__init__(f"Allocate failed due to {cause}, which is unexpected")
        self.cause = cause


def device_ids(node_name: str, resource: str, count: int) -> list[str]:
    """The IDs a node's plugin for ``resource`` reports for its first ``count`` devices."""
    prefix = "GPU" if resource.endswith("/gpu") else resource.rsplit("/", 1)[-1].upper()
    return [f"{prefix}-{node_name}-{i}" for i in range(count)]


class DeviceManager:
    """Device inventory and allocations of one node. Mutated only by its kubelet (and fault switches)."""

    def __init__(self, node_name: str, devices: Mapping[str, int]) -> None:
        self.node_name = node_name
        # resource -> device id -> healthy (allDevices with health); insertion order is allocation preference
        self.devices: dict[str, dict[str, bool]] = {}
        # registered endpoints: resource -> when the plugin disconnected (None while connected)
        self._endpoints: dict[str, float | None] = {}
        # (pod uid, container) -> resource -> ids (podDevices)
        self.allocations: dict[tuple[str, str], dict[str, list[str]]] = {}
        self._in_use: dict[str, set[str]] = {}  # allocatedDevices
        # pod uid -> resource -> ids its init containers hold, for its app containers (devicesToReuse)
        self._reuse: dict[str, dict[str, list[str]]] = {}
        for resource, count in devices.items():
            self.plugin_connected(resource, count)

    # --- the plugins' side ---
    def plugin_connected(self, resource: str, count: int | None = None) -> None:
        """A plugin registers ``resource`` (``PluginConnected``) and lists ``count`` healthy devices (its
        first ListAndWatch response; ``None`` keeps the devices known from before a disconnect)."""
        self._endpoints[resource] = None
        self._in_use.setdefault(resource, set())
        if count is not None:
            self.list_and_watch(resource, {d: True for d in device_ids(self.node_name, resource, count)})
        else:
            self.devices.setdefault(resource, {})

    def plugin_disconnected(self, resource: str, now: float) -> None:
        """``PluginDisconnected``: every device of ``resource`` turns unhealthy and the grace period starts."""
        if resource not in self._endpoints:
            raise KeyError(resource)
        # markResourceUnhealthy empties the healthy set; allDevices keeps the plugin's last reported health,
        # which is what container statuses go on showing
        self._endpoints[resource] = now

    def list_and_watch(self, resource: str, devices: Mapping[str, bool]) -> list[str]:
        """A ListAndWatch response: ``devices`` (id -> healthy) replaces the resource's list. Returns the
        uids of pods holding a device whose health changed or that (re)appeared, for a status update."""
        old = self.devices.get(resource, {})
        self.devices[resource] = dict(devices)
        changed = [d for d, ok in devices.items() if old.get(d) != ok]
        return self.holders(resource, changed)

    def set_health(self, device_id: str, healthy: bool) -> list[str]:
        """The plugin reports one device (un)healthy. Returns the uids of the pods holding it."""
        for resource, ids in self.devices.items():
            if device_id in ids:
                return self.list_and_watch(resource, {**ids, device_id: healthy})
        raise KeyError(device_id)

    def holders(self, resource: str, ids: Iterable[str] | None = None) -> list[str]:
        """The uids of the pods holding any of ``ids`` (default: any device of ``resource``)."""
        if ids is None:
            return sorted({uid for (uid, _), alloc in self.allocations.items() if alloc.get(resource)})
        wanted = set(ids)
        return sorted({uid for (uid, _), alloc in self.allocations.items() if wanted & set(alloc.get(resource, ()))})

    # --- what the node status reports ---
    def _connected(self, resource: str) -> bool:
        return resource in self._endpoints and self._endpoints[resource] is None

    def _healthy(self, resource: str) -> list[str]:
        if not self._connected(resource):
            return []
        return [d for d, ok in self.devices.get(resource, {}).items() if ok]

    def get_capacity(self, now: float) -> tuple[dict[str, int], dict[str, int], list[str]]:
        """``GetCapacity``: (capacity, allocatable, deleted resources). A resource whose plugin has been
        gone for ``ENDPOINT_STOP_GRACE`` is deleted here, once, and reported in the third list."""
        capacity: dict[str, int] = {}
        allocatable: dict[str, int] = {}
        deleted: list[str] = []
        for resource, stopped in list(self._endpoints.items()):
            if stopped is not None and now - stopped >= ENDPOINT_STOP_GRACE:
                del self._endpoints[resource]
                self.devices.pop(resource, None)
                deleted.append(resource)
                continue
            capacity[resource] = len(self.devices.get(resource, ()))
            allocatable[resource] = len(self._healthy(resource))
        return capacity, allocatable, deleted

    def resources(self) -> list[str]:
        return list(self._endpoints)

    def known(self, resource: str) -> bool:
        """``isDevicePluginResource``: registered, or previously allocated."""
        return resource in self._endpoints or bool(self._in_use.get(resource))

    def capacity(self) -> dict[str, int]:
        return {r: len(self.devices.get(r, ())) for r in self._endpoints}

    def allocatable(self) -> dict[str, int]:
        return {r: len(self._healthy(r)) for r in self._endpoints}

    def free_count(self, resource: str) -> int:
        used = self._in_use.get(resource, set())
        return sum(1 for d in self._healthy(resource) if d not in used)

    # --- admission ---
    def _devices_to_allocate(self, resource: str, needed: int,
                             reusable: list[str]) -> list[str]:
        """``devicesToAllocate`` for a container not allocated yet, with upstream's errors in its order."""
        if resource not in self._endpoints:
            raise UnexpectedAdmissionError(f"cannot allocate unregistered device {resource}")
        healthy = self._healthy(resource)
        if not healthy:
            raise UnexpectedAdmissionError(f"no healthy devices present; cannot allocate unhealthy devices {resource}")
        out = [d for d in reusable if d in healthy][:needed]
        if len(out) == needed:
            return out
        used = self._in_use[resource]
        available = [d for d in healthy if d not in used and d not in out]
        if len(available) < needed - len(out):
            raise UnexpectedAdmissionError(
                f"requested number of devices unavailable for {resource}. Requested: {needed - len(out)}, "
                f"Available: {len(available)}")
        return out + available[:needed - len(out)]

    def allocate_pod(self, pod_uid: str, containers: Iterable[tuple[str, bool, bool, Mapping[str, int]]]) -> None:
        """``Allocate`` for every container of a pod in spec order (init containers first): ``containers``
        yields (name, is_init, is_sidecar, device limits). All or nothing: on an error the pod holds nothing."""
        reuse = self._reuse.setdefault(pod_uid, {})
        try:
            for name, is_init, sidecar, requests in containers:
                self._allocate_container(pod_uid, name, requests, reuse)
                alloc = self.allocations.get((pod_uid, name)) or {}
                for r, ids in alloc.items():
                    pool = reuse.setdefault(r, [])
                    if is_init and not sidecar:  # addContainerAllocatedResources
                        pool.extend(d for d in ids if d not in pool)
                    else:  # removeContainerAllocatedResources
                        reuse[r] = [d for d in pool if d not in ids]
        except UnexpectedAdmissionError:
            self.free_pod(pod_uid)
            raise
        finally:
            self._reuse.pop(pod_uid, None)

    def _allocate_container(self, pod_uid: str, container: str, requests: Mapping[str, int],
                            reuse: Mapping[str, list[str]]) -> dict[str, list[str]]:
        key = (pod_uid, container)
        have = self.allocations.get(key)
        if have is not None:
            return have
        out: dict[str, list[str]] = {}
        for r, n in requests.items():
            if n > 0 and self.known(r):
                out[r] = self._devices_to_allocate(r, n, list(reuse.get(r, ())))
        for r, ids in out.items():
            self._in_use.setdefault(r, set()).update(ids)
        if out:
            self.allocations[key] = out
        return out

    def allocate(self, pod_uid: str, container: str, requests: Mapping[str, int]) -> dict[str, list[str]]:
        """Allocate ``requests`` (resource -> count, only device resources are looked at) to one container."""
        return self._allocate_container(pod_uid, container, requests, {})

    def holds(self, pod_uid: str) -> bool:
        return any(k[0] == pod_uid for k in self.allocations)

    def sanitize_allocatable(self, allocatable: dict[str, int]) -> dict[str, int]:
        """``sanitizeNodeAllocatable``: allocatable raised to at least what is allocated, so pods already on
        the node pass admission even after their plugin failed. Returns a new dict when it changes."""
        out = allocatable
        for r, used in self._in_use.items():
            if used and allocatable.get(r, 0) < len(used):
                if out is allocatable:
                    out = dict(allocatable)
                out[r] = len(used)
        return out

    # --- containers ---
    def env(self, pod_uid: str, container: str) -> dict[str, str]:
        """The environment the device plugins' Allocate responses add to the container."""
        alloc = self.allocations.get((pod_uid, container)) or {}
        return {DEVICE_ENV[r]: ",".join(ids) for r, ids in alloc.items() if r in DEVICE_ENV}

    def resource_status(self, pod_uid: str, container: str) -> list[dict[str, Any]] | None:
        """``allocatedResourcesStatus`` of one app container (``UpdateAllocatedResourcesStatus``): each
        allocated device with the health its plugin last reported (``Healthy`` when it no longer lists it)."""
        alloc = self.allocations.get((pod_uid, container))
        if not alloc:
            return None
        out = []
        for r, ids in alloc.items():
            known = self.devices.get(r, {})
            out.append({"name": r, "resources": [
                {"resourceID": d, "health": "Healthy" if known.get(d, True) else "Unhealthy"} for d in ids]})
        return out

    def free_pod(self, pod_uid: str) -> None:
        for key in [k for k in self.allocations if k[0] == pod_uid]:
            for r, ids in self.allocations.pop(key).items():
                self._in_use[r].difference_update(ids)

    def in_use(self, resource: str) -> int:
        return len(self._in_use.get(resource, ()))
