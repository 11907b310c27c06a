"""Serving a built-in kind in several versions: one storage version, converted to and from each served one.

This is upstream's ``runtime.Scheme`` with its conversion functions, as the request handlers use it
(``k8s.io/apiserver/pkg/endpoints/handlers``): a request addresses one version; its body is decoded in that
version (types and unknown fields of that version's schema) and converted to the storage version before
defaulting, admission, validation and the store, which only ever see the storage version; every object the
request returns (the written object, a GET, each LIST item, each WATCH event) is converted to the request's
version on the way out.

Contract:
- A :class:`Scheme` holds, per ``(group, kind)``, the versions it converts besides the storage version, each
  as a pair of pure functions on JSON data (``to_storage``, ``from_storage``), and optionally a storage
  normaliser (what the storage version's own conversion through the internal type does: HPA v2 drops the
  v1 round-trip annotations).
- Conversion never mutates its argument. A body a conversion function cannot convert is a 400 BadRequest,
  as upstream's decoder reports it (``... cannot be handled as a ...``).
- Custom resources are not converted here (their conversion strategy is ``None``; see ``crds.py``).
- :func:`builtin_scheme` is what kube-apiserver registers: ``autoscaling/v1`` HorizontalPodAutoscaler
  (``pkg/apis/autoscaling/v1/conversion.go``), stored as ``autoscaling/v2``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

from kubelite.api.resources import ResourceInfo
from kubelite.errors import BadRequest
from kubelite.store import WatchEvent
from kubelite.store.watch import BOOKMARK, ERROR

__all__ = ["Scheme", "builtin_scheme"]

Convert = Callable[[dict[str, Any]], dict[str, Any]]

_encode = msgspec.json.Encoder().encode
_decode = msgspec.json.Decoder().decode


class Scheme:
    def __init__(self) -> None:
        # (group, kind, version) -> (to storage, from storage)
        self._pairs: dict[tuple[str, str, str], tuple[Convert, Convert]] = {}
        # (group, kind) -> the storage version's normaliser
        self._hub: dict[tuple[str, str], Convert] = {}

    def add(self, group: str, kind: str, version: str, *, to_storage: Convert, from_storage: Convert) -> None:
        self._pairs[(group, kind, version)] = (to_storage, from_storage)

    def add_storage_normalizer(self, group: str, kind: str, fn: Convert) -> None:
        self._hub[(group, kind)] = fn

    def normalizes(self, info: ResourceInfo) -> bool:
        """Whether the storage version of ``info`` has a normaliser (run on every decoded body)."""
        return (info.group, info.kind) in self._hub

    def converts(self, info: ResourceInfo, version: str) -> bool:
        """Whether objects of ``info`` are converted for ``version`` (a served non-storage version)."""
        return (info.group, info.kind, version) in self._pairs

    # --- in: a decoded body -> the storage version ---
    def to_storage(self, info: ResourceInfo, obj: dict[str, Any], version: str) -> dict[str, Any]:
        """``obj`` (of ``version``) as the storage version stores it."""
        storage = info.storage
        if version != storage:
            to, _ = self._pairs[(info.group, info.kind, version)]
            try:
                obj = to(obj)
            except ValueError as e:
                raise BadRequest.make(
                    f'{info.kind} in version "{version}" cannot be handled as a {info.kind}: {e}'
                ) from None
        hub = self._hub.get((info.group, info.kind))
        if hub is not None:
            obj = hub(obj)
        obj["apiVersion"] = f"{info.group}/{storage}" if info.group else storage
        return obj

    # --- out: stored objects -> the request's version ---
    def from_storage(self, info: ResourceInfo, obj: dict[str, Any], version: str) -> dict[str, Any]:
        """A stored object (storage version) as ``version`` serves it."""
        if version == info.storage:
            return obj
        _, out = self._pairs[(info.group, info.kind, version)]
        return out(obj)

    def encode_for(self, info: ResourceInfo, data: bytes, version: str) -> bytes:
        """Encoded object bytes of the storage version converted to ``version``; anything that is not an
        object of the kind (a Status, a Table) passes unchanged."""
        obj = _decode(data)
        if not isinstance(obj, dict) or obj.get("kind") != info.kind:
            return data
        return _encode(self.from_storage(info, obj, version))

    def event_for(self, info: ResourceInfo, ev: WatchEvent, version: str) -> WatchEvent:
        """A watch event in ``version``: a BOOKMARK only changes its apiVersion, an ERROR is a Status."""
        if ev.type == ERROR:
            return ev
        if ev.type == BOOKMARK:
            obj = _decode(ev.data)
            obj["apiVersion"] = f"{info.group}/{version}" if info.group else version
            return WatchEvent(ev.type, ev.rv, _encode(obj))
        return WatchEvent(ev.type, ev.rv, self.encode_for(info, ev.data, version))


def _autoscaling_v1(name: str) -> Convert:
    """``registry.autoscaling_v1.<name>``, its module imported with the first HorizontalPodAutoscaler it
    converts (a cluster without one never loads it; issue #17, cold start)."""

    def convert(obj: dict[str, Any]) -> dict[str, Any]:
        from kubelite.apiserver.registry import autoscaling_v1

        out: dict[str, Any] = getattr(autoscaling_v1, name)(obj)
        return out

    return convert


def builtin_scheme() -> Scheme:
    """The conversions kube-apiserver registers for the built-in kinds kubelite serves in several versions."""
    scheme = Scheme()
    scheme.add("autoscaling", "HorizontalPodAutoscaler", "v1",
               to_storage=_autoscaling_v1("from_v1"), from_storage=_autoscaling_v1("to_v1"))
    scheme.add_storage_normalizer("autoscaling", "HorizontalPodAutoscaler", _autoscaling_v1("hub"))
    return scheme
