"""Per-owner pod counts kept up to date by the ReplicaSet controller's pod event handler.

Why: upstream recounts every pod of a ReplicaSet on every sync, and a ReplicaSet syncs on every event of any of
its pods, which is quadratic (10,000 replicas: ~10^8 pod visits). The tracker holds, for each controller uid,
the pods the handler has seen with a few flags (active, selector match, template-label match, ready) and their
counts, so a sync that does not act on replica counts reads its status in O(1).

Contract:
- Fed only by the handler (:meth:`observe`, :meth:`forget`), in event order; it is the handler's view of the
  informer cache, never ahead of it, so it agrees with the expectations the same handler lowers.
- Flags depend on the owner's selector and template labels (the *context*); :meth:`counts` rebuilds them when
  the context changed since they were computed.
- :meth:`clear` forgets everything (the controller restarted and the informer replays its cache as adds).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kubelite.api.labels import Selector
from kubelite.api.types import Pod
from kubelite.controllers.controller_ref_manager import controller_ref
from kubelite.controllers.podutil import is_pod_active, is_pod_ready

__all__ = ["Counts", "PodTracker"]

ACTIVE, SEL, TMPL, READY = 1, 2, 4, 8
CLAIMED = ACTIVE | SEL


class Counts:
    __slots__ = ("claimed", "fully", "mismatched", "ready")

    def __init__(self) -> None:
        self.claimed = self.fully = self.ready = self.mismatched = 0

    def add(self, flags: int, sign: int) -> None:
        if flags & CLAIMED == CLAIMED:
            self.claimed += sign
            if flags & TMPL:
                self.fully += sign
            if flags & READY:
                self.ready += sign
        elif flags & ACTIVE:
            self.mismatched += sign  # owned and active but the selector no longer matches: needs a release


class _Owned:
    __slots__ = ("context", "counts", "pods")

    def __init__(self) -> None:
        self.pods: dict[str, tuple[Pod, int]] = {}
        self.context: tuple[Selector, Mapping[str, str] | None] | None = None
        self.counts = Counts()


def _flags(pod: Pod, context: tuple[Selector, Mapping[str, str] | None] | None) -> int:
    f = 0
    if is_pod_active(pod):
        f |= ACTIVE
    if is_pod_ready(pod):
        f |= READY
    if context is not None:
        labels = pod.metadata.labels if pod.metadata is not None else None
        if context[0].matches(labels):
            f |= SEL
        tmpl = context[1]
        if not tmpl or (labels is not None and all(labels.get(k) == v for k, v in tmpl.items())):
            f |= TMPL
    return f


def _key(pod: Pod) -> str:
    m = pod.metadata
    assert m is not None
    return f"{m.namespace}/{m.name}"


class PodTracker:
    def __init__(self) -> None:
        self._owners: dict[str, _Owned] = {}

    def clear(self) -> None:
        self._owners.clear()

    def observe(self, pod: Pod) -> None:
        """The pod's latest state (from an add or update). When its controllerRef changed, :meth:`forget` the
        old version first."""
        key = _key(pod)
        ref = controller_ref(pod)
        uid = (ref.uid or "") if ref is not None else ""
        if not uid:
            return
        owned = self._owners.get(uid)
        if owned is None:
            owned = self._owners[uid] = _Owned()
        self._remove(owned, key)
        f = _flags(pod, owned.context)
        owned.pods[key] = (pod, f)
        owned.counts.add(f, 1)

    def forget(self, pod: Pod) -> None:
        ref = controller_ref(pod)
        uid = (ref.uid or "") if ref is not None else ""
        owned = self._owners.get(uid)
        if owned is not None:
            self._remove(owned, _key(pod))
            if not owned.pods:  # nothing left to count: an owner that is gone (a finished Job) costs nothing
                del self._owners[uid]

    @staticmethod
    def _remove(owned: _Owned, key: str) -> None:
        old = owned.pods.pop(key, None)
        if old is not None:
            owned.counts.add(old[1], -1)

    def counts(self, uid: str, selector: Selector, template_labels: Mapping[str, str] | None) -> Counts:
        """The owner's counts under this selector and template labels (recomputed if they changed)."""
        owned = self._owners.get(uid)
        if owned is None:
            owned = self._owners[uid] = _Owned()
        ctx = (selector, template_labels)
        if owned.context != ctx:
            owned.context = ctx
            owned.counts = Counts()
            for k, (pod, _) in list(owned.pods.items()):
                f = _flags(pod, ctx)
                owned.pods[k] = (pod, f)
                owned.counts.add(f, 1)
        return owned.counts

    def claimed_pods(self, uid: str) -> list[Any]:
        owned = self._owners.get(uid)
        if owned is None:
            return []
        return [p for p, f in owned.pods.values() if f & CLAIMED == CLAIMED]

    def forget_owner(self, uid: str) -> None:
        self._owners.pop(uid, None)
