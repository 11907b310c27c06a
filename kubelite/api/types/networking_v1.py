"""Generated msgspec Structs for networking/v1 (Kubernetes 1.37). DO NOT EDIT.

Regenerate with ``python tools/gen_api.py``; see kubelite/api/types/_base.py for the
conventions (every field optional, exact JSON names, unknown fields rejected)."""

from __future__ import annotations

from functools import partial

import msgspec

from kubelite.api.types import core_v1
from kubelite.api.types import meta_v1
from kubelite.api.types._base import IntOrString, K8sStruct

__all__ = [
    "HTTPIngressPath", "HTTPIngressRuleValue", "IPBlock", "Ingress", "IngressBackend",
    "IngressClass", "IngressClassParametersReference", "IngressClassSpec",
    "IngressLoadBalancerIngress", "IngressLoadBalancerStatus", "IngressPortStatus", "IngressRule",
    "IngressServiceBackend", "IngressSpec", "IngressStatus", "IngressTLS", "NetworkPolicy",
    "NetworkPolicyEgressRule", "NetworkPolicyIngressRule", "NetworkPolicyPeer", "NetworkPolicyPort",
    "NetworkPolicySpec", "ServiceBackendPort"
]


class HTTPIngressPath(K8sStruct, kw_only=True):
    """HTTPIngressPath associates a path with a backend."""

    backend: IngressBackend | None = None
    path: str | None = None
    path_type: str | None = msgspec.field(default=None, name="pathType")


class HTTPIngressRuleValue(K8sStruct, kw_only=True):
    """HTTPIngressRuleValue is a list of http selectors pointing to backends."""

    paths: list[HTTPIngressPath] | None = None


class IPBlock(K8sStruct, kw_only=True):
    """IPBlock describes a particular CIDR (Ex."""

    cidr: str | None = None
    except_: list[str] | None = msgspec.field(default=None, name="except")


class Ingress(K8sStruct, kw_only=True):
    """Ingress is a collection of rules that allow inbound connections to reach the endpoints defined by a backend."""

    api_version: str = msgspec.field(default_factory=partial(str, "networking.k8s.io/v1"), name="apiVersion")
    kind: str = msgspec.field(default_factory=partial(str, "Ingress"))
    metadata: meta_v1.ObjectMeta = msgspec.field(default_factory=meta_v1.ObjectMeta)
    spec: IngressSpec | None = None
    status: IngressStatus | None = None


class IngressBackend(K8sStruct, kw_only=True):
    """IngressBackend describes all endpoints for a given service and port."""

    resource: core_v1.TypedLocalObjectReference | None = None
    service: IngressServiceBackend | None = None


class IngressClass(K8sStruct, kw_only=True):
    """IngressClass represents the class of the Ingress, referenced by the Ingress Spec."""

    api_version: str = msgspec.field(default_factory=partial(str, "networking.k8s.io/v1"), name="apiVersion")
    kind: str = msgspec.field(default_factory=partial(str, "IngressClass"))
    metadata: meta_v1.ObjectMeta = msgspec.field(default_factory=meta_v1.ObjectMeta)
    spec: IngressClassSpec | None = None


class IngressClassParametersReference(K8sStruct, kw_only=True):
    """IngressClassParametersReference identifies an API object."""

    api_group: str | None = msgspec.field(default=None, name="apiGroup")
    kind: str | None = None
    name: str | None = None
    namespace: str | None = None
    scope: str | None = None


class IngressClassSpec(K8sStruct, kw_only=True):
    """IngressClassSpec provides information about the class of an Ingress."""

    controller: str | None = None
    parameters: IngressClassParametersReference | None = None


class IngressLoadBalancerIngress(K8sStruct, kw_only=True):
    """IngressLoadBalancerIngress represents the status of a load-balancer ingress point."""

    hostname: str | None = None
    ip: str | None = None
    ports: list[IngressPortStatus] | None = None


class IngressLoadBalancerStatus(K8sStruct, kw_only=True):
    """IngressLoadBalancerStatus represents the status of a load-balancer."""

    ingress: list[IngressLoadBalancerIngress] | None = None


class IngressPortStatus(K8sStruct, kw_only=True):
    """IngressPortStatus represents the error condition of a service port"""

    error: str | None = None
    port: int | None = None
    protocol: str | None = None


class IngressRule(K8sStruct, kw_only=True):
    """IngressRule represents the rules mapping the paths under a specified host to the related backend services."""

    host: str | None = None
    http: HTTPIngressRuleValue | None = None


class IngressServiceBackend(K8sStruct, kw_only=True):
    """IngressServiceBackend references a Kubernetes Service as a Backend."""

    name: str | None = None
    port: ServiceBackendPort | None = None


class IngressSpec(K8sStruct, kw_only=True):
    """IngressSpec describes the Ingress the user wishes to exist."""

    default_backend: IngressBackend | None = msgspec.field(default=None, name="defaultBackend")
    ingress_class_name: str | None = msgspec.field(default=None, name="ingressClassName")
    rules: list[IngressRule] | None = None
    tls: list[IngressTLS] | None = None


class IngressStatus(K8sStruct, kw_only=True):
    """IngressStatus describe the current state of the Ingress."""

    load_balancer: IngressLoadBalancerStatus | None = msgspec.field(default=None, name="loadBalancer")


class IngressTLS(K8sStruct, kw_only=True):
    """IngressTLS describes the transport layer security associated with an ingress."""

    hosts: list[str] | None = None
    secret_name: str | None = msgspec.field(default=None, name="secretName")


class NetworkPolicy(K8sStruct, kw_only=True):
    """NetworkPolicy describes what network traffic is allowed for a set of Pods"""

    api_version: str = msgspec.field(default_factory=partial(str, "networking.k8s.io/v1"), name="apiVersion")
    kind: str = msgspec.field(default_factory=partial(str, "NetworkPolicy"))
    metadata: meta_v1.ObjectMeta = msgspec.field(default_factory=meta_v1.ObjectMeta)
    spec: NetworkPolicySpec | None = None


class NetworkPolicyEgressRule(K8sStruct, kw_only=True):
    """NetworkPolicyEgressRule describes a particular set of traffic that is allowed out of pods matched by a NetworkPolicySpec's podSelector."""

    ports: list[NetworkPolicyPort] | None = None
    to: list[NetworkPolicyPeer] | None = None


class NetworkPolicyIngressRule(K8sStruct, kw_only=True):
    """NetworkPolicyIngressRule describes a particular set of traffic that is allowed to the pods matched by a NetworkPolicySpec's podSelector."""

    from_: list[NetworkPolicyPeer] | None = msgspec.field(default=None, name="from")
    ports: list[NetworkPolicyPort] | None = None


class NetworkPolicyPeer(K8sStruct, kw_only=True):
    """NetworkPolicyPeer describes a peer to allow traffic to/from."""

    ip_block: IPBlock | None = msgspec.field(default=None, name="ipBlock")
    namespace_selector: meta_v1.LabelSelector | None = msgspec.field(default=None, name="namespaceSelector")
    pod_selector: meta_v1.LabelSelector | None = msgspec.field(default=None, name="podSelector")


class NetworkPolicyPort(K8sStruct, kw_only=True):
    """NetworkPolicyPort describes a port to allow traffic on"""

    end_port: int | None = msgspec.field(default=None, name="endPort")
    port: IntOrString | None = None
    protocol: str | None = None


class NetworkPolicySpec(K8sStruct, kw_only=True):
    """NetworkPolicySpec provides the specification of a NetworkPolicy"""

    egress: list[NetworkPolicyEgressRule] | None = None
    ingress: list[NetworkPolicyIngressRule] | None = None
    pod_selector: meta_v1.LabelSelector | None = msgspec.field(default=None, name="podSelector")
    policy_types: list[str] | None = msgspec.field(default=None, name="policyTypes")


class ServiceBackendPort(K8sStruct, kw_only=True):
    """ServiceBackendPort is the service port being referenced."""

    name: str | None = None
    number: int | None = None
