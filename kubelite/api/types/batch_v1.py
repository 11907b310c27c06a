"""Generated msgspec Structs for batch/v1 (Kubernetes 1.37). DO NOT EDIT.

Regenerate with ``python tools/gen_api.py``; see kubelite/api/types/_base.py for the
conventions (every field optional, exact JSON names, unknown fields rejected)."""

from __future__ import annotations

from functools import partial

import msgspec

from kubelite.api.types import core_v1
from kubelite.api.types import meta_v1
from kubelite.api.types import scheduling_v1alpha3
from kubelite.api.types._base import K8sStruct

__all__ = [
    "CronJob", "CronJobSpec", "CronJobStatus", "Job", "JobCondition", "JobSchedulingConfiguration",
    "JobSpec", "JobStatus", "JobTemplateSpec", "PodFailurePolicy",
    "PodFailurePolicyOnExitCodesRequirement", "PodFailurePolicyOnPodConditionsPattern",
    "PodFailurePolicyRule", "SuccessPolicy", "SuccessPolicyRule", "UncountedTerminatedPods"
]


class CronJob(K8sStruct, kw_only=True):
    """CronJob represents the configuration of a single cron job."""

    api_version: str = msgspec.field(default_factory=partial(str, "batch/v1"), name="apiVersion")
    kind: str = msgspec.field(default_factory=partial(str, "CronJob"))
    metadata: meta_v1.ObjectMeta = msgspec.field(default_factory=meta_v1.ObjectMeta)
    spec: CronJobSpec | None = None
    status: CronJobStatus | None = None


class CronJobSpec(K8sStruct, kw_only=True):
    """CronJobSpec describes how the job execution will look like and when it will actually run."""

    concurrency_policy: str | None = msgspec.field(default=None, name="concurrencyPolicy")
    failed_jobs_history_limit: int | None = msgspec.field(default=None, name="failedJobsHistoryLimit")
    job_template: JobTemplateSpec | None = msgspec.field(default=None, name="jobTemplate")
    schedule: str | None = None
    starting_deadline_seconds: int | None = msgspec.field(default=None, name="startingDeadlineSeconds")
    successful_jobs_history_limit: int | None = msgspec.field(default=None, name="successfulJobsHistoryLimit")
    suspend: bool | None = None
    time_zone: str | None = msgspec.field(default=None, name="timeZone")


class CronJobStatus(K8sStruct, kw_only=True):
    """CronJobStatus represents the current state of a cron job."""

    active: list[core_v1.ObjectReference] | None = None
    last_schedule_time: str | None = msgspec.field(default=None, name="lastScheduleTime")
    last_successful_time: str | None = msgspec.field(default=None, name="lastSuccessfulTime")


class Job(K8sStruct, kw_only=True):
    """Job represents the configuration of a single job."""

    api_version: str = msgspec.field(default_factory=partial(str, "batch/v1"), name="apiVersion")
    kind: str = msgspec.field(default_factory=partial(str, "Job"))
    metadata: meta_v1.ObjectMeta = msgspec.field(default_factory=meta_v1.ObjectMeta)
    spec: JobSpec | None = None
    status: JobStatus | None = None


class JobCondition(K8sStruct, kw_only=True):
    """JobCondition describes current state of a job."""

    last_probe_time: str | None = msgspec.field(default=None, name="lastProbeTime")
    last_transition_time: str | None = msgspec.field(default=None, name="lastTransitionTime")
    message: str | None = None
    reason: str | None = None
    status: str | None = None
    type: str | None = None


class JobSchedulingConfiguration(K8sStruct, kw_only=True):
    """JobSchedulingConfiguration composes the reusable workload-aware scheduling building blocks."""

    disruption_mode: scheduling_v1alpha3.WorkloadPodGroupDisruptionMode | None = msgspec.field(default=None, name="disruptionMode")
    resource_claims: list[scheduling_v1alpha3.WorkloadPodGroupResourceClaim] | None = msgspec.field(default=None, name="resourceClaims")
    scheduling_constraints: scheduling_v1alpha3.WorkloadPodGroupSchedulingConstraints | None = msgspec.field(default=None, name="schedulingConstraints")
    scheduling_policy: scheduling_v1alpha3.WorkloadPodGroupSchedulingPolicy | None = msgspec.field(default=None, name="schedulingPolicy")


class JobSpec(K8sStruct, kw_only=True):
    """JobSpec describes how the job execution will look like."""

    active_deadline_seconds: int | None = msgspec.field(default=None, name="activeDeadlineSeconds")
    backoff_limit: int | None = msgspec.field(default=None, name="backoffLimit")
    backoff_limit_per_index: int | None = msgspec.field(default=None, name="backoffLimitPerIndex")
    completion_mode: str | None = msgspec.field(default=None, name="completionMode")
    completions: int | None = None
    managed_by: str | None = msgspec.field(default=None, name="managedBy")
    manual_selector: bool | None = msgspec.field(default=None, name="manualSelector")
    max_failed_indexes: int | None = msgspec.field(default=None, name="maxFailedIndexes")
    parallelism: int | None = None
    pod_failure_policy: PodFailurePolicy | None = msgspec.field(default=None, name="podFailurePolicy")
    pod_replacement_policy: str | None = msgspec.field(default=None, name="podReplacementPolicy")
    scheduling: JobSchedulingConfiguration | None = None
    selector: meta_v1.LabelSelector | None = None
    success_policy: SuccessPolicy | None = msgspec.field(default=None, name="successPolicy")
    suspend: bool | None = None
    template: core_v1.PodTemplateSpec | None = None
    ttl_seconds_after_finished: int | None = msgspec.field(default=None, name="ttlSecondsAfterFinished")


class JobStatus(K8sStruct, kw_only=True):
    """JobStatus represents the current state of a Job."""

    active: int | None = None
    completed_indexes: str | None = msgspec.field(default=None, name="completedIndexes")
    completion_time: str | None = msgspec.field(default=None, name="completionTime")
    conditions: list[JobCondition] | None = None
    failed: int | None = None
    failed_indexes: str | None = msgspec.field(default=None, name="failedIndexes")
    ready: int | None = None
    start_time: str | None = msgspec.field(default=None, name="startTime")
    succeeded: int | None = None
    terminating: int | None = None
    uncounted_terminated_pods: UncountedTerminatedPods | None = msgspec.field(default=None, name="uncountedTerminatedPods")


class JobTemplateSpec(K8sStruct, kw_only=True):
    """JobTemplateSpec describes the data a Job should have when created from a template"""

    metadata: meta_v1.ObjectMeta | None = None
    spec: JobSpec | None = None


class PodFailurePolicy(K8sStruct, kw_only=True):
    """PodFailurePolicy describes how failed pods influence the backoffLimit."""

    rules: list[PodFailurePolicyRule] | None = None


class PodFailurePolicyOnExitCodesRequirement(K8sStruct, kw_only=True):
    """PodFailurePolicyOnExitCodesRequirement describes the requirement for handling a failed pod based on its container exit codes."""

    container_name: str | None = msgspec.field(default=None, name="containerName")
    operator: str | None = None
    values: list[int] | None = None


class PodFailurePolicyOnPodConditionsPattern(K8sStruct, kw_only=True):
    """PodFailurePolicyOnPodConditionsPattern describes a pattern for matching an actual pod condition type."""

    status: str | None = None
    type: str | None = None


class PodFailurePolicyRule(K8sStruct, kw_only=True):
    """PodFailurePolicyRule describes how a pod failure is handled when the requirements are met."""

    action: str | None = None
    on_exit_codes: PodFailurePolicyOnExitCodesRequirement | None = msgspec.field(default=None, name="onExitCodes")
    on_pod_conditions: list[PodFailurePolicyOnPodConditionsPattern] | None = msgspec.field(default=None, name="onPodConditions")


class SuccessPolicy(K8sStruct, kw_only=True):
    """SuccessPolicy describes when a Job can be declared as succeeded based on the success of some indexes."""

    rules: list[SuccessPolicyRule] | None = None


class SuccessPolicyRule(K8sStruct, kw_only=True):
    """SuccessPolicyRule describes rule for declaring a Job as succeeded."""

    succeeded_count: int | None = msgspec.field(default=None, name="succeededCount")
    succeeded_indexes: str | None = msgspec.field(default=None, name="succeededIndexes")


class UncountedTerminatedPods(K8sStruct, kw_only=True):
    """UncountedTerminatedPods holds UIDs of Pods that have terminated but haven't been accounted in Job status counters."""

    failed: list[str] | None = None
    succeeded: list[str] | None = None
