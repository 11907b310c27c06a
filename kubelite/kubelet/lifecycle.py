"""The container lifecycle as a table, h11-style: which runtime step may follow which.

A container of a pod on the node is always in exactly one :class:`Step`. The kubelet's pod worker
(:mod:`kubelite.kubelet.pod_worker`) moves it along, upstream order (``kuberuntime_manager.go``
``SyncPod`` → ``startContainer``: pull, create, start, postStart; ``killContainer``: preStop, SIGTERM,
SIGKILL at the grace period):

- ``IMAGE``    waiting ``ContainerCreating`` (or ``PodInitializing`` behind init containers) until the
  image is present; pull failures show ``ErrImagePull`` / ``ImagePullBackOff`` / ``ErrImageNeverPull``;
- ``CONFIG``   creating: the container's config (env from ConfigMaps/Secrets, profile) must resolve,
  else ``CreateContainerConfigError``;
- ``STARTING`` created, the runtime is starting it (``startSeconds``);
- ``RUNNING``  running (postStart may still be running: ``hook_until``);
- ``STOPPING`` being killed: preStop then SIGTERM, SIGKILL at the grace period; still ``running``;
- ``EXITED``   terminated; from here the restart policy and CrashLoopBackOff decide;
- ``BACKOFF``  waiting ``CrashLoopBackOff`` until the restart backoff expires;
- ``DONE``     terminated for good (restart policy says no, or the pod is terminating).

:data:`TRANSITIONS` is the whole table; :func:`check` raises on anything else, so a bug in the worker
shows up as a clear error in tests instead of a container status no real kubelet reports.
"""

from __future__ import annotations

import enum

__all__ = ["API_STATE", "TRANSITIONS", "IllegalTransition", "Step", "check"]


class Step(enum.Enum):
    IMAGE = "image"
    CONFIG = "config"
    STARTING = "starting"
    RUNNING = "running"
    STOPPING = "stopping"
    EXITED = "exited"
    BACKOFF = "backoff"
    DONE = "done"


class IllegalTransition(RuntimeError):
    pass


S = Step
TRANSITIONS: dict[Step, frozenset[Step]] = {
    S.IMAGE: frozenset({S.CONFIG, S.DONE}),              # pulled / pod terminating before it started
    S.CONFIG: frozenset({S.STARTING, S.IMAGE, S.DONE}),  # created / image gone again / terminating
    S.STARTING: frozenset({S.RUNNING, S.DONE}),
    S.RUNNING: frozenset({S.STOPPING, S.EXITED}),        # kill (probe, delete, evict) / own exit or OOM
    S.STOPPING: frozenset({S.EXITED}),
    S.EXITED: frozenset({S.BACKOFF, S.IMAGE, S.DONE}),   # in backoff / restart now / no restart
    S.BACKOFF: frozenset({S.IMAGE, S.DONE}),
    S.DONE: frozenset(),
}

#: The containerStatus state each step reports.
API_STATE: dict[Step, str] = {
    S.IMAGE: "waiting", S.CONFIG: "waiting", S.STARTING: "waiting", S.RUNNING: "running",
    S.STOPPING: "running", S.EXITED: "terminated", S.BACKOFF: "waiting", S.DONE: "terminated",
}


def check(old: Step, new: Step) -> None:
    if new not in TRANSITIONS[old]:
        raise IllegalTransition(f"container step {old.value} -> {new.value} is not allowed")
