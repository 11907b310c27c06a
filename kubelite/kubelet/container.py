"""One container of a pod on the node: its lifecycle step, current run and history.

Owned and mutated only by its :class:`~kubelite.kubelet.pod_worker.PodWorker`; every step change goes
through :meth:`ContainerRecord.move`, which enforces :data:`kubelite.kubelet.lifecycle.TRANSITIONS`.
Times are absolute (cluster clock seconds). The record keeps what ``containerStatuses`` reports:
``restartCount``, ``lastState.terminated`` (reason, exitCode, startedAt, finishedAt), the current
waiting reason and message, readiness and the ``started`` flag.
"""

from __future__ import annotations

import random

from kubelite.api.podresources import quantity_units
from kubelite.api.types.core_v1 import Container
from kubelite.kubelet.command import Behaviour
from kubelite.kubelet.lifecycle import Step, check
from kubelite.kubelet.probes import LIVENESS, READINESS, STARTUP, ProbeSpec, ProbeWorker
from kubelite.workload import ImageProfile, RunPlan, memory_at

__all__ = ["ContainerRecord", "Terminated"]

class Terminated:
    """A finished run (``lastState.terminated`` / ``state.terminated``)."""

    __slots__ = ("container_id", "exit_code", "finished_at", "reason", "started_at")

    def __init__(self, reason: str, exit_code: int, started_at: float, finished_at: float,
                 container_id: str) -> None:
        self.reason = reason
        self.exit_code = exit_code
        self.started_at = started_at
        self.finished_at = finished_at
        self.container_id = container_id


class ContainerRecord:
    __slots__ = ("backoff_key", "backoff_visible_at", "container_id", "exit_code", "field_path", "files",
                 "finished_at", "hook_until", "image", "init", "killed_by_probe", "last", "memory_limit", "name",
                 "pid", "plan", "probe_specs", "probes", "profile", "pull_policy", "pulling", "ready",
                 "restart_count", "sidecar", "spec", "start_error", "started_at", "started_flag", "step",
                 "stop_code", "term_reason", "until", "wait", "waiting_message", "waiting_reason")

    def __init__(self, spec: Container, *, init: bool, pod_uid: str = "") -> None:
        self.spec = spec  # the typed container of the pod's shared read-only view (never mutated)
        self.name: str = spec.name or ""
        self.init = init
        self.sidecar = init and spec.restart_policy == "Always"
        self.image: str = spec.image or ""
        self.pull_policy: str | None = spec.image_pull_policy
        self.field_path = f"spec.{'initContainers' if init else 'containers'}{{{self.name}}}"
        self.backoff_key: tuple[str, ...] = (pod_uid, self.name)
        limits = (spec.resources.limits if spec.resources is not None else None) or {}
        self.memory_limit: int | None = quantity_units("memory", limits["memory"]) if "memory" in limits else None
        self.probe_specs = [ProbeSpec(kind, probe) for kind, probe in
                            ((STARTUP, spec.startup_probe), (LIVENESS, spec.liveness_probe),
                             (READINESS, spec.readiness_probe))
                            if probe is not None and (not init or self.sidecar)]
        self.step = Step.IMAGE
        self.waiting_reason = "ContainerCreating"
        self.waiting_message = ""
        self.pulling = False
        self.profile: ImageProfile | None = None
        self.plan: RunPlan | None = None
        #: the script's wait-for-a-name loop (``Behaviour.wait_for``), if its command has one
        self.wait: Behaviour | None = None
        self.container_id = ""
        self.pid = 0
        self.started_at: float | None = None
        self.finished_at: float | None = None
        self.exit_code = 0
        self.term_reason = ""
        self.last: Terminated | None = None
        self.restart_count = 0
        self.ready = False
        self.started_flag = False
        self.killed_by_probe = False
        self.until = 0.0
        self.stop_code = 0
        self.hook_until: float | None = None
        self.probes: dict[str, ProbeWorker] = {}
        self.start_error = ""
        self.files: tuple[tuple[float, str, bool], ...] = ()  # the command's file timeline (exec probes)
        self.backoff_visible_at = 0.0  # in BACKOFF: from here the status shows CrashLoopBackOff

    def move(self, new: Step) -> None:
        check(self.step, new)
        self.step = new

    def set_waiting(self, reason: str, message: str) -> None:
        self.waiting_reason = reason
        self.waiting_message = message

    def created(self, now: float, rng: random.Random) -> None:
        self.container_id = f"containerd://{rng.getrandbits(256):064x}"
        self.pid = 1000 + rng.randrange(60000)

    def running(self, at: float, plan: RunPlan, *, probe_origin: float | None = None) -> None:
        """The run started at ``at``; ``probe_origin``: the phase of its probes' ticks (the pod's admission:
        upstream's prober workers live as long as the pod, across restarts)."""
        self.move(Step.RUNNING)
        self.started_at = at
        self.finished_at = None
        self.plan = plan
        self.ready = False
        self.killed_by_probe = False
        assert self.profile is not None
        self.hook_until = at + self.profile.post_start_seconds if self.profile.post_start_seconds else None
        has_startup = any(s.kind == STARTUP for s in self.probe_specs)
        self.started_flag = not has_startup
        self.probes = {s.kind: ProbeWorker(s, at, origin=probe_origin, gated=has_startup and s.kind != STARTUP, files=self.files)
                       for s in self.probe_specs}
        if READINESS not in self.probes:
            # no readiness probe: ready as soon as started (and the startup probe, if any, passed)
            self.ready = not has_startup

    def is_started(self) -> bool:
        return self.step in (Step.RUNNING, Step.STOPPING) and self.started_flag

    def next_probe(self) -> ProbeWorker | None:
        best: ProbeWorker | None = None
        for w in self.probes.values():
            if w.next_at is not None and (best is None or best.next_at is None or w.next_at < best.next_at):
                best = w
        return best

    def exit_time(self) -> tuple[float | None, int, str]:
        """When the current run ends on its own: ``(time, exit code, reason)`` (OOM wins ties)."""
        plan = self.plan
        if plan is None or self.started_at is None:
            return None, 0, ""
        at: float | None = None
        code, reason = 0, ""
        if plan.exit_at is not None:
            at, code = self.started_at + plan.exit_at, plan.exit_code
            reason = "Completed" if code == 0 else "Error"
        if plan.oom_at is not None and (at is None or self.started_at + plan.oom_at <= at):
            at, code, reason = self.started_at + plan.oom_at, 137, "OOMKilled"
        return at, code, reason

    def stop(self, until: float, code: int) -> None:
        self.move(Step.STOPPING)
        self.until = until
        self.stop_code = code
        self.ready = False

    def exit(self, at: float, code: int, reason: str) -> None:
        self.move(Step.EXITED)
        self.finished_at = at
        self.exit_code = code
        self.term_reason = reason
        self.ready = False
        self.probes = {}
        self.hook_until = None

    def restart(self, *, after_backoff: bool = False) -> None:
        """Back to IMAGE for the next run; this run becomes ``lastState``. After a backoff the container
        keeps reporting ``CrashLoopBackOff`` until the new run starts (upstream's cached reason stays
        until the next status is generated from a running container)."""
        assert self.started_at is not None and self.finished_at is not None
        self.last = Terminated(self.term_reason, self.exit_code, self.started_at, self.finished_at,
                               self.container_id)
        self.restart_count += 1
        self.move(Step.IMAGE)
        if not (after_backoff and self.waiting_reason == "CrashLoopBackOff"):
            self.waiting_reason, self.waiting_message = "ContainerCreating", ""

    def memory_at(self, now: float) -> int:
        if self.profile is None or self.started_at is None:
            return 0
        return memory_at(self.profile, now - self.started_at)
