"""Status conditions (``metav1.Condition`` lists): apimachinery's ``pkg/api/meta/conditions.go``.

A conditions list is edited in place. Conditions may be typed (:class:`kubelite.api.types.Condition`) or
dicts (custom resources); one list holds one shape. Semantics, as upstream:

- :func:`set_status_condition` adds a condition whose ``type`` is absent, stamping
  ``lastTransitionTime`` (``now`` unless the new condition carries one). For a present ``type`` it
  copies ``status``, ``reason``, ``message`` and ``observedGeneration``, and changes
  ``lastTransitionTime`` **only when the status changes**. Returns whether anything changed.
- :func:`remove_status_condition` removes a ``type``; :func:`find_status_condition` returns it or None.
- :func:`is_status_condition_true` / ``_false`` / ``_present_and_equal`` ask about a ``type``'s status;
  an absent ``type`` is neither true nor false.

``now`` is a timestamp string (``cluster.clock.timestamp()``, RFC 3339 seconds) or anything with a
``timestamp()`` method (a kubelite clock): there is no ambient time in kubelite.
"""

from __future__ import annotations

from typing import Any, Protocol

__all__ = [
    "CONDITION_FALSE",
    "CONDITION_TRUE",
    "CONDITION_UNKNOWN",
    "find_status_condition",
    "is_status_condition_false",
    "is_status_condition_present_and_equal",
    "is_status_condition_true",
    "remove_status_condition",
    "set_status_condition",
]

CONDITION_TRUE, CONDITION_FALSE, CONDITION_UNKNOWN = "True", "False", "Unknown"

# dict key -> Struct attribute
_FIELDS = {"type": "type", "status": "status", "reason": "reason", "message": "message",
           "observedGeneration": "observed_generation", "lastTransitionTime": "last_transition_time"}


class _HasTimestamp(Protocol):
    def timestamp(self) -> str: ...


def _get(cond: Any, key: str) -> Any:
    return cond.get(key) if isinstance(cond, dict) else getattr(cond, _FIELDS[key])


def _set(cond: Any, key: str, value: Any) -> None:
    if isinstance(cond, dict):
        cond[key] = value
    else:
        setattr(cond, _FIELDS[key], value)


def _stamp(now: str | _HasTimestamp) -> str:
    return now if isinstance(now, str) else now.timestamp()


def find_status_condition(conditions: list[Any] | None, condition_type: str) -> Any | None:
    """The condition of ``condition_type`` in ``conditions`` (the list's own element), or None."""
    for c in conditions or ():
        if _get(c, "type") == condition_type:
            return c
    return None


def set_status_condition(conditions: list[Any], new: Any, *, now: str | _HasTimestamp) -> bool:
    """Set ``new`` in ``conditions`` (see the module docstring); True if the list changed."""
    existing = find_status_condition(conditions, _get(new, "type"))
    if existing is None:
        if not _get(new, "lastTransitionTime"):
            new = dict(new) if isinstance(new, dict) else new
            _set(new, "lastTransitionTime", _stamp(now))
        conditions.append(new)
        return True
    changed = False
    if _get(existing, "status") != _get(new, "status"):
        _set(existing, "status", _get(new, "status"))
        _set(existing, "lastTransitionTime", _get(new, "lastTransitionTime") or _stamp(now))
        changed = True
    for key in ("reason", "message", "observedGeneration"):
        if _get(existing, key) != _get(new, key):
            _set(existing, key, _get(new, key))
            changed = True
    return changed


def remove_status_condition(conditions: list[Any], condition_type: str) -> bool:
    """Remove ``condition_type`` from ``conditions``; True if it was there."""
    for i, c in enumerate(conditions):
        if _get(c, "type") == condition_type:
            del conditions[i]
            return True
    return False


def is_status_condition_present_and_equal(conditions: list[Any] | None, condition_type: str, status: str) -> bool:
    """Whether ``condition_type`` is present with ``status``."""
    c = find_status_condition(conditions, condition_type)
    return c is not None and _get(c, "status") == status


def is_status_condition_true(conditions: list[Any] | None, condition_type: str) -> bool:
    """Whether ``condition_type`` is present with status ``"True"``."""
    return is_status_condition_present_and_equal(conditions, condition_type, CONDITION_TRUE)


def is_status_condition_false(conditions: list[Any] | None, condition_type: str) -> bool:
    """Whether ``condition_type`` is present with status ``"False"``."""
    return is_status_condition_present_and_equal(conditions, condition_type, CONDITION_FALSE)
