"""Defaults for ``batch/v1``: Job and CronJob.

Contract: as :mod:`kubelite.apiserver.defaults.core`. Mirrors ``pkg/apis/batch/v1/defaults.go``. The
pod template of a Job and of a CronJob's ``jobTemplate`` gets the PodSpec defaults; a CronJob's job
template does *not* get ``SetDefaults_Job`` (it is a JobTemplateSpec, not a Job), as upstream.
"""

from __future__ import annotations

from typing import Any

from kubelite.apiserver.defaults.core import default_pod_template_spec

__all__ = ["default_cron_job", "default_job"]

Obj = dict[str, Any]

_MAX_INT32 = 2**31 - 1


def default_job(obj: Obj) -> None:
    """``SetDefaults_Job``: completions/parallelism 1 (both unset) or parallelism 1, backoffLimit 6
    (MaxInt32 with backoffLimitPerIndex), the template's labels as the Job's when it has none,
    completionMode NonIndexed, suspend false, podFailurePolicy condition status True,
    podReplacementPolicy (Failed with a podFailurePolicy, else TerminatingOrFailed)."""
    spec = obj.get("spec")
    if not isinstance(spec, dict):
        spec = obj["spec"] = {}
    if spec.get("completions") is None and spec.get("parallelism") is None:
        spec["completions"] = 1
        spec["parallelism"] = 1
    if spec.get("parallelism") is None:
        spec["parallelism"] = 1
    if spec.get("backoffLimit") is None:
        spec["backoffLimit"] = _MAX_INT32 if spec.get("backoffLimitPerIndex") is not None else 6
    template = spec.get("template")
    if isinstance(template, dict):
        tmeta = template.get("metadata")
        labels = tmeta.get("labels") if isinstance(tmeta, dict) else None
        meta = obj.get("metadata")
        if labels is not None and isinstance(meta, dict) and not meta.get("labels"):
            meta["labels"] = dict(labels)
        default_pod_template_spec(template)
    if spec.get("completionMode") is None:
        spec["completionMode"] = "NonIndexed"
    if spec.get("suspend") is None:
        spec["suspend"] = False
    policy = spec.get("podFailurePolicy")
    if isinstance(policy, dict):
        for rule in policy.get("rules") or ():
            if not isinstance(rule, dict):
                continue
            for pattern in rule.get("onPodConditions") or ():
                if isinstance(pattern, dict) and not pattern.get("status"):
                    pattern["status"] = "True"
    if spec.get("podReplacementPolicy") is None:
        spec["podReplacementPolicy"] = "Failed" if policy is not None else "TerminatingOrFailed"


def default_cron_job(obj: Obj) -> None:
    """``SetDefaults_CronJob``: concurrencyPolicy Allow, suspend false, history limits 3 and 1."""
    spec = obj.get("spec")
    if not isinstance(spec, dict):
        spec = obj["spec"] = {}
    if not spec.get("concurrencyPolicy"):
        spec["concurrencyPolicy"] = "Allow"
    if spec.get("suspend") is None:
        spec["suspend"] = False
    if spec.get("successfulJobsHistoryLimit") is None:
        spec["successfulJobsHistoryLimit"] = 3
    if spec.get("failedJobsHistoryLimit") is None:
        spec["failedJobsHistoryLimit"] = 1
    job_template = spec.get("jobTemplate")
    job_spec = job_template.get("spec") if isinstance(job_template, dict) else None
    if isinstance(job_spec, dict):
        template = job_spec.get("template")
        if isinstance(template, dict):
            default_pod_template_spec(template)
