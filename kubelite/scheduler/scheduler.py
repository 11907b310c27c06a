"""The kube-scheduler: pending pods in, bindings out.

Start it inside a cluster::

    from kubelite.informer.factory import SharedInformerFactory
    from kubelite.scheduler import Scheduler

    factory = SharedInformerFactory(cluster.client, clock=cluster.clock, rng=cluster.rng)
    sched = Scheduler(cluster.client, factory, clock=cluster.clock, rng=cluster.rng)
    cluster.start_soon(sched.run)          # registers its informers, starts the factory, schedules

Contract (upstream ``scheduler.go``, ``schedule_one.go``, ``eventhandlers.go``):

- It reads only through informers (pods, nodes, PVCs, PVs, StorageClasses, PDBs, Services,
  ReplicaSets, StatefulSets) and writes only through the client: ``pods/binding``, pod status
  (``PodScheduled=False`` with reason ``Unschedulable`` and the FitError message, and
  ``nominatedNodeName``), victim deletions, and Events (``Scheduled``, ``FailedScheduling``,
  ``Preempted``) when a ``recorder`` is given.
- It schedules pods whose ``spec.schedulerName`` names one of its profiles (default
  ``default-scheduler``), one at a time. Each scheduling cycle is synchronous (no other task runs in
  it); the binding cycle (Permit wait, PreBind, Bind) runs as its own task, overlapping later cycles.
  The pod is *assumed* on its node at the end of the scheduling cycle, so later cycles see it; if
  binding fails it is forgotten and requeued with backoff.
- Same inputs, same seed: same bindings (node order, round-robin start and tie-breaks are
  deterministic and use only ``rng``).
- :meth:`explain` returns the last attempt of a pod in detail; :meth:`statistics` a frozen record.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from kubelite.api.types import Pod
from kubelite.clock import Clock
from kubelite.errors import ApiError, NotFound
from kubelite.logs import get_logger
from kubelite.scheduler.cache import Cache
from kubelite.scheduler.event_handlers import add_all_event_handlers
from kubelite.scheduler.explain import Explanation, Explanations
from kubelite.scheduler.framework.cycle_state import CycleState
from kubelite.scheduler.framework.fit_error import FitError
from kubelite.scheduler.framework.interface import DELETE, ClusterEvent, ClusterEventWithHint
from kubelite.scheduler.framework.profile import DEFAULT_SCHEDULER_NAME, EXTENSION_POINTS, build_plans
from kubelite.scheduler.framework.registry import PluginFactory, Registry
from kubelite.scheduler.framework.runtime import Framework
from kubelite.scheduler.framework.status import WAIT, Status
from kubelite.scheduler.framework.types import PodInfo, QueuedPodInfo
from kubelite.scheduler.framework.waiting_pods import WaitingPods
from kubelite.scheduler.plugins import in_tree_registry
from kubelite.scheduler.queue.scheduling_queue import UNSCHEDULABLE_FLUSH_INTERVAL, SchedulingQueue
from kubelite.scheduler.schedule_one import ScheduleResult, schedule_pod
from kubelite.scheduler.statistics import SchedulerStatistics, StatsRecorder
from kubelite.supervise import TaskGroup

__all__ = ["Scheduler"]

log = get_logger("kubelite.scheduler")

ASSIGNED_POD_DELETE = ClusterEvent("Pod", DELETE, "AssignedPodDelete")


class Scheduler:
    """See the module docstring."""

    def __init__(
        self, client: Any, informers: Any, *, clock: Clock, rng: random.Random,
        profiles: Sequence[Mapping[str, Any]] | None = None, recorder: Any = None,
        percentage_of_nodes_to_score: int | None = None, explain_capacity: int = 1000,
    ) -> None:
        self.client = client
        self.informers = informers
        self.clock = clock
        self.rng = rng
        self.recorder = recorder
        self.percentage_of_nodes_to_score = percentage_of_nodes_to_score
        self.registry: Registry = in_tree_registry()
        self._profile_configs = list(profiles) if profiles else [{"schedulerName": DEFAULT_SCHEDULER_NAME}]
        self.cache = Cache()
        self.waiting_pods = WaitingPods()
        self.frameworks: dict[str, Framework] = {}
        self.queue: SchedulingQueue | None = None
        self._explanations = Explanations(explain_capacity)
        self._stats = StatsRecorder()
        self._group: TaskGroup | None = None
        self._next_start = 0
        self._hints: dict[str, dict[str, list[ClusterEventWithHint]]] = {}

    # --- setup ---
    def register_plugin(self, name: str, factory: PluginFactory) -> None:
        """Register an out-of-tree plugin (``factory(args, handle) -> plugin``) before :meth:`run`
        or :meth:`build`; enable it by name in a profile."""
        if self.frameworks:
            raise RuntimeError("register plugins before the scheduler builds its profiles")
        self.registry.register(name, factory)

    def build(self) -> None:
        """Validate the profiles and instantiate the plugins (done by :meth:`run` if not yet)."""
        if self.frameworks:
            return
        probe: dict[str, Any] = {}

        def implements(name: str, method: str) -> bool | None:
            if name not in self.registry:
                return None
            return method in _methods(self.registry, name, probe)

        for plan in build_plans(self._profile_configs, implements):
            fwk = Framework(plan, self.registry, cache=self.cache, waiting_pods=self.waiting_pods,
                            client=self.client, clock=self.clock, rng=self.rng, informers=self.informers,
                            spawn=self._spawn, recorder=self.recorder)
            self.frameworks[plan.scheduler_name] = fwk
            self._hints[plan.scheduler_name] = fwk.events_to_register()
        first = next(iter(self.frameworks.values()))
        self.queue = SchedulingQueue(
            clock=self.clock, less=first.less, pre_enqueue=self._pre_enqueue, hints_for=self._hints_for,
            sort_key=first.sort_key)

    def _fwk_for(self, pod: PodInfo) -> Framework | None:
        spec = pod.pod.spec
        return self.frameworks.get((spec.scheduler_name if spec is not None else None) or DEFAULT_SCHEDULER_NAME)

    def responsible_for(self, pod: Pod) -> bool:
        """Whether ``pod.spec.schedulerName`` names one of this scheduler's profiles (upstream ``responsibleForPod``).
        Whether ``pod.spec.schedulerName`` names one of this scheduler's profiles (upstream ``responsibleForPod``)."""
        spec = pod.spec
        return ((spec.scheduler_name if spec is not None else None) or DEFAULT_SCHEDULER_NAME) in self.frameworks

    def _pre_enqueue(self, pod: PodInfo) -> Status | None:
        fwk = self._fwk_for(pod)
        return fwk.run_pre_enqueue_plugins(pod) if fwk is not None else None

    def _hints_for(self, pod: PodInfo) -> Mapping[str, list[ClusterEventWithHint]]:
        spec = pod.pod.spec
        return self._hints.get((spec.scheduler_name if spec is not None else None) or DEFAULT_SCHEDULER_NAME, {})

    def _spawn(self, fn: Callable[..., Any], *args: Any) -> None:
        """Start ``fn(*args)`` (a binding cycle, or a task a plugin asks for) in the scheduler's task group."""
        if self._group is None:
            raise RuntimeError("the scheduler is not running (tasks are started inside Scheduler.run)")
        self._group.start_soon(fn, *args)

    # --- running ---
    async def run(self) -> None:
        """Register informer handlers, start informers, then schedule until cancelled (upstream
        ``Scheduler.Run``). Binding cycles and the unschedulable-pods flush run in this call's task group:
        an unexpected exception in any of them ends the run with that exception, once the others have been
        cancelled (in start order) and have ended."""
        self.build()
        assert self.queue is not None
        add_all_event_handlers(self)
        self.informers.start()
        await self.informers.wait_for_cache_sync()
        try:
            async with TaskGroup("scheduler") as group:
                self._group = group
                group.start_soon(self._flush_unschedulable, name="flush-unschedulable")
                while True:
                    qpi = await self.queue.pop_wait()
                    self.schedule_one(qpi)
                    # Let informer handlers and binding cycles run between scheduling cycles.
                    await self.clock.sleep(0)
        finally:
            self._group = None
            self.queue.close()

    async def _flush_unschedulable(self) -> None:
        assert self.queue is not None
        while True:
            await self.clock.sleep(UNSCHEDULABLE_FLUSH_INTERVAL)
            self.queue.flush_unschedulable_left_over()

    # --- one scheduling cycle ---
    def schedule_one(self, qpi: QueuedPodInfo) -> None:
        """One scheduling cycle for a popped pod (upstream ``ScheduleOne``): filter, score, assume, Reserve and Permit
        synchronously, then start its binding cycle in the scheduler's task group; a failure requeues it
        (``handleSchedulingFailure``)."""
        queue = self.queue
        assert queue is not None
        pod = qpi.pod_info
        fwk = self._fwk_for(pod)
        if fwk is None or self.cache.is_assumed(pod.uid):
            queue.done(pod.uid)
            return
        meta = pod.pod.metadata
        if meta is not None and meta.deletion_timestamp:
            queue.done(pod.uid)
            return
        cycle = queue.scheduling_cycle
        state = CycleState()
        try:
            result, self._next_start = schedule_pod(
                fwk, self.cache, state, pod, percentage=self.percentage_of_nodes_to_score,
                start=self._next_start, rng=self.rng)
        except FitError as fe:
            self._on_fit_error(fwk, state, qpi, fe, cycle)
            return
        except Exception as e:  # a plugin failed: requeue with backoff (upstream: SchedulerError)
            log.error("schedule_attempt_error", pod=pod.key, error=repr(e))
            self._fail(fwk, qpi, cycle, str(e), reason="SchedulerError", error=True)
            return
        host = result.suggested_host
        self.cache.assume_pod(pod, host)
        st = fwk.run_reserve_plugins_reserve(state, pod, host)
        if st is not None:
            fwk.run_reserve_plugins_unreserve(state, pod, host)
            self.cache.forget_pod(pod)
            self._fail(fwk, qpi, cycle, st.message, reason="SchedulerError", error=not st.is_rejected(),
                       plugins={st.plugin}, schedule=result)
            return
        st = fwk.run_permit_plugins(state, pod, host)
        if st is not None and st.code != WAIT:
            fwk.run_reserve_plugins_unreserve(state, pod, host)
            self.cache.forget_pod(pod)
            self._fail(fwk, qpi, cycle, st.message, reason="Unschedulable" if st.is_rejected() else "SchedulerError",
                       error=not st.is_rejected(), plugins={st.plugin}, schedule=result)
            return
        self.cache.nominator.delete(pod)
        self._explanations.record(pod.key, attempt=qpi.attempts, time=self.clock.now(),
                                  result="Waiting" if st is not None else "Scheduled", node=host, schedule=result)
        self._spawn(self._binding_cycle, fwk, state, qpi, host, cycle, result)

    def _on_fit_error(self, fwk: Framework, state: CycleState, qpi: QueuedPodInfo, fe: FitError, cycle: int) -> None:
        pod = qpi.pod_info
        nominated = ""
        clear_nomination = False
        if fwk.post_filter_plugins and fe.pre_filter_msg != "no nodes available to schedule pods":
            self._stats.preemption_attempts += 1
            res, pst = fwk.run_post_filter_plugins(state, pod, fe.statuses)
            if pst.code != 0 and pst.message:
                fe.post_filter_msg = pst.message
            if res is not None:
                nominated = res.nominated_node_name
                clear_nomination = not nominated
        if nominated:
            self.cache.nominator.add(pod, nominated)
        elif clear_nomination:
            self.cache.nominator.delete(pod)
        qpi.unschedulable_plugins = set(fe.unschedulable_plugins)
        self._fail(fwk, qpi, cycle, str(fe), reason="Unschedulable", error=False, statuses=fe.statuses,
                   nominated=nominated, clear_nomination=clear_nomination)

    def _fail(self, fwk: Framework, qpi: QueuedPodInfo, cycle: int, message: str, *, reason: str, error: bool,
              plugins: set[str] | None = None, statuses: dict[str, Status] | None = None, nominated: str = "",
              clear_nomination: bool = False, schedule: ScheduleResult | None = None) -> None:
        """Upstream ``handleSchedulingFailure``: requeue, event, PodScheduled=False condition."""
        assert self.queue is not None
        pod = qpi.pod_info
        self._stats.attempt("error" if error else "unschedulable")
        if plugins:
            qpi.unschedulable_plugins = {p for p in plugins if p}
        self._explanations.record(pod.key, attempt=qpi.attempts, time=self.clock.now(),
                                  result="Error" if error else "Unschedulable", message=message,
                                  statuses=statuses, schedule=schedule, nominated=nominated)
        self.queue.add_unschedulable(qpi, cycle, error=error)
        if self.recorder is not None:
            self.recorder.event(pod.pod, "Warning", "FailedScheduling", message)
        self._spawn(self._update_pod_status, pod, reason, message, nominated, clear_nomination)

    async def _update_pod_status(self, pod: PodInfo, reason: str, message: str, nominated: str,
                                 clear_nomination: bool) -> None:
        st = pod.pod.status
        for c in (st.conditions if st is not None else None) or ():
            if (c.type == "PodScheduled" and c.status == "False" and c.reason == reason and c.message == message
                    and not nominated and not clear_nomination):
                return  # nothing would change (upstream skips the no-op patch too)
        status: dict[str, Any] = {"conditions": [{
            "type": "PodScheduled", "status": "False", "reason": reason, "message": message,
            "lastProbeTime": None, "lastTransitionTime": self.clock.timestamp()}]}
        if nominated:
            status["nominatedNodeName"] = nominated
        elif clear_nomination and st is not None and st.nominated_node_name:
            status["nominatedNodeName"] = None
        try:
            await self.client.patch("pods", pod.name, {"status": status}, namespace=pod.namespace,
                                    subresource="status")
        except NotFound:
            return
        except ApiError as e:
            log.warning("pod_status_update_failed", pod=pod.key, error=str(e))

    # --- binding cycle ---
    async def _binding_cycle(self, fwk: Framework, state: CycleState, qpi: QueuedPodInfo, host: str, cycle: int,
                             result: ScheduleResult) -> None:
        pod = qpi.pod_info
        st = await fwk.wait_on_permit(pod)
        if st is None:
            st = await fwk.run_pre_bind_plugins(state, pod, host)
        if st is None:
            st = await fwk.run_bind_plugins(state, pod, host)
        if st is not None:
            self._on_binding_failure(fwk, state, qpi, host, cycle, st, result)
            return
        assert self.queue is not None
        self.queue.done(pod.uid)
        self._stats.attempt("scheduled")
        self._stats.latencies.append(self.clock.now() - qpi.added)
        self._explanations.set_result(pod.key, "Scheduled")
        if self.recorder is not None:
            self.recorder.event(pod.pod, "Normal", "Scheduled", f"Successfully assigned {pod.key} to {host}")
        fwk.run_post_bind_plugins(state, pod, host)

    def _on_binding_failure(self, fwk: Framework, state: CycleState, qpi: QueuedPodInfo, host: str, cycle: int,
                            st: Status, result: ScheduleResult) -> None:
        """Upstream ``handleBindingCycleError``: unreserve, forget, let others use the room, requeue."""
        assert self.queue is not None
        pod = qpi.pod_info
        fwk.run_reserve_plugins_unreserve(state, pod, host)
        self.cache.forget_pod(pod)
        self.queue.move_all_to_active_or_backoff(ASSIGNED_POD_DELETE, pod.pod, None)
        rejected = st.is_rejected()
        self._fail(fwk, qpi, cycle, st.message, reason="Unschedulable" if rejected else "SchedulerError",
                   error=not rejected, plugins={st.plugin} if st.plugin else None, schedule=result)

    # --- introspection ---
    def explain(self, namespace: str, name: str) -> Explanation | None:
        """The last scheduling attempt of ``namespace/name`` (None if none is remembered)."""
        return self._explanations.get(f"{namespace}/{name}")

    def statistics(self) -> SchedulerStatistics:
        """Counters, queue depths and end-to-end latency so far, as a frozen record."""
        assert self.queue is not None or not self.frameworks
        if self.queue is None:
            self.build()
        assert self.queue is not None
        self._stats.preemption_victims = sum(f.preemption_victims for f in self.frameworks.values())
        return self._stats.snapshot(self.queue.depths(), len(self.waiting_pods), self.cache.assumed_count())


def _methods(registry: Registry, name: str, probe: dict[str, Any]) -> set[str]:
    """The extension-point methods a registered plugin has (instantiated once with no args for the
    probe; factories must tolerate a ``None`` handle at construction)."""
    cached = probe.get(name)
    if cached is None:
        factory = registry.get(name)
        assert factory is not None
        try:
            inst = factory({}, None)
            cached = {m for m in EXTENSION_POINTS.values() if callable(getattr(inst, m, None))}
        except Exception:
            cached = set(EXTENSION_POINTS.values())
        probe[name] = cached
    return cached
