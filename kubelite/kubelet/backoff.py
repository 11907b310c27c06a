"""Per-key exponential backoff, as client-go ``util/flowcontrol/backoff.go`` (``Backoff``) does it.

The kubelet keeps two: container restarts (CrashLoopBackOff) and image pulls (ImagePullBackOff), both
``NewBackOff(10s, 300s)`` (``pkg/kubelet/kubelet.go``: ``backOffPeriod``, ``MaxContainerBackOff``).

Contract (pure, no clock of its own: every call passes the time):
- :meth:`Backoff.next` records an event for ``key`` at ``now``: the first event (or the first after
  the entry went stale, i.e. more than ``2 * max_delay`` since its last update) sets the delay to
  ``initial``; every later one doubles it, capped at ``max_delay``.
- :meth:`Backoff.in_backoff_since` says whether ``now`` is still within the current delay measured
  from ``since`` (upstream ``IsInBackOffSince``: the kubelet passes the container's finishedAt, and the
  entry's staleness is judged at ``since`` too);
  :meth:`Backoff.in_backoff_since_update` measures from the last event (``IsInBackOffSinceUpdate``:
  the image manager's pull backoff).
- Entries are small; :meth:`gc` drops stale ones, :meth:`forget` one key (pod removed).
"""

from __future__ import annotations

from collections.abc import Hashable

__all__ = ["IMAGE_BACKOFF", "INITIAL_BACKOFF", "MAX_BACKOFF", "Backoff"]

#: ``backOffPeriod`` and ``MaxContainerBackOff`` in pkg/kubelet/kubelet.go.
INITIAL_BACKOFF = 10.0
MAX_BACKOFF = 300.0
IMAGE_BACKOFF = (INITIAL_BACKOFF, MAX_BACKOFF)


class Backoff:
    """See the module docstring. ``entries`` maps key -> ``[delay, last_update]``."""

    __slots__ = ("entries", "initial", "max_delay")

    def __init__(self, initial: float = INITIAL_BACKOFF, max_delay: float = MAX_BACKOFF) -> None:
        self.initial = initial
        self.max_delay = max_delay
        self.entries: dict[Hashable, list[float]] = {}

    def _expired(self, now: float, last_update: float) -> bool:
        # upstream hasExpired: "consider stable if it's ok for twice the maxDuration"
        return now - last_update > 2 * self.max_delay

    def get(self, key: Hashable) -> float:
        """The current delay for ``key`` (0 when there is none)."""
        e = self.entries.get(key)
        return e[0] if e is not None else 0.0

    def next(self, key: Hashable, now: float, event_time: float | None = None) -> float:
        """Record an event at ``now``; returns the new delay. Staleness is judged at ``event_time``
        (default ``now``): the kubelet passes the container's finishedAt, so a container that ran for
        more than ``2 * max_delay`` starts again from ``initial``."""
        e = self.entries.get(key)
        if e is None or self._expired(now if event_time is None else event_time, e[1]):
            e = self.entries[key] = [self.initial, now]
        else:
            e[0] = min(e[0] * 2, self.max_delay)
            e[1] = now
        return e[0]

    def in_backoff_since(self, key: Hashable, since: float, now: float) -> bool:
        """Upstream ``IsInBackOffSince(id, eventTime)``: staleness is judged at ``since`` (the container's
        finishedAt), not at ``now``, so an entry does not go stale while the container waits out its delay."""
        e = self.entries.get(key)
        if e is None or self._expired(since, e[1]):
            return False
        return now - since < e[0]

    def in_backoff_since_update(self, key: Hashable, now: float) -> bool:
        """Upstream ``IsInBackOffSinceUpdate``: ``now`` is within the delay measured from the last event
        (the image manager's pull backoff)."""
        e = self.entries.get(key)
        if e is None or self._expired(now, e[1]):
            return False
        return now - e[1] < e[0]

    def expires(self, key: Hashable) -> float:
        """When the current delay measured from the last event ends (0 when there is no entry)."""
        e = self.entries.get(key)
        return e[1] + e[0] if e is not None else 0.0

    def remaining(self, key: Hashable, since: float, now: float) -> float:
        """Seconds until ``in_backoff_since(key, since, ·)`` turns False (0 if it already is)."""
        if not self.in_backoff_since(key, since, now):
            return 0.0
        return since + self.entries[key][0] - now

    def forget(self, key: Hashable) -> None:
        self.entries.pop(key, None)

    def gc(self, now: float) -> None:
        stale = [k for k, e in self.entries.items() if self._expired(now, e[1])]
        for k in stale:
            del self.entries[k]
