"""Generated msgspec Structs for apiregistration/v1 (Kubernetes 1.37). DO NOT EDIT.

Regenerate with ``python tools/gen_api.py``; see kubelite/api/types/_base.py for the
conventions (every field optional, exact JSON names, unknown fields rejected)."""

from __future__ import annotations

from functools import partial

import msgspec

from kubelite.api.types import meta_v1
from kubelite.api.types._base import K8sStruct

__all__ = [
    "APIService", "APIServiceCondition", "APIServiceSpec", "APIServiceStatus", "ServiceReference"
]


class APIService(K8sStruct, kw_only=True):
    """APIService represents a server for a particular GroupVersion."""

    api_version: str = msgspec.field(default_factory=partial(str, "apiregistration.k8s.io/v1"), name="apiVersion")
    kind: str = msgspec.field(default_factory=partial(str, "APIService"))
    metadata: meta_v1.ObjectMeta = msgspec.field(default_factory=meta_v1.ObjectMeta)
    spec: APIServiceSpec | None = None
    status: APIServiceStatus | None = None


class APIServiceCondition(K8sStruct, kw_only=True):
    """APIServiceCondition describes the state of an APIService at a particular point"""

    last_transition_time: str | None = msgspec.field(default=None, name="lastTransitionTime")
    message: str | None = None
    reason: str | None = None
    status: str | None = None
    type: str | None = None


class APIServiceSpec(K8sStruct, kw_only=True):
    """APIServiceSpec contains information for locating and communicating with a server."""

    ca_bundle: str | None = msgspec.field(default=None, name="caBundle")
    group: str | None = None
    group_priority_minimum: int | None = msgspec.field(default=None, name="groupPriorityMinimum")
    insecure_skip_tls_verify: bool | None = msgspec.field(default=None, name="insecureSkipTLSVerify")
    service: ServiceReference | None = None
    version: str | None = None
    version_priority: int | None = msgspec.field(default=None, name="versionPriority")


class APIServiceStatus(K8sStruct, kw_only=True):
    """APIServiceStatus contains derived information about an API server"""

    conditions: list[APIServiceCondition] | None = None


class ServiceReference(K8sStruct, kw_only=True):
    """ServiceReference holds a reference to Service.legacy.k8s.io"""

    name: str | None = None
    namespace: str | None = None
    port: int | None = None
