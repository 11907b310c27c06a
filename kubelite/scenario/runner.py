"""The scenario runner: build the cluster, apply the manifests, play the timeline, judge the expectations.

Contract:
- **Deterministic.** Everything runs on the cluster's virtual clock and seeded RNG; the result holds only
  virtual times. The same scenario and seed give an identical :class:`RunResult` (and identical JSON and
  text output), in any process.
- **Time.** The run starts when the cluster has registered its nodes (t = 0) and lasts ``until``. The
  initial manifests are applied at t = 0 in document order, as ``kubectl apply --server-side`` would.
  The timeline is a task of its own: steps run in order, each at its ``at`` time (immediately if that
  has passed) or once its ``when`` condition holds (checked every virtual second, for at most
  ``timeout``, by default the rest of the run); ``wait`` and ``drain`` hold the timeline, not the clock.
- **Sampling.** Every virtual second (after the cluster settles) the runner records the time series and
  checks ``eventually`` (met the first time it holds, failed once ``within`` has passed) and ``always``
  (from ``after`` on; failed the first time it does not hold). ``atEnd`` is checked at the end. A failing
  expectation carries a diagnosis taken at the moment it failed; so does one with ``diagnose:``.
- A step the API rejects, or a ``when`` that never holds, fails the run (as a ``step`` result), and the
  timeline goes on with the next step.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator, Callable
from pathlib import Path
from typing import Any

from kubelite.cluster import Cluster
from kubelite.scenario import format as f
from kubelite.scenario.diagnose import diagnose_expectation, diagnose_pod
from kubelite.scenario.expressions import FUNCTIONS, Expression, ExpressionError, Origin, compile_expression
from kubelite.scenario.format import Scenario, origins_of, parse_duration
from kubelite.scenario.metrics import ConvergenceTracker, compute_metrics, lazy_metrics
from kubelite.scenario.result import ExpectationResult, RunResult, Series
from kubelite.scenario.stall import StallGuard
from kubelite.scenario.steps import StepContext, StepError, describe_step, run_step
from kubelite.scenario.validate import check_manifests
from kubelite.scenario.view import KIND_RESOURCES, ClusterView, kind_of
from kubelite.supervise import TaskGroup
from kubelite.watchdog import LivelockError
from kubelite.workload import ImageRegistry

__all__ = ["FINAL_KINDS", "run_scenario", "run_scenario_async"]

#: the kinds whose final state goes into ``RunResult.objects``, in this order
FINAL_KINDS = ("namespaces", "nodes", "pods", "deployments", "replicasets", "statefulsets", "daemonsets", "jobs",
               "cronjobs", "services", "endpointslices", "configmaps", "secrets", "persistentvolumeclaims",
               "persistentvolumes", "horizontalpodautoscalers", "poddisruptionbudgets", "leases", "events")

Progress = Callable[[float, float], None]

#: wall seconds without virtual progress before a run is stopped as stalled
DEFAULT_STALL_SECONDS = 60.0


class _Expect:
    def __init__(self, i: int, spec: f.Expectation, origin: Origin | None) -> None:
        self.spec = spec
        self.kind = "eventually" if spec.eventually is not None else "always" if spec.always is not None else "at_end"
        text = spec.eventually or spec.always or spec.at_end or ""
        self.expr: Expression = compile_expression(text, origin)
        self.name = spec.name or f"{self.kind.replace('_', ' ')}: {text}"
        self.within = parse_duration(spec.within) if spec.within is not None else None
        self.after = parse_duration(spec.after) if spec.after is not None else 0.0
        self.result: ExpectationResult | None = None
        self.seen_version = -1
        self.checks = 0
        self.reads = reads_of(self.expr)


#: the view's resources each cluster function reads (None: it may read any)
_FUNCTION_READS: dict[str, frozenset[str] | None] = {
    **{k: frozenset({r}) for k, r in KIND_RESOURCES.items()},
    "pods": frozenset({"pods", "replicasets"}), "status": frozenset({"pods"}),
    "diagnosis": frozenset({"pods", "events"}), "nodes": frozenset({"nodes"}),
    "deployments": frozenset({"deployments"}), "replicasets": frozenset({"replicasets"}),
    "jobs": frozenset({"jobs"}), "endpointslices": frozenset({"endpointslices"}),
    "endpoints": frozenset({"endpointslices", "services"}), "events": frozenset({"events"}),
    "dns": frozenset({"services", "endpointslices", "pods"}), "traffic": frozenset(),
    "object": None, "objects": None,
}
#: what `metrics` is computed from (pod startup, scheduling, convergence); traffic is judged every second
_METRICS_READS = frozenset({"pods", "deployments", "statefulsets"})


def reads_of(expr: Expression) -> frozenset[str] | None:
    """The view resources ``expr`` reads (its value cannot change while none of them does), or None
    when that cannot be told."""
    out: set[str] = set()
    for name, args in expr.calls():
        if name in ("object", "objects") and args and isinstance(args[0], str):
            kind = kind_of(args[0])
            if kind in KIND_RESOURCES:
                out.add(KIND_RESOURCES[kind])
                continue
        if name not in _FUNCTION_READS and name not in FUNCTIONS:
            return None
        reads = _FUNCTION_READS.get(name, frozenset())
        if reads is None:
            return None
        out |= reads
    if expr.uses_metrics:
        out |= _METRICS_READS
    return frozenset(out)


def _pools(sc: Scenario) -> list[dict[str, Any]]:
    out = []
    for i, p in enumerate(sc.cluster.node_pools):
        spec: dict[str, Any] = {"count": p.count, "prefix": p.name or ("node" if i == 0 else f"node{i}"),
                                "labels": dict(p.labels), "taints": [
                                    {"key": t.key, "value": t.value, "effect": t.effect} if t.value
                                    else {"key": t.key, "effect": t.effect} for t in p.taints]}
        if p.capacity is not None:
            spec["capacity"] = {k: str(v) for k, v in p.capacity.items()}
        if p.zones is not None:
            spec["zones"] = tuple(p.zones)
        if p.instance_type is not None:
            spec["instance_type"] = p.instance_type
        out.append(spec)
    return out


#: ``host(cluster)``: an async generator run around the whole run inside the cluster (``kubelite serve
#: SCENARIO`` serves the API from it); it is sent the RunResult once the run is over, with the cluster still
#: up, and the cluster stops when the generator returns.
Host = Callable[[Cluster], AsyncGenerator[None, RunResult]]


class _Run:
    def __init__(self, sc: Scenario, seed: int, until: float, progress: Progress | None,
                 stall_seconds: float | None, *, virtual_time: bool = True, host: Host | None = None) -> None:
        self.sc = sc
        self.virtual_time = virtual_time
        self.host = host
        self.seed = seed
        self.until = until
        self.progress = progress
        self.stall_seconds = stall_seconds
        self.origins = origins_of(sc)
        self.expects = [_Expect(i, e, self.origins.get(f"expect[{i}].{_field_of(e)}"))
                        for i, e in enumerate(sc.expect)]
        self.guard: StallGuard | None = None
        self.view: ClusterView | None = None
        #: expectations are judged on view changes only while the run is on
        self.judging = False
        self.step_results: list[ExpectationResult] = []
        self.step_log: list[tuple[float, str]] = []
        self.series: dict[str, list[tuple[float, float]]] = {}
        self._last_sample = 0.0

    # --- series ---
    def _point(self, name: str, t: float, v: float) -> None:
        pts = self.series.setdefault(name, [])
        if not pts or pts[-1][1] != v:
            pts.append((t, v))

    def _sample(self, view: ClusterView, t: float) -> None:
        self._last_sample = t
        for kind, resource in (("deployment", "deployments"), ("statefulset", "statefulsets")):
            for o in view.list(resource):
                meta, st = o["metadata"], o.get("status") or {}
                name = f"{kind}/{meta['name']}" if meta.get("namespace") == "default" \
                    else f"{kind}/{meta.get('namespace')}/{meta['name']}"
                self._point(f"{name} ready", t, float(st.get("readyReplicas", 0)))
                if kind == "deployment":
                    self._point(f"{name} available", t, float(st.get("availableReplicas", 0)))

    def _close_series(self, t: float) -> list[Series]:
        out = []
        for name in sorted(self.series):
            pts = self.series[name]
            if pts and pts[-1][0] < t:
                pts.append((t, pts[-1][1]))
            out.append(Series(name=name, points=pts))
        return out

    # --- expectations ---
    def _judge(self, ex: _Expect, view: ClusterView) -> tuple[bool, Any]:
        """(held, verdict or the error text)."""
        ex.checks += 1
        try:
            v = ex.expr.verdict(view)
        except ExpressionError as e:
            return False, f"evaluation error: {e}"
        return v.held, v

    def _diagnosis(self, ex: _Expect, view: ClusterView, verdict: Any) -> str:
        if isinstance(verdict, str):
            return verdict
        return diagnose_expectation(view, ex.expr, verdict)

    def _check(self, view: ClusterView, t: float, final: bool = False, *, changed: str | None = None) -> None:
        """Judge the undecided expectations at ``t``: every second, after every change of the view
        (``changed``: the resource that changed; only the expectations reading it), and at the end."""
        view.now = t
        for ex in self.expects:
            if ex.result is not None:
                continue
            if changed is not None and ex.reads is not None and changed not in ex.reads:
                continue
            if ex.kind == "at_end" and not final:
                continue
            if ex.kind == "always" and t < ex.after and not final:
                continue
            if ex.kind == "eventually" and ex.within is not None and t > ex.within + 1e-9 and not final:
                if changed is None:  # the first sample past `within`: it did not hold in time
                    _, verdict = self._judge(ex, view)
                    ex.result = self._result(ex, False, t, view, self._diagnosis(ex, view, verdict))
                continue
            if not final and not ex.expr.uses_time and ex.seen_version == view.version \
                    and not (ex.kind == "eventually" and ex.within is not None and t >= ex.within):
                continue  # nothing it reads has changed since the last check
            ex.seen_version = view.version
            held, verdict = self._judge(ex, view)
            if ex.kind == "eventually":
                if held:
                    ex.result = self._result(ex, True, t, view)
                elif (changed is None and ex.within is not None and t >= ex.within - 1e-9) or final:
                    ex.result = self._result(ex, False, t, view, self._diagnosis(ex, view, verdict))
            elif ex.kind == "always":
                if not held:
                    ex.result = self._result(ex, False, t, view, self._diagnosis(ex, view, verdict))
                elif final:
                    ex.result = self._result(ex, True, None, view)
            else:
                ex.result = self._result(ex, held, t, view, None if held else self._diagnosis(ex, view, verdict))

    def _result(self, ex: _Expect, passed: bool, at: float | None, view: ClusterView,
                diagnosis: str | None = None) -> ExpectationResult:
        if ex.spec.diagnose:
            _, _, ref = ex.spec.diagnose.partition("/") if ex.spec.diagnose.startswith("pod/") \
                else ("", "", ex.spec.diagnose)
            ns, _, name = ref.rpartition("/")
            extra = diagnose_pod(view, ns or "default", name)
            diagnosis = extra if diagnosis is None else f"{diagnosis}\n{extra}"
        return ExpectationResult(name=ex.name, kind=ex.kind, expression=ex.expr.text, passed=passed, at=at,
                                 diagnosis=diagnosis)

    # --- timeline ---
    async def _when(self, ctx: StepContext, view: ClusterView, i: int, step: f.Step) -> tuple[bool, str]:
        """Wait for ``step.when`` (checked every virtual second, after the cluster settles); (held, why not)."""
        clock = ctx.cluster.clock
        expr = compile_expression(step.when or "", self.origins.get(f"steps[{i}].when"))
        deadline = parse_duration(step.timeout) if step.timeout is not None else None
        start = view.t()
        last = ""
        while True:
            await ctx.cluster.settle()
            view.now = view.t()
            try:
                v = expr.verdict(view)
                if v.held:
                    return True, ""
                last = diagnose_expectation(view, expr, v)
            except ExpressionError as e:
                last = f"evaluation error: {e}"
            if deadline is not None and view.t() - start >= deadline:
                return False, last
            await clock.sleep(1.0)

    async def _timeline(self, ctx: StepContext, view: ClusterView) -> None:
        clock = ctx.cluster.clock
        for i, step in enumerate(self.sc.steps):
            what = describe_step(step)
            if step.at is not None:
                at = parse_duration(step.at)
                if view.t() < at:
                    await clock.sleep(at - view.t())
            elif step.when is not None:
                held, why = await self._when(ctx, view, i, step)
                if not held:
                    self.step_results.append(ExpectationResult(
                        name=f"step {i + 1} ({what})", kind="step", expression=step.when, passed=False,
                        at=view.t(), diagnosis=f"the condition did not hold within {step.timeout}; step skipped\n"
                                               + why))
                    self.step_log.append((view.t(), f"{what}: skipped (condition not met)"))
                    continue
            t = view.t()
            try:
                out = await run_step(ctx, step, view=view)
                self.step_log.append((t, f"{what}: {out}"))
            except StepError as e:
                self.step_log.append((t, f"{what}: {e}"))
                self.step_results.append(ExpectationResult(
                    name=f"step {i + 1} ({what})", kind="step", expression="", passed=False, at=t,
                    diagnosis=str(e)))

    # --- the run ---
    def _on_change(self, resource: str, obj: Any) -> None:
        """After every change of the view (an informer wrote its cache): judge what reads objects, so an
        `always` violated between two samples is caught at the moment it happened."""
        guard, view = self.guard, self.view
        if guard is not None:
            guard.note(resource, obj)
        if view is None or not self.judging:
            return
        self._check(view, view.t(), changed=resource)

    async def run(self) -> RunResult:
        task = asyncio.current_task()
        try:
            return await self._run()
        except asyncio.CancelledError:
            guard = self.guard
            if guard is None or guard.tripped is None or task is None:
                raise
            task.uncancel()
            raise LivelockError("the scenario run stopped making virtual progress", diagnosis=guard.tripped,
                                at=guard.at) from None
        finally:
            if self.guard is not None:
                self.guard.stop()

    async def _run(self) -> RunResult:
        sc = self.sc
        registry = ImageRegistry(allow_any=sc.allow_any_image)
        for ref, prof in sc.images.items():
            registry.add(ref, prof)
        for ref in sc.missing_images:
            registry.mark_missing(ref)
        needs_network = any(isinstance(s, f.StartTraffic) for s in sc.steps)
        async with Cluster(seed=self.seed, nodes=_pools(sc), scheduler=sc.cluster.scheduler,
                           controllers=sc.cluster.controllers if isinstance(sc.cluster.controllers, bool)
                           else list(sc.cluster.controllers),
                           controller_options=sc.cluster.controller_options, image_registry=registry,
                           virtual_time=self.virtual_time) as cluster:
            if self.host is None:
                return await self._in(cluster, registry, needs_network)
            host = self.host(cluster)
            try:
                await anext(host)
                result = await self._in(cluster, registry, needs_network)
                if self.guard is not None:  # the run is over: idling now is not a stall
                    self.guard.stop()
                with contextlib.suppress(StopAsyncIteration):
                    await host.asend(result)
            finally:
                await host.aclose()
            return result

    async def _in(self, cluster: Cluster, registry: ImageRegistry, needs_network: bool) -> RunResult:
        sc = self.sc
        task = asyncio.current_task()
        self.guard = StallGuard(cluster.clock, start=cluster.clock.now(), wall_seconds=self.stall_seconds)
        if task is not None:
            self.guard.start_watching(task)
        await self._nodes_ready(cluster)
        start = cluster.clock.now()
        self.guard.start = start
        view = ClusterView(cluster, start=start, diagnose=diagnose_pod, on_change=self._on_change)
        self.view = view
        convergence = ConvergenceTracker(view)
        network = getattr(cluster, "network", None)
        if network is None and needs_network:
            network = self._network(cluster, registry)
        view.network = network
        view.factory.start()
        await cluster.settle()
        ctx = StepContext(cluster, network=network, base=Path(sc.path).parent if sc.path else Path("."),
                          registry=registry)

        def handles() -> dict[str, list[Any]]:
            return {k: [*ctx.finished_traffic.get(k, ()), *([ctx.traffic[k]] if k in ctx.traffic else [])]
                    for k in sorted({*ctx.traffic, *ctx.finished_traffic})}

        def metrics() -> dict[str, Any]:
            return compute_metrics(view, scheduler=cluster.scheduler, convergence=convergence, traffic=handles())

        view.traffic_handles = handles
        view.metrics_provider = lambda: lazy_metrics(view, scheduler=cluster.scheduler, convergence=convergence,
                                                     traffic=handles)
        for obj in sc.objects:
            try:
                await run_step(ctx, f.Apply(manifest=obj), view=view)
            except StepError as e:
                meta = obj.get("metadata") or {}
                self.step_results.append(ExpectationResult(
                    name=f"apply {obj.get('kind', '').lower()}/{meta.get('name', '')}", kind="step",
                    expression="", passed=False, at=0.0, diagnosis=str(e)))
                self.step_log.append((0.0, f"apply {obj.get('kind', '').lower()}/{meta.get('name', '')}: {e}"))
        # the timeline runs in a task group: a step that raises ends the run at once, with its error
        async with TaskGroup("scenario") as group:
            timeline = group.start_soon(self._timeline, ctx, view, name="scenario-timeline")
            try:
                await cluster.settle()
                # expectations are judged on every change from the moment the initial manifests are in
                # the view: an `always` about an object they create is not false before it was sent
                self.judging = True
                t = view.t()
                self._sample(view, t)
                self._check(view, t)
                while t < self.until - 1e-9:
                    await cluster.advance(min(1.0, self.until - t))
                    await cluster.settle()
                    t = view.t()
                    self._sample(view, t)
                    self._check(view, t)
                    if self.progress is not None:
                        self.progress(t, self.until)
            finally:
                self.judging = False
                timeline.cancel()
        self._check(view, t, final=True)
        view.finish()
        final_metrics = metrics()
        series = self._close_series(t)
        series.extend(self._traffic_series(ctx, start))
        objects = await self._objects(cluster)
        expectations = [ex.result for ex in self.expects if ex.result is not None] + self.step_results
        return RunResult(
            scenario=sc.name, seed=self.seed, until=self.until, passed=all(e.passed for e in expectations),
            expectations=expectations, events=view.event_records(), series=series,
            pod_intervals=sorted(view.intervals, key=lambda iv: (iv.pod, iv.start)), metrics=final_metrics,
            objects=objects, description=sc.description, steps=self.step_log, start=start)

    @staticmethod
    async def _nodes_ready(cluster: Any) -> None:
        """t = 0 is when every node is Ready and untainted by the node lifecycle controller, as on a
        cluster someone has just handed you."""
        async def ready() -> bool:
            for n in await cluster.client.list("nodes"):
                if any(t.get("key") == "node.kubernetes.io/not-ready" for t in (n.get("spec") or {}).get("taints") or ()):
                    return False
                if not any(c.get("type") == "Ready" and c.get("status") == "True"
                           for c in (n.get("status") or {}).get("conditions") or ()):
                    return False
            return True

        # nodes that never turn Ready are part of the story (a broken CNI, say)
        with contextlib.suppress(TimeoutError):
            await cluster.wait_for(ready, timeout=60.0, interval=0.5)

    @staticmethod
    def _network(cluster: Any, registry: ImageRegistry) -> Any:
        from kubelite.informer import SharedInformerFactory
        from kubelite.network import Network

        nodes = [k.node_name for pool in cluster.node_pools for k in pool]
        factory = SharedInformerFactory(cluster.client, clock=cluster.clock, rng=cluster.rng)
        net = Network(factory, clock=cluster.clock, rng=cluster.rng, nodes=nodes, registry=registry)
        net.start()
        return net

    @staticmethod
    def _traffic_series(ctx: StepContext, start: float) -> list[Series]:
        out = []
        for key in sorted({*ctx.finished_traffic, *ctx.traffic}):
            handles = [*ctx.finished_traffic.get(key, ())]
            if key in ctx.traffic:
                handles.append(ctx.traffic[key])
            pts: list[tuple[float, float]] = []
            for h in handles:
                for sec, ok, bad in h.report().per_second:
                    pts.append((round(h.started - start + sec, 3), round(ok / (ok + bad), 6)))
            out.append(Series(name=f"traffic {key} success_rate", points=sorted(pts)))
        return out

    @staticmethod
    async def _objects(cluster: Any) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for resource in FINAL_KINDS:
            try:
                items = await cluster.client.list(resource, namespace="*")
            except Exception:  # a kind this build does not serve
                continue
            for o in sorted(items, key=lambda o: (o["metadata"].get("namespace", ""), o["metadata"]["name"])):
                o["metadata"].pop("managedFields", None)
                out.append(o)
        return out


def _field_of(e: f.Expectation) -> str:
    return "eventually" if e.eventually is not None else "always" if e.always is not None else "atEnd"


async def run_scenario_async(sc: Scenario, *, seed: int | None = None, until: float | None = None,
                             progress: Progress | None = None, validate: bool = True,
                             stall_seconds: float | None = DEFAULT_STALL_SECONDS, virtual_time: bool = True,
                             host: Host | None = None) -> RunResult:
    """Run ``sc`` (with ``seed``/``until`` overriding the scenario's) and return what happened.

    ``validate`` first checks every manifest against a scratch apiserver (strict field validation and
    admission, as ``kubectl apply --server-side`` does): :class:`ScenarioError` with every problem, and
    nothing runs. A run that stops making virtual progress raises :class:`~kubelite.watchdog.LivelockError`
    (see :mod:`kubelite.scenario.stall`; ``stall_seconds`` is its wall-time bound, None for none).
    ``virtual_time=False`` plays the timeline in real time; ``host``: see :data:`Host`."""
    if until is not None:
        until = parse_duration(until)
    if validate:
        await check_manifests(sc)
    return await _Run(sc, sc.seed if seed is None else seed,
                      parse_duration(sc.until) if until is None else until, progress, stall_seconds,
                      virtual_time=virtual_time, host=host).run()


def run_scenario(sc: Scenario, *, seed: int | None = None, until: float | None = None,
                 progress: Progress | None = None, validate: bool = True,
                 stall_seconds: float | None = DEFAULT_STALL_SECONDS) -> RunResult:
    """:func:`run_scenario_async` in a fresh event loop. This is the one entry point per seed."""
    return asyncio.run(run_scenario_async(sc, seed=seed, until=until, progress=progress, validate=validate,
                                          stall_seconds=stall_seconds))
