"""Generated msgspec Structs for coordination/v1 (Kubernetes 1.37). DO NOT EDIT.

Regenerate with ``python tools/gen_api.py``; see kubelite/api/types/_base.py for the
conventions (every field optional, exact JSON names, unknown fields rejected)."""

from __future__ import annotations

from functools import partial

import msgspec

from kubelite.api.types import meta_v1
from kubelite.api.types._base import K8sStruct

__all__ = [
    "Lease", "LeaseSpec"
]


class Lease(K8sStruct, kw_only=True):
    """Lease defines a lease concept."""

    api_version: str = msgspec.field(default_factory=partial(str, "coordination.k8s.io/v1"), name="apiVersion")
    kind: str = msgspec.field(default_factory=partial(str, "Lease"))
    metadata: meta_v1.ObjectMeta = msgspec.field(default_factory=meta_v1.ObjectMeta)
    spec: LeaseSpec | None = None


class LeaseSpec(K8sStruct, kw_only=True):
    """LeaseSpec is a specification of a Lease."""

    acquire_time: str | None = msgspec.field(default=None, name="acquireTime")
    holder_identity: str | None = msgspec.field(default=None, name="holderIdentity")
    lease_duration_seconds: int | None = msgspec.field(default=None, name="leaseDurationSeconds")
    lease_transitions: int | None = msgspec.field(default=None, name="leaseTransitions")
    preferred_holder: str | None = msgspec.field(default=None, name="preferredHolder")
    renew_time: str | None = msgspec.field(default=None, name="renewTime")
    strategy: str | None = None
