"""Predicates filter informer events before they reach a handler (controller-runtime ``pkg/predicate``).

A predicate answers, per event kind, whether the event should be handled. Events not handled are
dropped; level-based reconcilers lose nothing by that, since the next relevant event (or a resync)
brings them back to the object.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

import msgspec

from kubelite.informer import meta_of

__all__ = [
    "AnnotationChangedPredicate",
    "Funcs",
    "GenerationChangedPredicate",
    "LabelChangedPredicate",
    "Predicate",
    "ResourceVersionChangedPredicate",
    "all_of",
    "any_of",
]


class Predicate(Protocol):
    """Filters events before they reach a handler (controller-runtime ``predicate.Predicate``); all of a watch's
    predicates must pass."""
    def create(self, obj: Any) -> bool:
        """Whether a create event passes."""

    def update(self, old: Any, new: Any) -> bool:
        """Whether an update event passes."""

    def delete(self, obj: Any) -> bool:
        """Whether a delete event passes."""


class Funcs:
    """A predicate from optional functions; a missing one lets the event through."""

    def __init__(
        self, *, create: Callable[[Any], bool] | None = None, update: Callable[[Any, Any], bool] | None = None,
        delete: Callable[[Any], bool] | None = None,
    ) -> None:
        self._create, self._update, self._delete = create, update, delete

    def create(self, obj: Any) -> bool:
        """``create_fn(obj)``, or True when not given."""
        return self._create(obj) if self._create else True

    def update(self, old: Any, new: Any) -> bool:
        """``update_fn(old, new)``, or True when not given."""
        return self._update(old, new) if self._update else True

    def delete(self, obj: Any) -> bool:
        """``delete_fn(obj)``, or True when not given."""
        return self._delete(obj) if self._delete else True


def _meta_field(obj: Any, attr: str, key: str) -> Any:
    if isinstance(obj, msgspec.Struct):
        return getattr(getattr(obj, "metadata", None), attr, None)
    return (obj.get("metadata") or {}).get(key)


class _UpdatesOnly:
    def create(self, obj: Any) -> bool:
        return True

    def delete(self, obj: Any) -> bool:
        return True


class GenerationChangedPredicate(_UpdatesOnly):
    """Skip updates that do not change ``metadata.generation`` (status-only writes)."""

    def update(self, old: Any, new: Any) -> bool:
        """Whether ``metadata.generation`` changed (status-only writes do not pass)."""
        return bool(_meta_field(old, "generation", "generation") != _meta_field(new, "generation", "generation"))


class ResourceVersionChangedPredicate(_UpdatesOnly):
    """Skip resyncs (updates whose resourceVersion did not change)."""

    def update(self, old: Any, new: Any) -> bool:
        """Whether ``metadata.resourceVersion`` changed (resyncs do not pass)."""
        return meta_of(old).resource_version != meta_of(new).resource_version


class LabelChangedPredicate(_UpdatesOnly):
    """Pass updates whose labels changed (controller-runtime ``predicate.LabelChangedPredicate``)."""
    def update(self, old: Any, new: Any) -> bool:
        """Whether the labels differ."""
        return (meta_of(old).labels or {}) != (meta_of(new).labels or {})


class AnnotationChangedPredicate(_UpdatesOnly):
    """Pass updates whose annotations changed (controller-runtime ``predicate.AnnotationChangedPredicate``)."""
    def update(self, old: Any, new: Any) -> bool:
        """Whether the annotations differ."""
        return bool(_meta_field(old, "annotations", "annotations") != _meta_field(new, "annotations", "annotations"))


class _All:
    def __init__(self, preds: tuple[Predicate, ...]) -> None:
        self.preds = preds

    def create(self, obj: Any) -> bool:
        return all(p.create(obj) for p in self.preds)

    def update(self, old: Any, new: Any) -> bool:
        return all(p.update(old, new) for p in self.preds)

    def delete(self, obj: Any) -> bool:
        return all(p.delete(obj) for p in self.preds)


class _Any(_All):
    def create(self, obj: Any) -> bool:
        return any(p.create(obj) for p in self.preds)

    def update(self, old: Any, new: Any) -> bool:
        return any(p.update(old, new) for p in self.preds)

    def delete(self, obj: Any) -> bool:
        return any(p.delete(obj) for p in self.preds)


def all_of(*preds: Predicate) -> Predicate:
    return _All(preds)


def any_of(*preds: Predicate) -> Predicate:
    return _Any(preds)
