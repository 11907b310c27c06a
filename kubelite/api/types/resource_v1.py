"""Generated msgspec Structs for resource/v1 (Kubernetes 1.37). DO NOT EDIT.

Regenerate with ``python tools/gen_api.py``; see kubelite/api/types/_base.py for the
conventions (every field optional, exact JSON names, unknown fields rejected)."""

from __future__ import annotations

from functools import partial
from typing import Any

import msgspec

from kubelite.api.types import core_v1
from kubelite.api.types import meta_v1
from kubelite.api.types._base import K8sStruct, Quantity

__all__ = [
    "AllocatedDeviceStatus", "AllocationResult", "CELDeviceSelector", "CapacityRequestPolicy",
    "CapacityRequestPolicyRange", "CapacityRequirements", "Counter", "CounterSet", "Device",
    "DeviceAllocationConfiguration", "DeviceAllocationResult", "DeviceAttribute", "DeviceCapacity",
    "DeviceClaim", "DeviceClaimConfiguration", "DeviceClass", "DeviceClassConfiguration",
    "DeviceClassSpec", "DeviceConstraint", "DeviceCounterConsumption", "DeviceDerivedAttribute",
    "DeviceRequest", "DeviceRequestAllocationResult", "DeviceSelector", "DeviceSubRequest",
    "DeviceTaint", "DeviceToleration", "ExactDeviceRequest", "NetworkDeviceData",
    "NodeAllocatableMapping", "NodeAllocatableOverhead", "NodeAllocatableResource",
    "OpaqueDeviceConfiguration", "ResourceClaim", "ResourceClaimConsumerReference",
    "ResourceClaimSpec", "ResourceClaimStatus", "ResourceClaimTemplate",
    "ResourceClaimTemplateSpec", "ResourcePool", "ResourceSlice", "ResourceSliceSpec"
]


class AllocatedDeviceStatus(K8sStruct, kw_only=True):
    """AllocatedDeviceStatus contains the status of an allocated device, if the driver chooses to report it."""

    conditions: list[meta_v1.Condition] | None = None
    data: dict[str, Any] | None = None
    device: str | None = None
    driver: str | None = None
    network_data: NetworkDeviceData | None = msgspec.field(default=None, name="networkData")
    pool: str | None = None
    share_id: str | None = msgspec.field(default=None, name="shareID")


class AllocationResult(K8sStruct, kw_only=True):
    """AllocationResult contains attributes of an allocated resource."""

    allocation_timestamp: str | None = msgspec.field(default=None, name="allocationTimestamp")
    devices: DeviceAllocationResult | None = None
    node_selector: core_v1.NodeSelector | None = msgspec.field(default=None, name="nodeSelector")


class CELDeviceSelector(K8sStruct, kw_only=True):
    """CELDeviceSelector contains a CEL expression for selecting a device."""

    expression: str | None = None


class CapacityRequestPolicy(K8sStruct, kw_only=True):
    """CapacityRequestPolicy defines how requests consume device capacity."""

    default: Quantity | None = None
    valid_range: CapacityRequestPolicyRange | None = msgspec.field(default=None, name="validRange")
    valid_values: list[Quantity] | None = msgspec.field(default=None, name="validValues")


class CapacityRequestPolicyRange(K8sStruct, kw_only=True):
    """CapacityRequestPolicyRange defines a valid range for consumable capacity values."""

    max: Quantity | None = None
    min: Quantity | None = None
    step: Quantity | None = None


class CapacityRequirements(K8sStruct, kw_only=True):
    """CapacityRequirements defines the capacity requirements for a specific device request."""

    requests: dict[str, Quantity] | None = None


class Counter(K8sStruct, kw_only=True):
    """Counter describes a quantity associated with a device."""

    value: Quantity | None = None


class CounterSet(K8sStruct, kw_only=True):
    """CounterSet defines a named set of counters that are available to be used by devices defined in the ResourcePool."""

    counters: dict[str, Counter] | None = None
    name: str | None = None


class Device(K8sStruct, kw_only=True):
    """Device represents one individual hardware instance that can be selected based on its attributes."""

    all_nodes: bool | None = msgspec.field(default=None, name="allNodes")
    allow_multiple_allocations: bool | None = msgspec.field(default=None, name="allowMultipleAllocations")
    attributes: dict[str, DeviceAttribute] | None = None
    binding_conditions: list[str] | None = msgspec.field(default=None, name="bindingConditions")
    binding_failure_conditions: list[str] | None = msgspec.field(default=None, name="bindingFailureConditions")
    binds_to_node: bool | None = msgspec.field(default=None, name="bindsToNode")
    capacity: dict[str, DeviceCapacity] | None = None
    consumes_counters: list[DeviceCounterConsumption] | None = msgspec.field(default=None, name="consumesCounters")
    name: str | None = None
    node_allocatable_resources: dict[str, NodeAllocatableResource] | None = msgspec.field(default=None, name="nodeAllocatableResources")
    node_name: str | None = msgspec.field(default=None, name="nodeName")
    node_selector: core_v1.NodeSelector | None = msgspec.field(default=None, name="nodeSelector")
    taints: list[DeviceTaint] | None = None


class DeviceAllocationConfiguration(K8sStruct, kw_only=True):
    """DeviceAllocationConfiguration gets embedded in an AllocationResult."""

    opaque: OpaqueDeviceConfiguration | None = None
    requests: list[str] | None = None
    source: str | None = None


class DeviceAllocationResult(K8sStruct, kw_only=True):
    """DeviceAllocationResult is the result of allocating devices."""

    config: list[DeviceAllocationConfiguration] | None = None
    results: list[DeviceRequestAllocationResult] | None = None


class DeviceAttribute(K8sStruct, kw_only=True):
    """DeviceAttribute must have exactly one field set."""

    bool_: bool | None = msgspec.field(default=None, name="bool")
    bools: list[bool] | None = None
    int_: int | None = msgspec.field(default=None, name="int")
    ints: list[int] | None = None
    string: str | None = None
    strings: list[str] | None = None
    version: str | None = None
    versions: list[str] | None = None


class DeviceCapacity(K8sStruct, kw_only=True):
    """DeviceCapacity describes a quantity associated with a device."""

    request_policy: CapacityRequestPolicy | None = msgspec.field(default=None, name="requestPolicy")
    value: Quantity | None = None


class DeviceClaim(K8sStruct, kw_only=True):
    """DeviceClaim defines how to request devices with a ResourceClaim."""

    config: list[DeviceClaimConfiguration] | None = None
    constraints: list[DeviceConstraint] | None = None
    requests: list[DeviceRequest] | None = None


class DeviceClaimConfiguration(K8sStruct, kw_only=True):
    """DeviceClaimConfiguration is used for configuration parameters in DeviceClaim."""

    opaque: OpaqueDeviceConfiguration | None = None
    requests: list[str] | None = None


class DeviceClass(K8sStruct, kw_only=True):
    """DeviceClass is a vendor- or admin-provided resource that contains device configuration and selectors."""

    api_version: str = msgspec.field(default_factory=partial(str, "resource.k8s.io/v1"), name="apiVersion")
    kind: str = msgspec.field(default_factory=partial(str, "DeviceClass"))
    metadata: meta_v1.ObjectMeta = msgspec.field(default_factory=meta_v1.ObjectMeta)
    spec: DeviceClassSpec | None = None


class DeviceClassConfiguration(K8sStruct, kw_only=True):
    """DeviceClassConfiguration is used in DeviceClass."""

    opaque: OpaqueDeviceConfiguration | None = None


class DeviceClassSpec(K8sStruct, kw_only=True):
    """DeviceClassSpec is used in a [DeviceClass] to define what can be allocated and how to configure it."""

    config: list[DeviceClassConfiguration] | None = None
    extended_resource_name: str | None = msgspec.field(default=None, name="extendedResourceName")
    selectors: list[DeviceSelector] | None = None


class DeviceConstraint(K8sStruct, kw_only=True):
    """DeviceConstraint must have exactly one field set besides Requests."""

    distinct_attribute: str | None = msgspec.field(default=None, name="distinctAttribute")
    match_attribute: str | None = msgspec.field(default=None, name="matchAttribute")
    requests: list[str] | None = None


class DeviceCounterConsumption(K8sStruct, kw_only=True):
    """DeviceCounterConsumption defines a set of counters that a device will consume from a CounterSet."""

    compatibility_groups: list[str] | None = msgspec.field(default=None, name="compatibilityGroups")
    counter_set: str | None = msgspec.field(default=None, name="counterSet")
    counters: dict[str, Counter] | None = None


class DeviceDerivedAttribute(K8sStruct, kw_only=True):
    """DeviceDerivedAttribute defines a derived attribute computed via CEL."""

    expression: str | None = None
    name: str | None = None


class DeviceRequest(K8sStruct, kw_only=True):
    """DeviceRequest is a request for devices required for a claim."""

    exactly: ExactDeviceRequest | None = None
    first_available: list[DeviceSubRequest] | None = msgspec.field(default=None, name="firstAvailable")
    name: str | None = None


class DeviceRequestAllocationResult(K8sStruct, kw_only=True):
    """DeviceRequestAllocationResult contains the allocation result for one request."""

    admin_access: bool | None = msgspec.field(default=None, name="adminAccess")
    binding_conditions: list[str] | None = msgspec.field(default=None, name="bindingConditions")
    binding_failure_conditions: list[str] | None = msgspec.field(default=None, name="bindingFailureConditions")
    consumed_capacity: dict[str, Quantity] | None = msgspec.field(default=None, name="consumedCapacity")
    device: str | None = None
    driver: str | None = None
    pool: str | None = None
    request: str | None = None
    share_id: str | None = msgspec.field(default=None, name="shareID")
    skip_node_operations: list[str] | None = msgspec.field(default=None, name="skipNodeOperations")
    tolerations: list[DeviceToleration] | None = None


class DeviceSelector(K8sStruct, kw_only=True):
    """DeviceSelector must have exactly one field set."""

    cel: CELDeviceSelector | None = None


class DeviceSubRequest(K8sStruct, kw_only=True):
    """DeviceSubRequest describes a request for device provided in the claim.spec.devices.requests[].firstAvailable array."""

    allocation_mode: str | None = msgspec.field(default=None, name="allocationMode")
    capacity: CapacityRequirements | None = None
    count: int | None = None
    derived_attributes: list[DeviceDerivedAttribute] | None = msgspec.field(default=None, name="derivedAttributes")
    device_class_name: str | None = msgspec.field(default=None, name="deviceClassName")
    name: str | None = None
    selectors: list[DeviceSelector] | None = None
    tolerations: list[DeviceToleration] | None = None


class DeviceTaint(K8sStruct, kw_only=True):
    """The device this taint is attached to has the "effect" on any claim which does not tolerate the taint and, through the claim, to pods using the claim."""

    effect: str | None = None
    key: str | None = None
    time_added: str | None = msgspec.field(default=None, name="timeAdded")
    value: str | None = None


class DeviceToleration(K8sStruct, kw_only=True):
    """The ResourceClaim this DeviceToleration is attached to tolerates any taint that matches the triple <key,value,effect> using the matching operator <operator>."""

    effect: str | None = None
    key: str | None = None
    operator: str | None = None
    toleration_seconds: int | None = msgspec.field(default=None, name="tolerationSeconds")
    value: str | None = None


class ExactDeviceRequest(K8sStruct, kw_only=True):
    """ExactDeviceRequest is a request for one or more identical devices."""

    admin_access: bool | None = msgspec.field(default=None, name="adminAccess")
    allocation_mode: str | None = msgspec.field(default=None, name="allocationMode")
    capacity: CapacityRequirements | None = None
    count: int | None = None
    derived_attributes: list[DeviceDerivedAttribute] | None = msgspec.field(default=None, name="derivedAttributes")
    device_class_name: str | None = msgspec.field(default=None, name="deviceClassName")
    selectors: list[DeviceSelector] | None = None
    tolerations: list[DeviceToleration] | None = None


class NetworkDeviceData(K8sStruct, kw_only=True):
    """NetworkDeviceData provides network-related details for the allocated device."""

    hardware_address: str | None = msgspec.field(default=None, name="hardwareAddress")
    interface_name: str | None = msgspec.field(default=None, name="interfaceName")
    ips: list[str] | None = None


class NodeAllocatableMapping(K8sStruct, kw_only=True):
    """NodeAllocatableMapping defines how a DRA allocation directly translates into a node allocatable resource quantity."""

    capacity_key: str | None = msgspec.field(default=None, name="capacityKey")
    capacity_multiplier: Quantity | None = msgspec.field(default=None, name="capacityMultiplier")
    device_multiplier: Quantity | None = msgspec.field(default=None, name="deviceMultiplier")


class NodeAllocatableOverhead(K8sStruct, kw_only=True):
    """NodeAllocatableOverhead defines auxiliary resource overheads incurred when allocating a device."""

    per_container: Quantity | None = msgspec.field(default=None, name="perContainer")
    per_pod: Quantity | None = msgspec.field(default=None, name="perPod")


class NodeAllocatableResource(K8sStruct, kw_only=True):
    """NodeAllocatableResource defines the translation between the DRA device/capacity units requested to the corresponding quantity of the node allocatable resource."""

    mapping: NodeAllocatableMapping | None = None
    overhead: NodeAllocatableOverhead | None = None


class OpaqueDeviceConfiguration(K8sStruct, kw_only=True):
    """OpaqueDeviceConfiguration contains configuration parameters for a driver in a format defined by the driver vendor."""

    driver: str | None = None
    parameters: dict[str, Any] | None = None


class ResourceClaim(K8sStruct, kw_only=True):
    """ResourceClaim describes a request for access to resources in the cluster, for use by workloads."""

    api_version: str = msgspec.field(default_factory=partial(str, "resource.k8s.io/v1"), name="apiVersion")
    kind: str = msgspec.field(default_factory=partial(str, "ResourceClaim"))
    metadata: meta_v1.ObjectMeta = msgspec.field(default_factory=meta_v1.ObjectMeta)
    spec: ResourceClaimSpec | None = None
    status: ResourceClaimStatus | None = None


class ResourceClaimConsumerReference(K8sStruct, kw_only=True):
    """ResourceClaimConsumerReference contains enough information to let you locate the consumer of a ResourceClaim."""

    api_group: str | None = msgspec.field(default=None, name="apiGroup")
    name: str | None = None
    resource: str | None = None
    uid: str | None = None


class ResourceClaimSpec(K8sStruct, kw_only=True):
    """ResourceClaimSpec defines what is being requested in a ResourceClaim and how to configure it."""

    devices: DeviceClaim | None = None


class ResourceClaimStatus(K8sStruct, kw_only=True):
    """ResourceClaimStatus tracks whether the resource has been allocated and what the result of that was."""

    allocation: AllocationResult | None = None
    devices: list[AllocatedDeviceStatus] | None = None
    reserved_for: list[ResourceClaimConsumerReference] | None = msgspec.field(default=None, name="reservedFor")


class ResourceClaimTemplate(K8sStruct, kw_only=True):
    """ResourceClaimTemplate is used to produce ResourceClaim objects."""

    api_version: str = msgspec.field(default_factory=partial(str, "resource.k8s.io/v1"), name="apiVersion")
    kind: str = msgspec.field(default_factory=partial(str, "ResourceClaimTemplate"))
    metadata: meta_v1.ObjectMeta = msgspec.field(default_factory=meta_v1.ObjectMeta)
    spec: ResourceClaimTemplateSpec | None = None


class ResourceClaimTemplateSpec(K8sStruct, kw_only=True):
    """ResourceClaimTemplateSpec contains the metadata and fields for a ResourceClaim."""

    metadata: meta_v1.ObjectMeta | None = None
    spec: ResourceClaimSpec | None = None


class ResourcePool(K8sStruct, kw_only=True):
    """ResourcePool describes the pool that ResourceSlices belong to."""

    generation: int | None = None
    name: str | None = None
    resource_slice_count: int | None = msgspec.field(default=None, name="resourceSliceCount")


class ResourceSlice(K8sStruct, kw_only=True):
    """ResourceSlice represents one or more resources in a pool of similar resources, managed by a common driver."""

    api_version: str = msgspec.field(default_factory=partial(str, "resource.k8s.io/v1"), name="apiVersion")
    kind: str = msgspec.field(default_factory=partial(str, "ResourceSlice"))
    metadata: meta_v1.ObjectMeta = msgspec.field(default_factory=meta_v1.ObjectMeta)
    spec: ResourceSliceSpec | None = None


class ResourceSliceSpec(K8sStruct, kw_only=True):
    """ResourceSliceSpec contains the information published by the driver in one ResourceSlice."""

    all_nodes: bool | None = msgspec.field(default=None, name="allNodes")
    devices: list[Device] | None = None
    driver: str | None = None
    node_name: str | None = msgspec.field(default=None, name="nodeName")
    node_selector: core_v1.NodeSelector | None = msgspec.field(default=None, name="nodeSelector")
    partition_type_attribute: str | None = msgspec.field(default=None, name="partitionTypeAttribute")
    per_device_node_selection: bool | None = msgspec.field(default=None, name="perDeviceNodeSelection")
    pool: ResourcePool | None = None
    shared_counters: list[CounterSet] | None = msgspec.field(default=None, name="sharedCounters")
    skip_node_operations: list[str] | None = msgspec.field(default=None, name="skipNodeOperations")
