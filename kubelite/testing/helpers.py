"""Helpers for tests that embed a cluster: load manifests, install CRDs, run the user's reconcilers and
scheduler plugins next to the built-in components.

Contract:
- Everything goes through the API (``cluster.client``), as ``kubectl apply --server-side`` and a real
  operator would; nothing touches the store.
- :func:`register_reconciler` runs the user's controllers on one controller-runtime-style
  :class:`~kubelite.controllers.Manager` per cluster (its own informers, field manager ``manager``),
  separate from the built-in kube-controller-manager; it is started on first use and stopped when the
  cluster exits.
- :func:`register_scheduler_plugin` (re)starts the cluster's default scheduler with the plugin
  registered and enabled at every extension point it implements (``multiPoint``). Pods already queued
  are picked up again by the new scheduler from its informers. It works on clusters made by the
  ``kubelite_cluster`` fixture and on clusters started with ``scheduler=False``.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kubelite.cluster import Cluster
    from kubelite.controllers import Controller, Manager
    from kubelite.informer import SharedInformerFactory
    from kubelite.scheduler import Scheduler
    from kubelite.supervise import TaskHandle

__all__ = ["install_crds", "load_manifests", "reconciler_manager", "register_reconciler",
           "register_scheduler_plugin", "start_default_scheduler"]


class _Extras:
    """What the helpers started on one cluster."""

    def __init__(self) -> None:
        self.manager: Manager | None = None
        self.scheduler_task: TaskHandle | None = None
        self.scheduler_factory: SharedInformerFactory | None = None
        self.plugins: dict[str, Any] = {}
        self.owns_scheduler = False


_EXTRAS: weakref.WeakKeyDictionary[Any, _Extras] = weakref.WeakKeyDictionary()


def _extras(cluster: Cluster) -> _Extras:
    ex = _EXTRAS.get(cluster)
    if ex is None:
        ex = _EXTRAS[cluster] = _Extras()
        cluster.start_soon(_keeper, ex, name="kubelite-testing")
    return ex


async def _keeper(ex: _Extras) -> None:
    """Lives as long as the cluster; stops what the helpers started when the cluster cancels it. (The
    manager is also one of ``cluster.managers``: the cluster stops it, and raises what it died of.)"""
    try:
        await asyncio.Event().wait()
    finally:
        await _stop_scheduler(ex)


async def _stop_scheduler(ex: _Extras) -> None:
    if ex.scheduler_task is not None:
        await ex.scheduler_task.stop()
        ex.scheduler_task = None
    if ex.scheduler_factory is not None:
        await ex.scheduler_factory.shutdown()
        ex.scheduler_factory = None


def _documents(source: Any) -> list[dict[str, Any]]:
    """Manifests from a dict, a list of dicts, a file, a directory (``*.yaml``/``*.yml``/``*.json`` in name
    order) or YAML text (multi-document, as kubectl takes it)."""
    from kubelite.api.codec import load_yaml

    if isinstance(source, Mapping):
        return [dict(source)]
    if isinstance(source, list | tuple):
        return [d for s in source for d in _documents(s)]
    if isinstance(source, Path) or (isinstance(source, str) and "\n" not in source and Path(source).exists()):
        path = Path(source)
        if path.is_dir():
            files = sorted(p for p in path.iterdir() if p.suffix in (".yaml", ".yml", ".json"))
            return [d for f in files for d in load_yaml(f.read_text())]
        return list(load_yaml(path.read_text()))
    if isinstance(source, str):
        return list(load_yaml(source))
    raise TypeError(f"cannot load manifests from {type(source).__name__}")


async def load_manifests(cluster: Cluster, source: Any, *, namespace: str | None = None,
                         field_manager: str = "kubectl") -> list[dict[str, Any]]:
    """Server-side apply every manifest in ``source`` (see :func:`_documents`) in order, as
    ``kubectl apply --server-side --force-conflicts`` would; returns the objects as stored. The first
    rejection raises its :class:`~kubelite.errors.ApiError`, naming the object."""
    out = []
    for doc in _documents(source):
        if namespace is not None and "namespace" not in (doc.get("metadata") or {}):
            doc = {**doc, "metadata": {**(doc.get("metadata") or {}), "namespace": namespace}}
        out.append(await cluster.client.apply(doc, field_manager=field_manager, force=True))
    return out


async def install_crds(cluster: Cluster, *crds: Any) -> list[dict[str, Any]]:
    """Install CustomResourceDefinitions (dicts, files or YAML text); returns them once Established."""
    docs = [d for c in crds for d in _documents(c)]
    for d in docs:
        if d.get("kind") != "CustomResourceDefinition":
            raise ValueError(f"not a CustomResourceDefinition: {d.get('kind')} {(d.get('metadata') or {}).get('name')}")
    stored = await load_manifests(cluster, docs)

    async def established() -> bool:
        for d in stored:
            crd = await cluster.client.get("customresourcedefinitions", d["metadata"]["name"])
            if not any(c.get("type") == "Established" and c.get("status") == "True"
                       for c in (crd.get("status") or {}).get("conditions") or ()):
                return False
        return True

    await cluster.wait_for(established, timeout=10.0)
    return [await cluster.client.get("customresourcedefinitions", d["metadata"]["name"]) for d in stored]


async def register_reconciler(cluster: Cluster, name: str, reconciler: Any, *, for_: Any, owns: Iterable[Any] = (),
                              watches: Sequence[tuple[Any, Any]] = (), max_concurrent_reconciles: int = 1
                              ) -> Controller:
    """Run ``reconciler`` (a :class:`~kubelite.controllers.Reconciler`, an ``async def reconcile(request)``
    or a zero-argument factory) as controller ``name`` for the ``for_`` resource, owning ``owns`` (owned
    objects enqueue their controller owner) and watching ``(resource, map_fn)`` pairs. Resources are what
    the client accepts: a plural ("webapps.example.com", "deployments"), a (apiVersion, kind) tuple or a
    typed Struct class. Returns the :class:`~kubelite.controllers.Controller`; its manager (shared by
    every reconciler registered on this cluster, one of ``cluster.managers``) is ``controller.manager``
    and :func:`reconciler_manager`: crash and restart it with ``manager.crash()``/``manager.restart()``."""
    from kubelite.controllers import Manager

    ex = _extras(cluster)
    if ex.manager is None:
        ex.manager = Manager(cluster.client.with_field_manager("manager"), clock=cluster.clock, rng=cluster.rng,
                             name="manager")
    builder = ex.manager.controller(name).for_(for_).with_max_concurrent_reconciles(max_concurrent_reconciles)
    for res in owns:
        builder = builder.owns(res)
    for res, map_fn in watches:
        builder = builder.watches(res, map_fn)
    ctrl = builder.complete(reconciler)
    await ex.manager.start()
    return ctrl


def reconciler_manager(cluster: Cluster) -> Manager | None:
    """The :class:`~kubelite.controllers.Manager` running the reconcilers :func:`register_reconciler`
    registered on ``cluster`` (None before the first one)."""
    ex = _EXTRAS.get(cluster)
    return ex.manager if ex is not None else None


async def _start_scheduler(cluster: Cluster, ex: _Extras, profiles: Sequence[Mapping[str, Any]] | None
                           ) -> Scheduler:
    """Start a kube-scheduler as :class:`~kubelite.cluster.Cluster` does, with the registered plugins."""
    from kubelite.events import EventBroadcaster
    from kubelite.informer import SharedInformerFactory
    from kubelite.scheduler import Scheduler

    await _stop_scheduler(ex)
    client = cluster.client.with_field_manager("default-scheduler")
    informers = SharedInformerFactory(client, clock=cluster.clock, rng=cluster.rng)
    broadcaster = EventBroadcaster(client, clock=cluster.clock, rng=cluster.rng)
    cluster.start_soon(broadcaster.run, name="scheduler-events")
    sched = Scheduler(client, informers, clock=cluster.clock, rng=cluster.rng, profiles=profiles,
                      recorder=broadcaster.new_recorder(component="default-scheduler"))
    for n, f in ex.plugins.items():
        sched.register_plugin(n, f)
    sched.build()  # profile errors surface here, in the caller
    ex.scheduler_factory = informers
    ex.scheduler_task = cluster.start_soon(sched.run, name="kube-scheduler")
    ex.owns_scheduler = True
    cluster.scheduler = sched
    return sched


async def start_default_scheduler(cluster: Cluster) -> Scheduler:
    """Start the default scheduler under the helpers' control (the fixture does this, on a cluster made
    with ``scheduler=False``), so that :func:`register_scheduler_plugin` can restart it with plugins."""
    return await _start_scheduler(cluster, _extras(cluster), None)


async def register_scheduler_plugin(cluster: Cluster, name: str, factory: Any, *,
                                    profiles: Sequence[Mapping[str, Any]] | None = None) -> Scheduler:
    """Register an out-of-tree scheduler plugin (``factory(args, handle) -> plugin``) and run the default
    scheduler with it: enabled at every extension point it implements, unless ``profiles`` (upstream's
    ``KubeSchedulerProfile`` shape) say otherwise. Plugins registered earlier stay registered. Returns the
    new :class:`~kubelite.scheduler.Scheduler` (also ``cluster.scheduler``)."""
    ex = _extras(cluster)
    if cluster.scheduler is not None and not ex.owns_scheduler:
        raise RuntimeError("this cluster runs its built-in scheduler; use the kubelite_cluster fixture or "
                           "Cluster(scheduler=False) to add scheduler plugins")
    ex.plugins[name] = factory
    if profiles is None:
        profiles = [{"schedulerName": "default-scheduler",
                     "plugins": {"multiPoint": {"enabled": [{"name": n} for n in ex.plugins]}}}]
    try:
        sched = await _start_scheduler(cluster, ex, profiles)
    except BaseException:
        del ex.plugins[name]
        raise
    await cluster.settle()
    return sched
