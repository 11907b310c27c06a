"""Controller expectations (pkg/controller/controller_utils.go ``ControllerExpectations``).

A controller that creates or deletes objects records how many it expects to *observe* through its
informer before it trusts its cache again. Until the informer has delivered those events (or the
expectations expire after five minutes, upstream's ``ExpectationsTimeout``) the controller must not
act on the stale cache, or it would create duplicates. Plain sync bookkeeping on the cluster clock.
"""

from __future__ import annotations

from kubelite.clock import Clock

__all__ = ["EXPECTATIONS_TIMEOUT", "ControllerExpectations", "UIDTrackingControllerExpectations"]

EXPECTATIONS_TIMEOUT = 5 * 60.0


class _Record:
    __slots__ = ("add", "dele", "timestamp")

    def __init__(self, add: int, dele: int, timestamp: float) -> None:
        self.add = add
        self.dele = dele
        self.timestamp = timestamp


class ControllerExpectations:
    """Creations and deletions a controller expects to observe per key (kube-controller-manager
    ``ControllerExpectations``): a controller does not act on a key until its expectations are met or expire."""
    def __init__(self, *, clock: Clock) -> None:
        self.clock = clock
        self._records: dict[str, _Record] = {}

    def get(self, key: str) -> tuple[int, int] | None:
        """``key``'s expectations record, or None."""
        r = self._records.get(key)
        return (r.add, r.dele) if r is not None else None

    def satisfied(self, key: str) -> bool:
        """True when nothing is expected, the expectations are met, or they expired (SatisfiedExpectations)."""
        r = self._records.get(key)
        if r is None:
            return True  # first sync, or expectations deleted: the controller may act
        if r.add <= 0 and r.dele <= 0:
            return True
        return self.clock.now() - r.timestamp > EXPECTATIONS_TIMEOUT

    def set(self, key: str, add: int, dele: int) -> None:
        """Set ``key``'s expectations afresh (``SetExpectations``)."""
        self._records[key] = _Record(add, dele, self.clock.now())

    def expect_creations(self, key: str, n: int) -> None:
        """Expect ``n`` creations for ``key`` (``ExpectCreations``)."""
        self.set(key, n, 0)

    def expect_deletions(self, key: str, n: int) -> None:
        """Expect ``n`` deletions for ``key`` (``ExpectDeletions``)."""
        self.set(key, 0, n)

    def raise_expectations(self, key: str, add: int, dele: int) -> None:
        """Raise ``key``'s expected creations and deletions (``RaiseExpectations``)."""
        r = self._records.get(key)
        if r is not None:
            r.add += add
            r.dele += dele

    def lower_expectations(self, key: str, add: int, dele: int) -> None:
        """Lower ``key``'s expected creations and deletions (``LowerExpectations``)."""
        r = self._records.get(key)
        if r is not None:
            r.add -= add
            r.dele -= dele

    def creation_observed(self, key: str) -> None:
        """One expected creation was observed (``CreationObserved``)."""
        self.lower_expectations(key, 1, 0)

    def deletion_observed(self, key: str) -> None:
        """One expected deletion was observed (``DeletionObserved``)."""
        self.lower_expectations(key, 0, 1)

    def delete(self, key: str) -> None:
        """Forget ``key``'s expectations (``DeleteExpectations``)."""
        self._records.pop(key, None)


class UIDTrackingControllerExpectations(ControllerExpectations):
    """Also tracks *which* pods are expected to go, so a deletion is counted once even if it is seen
    twice (once as an update with deletionTimestamp, once as the delete)."""

    def __init__(self, *, clock: Clock) -> None:
        super().__init__(clock=clock)
        self._uids: dict[str, set[str]] = {}

    def expect_deletions_of(self, key: str, uids: list[str]) -> None:
        """Expect the deletion of exactly these uids for ``key`` (``ExpectDeletions`` with uids)."""
        self._uids[key] = set(uids)
        self.expect_deletions(key, len(uids))

    def deletion_observed_uid(self, key: str, uid: str) -> None:
        """The deletion of the object with ``uid`` was observed (counted once per uid)."""
        pending = self._uids.get(key)
        if pending is not None and uid in pending:
            pending.discard(uid)
            self.deletion_observed(key)

    def delete(self, key: str) -> None:
        """Forget ``key``'s expectations and the uids tracked for it."""
        super().delete(key)
        self._uids.pop(key, None)
