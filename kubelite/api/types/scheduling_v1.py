"""Generated msgspec Structs for scheduling/v1 (Kubernetes 1.37). DO NOT EDIT.

Regenerate with ``python tools/gen_api.py``; see kubelite/api/types/_base.py for the
conventions (every field optional, exact JSON names, unknown fields rejected)."""

from __future__ import annotations

from functools import partial

import msgspec

from kubelite.api.types import meta_v1
from kubelite.api.types._base import K8sStruct

__all__ = [
    "PriorityClass"
]


class PriorityClass(K8sStruct, kw_only=True):
    """PriorityClass defines mapping from a priority class name to the priority integer value."""

    api_version: str = msgspec.field(default_factory=partial(str, "scheduling.k8s.io/v1"), name="apiVersion")
    kind: str = msgspec.field(default_factory=partial(str, "PriorityClass"))
    metadata: meta_v1.ObjectMeta = msgspec.field(default_factory=meta_v1.ObjectMeta)
    description: str | None = None
    global_default: bool | None = msgspec.field(default=None, name="globalDefault")
    preemption_policy: str | None = msgspec.field(default=None, name="preemptionPolicy")
    value: int | None = None
