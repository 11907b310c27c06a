"""batch/v1 validation: Job and CronJob (including the cron schedule grammar)."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from kubelite.apiserver.defaults import apply_defaults
from kubelite.apiserver.validation import validate_create, validate_update
from kubelite.apiserver.validation.batch import parse_schedule_error

Obj = dict[str, Any]
Mut = Callable[[Obj], None]
UID = "0b4b2c9e-uid"


def strs(errs: list[Any]) -> list[str]:
    return [str(e) for e in errs]


def job(generated: bool = True) -> Obj:
    labels = {"batch.kubernetes.io/controller-uid": UID, "batch.kubernetes.io/job-name": "pi",
              "controller-uid": UID, "job-name": "pi"}
    obj: Obj = {
        "metadata": {"name": "pi", "namespace": "default", "uid": UID},
        "spec": {"template": {"metadata": {"labels": dict(labels)},
                              "spec": {"restartPolicy": "Never", "containers": [{"name": "pi", "image": "perl"}]}}},
    }
    if generated:
        obj["spec"]["selector"] = {"matchLabels": {"batch.kubernetes.io/controller-uid": UID}}
    apply_defaults("batch", "Job", obj)
    return obj


def cron_job() -> Obj:
    obj: Obj = {
        "metadata": {"name": "nightly", "namespace": "default"},
        "spec": {"schedule": "0 3 * * *", "jobTemplate": {"spec": {"template": {
            "spec": {"restartPolicy": "OnFailure", "containers": [{"name": "c", "image": "busybox"}]}}}}},
    }
    apply_defaults("batch", "CronJob", obj)
    return obj


def s_(path: str, value: Any) -> Mut:
    def mutate(o: Obj) -> None:
        keys = path.split(".")
        node = o
        for k in keys[:-1]:
            node = node[k]
        node[keys[-1]] = value
    return mutate


def test_valid_job_and_cronjob_pass() -> None:
    assert validate_create("batch", "Job", job()) == []
    assert validate_create("batch", "Job", job(generated=False)) == []
    assert validate_create("batch", "CronJob", cron_job()) == []


JOB_CASES: list[tuple[str, Mut, list[str]]] = [
    ("restart-always", s_("spec.template.spec.restartPolicy", "Always"),
     ['spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"']),
    ("negative-parallelism", s_("spec.parallelism", -1),
     ["spec.parallelism: Invalid value: -1: must be greater than or equal to 0"]),
    ("negative-completions", s_("spec.completions", -2),
     ["spec.completions: Invalid value: -2: must be greater than or equal to 0"]),
    ("negative-backoff", s_("spec.backoffLimit", -1),
     ["spec.backoffLimit: Invalid value: -1: must be greater than or equal to 0"]),
    ("completion-mode", s_("spec.completionMode", "Sometimes"),
     ['spec.completionMode: Unsupported value: "Sometimes": supported values: "NonIndexed", "Indexed"']),
    ("selector-not-generated", s_("spec.selector", {"matchLabels": {"job-name": "pi"}}),
     ['spec.selector: Invalid value: {"matchLabels":{"job-name":"pi"}}: `selector` not auto-generated']),
    ("manual-selector-mismatch", lambda o: o["spec"].update(
        manualSelector=True, selector={"matchLabels": {"app": "x"}}),
     ['spec.template.metadata.labels: Invalid value: {"batch.kubernetes.io/controller-uid":"0b4b2c9e-uid",'
      '"batch.kubernetes.io/job-name":"pi","controller-uid":"0b4b2c9e-uid","job-name":"pi"}: '
      "`selector` does not match template `labels`"]),
    ("pod-failure-policy-needs-never", lambda o: o["spec"].update(podFailurePolicy={"rules": []}, podReplacementPolicy="Failed") or
     o["spec"]["template"]["spec"].update(restartPolicy="OnFailure"),
     ['spec.template.spec.restartPolicy: Invalid value: "OnFailure": only "Never" is supported when '
      "podFailurePolicy is specified"]),
]


@pytest.mark.parametrize(("mutate", "want"), [c[1:] for c in JOB_CASES], ids=[c[0] for c in JOB_CASES])
def test_job_violations(mutate: Mut, want: list[str]) -> None:
    obj = job()
    mutate(obj)
    assert strs(validate_create("batch", "Job", obj)) == want


def test_job_update_immutability() -> None:
    old = job()
    new = copy.deepcopy(old)
    new["spec"]["parallelism"] = 5
    assert validate_update("batch", "Job", new, old) == []
    new["spec"]["template"]["spec"]["containers"][0]["image"] = "perl:2"
    new["spec"]["completionMode"] = "Indexed"
    got = strs(validate_update("batch", "Job", new, old))
    assert got[0].startswith('spec.template: Invalid value: {"metadata"')
    assert got[0].endswith(": field is immutable")
    assert got[1:] == ['spec.completionMode: Invalid value: "Indexed": field is immutable']


def test_suspended_job_may_change_scheduling_directives() -> None:
    old = job()
    old["spec"]["suspend"] = True
    new = copy.deepcopy(old)
    new["spec"]["template"]["spec"]["nodeSelector"] = {"zone": "a"}
    assert validate_update("batch", "Job", new, old) == []


CRON_CASES: list[tuple[str, Mut, list[str]]] = [
    ("schedule-required", s_("spec.schedule", ""), ["spec.schedule: Required value"]),
    ("schedule-fields", s_("spec.schedule", "* * * *"),
     ['spec.schedule: Invalid value: "* * * *": expected exactly 5 fields, found 4: [* * * *]']),
    ("schedule-range", s_("spec.schedule", "61 * * * *"),
     ['spec.schedule: Invalid value: "61 * * * *": end of range (61) above maximum (59): 61']),
    ("schedule-tz", s_("spec.schedule", "TZ=UTC 0 3 * * *"),
     ['spec.schedule: Invalid value: "TZ=UTC 0 3 * * *": cannot use TZ or CRON_TZ in schedule, use timeZone field instead']),
    ("concurrency", s_("spec.concurrencyPolicy", "Sometimes"),
     ['spec.concurrencyPolicy: Unsupported value: "Sometimes": supported values: "Allow", "Forbid", "Replace"']),
    ("template-selector", s_("spec.jobTemplate.spec.selector", {"matchLabels": {"a": "b"}}),
     ['spec.jobTemplate.spec.selector: Invalid value: {"matchLabels":{"a":"b"}}: `selector` will be auto-generated']),
    ("template-restart-always", s_("spec.jobTemplate.spec.template.spec.restartPolicy", "Always"),
     ['spec.jobTemplate.spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"']),
    ("name-too-long", s_("metadata.name", "a" * 53),
     [f'metadata.name: Invalid value: "{"a" * 53}": must be no more than 52 characters']),
]


@pytest.mark.parametrize(("mutate", "want"), [c[1:] for c in CRON_CASES], ids=[c[0] for c in CRON_CASES])
def test_cron_job_violations(mutate: Mut, want: list[str]) -> None:
    obj = cron_job()
    mutate(obj)
    assert strs(validate_create("batch", "CronJob", obj)) == want


@pytest.mark.parametrize(
    ("schedule", "error"),
    [("*/5 * * * *", ""), ("0 0 1 jan-mar mon-fri", ""), ("@hourly", ""), ("@every 1h30m", ""),
     ("0 0 * * 1,3,5", ""), ("@often", "unrecognized descriptor: @often"),
     ("0 25 * * *", "end of range (25) above maximum (23): 25"),
     ("0 0 0 * *", "beginning of range (0) below minimum (1): 0"),
     ("x * * * *", 'failed to parse int from x: strconv.Atoi: parsing "x": invalid syntax'),
     ("5-1 * * * *", "beginning of range (5) beyond end of range (1): 5-1")],
    ids=["step", "names", "descriptor", "every", "list", "bad-descriptor", "hour-range", "dom-min", "not-int",
         "reversed"],
)
def test_schedule_grammar(schedule: str, error: str) -> None:
    assert parse_schedule_error(schedule) == error
