"""The pod status a kubelet reports, derived from its pod worker.

Follows ``pkg/kubelet/kubelet_pods.go`` (``generateAPIPodStatus``, ``getPhase``,
``convertToAPIContainerStatuses``) and ``pkg/kubelet/status/generate.go`` (``GeneratePodReadyCondition``,
``GenerateContainersReadyCondition``, ``GeneratePodInitializedCondition``,
``GeneratePodReadyToStartContainersCondition``). Guarantees:
- phase: a container waiting for its first start keeps the pod Pending; one running makes it Running;
  all stopped: Always → Running (restarting), all exit 0 → Succeeded, Never → Failed, OnFailure →
  Running; a pod whose worker finished for good is Succeeded if every container exited 0, else Failed;
  a rejected or evicted pod is Failed with its reason and message.
- conditions come in upstream order; ``lastTransitionTime`` changes only when a condition's status does
  (the previous status is passed in), so an unchanged pod produces an identical status and no patch.
Pure: ``build_status(worker, now, previous)`` returns a plain dict for ``status``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

import msgspec

from kubelite.clock import format_time
from kubelite.kubelet.container import ContainerRecord
from kubelite.kubelet.lifecycle import Step
from kubelite.kubelet.pod_worker import PodWorker, Stage
from kubelite.memo import memoize
from kubelite.workload import normalize_image

__all__ = ["KUBELET_CONDITIONS", "build_status", "container_status", "pod_phase"]

_WAITING_STEPS = (Step.IMAGE, Step.CONFIG, Step.STARTING, Step.BACKOFF)
#: kubetypes.PodConditionsByKubelet: the kubelet is authoritative for these; every other condition is merged
KUBELET_CONDITIONS = frozenset({"PodScheduled", "Ready", "Initialized", "ContainersReady",
                                "PodReadyToStartContainers"})


# bound: one entry per distinct image reference in the cluster
@memoize("kubelet.status.image_id", maxsize=4096)
def image_id(image: str) -> str:
    repo, tag = normalize_image(image)
    if tag.startswith("@"):
        return repo + tag
    return f"{repo}@sha256:{hashlib.sha256(f'{repo}:{tag}'.encode()).hexdigest()}"


def _terminated(reason: str, code: int, started: float, finished: float, cid: str) -> dict[str, Any]:
    return {"terminated": {"exitCode": code, "reason": reason, "startedAt": format_time(started),
                           "finishedAt": format_time(finished), "containerID": cid}}


def container_status(rec: ContainerRecord, *, initializing: bool, devices: list[dict[str, Any]] | None = None,
                     now: float = 0.0) -> dict[str, Any]:
    """One entry of ``containerStatuses``/``initContainerStatuses`` (``convertToAPIContainerStatuses``):

    - ``state`` is the latest run: running, terminated (reason Completed, Error, OOMKilled, StartError),
      or waiting. A container not created yet waits with ``ContainerCreating``, or ``PodInitializing`` when
      the pod has init containers (``initializing``: upstream's ``hasInitContainers``, for both lists);
      a pull or config failure waits with its reason.
    - A container in restart backoff reports its terminated run until the next sync (``SYNC_LAG``), then
      waits with ``CrashLoopBackOff`` and the run that just ended moves to ``lastState`` (upstream: the
      cached failure reason replaces a terminated state, which becomes ``lastTerminationState``).
    - ``lastState`` is otherwise the run before the latest one; ``restartCount`` counts the restarts
      done (a container in backoff has not been restarted yet).
    - ``ready``: a running app container that passes readiness (ready at start without a probe); a
      regular init container is ready once it exited 0, never while running; a sidecar by readiness.
      ``started``: running and past its startup probe.
    """
    step = rec.step
    state: dict[str, Any]
    last = rec.last
    last_state: dict[str, Any] = _terminated(last.reason, last.exit_code, last.started_at, last.finished_at,
                                             last.container_id) if last is not None else {}
    if step in (Step.RUNNING, Step.STOPPING):
        assert rec.started_at is not None
        state = {"running": {"startedAt": format_time(rec.started_at)}}
    elif step in (Step.EXITED, Step.DONE) and rec.finished_at is not None and rec.started_at is not None:
        state = _terminated(rec.term_reason, rec.exit_code, rec.started_at, rec.finished_at, rec.container_id)
    elif step == Step.BACKOFF and rec.finished_at is not None and rec.started_at is not None:
        ended = _terminated(rec.term_reason, rec.exit_code, rec.started_at, rec.finished_at, rec.container_id)
        if now < rec.backoff_visible_at:
            state = ended
        else:
            waiting: dict[str, Any] = {"reason": rec.waiting_reason}
            if rec.waiting_message:
                waiting["message"] = rec.waiting_message
            state, last_state = {"waiting": waiting}, ended
    else:
        reason = rec.waiting_reason
        if initializing and reason == "ContainerCreating":
            reason = "PodInitializing"
        waiting = {"reason": reason}
        if rec.waiting_message:
            waiting["message"] = rec.waiting_message
        state = {"waiting": waiting}
    running = step == Step.RUNNING
    if rec.init and not rec.sidecar:
        ready = step in (Step.EXITED, Step.DONE) and rec.finished_at is not None and rec.exit_code == 0
    else:
        ready = rec.ready and running
    out: dict[str, Any] = {
        "name": rec.name,
        "state": state,
        "lastState": last_state,
        "ready": ready,
        "restartCount": rec.restart_count,
        "image": rec.image,
        "imageID": image_id(rec.image) if rec.container_id else "",
        "started": rec.started_flag and step in (Step.RUNNING, Step.STOPPING),
    }
    if rec.container_id:
        out["containerID"] = rec.container_id
    if devices:
        out["allocatedResourcesStatus"] = devices
    return out


def pod_phase(w: PodWorker) -> str:
    if w.stage == Stage.REJECTED:
        return "Failed"
    if w.reason in ("Evicted", "DeadlineExceeded") and w.stage == Stage.TERMINATED:
        return "Failed"
    terminal = w.stage == Stage.TERMINATED
    pending_init = 0
    for rec in w.containers:
        if rec.init and not rec.sidecar and not (rec.step in (Step.EXITED, Step.DONE) and rec.exit_code == 0
                                                 and rec.finished_at is not None):
            pending_init += 1
    waiting = running = stopped = succeeded = 0
    for rec in w.containers:
        if rec.init:
            continue
        if rec.step in (Step.RUNNING, Step.STOPPING):
            running += 1
        elif rec.step in (Step.EXITED, Step.DONE) and rec.finished_at is not None:
            stopped += 1
            if rec.exit_code == 0:
                succeeded += 1
        elif rec.last is not None:
            stopped += 1
        else:
            waiting += 1
    if terminal:
        if pending_init:
            return "Failed"
        return "Succeeded" if stopped and stopped == succeeded and not waiting else "Failed"
    if pending_init or waiting:
        return "Pending"
    if running:
        return "Running"
    if stopped:
        policy = w.restart_policy
        if policy == "Always":
            return "Running"
        if stopped == succeeded:
            return "Succeeded"
        return "Failed" if policy == "Never" else "Running"
    return "Pending"


def _cond(type_: str, ok: bool, now: str, previous: Mapping[str, Mapping[str, Any]],
          reason: str = "", message: str = "") -> dict[str, Any]:
    status = "True" if ok else "False"
    prev = previous.get(type_)
    ltt = prev.get("lastTransitionTime") if prev is not None and prev.get("status") == status else None
    # no "lastProbeTime": null: a merge patch prunes nulls, so the stored condition never has it
    c: dict[str, Any] = {"type": type_, "status": status, "lastTransitionTime": ltt or now}
    if reason:
        c["reason"] = reason
    if message:
        c["message"] = message
    return c


def build_status(w: PodWorker, now: float, previous: Mapping[str, Any] | None) -> dict[str, Any]:
    """The whole ``status`` of ``w``'s pod at ``now``; ``previous`` is the last status reported."""
    ts = format_time(now)
    prev_conds = {c.get("type"): c for c in ((previous or {}).get("conditions") or ())}
    phase = pod_phase(w)
    rt = w.rt
    status: dict[str, Any] = {"phase": phase}
    if w.stage == Stage.REJECTED:
        status["reason"], status["message"] = w.reason, w.message
        status["startTime"] = format_time(w.start_time)
        return status
    inits = [r for r in w.containers if r.init]
    apps = [r for r in w.containers if not r.init]
    incomplete = [r.name for r in inits if not (r.started_flag if r.sidecar else
                                                (r.finished_at is not None and r.exit_code == 0))]
    sandbox_ok = w.sandbox_at is not None and w.sandbox_at <= now and w.stage != Stage.TERMINATED
    conds = [_cond("PodReadyToStartContainers", sandbox_ok, ts, prev_conds)]
    conds.append(_cond("Initialized", not incomplete, ts, prev_conds,
                       "" if not incomplete else "ContainersNotInitialized",
                       "" if not incomplete else f"containers with incomplete status: [{' '.join(incomplete)}]"))
    unready = [r.name for r in apps if not (r.ready and r.step == Step.RUNNING)]
    if phase == "Succeeded":
        reason, message = "PodCompleted", ""
    elif unready:
        reason, message = "ContainersNotReady", f"containers with unready status: [{' '.join(unready)}]"
    else:
        reason = message = ""
    ready = not unready and phase == "Running"
    conds.append(_cond("Ready", ready, ts, prev_conds, reason, message))
    conds.append(_cond("ContainersReady", ready, ts, prev_conds, reason, message))
    sched = prev_conds.get("PodScheduled")
    conds.append(dict(sched) if sched is not None else _cond("PodScheduled", True, ts, prev_conds))
    if w.disruption is not None:
        conds.append(_cond("DisruptionTarget", True, ts, prev_conds, "TerminationByKubelet", w.disruption))
    # status_manager mergePodStatus: conditions the kubelet does not own (DisruptionTarget set by preemption,
    # the eviction API or taint eviction; readiness gates) are kept as the API has them, first
    ours = {c["type"] for c in conds}
    api = w.pod.status
    kept = [msgspec.to_builtins(c) for c in ((api.conditions if api is not None else None) or ())
            if c.type not in KUBELET_CONDITIONS and c.type not in ours]
    status["conditions"] = kept + conds if kept else conds
    status["hostIP"] = rt.host_ip
    status["hostIPs"] = [{"ip": rt.host_ip}]
    if w.pod_ip:
        status["podIP"] = w.pod_ip
        status["podIPs"] = [{"ip": w.pod_ip}]
    status["startTime"] = format_time(w.start_time)
    has_inits = bool(inits)
    if inits:
        status["initContainerStatuses"] = [container_status(r, initializing=True, now=now) for r in inits]
    # UpdateAllocatedResourcesStatus (ResourceHealthStatus, beta and on by default since 1.36): the app
    # containers' devices with the health their plugin reports
    devices = rt.devices.resource_status if rt.devices.allocations else None
    status["containerStatuses"] = [
        container_status(r, initializing=has_inits, devices=devices(w.uid, r.name) if devices else None, now=now)
        for r in apps]
    if w.reason is not None and w.stage == Stage.TERMINATED:
        status["reason"], status["message"] = w.reason, w.message
    qos = (previous or {}).get("qosClass") or (api.qos_class if api is not None else None)
    if qos:
        status["qosClass"] = qos
    return status
