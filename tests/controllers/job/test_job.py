"""The Job controller end to end on virtual time: completions with parallelism, backoffLimit with a
crashing image, activeDeadlineSeconds, Indexed completion mode, suspend, and finalizer-based tracking."""

from __future__ import annotations

import json
from typing import Any

from kubelite.cluster import Cluster

CTRL = ["job", "nodelifecycle"]


def job(name: str, *, profile: dict[str, Any], **spec: Any) -> dict[str, Any]:
    tmpl = {"metadata": {"annotations": {"kubelite.io/profile": json.dumps(profile)}},
            "spec": {"restartPolicy": "Never", "containers": [{"name": "work", "image": "busybox"}]}}
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": name, "namespace": "default"},
            "spec": {"template": tmpl, **spec}}


async def get_job(c: Cluster, name: str) -> dict[str, Any]:
    j: dict[str, Any] = await c.client.get("jobs", name, namespace="default")
    return j


def cond(j: dict[str, Any], type_: str) -> dict[str, Any] | None:
    return next((x for x in j["status"].get("conditions") or () if x["type"] == type_), None)


async def finished(c: Cluster, name: str) -> dict[str, Any] | None:
    j = await get_job(c, name)
    return j if cond(j, "Complete") or cond(j, "Failed") else None


async def events(c: Cluster, reason: str) -> list[str]:
    return [e["message"] for e in await c.client.list("events", namespace="default") if e["reason"] == reason]


async def pods(c: Cluster) -> list[dict[str, Any]]:
    return list(await c.client.list("pods", namespace="default"))


async def test_job_runs_to_completion_with_parallelism() -> None:
    async with Cluster(seed=1, nodes=2, controllers=CTRL) as c:
        await c.client.create(job("pi", profile={"exitAfter": 5}, parallelism=2, completions=5))
        max_active = 0

        async def done() -> dict[str, Any] | None:
            nonlocal max_active
            active = [p for p in await pods(c) if p["status"].get("phase") in (None, "Pending", "Running")]
            max_active = max(max_active, len(active))
            return await finished(c, "pi")

        j = await c.wait_for(done, timeout=120, interval=0.5)
        st = j["status"]
        assert cond(j, "Complete")["status"] == "True"
        assert cond(j, "SuccessCriteriaMet")["reason"] == "CompletionsReached"
        assert (st["succeeded"], st.get("failed", 0), st.get("active", 0)) == (5, 0, 0)
        assert st["startTime"] and st["completionTime"]
        assert not (st.get("uncountedTerminatedPods") or {}).get("succeeded")
        assert max_active == 2
        ps = await pods(c)
        assert len(ps) == 5
        assert all("batch.kubernetes.io/job-tracking" not in (p["metadata"].get("finalizers") or ()) for p in ps)
        assert all(p["metadata"]["labels"]["batch.kubernetes.io/job-name"] == "pi" for p in ps)
        assert "Job completed" in await events(c, "Completed")
        assert len(await events(c, "SuccessfulCreate")) == 5


async def test_backoff_limit_fails_the_job_with_exponential_backoff() -> None:
    async with Cluster(seed=2, nodes=1, controllers=CTRL) as c:
        await c.client.create(job("crash", profile={"exitAfter": 1, "exitCode": 3}, backoffLimit=2))
        j = await c.wait_for(lambda: finished(c, "crash"), timeout=300, interval=1)
        failed = cond(j, "Failed")
        assert failed is not None and failed["reason"] == "BackoffLimitExceeded"
        assert failed["message"] == "Job has reached the specified backoff limit"
        assert cond(j, "FailureTarget")["reason"] == "BackoffLimitExceeded"
        assert j["status"]["failed"] == 3 and j["status"].get("active", 0) == 0
        ps = sorted(await pods(c), key=lambda p: p["metadata"]["creationTimestamp"])
        assert len(ps) == 3
        # recreation waits 10 s after the first failure, then 20 s after the second
        starts = [c_["state"]["terminated"]["startedAt"] for p in ps for c_ in p["status"]["containerStatuses"]]
        assert len(starts) == 3
        from kubelite.clock import parse_time
        t = [parse_time(x) for x in starts]
        assert t[1] - t[0] >= 10 + 1 and t[2] - t[1] >= 20 + 1
        assert "Job has reached the specified backoff limit" in await events(c, "BackoffLimitExceeded")


async def test_active_deadline_fails_the_job_and_deletes_its_pods() -> None:
    async with Cluster(seed=3, nodes=1, controllers=CTRL) as c:
        await c.client.create(job("slow", profile={"exitAfter": 1000}, activeDeadlineSeconds=30, parallelism=2,
                                  completions=2))
        j = await c.wait_for(lambda: finished(c, "slow"), timeout=120, interval=1)
        failed = cond(j, "Failed")
        assert failed is not None and failed["reason"] == "DeadlineExceeded"
        assert failed["message"] == "Job was active longer than specified deadline"
        from kubelite.clock import parse_time
        assert parse_time(failed["lastTransitionTime"]) - parse_time(j["status"]["startTime"]) >= 30
        assert j["status"].get("active", 0) == 0 and j["status"]["failed"] == 2
        await c.advance(40)
        assert await pods(c) == []
        assert "Job was active longer than specified deadline" in await events(c, "DeadlineExceeded")


async def test_indexed_job_gives_each_pod_its_index() -> None:
    async with Cluster(seed=4, nodes=2, controllers=CTRL) as c:
        await c.client.create(job("idx", profile={"exitAfter": 3}, completionMode="Indexed", completions=4,
                                  parallelism=2))
        j = await c.wait_for(lambda: finished(c, "idx"), timeout=120, interval=0.5)
        assert cond(j, "Complete") is not None
        assert j["status"]["completedIndexes"] == "0-3" and j["status"]["succeeded"] == 4
        ps = await pods(c)
        ixs = sorted(int(p["metadata"]["annotations"]["batch.kubernetes.io/job-completion-index"]) for p in ps)
        assert ixs == [0, 1, 2, 3]
        for p in ps:
            ix = p["metadata"]["annotations"]["batch.kubernetes.io/job-completion-index"]
            assert p["metadata"]["labels"]["batch.kubernetes.io/job-completion-index"] == ix
            assert p["spec"]["hostname"] == f"idx-{ix}"
            assert p["metadata"]["name"].startswith(f"idx-{ix}-")
            env = p["spec"]["containers"][0]["env"]
            assert env[0]["name"] == "JOB_COMPLETION_INDEX"


async def test_suspended_job_creates_nothing_until_resumed() -> None:
    async with Cluster(seed=5, nodes=1, controllers=CTRL) as c:
        await c.client.create(job("later", profile={"exitAfter": 2}, suspend=True))
        await c.advance(10)
        assert await pods(c) == []
        j = await get_job(c, "later")
        assert cond(j, "Suspended")["status"] == "True" and "startTime" not in j["status"]
        await c.client.patch("jobs", "later", {"spec": {"suspend": False}}, namespace="default", patch_type="merge")
        j = await c.wait_for(lambda: finished(c, "later"), timeout=60, interval=0.5)
        assert cond(j, "Suspended")["status"] == "False" and cond(j, "Complete") is not None
        assert "Job resumed" in await events(c, "Resumed")


async def test_pod_failure_policy_fail_job_on_exit_code() -> None:
    async with Cluster(seed=6, nodes=1, controllers=CTRL) as c:
        policy = {"rules": [{"action": "FailJob", "onExitCodes": {"operator": "In", "values": [42]}}]}
        await c.client.create(job("pfp", profile={"exitAfter": 1, "exitCode": 42}, backoffLimit=6,
                                  podFailurePolicy=policy))
        j = await c.wait_for(lambda: finished(c, "pfp"), timeout=60, interval=0.5)
        failed = cond(j, "Failed")
        assert failed["reason"] == "PodFailurePolicy"
        assert failed["message"].startswith("Container work for pod default/pfp-")
        assert failed["message"].endswith("failed with exit code 42 matching FailJob rule at index 0")
        assert j["status"]["failed"] == 1
