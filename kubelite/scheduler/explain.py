"""Explanations: why the last scheduling attempt of a pod went the way it did (kubelite's addition).

Contract: for each pod the scheduler keeps the raw outcome of its latest attempt (rejections per node,
weighted scores per plugin and node) and builds an :class:`Explanation` only when asked. Nodes not
evaluated (percentageOfNodesToScore stopped the search early) appear in neither ``rejections`` nor
``scores``.

Memory is bounded twice, whatever the cluster size: at most ``capacity`` pods, and at most ``max_cells``
cells (one per evaluated node per score plugin, plus its total, plus one per rejecting node) over all
the pods kept; the least recently attempted pod goes first, and the latest attempt is always kept.
Scores are kept compactly (node names once per attempt, each plugin's scores an 8-byte ``array``), not
as the per-node Python lists and NodeInfo references the scoring cycle built: at 5,000 nodes a
kept attempt is 8 bytes per node per plugin. Upstream kube-scheduler keeps no such record (it
logs and emits events); this is kubelite's addition, and it must not grow with the cluster.
"""

from __future__ import annotations

from array import array
from collections import OrderedDict

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


class _Raw:
    __slots__ = ("attempt", "cells", "message", "names", "node", "nominated", "per_plugin", "result", "statuses",
                 "time", "totals")

    def __init__(self, attempt: int, time: float, result: str, node: str, message: str,
                 schedule: ScheduleResult | None, statuses: dict[str, Status] | None, nominated: str) -> None:
        self.attempt = attempt
        self.time = time
        self.result = result
        self.node = node
        self.message = message
        self.nominated = nominated
        if statuses is None:
            statuses = schedule.statuses if schedule is not None else {}
        self.statuses = statuses
        if schedule is not None and schedule.nodes:
            self.names: tuple[str, ...] = tuple(ni.name for ni in schedule.nodes)
            self.per_plugin = {p: array("q", v) for p, v in schedule.per_plugin.items()}
            self.totals = array("q", schedule.totals)
        else:
            self.names, self.per_plugin, self.totals = (), {}, array("q")
        self.cells = len(self.names) * (len(self.per_plugin) + 1) + len(statuses)


class Explanations:
    """The latest attempt of the most recently attempted pods, bounded by pods and by cells (module doc)."""

    def __init__(self, capacity: int = 1000, *, max_cells: int = DEFAULT_MAX_CELLS) -> None:
        self.capacity = capacity
        self.max_cells = max_cells
        #: cells kept over all pods (invariant: the sum of every kept attempt's ``cells``)
        self.cells = 0
        self._raw: OrderedDict[str, _Raw] = OrderedDict()

    def __len__(self) -> int:
        return len(self._raw)

    def record(self, pod_key: str, *, attempt: int, time: float, result: str, node: str = "", message: str = "",
               schedule: ScheduleResult | None = None, statuses: dict[str, Status] | None = None,
               nominated: str = "") -> None:
        raw = self._raw
        entry = _Raw(attempt, time, result, node, message, schedule, statuses, nominated)
        old = raw.pop(pod_key, None)
        if old is not None:
            self.cells -= old.cells
        raw[pod_key] = entry
        self.cells += entry.cells
        while len(raw) > 1 and (len(raw) > self.capacity or self.cells > self.max_cells):
            _, dropped = raw.popitem(last=False)
            self.cells -= dropped.cells

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
        totals = dict(zip(r.names, r.totals))
        return Explanation(pod=pod_key, attempt=r.attempt, time=r.time, result=r.result, node=r.node,
                           message=r.message, rejections=rejections, scores=scores, totals=totals,
                           nominated_node=r.nominated)
