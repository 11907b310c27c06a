"""Generated msgspec Structs for events/v1 (Kubernetes 1.37). DO NOT EDIT.

Regenerate with ``python tools/gen_api.py``; see kubelite/api/types/_base.py for the
conventions (every field optional, exact JSON names, unknown fields rejected)."""

from __future__ import annotations

from functools import partial

import msgspec

from kubelite.api.types import core_v1
from kubelite.api.types import meta_v1
from kubelite.api.types._base import K8sStruct

__all__ = [
    "Event", "EventSeries"
]


class Event(K8sStruct, kw_only=True):
    """Event is a report of an event somewhere in the cluster."""

    api_version: str = msgspec.field(default_factory=partial(str, "events.k8s.io/v1"), name="apiVersion")
    kind: str = msgspec.field(default_factory=partial(str, "Event"))
    metadata: meta_v1.ObjectMeta = msgspec.field(default_factory=meta_v1.ObjectMeta)
    action: str | None = None
    deprecated_count: int | None = msgspec.field(default=None, name="deprecatedCount")
    deprecated_first_timestamp: str | None = msgspec.field(default=None, name="deprecatedFirstTimestamp")
    deprecated_last_timestamp: str | None = msgspec.field(default=None, name="deprecatedLastTimestamp")
    deprecated_source: core_v1.EventSource | None = msgspec.field(default=None, name="deprecatedSource")
    event_time: str | None = msgspec.field(default=None, name="eventTime")
    note: str | None = None
    reason: str | None = None
    regarding: core_v1.ObjectReference | None = None
    related: core_v1.ObjectReference | None = None
    reporting_controller: str | None = msgspec.field(default=None, name="reportingController")
    reporting_instance: str | None = msgspec.field(default=None, name="reportingInstance")
    series: EventSeries | None = None
    type: str | None = None


class EventSeries(K8sStruct, kw_only=True):
    """EventSeries contain information on series of events, i.e."""

    count: int | None = None
    last_observed_time: str | None = msgspec.field(default=None, name="lastObservedTime")
