"""kubelite: a Kubernetes control plane in one Python process, on virtual time.

The promised public API is what ``__all__`` lists here, plus ``kubelite.client``,
``kubelite.api.types``, ``kubelite.errors``, ``kubelite.controllers`` (``reconcile``),
``kubelite.informer``, ``kubelite.workqueue`` and ``kubelite.testing``; ``tests/test_public_api.py``
guards it. Names are imported on first use (PEP 562), so ``import kubelite`` stays cheap.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from kubelite import logs as _logs  # noqa: F401 - kubelite's structlog setup (structlog itself loads when needed)

if TYPE_CHECKING:
    from kubelite.client import CascadeType, Client, PatchType
    from kubelite.clock import Clock, RealClock, VirtualClock
    from kubelite.cluster import Cluster
    from kubelite.errors import (
        AlreadyExists,
        ApiError,
        BadRequest,
        Conflict,
        Expired,
        Forbidden,
        Invalid,
        NotFound,
        Status,
        TooManyRequests,
    )

_LAZY = {
    "CascadeType": "kubelite.client", "Client": "kubelite.client", "PatchType": "kubelite.client",
    "Clock": "kubelite.clock", "RealClock": "kubelite.clock", "VirtualClock": "kubelite.clock",
    "Cluster": "kubelite.cluster",
    **{name: "kubelite.errors" for name in (
        "AlreadyExists", "ApiError", "BadRequest", "Conflict", "Expired", "Forbidden", "Invalid", "NotFound",
        "Status", "TooManyRequests")},
}

__all__ = [
    "AlreadyExists",
    "ApiError",
    "BadRequest",
    "CascadeType",
    "Client",
    "Clock",
    "Cluster",
    "Conflict",
    "Expired",
    "Forbidden",
    "Invalid",
    "NotFound",
    "PatchType",
    "RealClock",
    "Status",
    "TooManyRequests",
    "VirtualClock",
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'kubelite' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
