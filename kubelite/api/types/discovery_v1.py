"""Generated msgspec Structs for discovery/v1 (Kubernetes 1.37). DO NOT EDIT.

Regenerate with ``python tools/gen_api.py``; see kubelite/api/types/_base.py for the
conventions (every field optional, exact JSON names, unknown fields rejected)."""

from __future__ import annotations

from functools import partial

import msgspec

from kubelite.api.types import core_v1
from kubelite.api.types import meta_v1
from kubelite.api.types._base import K8sStruct

__all__ = [
    "Endpoint", "EndpointConditions", "EndpointHints", "EndpointPort", "EndpointSlice", "ForNode",
    "ForZone"
]


class Endpoint(K8sStruct, kw_only=True):
    """Endpoint represents a single logical "backend" implementing a service."""

    addresses: list[str] | None = None
    conditions: EndpointConditions | None = None
    deprecated_topology: dict[str, str] | None = msgspec.field(default=None, name="deprecatedTopology")
    hints: EndpointHints | None = None
    hostname: str | None = None
    node_name: str | None = msgspec.field(default=None, name="nodeName")
    target_ref: core_v1.ObjectReference | None = msgspec.field(default=None, name="targetRef")
    zone: str | None = None


class EndpointConditions(K8sStruct, kw_only=True):
    """EndpointConditions represents the current condition of an endpoint."""

    ready: bool | None = None
    serving: bool | None = None
    terminating: bool | None = None


class EndpointHints(K8sStruct, kw_only=True):
    """EndpointHints provides hints describing how an endpoint should be consumed."""

    for_nodes: list[ForNode] | None = msgspec.field(default=None, name="forNodes")
    for_zones: list[ForZone] | None = msgspec.field(default=None, name="forZones")


class EndpointPort(K8sStruct, kw_only=True):
    """EndpointPort represents a Port used by an EndpointSlice"""

    app_protocol: str | None = msgspec.field(default=None, name="appProtocol")
    name: str | None = None
    port: int | None = None
    protocol: str | None = None


class EndpointSlice(K8sStruct, kw_only=True):
    """EndpointSlice represents a set of service endpoints."""

    api_version: str = msgspec.field(default_factory=partial(str, "discovery.k8s.io/v1"), name="apiVersion")
    kind: str = msgspec.field(default_factory=partial(str, "EndpointSlice"))
    metadata: meta_v1.ObjectMeta = msgspec.field(default_factory=meta_v1.ObjectMeta)
    address_type: str | None = msgspec.field(default=None, name="addressType")
    endpoints: list[Endpoint] | None = None
    ports: list[EndpointPort] | None = None


class ForNode(K8sStruct, kw_only=True):
    """ForNode provides information about which nodes should consume this endpoint."""

    name: str | None = None


class ForZone(K8sStruct, kw_only=True):
    """ForZone provides information about which zones should consume this endpoint."""

    name: str | None = None
