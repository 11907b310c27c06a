"""Finished Jobs with ttlSecondsAfterFinished are deleted that long after they finish."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from kubelite.api.types import Job
from kubelite.clock import parse_time
from kubelite.cluster import Cluster
from kubelite.controllers.ttlafterfinished import expire_at


def job(name: str, ttl: int | None) -> dict[str, Any]:
    spec: dict[str, Any] = {"template": {"spec": {"restartPolicy": "Never",
                                                  "containers": [{"name": "c", "image": "busybox"}]}}}
    if ttl is not None:
        spec["ttlSecondsAfterFinished"] = ttl
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": name, "namespace": "default"},
            "spec": spec}


async def finish(c: Cluster, name: str, typ: str = "Complete") -> None:
    ts = c.clock.timestamp()
    await c.client.patch_status("jobs.batch", name, {"status": {
        "startTime": ts, "completionTime": ts if typ == "Complete" else None,
        "conditions": [{"type": typ, "status": "True", "lastTransitionTime": ts}]}},
        namespace="default", patch_type="merge")


@pytest.mark.parametrize(("conds", "ttl", "want"), [
    ([{"type": "Complete", "status": "True", "lastTransitionTime": "2025-01-01T00:00:10Z"}], 5, 15.0),
    ([{"type": "Failed", "status": "True", "lastTransitionTime": "2025-01-01T00:00:10Z"}], 0, 10.0),
    ([{"type": "Complete", "status": "False", "lastTransitionTime": "2025-01-01T00:00:10Z"}], 5, None),
    ([{"type": "Complete", "status": "True", "lastTransitionTime": "2025-01-01T00:00:10Z"}], None, None),
], ids=["complete", "failed-ttl0", "not-finished", "no-ttl"])
def test_expire_at(conds: list[dict[str, Any]], ttl: int | None, want: float | None) -> None:
    body = job("j", ttl)
    body["status"] = {"conditions": conds}
    got = expire_at(msgspec.convert(body, Job))
    base = parse_time("2025-01-01T00:00:00Z")
    assert (got - base if got is not None else None) == want


async def test_finished_job_is_deleted_after_its_ttl() -> None:
    async with Cluster(seed=1, controllers=["ttlafterfinished", "garbagecollector"]) as c:
        await c.client.create(job("short", 30))
        await c.client.create(job("keep", None))
        await c.client.create(job("running", 1))
        await c.advance(1)
        await finish(c, "short")
        await finish(c, "keep")
        await c.advance(29)
        assert len(await c.client.list("jobs.batch", namespace="default")) == 3
        await c.advance(2)
        assert sorted(j["metadata"]["name"] for j in await c.client.list("jobs.batch", namespace="default")) == [
            "keep", "running"]
