"""Generated msgspec Structs for core/v1 (Kubernetes 1.37). DO NOT EDIT.

Regenerate with ``python tools/gen_api.py``; see kubelite/api/types/_base.py for the
conventions (every field optional, exact JSON names, unknown fields rejected)."""

from __future__ import annotations

from functools import partial

import msgspec

from kubelite.api.types import meta_v1
from kubelite.api.types._base import IntOrString, K8sStruct, Quantity

__all__ = [
    "AWSElasticBlockStoreVolumeSource", "Affinity", "AppArmorProfile", "AttachedVolume",
    "AzureDiskVolumeSource", "AzureFilePersistentVolumeSource", "AzureFileVolumeSource", "Binding",
    "CSIPersistentVolumeSource", "CSIVolumeSource", "Capabilities", "CephFSPersistentVolumeSource",
    "CephFSVolumeSource", "CinderPersistentVolumeSource", "CinderVolumeSource", "ClientIPConfig",
    "ClusterTrustBundleProjection", "ComponentCondition", "ComponentStatus", "ConfigMap",
    "ConfigMapEnvSource", "ConfigMapKeySelector", "ConfigMapNodeConfigSource",
    "ConfigMapProjection", "ConfigMapVolumeSource", "Container", "ContainerExtendedResourceRequest",
    "ContainerImage", "ContainerPort", "ContainerResizePolicy", "ContainerRestartRule",
    "ContainerRestartRuleOnExitCodes", "ContainerState", "ContainerStateRunning",
    "ContainerStateTerminated", "ContainerStateWaiting", "ContainerStatus", "ContainerUser",
    "DaemonEndpoint", "DownwardAPIProjection", "DownwardAPIVolumeFile", "DownwardAPIVolumeSource",
    "EmptyDirVolumeSource", "EndpointAddress", "EndpointPort", "EndpointSubset", "Endpoints",
    "EnvFromSource", "EnvVar", "EnvVarSource", "EphemeralContainer", "EphemeralVolumeSource",
    "Event", "EventSeries", "EventSource", "EvictionResponder", "ExecAction", "FCVolumeSource",
    "FileKeySelector", "FlexPersistentVolumeSource", "FlexVolumeSource", "FlockerVolumeSource",
    "GCEPersistentDiskVolumeSource", "GRPCAction", "GitRepoVolumeSource",
    "GlusterfsPersistentVolumeSource", "GlusterfsVolumeSource", "HTTPGetAction", "HTTPHeader",
    "HostAlias", "HostIP", "HostPathVolumeSource", "ISCSIPersistentVolumeSource",
    "ISCSIVolumeSource", "ImageVolumeSource", "ImageVolumeStatus", "KeyToPath", "Lifecycle",
    "LifecycleHandler", "LimitRange", "LimitRangeItem", "LimitRangeSpec", "LinuxContainerUser",
    "LoadBalancerIngress", "LoadBalancerStatus", "LocalObjectReference", "LocalVolumeSource",
    "ModifyVolumeStatus", "NFSVolumeSource", "Namespace", "NamespaceCondition", "NamespaceSpec",
    "NamespaceStatus", "Node", "NodeAddress", "NodeAffinity", "NodeAllocatableMappedResources",
    "NodeAllocatableOverheadResources", "NodeAllocatableResourceClaimStatus", "NodeCondition",
    "NodeConfigSource", "NodeConfigStatus", "NodeDaemonEndpoints", "NodeFeatures",
    "NodePodPreemptionPolicy", "NodeRuntimeHandler", "NodeRuntimeHandlerFeatures", "NodeSelector",
    "NodeSelectorRequirement", "NodeSelectorTerm", "NodeSpec", "NodeStatus", "NodeSwapStatus",
    "NodeSystemInfo", "ObjectFieldSelector", "ObjectReference", "PersistentVolume",
    "PersistentVolumeClaim", "PersistentVolumeClaimCondition", "PersistentVolumeClaimSpec",
    "PersistentVolumeClaimStatus", "PersistentVolumeClaimTemplate",
    "PersistentVolumeClaimVolumeSource", "PersistentVolumeSpec", "PersistentVolumeStatus",
    "PhotonPersistentDiskVolumeSource", "Pod", "PodAffinity", "PodAffinityTerm", "PodAntiAffinity",
    "PodCertificateProjection", "PodCondition", "PodDNSConfig", "PodDNSConfigOption",
    "PodExtendedResourceClaimStatus", "PodIP", "PodOS", "PodReadinessGate", "PodResourceClaim",
    "PodResourceClaimStatus", "PodSchedulingGate", "PodSchedulingGroup", "PodSecurityContext",
    "PodSpec", "PodStatus", "PodTemplateSpec", "PodVolumeHealth", "PortStatus",
    "PortworxVolumeSource", "PreferredSchedulingTerm", "Probe", "ProjectedVolumeSource",
    "QuobyteVolumeSource", "RBDPersistentVolumeSource", "RBDVolumeSource", "ReplicationController",
    "ReplicationControllerCondition", "ReplicationControllerSpec", "ReplicationControllerStatus",
    "ResourceClaim", "ResourceFieldSelector", "ResourceHealth", "ResourceQuota",
    "ResourceQuotaSpec", "ResourceQuotaStatus", "ResourceRequirements", "ResourceStatus",
    "SELinuxOptions", "ScaleIOPersistentVolumeSource", "ScaleIOVolumeSource", "ScopeSelector",
    "ScopedResourceSelectorRequirement", "SeccompProfile", "Secret", "SecretEnvSource",
    "SecretKeySelector", "SecretProjection", "SecretReference", "SecretVolumeSource",
    "SecurityContext", "Service", "ServiceAccount", "ServiceAccountTokenProjection", "ServicePort",
    "ServiceSpec", "ServiceStatus", "SessionAffinityConfig", "SleepAction",
    "StorageOSPersistentVolumeSource", "StorageOSVolumeSource", "Sysctl", "TCPSocketAction",
    "Taint", "Toleration", "TopologySelectorLabelRequirement", "TopologySelectorTerm",
    "TopologySpreadConstraint", "TypedLocalObjectReference", "TypedObjectReference", "Volume",
    "VolumeDevice", "VolumeHealthCondition", "VolumeHealthStatus", "VolumeMount",
    "VolumeMountStatus", "VolumeNodeAffinity", "VolumeProjection", "VolumeResourceRequirements",
    "VolumeStatus", "VsphereVirtualDiskVolumeSource", "WeightedPodAffinityTerm",
    "WindowsSecurityContextOptions"
]


class AWSElasticBlockStoreVolumeSource(K8sStruct, kw_only=True):
    """Represents a Persistent Disk resource in AWS."""

    fs_type: str | None = msgspec.field(default=None, name="fsType")
    partition: int | None = None
    read_only: bool | None = msgspec.field(default=None, name="readOnly")
    volume_id: str | None = msgspec.field(default=None, name="volumeID")


class Affinity(K8sStruct, kw_only=True):
    """Affinity is a group of affinity scheduling rules."""

    node_affinity: NodeAffinity | None = msgspec.field(default=None, name="nodeAffinity")
    pod_affinity: PodAffinity | None = msgspec.field(default=None, name="podAffinity")
    pod_anti_affinity: PodAntiAffinity | None = msgspec.field(default=None, name="podAntiAffinity")


class AppArmorProfile(K8sStruct, kw_only=True):
    """AppArmorProfile defines a pod or container's AppArmor settings."""

    localhost_profile: str | None = msgspec.field(default=None, name="localhostProfile")
    type: str | None = None


class AttachedVolume(K8sStruct, kw_only=True):
    """AttachedVolume describes a volume attached to a node"""

    device_path: str | None = msgspec.field(default=None, name="devicePath")
    name: str | None = None


class AzureDiskVolumeSource(K8sStruct, kw_only=True):
    """AzureDisk represents an Azure Data Disk mount on the host and bind mount to the pod."""

    caching_mode: str | None = msgspec.field(default=None, name="cachingMode")
    disk_name: str | None = msgspec.field(default=None, name="diskName")
    disk_uri: str | None = msgspec.field(default=None, name="diskURI")
    fs_type: str | None = msgspec.field(default=None, name="fsType")
    kind: str | None = None
    read_only: bool | None = msgspec.field(default=None, name="readOnly")


class AzureFilePersistentVolumeSource(K8sStruct, kw_only=True):
    """AzureFile represents an Azure File Service mount on the host and bind mount to the pod."""

    read_only: bool | None = msgspec.field(default=None, name="readOnly")
    secret_name: str | None = msgspec.field(default=None, name="secretName")
    secret_namespace: str | None = msgspec.field(default=None, name="secretNamespace")
    share_name: str | None = msgspec.field(default=None, name="shareName")


class AzureFileVolumeSource(K8sStruct, kw_only=True):
    """AzureFile represents an Azure File Service mount on the host and bind mount to the pod."""

    read_only: bool | None = msgspec.field(default=None, name="readOnly")
    secret_name: str | None = msgspec.field(default=None, name="secretName")
    share_name: str | None = msgspec.field(default=None, name="shareName")


class Binding(K8sStruct, kw_only=True):
    """Binding ties one object to another; for example, a pod is bound to a node by a scheduler."""

    api_version: str = msgspec.field(default_factory=partial(str, "v1"), name="apiVersion")
    kind: str = msgspec.field(default_factory=partial(str, "Binding"))
    metadata: meta_v1.ObjectMeta = msgspec.field(default_factory=meta_v1.ObjectMeta)
    target: ObjectReference | None = None


class CSIPersistentVolumeSource(K8sStruct, kw_only=True):
    """Represents storage that is managed by an external CSI volume driver"""

    controller_expand_secret_ref: SecretReference | None = msgspec.field(default=None, name="controllerExpandSecretRef")
    controller_publish_secret_ref: SecretReference | None = msgspec.field(default=None, name="controllerPublishSecretRef")
    driver: str | None = None
    fs_type: str | None = msgspec.field(default=None, name="fsType")
    node_expand_secret_ref: SecretReference | None = msgspec.field(default=None, name="nodeExpandSecretRef")
    node_publish_secret_ref: SecretReference | None = msgspec.field(default=None, name="nodePublishSecretRef")
    node_stage_secret_ref: SecretReference | None = msgspec.field(default=None, name="nodeStageSecretRef")
    read_only: bool | None = msgspec.field(default=None, name="readOnly")
    volume_attributes: dict[str, str] | None = msgspec.field(default=None, name="volumeAttributes")
    volume_handle: str | None = msgspec.field(default=None, name="volumeHandle")


class CSIVolumeSource(K8sStruct, kw_only=True):
    """Represents a source location of a volume to mount, managed by an external CSI driver"""

    driver: str | None = None
    fs_type: str | None = msgspec.field(default=None, name="fsType")
    node_publish_secret_ref: LocalObjectReference | None = msgspec.field(default=None, name="nodePublishSecretRef")
    read_only: bool | None = msgspec.field(default=None, name="readOnly")
    volume_attributes: dict[str, str] | None = msgspec.field(default=None, name="volumeAttributes")


class Capabilities(K8sStruct, kw_only=True):
    """Adds and removes POSIX capabilities from running containers."""

    add: list[str] | None = None
    drop: list[str] | None = None


class CephFSPersistentVolumeSource(K8sStruct, kw_only=True):
    """Represents a Ceph Filesystem mount that lasts the lifetime of a pod Cephfs volumes do not support ownership management or SELinux relabeling."""

    monitors: list[str] | None = None
    path: str | None = None
    read_only: bool | None = msgspec.field(default=None, name="readOnly")
    secret_file: str | None = msgspec.field(default=None, name="secretFile")
    secret_ref: SecretReference | None = msgspec.field(default=None, name="secretRef")
    user: str | None = None


class CephFSVolumeSource(K8sStruct, kw_only=True):
    """Represents a Ceph Filesystem mount that lasts the lifetime of a pod Cephfs volumes do not support ownership management or SELinux relabeling."""

    monitors: list[str] | None = None
    path: str | None = None
    read_only: bool | None = msgspec.field(default=None, name="readOnly")
    secret_file: str | None = msgspec.field(default=None, name="secretFile")
    secret_ref: LocalObjectReference | None = msgspec.field(default=None, name="secretRef")
    user: str | None = None


class CinderPersistentVolumeSource(K8sStruct, kw_only=True):
    """Represents a cinder volume resource in Openstack."""

    fs_type: str | None = msgspec.field(default=None, name="fsType")
    read_only: bool | None = msgspec.field(default=None, name="readOnly")
    secret_ref: SecretReference | None = msgspec.field(default=None, name="secretRef")
    volume_id: str | None = msgspec.field(default=None, name="volumeID")


class CinderVolumeSource(K8sStruct, kw_only=True):
    """Represents a cinder volume resource in Openstack."""

    fs_type: str | None = msgspec.field(default=None, name="fsType")
    read_only: bool | None = msgspec.field(default=None, name="readOnly")
    secret_ref: LocalObjectReference | None = msgspec.field(default=None, name="secretRef")
    volume_id: str | None = msgspec.field(default=None, name="volumeID")


class ClientIPConfig(K8sStruct, kw_only=True):
    """ClientIPConfig represents the configurations of Client IP based session affinity."""

    timeout_seconds: int | None = msgspec.field(default=None, name="timeoutSeconds")


class ClusterTrustBundleProjection(K8sStruct, kw_only=True):
    """ClusterTrustBundleProjection describes how to select a set of ClusterTrustBundle objects and project their contents into the pod filesystem."""

    label_selector: meta_v1.LabelSelector | None = msgspec.field(default=None, name="labelSelector")
    name: str | None = None
    optional: bool | None = None
    path: str | None = None
    signer_name: str | None = msgspec.field(default=None, name="signerName")
    user: int | None = None


class ComponentCondition(K8sStruct, kw_only=True):
    """Information about the condition of a component."""

    error: str | None = None
    message: str | None = None
    status: str | None = None
    type: str | None = None


class ComponentStatus(K8sStruct, kw_only=True):
    """ComponentStatus (and ComponentStatusList) holds the cluster validation info."""

    api_version: str = msgspec.field(default_factory=partial(str, "v1"), name="apiVersion")
    kind: str = msgspec.field(default_factory=partial(str, "ComponentStatus"))
    metadata: meta_v1.ObjectMeta = msgspec.field(default_factory=meta_v1.ObjectMeta)
    conditions: list[ComponentCondition] | None = None


class ConfigMap(K8sStruct, kw_only=True):
    """ConfigMap holds configuration data for pods to consume."""

    api_version: str = msgspec.field(default_factory=partial(str, "v1"), name="apiVersion")
    kind: str = msgspec.field(default_factory=partial(str, "ConfigMap"))
    metadata: meta_v1.ObjectMeta = msgspec.field(default_factory=meta_v1.ObjectMeta)
    binary_data: dict[str, str] | None = msgspec.field(default=None, name="binaryData")
    data: dict[str, str] | None = None
    immutable: bool | None = None


class ConfigMapEnvSource(K8sStruct, kw_only=True):
    """ConfigMapEnvSource selects a ConfigMap to populate the environment variables with."""

    name: str | None = None
    optional: bool | None = None


class ConfigMapKeySelector(K8sStruct, kw_only=True):
    """Selects a key from a ConfigMap."""

    key: str | None = None
    name: str | None = None
    optional: bool | None = None


class ConfigMapNodeConfigSource(K8sStruct, kw_only=True):
    """ConfigMapNodeConfigSource contains the information to reference a ConfigMap as a config source for the Node."""

    kubelet_config_key: str | None = msgspec.field(default=None, name="kubeletConfigKey")
    name: str | None = None
    namespace: str | None = None
    resource_version: str | None = msgspec.field(default=None, name="resourceVersion")
    uid: str | None = None


class ConfigMapProjection(K8sStruct, kw_only=True):
    """Adapts a ConfigMap into a projected volume."""

    items: list[KeyToPath] | None = None
    name: str | None = None
    optional: bool | None = None


class ConfigMapVolumeSource(K8sStruct, kw_only=True):
    """Adapts a ConfigMap into a volume."""

    default_mode: int | None = msgspec.field(default=None, name="defaultMode")
    default_user: int | None = msgspec.field(default=None, name="defaultUser")
    items: list[KeyToPath] | None = None
    name: str | None = None
    optional: bool | None = None


class Container(K8sStruct, kw_only=True):
    """A single application container that you want to run within a pod."""

    args: list[str] | None = None
    command: list[str] | None = None
    env: list[EnvVar] | None = None
    env_from: list[EnvFromSource] | None = msgspec.field(default=None, name="envFrom")
    image: str | None = None
    image_pull_policy: str | None = msgspec.field(default=None, name="imagePullPolicy")
    lifecycle: Lifecycle | None = None
    liveness_probe: Probe | None = msgspec.field(default=None, name="livenessProbe")
    name: str | None = None
    ports: list[ContainerPort] | None = None
    readiness_probe: Probe | None = msgspec.field(default=None, name="readinessProbe")
    resize_policy: list[ContainerResizePolicy] | None = msgspec.field(default=None, name="resizePolicy")
    resources: ResourceRequirements | None = None
    restart_policy: str | None = msgspec.field(default=None, name="restartPolicy")
    restart_policy_rules: list[ContainerRestartRule] | None = msgspec.field(default=None, name="restartPolicyRules")
    security_context: SecurityContext | None = msgspec.field(default=None, name="securityContext")
    startup_probe: Probe | None = msgspec.field(default=None, name="startupProbe")
    stdin: bool | None = None
    stdin_once: bool | None = msgspec.field(default=None, name="stdinOnce")
    termination_message_path: str | None = msgspec.field(default=None, name="terminationMessagePath")
    termination_message_policy: str | None = msgspec.field(default=None, name="terminationMessagePolicy")
    tty: bool | None = None
    volume_devices: list[VolumeDevice] | None = msgspec.field(default=None, name="volumeDevices")
    volume_mounts: list[VolumeMount] | None = msgspec.field(default=None, name="volumeMounts")
    working_dir: str | None = msgspec.field(default=None, name="workingDir")


class ContainerExtendedResourceRequest(K8sStruct, kw_only=True):
    """ContainerExtendedResourceRequest has the mapping of container name, extended resource name to the device request name."""

    container_name: str | None = msgspec.field(default=None, name="containerName")
    request_name: str | None = msgspec.field(default=None, name="requestName")
    resource_name: str | None = msgspec.field(default=None, name="resourceName")


class ContainerImage(K8sStruct, kw_only=True):
    """Describe a container image"""

    names: list[str] | None = None
    size_bytes: int | None = msgspec.field(default=None, name="sizeBytes")


class ContainerPort(K8sStruct, kw_only=True):
    """ContainerPort represents a network port in a single container."""

    container_port: int | None = msgspec.field(default=None, name="containerPort")
    host_ip: str | None = msgspec.field(default=None, name="hostIP")
    host_port: int | None = msgspec.field(default=None, name="hostPort")
    name: str | None = None
    protocol: str | None = None


class ContainerResizePolicy(K8sStruct, kw_only=True):
    """ContainerResizePolicy represents resource resize policy for the container."""

    resource_name: str | None = msgspec.field(default=None, name="resourceName")
    restart_policy: str | None = msgspec.field(default=None, name="restartPolicy")


class ContainerRestartRule(K8sStruct, kw_only=True):
    """ContainerRestartRule describes how a container exit is handled."""

    action: str | None = None
    exit_codes: ContainerRestartRuleOnExitCodes | None = msgspec.field(default=None, name="exitCodes")


class ContainerRestartRuleOnExitCodes(K8sStruct, kw_only=True):
    """ContainerRestartRuleOnExitCodes describes the condition for handling an exited container based on its exit codes."""

    operator: str | None = None
    values: list[int] | None = None


class ContainerState(K8sStruct, kw_only=True):
    """ContainerState holds a possible state of container."""

    running: ContainerStateRunning | None = None
    terminated: ContainerStateTerminated | None = None
    waiting: ContainerStateWaiting | None = None


class ContainerStateRunning(K8sStruct, kw_only=True):
    """ContainerStateRunning is a running state of a container."""

    started_at: str | None = msgspec.field(default=None, name="startedAt")


class ContainerStateTerminated(K8sStruct, kw_only=True):
    """ContainerStateTerminated is a terminated state of a container."""

    container_id: str | None = msgspec.field(default=None, name="containerID")
    exit_code: int | None = msgspec.field(default=None, name="exitCode")
    finished_at: str | None = msgspec.field(default=None, name="finishedAt")
    message: str | None = None
    reason: str | None = None
    signal: int | None = None
    started_at: str | None = msgspec.field(default=None, name="startedAt")


class ContainerStateWaiting(K8sStruct, kw_only=True):
    """ContainerStateWaiting is a waiting state of a container."""

    message: str | None = None
    reason: str | None = None


class ContainerStatus(K8sStruct, kw_only=True):
    """ContainerStatus contains details for the current status of this container."""

    allocated_resources: dict[str, Quantity] | None = msgspec.field(default=None, name="allocatedResources")
    allocated_resources_status: list[ResourceStatus] | None = msgspec.field(default=None, name="allocatedResourcesStatus")
    container_id: str | None = msgspec.field(default=None, name="containerID")
    image: str | None = None
    image_id: str | None = msgspec.field(default=None, name="imageID")
    last_state: ContainerState | None = msgspec.field(default=None, name="lastState")
    name: str | None = None
    ready: bool | None = None
    resources: ResourceRequirements | None = None
    restart_count: int | None = msgspec.field(default=None, name="restartCount")
    started: bool | None = None
    state: ContainerState | None = None
    stop_signal: str | None = msgspec.field(default=None, name="stopSignal")
    user: ContainerUser | None = None
    volume_mounts: list[VolumeMountStatus] | None = msgspec.field(default=None, name="volumeMounts")


class ContainerUser(K8sStruct, kw_only=True):
    """ContainerUser represents user identity information"""

    linux: LinuxContainerUser | None = None


class DaemonEndpoint(K8sStruct, kw_only=True):
    """DaemonEndpoint contains information about a single Daemon endpoint."""

    port: int | None = msgspec.field(default=None, name="Port")


class DownwardAPIProjection(K8sStruct, kw_only=True):
    """Represents downward API info for projecting into a projected volume."""

    items: list[DownwardAPIVolumeFile] | None = None


class DownwardAPIVolumeFile(K8sStruct, kw_only=True):
    """DownwardAPIVolumeFile represents information to create the file containing the pod field"""

    field_ref: ObjectFieldSelector | None = msgspec.field(default=None, name="fieldRef")
    mode: int | None = None
    path: str | None = None
    resource_field_ref: ResourceFieldSelector | None = msgspec.field(default=None, name="resourceFieldRef")
    user: int | None = None


class DownwardAPIVolumeSource(K8sStruct, kw_only=True):
    """DownwardAPIVolumeSource represents a volume containing downward API info."""

    default_mode: int | None = msgspec.field(default=None, name="defaultMode")
    default_user: int | None = msgspec.field(default=None, name="defaultUser")
    items: list[DownwardAPIVolumeFile] | None = None


class EmptyDirVolumeSource(K8sStruct, kw_only=True):
    """Represents an empty directory for a pod."""

    medium: str | None = None
    mode: int | None = None
    size_limit: Quantity | None = msgspec.field(default=None, name="sizeLimit")


class EndpointAddress(K8sStruct, kw_only=True):
    """EndpointAddress is a tuple that describes single IP address."""

    hostname: str | None = None
    ip: str | None = None
    node_name: str | None = msgspec.field(default=None, name="nodeName")
    target_ref: ObjectReference | None = msgspec.field(default=None, name="targetRef")


class EndpointPort(K8sStruct, kw_only=True):
    """EndpointPort is a tuple that describes a single port."""

    app_protocol: str | None = msgspec.field(default=None, name="appProtocol")
    name: str | None = None
    port: int | None = None
    protocol: str | None = None


class EndpointSubset(K8sStruct, kw_only=True):
    """EndpointSubset is a group of addresses with a common set of ports."""

    addresses: list[EndpointAddress] | None = None
    not_ready_addresses: list[EndpointAddress] | None = msgspec.field(default=None, name="notReadyAddresses")
    ports: list[EndpointPort] | None = None


class Endpoints(K8sStruct, kw_only=True):
    """Endpoints is a collection of endpoints that implement the actual service."""

    api_version: str = msgspec.field(default_factory=partial(str, "v1"), name="apiVersion")
    kind: str = msgspec.field(default_factory=partial(str, "Endpoints"))
    metadata: meta_v1.ObjectMeta = msgspec.field(default_factory=meta_v1.ObjectMeta)
    subsets: list[EndpointSubset] | None = None


class EnvFromSource(K8sStruct, kw_only=True):
    """EnvFromSource represents the source of a set of ConfigMaps or Secrets"""

    config_map_ref: ConfigMapEnvSource | None = msgspec.field(default=None, name="configMapRef")
    prefix: str | None = None
    secret_ref: SecretEnvSource | None = msgspec.field(default=None, name="secretRef")


class EnvVar(K8sStruct, kw_only=True):
    """EnvVar represents an environment variable present in a Container."""

    name: str | None = None
    value: str | None = None
    value_from: EnvVarSource | None = msgspec.field(default=None, name="valueFrom")


class EnvVarSource(K8sStruct, kw_only=True):
    """EnvVarSource represents a source for the value of an EnvVar."""

    config_map_key_ref: ConfigMapKeySelector | None = msgspec.field(default=None, name="configMapKeyRef")
    field_ref: ObjectFieldSelector | None = msgspec.field(default=None, name="fieldRef")
    file_key_ref: FileKeySelector | None = msgspec.field(default=None, name="fileKeyRef")
    resource_field_ref: ResourceFieldSelector | None = msgspec.field(default=None, name="resourceFieldRef")
    secret_key_ref: SecretKeySelector | None = msgspec.field(default=None, name="secretKeyRef")


class EphemeralContainer(K8sStruct, kw_only=True):
    """An EphemeralContainer is a temporary container that you may add to an existing Pod for user-initiated activities such as debugging."""

    args: list[str] | None = None
    command: list[str] | None = None
    env: list[EnvVar] | None = None
    env_from: list[EnvFromSource] | None = msgspec.field(default=None, name="envFrom")
    image: str | None = None
    image_pull_policy: str | None = msgspec.field(default=None, name="imagePullPolicy")
    lifecycle: Lifecycle | None = None
    liveness_probe: Probe | None = msgspec.field(default=None, name="livenessProbe")
    name: str | None = None
    ports: list[ContainerPort] | None = None
    readiness_probe: Probe | None = msgspec.field(default=None, name="readinessProbe")
    resize_policy: list[ContainerResizePolicy] | None = msgspec.field(default=None, name="resizePolicy")
    resources: ResourceRequirements | None = None
    restart_policy: str | None = msgspec.field(default=None, name="restartPolicy")
    restart_policy_rules: list[ContainerRestartRule] | None = msgspec.field(default=None, name="restartPolicyRules")
    security_context: SecurityContext | None = msgspec.field(default=None, name="securityContext")
    startup_probe: Probe | None = msgspec.field(default=None, name="startupProbe")
    stdin: bool | None = None
    stdin_once: bool | None = msgspec.field(default=None, name="stdinOnce")
    target_container_name: str | None = msgspec.field(default=None, name="targetContainerName")
    termination_message_path: str | None = msgspec.field(default=None, name="terminationMessagePath")
    termination_message_policy: str | None = msgspec.field(default=None, name="terminationMessagePolicy")
    tty: bool | None = None
    volume_devices: list[VolumeDevice] | None = msgspec.field(default=None, name="volumeDevices")
    volume_mounts: list[VolumeMount] | None = msgspec.field(default=None, name="volumeMounts")
    working_dir: str | None = msgspec.field(default=None, name="workingDir")


class EphemeralVolumeSource(K8sStruct, kw_only=True):
    """Represents an ephemeral volume that is handled by a normal storage driver."""

    volume_claim_template: PersistentVolumeClaimTemplate | None = msgspec.field(default=None, name="volumeClaimTemplate")


class Event(K8sStruct, kw_only=True):
    """Event is a report of an event somewhere in the cluster."""

    api_version: str = msgspec.field(default_factory=partial(str, "v1"), name="apiVersion")
    kind: str = msgspec.field(default_factory=partial(str, "Event"))
    metadata: meta_v1.ObjectMeta = msgspec.field(default_factory=meta_v1.ObjectMeta)
    action: str | None = None
    count: int | None = None
    event_time: str | None = msgspec.field(default=None, name="eventTime")
    first_timestamp: str | None = msgspec.field(default=None, name="firstTimestamp")
    involved_object: ObjectReference | None = msgspec.field(default=None, name="involvedObject")
    last_timestamp: str | None = msgspec.field(default=None, name="lastTimestamp")
    message: str | None = None
    reason: str | None = None
    related: ObjectReference | None = None
    reporting_component: str | None = msgspec.field(default=None, name="reportingComponent")
    reporting_instance: str | None = msgspec.field(default=None, name="reportingInstance")
    series: EventSeries | None = None
    source: EventSource | None = None
    type: str | None = None


class EventSeries(K8sStruct, kw_only=True):
    """EventSeries contain information on series of events, i.e."""

    count: int | None = None
    last_observed_time: str | None = msgspec.field(default=None, name="lastObservedTime")


class EventSource(K8sStruct, kw_only=True):
    """EventSource contains information for an event."""

    component: str | None = None
    host: str | None = None


class EvictionResponder(K8sStruct, kw_only=True):
    """EvictionResponder allows you to specify the responder reacting to an Eviction."""

    name: str | None = None
    priority: int | None = None


class ExecAction(K8sStruct, kw_only=True):
    """ExecAction describes a "run in container" action."""

    command: list[str] | None = None


class FCVolumeSource(K8sStruct, kw_only=True):
    """Represents a Fibre Channel volume."""

    fs_type: str | None = msgspec.field(default=None, name="fsType")
    lun: int | None = None
    read_only: bool | None = msgspec.field(default=None, name="readOnly")
    target_wwns: list[str] | None = msgspec.field(default=None, name="targetWWNs")
    wwids: list[str] | None = None


class FileKeySelector(K8sStruct, kw_only=True):
    """FileKeySelector selects a key of the env file."""

    key: str | None = None
    optional: bool | None = None
    path: str | None = None
    volume_name: str | None = msgspec.field(default=None, name="volumeName")


class FlexPersistentVolumeSource(K8sStruct, kw_only=True):
    """FlexPersistentVolumeSource represents a generic persistent volume resource that is provisioned/attached using an exec based plugin."""

    driver: str | None = None
    fs_type: str | None = msgspec.field(default=None, name="fsType")
    options: dict[str, str] | None = None
    read_only: bool | None = msgspec.field(default=None, name="readOnly")
    secret_ref: SecretReference | None = msgspec.field(default=None, name="secretRef")


class FlexVolumeSource(K8sStruct, kw_only=True):
    """FlexVolume represents a generic volume resource that is provisioned/attached using an exec based plugin."""

    driver: str | None = None
    fs_type: str | None = msgspec.field(default=None, name="fsType")
    options: dict[str, str] | None = None
    read_only: bool | None = msgspec.field(default=None, name="readOnly")
    secret_ref: LocalObjectReference | None = msgspec.field(default=None, name="secretRef")


class FlockerVolumeSource(K8sStruct, kw_only=True):
    """Represents a Flocker volume mounted by the Flocker agent."""

    dataset_name: str | None = msgspec.field(default=None, name="datasetName")
    dataset_uuid: str | None = msgspec.field(default=None, name="datasetUUID")


class GCEPersistentDiskVolumeSource(K8sStruct, kw_only=True):
    """Represents a Persistent Disk resource in Google Compute Engine."""

    fs_type: str | None = msgspec.field(default=None, name="fsType")
    partition: int | None = None
    pd_name: str | None = msgspec.field(default=None, name="pdName")
    read_only: bool | None = msgspec.field(default=None, name="readOnly")


class GRPCAction(K8sStruct, kw_only=True):
    """GRPCAction specifies an action involving a GRPC service."""

    mode: str | None = None
    port: int | None = None
    service: str | None = None


class GitRepoVolumeSource(K8sStruct, kw_only=True):
    """Represents a volume that is populated with the contents of a git repository."""

    directory: str | None = None
    repository: str | None = None
    revision: str | None = None


class GlusterfsPersistentVolumeSource(K8sStruct, kw_only=True):
    """Represents a Glusterfs mount that lasts the lifetime of a pod."""

    endpoints: str | None = None
    endpoints_namespace: str | None = msgspec.field(default=None, name="endpointsNamespace")
    path: str | None = None
    read_only: bool | None = msgspec.field(default=None, name="readOnly")


class GlusterfsVolumeSource(K8sStruct, kw_only=True):
    """Represents a Glusterfs mount that lasts the lifetime of a pod."""

    endpoints: str | None = None
    path: str | None = None
    read_only: bool | None = msgspec.field(default=None, name="readOnly")


class HTTPGetAction(K8sStruct, kw_only=True):
    """HTTPGetAction describes an action based on HTTP Get requests."""

    host: str | None = None
    http_headers: list[HTTPHeader] | None = msgspec.field(default=None, name="httpHeaders")
    path: str | None = None
    port: IntOrString | None = None
    protocol: str | None = None
    scheme: str | None = None


class HTTPHeader(K8sStruct, kw_only=True):
    """HTTPHeader describes a custom header to be used in HTTP probes"""

    name: str | None = None
    value: str | None = None


class HostAlias(K8sStruct, kw_only=True):
    """HostAlias holds the mapping between IP and hostnames that will be injected as an entry in the pod's hosts file."""

    hostnames: list[str] | None = None
    ip: str | None = None


class HostIP(K8sStruct, kw_only=True):
    """HostIP represents a single IP address allocated to the host."""

    ip: str | None = None


class HostPathVolumeSource(K8sStruct, kw_only=True):
    """Represents a host path mapped into a pod."""

    path: str | None = None
    type: str | None = None


class ISCSIPersistentVolumeSource(K8sStruct, kw_only=True):
    """ISCSIPersistentVolumeSource represents an ISCSI disk."""

    chap_auth_discovery: bool | None = msgspec.field(default=None, name="chapAuthDiscovery")
    chap_auth_session: bool | None = msgspec.field(default=None, name="chapAuthSession")
    fs_type: str | None = msgspec.field(default=None, name="fsType")
    initiator_name: str | None = msgspec.field(default=None, name="initiatorName")
    iqn: str | None = None
    iscsi_interface: str | None = msgspec.field(default=None, name="iscsiInterface")
    lun: int | None = None
    portals: list[str] | None = None
    read_only: bool | None = msgspec.field(default=None, name="readOnly")
    secret_ref: SecretReference | None = msgspec.field(default=None, name="secretRef")
    target_portal: str | None = msgspec.field(default=None, name="targetPortal")


class ISCSIVolumeSource(K8sStruct, kw_only=True):
    """Represents an ISCSI disk."""

    chap_auth_discovery: bool | None = msgspec.field(default=None, name="chapAuthDiscovery")
    chap_auth_session: bool | None = msgspec.field(default=None, name="chapAuthSession")
    fs_type: str | None = msgspec.field(default=None, name="fsType")
    initiator_name: str | None = msgspec.field(default=None, name="initiatorName")
    iqn: str | None = None
    iscsi_interface: str | None = msgspec.field(default=None, name="iscsiInterface")
    lun: int | None = None
    portals: list[str] | None = None
    read_only: bool | None = msgspec.field(default=None, name="readOnly")
    secret_ref: LocalObjectReference | None = msgspec.field(default=None, name="secretRef")
    target_portal: str | None = msgspec.field(default=None, name="targetPortal")


class ImageVolumeSource(K8sStruct, kw_only=True):
    """ImageVolumeSource represents a image volume resource."""

    pull_policy: str | None = msgspec.field(default=None, name="pullPolicy")
    reference: str | None = None


class ImageVolumeStatus(K8sStruct, kw_only=True):
    """ImageVolumeStatus represents the image-based volume status."""

    image_ref: str | None = msgspec.field(default=None, name="imageRef")


class KeyToPath(K8sStruct, kw_only=True):
    """Maps a string key to a path within a volume."""

    key: str | None = None
    mode: int | None = None
    path: str | None = None
    user: int | None = None


class Lifecycle(K8sStruct, kw_only=True):
    """Lifecycle describes actions that the management system should take in response to container lifecycle events."""

    post_start: LifecycleHandler | None = msgspec.field(default=None, name="postStart")
    pre_stop: LifecycleHandler | None = msgspec.field(default=None, name="preStop")
    stop_signal: str | None = msgspec.field(default=None, name="stopSignal")


class LifecycleHandler(K8sStruct, kw_only=True):
    """LifecycleHandler defines a specific action that should be taken in a lifecycle hook."""

    exec: ExecAction | None = None
    http_get: HTTPGetAction | None = msgspec.field(default=None, name="httpGet")
    sleep: SleepAction | None = None
    tcp_socket: TCPSocketAction | None = msgspec.field(default=None, name="tcpSocket")


class LimitRange(K8sStruct, kw_only=True):
    """LimitRange sets resource usage limits for each kind of resource in a Namespace."""

    api_version: str = msgspec.field(default_factory=partial(str, "v1"), name="apiVersion")
    kind: str = msgspec.field(default_factory=partial(str, "LimitRange"))
    metadata: meta_v1.ObjectMeta = msgspec.field(default_factory=meta_v1.ObjectMeta)
    spec: LimitRangeSpec | None = None


class LimitRangeItem(K8sStruct, kw_only=True):
    """LimitRangeItem defines a min/max usage limit for any resource that matches on kind."""

    default: dict[str, Quantity] | None = None
    default_request: dict[str, Quantity] | None = msgspec.field(default=None, name="defaultRequest")
    max: dict[str, Quantity] | None = None
    max_limit_request_ratio: dict[str, Quantity] | None = msgspec.field(default=None, name="maxLimitRequestRatio")
    min: dict[str, Quantity] | None = None
    type: str | None = None


class LimitRangeSpec(K8sStruct, kw_only=True):
    """LimitRangeSpec defines a min/max usage limit for resources that match on kind."""

    limits: list[LimitRangeItem] | None = None


class LinuxContainerUser(K8sStruct, kw_only=True):
    """LinuxContainerUser represents user identity information in Linux containers"""

    gid: int | None = None
    supplemental_groups: list[int] | None = msgspec.field(default=None, name="supplementalGroups")
    uid: int | None = None


class LoadBalancerIngress(K8sStruct, kw_only=True):
    """LoadBalancerIngress represents the status of a load-balancer ingress point: traffic intended for the service should be sent to an ingress point."""

    hostname: str | None = None
    ip: str | None = None
    ip_mode: str | None = msgspec.field(default=None, name="ipMode")
    ports: list[PortStatus] | None = None


class LoadBalancerStatus(K8sStruct, kw_only=True):
    """LoadBalancerStatus represents the status of a load-balancer."""

    ingress: list[LoadBalancerIngress] | None = None


class LocalObjectReference(K8sStruct, kw_only=True):
    """LocalObjectReference contains enough information to let you locate the referenced object inside the same namespace."""

    name: str | None = None


class LocalVolumeSource(K8sStruct, kw_only=True):
    """Local represents directly-attached storage with node affinity"""

    fs_type: str | None = msgspec.field(default=None, name="fsType")
    path: str | None = None


class ModifyVolumeStatus(K8sStruct, kw_only=True):
    """ModifyVolumeStatus represents the status object of ControllerModifyVolume operation"""

    status: str | None = None
    target_volume_attributes_class_name: str | None = msgspec.field(default=None, name="targetVolumeAttributesClassName")


class NFSVolumeSource(K8sStruct, kw_only=True):
    """Represents an NFS mount that lasts the lifetime of a pod."""

    path: str | None = None
    read_only: bool | None = msgspec.field(default=None, name="readOnly")
    server: str | None = None


class Namespace(K8sStruct, kw_only=True):
    """Namespace provides a scope for Names."""

    api_version: str = msgspec.field(default_factory=partial(str, "v1"), name="apiVersion")
    kind: str = msgspec.field(default_factory=partial(str, "Namespace"))
    metadata: meta_v1.ObjectMeta = msgspec.field(default_factory=meta_v1.ObjectMeta)
    spec: NamespaceSpec | None = None
    status: NamespaceStatus | None = None


class NamespaceCondition(K8sStruct, kw_only=True):
    """NamespaceCondition contains details about state of namespace."""

    last_transition_time: str | None = msgspec.field(default=None, name="lastTransitionTime")
    message: str | None = None
    reason: str | None = None
    status: str | None = None
    type: str | None = None


class NamespaceSpec(K8sStruct, kw_only=True):
    """NamespaceSpec describes the attributes on a Namespace."""

    finalizers: list[str] | None = None


class NamespaceStatus(K8sStruct, kw_only=True):
    """NamespaceStatus is information about the current status of a Namespace."""

    conditions: list[NamespaceCondition] | None = None
    phase: str | None = None


class Node(K8sStruct, kw_only=True):
    """Node is a worker node in Kubernetes."""

    api_version: str = msgspec.field(default_factory=partial(str, "v1"), name="apiVersion")
    kind: str = msgspec.field(default_factory=partial(str, "Node"))
    metadata: meta_v1.ObjectMeta = msgspec.field(default_factory=meta_v1.ObjectMeta)
    spec: NodeSpec | None = None
    status: NodeStatus | None = None


class NodeAddress(K8sStruct, kw_only=True):
    """NodeAddress contains information for the node's address."""

    address: str | None = None
    type: str | None = None


class NodeAffinity(K8sStruct, kw_only=True):
    """Node affinity is a group of node affinity scheduling rules."""

    preferred_during_scheduling_ignored_during_execution: list[PreferredSchedulingTerm] | None = msgspec.field(default=None, name="preferredDuringSchedulingIgnoredDuringExecution")
    required_during_scheduling_ignored_during_execution: NodeSelector | None = msgspec.field(default=None, name="requiredDuringSchedulingIgnoredDuringExecution")


class NodeAllocatableMappedResources(K8sStruct, kw_only=True):
    """NodeAllocatableMappedResources describes mapped node allocatable resource allocations."""

    name: str | None = None
    quantity: Quantity | None = None


class NodeAllocatableOverheadResources(K8sStruct, kw_only=True):
    """NodeAllocatableOverheadResources describes auxiliary overhead resource allocations."""

    name: str | None = None
    per_container: Quantity | None = msgspec.field(default=None, name="perContainer")
    per_pod: Quantity | None = msgspec.field(default=None, name="perPod")


class NodeAllocatableResourceClaimStatus(K8sStruct, kw_only=True):
    """NodeAllocatableResourceClaimStatus describes the status of node allocatable resources allocated via DRA."""

    containers: list[str] | None = None
    mapping: list[NodeAllocatableMappedResources] | None = None
    overhead: list[NodeAllocatableOverheadResources] | None = None
    resource_claim_name: str | None = msgspec.field(default=None, name="resourceClaimName")


class NodeCondition(K8sStruct, kw_only=True):
    """NodeCondition contains condition information for a node."""

    last_heartbeat_time: str | None = msgspec.field(default=None, name="lastHeartbeatTime")
    last_transition_time: str | None = msgspec.field(default=None, name="lastTransitionTime")
    message: str | None = None
    reason: str | None = None
    status: str | None = None
    type: str | None = None


class NodeConfigSource(K8sStruct, kw_only=True):
    """NodeConfigSource specifies a source of node configuration."""

    config_map: ConfigMapNodeConfigSource | None = msgspec.field(default=None, name="configMap")


class NodeConfigStatus(K8sStruct, kw_only=True):
    """NodeConfigStatus describes the status of the config assigned by Node.Spec.ConfigSource."""

    active: NodeConfigSource | None = None
    assigned: NodeConfigSource | None = None
    error: str | None = None
    last_known_good: NodeConfigSource | None = msgspec.field(default=None, name="lastKnownGood")


class NodeDaemonEndpoints(K8sStruct, kw_only=True):
    """NodeDaemonEndpoints lists ports opened by daemons running on the Node."""

    kubelet_endpoint: DaemonEndpoint | None = msgspec.field(default=None, name="kubeletEndpoint")


class NodeFeatures(K8sStruct, kw_only=True):
    """NodeFeatures describes the set of features implemented by the CRI implementation."""

    supplemental_groups_policy: bool | None = msgspec.field(default=None, name="supplementalGroupsPolicy")


class NodePodPreemptionPolicy(K8sStruct, kw_only=True):
    """NodePodPreemptionPolicy defines the node-level policies governing preemption for pods on this node."""

    disable_resize_preemption: list[str] | None = msgspec.field(default=None, name="disableResizePreemption")


class NodeRuntimeHandler(K8sStruct, kw_only=True):
    """NodeRuntimeHandler is a set of runtime handler information."""

    features: NodeRuntimeHandlerFeatures | None = None
    name: str | None = None


class NodeRuntimeHandlerFeatures(K8sStruct, kw_only=True):
    """NodeRuntimeHandlerFeatures is a set of features implemented by the runtime handler."""

    recursive_read_only_mounts: bool | None = msgspec.field(default=None, name="recursiveReadOnlyMounts")
    user_namespaces: bool | None = msgspec.field(default=None, name="userNamespaces")


class NodeSelector(K8sStruct, kw_only=True):
    """A node selector represents the union of the results of one or more label queries over a set of nodes; that is, it represents the OR of the selectors represented by the node selector terms."""

    node_selector_terms: list[NodeSelectorTerm] | None = msgspec.field(default=None, name="nodeSelectorTerms")


class NodeSelectorRequirement(K8sStruct, kw_only=True):
    """A node selector requirement is a selector that contains values, a key, and an operator that relates the key and values."""

    key: str | None = None
    operator: str | None = None
    values: list[str] | None = None


class NodeSelectorTerm(K8sStruct, kw_only=True):
    """A null or empty node selector term matches no objects."""

    match_expressions: list[NodeSelectorRequirement] | None = msgspec.field(default=None, name="matchExpressions")
    match_fields: list[NodeSelectorRequirement] | None = msgspec.field(default=None, name="matchFields")


class NodeSpec(K8sStruct, kw_only=True):
    """NodeSpec describes the attributes that a node is created with."""

    config_source: NodeConfigSource | None = msgspec.field(default=None, name="configSource")
    external_id: str | None = msgspec.field(default=None, name="externalID")
    pod_cidr: str | None = msgspec.field(default=None, name="podCIDR")
    pod_cidrs: list[str] | None = msgspec.field(default=None, name="podCIDRs")
    pod_preemption_policy: NodePodPreemptionPolicy | None = msgspec.field(default=None, name="podPreemptionPolicy")
    provider_id: str | None = msgspec.field(default=None, name="providerID")
    taints: list[Taint] | None = None
    unschedulable: bool | None = None


class NodeStatus(K8sStruct, kw_only=True):
    """NodeStatus is information about the current status of a node."""

    addresses: list[NodeAddress] | None = None
    allocatable: dict[str, Quantity] | None = None
    capacity: dict[str, Quantity] | None = None
    conditions: list[NodeCondition] | None = None
    config: NodeConfigStatus | None = None
    daemon_endpoints: NodeDaemonEndpoints | None = msgspec.field(default=None, name="daemonEndpoints")
    declared_features: list[str] | None = msgspec.field(default=None, name="declaredFeatures")
    features: NodeFeatures | None = None
    images: list[ContainerImage] | None = None
    node_info: NodeSystemInfo | None = msgspec.field(default=None, name="nodeInfo")
    phase: str | None = None
    runtime_handlers: list[NodeRuntimeHandler] | None = msgspec.field(default=None, name="runtimeHandlers")
    volumes_attached: list[AttachedVolume] | None = msgspec.field(default=None, name="volumesAttached")
    volumes_in_use: list[str] | None = msgspec.field(default=None, name="volumesInUse")


class NodeSwapStatus(K8sStruct, kw_only=True):
    """NodeSwapStatus represents swap memory information."""

    capacity: int | None = None


class NodeSystemInfo(K8sStruct, kw_only=True):
    """NodeSystemInfo is a set of ids/uuids to uniquely identify the node."""

    architecture: str | None = None
    boot_id: str | None = msgspec.field(default=None, name="bootID")
    container_runtime_version: str | None = msgspec.field(default=None, name="containerRuntimeVersion")
    kernel_version: str | None = msgspec.field(default=None, name="kernelVersion")
    kube_proxy_version: str | None = msgspec.field(default=None, name="kubeProxyVersion")
    kubelet_version: str | None = msgspec.field(default=None, name="kubeletVersion")
    machine_id: str | None = msgspec.field(default=None, name="machineID")
    operating_system: str | None = msgspec.field(default=None, name="operatingSystem")
    os_image: str | None = msgspec.field(default=None, name="osImage")
    running_in_user_namespace: bool | None = msgspec.field(default=None, name="runningInUserNamespace")
    swap: NodeSwapStatus | None = None
    system_uuid: str | None = msgspec.field(default=None, name="systemUUID")


class ObjectFieldSelector(K8sStruct, kw_only=True):
    """ObjectFieldSelector selects an APIVersioned field of an object."""

    api_version: str | None = msgspec.field(default=None, name="apiVersion")
    field_path: str | None = msgspec.field(default=None, name="fieldPath")


class ObjectReference(K8sStruct, kw_only=True):
    """ObjectReference contains enough information to let you inspect or modify the referred object."""

    api_version: str | None = msgspec.field(default=None, name="apiVersion")
    field_path: str | None = msgspec.field(default=None, name="fieldPath")
    kind: str | None = None
    name: str | None = None
    namespace: str | None = None
    resource_version: str | None = msgspec.field(default=None, name="resourceVersion")
    uid: str | None = None


class PersistentVolume(K8sStruct, kw_only=True):
    """PersistentVolume (PV) is a storage resource provisioned by an administrator."""

    api_version: str = msgspec.field(default_factory=partial(str, "v1"), name="apiVersion")
    kind: str = msgspec.field(default_factory=partial(str, "PersistentVolume"))
    metadata: meta_v1.ObjectMeta = msgspec.field(default_factory=meta_v1.ObjectMeta)
    spec: PersistentVolumeSpec | None = None
    status: PersistentVolumeStatus | None = None


class PersistentVolumeClaim(K8sStruct, kw_only=True):
    """PersistentVolumeClaim is a user's request for and claim to a persistent volume"""

    api_version: str = msgspec.field(default_factory=partial(str, "v1"), name="apiVersion")
    kind: str = msgspec.field(default_factory=partial(str, "PersistentVolumeClaim"))
    metadata: meta_v1.ObjectMeta = msgspec.field(default_factory=meta_v1.ObjectMeta)
    spec: PersistentVolumeClaimSpec | None = None
    status: PersistentVolumeClaimStatus | None = None


class PersistentVolumeClaimCondition(K8sStruct, kw_only=True):
    """PersistentVolumeClaimCondition contains details about state of pvc"""

    last_probe_time: str | None = msgspec.field(default=None, name="lastProbeTime")
    last_transition_time: str | None = msgspec.field(default=None, name="lastTransitionTime")
    message: str | None = None
    reason: str | None = None
    status: str | None = None
    type: str | None = None


class PersistentVolumeClaimSpec(K8sStruct, kw_only=True):
    """PersistentVolumeClaimSpec describes the common attributes of storage devices and allows a Source for provider-specific attributes"""

    access_modes: list[str] | None = msgspec.field(default=None, name="accessModes")
    data_source: TypedLocalObjectReference | None = msgspec.field(default=None, name="dataSource")
    data_source_ref: TypedObjectReference | None = msgspec.field(default=None, name="dataSourceRef")
    resources: VolumeResourceRequirements | None = None
    selector: meta_v1.LabelSelector | None = None
    storage_class_name: str | None = msgspec.field(default=None, name="storageClassName")
    volume_attributes_class_name: str | None = msgspec.field(default=None, name="volumeAttributesClassName")
    volume_mode: str | None = msgspec.field(default=None, name="volumeMode")
    volume_name: str | None = msgspec.field(default=None, name="volumeName")


class PersistentVolumeClaimStatus(K8sStruct, kw_only=True):
    """PersistentVolumeClaimStatus is the current status of a persistent volume claim."""

    access_modes: list[str] | None = msgspec.field(default=None, name="accessModes")
    allocated_resource_statuses: dict[str, str] | None = msgspec.field(default=None, name="allocatedResourceStatuses")
    allocated_resources: dict[str, Quantity] | None = msgspec.field(default=None, name="allocatedResources")
    capacity: dict[str, Quantity] | None = None
    conditions: list[PersistentVolumeClaimCondition] | None = None
    current_volume_attributes_class_name: str | None = msgspec.field(default=None, name="currentVolumeAttributesClassName")
    health_status: VolumeHealthStatus | None = msgspec.field(default=None, name="healthStatus")
    modify_volume_status: ModifyVolumeStatus | None = msgspec.field(default=None, name="modifyVolumeStatus")
    phase: str | None = None


class PersistentVolumeClaimTemplate(K8sStruct, kw_only=True):
    """PersistentVolumeClaimTemplate is used to produce PersistentVolumeClaim objects as part of an EphemeralVolumeSource."""

    metadata: meta_v1.ObjectMeta | None = None
    spec: PersistentVolumeClaimSpec | None = None


class PersistentVolumeClaimVolumeSource(K8sStruct, kw_only=True):
    """PersistentVolumeClaimVolumeSource references the user's PVC in the same namespace."""

    claim_name: str | None = msgspec.field(default=None, name="claimName")
    read_only: bool | None = msgspec.field(default=None, name="readOnly")


class PersistentVolumeSpec(K8sStruct, kw_only=True):
    """PersistentVolumeSpec is the specification of a persistent volume."""

    access_modes: list[str] | None = msgspec.field(default=None, name="accessModes")
    aws_elastic_block_store: AWSElasticBlockStoreVolumeSource | None = msgspec.field(default=None, name="awsElasticBlockStore")
    azure_disk: AzureDiskVolumeSource | None = msgspec.field(default=None, name="azureDisk")
    azure_file: AzureFilePersistentVolumeSource | None = msgspec.field(default=None, name="azureFile")
    capacity: dict[str, Quantity] | None = None
    cephfs: CephFSPersistentVolumeSource | None = None
    cinder: CinderPersistentVolumeSource | None = None
    claim_ref: ObjectReference | None = msgspec.field(default=None, name="claimRef")
    csi: CSIPersistentVolumeSource | None = None
    fc: FCVolumeSource | None = None
    flex_volume: FlexPersistentVolumeSource | None = msgspec.field(default=None, name="flexVolume")
    flocker: FlockerVolumeSource | None = None
    gce_persistent_disk: GCEPersistentDiskVolumeSource | None = msgspec.field(default=None, name="gcePersistentDisk")
    glusterfs: GlusterfsPersistentVolumeSource | None = None
    host_path: HostPathVolumeSource | None = msgspec.field(default=None, name="hostPath")
    iscsi: ISCSIPersistentVolumeSource | None = None
    local: LocalVolumeSource | None = None
    mount_options: list[str] | None = msgspec.field(default=None, name="mountOptions")
    nfs: NFSVolumeSource | None = None
    node_affinity: VolumeNodeAffinity | None = msgspec.field(default=None, name="nodeAffinity")
    persistent_volume_reclaim_policy: str | None = msgspec.field(default=None, name="persistentVolumeReclaimPolicy")
    photon_persistent_disk: PhotonPersistentDiskVolumeSource | None = msgspec.field(default=None, name="photonPersistentDisk")
    portworx_volume: PortworxVolumeSource | None = msgspec.field(default=None, name="portworxVolume")
    quobyte: QuobyteVolumeSource | None = None
    rbd: RBDPersistentVolumeSource | None = None
    scale_io: ScaleIOPersistentVolumeSource | None = msgspec.field(default=None, name="scaleIO")
    storage_class_name: str | None = msgspec.field(default=None, name="storageClassName")
    storageos: StorageOSPersistentVolumeSource | None = None
    volume_attributes_class_name: str | None = msgspec.field(default=None, name="volumeAttributesClassName")
    volume_mode: str | None = msgspec.field(default=None, name="volumeMode")
    vsphere_volume: VsphereVirtualDiskVolumeSource | None = msgspec.field(default=None, name="vsphereVolume")


class PersistentVolumeStatus(K8sStruct, kw_only=True):
    """PersistentVolumeStatus is the current status of a persistent volume."""

    last_phase_transition_time: str | None = msgspec.field(default=None, name="lastPhaseTransitionTime")
    message: str | None = None
    phase: str | None = None
    reason: str | None = None


class PhotonPersistentDiskVolumeSource(K8sStruct, kw_only=True):
    """Represents a Photon Controller persistent disk resource."""

    fs_type: str | None = msgspec.field(default=None, name="fsType")
    pd_id: str | None = msgspec.field(default=None, name="pdID")


class Pod(K8sStruct, kw_only=True):
    """Pod is a collection of containers that can run on a host."""

    api_version: str = msgspec.field(default_factory=partial(str, "v1"), name="apiVersion")
    kind: str = msgspec.field(default_factory=partial(str, "Pod"))
    metadata: meta_v1.ObjectMeta = msgspec.field(default_factory=meta_v1.ObjectMeta)
    spec: PodSpec | None = None
    status: PodStatus | None = None


class PodAffinity(K8sStruct, kw_only=True):
    """Pod affinity is a group of inter pod affinity scheduling rules."""

    preferred_during_scheduling_ignored_during_execution: list[WeightedPodAffinityTerm] | None = msgspec.field(default=None, name="preferredDuringSchedulingIgnoredDuringExecution")
    required_during_scheduling_ignored_during_execution: list[PodAffinityTerm] | None = msgspec.field(default=None, name="requiredDuringSchedulingIgnoredDuringExecution")


class PodAffinityTerm(K8sStruct, kw_only=True):
    """Defines a set of pods (namely those matching the labelSelector relative to the given namespace(s)) that this pod should be co-located (affinity) or not co-located (anti-affinity) with, where co-located is defined as running on a node whose value of the label with key <topologyKey> matches that of any node on which a pod of the set of pods is running"""

    label_selector: meta_v1.LabelSelector | None = msgspec.field(default=None, name="labelSelector")
    match_label_keys: list[str] | None = msgspec.field(default=None, name="matchLabelKeys")
    mismatch_label_keys: list[str] | None = msgspec.field(default=None, name="mismatchLabelKeys")
    namespace_selector: meta_v1.LabelSelector | None = msgspec.field(default=None, name="namespaceSelector")
    namespaces: list[str] | None = None
    topology_key: str | None = msgspec.field(default=None, name="topologyKey")


class PodAntiAffinity(K8sStruct, kw_only=True):
    """Pod anti affinity is a group of inter pod anti affinity scheduling rules."""

    preferred_during_scheduling_ignored_during_execution: list[WeightedPodAffinityTerm] | None = msgspec.field(default=None, name="preferredDuringSchedulingIgnoredDuringExecution")
    required_during_scheduling_ignored_during_execution: list[PodAffinityTerm] | None = msgspec.field(default=None, name="requiredDuringSchedulingIgnoredDuringExecution")


class PodCertificateProjection(K8sStruct, kw_only=True):
    """PodCertificateProjection provides a private key and X.509 certificate in the pod filesystem."""

    certificate_chain_path: str | None = msgspec.field(default=None, name="certificateChainPath")
    credential_bundle_path: str | None = msgspec.field(default=None, name="credentialBundlePath")
    key_path: str | None = msgspec.field(default=None, name="keyPath")
    key_type: str | None = msgspec.field(default=None, name="keyType")
    max_expiration_seconds: int | None = msgspec.field(default=None, name="maxExpirationSeconds")
    signer_name: str | None = msgspec.field(default=None, name="signerName")
    user: int | None = None
    user_annotations: dict[str, str] | None = msgspec.field(default=None, name="userAnnotations")


class PodCondition(K8sStruct, kw_only=True):
    """PodCondition contains details for the current condition of this pod."""

    last_probe_time: str | None = msgspec.field(default=None, name="lastProbeTime")
    last_transition_time: str | None = msgspec.field(default=None, name="lastTransitionTime")
    message: str | None = None
    observed_generation: int | None = msgspec.field(default=None, name="observedGeneration")
    reason: str | None = None
    status: str | None = None
    type: str | None = None


class PodDNSConfig(K8sStruct, kw_only=True):
    """PodDNSConfig defines the DNS parameters of a pod in addition to those generated from DNSPolicy."""

    nameservers: list[str] | None = None
    options: list[PodDNSConfigOption] | None = None
    searches: list[str] | None = None


class PodDNSConfigOption(K8sStruct, kw_only=True):
    """PodDNSConfigOption defines DNS resolver options of a pod."""

    name: str | None = None
    value: str | None = None


class PodExtendedResourceClaimStatus(K8sStruct, kw_only=True):
    """PodExtendedResourceClaimStatus is stored in the PodStatus for the extended resource requests backed by DRA."""

    request_mappings: list[ContainerExtendedResourceRequest] | None = msgspec.field(default=None, name="requestMappings")
    resource_claim_name: str | None = msgspec.field(default=None, name="resourceClaimName")


class PodIP(K8sStruct, kw_only=True):
    """PodIP represents a single IP address allocated to the pod."""

    ip: str | None = None


class PodOS(K8sStruct, kw_only=True):
    """PodOS defines the OS parameters of a pod."""

    name: str | None = None


class PodReadinessGate(K8sStruct, kw_only=True):
    """PodReadinessGate contains the reference to a pod condition"""

    condition_type: str | None = msgspec.field(default=None, name="conditionType")


class PodResourceClaim(K8sStruct, kw_only=True):
    """PodResourceClaim references exactly one ResourceClaim, either directly or by naming a ResourceClaimTemplate which is then turned into a ResourceClaim for the pod."""

    name: str | None = None
    resource_claim_name: str | None = msgspec.field(default=None, name="resourceClaimName")
    resource_claim_template_name: str | None = msgspec.field(default=None, name="resourceClaimTemplateName")


class PodResourceClaimStatus(K8sStruct, kw_only=True):
    """PodResourceClaimStatus is stored in the PodStatus for each PodResourceClaim which references a ResourceClaimTemplate."""

    name: str | None = None
    resource_claim_name: str | None = msgspec.field(default=None, name="resourceClaimName")


class PodSchedulingGate(K8sStruct, kw_only=True):
    """PodSchedulingGate is associated to a Pod to guard its scheduling."""

    name: str | None = None


class PodSchedulingGroup(K8sStruct, kw_only=True):
    """PodSchedulingGroup identifies the runtime scheduling group instance that a Pod belongs to."""

    pod_group_name: str | None = msgspec.field(default=None, name="podGroupName")


class PodSecurityContext(K8sStruct, kw_only=True):
    """PodSecurityContext holds pod-level security attributes and common container settings."""

    app_armor_profile: AppArmorProfile | None = msgspec.field(default=None, name="appArmorProfile")
    fs_group: int | None = msgspec.field(default=None, name="fsGroup")
    fs_group_change_policy: str | None = msgspec.field(default=None, name="fsGroupChangePolicy")
    run_as_group: int | None = msgspec.field(default=None, name="runAsGroup")
    run_as_non_root: bool | None = msgspec.field(default=None, name="runAsNonRoot")
    run_as_user: int | None = msgspec.field(default=None, name="runAsUser")
    se_linux_change_policy: str | None = msgspec.field(default=None, name="seLinuxChangePolicy")
    se_linux_options: SELinuxOptions | None = msgspec.field(default=None, name="seLinuxOptions")
    seccomp_profile: SeccompProfile | None = msgspec.field(default=None, name="seccompProfile")
    supplemental_groups: list[int] | None = msgspec.field(default=None, name="supplementalGroups")
    supplemental_groups_policy: str | None = msgspec.field(default=None, name="supplementalGroupsPolicy")
    sysctls: list[Sysctl] | None = None
    windows_options: WindowsSecurityContextOptions | None = msgspec.field(default=None, name="windowsOptions")


class PodSpec(K8sStruct, kw_only=True):
    """PodSpec is a description of a pod."""

    active_deadline_seconds: int | None = msgspec.field(default=None, name="activeDeadlineSeconds")
    affinity: Affinity | None = None
    automount_service_account_token: bool | None = msgspec.field(default=None, name="automountServiceAccountToken")
    containers: list[Container] | None = None
    dns_config: PodDNSConfig | None = msgspec.field(default=None, name="dnsConfig")
    dns_policy: str | None = msgspec.field(default=None, name="dnsPolicy")
    enable_service_links: bool | None = msgspec.field(default=None, name="enableServiceLinks")
    ephemeral_containers: list[EphemeralContainer] | None = msgspec.field(default=None, name="ephemeralContainers")
    eviction_responders: list[EvictionResponder] | None = msgspec.field(default=None, name="evictionResponders")
    host_aliases: list[HostAlias] | None = msgspec.field(default=None, name="hostAliases")
    host_ipc: bool | None = msgspec.field(default=None, name="hostIPC")
    host_network: bool | None = msgspec.field(default=None, name="hostNetwork")
    host_pid: bool | None = msgspec.field(default=None, name="hostPID")
    host_users: bool | None = msgspec.field(default=None, name="hostUsers")
    hostname: str | None = None
    hostname_override: str | None = msgspec.field(default=None, name="hostnameOverride")
    image_pull_secrets: list[LocalObjectReference] | None = msgspec.field(default=None, name="imagePullSecrets")
    init_containers: list[Container] | None = msgspec.field(default=None, name="initContainers")
    node_name: str | None = msgspec.field(default=None, name="nodeName")
    node_selector: dict[str, str] | None = msgspec.field(default=None, name="nodeSelector")
    os: PodOS | None = None
    overhead: dict[str, Quantity] | None = None
    preemption_policy: str | None = msgspec.field(default=None, name="preemptionPolicy")
    priority: int | None = None
    priority_class_name: str | None = msgspec.field(default=None, name="priorityClassName")
    readiness_gates: list[PodReadinessGate] | None = msgspec.field(default=None, name="readinessGates")
    resource_claims: list[PodResourceClaim] | None = msgspec.field(default=None, name="resourceClaims")
    resources: ResourceRequirements | None = None
    restart_policy: str | None = msgspec.field(default=None, name="restartPolicy")
    runtime_class_name: str | None = msgspec.field(default=None, name="runtimeClassName")
    scheduler_name: str | None = msgspec.field(default=None, name="schedulerName")
    scheduling_gates: list[PodSchedulingGate] | None = msgspec.field(default=None, name="schedulingGates")
    scheduling_group: PodSchedulingGroup | None = msgspec.field(default=None, name="schedulingGroup")
    security_context: PodSecurityContext | None = msgspec.field(default=None, name="securityContext")
    service_account: str | None = msgspec.field(default=None, name="serviceAccount")
    service_account_name: str | None = msgspec.field(default=None, name="serviceAccountName")
    set_hostname_as_fqdn: bool | None = msgspec.field(default=None, name="setHostnameAsFQDN")
    share_process_namespace: bool | None = msgspec.field(default=None, name="shareProcessNamespace")
    subdomain: str | None = None
    termination_grace_period_seconds: int | None = msgspec.field(default=None, name="terminationGracePeriodSeconds")
    tolerations: list[Toleration] | None = None
    topology_spread_constraints: list[TopologySpreadConstraint] | None = msgspec.field(default=None, name="topologySpreadConstraints")
    volumes: list[Volume] | None = None


class PodStatus(K8sStruct, kw_only=True):
    """PodStatus represents information about the status of a pod."""

    allocated_resources: dict[str, Quantity] | None = msgspec.field(default=None, name="allocatedResources")
    conditions: list[PodCondition] | None = None
    container_statuses: list[ContainerStatus] | None = msgspec.field(default=None, name="containerStatuses")
    ephemeral_container_statuses: list[ContainerStatus] | None = msgspec.field(default=None, name="ephemeralContainerStatuses")
    extended_resource_claim_status: PodExtendedResourceClaimStatus | None = msgspec.field(default=None, name="extendedResourceClaimStatus")
    host_ip: str | None = msgspec.field(default=None, name="hostIP")
    host_ips: list[HostIP] | None = msgspec.field(default=None, name="hostIPs")
    init_container_statuses: list[ContainerStatus] | None = msgspec.field(default=None, name="initContainerStatuses")
    message: str | None = None
    node_allocatable_resource_claim_statuses: list[NodeAllocatableResourceClaimStatus] | None = msgspec.field(default=None, name="nodeAllocatableResourceClaimStatuses")
    nominated_node_name: str | None = msgspec.field(default=None, name="nominatedNodeName")
    observed_generation: int | None = msgspec.field(default=None, name="observedGeneration")
    phase: str | None = None
    pod_ip: str | None = msgspec.field(default=None, name="podIP")
    pod_ips: list[PodIP] | None = msgspec.field(default=None, name="podIPs")
    qos_class: str | None = msgspec.field(default=None, name="qosClass")
    reason: str | None = None
    resize: str | None = None
    resource_claim_statuses: list[PodResourceClaimStatus] | None = msgspec.field(default=None, name="resourceClaimStatuses")
    resources: ResourceRequirements | None = None
    start_time: str | None = msgspec.field(default=None, name="startTime")
    volume_health: list[PodVolumeHealth] | None = msgspec.field(default=None, name="volumeHealth")


class PodTemplateSpec(K8sStruct, kw_only=True):
    """PodTemplateSpec describes the data a pod should have when created from a template"""

    metadata: meta_v1.ObjectMeta | None = None
    spec: PodSpec | None = None


class PodVolumeHealth(K8sStruct, kw_only=True):
    """PodVolumeHealth contains health information for a volume used by a pod, reported by the CSI node plugin via the kubelet."""

    health_conditions: list[VolumeHealthCondition] | None = msgspec.field(default=None, name="healthConditions")
    last_transition_time: str | None = msgspec.field(default=None, name="lastTransitionTime")
    name: str | None = None


class PortStatus(K8sStruct, kw_only=True):
    """PortStatus represents the error condition of a service port"""

    error: str | None = None
    port: int | None = None
    protocol: str | None = None


class PortworxVolumeSource(K8sStruct, kw_only=True):
    """PortworxVolumeSource represents a Portworx volume resource."""

    fs_type: str | None = msgspec.field(default=None, name="fsType")
    read_only: bool | None = msgspec.field(default=None, name="readOnly")
    volume_id: str | None = msgspec.field(default=None, name="volumeID")


class PreferredSchedulingTerm(K8sStruct, kw_only=True):
    """An empty preferred scheduling term matches all objects with implicit weight 0 (i.e."""

    preference: NodeSelectorTerm | None = None
    weight: int | None = None


class Probe(K8sStruct, kw_only=True):
    """Probe describes a health check to be performed against a container to determine whether it is alive or ready to receive traffic."""

    exec: ExecAction | None = None
    failure_threshold: int | None = msgspec.field(default=None, name="failureThreshold")
    grpc: GRPCAction | None = None
    http_get: HTTPGetAction | None = msgspec.field(default=None, name="httpGet")
    initial_delay_seconds: int | None = msgspec.field(default=None, name="initialDelaySeconds")
    period_seconds: int | None = msgspec.field(default=None, name="periodSeconds")
    success_threshold: int | None = msgspec.field(default=None, name="successThreshold")
    tcp_socket: TCPSocketAction | None = msgspec.field(default=None, name="tcpSocket")
    termination_grace_period_seconds: int | None = msgspec.field(default=None, name="terminationGracePeriodSeconds")
    timeout_seconds: int | None = msgspec.field(default=None, name="timeoutSeconds")


class ProjectedVolumeSource(K8sStruct, kw_only=True):
    """Represents a projected volume source"""

    default_mode: int | None = msgspec.field(default=None, name="defaultMode")
    default_user: int | None = msgspec.field(default=None, name="defaultUser")
    sources: list[VolumeProjection] | None = None


class QuobyteVolumeSource(K8sStruct, kw_only=True):
    """Represents a Quobyte mount that lasts the lifetime of a pod."""

    group: str | None = None
    read_only: bool | None = msgspec.field(default=None, name="readOnly")
    registry: str | None = None
    tenant: str | None = None
    user: str | None = None
    volume: str | None = None


class RBDPersistentVolumeSource(K8sStruct, kw_only=True):
    """Represents a Rados Block Device mount that lasts the lifetime of a pod."""

    fs_type: str | None = msgspec.field(default=None, name="fsType")
    image: str | None = None
    keyring: str | None = None
    monitors: list[str] | None = None
    pool: str | None = None
    read_only: bool | None = msgspec.field(default=None, name="readOnly")
    secret_ref: SecretReference | None = msgspec.field(default=None, name="secretRef")
    user: str | None = None


class RBDVolumeSource(K8sStruct, kw_only=True):
    """Represents a Rados Block Device mount that lasts the lifetime of a pod."""

    fs_type: str | None = msgspec.field(default=None, name="fsType")
    image: str | None = None
    keyring: str | None = None
    monitors: list[str] | None = None
    pool: str | None = None
    read_only: bool | None = msgspec.field(default=None, name="readOnly")
    secret_ref: LocalObjectReference | None = msgspec.field(default=None, name="secretRef")
    user: str | None = None


class ReplicationController(K8sStruct, kw_only=True):
    """ReplicationController represents the configuration of a replication controller."""

    api_version: str = msgspec.field(default_factory=partial(str, "v1"), name="apiVersion")
    kind: str = msgspec.field(default_factory=partial(str, "ReplicationController"))
    metadata: meta_v1.ObjectMeta = msgspec.field(default_factory=meta_v1.ObjectMeta)
    spec: ReplicationControllerSpec | None = None
    status: ReplicationControllerStatus | None = None


class ReplicationControllerCondition(K8sStruct, kw_only=True):
    """ReplicationControllerCondition describes the state of a replication controller at a certain point."""

    last_transition_time: str | None = msgspec.field(default=None, name="lastTransitionTime")
    message: str | None = None
    reason: str | None = None
    status: str | None = None
    type: str | None = None


class ReplicationControllerSpec(K8sStruct, kw_only=True):
    """ReplicationControllerSpec is the specification of a replication controller."""

    min_ready_seconds: int | None = msgspec.field(default=None, name="minReadySeconds")
    replicas: int | None = None
    selector: dict[str, str] | None = None
    template: PodTemplateSpec | None = None


class ReplicationControllerStatus(K8sStruct, kw_only=True):
    """ReplicationControllerStatus represents the current status of a replication controller."""

    available_replicas: int | None = msgspec.field(default=None, name="availableReplicas")
    conditions: list[ReplicationControllerCondition] | None = None
    fully_labeled_replicas: int | None = msgspec.field(default=None, name="fullyLabeledReplicas")
    observed_generation: int | None = msgspec.field(default=None, name="observedGeneration")
    ready_replicas: int | None = msgspec.field(default=None, name="readyReplicas")
    replicas: int | None = None


class ResourceClaim(K8sStruct, kw_only=True):
    """ResourceClaim references one entry in PodSpec.ResourceClaims."""

    name: str | None = None
    request: str | None = None


class ResourceFieldSelector(K8sStruct, kw_only=True):
    """ResourceFieldSelector represents container resources (cpu, memory) and their output format"""

    container_name: str | None = msgspec.field(default=None, name="containerName")
    divisor: Quantity | None = None
    resource: str | None = None


class ResourceHealth(K8sStruct, kw_only=True):
    """ResourceHealth represents the health of a resource."""

    health: str | None = None
    message: str | None = None
    resource_id: str | None = msgspec.field(default=None, name="resourceID")


class ResourceQuota(K8sStruct, kw_only=True):
    """ResourceQuota sets aggregate quota restrictions enforced per namespace"""

    api_version: str = msgspec.field(default_factory=partial(str, "v1"), name="apiVersion")
    kind: str = msgspec.field(default_factory=partial(str, "ResourceQuota"))
    metadata: meta_v1.ObjectMeta = msgspec.field(default_factory=meta_v1.ObjectMeta)
    spec: ResourceQuotaSpec | None = None
    status: ResourceQuotaStatus | None = None


class ResourceQuotaSpec(K8sStruct, kw_only=True):
    """ResourceQuotaSpec defines the desired hard limits to enforce for Quota."""

    hard: dict[str, Quantity] | None = None
    scope_selector: ScopeSelector | None = msgspec.field(default=None, name="scopeSelector")
    scopes: list[str] | None = None


class ResourceQuotaStatus(K8sStruct, kw_only=True):
    """ResourceQuotaStatus defines the enforced hard limits and observed use."""

    hard: dict[str, Quantity] | None = None
    used: dict[str, Quantity] | None = None


class ResourceRequirements(K8sStruct, kw_only=True):
    """ResourceRequirements describes the compute resource requirements."""

    claims: list[ResourceClaim] | None = None
    limits: dict[str, Quantity] | None = None
    requests: dict[str, Quantity] | None = None


class ResourceStatus(K8sStruct, kw_only=True):
    """ResourceStatus represents the status of a single resource allocated to a Pod."""

    name: str | None = None
    resources: list[ResourceHealth] | None = None


class SELinuxOptions(K8sStruct, kw_only=True):
    """SELinuxOptions are the labels to be applied to the container"""

    level: str | None = None
    role: str | None = None
    type: str | None = None
    user: str | None = None


class ScaleIOPersistentVolumeSource(K8sStruct, kw_only=True):
    """ScaleIOPersistentVolumeSource represents a persistent ScaleIO volume"""

    fs_type: str | None = msgspec.field(default=None, name="fsType")
    gateway: str | None = None
    protection_domain: str | None = msgspec.field(default=None, name="protectionDomain")
    read_only: bool | None = msgspec.field(default=None, name="readOnly")
    secret_ref: SecretReference | None = msgspec.field(default=None, name="secretRef")
    ssl_enabled: bool | None = msgspec.field(default=None, name="sslEnabled")
    storage_mode: str | None = msgspec.field(default=None, name="storageMode")
    storage_pool: str | None = msgspec.field(default=None, name="storagePool")
    system: str | None = None
    volume_name: str | None = msgspec.field(default=None, name="volumeName")


class ScaleIOVolumeSource(K8sStruct, kw_only=True):
    """ScaleIOVolumeSource represents a persistent ScaleIO volume"""

    fs_type: str | None = msgspec.field(default=None, name="fsType")
    gateway: str | None = None
    protection_domain: str | None = msgspec.field(default=None, name="protectionDomain")
    read_only: bool | None = msgspec.field(default=None, name="readOnly")
    secret_ref: LocalObjectReference | None = msgspec.field(default=None, name="secretRef")
    ssl_enabled: bool | None = msgspec.field(default=None, name="sslEnabled")
    storage_mode: str | None = msgspec.field(default=None, name="storageMode")
    storage_pool: str | None = msgspec.field(default=None, name="storagePool")
    system: str | None = None
    volume_name: str | None = msgspec.field(default=None, name="volumeName")


class ScopeSelector(K8sStruct, kw_only=True):
    """A scope selector represents the AND of the selectors represented by the scoped-resource selector requirements."""

    match_expressions: list[ScopedResourceSelectorRequirement] | None = msgspec.field(default=None, name="matchExpressions")


class ScopedResourceSelectorRequirement(K8sStruct, kw_only=True):
    """A scoped-resource selector requirement is a selector that contains values, a scope name, and an operator that relates the scope name and values."""

    operator: str | None = None
    scope_name: str | None = msgspec.field(default=None, name="scopeName")
    values: list[str] | None = None


class SeccompProfile(K8sStruct, kw_only=True):
    """SeccompProfile defines a pod/container's seccomp profile settings."""

    localhost_profile: str | None = msgspec.field(default=None, name="localhostProfile")
    type: str | None = None


class Secret(K8sStruct, kw_only=True):
    """Secret holds secret data of a certain type."""

    api_version: str = msgspec.field(default_factory=partial(str, "v1"), name="apiVersion")
    kind: str = msgspec.field(default_factory=partial(str, "Secret"))
    metadata: meta_v1.ObjectMeta = msgspec.field(default_factory=meta_v1.ObjectMeta)
    data: dict[str, str] | None = None
    immutable: bool | None = None
    string_data: dict[str, str] | None = msgspec.field(default=None, name="stringData")
    type: str | None = None


class SecretEnvSource(K8sStruct, kw_only=True):
    """SecretEnvSource selects a Secret to populate the environment variables with."""

    name: str | None = None
    optional: bool | None = None


class SecretKeySelector(K8sStruct, kw_only=True):
    """SecretKeySelector selects a key of a Secret."""

    key: str | None = None
    name: str | None = None
    optional: bool | None = None


class SecretProjection(K8sStruct, kw_only=True):
    """Adapts a secret into a projected volume."""

    items: list[KeyToPath] | None = None
    name: str | None = None
    optional: bool | None = None


class SecretReference(K8sStruct, kw_only=True):
    """SecretReference represents a Secret Reference."""

    name: str | None = None
    namespace: str | None = None


class SecretVolumeSource(K8sStruct, kw_only=True):
    """Adapts a Secret into a volume."""

    default_mode: int | None = msgspec.field(default=None, name="defaultMode")
    default_user: int | None = msgspec.field(default=None, name="defaultUser")
    items: list[KeyToPath] | None = None
    optional: bool | None = None
    secret_name: str | None = msgspec.field(default=None, name="secretName")


class SecurityContext(K8sStruct, kw_only=True):
    """SecurityContext holds security configuration that will be applied to a container."""

    allow_privilege_escalation: bool | None = msgspec.field(default=None, name="allowPrivilegeEscalation")
    app_armor_profile: AppArmorProfile | None = msgspec.field(default=None, name="appArmorProfile")
    capabilities: Capabilities | None = None
    privileged: bool | None = None
    proc_mount: str | None = msgspec.field(default=None, name="procMount")
    read_only_root_filesystem: bool | None = msgspec.field(default=None, name="readOnlyRootFilesystem")
    run_as_group: int | None = msgspec.field(default=None, name="runAsGroup")
    run_as_non_root: bool | None = msgspec.field(default=None, name="runAsNonRoot")
    run_as_user: int | None = msgspec.field(default=None, name="runAsUser")
    se_linux_options: SELinuxOptions | None = msgspec.field(default=None, name="seLinuxOptions")
    seccomp_profile: SeccompProfile | None = msgspec.field(default=None, name="seccompProfile")
    windows_options: WindowsSecurityContextOptions | None = msgspec.field(default=None, name="windowsOptions")


class Service(K8sStruct, kw_only=True):
    """Service is a named abstraction of software service (for example, mysql) consisting of local port (for example 3306) that the proxy listens on, and the selector that determines which pods will answer requests sent through the proxy."""

    api_version: str = msgspec.field(default_factory=partial(str, "v1"), name="apiVersion")
    kind: str = msgspec.field(default_factory=partial(str, "Service"))
    metadata: meta_v1.ObjectMeta = msgspec.field(default_factory=meta_v1.ObjectMeta)
    spec: ServiceSpec | None = None
    status: ServiceStatus | None = None


class ServiceAccount(K8sStruct, kw_only=True):
    """ServiceAccount binds together: * a name, understood by users, and perhaps by peripheral systems, for an identity * a principal that can be authenticated and authorized * a set of secrets"""

    api_version: str = msgspec.field(default_factory=partial(str, "v1"), name="apiVersion")
    kind: str = msgspec.field(default_factory=partial(str, "ServiceAccount"))
    metadata: meta_v1.ObjectMeta = msgspec.field(default_factory=meta_v1.ObjectMeta)
    automount_service_account_token: bool | None = msgspec.field(default=None, name="automountServiceAccountToken")
    image_pull_secrets: list[LocalObjectReference] | None = msgspec.field(default=None, name="imagePullSecrets")
    secrets: list[ObjectReference] | None = None


class ServiceAccountTokenProjection(K8sStruct, kw_only=True):
    """ServiceAccountTokenProjection represents a projected service account token volume."""

    audience: str | None = None
    expiration_seconds: int | None = msgspec.field(default=None, name="expirationSeconds")
    path: str | None = None
    user: int | None = None


class ServicePort(K8sStruct, kw_only=True):
    """ServicePort contains information on service's port."""

    app_protocol: str | None = msgspec.field(default=None, name="appProtocol")
    name: str | None = None
    node_port: int | None = msgspec.field(default=None, name="nodePort")
    port: int | None = None
    protocol: str | None = None
    target_port: IntOrString | None = msgspec.field(default=None, name="targetPort")


class ServiceSpec(K8sStruct, kw_only=True):
    """ServiceSpec describes the attributes that a user creates on a service."""

    allocate_load_balancer_node_ports: bool | None = msgspec.field(default=None, name="allocateLoadBalancerNodePorts")
    cluster_ip: str | None = msgspec.field(default=None, name="clusterIP")
    cluster_ips: list[str] | None = msgspec.field(default=None, name="clusterIPs")
    external_ips: list[str] | None = msgspec.field(default=None, name="externalIPs")
    external_name: str | None = msgspec.field(default=None, name="externalName")
    external_traffic_policy: str | None = msgspec.field(default=None, name="externalTrafficPolicy")
    health_check_node_port: int | None = msgspec.field(default=None, name="healthCheckNodePort")
    internal_traffic_policy: str | None = msgspec.field(default=None, name="internalTrafficPolicy")
    ip_families: list[str] | None = msgspec.field(default=None, name="ipFamilies")
    ip_family_policy: str | None = msgspec.field(default=None, name="ipFamilyPolicy")
    load_balancer_class: str | None = msgspec.field(default=None, name="loadBalancerClass")
    load_balancer_ip: str | None = msgspec.field(default=None, name="loadBalancerIP")
    load_balancer_source_ranges: list[str] | None = msgspec.field(default=None, name="loadBalancerSourceRanges")
    ports: list[ServicePort] | None = None
    publish_not_ready_addresses: bool | None = msgspec.field(default=None, name="publishNotReadyAddresses")
    selector: dict[str, str] | None = None
    session_affinity: str | None = msgspec.field(default=None, name="sessionAffinity")
    session_affinity_config: SessionAffinityConfig | None = msgspec.field(default=None, name="sessionAffinityConfig")
    traffic_distribution: str | None = msgspec.field(default=None, name="trafficDistribution")
    type: str | None = None


class ServiceStatus(K8sStruct, kw_only=True):
    """ServiceStatus represents the current status of a service."""

    conditions: list[meta_v1.Condition] | None = None
    load_balancer: LoadBalancerStatus | None = msgspec.field(default=None, name="loadBalancer")


class SessionAffinityConfig(K8sStruct, kw_only=True):
    """SessionAffinityConfig represents the configurations of session affinity."""

    client_ip: ClientIPConfig | None = msgspec.field(default=None, name="clientIP")


class SleepAction(K8sStruct, kw_only=True):
    """SleepAction describes a "sleep" action."""

    seconds: int | None = None


class StorageOSPersistentVolumeSource(K8sStruct, kw_only=True):
    """Represents a StorageOS persistent volume resource."""

    fs_type: str | None = msgspec.field(default=None, name="fsType")
    read_only: bool | None = msgspec.field(default=None, name="readOnly")
    secret_ref: ObjectReference | None = msgspec.field(default=None, name="secretRef")
    volume_name: str | None = msgspec.field(default=None, name="volumeName")
    volume_namespace: str | None = msgspec.field(default=None, name="volumeNamespace")


class StorageOSVolumeSource(K8sStruct, kw_only=True):
    """Represents a StorageOS persistent volume resource."""

    fs_type: str | None = msgspec.field(default=None, name="fsType")
    read_only: bool | None = msgspec.field(default=None, name="readOnly")
    secret_ref: LocalObjectReference | None = msgspec.field(default=None, name="secretRef")
    volume_name: str | None = msgspec.field(default=None, name="volumeName")
    volume_namespace: str | None = msgspec.field(default=None, name="volumeNamespace")


class Sysctl(K8sStruct, kw_only=True):
    """Sysctl defines a kernel parameter to be set"""

    name: str | None = None
    value: str | None = None


class TCPSocketAction(K8sStruct, kw_only=True):
    """TCPSocketAction describes an action based on opening a socket"""

    host: str | None = None
    port: IntOrString | None = None


class Taint(K8sStruct, kw_only=True):
    """The node this Taint is attached to has the "effect" on any pod that does not tolerate the Taint."""

    effect: str | None = None
    key: str | None = None
    time_added: str | None = msgspec.field(default=None, name="timeAdded")
    value: str | None = None


class Toleration(K8sStruct, kw_only=True):
    """The pod this Toleration is attached to tolerates any taint that matches the triple <key,value,effect> using the matching operator <operator>."""

    effect: str | None = None
    key: str | None = None
    operator: str | None = None
    toleration_seconds: int | None = msgspec.field(default=None, name="tolerationSeconds")
    value: str | None = None


class TopologySelectorLabelRequirement(K8sStruct, kw_only=True):
    """A topology selector requirement is a selector that matches given label."""

    key: str | None = None
    values: list[str] | None = None


class TopologySelectorTerm(K8sStruct, kw_only=True):
    """A topology selector term represents the result of label queries."""

    match_label_expressions: list[TopologySelectorLabelRequirement] | None = msgspec.field(default=None, name="matchLabelExpressions")


class TopologySpreadConstraint(K8sStruct, kw_only=True):
    """TopologySpreadConstraint specifies how to spread matching pods among the given topology."""

    label_selector: meta_v1.LabelSelector | None = msgspec.field(default=None, name="labelSelector")
    match_label_keys: list[str] | None = msgspec.field(default=None, name="matchLabelKeys")
    max_skew: int | None = msgspec.field(default=None, name="maxSkew")
    min_domains: int | None = msgspec.field(default=None, name="minDomains")
    node_affinity_policy: str | None = msgspec.field(default=None, name="nodeAffinityPolicy")
    node_taints_policy: str | None = msgspec.field(default=None, name="nodeTaintsPolicy")
    topology_key: str | None = msgspec.field(default=None, name="topologyKey")
    when_unsatisfiable: str | None = msgspec.field(default=None, name="whenUnsatisfiable")


class TypedLocalObjectReference(K8sStruct, kw_only=True):
    """TypedLocalObjectReference contains enough information to let you locate the typed referenced object inside the same namespace."""

    api_group: str | None = msgspec.field(default=None, name="apiGroup")
    kind: str | None = None
    name: str | None = None


class TypedObjectReference(K8sStruct, kw_only=True):
    """TypedObjectReference contains enough information to let you locate the typed referenced object"""

    api_group: str | None = msgspec.field(default=None, name="apiGroup")
    kind: str | None = None
    name: str | None = None
    namespace: str | None = None


class Volume(K8sStruct, kw_only=True):
    """Volume represents a named volume in a pod that may be accessed by any container in the pod."""

    aws_elastic_block_store: AWSElasticBlockStoreVolumeSource | None = msgspec.field(default=None, name="awsElasticBlockStore")
    azure_disk: AzureDiskVolumeSource | None = msgspec.field(default=None, name="azureDisk")
    azure_file: AzureFileVolumeSource | None = msgspec.field(default=None, name="azureFile")
    cephfs: CephFSVolumeSource | None = None
    cinder: CinderVolumeSource | None = None
    config_map: ConfigMapVolumeSource | None = msgspec.field(default=None, name="configMap")
    csi: CSIVolumeSource | None = None
    downward_api: DownwardAPIVolumeSource | None = msgspec.field(default=None, name="downwardAPI")
    empty_dir: EmptyDirVolumeSource | None = msgspec.field(default=None, name="emptyDir")
    ephemeral: EphemeralVolumeSource | None = None
    fc: FCVolumeSource | None = None
    flex_volume: FlexVolumeSource | None = msgspec.field(default=None, name="flexVolume")
    flocker: FlockerVolumeSource | None = None
    gce_persistent_disk: GCEPersistentDiskVolumeSource | None = msgspec.field(default=None, name="gcePersistentDisk")
    git_repo: GitRepoVolumeSource | None = msgspec.field(default=None, name="gitRepo")
    glusterfs: GlusterfsVolumeSource | None = None
    host_path: HostPathVolumeSource | None = msgspec.field(default=None, name="hostPath")
    image: ImageVolumeSource | None = None
    iscsi: ISCSIVolumeSource | None = None
    name: str | None = None
    nfs: NFSVolumeSource | None = None
    persistent_volume_claim: PersistentVolumeClaimVolumeSource | None = msgspec.field(default=None, name="persistentVolumeClaim")
    photon_persistent_disk: PhotonPersistentDiskVolumeSource | None = msgspec.field(default=None, name="photonPersistentDisk")
    portworx_volume: PortworxVolumeSource | None = msgspec.field(default=None, name="portworxVolume")
    projected: ProjectedVolumeSource | None = None
    quobyte: QuobyteVolumeSource | None = None
    rbd: RBDVolumeSource | None = None
    scale_io: ScaleIOVolumeSource | None = msgspec.field(default=None, name="scaleIO")
    secret: SecretVolumeSource | None = None
    storageos: StorageOSVolumeSource | None = None
    vsphere_volume: VsphereVirtualDiskVolumeSource | None = msgspec.field(default=None, name="vsphereVolume")


class VolumeDevice(K8sStruct, kw_only=True):
    """volumeDevice describes a mapping of a raw block device within a container."""

    device_path: str | None = msgspec.field(default=None, name="devicePath")
    name: str | None = None


class VolumeHealthCondition(K8sStruct, kw_only=True):
    """VolumeHealthCondition represents an adverse health condition reported for a volume."""

    message: str | None = None
    reason: str | None = None
    status: str | None = None


class VolumeHealthStatus(K8sStruct, kw_only=True):
    """VolumeHealthStatus contains health information for a volume reported by the CSI controller plugin."""

    health_conditions: list[VolumeHealthCondition] | None = msgspec.field(default=None, name="healthConditions")
    last_transition_time: str | None = msgspec.field(default=None, name="lastTransitionTime")


class VolumeMount(K8sStruct, kw_only=True):
    """VolumeMount describes a mounting of a Volume within a container."""

    bind_mount_options: list[str] | None = msgspec.field(default=None, name="bindMountOptions")
    mount_path: str | None = msgspec.field(default=None, name="mountPath")
    mount_propagation: str | None = msgspec.field(default=None, name="mountPropagation")
    name: str | None = None
    read_only: bool | None = msgspec.field(default=None, name="readOnly")
    recursive_read_only: str | None = msgspec.field(default=None, name="recursiveReadOnly")
    sub_path: str | None = msgspec.field(default=None, name="subPath")
    sub_path_expr: str | None = msgspec.field(default=None, name="subPathExpr")


class VolumeMountStatus(K8sStruct, kw_only=True):
    """VolumeMountStatus shows status of volume mounts."""

    mount_path: str | None = msgspec.field(default=None, name="mountPath")
    name: str | None = None
    read_only: bool | None = msgspec.field(default=None, name="readOnly")
    recursive_read_only: str | None = msgspec.field(default=None, name="recursiveReadOnly")
    volume_status: VolumeStatus | None = msgspec.field(default=None, name="volumeStatus")


class VolumeNodeAffinity(K8sStruct, kw_only=True):
    """VolumeNodeAffinity defines constraints that limit what nodes this volume can be accessed from."""

    required: NodeSelector | None = None


class VolumeProjection(K8sStruct, kw_only=True):
    """Projection that may be projected along with other supported volume types."""

    cluster_trust_bundle: ClusterTrustBundleProjection | None = msgspec.field(default=None, name="clusterTrustBundle")
    config_map: ConfigMapProjection | None = msgspec.field(default=None, name="configMap")
    downward_api: DownwardAPIProjection | None = msgspec.field(default=None, name="downwardAPI")
    pod_certificate: PodCertificateProjection | None = msgspec.field(default=None, name="podCertificate")
    secret: SecretProjection | None = None
    service_account_token: ServiceAccountTokenProjection | None = msgspec.field(default=None, name="serviceAccountToken")


class VolumeResourceRequirements(K8sStruct, kw_only=True):
    """VolumeResourceRequirements describes the storage resource requirements for a volume."""

    limits: dict[str, Quantity] | None = None
    requests: dict[str, Quantity] | None = None


class VolumeStatus(K8sStruct, kw_only=True):
    """VolumeStatus represents the status of a mounted volume."""

    image: ImageVolumeStatus | None = None


class VsphereVirtualDiskVolumeSource(K8sStruct, kw_only=True):
    """Represents a vSphere volume resource."""

    fs_type: str | None = msgspec.field(default=None, name="fsType")
    storage_policy_id: str | None = msgspec.field(default=None, name="storagePolicyID")
    storage_policy_name: str | None = msgspec.field(default=None, name="storagePolicyName")
    volume_path: str | None = msgspec.field(default=None, name="volumePath")


class WeightedPodAffinityTerm(K8sStruct, kw_only=True):
    """The weights of all of the matched WeightedPodAffinityTerm fields are added per-node to find the most preferred node(s)"""

    pod_affinity_term: PodAffinityTerm | None = msgspec.field(default=None, name="podAffinityTerm")
    weight: int | None = None


class WindowsSecurityContextOptions(K8sStruct, kw_only=True):
    """WindowsSecurityContextOptions contain Windows-specific options and credentials."""

    gmsa_credential_spec: str | None = msgspec.field(default=None, name="gmsaCredentialSpec")
    gmsa_credential_spec_name: str | None = msgspec.field(default=None, name="gmsaCredentialSpecName")
    host_process: bool | None = msgspec.field(default=None, name="hostProcess")
    run_as_user_name: str | None = msgspec.field(default=None, name="runAsUserName")
