"""The promised public API stays importable and does not shrink by accident."""

from __future__ import annotations

import importlib

import pytest

PROMISED = {
    "kubelite": {"Cluster", "Client", "ApiError", "NotFound", "Conflict", "Expired", "Invalid", "Forbidden",
                 "BadRequest", "AlreadyExists", "TooManyRequests", "Status", "VirtualClock", "RealClock", "Clock",
                 "PatchType", "CascadeType"},
    "kubelite.client": {"Client", "PatchType", "CascadeType", "ObjectList", "WatchStream"},
    "kubelite.errors": {"ApiError", "FieldError", "invalid", "Status", "StatusCause", "StatusDetails"},
}


@pytest.mark.parametrize("module", sorted(PROMISED), ids=sorted(PROMISED))
def test_public_names(module: str) -> None:
    mod = importlib.import_module(module)
    exported = set(mod.__all__)
    assert PROMISED[module] <= exported
    for name in exported:
        assert hasattr(mod, name), f"{module}.{name} is in __all__ but missing"
