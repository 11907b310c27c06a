"""CycleState: per-attempt scratch space shared by the plugins of one scheduling cycle.

Follows ``pkg/scheduler/framework/cycle_state.go``. Contract: a fresh CycleState is created for every
scheduling attempt of a pod; plugins write their PreFilter/PreScore results under their own key and
read them back in Filter/Score. Preemption :meth:`clone`\\ s it (values implementing ``clone()`` are
deep-copied through it, others shared) so a dry run never leaks into the real cycle. Reading a missing
key raises :class:`KeyError`, as upstream returns ``ErrNotFound``.

:class:`FeasibleFacts` (kubelite-specific) is what the Filter loop learned about the nodes it found
feasible, left under :data:`FEASIBLE_FACTS` for Score plugins to reuse instead of walking the nodes
again; it describes one list object only, so readers go through :func:`feasible_facts`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["FEASIBLE_FACTS", "CycleState", "FeasibleFacts", "feasible_facts"]

FEASIBLE_FACTS = "kubelite/feasible-facts"


class CycleState:
    """Per-cycle plugin state (upstream ``framework.CycleState``): data a plugin writes in PreFilter and reads in
    Filter/Score, plus the plugins that skipped."""

    __slots__ = ("data", "skip_filter_plugins", "skip_score_plugins")

    def __init__(self) -> None:
        self.data: dict[str, Any] = {}
        #: plugins whose PreFilter / PreScore returned SKIP in this cycle
        self.skip_filter_plugins: set[str] = set()
        self.skip_score_plugins: set[str] = set()

    def read(self, key: str) -> Any:
        """The value under ``key`` (``CycleState.Read``); KeyError if nothing was written."""
        return self.data[key]

    def get(self, key: str, default: Any = None) -> Any:
        """The value under ``key``, or ``default``."""
        return self.data.get(key, default)

    def write(self, key: str, value: Any) -> None:
        """Store ``value`` under ``key`` (``CycleState.Write``)."""
        self.data[key] = value

    def delete(self, key: str) -> None:
        """Forget ``key`` (``CycleState.Delete``); a no-op if absent."""
        self.data.pop(key, None)

    def clone(self) -> CycleState:
        """A copy for a nested cycle (preemption's what-ifs): values with a ``clone()`` are cloned, the rest shared."""
        c = CycleState()
        for k, v in self.data.items():
            cl = getattr(v, "clone", None)
            c.data[k] = cl() if cl is not None else v
        c.skip_filter_plugins = set(self.skip_filter_plugins)
        c.skip_score_plugins = set(self.skip_score_plugins)
        return c


class FeasibleFacts:
    """``res_keys[i]`` is ``nodes[i].res_key``; ``tainted`` whether any of ``nodes`` has a taint."""

    __slots__ = ("nodes", "res_keys", "tainted")

    def __init__(self, nodes: Sequence[Any], res_keys: list[str], tainted: bool) -> None:
        self.nodes = nodes
        self.res_keys = res_keys
        self.tainted = tainted


def feasible_facts(state: CycleState, nodes: Sequence[Any]) -> FeasibleFacts | None:
    """The facts about exactly ``nodes`` (the same list object), if the Filter loop left them."""
    f: FeasibleFacts | None = state.data.get(FEASIBLE_FACTS)
    return f if f is not None and f.nodes is nodes else None
