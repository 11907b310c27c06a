"""Timeline steps: what a person (kubectl) or the world (a node dying) does to the cluster.

Contract:
- Each step acts the way its real counterpart does: through the API as kubectl would (server-side
  apply, patches, the ``scale`` subresource, ``kubectl rollout restart``'s ``restartedAt`` annotation,
  ``kubectl rollout undo``'s template patch, ``kubectl drain``'s evictions that honour
  PodDisruptionBudgets), or through the cluster's fault switches (a kubelet's ``stop``/``start``,
  ``break_cni``, ``make_unpullable``, ``crash_container``; the apiserver's fault injector).
- :func:`run_step` returns the line kubectl (or the fault switch) would print; an API rejection raises
  :class:`StepError` with kubectl's ``Error from server (Reason): message`` text.
- Steps that take time (``wait``, ``drain``) sleep on the cluster clock; nothing here reads wall time.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kubelite.clock import format_time
from kubelite.errors import ApiError, TooManyRequests
from kubelite.scenario import format as f
from kubelite.scenario.format import parse_duration

__all__ = ["DRAIN_RETRY", "StepContext", "StepError", "describe_step", "run_step"]

#: kubectl drain retries a refused eviction every 5 s (drain.go: evictPods)
DRAIN_RETRY = 5.0
DEFAULT_DRAIN_TIMEOUT = 600.0


class StepError(Exception):
    pass


class StepContext:
    """What steps act on. ``traffic`` maps "namespace/service" to a running traffic handle."""

    def __init__(self, cluster: Any, *, network: Any, base: Path, registry: Any = None) -> None:
        self.cluster = cluster
        self.base = base
        self.network = network
        self.registry = registry
        self.traffic: dict[str, Any] = {}
        self.finished_traffic: dict[str, list[Any]] = {}
        self.view: Any = None
        self.hooks: dict[str, Any] = {}

    def client(self, step: f.Step) -> Any:
        """The client a step acts with: kubectl's admin, or ``as:`` a user (``--as``/``--as-group``)."""
        if step.as_user is None:
            return self.cluster.client
        return self.cluster.client_as(step.as_user, step.as_groups)

    def pod_ref(self, ref: str, namespace: str) -> tuple[str, str]:
        """(namespace, name) of ``NAME``, ``NS/NAME`` or ``deployment/NAME`` (its oldest pod, so a scenario
        needs no seed-dependent generated name)."""
        kind, _, rest = ref.partition("/")
        if rest and kind in ("deployment", "deploy", "statefulset", "sts", "replicaset", "rs", "daemonset",
                             "ds", "job"):
            if self.view is None:
                raise StepError(f"cannot resolve {ref}: no view of the cluster")
            if kind in ("deployment", "deploy"):
                pods = self.view.pods_matching(namespace=namespace, deployment=rest)
            else:
                owner = {"sts": "statefulset", "rs": "replicaset", "ds": "daemonset"}.get(kind, kind)
                pods = self.view.pods_matching(namespace=namespace, owner=f"{owner}/{rest}")
            pods = [p for p in pods if not p["metadata"].get("deletionTimestamp")]
            if not pods:
                raise StepError(f"{ref} has no pods")
            return namespace, pods[0]["metadata"]["name"]
        ns, _, name = ref.rpartition("/")
        return ns or namespace, name


def describe_step(step: f.Step) -> str:
    """A short human description: ``scale deployment/web --replicas=10``."""
    tag = type(step).__struct_config__.tag
    if isinstance(step, f.Scale):
        return f"scale {step.target} --replicas={step.replicas}"
    if isinstance(step, f.Apply):
        return "apply " + (step.file or "(inline manifest)")
    if isinstance(step, f.Patch | f.Delete | f.RolloutRestart | f.RolloutUndo):
        return f"{tag} {step.target}"
    if isinstance(step, f.Cordon | f.Uncordon | f.Drain | f.FailNode | f.RecoverNode | f.CrashNode):
        return f"{tag} {step.node}"
    if isinstance(step, f.AddNode):
        return f"addNode {step.pool} x{step.count}"
    if isinstance(step, f.RegisterAdmissionHook):
        return f"registerAdmissionHook {step.hook}"
    if isinstance(step, f.FailReadiness):
        return f"failReadiness {step.pod}" + (f" -c {step.container}" if step.container else "")
    if isinstance(step, f.CrashContainer):
        return f"crashContainer {step.pod}" + (f" -c {step.container}" if step.container else "")
    if isinstance(step, f.MakeUnpullable):
        return f"makeUnpullable {step.image}" + (f" on {step.node}" if step.node else "")
    if isinstance(step, f.BreakCni):
        return f"breakCni {step.node or 'all nodes'}" + ("" if step.broken else " (repair)")
    if isinstance(step, f.DevicePlugin):
        return f"devicePlugin {step.node} {step.resource}"
    if isinstance(step, f.StartTraffic | f.StopTraffic):
        return f"{tag} {step.namespace}/{step.service}"
    if isinstance(step, f.InjectFault):
        return f"injectFault {step.error} verb={step.verb or '*'} resource={step.resource or '*'}"
    if isinstance(step, f.Wait):
        return f"wait {step.duration}"
    return str(tag)


def _split_target(target: str) -> tuple[str, str]:
    kind, _, name = target.partition("/")
    return kind, name


def _api_error(e: ApiError) -> StepError:
    return StepError(f"Error from server ({e.status.reason}): {e.message}")


def _group_kind(kind: str) -> str:
    return {"deployment": "deployment.apps", "deploy": "deployment.apps", "statefulset": "statefulset.apps",
            "sts": "statefulset.apps", "daemonset": "daemonset.apps", "ds": "daemonset.apps",
            "replicaset": "replicaset.apps", "rs": "replicaset.apps", "job": "job.batch"}.get(kind, kind)


async def run_step(ctx: StepContext, step: f.Step, *, view: Any = None) -> str:
    """Run one step; ``view`` (the runner's :class:`~kubelite.scenario.view.ClusterView`) resolves
    references such as ``deployment/web`` for a pod. With ``expectError``, a rejection containing that
    text is the expected outcome and success is the failure."""
    ctx.view = view if view is not None else ctx.view
    try:
        out = await _run(ctx, step)
    except ApiError as e:
        err = _api_error(e)
    except (KeyError, ValueError) as e:
        err = StepError(str(e.args[0]) if e.args else str(e))
    except StepError as e:
        err = e
    else:
        if step.expect_error is not None:
            raise StepError(f"expected an error containing {step.expect_error!r}, but the step succeeded: {out}")
        return out
    if step.expect_error is not None and step.expect_error in str(err):
        return f"rejected as expected: {err}"
    raise err


async def _apply(ctx: StepContext, docs: list[dict[str, Any]], c: Any) -> str:
    out = []
    for doc in docs:
        # kubectl apply --server-side: force conflicts, strict field validation (kubectl's default)
        await c.apply(doc, field_manager="kubectl", force=True, field_validation="Strict")
        group = doc["apiVersion"].rpartition("/")[0]
        kind = doc["kind"].lower() + (f".{group}" if group else "")
        out.append(f"{kind}/{doc['metadata'].get('name', '')} serverside-applied")
    return "; ".join(out)


async def _run(ctx: StepContext, step: f.Step) -> str:
    cluster = ctx.cluster
    c = ctx.client(step)
    if isinstance(step, f.Apply):
        from kubelite.api.codec import load_yaml

        if step.manifest is not None:
            docs = [step.manifest]
        elif step.yaml is not None:
            docs = load_yaml(step.yaml)
        else:
            docs = load_yaml(f.read_bounded(ctx.base / str(step.file), "manifest file"))
        return await _apply(ctx, docs, c)
    if isinstance(step, f.Patch):
        kind, name = _split_target(step.target)
        await c.patch(kind, name, step.patch, patch_type=step.type, namespace=step.namespace)
        return f"{_group_kind(kind)}/{name} patched"
    if isinstance(step, f.Delete):
        kind, name = _split_target(step.target)
        await c.delete(kind, name, namespace=step.namespace, grace_period=step.grace_period)
        return f'{_group_kind(kind)} "{name}" deleted'
    if isinstance(step, f.Scale):
        kind, name = _split_target(step.target)
        await c.patch(kind, name, {"spec": {"replicas": step.replicas}}, patch_type="merge", subresource="scale",
                      namespace=step.namespace)
        return f"{_group_kind(kind)}/{name} scaled"
    if isinstance(step, f.RolloutRestart):
        # kubectl's objectRestarter (polymorphichelpers/objectrestarter.go) sets this annotation to now
        kind, name = _split_target(step.target)
        patch = {"spec": {"template": {"metadata": {"annotations": {
            "kubectl.kubernetes.io/restartedAt": format_time(cluster.clock.now())}}}}}
        await c.patch(kind, name, patch, patch_type="strategic", namespace=step.namespace)
        return f"{_group_kind(kind)}/{name} restarted"
    if isinstance(step, f.RolloutUndo):
        from kubelite.controllers.deployment.rollback import RolloutError, rollback

        _, name = _split_target(step.target)
        try:
            return await rollback(c, step.namespace, name, step.to_revision)
        except RolloutError as e:
            raise StepError(f"error: {e}") from None
    if isinstance(step, f.Cordon | f.Uncordon):
        cordon = isinstance(step, f.Cordon)
        await c.patch("nodes", step.node, {"spec": {"unschedulable": True if cordon else None}}, patch_type="merge")
        return f"node/{step.node} {'cordoned' if cordon else 'uncordoned'}"
    if isinstance(step, f.Drain):
        return await _drain(ctx, step)
    if isinstance(step, f.FailNode | f.CrashNode):
        await cluster.kubelet(step.node).stop()
        if ctx.network is not None:
            ctx.network.remove_node(step.node)
        if isinstance(step, f.FailNode):
            return f"node/{step.node}: kubelet stopped (its containers keep running)"
        if ctx.network is not None:
            ctx.network.traffic.down_nodes.add(step.node)
        return f"node/{step.node}: crashed (kubelet and containers gone)"
    if isinstance(step, f.RecoverNode):
        if ctx.network is not None:
            ctx.network.traffic.down_nodes.discard(step.node)
        await cluster.kubelet(step.node).start()
        if ctx.network is not None:
            ctx.network.add_node(step.node)
        return f"node/{step.node}: kubelet started"
    if isinstance(step, f.AddNode):
        return await _add_node(ctx, step)
    if isinstance(step, f.CrashControllerManager):
        if cluster.controller_manager is None:
            raise StepError("kube-controller-manager is not running")
        await cluster.crash_controller_manager()
        return "kube-controller-manager crashed"
    if isinstance(step, f.RestartControllerManager):
        if cluster.controller_manager is not None:
            raise StepError("kube-controller-manager is already running")
        await cluster.restart_controller_manager()
        return "kube-controller-manager started"
    if isinstance(step, f.DropWatches):
        return f"{cluster.close_watches()} watches closed"
    if isinstance(step, f.RegisterAdmissionHook):
        return _register_hook(ctx, step)
    if isinstance(step, f.FailReadiness):
        ns, pod = ctx.pod_ref(step.pod, step.namespace)
        obj = await c.get("pods", pod, namespace=ns)
        node = (obj.get("spec") or {}).get("nodeName")
        if not node:
            raise StepError(f"pod {ns}/{pod} is not running on a node")
        cluster.kubelet(node).fail_readiness(ns, pod, step.container)
        return f"pod/{pod}: readiness probe failing from now on"
    if isinstance(step, f.CrashContainer):
        ns, pod = ctx.pod_ref(step.pod, step.namespace)
        obj = await c.get("pods", pod, namespace=ns)
        node = (obj.get("spec") or {}).get("nodeName")
        if not node:
            raise StepError(f"pod {ns}/{pod} is not running on a node")
        container = step.container or obj["spec"]["containers"][0]["name"]
        cluster.kubelet(node).crash_container(ns, pod, container)
        return f"pod/{pod}: container {container} killed"
    if isinstance(step, f.MakeUnpullable):
        for k in _kubelets(cluster, step.node):
            k.make_unpullable(step.image, step.unpullable)
        return f"image {step.image} {'unpullable' if step.unpullable else 'pullable'} on {step.node or 'every node'}"
    if isinstance(step, f.BreakCni):
        for k in _kubelets(cluster, step.node):
            k.break_cni(step.broken)
        return f"CNI {'broken' if step.broken else 'repaired'} on {step.node or 'every node'}"
    if isinstance(step, f.DevicePlugin):
        try:
            kubelet = cluster.kubelet(step.node)
        except KeyError:
            raise StepError(f"there is no node {step.node}") from None
        try:
            done: str = kubelet.device_plugin(
                step.resource, devices=step.devices, stopped=step.stopped,
                unhealthy=tuple(step.unhealthy) if step.unhealthy is not None else None)
            return done
        except KeyError as e:
            raise StepError(str(e.args[0] if e.args else e)) from None
    if isinstance(step, f.StartTraffic):
        if ctx.network is None:
            raise StepError("traffic needs the network (kubelite.network) and at least one node")
        key = f"{step.namespace}/{step.service}"
        if key in ctx.traffic:
            raise StepError(f"traffic to {key} is already running")
        try:
            ctx.traffic[key] = ctx.network.traffic.start(
                step.service, step.namespace, step.rate, step.from_node,
                None if step.duration is None else parse_duration(step.duration), port=step.port,
                from_pod=step.from_pod)
        except KeyError as e:
            raise StepError(str(e.args[0])) from None
        return f"traffic to service/{step.service}: {step.rate:g} requests/s"
    if isinstance(step, f.StopTraffic):
        key = f"{step.namespace}/{step.service}"
        h = ctx.traffic.pop(key, None)
        if h is None:
            raise StepError(f"no traffic to {key} is running")
        rep = h.stop()
        ctx.finished_traffic.setdefault(key, []).append(h)
        return f"traffic to service/{step.service} stopped: {rep.succeeded}/{rep.sent} succeeded"
    if isinstance(step, f.InjectFault):
        cluster.faults.inject(step.error, verb=step.verb, resource=step.resource, namespace=step.namespace,
                              name=step.object_name, times=step.times, probability=step.probability)
        return f"fault {step.error} injected"
    if isinstance(step, f.Wait):
        await cluster.clock.sleep(parse_duration(step.duration))
        return f"waited {step.duration}"
    raise StepError(f"unsupported step {type(step).__name__}")


async def _add_node(ctx: StepContext, step: f.AddNode) -> str:
    cluster = ctx.cluster
    pool: dict[str, Any] = {"prefix": step.pool, "labels": dict(step.labels), "taints": [
        {"key": t.key, "value": t.value, "effect": t.effect} if t.value else {"key": t.key, "effect": t.effect}
        for t in step.taints]}
    if any(f"{step.pool}-0" in p.kubelets for p in cluster.node_pools):
        raise StepError(f"a node pool named {step.pool!r} already exists")
    if step.capacity is not None:
        pool["capacity"] = {k: str(v) for k, v in step.capacity.items()}
    if step.zones is not None:
        pool["zones"] = tuple(step.zones)
    if step.instance_type is not None:
        pool["instance_type"] = step.instance_type
    nodes = await cluster.add_nodes(step.count, **pool)
    names = sorted(nodes.kubelets) if nodes is not None else []
    if ctx.network is not None and ctx.network is not getattr(cluster, "network", None):
        for name in names:
            ctx.network.add_node(name)
    return f"{', '.join(f'node/{n}' for n in names)} joined"


def _register_hook(ctx: StepContext, step: f.RegisterAdmissionHook) -> str:
    """A validating admission webhook (the in-process kind: the apiserver's hook chain)."""
    from kubelite.apiserver.admission import AdmissionDenied
    from kubelite.scenario.expressions import compile_expression

    if step.hook in ctx.hooks:
        raise StepError(f"an admission hook named {step.hook!r} is already registered")
    expr = compile_expression(step.deny_if)
    view = ctx.view

    class _Env:
        def __init__(self, request: dict[str, Any]) -> None:
            self.request = request
            self.now = view.t() if view is not None else 0.0

        @property
        def metrics(self) -> Any:
            return view.metrics if view is not None else {}

        def call(self, name: str, args: list[Any], kwargs: dict[str, Any]) -> Any:
            if view is None:
                raise ValueError("no view of the cluster")
            return view.call(name, args, kwargs)

    async def hook(req: Any) -> None:
        request = {"operation": req.operation, "namespace": req.namespace, "name": req.name,
                   "resource": req.resource, "subresource": req.subresource, "object": req.object,
                   "oldObject": req.old_object, "user": {"username": req.user.name, "groups": list(req.user.groups)}}
        from kubelite.scenario.expressions import ExpressionError

        try:
            deny = expr.holds(_Env(request))
        except ExpressionError as e:  # failurePolicy: Fail, as upstream's default
            raise AdmissionDenied(f"the hook's condition could not be evaluated: {e}") from None
        if deny:
            raise AdmissionDenied(step.message)

    resources = [r if r == "*" or "/" in r else f"/{r}" if r in _CORE else _group_resource(r) for r in step.resources]
    ctx.hooks[step.hook] = ctx.cluster.apiserver.admission.register(
        hook, name=step.hook, resources=resources, operations=[o.upper() for o in step.operations])
    return f"validatingwebhookconfiguration {step.hook} registered"


_CORE = frozenset({"pods", "services", "configmaps", "secrets", "namespaces", "nodes", "persistentvolumeclaims",
                   "persistentvolumes", "serviceaccounts", "endpoints", "events", "resourcequotas", "limitranges"})


def _group_resource(r: str) -> str:
    group = {"deployments": "apps", "replicasets": "apps", "statefulsets": "apps", "daemonsets": "apps",
             "jobs": "batch", "cronjobs": "batch", "horizontalpodautoscalers": "autoscaling",
             "poddisruptionbudgets": "policy", "endpointslices": "discovery.k8s.io",
             "ingresses": "networking.k8s.io", "networkpolicies": "networking.k8s.io"}.get(r, "")
    return f"{group}/{r}"


def _kubelets(cluster: Any, node: str | None) -> list[Any]:
    if node is not None:
        return [cluster.kubelet(node)]
    return [k for pool in cluster.node_pools for k in pool]


async def _drain(ctx: StepContext, step: f.Drain) -> str:
    """``kubectl drain``: cordon, evict every pod but DaemonSet-managed and mirror pods (retrying refused
    evictions every 5 s), then wait for them to be gone (staging/src/k8s.io/kubectl/pkg/drain/drain.go)."""
    cluster = ctx.cluster
    c = cluster.client
    clock = cluster.clock
    await c.patch("nodes", step.node, {"spec": {"unschedulable": True}}, patch_type="merge")
    deadline = clock.now() + (parse_duration(step.timeout) if step.timeout is not None else DEFAULT_DRAIN_TIMEOUT)
    pods = await c.list("pods", namespace="*", fields={"spec.nodeName": step.node})
    todo = []
    for p in pods:
        meta = p["metadata"]
        if (meta.get("annotations") or {}).get("kubernetes.io/config.mirror"):
            continue
        if step.ignore_daemon_sets and any(r.get("kind") == "DaemonSet" and r.get("controller")
                                           for r in meta.get("ownerReferences") or ()):
            continue
        if (p.get("status") or {}).get("phase") in ("Succeeded", "Failed"):
            continue
        todo.append((meta["namespace"], meta["name"], meta["uid"]))
    pending = list(todo)
    while pending:
        refused = []
        for ns, name, uid in pending:
            try:
                await c.evict(ns, name, grace_period=step.grace_period)
            except TooManyRequests:
                refused.append((ns, name, uid))
            except ApiError as e:
                if e.status.code != 404:
                    raise
        pending = refused
        if pending:
            if clock.now() + DRAIN_RETRY > deadline:
                names = ", ".join(f"{ns}/{n}" for ns, n, _ in pending)
                raise StepError(f"error: drain did not complete within the timeout: cannot evict {names} "
                                f"(Cannot evict pod as it would violate the pod's disruption budget.)")
            await clock.sleep(DRAIN_RETRY)
    while True:
        left = []
        for ns, name, uid in todo:
            try:
                p = await c.get("pods", name, namespace=ns)
                if p["metadata"]["uid"] == uid:
                    left.append(name)
            except ApiError:
                pass
        if not left or clock.now() >= deadline:
            break
        await clock.sleep(1.0)
    if left:
        raise StepError(f"error: drain did not complete within the timeout: {', '.join(left)} still terminating")
    return f"node/{step.node} drained ({len(todo)} pods evicted)"
