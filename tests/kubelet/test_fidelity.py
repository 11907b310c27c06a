"""The fidelity table (tests/kubelet/fidelity_cases.py) against one cluster: every case gets its own
namespace and node(s) (labelled through the API, so the live-node path is exercised too), all
manifests are applied at t=0, and each case is checked at its own time."""

from __future__ import annotations

import asyncio
import copy
from typing import Any

import pytest

from kubelite.clock import parse_time
from kubelite.cluster import Cluster
from kubelite.kubectl.status import pod_summary
from kubelite.kubelet import ImageRegistry
from tests.kubelet.fidelity_cases import CASES, Case, Expect

LABEL = "fidelity.kubelite.io/case"
RESOURCES = {"Pod": "pods", "Job": "jobs", "CronJob": "cronjobs", "StatefulSet": "statefulsets",
             "DaemonSet": "daemonsets", "Deployment": "deployments", "Secret": "secrets", "ConfigMap": "configmaps"}

Snapshot = dict[str, Any]


def _pod_spec(obj: dict[str, Any]) -> dict[str, Any] | None:
    kind, spec = obj["kind"], obj.get("spec") or {}
    if kind == "Pod":
        return spec  # type: ignore[no-any-return]
    if kind == "CronJob":
        return spec["jobTemplate"]["spec"]["template"]["spec"]  # type: ignore[no-any-return]
    if kind in ("Job", "StatefulSet", "DaemonSet", "Deployment"):
        return spec["template"]["spec"]  # type: ignore[no-any-return]
    return None


async def _run() -> dict[str, Snapshot]:
    registry = ImageRegistry()
    registry.require_pull_secret("private.example.com")
    registry.mark_missing("example.com/gone")
    total = sum(case.nodes for case in CASES)
    out: dict[str, Snapshot] = {}
    async with Cluster(seed=12, network=False, image_registry=registry, nodes=[
            {"count": total, "prefix": "f", "capacity": {"cpu": "64", "memory": "256Gi", "pods": "250"}}]) as c:
        i = 0
        for case in CASES:
            for _ in range(case.nodes):
                await c.client.patch("nodes", f"f-{i}", {"metadata": {"labels": {LABEL: case.id}}}, patch_type="merge")
                i += 1
            await c.client.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": case.id}})
        await c.settle()
        t0 = c.now
        for case in CASES:
            for m in case.manifests:
                obj = copy.deepcopy(m)
                obj["metadata"]["namespace"] = case.id
                spec = _pod_spec(obj)
                if spec is not None:
                    spec["nodeSelector"] = {**(spec.get("nodeSelector") or {}), LABEL: case.id}
                await c.client.create(obj)
        for at in sorted({case.at for case in CASES}):
            await c.advance(t0 + at - c.now)
            for case in CASES:
                if case.at == at:
                    out[case.id] = await _snapshot(c, case)
    return out


async def _snapshot(c: Cluster, case: Case) -> Snapshot:
    ns = case.id
    pods = await c.client.list("pods", namespace=ns)
    events = await c.client.list("events", namespace=ns)
    snap: Snapshot = {"pods": pods, "events": events, "now": c.now}
    if case.job is not None or case.jobs is not None or case.absent:
        snap["jobs"] = await c.client.list("jobs", namespace=ns)
    if case.workload is not None:
        snap["workload"] = await c.client.get(case.workload["kind"], case.workload["name"], namespace=ns)
    return snap


@pytest.fixture(scope="module")
def snapshots() -> dict[str, Snapshot]:
    return asyncio.run(_run())


def _state(cs: dict[str, Any]) -> str:
    st = cs.get("state") or {}
    if "running" in st:
        return "running"
    if "waiting" in st:
        return f"waiting:{st['waiting'].get('reason')}"
    t = st.get("terminated") or {}
    return f"terminated:{t.get('reason')}:{t.get('exitCode')}"


def check_pod(p: dict[str, Any], e: Expect) -> None:
    name = p["metadata"]["name"]
    st = p.get("status") or {}
    summary = pod_summary(p)
    if e.phase is not None:
        assert st.get("phase") == e.phase, (name, st.get("phase"), summary)
    if e.status is not None:
        assert summary.reason == e.status, (name, summary)
    if e.ready is not None:
        assert f"{summary.ready}/{summary.total}" == e.ready, (name, summary)
    if e.restarts is not None:
        if isinstance(e.restarts, tuple):
            assert e.restarts[0] <= summary.restarts <= e.restarts[1], (name, summary)
        else:
            assert summary.restarts == e.restarts, (name, summary)
    by_name = {cs["name"]: cs for cs in st.get("containerStatuses") or ()}
    for cname, want in e.containers.items():
        assert _state(by_name[cname]) == want, (name, cname, by_name[cname])
    inits = {cs["name"]: cs for cs in st.get("initContainerStatuses") or ()}
    for cname, want in e.init.items():
        assert _state(inits[cname]) == want, (name, cname, inits[cname])
    for cname, want in e.last.items():
        term = (by_name[cname].get("lastState") or {}).get("terminated") or {}
        assert f"{term.get('reason')}:{term.get('exitCode')}" == want, (name, cname, by_name[cname])
    conds = {x["type"]: x["status"] for x in st.get("conditions") or ()}
    for ctype, want in e.conditions.items():
        assert conds.get(ctype) == want, (name, ctype, conds)
    if e.reason is not None:
        assert st.get("reason") == e.reason, (name, st)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_fidelity(case: Case, snapshots: dict[str, Snapshot]) -> None:
    snap = snapshots[case.id]
    pods = snap["pods"]
    if case.pods is not None:
        assert len(pods) == case.pods, [p["metadata"]["name"] for p in pods]
    if case.pod is not None:
        targets = [p for p in pods if p["metadata"]["name"] == "p"] or pods
        assert targets, "no pod to check"
        for p in targets:
            check_pod(p, case.pod)
    reasons = {e["reason"] for e in snap["events"] if e["involvedObject"].get("kind") == "Pod"}
    for r in case.events:
        assert r in reasons, (r, sorted(reasons))
    for r in case.no_events:
        assert r not in reasons, (r, sorted(reasons))
    if case.job is not None:
        jobs = {j["metadata"]["name"]: j for j in snap["jobs"]}
        j = jobs["j"]
        st = j.get("status") or {}
        for key in ("succeeded", "failed", "active"):
            if key in case.job:
                assert (st.get(key) or 0) == case.job[key], (key, st)
        conds = [x for x in st.get("conditions") or () if x.get("status") == "True"
                 and x["type"] in ("Complete", "Failed")]
        want = case.job.get("condition")
        assert [x["type"] for x in conds] == ([want] if want else []), st
        if "reason" in case.job:
            assert conds[0].get("reason") == case.job["reason"], conds
    if case.jobs is not None:
        jobs = snap["jobs"]
        counts = {"total": len(jobs),
                  "succeeded": sum(1 for j in jobs if _finished(j) == "Complete"),
                  "failed": sum(1 for j in jobs if _finished(j) == "Failed"),
                  "active": sum(1 for j in jobs if _finished(j) is None)}
        for key, want in case.jobs.items():
            assert counts[key] == want, (key, counts)
    for ref in case.absent:
        kind, name = ref.split("/")
        assert name not in {j["metadata"]["name"] for j in snap.get(kind) or ()}
    if case.workload is not None:
        st = snap["workload"].get("status") or {}
        for key, want in case.workload.items():
            if key not in ("kind", "name"):
                assert st.get(key) == want, (key, st)
    for p in pods:  # a terminated container never finishes before it started
        for cs in (p.get("status") or {}).get("containerStatuses") or ():
            t = (cs.get("state") or {}).get("terminated")
            if t:
                assert parse_time(t["finishedAt"]) >= parse_time(t["startedAt"])


def _finished(job: dict[str, Any]) -> str | None:
    for x in (job.get("status") or {}).get("conditions") or ():
        if x.get("status") == "True" and x["type"] in ("Complete", "Failed"):
            return str(x["type"])
    return None


def test_the_table_is_large_and_distinct() -> None:
    manifests = [m for case in CASES for m in case.manifests]
    assert len(CASES) >= 150 and len({c.id for c in CASES}) == len(CASES)
    assert len(manifests) >= 150
