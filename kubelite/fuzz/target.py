"""What gets fuzzed: a :class:`FuzzTarget` (an operator's setup plus the invariants it must keep) and the
:class:`Env` its setup receives.

A setup is ``async def setup(env)``: it starts the operator under test with :meth:`Env.manager` (a
controller-runtime-shaped Manager whose client, informers and controllers carry the perturber) or
:meth:`Env.client_for` (a perturbed client for operators written some other way), then drives the story
with :attr:`Env.client` (the unperturbed admin client, as a test would). Each identity the setup creates is
in scope for perturbation; the admin client and the built-in components never are.

A target is referred to in schedule files as ``"module:attribute"`` (the attribute holding the target, or
an ``async def setup(env)`` function), so ``kubelite fuzz replay FILE`` can rebuild it in a fresh process.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from kubelite.api.codec import load_yaml
from kubelite.apiserver.auth.user import UserInfo
from kubelite.client import Client
from kubelite.cluster import Cluster
from kubelite.controllers import Manager
from kubelite.fuzz.invariants import BUILTIN, Invariant
from kubelite.fuzz.perturber import SchedulePerturber
from kubelite.fuzz.schedule import Knobs
from kubelite.fuzz.trace import Trace

__all__ = ["Env", "FuzzTarget", "load_target"]

Setup = Callable[["Env"], Awaitable[None]]


def _crd_documents(crds: Sequence[Any]) -> list[dict[str, Any]]:
    docs: list[dict[str, Any]] = []
    for c in crds:
        if isinstance(c, dict):
            docs.append(c)
            continue
        path = Path(c)
        files = sorted(path.glob("*.y*ml")) if path.is_dir() else [path]
        for f in files:
            docs.extend(d for d in load_yaml(f.read_text()) if d)
    return docs


class FuzzTarget:
    """An operator under test: ``setup`` (see the module docstring), the CRDs it needs (dicts, YAML files or
    directories of them), its invariants (:class:`~kubelite.fuzz.invariants.Invariant` objects or built-in
    names), ``Cluster`` options (default: an API-only cluster), the virtual time each run lasts after
    setup before the final quiescence (``quiet``), and default knobs."""

    def __init__(
        self, setup: Setup, *, crds: Sequence[Any] = (), invariants: Sequence[Invariant | str] = (),
        cluster: Mapping[str, Any] | None = None, quiet: float = 120.0, knobs: Knobs | None = None,
        name: str | None = None, ref: str | None = None,
    ) -> None:
        self.setup = setup
        self.crds = _crd_documents(crds)
        self.invariants: list[Invariant] = []
        for inv in invariants:
            if isinstance(inv, str):
                if inv not in BUILTIN:
                    raise ValueError(f"unknown built-in invariant {inv!r}; choose from {sorted(BUILTIN)}")
                self.invariants.append(BUILTIN[inv]())
            else:
                self.invariants.append(inv)
        self.cluster_options: dict[str, Any] = dict(
            cluster if cluster is not None else {"controllers": False, "scheduler": False, "network": False})
        self.quiet = quiet
        self.knobs = knobs if knobs is not None else Knobs()
        self.name: str = name or str(getattr(setup, "__name__", "target"))
        self._ref: str | None = ref

    @property
    def ref(self) -> str | None:
        """``"module:attribute"`` to load this target in another process, if it can be found."""
        if self._ref is not None:
            return self._ref
        module_name: str = getattr(self.setup, "__module__", "") or ""
        module = sys.modules.get(module_name)
        if module is not None:
            for attr, value in sorted(vars(module).items()):
                if value is self:
                    found = f"{module_name}:{attr}"
                    self._ref = found
                    return found
            if not self.crds and not self.invariants and getattr(module, self.name, None) is self.setup:
                self._ref = f"{module_name}:{self.name}"
        return self._ref

    def __repr__(self) -> str:
        return f"<FuzzTarget {self.ref or self.name}>"


def load_target(ref: str, *, crds: Sequence[Any] = ()) -> FuzzTarget:
    """Import ``"module:attribute"`` (the current directory is importable, as with ``python -m``); the
    attribute is a FuzzTarget or an ``async def setup(env)``. ``crds`` are added to the target's own."""
    module_name, sep, attr = ref.partition(":")
    if not sep or not module_name or not attr:
        raise ValueError(f"expected MODULE:ATTRIBUTE, got {ref!r}")
    if "" not in sys.path and str(Path.cwd()) not in sys.path:
        sys.path.insert(0, str(Path.cwd()))
    module = importlib.import_module(module_name)
    obj: Any = module
    for part in attr.split("."):
        obj = getattr(obj, part)
    target = obj if isinstance(obj, FuzzTarget) else FuzzTarget(obj, ref=ref)
    if target._ref is None:
        target._ref = ref
    if crds:
        target.crds = [*target.crds, *_crd_documents(crds)]
    return target


class Env:
    """What a target's setup works with (see the module docstring)."""

    def __init__(self, cluster: Cluster, perturber: SchedulePerturber, trace: Trace, knobs: Knobs) -> None:
        self.cluster = cluster
        self.perturber = perturber
        self.trace = trace
        self.knobs = knobs
        self.client = cluster.client
        self.clock = cluster.clock
        self.rng = cluster.rng
        self.managers: dict[str, Manager] = {}

    def client_for(self, user: str) -> Client:
        """A client acting as ``user`` (in ``system:masters``), perturbed at the ``api`` point."""
        self.perturber.users.add(user)
        return Client(self.cluster.apiserver, user=UserInfo(name=user, groups=("system:masters", "system:authenticated")),
                      field_manager=user, perturber=self.perturber)

    def manager(self, user: str, **options: Any) -> Manager:
        """A controller Manager named ``user`` acting as ``user``: its client, informers and controllers are
        perturbed, the cluster's :meth:`~kubelite.Cluster.quiesce` waits for it, and a ``crash`` decision
        after one of its writes crashes it (every in-memory state lost) and restarts it
        ``knobs.restart_after`` seconds later (informers rebuilt from the API). Start it yourself."""
        if user in self.managers:
            raise ValueError(f"a manager for {user!r} already exists")
        mgr = Manager(self.client_for(user), clock=self.clock, rng=self.rng, name=user, perturber=self.perturber,
                      **options)
        self.managers[user] = mgr
        self.cluster.track(mgr)
        def crash() -> None:
            self.cluster.start_soon(self._crash_and_restart, user, name=f"fuzz-crash-{user}")

        self.perturber.crash_handlers[user] = crash
        return mgr

    async def _crash_and_restart(self, user: str) -> None:
        mgr = self.managers[user]
        try:
            await mgr.crash()
            self.trace.note(f"crashed manager {user}")
            await self.clock.sleep(self.knobs.restart_after)
            await mgr.restart()
            self.trace.note(f"restarted manager {user}")
        finally:
            self.perturber.crashed(user)

    async def close(self) -> None:
        """Stop every manager the setup created (the run does this before the cluster stops)."""
        for mgr in self.managers.values():
            await mgr.stop()

    async def install_crds(self, docs: Sequence[dict[str, Any]]) -> None:
        """Create CustomResourceDefinitions (established at once, as the apiserver does)."""
        for d in docs:
            await self.client.create(d)

    async def advance(self, seconds: float) -> None:
        """Move the run's cluster forward by ``seconds`` of virtual time."""
        await self.cluster.advance(seconds)

    async def settle(self) -> None:
        """Run the cluster until nothing can progress without time moving."""
        await self.cluster.settle()
