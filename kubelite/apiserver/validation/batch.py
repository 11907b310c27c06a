"""Validation of ``batch/v1``: Job and CronJob.

Follows ``pkg/apis/batch/validation/validation.go`` (``ValidateJob``, ``validateGeneratedSelector``,
``ValidateJobSpec``/``validateJobSpec``, ``ValidateJobSpecUpdate``, ``ValidateCronJobCreate``/``Update``,
``ValidateJobTemplateSpec``) and the schedule grammar of ``robfig/cron`` ``ParseStandard``.
Contract: read-only over JSON, errors in upstream's order.

Deviation: upstream's Job strategy always generates ``spec.selector`` before validation. When a Job
arrives here without one (``manualSelector`` unset), the missing selector is not reported, so that a
pipeline whose strategy does not generate selectors still accepts Jobs; everything else is checked.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Final

from kubelite.api import names
from kubelite.apiserver.validation.common import (
    as_dict,
    immutable,
    label_selector,
    nonnegative,
    selector_of,
    semantic_equal,
)
from kubelite.apiserver.validation.meta import validate_object_meta, validate_object_meta_update
from kubelite.apiserver.validation.pod import validate_pod_template_spec
from kubelite.errors import FieldError

__all__ = [
    "parse_schedule_error",
    "validate_cron_job",
    "validate_cron_job_update",
    "validate_job",
    "validate_job_status_update",
    "validate_job_update",
]

_MAX_PARALLELISM_INDEXED: Final = 100_000
_LEGACY_UID_LABEL: Final = "controller-uid"
_LEGACY_NAME_LABEL: Final = "job-name"
_UID_LABEL: Final = "batch.kubernetes.io/controller-uid"
_NAME_LABEL: Final = "batch.kubernetes.io/job-name"


def _generated_selector(job: Mapping[str, Any], errs: list[FieldError]) -> None:
    """``validateGeneratedSelector``: a non-manual selector must be the one generated from the uid."""
    spec = as_dict(job.get("spec"))
    if spec.get("manualSelector") is True or spec.get("selector") is None:
        return
    meta = as_dict(job.get("metadata"))
    uid = meta.get("uid") or ""
    name = meta.get("name") or ""
    if not uid:
        errs.append(FieldError.required("metadata.uid"))
    labels = as_dict(as_dict(as_dict(spec.get("template")).get("metadata")).get("labels"))
    path = "spec.template.metadata"
    for key, want in ((_LEGACY_UID_LABEL, uid), (_LEGACY_NAME_LABEL, name), (_UID_LABEL, uid), (_NAME_LABEL, name)):
        _has_label(labels, key, want, path, errs)
    match_labels = as_dict(as_dict(spec.get("selector")).get("matchLabels"))
    if match_labels.get(_UID_LABEL) != uid:
        errs.append(FieldError.invalid("spec.selector", spec.get("selector"), "`selector` not auto-generated"))


def _has_label(labels: Mapping[str, Any], key: str, want: str, path: str, errs: list[FieldError]) -> None:
    """``ValidateHasLabel``."""
    if key not in labels:
        errs.append(FieldError.required(f"{path}.labels", f"must be '{want}'"))
    elif labels[key] != want:
        errs.append(FieldError.invalid(f"{path}.labels", labels, f"must be '{want}'"))


def _job_spec_fields(spec: Mapping[str, Any], path: str, errs: list[FieldError]) -> None:
    """``validateJobSpec``: counters, completion mode, replacement policy, template and restartPolicy."""
    for key in ("parallelism", "completions", "activeDeadlineSeconds", "backoffLimit", "ttlSecondsAfterFinished",
                "backoffLimitPerIndex", "maxFailedIndexes"):
        nonnegative(spec.get(key), f"{path}.{key}", errs)
    mode = spec.get("completionMode")
    if mode is not None:
        if mode not in ("NonIndexed", "Indexed"):
            errs.append(FieldError.not_supported(f"{path}.completionMode", mode, ("NonIndexed", "Indexed")))
        if mode == "Indexed":
            if spec.get("completions") is None:
                errs.append(FieldError.required(f"{path}.completions", "when completion mode is Indexed"))
            parallelism = spec.get("parallelism")
            if isinstance(parallelism, int) and parallelism > _MAX_PARALLELISM_INDEXED:
                errs.append(FieldError.invalid(
                    f"{path}.parallelism", parallelism,
                    f"must be less than or equal to {_MAX_PARALLELISM_INDEXED} when completion mode is Indexed"))
    replacement = spec.get("podReplacementPolicy")
    if replacement is not None:
        allowed = ("Failed",) if spec.get("podFailurePolicy") is not None else ("Failed", "TerminatingOrFailed")
        if replacement not in allowed:
            errs.append(FieldError.not_supported(f"{path}.podReplacementPolicy", replacement, allowed))
    template = spec.get("template")
    validate_pod_template_spec(template, f"{path}.template", errs)
    restart = as_dict(as_dict(template).get("spec")).get("restartPolicy")
    rp = f"{path}.template.spec.restartPolicy"
    if restart in ("Always", "", None):
        errs.append(FieldError.required(rp, 'valid values: "OnFailure", "Never"'))
    elif restart not in ("OnFailure", "Never"):
        errs.append(FieldError.not_supported(rp, restart, ("OnFailure", "Never")))
    elif spec.get("podFailurePolicy") is not None and restart != "Never":
        errs.append(FieldError.invalid(rp, restart, 'only "Never" is supported when podFailurePolicy is specified'))


def _job_spec(spec: Mapping[str, Any], errs: list[FieldError]) -> None:
    """``ValidateJobSpec``: also the selector, which must match the template's labels."""
    _job_spec_fields(spec, "spec", errs)
    selector = spec.get("selector")
    if selector is None:
        if spec.get("manualSelector") is True:
            errs.append(FieldError.required("spec.selector"))
        return
    label_selector(selector, "spec.selector", errs)
    sel = selector_of(selector)
    labels = as_dict(as_dict(spec.get("template")).get("metadata")).get("labels")
    if sel is not None and not sel.matches(labels if isinstance(labels, dict) else None):
        errs.append(FieldError.invalid(
            "spec.template.metadata.labels", labels, "`selector` does not match template `labels`"))


def validate_job(job: Mapping[str, Any]) -> list[FieldError]:
    """``ValidateJob``."""
    meta = as_dict(job.get("metadata"))
    errs = validate_object_meta(meta, namespaced=True, name_fn=names.name_is_dns_subdomain)
    _generated_selector(job, errs)
    spec = as_dict(job.get("spec"))
    _job_spec(spec, errs)
    completions = spec.get("completions")
    if spec.get("completionMode") == "Indexed" and isinstance(completions, int) and completions > 0:
        hostname = f"{meta.get('name') or ''}-{completions - 1}"
        if names.is_dns1123_label(hostname):
            errs.append(FieldError.invalid(
                "metadata.name", meta.get("name") or "",
                f"will not able to create pod with invalid DNS label: {hostname}"))
    return errs


_SCHEDULING_TEMPLATE_FIELDS = ("nodeSelector", "affinity", "tolerations", "schedulingGates")


def validate_job_update(job: Mapping[str, Any], old: Mapping[str, Any]) -> list[FieldError]:
    """``ValidateJobUpdate``: selector, template (except scheduling directives of a suspended Job that
    never started), completionMode, podFailurePolicy and backoffLimitPerIndex are immutable."""
    errs = validate_object_meta_update(as_dict(job.get("metadata")), as_dict(old.get("metadata")))
    spec = as_dict(job.get("spec"))
    old_spec = as_dict(old.get("spec"))
    _job_spec(spec, errs)
    if not semantic_equal(spec.get("completions"), old_spec.get("completions")):
        indexed_scale = (
            spec.get("completionMode") == "Indexed" and spec.get("completions") == spec.get("parallelism")
            and old_spec.get("completions") == old_spec.get("parallelism")
        )
        if not indexed_scale:
            immutable(spec.get("completions"), old_spec.get("completions"), "spec.completions", errs)
    if not semantic_equal(spec.get("selector"), old_spec.get("selector")):
        immutable(spec.get("selector"), old_spec.get("selector"), "spec.selector", errs)
    template = as_dict(spec.get("template"))
    old_template = as_dict(old_spec.get("template"))
    if not semantic_equal(template, old_template):
        status = as_dict(old.get("status"))
        mutable_scheduling = old_spec.get("suspend") is True and not status.get("startTime")
        if mutable_scheduling:
            template = _without_scheduling(template)
            old_template = _without_scheduling(old_template)
        if not semantic_equal(template, old_template):
            errs.append(FieldError.invalid("spec.template", spec.get("template"), "field is immutable"))
    for key in ("completionMode", "podFailurePolicy", "backoffLimitPerIndex", "managedBy", "successPolicy"):
        if not semantic_equal(spec.get(key), old_spec.get(key)):
            immutable(spec.get(key), old_spec.get(key), f"spec.{key}", errs)
    return errs


def _without_scheduling(template: Mapping[str, Any]) -> dict[str, Any]:
    meta = {k: v for k, v in as_dict(template.get("metadata")).items() if k not in ("labels", "annotations")}
    tspec = {k: v for k, v in as_dict(template.get("spec")).items() if k not in _SCHEDULING_TEMPLATE_FIELDS}
    return {**template, "metadata": meta, "spec": tspec}


def validate_job_status_update(job: Mapping[str, Any], old: Mapping[str, Any]) -> list[FieldError]:
    """``ValidateJobUpdateStatus`` (the counters part): metadata rules, non-negative counts."""
    errs = validate_object_meta_update(as_dict(job.get("metadata")), as_dict(old.get("metadata")))
    status = as_dict(job.get("status"))
    for key in ("active", "succeeded", "failed", "ready", "terminating"):
        nonnegative(status.get(key), f"status.{key}", errs)
    return errs


# --- CronJob ---------------------------------------------------------------------------------------------

_DESCRIPTORS: Final = frozenset({"@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly"})
_DURATION_RE = re.compile(r"([0-9]*(\.[0-9]*)?(ns|us|µs|ms|s|m|h))+")
_MONTHS: Final = {m: i + 1 for i, m in enumerate(
    ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"))}
_DAYS: Final = {d: i for i, d in enumerate(("sun", "mon", "tue", "wed", "thu", "fri", "sat"))}
# (min, max, names) for minute, hour, day of month, month, day of week
_NO_NAMES: Final[Mapping[str, int]] = {}
_FIELDS: Final[tuple[tuple[int, int, Mapping[str, int]], ...]] = (
    (0, 59, _NO_NAMES), (0, 23, _NO_NAMES), (1, 31, _NO_NAMES), (1, 12, _MONTHS), (0, 6, _DAYS),
)


def _number(expr: str, names_: Mapping[str, int]) -> tuple[int | None, str]:
    if expr.lower() in names_:
        return names_[expr.lower()], ""
    if expr.isdigit():
        return int(expr), ""
    return None, f'failed to parse int from {expr}: strconv.Atoi: parsing "{expr}": invalid syntax'


def _cron_range(expr: str, lo: int, hi: int, names_: Mapping[str, int]) -> str:
    """robfig ``getRange``: ``*``, ``?``, ``a``, ``a-b``, each with an optional ``/step``."""
    range_and_step = expr.split("/")
    low_and_high = range_and_step[0].split("-")
    single = len(low_and_high) == 1
    if low_and_high[0] in ("*", "?"):
        start, end = lo, hi
    else:
        start_v, err = _number(low_and_high[0], names_)
        if start_v is None:
            return err
        start = end = start_v
        if len(low_and_high) == 2:
            end_v, err = _number(low_and_high[1], names_)
            if end_v is None:
                return err
            end = end_v
        elif len(low_and_high) > 2:
            return f"too many hyphens: {expr}"
    if len(range_and_step) == 2:
        step_v, err = _number(range_and_step[1], {})
        if step_v is None:
            return err
        if step_v == 0:
            return f"step of range should be a positive number: {expr}"
        if single and low_and_high[0] not in ("*", "?"):
            end = hi
    elif len(range_and_step) > 2:
        return f"too many slashes: {expr}"
    if start < lo:
        return f"beginning of range ({start}) below minimum ({lo}): {expr}"
    if end > hi:
        return f"end of range ({end}) above maximum ({hi}): {expr}"
    if start > end:
        return f"beginning of range ({start}) beyond end of range ({end}): {expr}"
    return ""


def parse_schedule_error(schedule: str) -> str:
    """The error ``cron.ParseStandard`` returns for ``schedule``, or "" when it parses."""
    spec = schedule
    if spec.startswith(("TZ=", "CRON_TZ=")):
        _, _, spec = spec.partition(" ")
        spec = spec.strip()
    if spec.startswith("@"):
        if spec in _DESCRIPTORS:
            return ""
        if spec.startswith("@every "):
            duration = spec[len("@every "):]
            if _DURATION_RE.fullmatch(duration):
                return ""
            return f'failed to parse duration {spec}: time: invalid duration "{duration}"'
        return f"unrecognized descriptor: {spec}"
    fields = spec.split()
    if len(fields) != 5:
        return f"expected exactly 5 fields, found {len(fields)}: [{' '.join(fields)}]"
    for field_expr, (lo, hi, names_) in zip(fields, _FIELDS):
        for part in field_expr.split(","):
            err = _cron_range(part, lo, hi, names_)
            if err:
                return err
    return ""


def _cron_job_spec(spec: Mapping[str, Any], old_spec: Mapping[str, Any] | None, errs: list[FieldError]) -> None:
    """``validateCronJobSpec``."""
    schedule = spec.get("schedule") or ""
    if not schedule:
        errs.append(FieldError.required("spec.schedule"))
    else:
        err = parse_schedule_error(schedule)
        if err:
            errs.append(FieldError.invalid("spec.schedule", schedule, err))
        allow_tz = old_spec is not None and "TZ" in (old_spec.get("schedule") or "")
        if "TZ" in schedule and not allow_tz:
            errs.append(FieldError.invalid(
                "spec.schedule", schedule, "cannot use TZ or CRON_TZ in schedule, use timeZone field instead"))
    nonnegative(spec.get("startingDeadlineSeconds"), "spec.startingDeadlineSeconds", errs)
    policy = spec.get("concurrencyPolicy")
    if policy not in ("Allow", "Forbid", "Replace"):
        if not policy:
            errs.append(FieldError.required("spec.concurrencyPolicy"))
        else:
            errs.append(FieldError.not_supported("spec.concurrencyPolicy", policy, ("Allow", "Forbid", "Replace")))
    template = as_dict(spec.get("jobTemplate"))
    job_spec = as_dict(template.get("spec"))
    _job_spec_fields(job_spec, "spec.jobTemplate.spec", errs)
    if job_spec.get("selector") is not None:
        errs.append(FieldError.invalid(
            "spec.jobTemplate.spec.selector", job_spec["selector"], "`selector` will be auto-generated"))
    if job_spec.get("manualSelector") is True:
        errs.append(FieldError.not_supported("spec.jobTemplate.spec.manualSelector", True, ("nil", "false")))
    nonnegative(spec.get("successfulJobsHistoryLimit"), "spec.successfulJobsHistoryLimit", errs)
    nonnegative(spec.get("failedJobsHistoryLimit"), "spec.failedJobsHistoryLimit", errs)


def validate_cron_job(cron_job: Mapping[str, Any]) -> list[FieldError]:
    """``ValidateCronJobCreate``: names leave room for the 11-character job suffix."""
    meta = as_dict(cron_job.get("metadata"))
    errs = validate_object_meta(meta, namespaced=True, name_fn=names.name_is_dns_subdomain)
    _cron_job_spec(as_dict(cron_job.get("spec")), None, errs)
    name = meta.get("name") or ""
    if len(name) > 52:
        errs.append(FieldError.invalid("metadata.name", name, "must be no more than 52 characters"))
    return errs


def validate_cron_job_update(cron_job: Mapping[str, Any], old: Mapping[str, Any]) -> list[FieldError]:
    """``ValidateCronJobUpdate``."""
    errs = validate_object_meta_update(as_dict(cron_job.get("metadata")), as_dict(old.get("metadata")))
    _cron_job_spec(as_dict(cron_job.get("spec")), as_dict(old.get("spec")), errs)
    return errs

