"""``RunResult``: everything a scenario run produced, as JSON-serialisable msgspec Structs.

Contract (shared with the HTML report and the kubectl-style printers; keep the names):
- Times are virtual seconds since the scenario started (the cluster's start), never wall time, so the
  same seed gives an identical result (and identical JSON bytes).
- ``events`` are in the order kubectl's ``--sort-by=.metadata.creationTimestamp`` shows them (first
  seen, then by name); ``series`` points are ``(time, value)`` recorded when the value changes (plus the
  first and last sample); ``pod_intervals`` partition each pod's life into states, per node.
- ``objects`` is the final state of every object as the API returns it, without ``managedFields``.
"""

from __future__ import annotations

from typing import Any

import msgspec

__all__ = ["EventRecord", "ExpectationResult", "PodInterval", "RunResult", "Series", "encode_json"]


class EventRecord(msgspec.Struct, kw_only=True):
    time: float
    type: str
    reason: str
    #: "kind/namespace/name" ("kind/name" for cluster-scoped objects)
    object: str
    source: str
    message: str
    count: int = 1
    #: when the event was last seen (its count went up); kubectl's LAST SEEN column
    last_seen: float = 0.0
    namespace: str = ""


class ExpectationResult(msgspec.Struct, kw_only=True):
    name: str
    #: "eventually" | "always" | "at_end" | "step" (a `when:` step whose condition never held)
    kind: str
    expression: str
    passed: bool
    #: eventually: when it first held; always: when it first failed; at_end: the end
    at: float | None = None
    diagnosis: str | None = None


class Series(msgspec.Struct, kw_only=True):
    name: str
    points: list[tuple[float, float]] = []


class PodInterval(msgspec.Struct, kw_only=True):
    #: "namespace/name"
    pod: str
    node: str
    state: str
    start: float
    end: float


class RunResult(msgspec.Struct, kw_only=True):
    scenario: str
    seed: int
    until: float
    passed: bool
    expectations: list[ExpectationResult] = []
    events: list[EventRecord] = []
    series: list[Series] = []
    pod_intervals: list[PodInterval] = []
    metrics: dict[str, Any] = {}
    objects: list[dict[str, Any]] = []
    #: the scenario's description, and the steps as they ran: (time, text)
    description: str = ""
    steps: list[tuple[float, str]] = []
    #: the cluster clock's reading at t = 0 (objects' timestamps are absolute)
    start: float = 0.0


_encoder = msgspec.json.Encoder(order="deterministic")


def encode_json(result: RunResult) -> bytes:
    """Deterministic JSON (sorted mapping keys)."""
    return _encoder.encode(result)
