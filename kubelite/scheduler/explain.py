"""Explanations: why the last scheduling attempt of a pod went the way it did (kubelite's addition).

Contract: for each pod the scheduler keeps the raw outcome of its latest attempt (rejections per node,
weighted scores per plugin and node) and builds an :class:`Explanation` only when asked, so recording
costs nothing per node. The most recent ``capacity`` pods are kept (least recently attempted dropped
first). Nodes not evaluated (percentageOfNodesToScore stopped the search early) appear in neither
``rejections`` nor ``scores``.
"""

from __future__ import annotations

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


class _Raw:
    __slots__ = ("attempt", "message", "node", "nominated", "result", "schedule", "statuses", "time")

    def __init__(self, attempt: int, time: float, result: str, node: str, message: str,
                 schedule: ScheduleResult | None, statuses: dict[str, Status] | None, nominated: str) -> None:
        self.attempt = attempt
        self.time = time
        self.result = result
        self.node = node
        self.message = message
        self.schedule = schedule
        self.statuses = statuses
        self.nominated = nominated


class Explanations:
    def __init__(self, capacity: int = 1000) -> None:
        self.capacity = capacity
        self._raw: OrderedDict[str, _Raw] = OrderedDict()

    def record(self, pod_key: str, *, attempt: int, time: float, result: str, node: str = "", message: str = "",
               schedule: ScheduleResult | None = None, statuses: dict[str, Status] | None = None,
               nominated: str = "") -> None:
        raw = self._raw
        raw[pod_key] = _Raw(attempt, time, result, node, message, schedule, statuses, nominated)
        raw.move_to_end(pod_key)
        if len(raw) > self.capacity:
            raw.popitem(last=False)

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
        statuses = r.statuses if r.statuses is not None else (r.schedule.statuses if r.schedule else {})
        rejections = {n: Rejection(plugin=s.plugin, code=code_name(s.code), reasons=s.reasons)
                      for n, s in sorted(statuses.items())}
        scores: dict[str, dict[str, int]] = {}
        totals: dict[str, int] = {}
        sr = r.schedule
        if sr is not None:
            names = [ni.name for ni in sr.nodes]
            for plugin, vals in sr.per_plugin.items():
                scores[plugin] = dict(zip(names, vals))
            totals = dict(zip(names, sr.totals))
        return Explanation(pod=pod_key, attempt=r.attempt, time=r.time, result=r.result, node=r.node,
                           message=r.message, rejections=rejections, scores=scores, totals=totals,
                           nominated_node=r.nominated)
