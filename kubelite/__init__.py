"""kubelite: a Kubernetes control plane in one Python process, on virtual time.

The promised public API is what ``__all__`` lists here, plus ``kubelite.client``,
``kubelite.api.types`` and ``kubelite.errors``; ``tests/test_public_api.py`` guards it.
"""

from kubelite import logs as _logs  # noqa: F401 - installs the default structlog configuration
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
