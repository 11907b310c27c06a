"""Generated msgspec Structs for meta/v1 (Kubernetes 1.37). DO NOT EDIT.

Regenerate with ``python tools/gen_api.py``; see kubelite/api/types/_base.py for the
conventions (every field optional, exact JSON names, unknown fields rejected)."""

from __future__ import annotations

from functools import partial
from typing import Any

import msgspec

from kubelite.api.types._base import K8sStruct

__all__ = [
    "Condition", "DeleteOptions", "FieldSelectorRequirement", "LabelSelector",
    "LabelSelectorRequirement", "ListMeta", "ManagedFieldsEntry", "ObjectMeta", "OwnerReference",
    "Preconditions", "ShardInfo", "Status", "StatusCause", "StatusDetails"
]


class Condition(K8sStruct, kw_only=True):
    """Condition contains details for one aspect of the current state of this API Resource."""

    last_transition_time: str | None = msgspec.field(default=None, name="lastTransitionTime")
    message: str | None = None
    observed_generation: int | None = msgspec.field(default=None, name="observedGeneration")
    reason: str | None = None
    status: str | None = None
    type: str | None = None


class DeleteOptions(K8sStruct, kw_only=True):
    """DeleteOptions may be provided when deleting an API object."""

    api_version: str | None = msgspec.field(default=None, name="apiVersion")
    kind: str | None = None
    dry_run: list[str] | None = msgspec.field(default=None, name="dryRun")
    grace_period_seconds: int | None = msgspec.field(default=None, name="gracePeriodSeconds")
    ignore_store_read_error_with_cluster_breaking_potential: bool | None = msgspec.field(default=None, name="ignoreStoreReadErrorWithClusterBreakingPotential")
    orphan_dependents: bool | None = msgspec.field(default=None, name="orphanDependents")
    preconditions: Preconditions | None = None
    propagation_policy: str | None = msgspec.field(default=None, name="propagationPolicy")


class FieldSelectorRequirement(K8sStruct, kw_only=True):
    """FieldSelectorRequirement is a selector that contains values, a key, and an operator that relates the key and values."""

    key: str | None = None
    operator: str | None = None
    values: list[str] | None = None


class LabelSelector(K8sStruct, kw_only=True):
    """A label selector is a label query over a set of resources."""

    match_expressions: list[LabelSelectorRequirement] | None = msgspec.field(default=None, name="matchExpressions")
    match_labels: dict[str, str] | None = msgspec.field(default=None, name="matchLabels")


class LabelSelectorRequirement(K8sStruct, kw_only=True):
    """A label selector requirement is a selector that contains values, a key, and an operator that relates the key and values."""

    key: str | None = None
    operator: str | None = None
    values: list[str] | None = None


class ListMeta(K8sStruct, kw_only=True):
    """ListMeta describes metadata that synthetic resources must have, including lists and various status objects."""

    continue_: str | None = msgspec.field(default=None, name="continue")
    remaining_item_count: int | None = msgspec.field(default=None, name="remainingItemCount")
    resource_version: str | None = msgspec.field(default=None, name="resourceVersion")
    self_link: str | None = msgspec.field(default=None, name="selfLink")
    shard_info: ShardInfo | None = msgspec.field(default=None, name="shardInfo")


class ManagedFieldsEntry(K8sStruct, kw_only=True):
    """ManagedFieldsEntry is a workflow-id, a FieldSet and the group version of the resource that the fieldset applies to."""

    api_version: str | None = msgspec.field(default=None, name="apiVersion")
    fields_type: str | None = msgspec.field(default=None, name="fieldsType")
    fields_v1: dict[str, Any] | None = msgspec.field(default=None, name="fieldsV1")
    manager: str | None = None
    operation: str | None = None
    subresource: str | None = None
    time: str | None = None


class ObjectMeta(K8sStruct, kw_only=True):
    """ObjectMeta is metadata that all persisted resources must have, which includes all objects users must create."""

    annotations: dict[str, str] | None = None
    creation_timestamp: str | None = msgspec.field(default=None, name="creationTimestamp")
    deletion_grace_period_seconds: int | None = msgspec.field(default=None, name="deletionGracePeriodSeconds")
    deletion_timestamp: str | None = msgspec.field(default=None, name="deletionTimestamp")
    finalizers: list[str] | None = None
    generate_name: str | None = msgspec.field(default=None, name="generateName")
    generation: int | None = None
    labels: dict[str, str] | None = None
    managed_fields: list[ManagedFieldsEntry] | None = msgspec.field(default=None, name="managedFields")
    name: str | None = None
    namespace: str | None = None
    owner_references: list[OwnerReference] | None = msgspec.field(default=None, name="ownerReferences")
    resource_version: str | None = msgspec.field(default=None, name="resourceVersion")
    self_link: str | None = msgspec.field(default=None, name="selfLink")
    uid: str | None = None


class OwnerReference(K8sStruct, kw_only=True):
    """OwnerReference contains enough information to let you identify an owning object."""

    api_version: str | None = msgspec.field(default=None, name="apiVersion")
    block_owner_deletion: bool | None = msgspec.field(default=None, name="blockOwnerDeletion")
    controller: bool | None = None
    kind: str | None = None
    name: str | None = None
    uid: str | None = None


class Preconditions(K8sStruct, kw_only=True):
    """Preconditions must be fulfilled before an operation (update, delete, etc.) is carried out."""

    resource_version: str | None = msgspec.field(default=None, name="resourceVersion")
    uid: str | None = None


class ShardInfo(K8sStruct, kw_only=True):
    """ShardInfo describes the shard selector that was applied to produce a list response."""

    selector: str | None = None


class Status(K8sStruct, kw_only=True):
    """Status is a return value for calls that don't return other objects."""

    api_version: str = msgspec.field(default_factory=partial(str, "v1"), name="apiVersion")
    kind: str = msgspec.field(default_factory=partial(str, "Status"))
    metadata: ListMeta | None = None
    code: int | None = None
    details: StatusDetails | None = None
    message: str | None = None
    reason: str | None = None
    status: str | None = None


class StatusCause(K8sStruct, kw_only=True):
    """StatusCause provides more information about an api.Status failure, including cases when multiple errors are encountered."""

    field: str | None = None
    message: str | None = None
    reason: str | None = None


class StatusDetails(K8sStruct, kw_only=True):
    """StatusDetails is a set of additional properties that MAY be set by the server to provide additional information about a response."""

    causes: list[StatusCause] | None = None
    group: str | None = None
    kind: str | None = None
    name: str | None = None
    retry_after_seconds: int | None = msgspec.field(default=None, name="retryAfterSeconds")
    uid: str | None = None
