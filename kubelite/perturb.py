"""Perturbation points: where a seeded decision source may bend the order in which data flows.

Components that move data (the client's requests, a reflector's watch events, a controller's work queue)
accept an optional ``perturber=`` collaborator implementing :class:`Perturber`. Without one (the default,
and everywhere outside ``kubelite.fuzz``) they take their ordinary fast path and behave exactly as
before. With one, they ask it at each point what to do, and do it themselves:

=========================  ===========================================  ==========================================
point                      asked by                                     possible actions
=========================  ===========================================  ==========================================
``watch``                  a Reflector, before applying a watch event   deliver; delay it (and everything behind
                                                                        it); hold it until more arrive (batch);
                                                                        drop the watch and relist after a gap,
                                                                        optionally as if compacted (410)
``api``                    the client, before and after each request    yield to other tasks, add latency, fail
                                                                        before the request (nothing stored), lose
                                                                        the response after a committed write
                                                                        (504), crash the caller's manager
``queue``                  a controller worker, per ready request       reconcile it, or send it to the back of
                                                                        the queue (reorder); after a reconcile,
                                                                        add it again at once (duplicate)
``ready`` (the clock)       the clock's driver, when the loop's ready    run the tasks ready at once in a seeded
                           queue holds several callbacks                shuffled order (``VirtualClock.ready_hook``)
=========================  ===========================================  ==========================================

Contract: a perturber only decides; the component keeps its own invariants (order of events within one
watch, the workqueue's dirty/processing rule). Every decision is a pure function of the perturber's own
seeded state and the sequence of questions asked, so a run replays exactly. While a component acts on a
non-default decision (sleeps out a delay, holds events) it marks itself busy with :meth:`Perturber.holding`,
so quiescence (``Cluster.quiesce``) never mistakes held work for a finished cluster.
"""

from __future__ import annotations

import contextlib
from typing import Any, Protocol

__all__ = ["ApiCall", "Perturber", "WatchAction"]

#: What a reflector does with the next watch event: ``("delay", seconds)``, ``("hold", count)`` (batch:
#: wait for ``count`` more events, at most one second), ``("relist", gap_seconds)`` or
#: ``("expire", gap_seconds)`` (drop the watch; after the gap relist, at the last revision seen or, as
#: after a compaction, at the latest one). ``None``: deliver now.
WatchAction = tuple[str, float] | None


class ApiCall:
    """One client request as a perturber sees it (who, which verb, on what)."""

    __slots__ = ("name", "namespace", "resource", "subresource", "user", "verb")

    def __init__(self, user: str, verb: str, resource: str, subresource: str, namespace: str, name: str) -> None:
        self.user = user
        self.verb = verb
        self.resource = resource  # "configmaps" or "example.com/widgets"
        self.subresource = subresource
        self.namespace = namespace
        self.name = name

    @property
    def is_write(self) -> bool:
        """Whether the verb writes (create, update, patch, delete, deletecollection)."""
        return self.verb in ("create", "update", "patch", "delete", "deletecollection")

    def __repr__(self) -> str:
        sub = f"/{self.subresource}" if self.subresource else ""
        target = (f" {self.namespace}/{self.name}" if self.namespace else f" {self.name}") if self.name else ""
        return f"{self.user} {self.verb} {self.resource}{sub}{target}"


class Perturber(Protocol):
    """A seeded decision source (see the module docstring). ``kubelite.fuzz`` provides the implementation."""

    def watch_event(self, site: str, event: str) -> WatchAction:
        """A reflector at ``site`` (``"user/resource"``) is about to apply one watch ``event`` (its type and
        object key, for the record: ``"ADDED default/web"``)."""
        ...

    async def before_request(self, call: ApiCall) -> None:
        """Before a request reaches the apiserver: may yield, sleep, or raise an ``ApiError``."""
        ...

    async def after_request(self, call: ApiCall) -> None:
        """After the apiserver answered a request successfully: may yield, sleep, raise ``ServerTimeout``
        (the write is stored but the caller never learns it), or never return (the caller's process
        crashed between this write and its next step)."""
        ...

    def defer(self, site: str, request: str) -> bool:
        """A controller worker at ``site`` (``"manager/controller"``) took a request while others are
        ready: True sends it to the back of the queue instead."""
        ...

    def duplicate(self, site: str, request: str) -> bool:
        """A reconcile of ``request`` (``"namespace/name"``) at ``site`` just finished: True adds the same
        request again at once."""
        ...

    def holding(self) -> contextlib.AbstractContextManager[Any]:
        """Mark the caller as holding work back for the duration of the block."""
        ...
