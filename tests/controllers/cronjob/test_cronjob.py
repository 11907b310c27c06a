"""The CronJob controller: the cron grammar (table tests) and scheduling end to end on virtual time."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

import pytest

from kubelite.clock import parse_time
from kubelite.cluster import Cluster
from kubelite.controllers.cronjob import parse_schedule

CTRL = ["cronjob", "job", "nodelifecycle"]


def ts(s: str) -> float:
    return parse_time(s)


@pytest.mark.parametrize(("spec", "after", "want"), [
    ("*/5 * * * *", "2025-01-01T00:03:00Z", "2025-01-01T00:05:00Z"),
    ("0 * * * *", "2025-01-01T00:00:00Z", "2025-01-01T01:00:00Z"),
    ("30 2 * * *", "2025-01-01T03:00:00Z", "2025-01-02T02:30:00Z"),
    ("0 0 * * mon", "2025-01-01T00:00:00Z", "2025-01-06T00:00:00Z"),
    ("0 0 1 feb *", "2025-01-01T00:00:00Z", "2025-02-01T00:00:00Z"),
    ("0 0 13 * 5", "2025-01-01T00:00:00Z", "2025-01-03T00:00:00Z"),  # dom OR dow when neither is *
    ("@hourly", "2025-01-01T00:59:59Z", "2025-01-01T01:00:00Z"),
    ("0 9-17/4 * * *", "2025-01-01T10:00:00Z", "2025-01-01T13:00:00Z"),
], ids=["step", "hourly", "daily", "weekday-name", "month-name", "dom-or-dow", "descriptor", "range-step"])
def test_next_schedule_time(spec: str, after: str, want: str) -> None:
    assert parse_schedule(spec).next(ts(after), dt.UTC) == ts(want)


@pytest.mark.parametrize("spec", ["* * * *", "60 * * * *", "* 24 * * *", "*/0 * * * *", "* * * foo *"],
                         ids=["four-fields", "minute", "hour", "zero-step", "bad-name"])
def test_bad_schedules_are_rejected(spec: str) -> None:
    with pytest.raises((ValueError, KeyError)):
        parse_schedule(spec)


def cronjob(name: str, schedule: str, exit_after: float, **spec: Any) -> dict[str, Any]:
    pod = {"metadata": {"annotations": {"kubelite.io/profile": json.dumps({"exitAfter": exit_after})}},
           "spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]}}
    return {"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": name, "namespace": "default"},
            "spec": {"schedule": schedule, "jobTemplate": {"spec": {"template": pod}}, **spec}}


async def jobs(c: Cluster) -> list[dict[str, Any]]:
    return list(await c.client.list("jobs", namespace="default"))


async def test_jobs_start_on_schedule_and_history_is_trimmed() -> None:
    async with Cluster(seed=1, nodes=1, controllers=CTRL) as c:
        await c.client.create(cronjob("tick", "* * * * *", 5))
        await c.advance(5 * 60 + 30)
        js = await jobs(c)
        # one job per minute; only the 3 newest successful ones are kept
        assert len(js) == 3
        for j in js:
            minutes = int(j["metadata"]["name"].rsplit("-", 1)[1])
            assert j["metadata"]["annotations"]["batch.kubernetes.io/cronjob-scheduled-timestamp"] == \
                dt.datetime.fromtimestamp(minutes * 60, dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        cj = await c.client.get("cronjobs", "tick", namespace="default")
        assert cj["status"]["lastScheduleTime"] and cj["status"]["lastSuccessfulTime"]
        msgs = [e["message"] for e in await c.client.list("events", namespace="default") if e["reason"] == "SuccessfulCreate"
                and e["involvedObject"]["kind"] == "CronJob"]
        assert len(msgs) == 5


async def test_forbid_skips_while_a_job_runs_and_replace_replaces_it() -> None:
    async with Cluster(seed=2, nodes=1, controllers=CTRL) as c:
        await c.client.create(cronjob("forbid", "* * * * *", 150, concurrencyPolicy="Forbid"))
        await c.client.create(cronjob("replace", "* * * * *", 150, concurrencyPolicy="Replace"))
        await c.advance(3 * 60 + 10)
        names = [j["metadata"]["name"] for j in await jobs(c) if not j["metadata"].get("deletionTimestamp")]
        forbid = [n for n in names if n.startswith("forbid-")]
        replace = [n for n in names if n.startswith("replace-")]
        assert len(forbid) == 1  # the minute-1 job runs for 150 s: minutes 2 and 3 are skipped
        assert len(replace) == 1
        cj = await c.client.get("cronjobs", "replace", namespace="default")
        assert [a["name"] for a in cj["status"]["active"]] == replace
        reasons = {e["reason"] for e in await c.client.list("events", namespace="default")}
        assert "JobAlreadyActive" in reasons
        await c.advance(60)  # the first forbid job has finished: minute 4 starts one
        assert len([j for j in await jobs(c) if j["metadata"]["name"].startswith("forbid-")]) == 2


async def test_suspended_cronjob_starts_nothing() -> None:
    async with Cluster(seed=3, nodes=1, controllers=CTRL) as c:
        await c.client.create(cronjob("off", "* * * * *", 1, suspend=True))
        await c.advance(3 * 60)
        assert await jobs(c) == []
