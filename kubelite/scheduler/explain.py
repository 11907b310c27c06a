"""Explanations: why the last scheduling attempt of a pod went the way it did (kubelite's addition).

Contract: for each pod the scheduler keeps the raw outcome of its latest attempt (rejections per node,
weighted scores per plugin and node) and builds an :class:`Explanation` only when asked. Nodes not
evaluated (percentageOfNodesToScore stopped the search early) appear in neither ``rejections`` nor
``scores``.

Memory is bounded twice, whatever the cluster size: at most ``capacity`` pods, and at most ``max_cells``
cells (one per evaluated node per score plugin, plus its total, plus one per rejecting node) over all
the pods kept; the least recently attempted pod goes first, and the latest attempt is always kept.
Scores are kept at 8 bytes per node per plugin, and recording one costs no pass over the nodes in Python:
- node names: a slice of one shared tuple of the cache's node names when the evaluated nodes are a run of
  the cache's node list from where the scan began (the usual case: every node fits), found with C-level
  slicing and comparison; otherwise one tuple of the names. No NodeInfo of the attempt is kept.
- each plugin's weighted scores: a copy of the cycle's list. A score is at most 100 and a weighted one
  is mapped through one int per distinct value (``Framework.run_score_plugins``), so a cell is one
  pointer to a shared int: the 8 bytes an ``array("q")`` would take, without its per-cell conversion.
- totals: not kept; they are the sum of the weighted scores (``run_score_plugins``) and are added up
  when an explanation is read.
Upstream kube-scheduler keeps no such record (it logs and emits events); this is kubelite's addition, and
it must not grow with the cluster.
"""

from __future__ import annotations

from collections import OrderedDict
from operator import add, attrgetter
from typing import Any

import msgspec

from kubelite.scheduler.framework.status import Status, code_name
from kubelite.scheduler.schedule_one import ScheduleResult

__all__ = ["Explanation", "Explanations", "Rejection"]


class Rejection(msgspec.Struct, frozen=True, kw_only=True):
    """Why one plugin rejected a node in an attempt: its status code and reasons."""

    plugin: str
    code: str
    reasons: tuple[str, ...]


class Explanation(msgspec.Struct, frozen=True, kw_only=True):
    """One scheduling attempt of a pod, as :meth:`Scheduler.explain` returns it: the result, the node, the message and
    each node's rejections."""

    pod: str
    attempt: int
    time: float
    #: "Scheduled", "Unschedulable", "Error" or "Waiting" (held at Permit)
    result: str
    node: str = ""
    message: str = ""
    #: node -> the plugin that rejected it and why
    rejections: dict[str, Rejection] = msgspec.field(default_factory=dict)
    #: plugin -> node -> weighted score
    scores: dict[str, dict[str, int]] = msgspec.field(default_factory=dict)
    #: node -> total score
    totals: dict[str, int] = msgspec.field(default_factory=dict)
    nominated_node: str = ""


#: the default bound on the cells (node x plugin scores, totals, rejections) kept over all pods: ~8 MiB of scores
DEFAULT_MAX_CELLS = 1_000_000


_NAME = attrgetter("name")


class _Raw:
    __slots__ = ("attempt", "cells", "message", "names", "node", "nominated", "per_plugin", "result", "scored",
                 "statuses", "time")

    def __init__(self, attempt: int, time: float, result: str, node: str, message: str,
                 names: tuple[str, ...], schedule: ScheduleResult | None, statuses: dict[str, Status] | None,
                 nominated: str) -> None:
        self.attempt = attempt
        self.time = time
        self.result = result
        self.node = node
        self.message = message
        self.nominated = nominated
        if statuses is None:
            statuses = schedule.statuses if schedule is not None else {}
        self.statuses = statuses
        self.names = names
        if schedule is not None and names:
            self.per_plugin = {p: list(v) for p, v in schedule.per_plugin.items()}
            self.scored = bool(schedule.totals)
        else:
            self.per_plugin, self.scored = {}, False
        self.cells = len(names) * (len(self.per_plugin) + 1) + len(statuses)

    def totals(self) -> list[int]:
        """Each node's total: the sum of its weighted scores (zeros when every score plugin was skipped)."""
        if not self.scored:
            return []
        total = [0] * len(self.names)
        for scores in self.per_plugin.values():
            total = list(map(add, total, scores))
        return total


class Explanations:
    """The latest attempt of the most recently attempted pods, bounded by pods and by cells (module doc)."""

    def __init__(self, capacity: int = 1000, *, max_cells: int = DEFAULT_MAX_CELLS) -> None:
        self.capacity = capacity
        self.max_cells = max_cells
        #: cells kept over all pods (invariant: the sum of every kept attempt's ``cells``)
        self.cells = 0
        self._raw: OrderedDict[str, _Raw] = OrderedDict()
        # the cache's node list last seen by record() and, once seen twice in a row, its names
        self._all: list[Any] | None = None
        self._all_names: tuple[str, ...] | None = None

    def __len__(self) -> int:
        return len(self._raw)

    def record(self, pod_key: str, *, attempt: int, time: float, result: str, node: str = "", message: str = "",
               schedule: ScheduleResult | None = None, statuses: dict[str, Status] | None = None,
               nominated: str = "") -> None:
        raw = self._raw
        names = self._names(schedule) if schedule is not None and schedule.nodes else ()
        entry = _Raw(attempt, time, result, node, message, names, schedule, statuses, nominated)
        old = raw.pop(pod_key, None)
        if old is not None:
            self.cells -= old.cells
        raw[pod_key] = entry
        self.cells += entry.cells
        while len(raw) > 1 and (len(raw) > self.capacity or self.cells > self.max_cells):
            _, dropped = raw.popitem(last=False)
            self.cells -= dropped.cells

    def _names(self, schedule: ScheduleResult) -> tuple[str, ...]:
        """The evaluated nodes' names: a slice of the shared names of the cache's node list when the nodes are
        the run of it the scan went through from ``schedule.begin`` (checked by identity, in C), else read one
        by one. The shared tuple is built on the second attempt in a row over the same list, so a node list
        that changes every attempt (nodes joining) never pays for all the names."""
        nodes, listed = schedule.nodes, schedule.all_nodes
        n = len(nodes)
        if listed is None or not 1 < n <= len(listed):
            return tuple(map(_NAME, nodes))
        every: list[Any] = listed
        if every is not self._all:
            self._all, self._all_names = every, None
            return tuple(map(_NAME, nodes))
        b = schedule.begin
        run = every[b:b + n]
        if len(run) < n:
            run += every[:n - len(run)]
        if run != nodes:  # (NodeInfo compares by identity)
            return tuple(map(_NAME, nodes))
        all_names = self._all_names
        if all_names is None:
            all_names = self._all_names = tuple(map(_NAME, every))
        names = all_names[b:b + n]
        if len(names) < n:
            names += all_names[:n - len(names)]
        return names

    def set_result(self, pod_key: str, result: str, message: str = "") -> None:
        r = self._raw.get(pod_key)
        if r is not None:
            r.result = result
            if message:
                r.message = message

    def get(self, pod_key: str) -> Explanation | None:
        r = self._raw.get(pod_key)
        if r is None:
            return None
        rejections = {n: Rejection(plugin=s.plugin, code=code_name(s.code), reasons=s.reasons)
                      for n, s in sorted(r.statuses.items())}
        scores = {plugin: dict(zip(r.names, vals)) for plugin, vals in r.per_plugin.items()}
        totals = dict(zip(r.names, r.totals()))
        return Explanation(pod=pod_key, attempt=r.attempt, time=r.time, result=r.result, node=r.node,
                           message=r.message, rejections=rejections, scores=scores, totals=totals,
                           nominated_node=r.nominated)
