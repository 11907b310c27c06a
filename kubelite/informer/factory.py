"""SharedInformerFactory: one informer per resource for a whole process; client-go
``informers/factory.go``.

Contract:
- ``informer_for(resource)`` returns the same :class:`SharedIndexInformer` every time for the same
  resource reference (a Struct class and a string name are different references, since they deliver
  different object types). Components that share a factory share one watch and one cache per resource.
- Informers are created with the namespace index (upstream's generated informers do the same) plus any
  ``indexers`` passed; indexers passed for an existing informer are added to it if their names are new.
- ``start()`` starts every informer not started yet as a task of the factory's anyio task group
  (:attr:`SharedInformerFactory.supervisor`); ``shutdown()`` cancels them and waits for them. An informer
  that fails (an exception other than the API errors a reflector retries) cancels the others, is logged,
  and is raised by ``shutdown()`` (and to the factory's failure callbacks). Call ``informer_for`` for everything you need before
  ``start()``, or call ``start()`` again (it is idempotent for informers already running).
- ``wait_for_cache_sync()`` waits for every started informer and reports each one's result.
"""

from __future__ import annotations

import random
from typing import Any

from kubelite.client import Client
from kubelite.clock import Clock
from kubelite.informer.index import NAMESPACE_INDEX, Indexers, meta_namespace_index_func
from kubelite.informer.lister import Lister
from kubelite.informer.shared_informer import SharedIndexInformer, wait_for_cache_sync
from kubelite.perturb import Perturber
from kubelite.supervise import Supervisor, TaskHandle

__all__ = ["SharedInformerFactory"]


class SharedInformerFactory:
    """See the module docstring."""

    def __init__(
        self, client: Client, *, clock: Clock, rng: random.Random, default_resync: float = 0.0,
        namespace: str | None = None, labels: str | dict[str, Any] | None = None,
        fields: str | dict[str, str] | None = None, perturber: Perturber | None = None,
    ) -> None:
        self.client = client
        self.perturber = perturber
        self.clock = clock
        self.rng = rng
        self.default_resync = default_resync
        self.namespace = namespace
        self.labels = labels
        self.fields = fields
        self._informers: dict[Any, SharedIndexInformer] = {}
        self._tasks: dict[Any, TaskHandle] = {}
        self._shutting_down = False
        self.supervisor = Supervisor("informers")

    def informer_for(self, resource: Any, *, resync: float | None = None,
                     indexers: Indexers | None = None) -> SharedIndexInformer:
        """The shared informer of ``resource`` (created on first use; upstream ``InformerFor``)."""
        informer = self._informers.get(resource)
        if informer is not None:
            if indexers:
                existing = informer.get_indexer().get_indexers()
                new = {k: v for k, v in indexers.items() if k not in existing}
                if new:
                    informer.add_indexers(new)
            return informer
        all_indexers: Indexers = {NAMESPACE_INDEX: meta_namespace_index_func}
        if indexers:
            all_indexers.update(indexers)
        informer = SharedIndexInformer(
            self.client, resource, clock=self.clock, rng=self.rng, namespace=self.namespace, labels=self.labels,
            fields=self.fields, resync=self.default_resync if resync is None else resync, indexers=all_indexers,
            perturber=self.perturber,
        )
        self._informers[resource] = informer
        return informer

    def lister_for(self, resource: Any) -> Lister[Any]:
        """A lister over the shared informer's cache of ``resource``."""
        return Lister.for_resource(self.informer_for(resource).get_indexer(), resource)

    @property
    def informers(self) -> dict[Any, SharedIndexInformer]:
        """Every informer created so far, by resource reference (a copy)."""
        return dict(self._informers)

    def start(self) -> None:
        """Start every informer that is not running yet (upstream ``Start``)."""
        if self._shutting_down:
            return
        self.supervisor.open()
        for resource, informer in self._informers.items():
            if resource not in self._tasks:
                self._tasks[resource] = self.supervisor.start_soon(informer.run, name=f"informer-{informer.name}")

    def failed(self) -> list[tuple[str, BaseException]]:
        """Informers whose task ended with an exception (a bug: informers run until cancelled)."""
        return [(self._informers[r].name, e) for r, t in self._tasks.items() if (e := t.exception()) is not None]

    async def shutdown(self, *, raise_failure: bool = True) -> None:
        """Stop every informer and wait for them; the factory starts nothing afterwards. Raises the
        exception an informer failed with, if one did (unless ``raise_failure=False``)."""
        self._shutting_down = True
        await self.supervisor.close(raise_failure=raise_failure)

    async def wait_for_cache_sync(self, timeout: float | None = None) -> dict[Any, bool]:  # noqa: ASYNC109
        """Wait for every started informer to sync; resource -> synced (False only after ``timeout``)."""
        deadline = None if timeout is None else self.clock.now() + timeout
        out: dict[Any, bool] = {}
        for resource in list(self._tasks):
            remaining = None if deadline is None else max(0.0, deadline - self.clock.now())
            out[resource] = await wait_for_cache_sync(self._informers[resource], clock=self.clock, timeout=remaining)
        return out
