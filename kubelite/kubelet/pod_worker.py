"""One pod on one node: its sandbox, volumes, containers and probes, advanced on virtual time.

Follows ``pkg/kubelet/pod_workers.go`` (one worker per pod, ``SyncPod`` / ``SyncTerminatingPod`` /
``SyncTerminatedPod``), ``kubelet.go`` ``SyncPod`` (sandbox → volumes → containers) and
``kuberuntime/kuberuntime_manager.go`` (``computePodActions``: init containers one after another,
then every app container; restarts by policy with CrashLoopBackOff).

Contract:
- Pure and synchronous. :meth:`PodWorker.sync` advances the pod to ``now`` and returns the next time
  anything can change (a probe that matters, a pull finishing, a process exiting or being OOM-killed,
  a backoff expiring, a retry), or None. The kubelet keeps exactly one timer per pod at that time.
- Only the worker mutates its containers; the :class:`NodeRuntime` it is given (devices, IPs, images,
  lookups, event sink, fault switches) is shared by every worker of the node.
- Events are emitted in upstream order with upstream reasons and messages; the status is derived from
  the worker by :mod:`kubelite.kubelet.status` (the worker writes nothing itself).
"""

from __future__ import annotations

import hashlib
import math
import random
from collections.abc import Callable
from typing import Any

import msgspec

from kubelite.api.types.core_v1 import Pod, PodSpec
from kubelite.kubelet import images as im
from kubelite.kubelet.backoff import Backoff
from kubelite.kubelet.command import behaviour
from kubelite.kubelet.container import ContainerRecord
from kubelite.kubelet.devices import DeviceManager
from kubelite.kubelet.ipam import HostLocalIPAM, IPExhausted
from kubelite.kubelet.lifecycle import Step
from kubelite.kubelet.probes import READINESS, STARTUP
from kubelite.kubelet.volumes import VolumeLookup, check_env, check_volumes
from kubelite.workload import (
    PROFILE_ANNOTATION,
    ImageProfile,
    ImageRegistry,
    plan_run,
    profile_for,
    valid_reference,
)

__all__ = ["NodeRuntime", "PodWorker", "Stage"]

NORMAL, WARNING = "Normal", "Warning"
#: pod_workers.go: a failed sync is retried after backOffPeriod with jitter factor 0.5
SYNC_RETRY = 10.0
#: The PLEG relist period (1 s). A sync that fails into a backoff (ErrImagePull, a crash while the restart
#: backoff runs) writes its own result first (``ErrImagePull``; ``terminated``: kubectl shows Error,
#: OOMKilled or Completed); the reason the runtime manager cached (``ImagePullBackOff``,
#: ``CrashLoopBackOff``) reaches the status with the next sync, one relist later.
SYNC_LAG = 1.0
_MOUNT_BACKOFF = (0.5, 122.0)  # goroutinemap exponentialbackoff: 500 ms doubling to 2m2s
_EMPTY_SPEC = PodSpec()


class Stage:
    SANDBOX = "sandbox"
    VOLUMES = "volumes"
    CONTAINERS = "containers"
    TERMINATING = "terminating"
    TERMINATED = "terminated"  # containers stopped for good; resources released
    REJECTED = "rejected"


class NodeRuntime:
    """What every pod worker of a node shares. Mutated by the kubelet and its fault switches."""

    def __init__(self, *, node_name: str, host_ip: str, registry: ImageRegistry, images: im.ImageManager,
                 devices: DeviceManager, ipam: HostLocalIPAM | None, lookup: VolumeLookup, rng: random.Random,
                 event: Callable[[Any, str, str, str], None], sandbox_seconds: float = 0.0,
                 attach_seconds: float = 2.0, mount_seconds: float = 0.5) -> None:
        self.node_name = node_name
        self.host_ip = host_ip
        self.registry = registry
        self.images = images
        self.devices = devices
        self.ipam = ipam
        self.lookup = lookup
        self.rng = rng
        self.event = event
        self.started_at = 0.0  # when the kubelet (its prober manager) last started
        self.sandbox_seconds = sandbox_seconds
        self.attach_seconds = attach_seconds
        self.mount_seconds = mount_seconds
        self.cni_ready = True
        self.restart_backoff = Backoff()
        self.crash_requests: set[tuple[str, str]] = set()  # (pod uid, container): fault switch
        #: the registry hosts a pod's imagePullSecrets hold credentials for (set by the kubelet)
        self.await_pod_cidr = False  # the node has no pod CIDR yet (the IPAM controller will assign one)
        self.pull_credentials: Callable[[Pod], dict[str, str]] = lambda pod: {}
        #: whether a DNS lookup of (name, from namespace) answers; wait_for_name(name, namespace, pod uid)
        #: syncs the pod again when it may (set by the kubelet: :class:`~kubelite.kubelet.dns.PodDNS`,
        #: the cluster DNS)
        self.resolves: Callable[[str, str], bool] = lambda name, namespace: True
        self.wait_for_name: Callable[[str, str, str], None] = lambda name, namespace, uid: None


def _ref(pod: Pod, field_path: str = "") -> dict[str, str]:
    """``ref.GetReference`` (``GetPartialReference`` with a container's fieldPath) of the pod as the kubelet
    sees it: its resourceVersion included."""
    meta = pod.metadata
    ref = {"apiVersion": "v1", "kind": "Pod", "namespace": meta.namespace or "", "name": meta.name or "",
           "uid": meta.uid or ""}
    if meta.resource_version:
        ref["resourceVersion"] = meta.resource_version
    if field_path:
        ref["fieldPath"] = field_path
    return ref


class PodWorker:
    """See the module docstring."""

    def __init__(self, rt: NodeRuntime, pod: Pod, now: float) -> None:
        self.rt = rt
        #: the pod as the kubelet's informer has it: the shared, read-only typed view (replaced on update)
        self.pod = pod
        meta = pod.metadata
        self.uid: str = meta.uid or ""
        self.namespace: str = meta.namespace or ""
        self.name: str = meta.name or ""
        spec = pod.spec if pod.spec is not None else _EMPTY_SPEC
        self.restart_policy: str = spec.restart_policy or "Always"
        self.stage = Stage.SANDBOX
        self.start_time = now
        self._probe_origin: float | None = None
        self.pod_ip: str | None = None
        self.sandbox_at: float | None = None
        self.volumes_at: float | None = None
        self.reason: str | None = None
        self.message: str | None = None
        self.disruption: str | None = None
        self.grace: float = 0.0
        self.retry_at: float | None = None
        self._mount_backoff = Backoff(*_MOUNT_BACKOFF)
        self._mount_failed_at: float | None = None
        self._sandbox_failed = False
        self.requests: dict[str, int] = {}  # effective requests, computed once at admission
        self.pending_status: dict[str, Any] = {}  # the kubelet's status manager: latest, not yet written
        self.containers: list[ContainerRecord] = []
        ports: dict[str, int] = {}
        for c in spec.init_containers or ():
            self.containers.append(ContainerRecord(c, init=True, pod_uid=self.uid))
        for c in spec.containers or ():
            self.containers.append(ContainerRecord(c, init=False, pod_uid=self.uid))
        for rec in self.containers:
            for p in rec.spec.ports or ():
                if p.name:
                    ports[p.name] = int(p.container_port or 0)
        self.ports = ports

    # --- helpers ---
    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"

    def desc(self) -> str:
        return f"{self.name}_{self.namespace}({self.uid})"

    def event(self, type_: str, reason: str, message: str, field_path: str = "") -> None:
        self.rt.event(_ref(self.pod, field_path), type_, reason, message)

    def _retry(self, now: float) -> float:
        at = now + SYNC_RETRY * (1.0 + 0.5 * self.rt.rng.random())
        self.retry_at = at
        return at

    def grace_period(self) -> float:
        g = self.pod.metadata.deletion_grace_period_seconds
        return float(g) if g is not None else self.grace_period_spec()

    @property
    def terminal(self) -> bool:
        return self.stage in (Stage.TERMINATED, Stage.REJECTED)

    # --- the sync loop ---
    def sync(self, now: float) -> float | None:
        """Advance to ``now``; returns the next wake-up time (see the module docstring)."""
        wake = self._sync(now)
        spec = self.pod.spec
        deadline = spec.active_deadline_seconds if spec is not None else None
        if deadline is not None and self.stage in (Stage.SANDBOX, Stage.VOLUMES, Stage.CONTAINERS):
            wake = _min(wake, self.start_time + float(deadline))
        return wake

    def _sync(self, now: float) -> float | None:
        live = self.stage in (Stage.SANDBOX, Stage.VOLUMES, Stage.CONTAINERS)
        spec = self.pod.spec
        deadline = spec.active_deadline_seconds if spec is not None else None
        if live and deadline is not None and now >= self.start_time + float(deadline):
            # activeDeadlineHandler: the pod fails with DeadlineExceeded and its containers are killed
            msg = "Pod was active on the node longer than the specified deadline"
            self.event(WARNING, "DeadlineExceeded", msg)
            self.begin_termination(now, self.grace_period_spec(), reason="DeadlineExceeded", message=msg)
        if self.stage in (Stage.SANDBOX, Stage.VOLUMES, Stage.CONTAINERS) and self.pod.metadata.deletion_timestamp:
            self.begin_termination(now, self.grace_period())
        if self.stage == Stage.SANDBOX:
            wake = self._sync_sandbox(now)
            if wake is not None:
                return wake
        if self.stage == Stage.VOLUMES:
            wake = self._sync_volumes(now)
            if wake is not None:
                return wake
        if self.stage == Stage.CONTAINERS:
            return self._sync_containers(now)
        if self.stage == Stage.TERMINATING:
            return self._sync_terminating(now)
        return None

    def _sync_sandbox(self, now: float) -> float | None:
        rt = self.rt
        if self.sandbox_at is None:
            if not rt.cni_ready:
                self._sandbox_failed = True
                self.event(WARNING, "FailedCreatePodSandBox",
                           'Failed to create pod sandbox: rpc error: code = Unknown desc = failed to setup network '
                           f'for sandbox "{self.uid[:12]}": plugin type="bridge" failed (add): cni plugin not '
                           'initialized')
                return self._retry(now)
            if rt.ipam is None and rt.await_pod_cidr:
                return None  # no pod CIDR yet: the kubelet syncs the pod again when the node gets one
            if rt.ipam is not None:
                try:
                    self.pod_ip = rt.ipam.allocate(self.uid)
                except IPExhausted as e:
                    self.event(WARNING, "FailedCreatePodSandBox",
                               f"Failed to create pod sandbox: rpc error: code = Unknown desc = {e}")
                    return self._retry(now)
            self.sandbox_at = now + rt.sandbox_seconds
            if self._sandbox_failed:
                self.event(NORMAL, "SandboxChanged", "Pod sandbox changed, it will be killed and re-created.")
        if now < self.sandbox_at:
            return self.sandbox_at
        self.stage = Stage.VOLUMES
        return None

    def _sync_volumes(self, now: float) -> float | None:
        if self.volumes_at is None:
            failures, attach = check_volumes(self.pod, self.rt.lookup)
            if failures:
                key = "mount"
                if self._mount_failed_at is None or now >= self._mount_failed_at + self._mount_backoff.get(key):
                    for msg in failures:
                        self.event(WARNING, "FailedMount", msg)
                    self._mount_backoff.next(key, now)
                    self._mount_failed_at = now
                return self._mount_failed_at + self._mount_backoff.get(key)
            rt = self.rt
            self.volumes_at = now + (rt.attach_seconds + rt.mount_seconds if attach else 0.0)
        if now < self.volumes_at:
            return self.volumes_at
        self.stage = Stage.CONTAINERS
        return None

    def _sync_containers(self, now: float) -> float | None:
        wake: float | None = None
        inits_done = True
        hook_until: float | None = None
        for rec in self.containers:
            if rec.init:
                if not inits_done:
                    break
                w = self._drive(rec, now)
                wake = _min(wake, w)
                if rec.sidecar:
                    if not rec.is_started():
                        inits_done = False
                    continue
                if not (rec.step in (Step.EXITED, Step.DONE) and rec.exit_code == 0):
                    inits_done = False
                    if rec.step == Step.DONE:  # init failed and will not restart: pod fails
                        self._finish(now)
                        return None
                continue
            if not inits_done:
                break
            if hook_until is not None and hook_until > now:
                # startContainer runs postStart synchronously: the next container waits for it
                wake = _min(wake, hook_until)
                break
            wake = _min(wake, self._drive(rec, now))
            if rec.hook_until is not None and rec.step == Step.RUNNING:
                hook_until = rec.hook_until
        if inits_done and self.restart_policy != "Always" and self._all_app_done():
            self._finish(now)
            return None
        return wake

    def _all_app_done(self) -> bool:
        return all(r.step == Step.DONE for r in self.containers if not r.init)

    # --- one container ---
    def _drive(self, rec: ContainerRecord, now: float) -> float | None:
        rt = self.rt
        for _ in range(32):  # each pass moves one step; bounded so a bug cannot spin forever
            step = rec.step
            if step == Step.IMAGE:
                fp = rec.field_path
                if not valid_reference(rec.image):
                    # images.applyDefaultImageTag fails: InvalidImageName on every sync, never pulled
                    msg = (f'Failed to apply default image tag "{rec.image}": couldn\'t parse image name '
                           f'"{rec.image}": invalid reference format')
                    if rec.waiting_reason != "InvalidImageName":
                        self.event(WARNING, "InspectFailed", msg, fp)
                        self.event(WARNING, "Failed", "Error: InvalidImageName", fp)
                    rec.set_waiting("InvalidImageName", msg)
                    return self._retry(now)
                r = rt.images.ensure((self.uid, rec.name), rec.image, rec.pull_policy, now,
                                     authorized=self._authorized(rec.image))
                if r.kind == im.PULLING:
                    if not rec.pulling:
                        rec.pulling = True
                        self.event(NORMAL, "Pulling", f'Pulling image "{rec.image}"', fp)
                    if r.until > now:
                        return r.until
                    continue
                rec.pulling = False
                if r.kind in (im.PRESENT, im.PULLED):
                    if r.kind == im.PRESENT:
                        self.event(NORMAL, "Pulled", f'Container image "{rec.image}" already present on machine', fp)
                    else:
                        self.event(NORMAL, "Pulled",
                                   f'Successfully pulled image "{rec.image}" in {_dur(r.duration)} '
                                   f"({_dur(r.waited)} including waiting). Image size: {r.size} bytes.", fp)
                    rec.move(Step.CONFIG)
                    continue
                if r.kind == im.FAILED:
                    rec.set_waiting("ErrImagePull", r.message)
                    self.event(WARNING, "Failed", f'Failed to pull image "{rec.image}": {r.message}', fp)
                    self.event(WARNING, "Failed", "Error: ErrImagePull", fp)
                    return now + SYNC_LAG
                if r.kind == im.BACKOFF:
                    if rec.waiting_reason != "ImagePullBackOff":
                        rec.set_waiting("ImagePullBackOff", r.message)
                        self.event(NORMAL, "BackOff", r.message, fp)
                        self.event(WARNING, "Failed", "Error: ImagePullBackOff", fp)
                    return r.until
                else:
                    rec.set_waiting("ErrImageNeverPull", r.message)
                    self.event(WARNING, "ErrImageNeverPull", r.message, fp)
                return self._retry(now)
            if step == Step.CONFIG:
                err = check_env(self.pod, rec.spec, rt.lookup)
                profile: ImageProfile | None = None
                if err is None:
                    base = rt.registry.lookup(rec.image) or rt.registry.default
                    base = self._command_profile(rec, base)
                    try:
                        profile = profile_for(base, self.pod.metadata.annotations, rec.name)
                    except ValueError as e:
                        err = str(e)
                if err is not None or profile is None:
                    rec.set_waiting("CreateContainerConfigError", err or "")
                    self.event(WARNING, "Failed", f"Error: {err}", rec.field_path)
                    return self._retry(now)
                if profile.exit_after is not None or profile.crash_after is not None:
                    rec.wait = None  # a profile that says when the process exits overrides the script
                rec.profile = profile
                rec.created(now, rt.rng)
                self.event(NORMAL, "Created", f"Created container: {rec.name}", rec.field_path)
                rec.move(Step.STARTING)
                rec.until = now + profile.start_seconds
                continue
            if step == Step.STARTING:
                if now < rec.until:
                    return rec.until
                self._start(rec, rec.until)
                continue
            if step == Step.RUNNING:
                return self._running(rec, now)
            if step == Step.STOPPING:
                if now < rec.until:
                    return rec.until
                rec.exit(rec.until, rec.stop_code, "Error" if rec.stop_code else "Completed")
                continue
            if step == Step.EXITED:
                return self._after_exit(rec, now)
            if step == Step.BACKOFF:
                finished = rec.finished_at if rec.finished_at is not None else now
                if rt.restart_backoff.in_backoff_since(rec.backoff_key, finished, now):
                    until = finished + rt.restart_backoff.get(rec.backoff_key)
                    if now < rec.backoff_visible_at:
                        return min(until, rec.backoff_visible_at)
                    return until
                rt.restart_backoff.next(rec.backoff_key, now, finished)
                rec.restart(after_backoff=True)
                continue
            return None
        raise RuntimeError(f"container {rec.name} of {self.key} did not settle")  # pragma: no cover

    def _authorized(self, image: str) -> bool:
        private = self.rt.registry.private(image)
        if private is None:
            return True
        host, accepted = private
        creds = self.rt.pull_credentials(self.pod)
        secret = creds.get(host)
        return secret is not None and (not accepted or secret in accepted)

    def _command_profile(self, rec: ContainerRecord, base: ImageProfile) -> ImageProfile:
        """The image profile with what the container's command says it does (see
        :mod:`kubelite.kubelet.command`), unless the profile itself says when the process exits."""
        rec.start_error = ""
        rec.wait = None
        b = behaviour(rec.spec)
        rec.files = b.files if b is not None else ()
        if b is None or base.exit_after is not None or base.crash_after is not None:
            return base
        rec.start_error = b.start_error
        if b.wait_for:
            rec.wait = b  # runs until the name resolves (see _check_wait)
            b = msgspec.structs.replace(b, exit_after=None)
        if b.ignores_sigterm and "shutdownSeconds" not in _overrides(self.pod, rec.name):
            # PID 1 without a SIGTERM handler (a shell, sleep) ignores it: killed at the grace period (137)
            base = base.merged({"shutdownSeconds": float("inf")})
        if b.exit_after is None:
            return base
        return base.merged({"exitAfter": b.exit_after, "exitCode": b.exit_code})

    @property
    def probe_origin(self) -> float:
        """The phase of this pod's probe ticks (``prober/worker.go`` ``run``): its workers start their tickers
        when the kubelet adds the pod, and keep them across container restarts. A pod added within one probe
        period of the kubelet's start first sleeps a random portion of the period (upstream: "if kubelet
        restarted the probes could be started in rapid succession"); that portion is taken from the pod's uid
        (seeded, like every uid, and drawn from nothing else, so a probe shifts no other seeded value) as a
        fraction of the shortest period among the pod's probes, whole milliseconds."""
        origin = self._probe_origin
        if origin is None:
            origin = self.start_time
            periods = [s.period for rec in self.containers for s in rec.probe_specs]
            if periods and origin - self.rt.started_at < min(periods):
                digest = hashlib.sha256(self.uid.encode()).digest()
                origin += round(int.from_bytes(digest[:4], "big") / 2**32 * min(periods), 3)
            self._probe_origin = origin
        return origin

    def _start(self, rec: ContainerRecord, at: float) -> None:
        rt = self.rt
        assert rec.profile is not None
        limit = rec.memory_limit
        rec.running(at, plan_run(rec.profile, memory_limit=limit, rng=rt.rng), probe_origin=self.probe_origin)
        if rec.start_error:
            # the runtime could not exec the process: terminated StartError, exit code 128
            self.event(WARNING, "Failed", f"Error: {rec.start_error}", rec.field_path)
            rec.exit(at, 128, "StartError")
            return
        self.event(NORMAL, "Started", f"Started container {rec.name}", rec.field_path)

    def _check_wait(self, rec: ContainerRecord, now: float) -> None:
        """The script's wait loop: once its name resolves, the loop ends at the next of its lookups (at
        ``wait_start + k * wait_poll`` after start) and the rest of the script runs from there; until then
        the kubelet is woken when a Service the name may resolve to appears."""
        b = rec.wait
        assert b is not None and rec.plan is not None and rec.started_at is not None
        name = b.wait_for.replace("{namespace}", self.namespace)
        rt = self.rt
        if not rt.resolves(name, self.namespace):
            rt.wait_for_name(name, self.namespace, self.uid)
            return
        if b.exit_after is None:
            return  # the rest of the script runs forever
        k = max(0, math.ceil((now - rec.started_at - b.wait_start) / b.wait_poll - 1e-9))
        rec.plan = msgspec.structs.replace(rec.plan, exit_at=b.wait_start + k * b.wait_poll + b.exit_after,
                                           exit_code=b.exit_code)

    def _running(self, rec: ContainerRecord, now: float) -> float | None:
        rt = self.rt
        assert rec.profile is not None and rec.started_at is not None
        if (self.uid, rec.name) in rt.crash_requests:
            rt.crash_requests.discard((self.uid, rec.name))
            rec.exit(now, 137, "Error")
            return self._after_exit(rec, now)
        if rec.wait is not None and rec.plan is not None and rec.plan.exit_at is None:
            self._check_wait(rec, now)
        exit_at, code, reason = rec.exit_time()
        # probes in time order, each at its own tick, until the process exits
        while True:
            worker = rec.next_probe()
            if worker is None or worker.next_at is None or worker.next_at > now:
                break
            t = worker.next_at
            if exit_at is not None and exit_at <= t:
                break
            out = worker.run(t, rec.profile, self.pod_ip or "", self.ports)
            if out.failed_message is not None:
                self.event(WARNING, "Unhealthy", f"{worker.title()} probe failed: {out.failed_message}",
                           rec.field_path)
            if out.flipped:
                kind = worker.spec.kind
                if kind == STARTUP and out.result:
                    rec.started_flag = True
                    for w in rec.probes.values():
                        if w.spec.kind != STARTUP:
                            w.ungate(t)
                    if READINESS not in rec.probes:
                        rec.ready = True  # no readiness probe: ready once started
                elif kind == READINESS:
                    rec.ready = bool(out.result)
                elif out.result is False:  # liveness or startup failure: kill and restart
                    self.event(NORMAL, "Killing",
                               f"Container {rec.name} failed {kind} probe, will be restarted", rec.field_path)
                    grace = worker.spec.termination_grace
                    rec.killed_by_probe = True
                    self._stop(rec, t, self.grace_period_spec() if grace is None else grace)
                    return rec.until if rec.until > now else self._drive(rec, now)
        if exit_at is not None and exit_at <= now:
            rec.exit(exit_at, code, reason)
            if reason == "OOMKilled":
                self.rt.event({"kind": "Node", "name": self.rt.node_name, "uid": self.rt.node_name,
                               "apiVersion": "v1"}, WARNING, "SystemOOM",
                              f"System OOM encountered, victim process: {rec.name}, pid: {rec.pid}")
            return self._after_exit(rec, now)
        wake = exit_at
        for w in rec.probes.values():
            if w.next_at is not None:
                wake = _min(wake, w.next_at)
        if rec.hook_until is not None and rec.hook_until > now:
            wake = _min(wake, rec.hook_until)
        return wake

    def grace_period_spec(self) -> float:
        spec = self.pod.spec
        g = spec.termination_grace_period_seconds if spec is not None else None
        return float(30 if g is None else g)

    def _stop(self, rec: ContainerRecord, now: float, grace: float) -> None:
        """preStop, then SIGTERM; the process exits after its shutdown time or is killed at ``grace``."""
        assert rec.profile is not None and rec.started_at is not None
        p = rec.profile
        hung = p.hang_after is not None and now - rec.started_at >= p.hang_after
        natural = None if hung else p.pre_stop_seconds + p.shutdown_seconds
        if natural is not None and natural <= grace:
            rec.stop(now + natural, p.sigterm_exit_code)
        else:
            rec.stop(now + grace, 137)

    def _should_restart(self, rec: ContainerRecord) -> bool:
        if rec.sidecar:
            return True
        policy = self.restart_policy
        if policy == "Always":
            return not rec.init or rec.exit_code != 0
        if policy == "OnFailure":
            return rec.exit_code != 0 or rec.killed_by_probe
        return False

    def _after_exit(self, rec: ContainerRecord, now: float) -> float | None:
        rt = self.rt
        if not self._should_restart(rec) or (rec.init and rec.exit_code == 0 and not rec.sidecar):
            rec.move(Step.DONE)
            return None
        key = rec.backoff_key
        finished = rec.finished_at if rec.finished_at is not None else now
        if rt.restart_backoff.in_backoff_since(key, finished, now):
            rec.move(Step.BACKOFF)
            delay = rt.restart_backoff.get(key)
            rec.set_waiting("CrashLoopBackOff",
                            f"back-off {delay:g}s restarting failed container={rec.name} pod={self.desc()}")
            self.event(WARNING, "BackOff", f"Back-off restarting failed container {rec.name} in pod {self.desc()}",
                       rec.field_path)
            # the terminated state is reported until the next sync puts CrashLoopBackOff in its place
            rec.backoff_visible_at = finished + SYNC_LAG
            if now < rec.backoff_visible_at:
                return min(rec.backoff_visible_at, finished + delay)
            return finished + delay
        rt.restart_backoff.next(key, now, finished)
        rec.restart()
        return self._drive(rec, now)

    # --- termination ---
    def begin_termination(self, now: float, grace: float, *, reason: str | None = None,
                          message: str | None = None) -> None:
        """Kill every container (preStop, SIGTERM, SIGKILL at ``grace``); ``reason`` marks an eviction."""
        if self.stage in (Stage.TERMINATING, Stage.TERMINATED, Stage.REJECTED):
            return
        if reason is not None:
            self.reason, self.message = reason, message
        self.stage = Stage.TERMINATING
        self.grace = grace
        for rec in self.containers:
            if rec.step in (Step.RUNNING, Step.STOPPING):
                if rec.step == Step.RUNNING:
                    self.event(NORMAL, "Killing", f"Stopping container {rec.name}", rec.field_path)
                    self._stop(rec, now, grace)
            elif rec.step == Step.EXITED or rec.step == Step.BACKOFF:
                rec.move(Step.DONE)
            elif rec.step != Step.DONE:
                self.rt.images.cancel((self.uid, rec.name))
                rec.move(Step.DONE)

    def _sync_terminating(self, now: float) -> float | None:
        wake: float | None = None
        for rec in self.containers:
            if rec.step == Step.STOPPING:
                if now < rec.until:
                    wake = _min(wake, rec.until)
                    continue
                rec.exit(rec.until, rec.stop_code, "Error" if rec.stop_code else "Completed")
            if rec.step == Step.EXITED:
                rec.move(Step.DONE)
        if wake is None:
            self._finish(now)
        return wake

    def _finish(self, now: float) -> None:
        """Containers are down for good: release the sandbox's IP and the devices (SyncTerminatedPod)."""
        for rec in self.containers:
            if rec.step == Step.EXITED:
                rec.move(Step.DONE)
        self.stage = Stage.TERMINATED
        self.release()

    def release(self) -> None:
        rt = self.rt
        if rt.ipam is not None:
            rt.ipam.release(self.uid)
        rt.devices.free_pod(self.uid)
        for rec in self.containers:
            rt.images.cancel((self.uid, rec.name))
            rt.restart_backoff.forget(rec.backoff_key)
        rt.images.forget(self.uid)

    def reject(self, reason: str, message: str) -> None:
        self.stage = Stage.REJECTED
        self.reason = reason
        self.message = f"Pod was rejected: {message}"
        self.event(WARNING, reason, message)

    # --- accounting ---
    def memory_usage(self, now: float) -> dict[str, int]:
        """Container name -> working set bytes at ``now`` (running containers only)."""
        return {rec.name: rec.memory_at(now) for rec in self.containers if rec.step in (Step.RUNNING, Step.STOPPING)}


def _overrides(pod: Pod, container: str) -> str:
    """The pod's profile override annotations for ``container`` (raw text, to see what they set)."""
    ann = pod.metadata.annotations or {}
    return f"{ann.get(PROFILE_ANNOTATION, '')}\n{ann.get(f'{PROFILE_ANNOTATION}.{container}', '')}"


def _min(a: float | None, b: float | None) -> float | None:
    if a is None:
        return b
    if b is None:
        return a
    return a if a <= b else b


def _dur(seconds: float) -> str:
    """Go's ``time.Duration.String`` for the durations the image manager prints."""
    if seconds < 1:
        return f"{seconds * 1000:.0f}ms"
    if seconds < 60:
        return f"{seconds:.3f}".rstrip("0").rstrip(".") + "s"
    m, s = divmod(seconds, 60)
    return f"{int(m)}m{s:.3f}".rstrip("0").rstrip(".") + "s"
