"""Whether a CRD schema carries ``x-kubernetes-validations`` rules: a pure walk with no CEL, so the
apiserver can decide per schema whether CEL (cel-python and its lark grammar, ~0.4 s to load) is needed at
all. The rules themselves are evaluated by :mod:`kubelite.apiserver.crd.cel`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["has_rules"]


def has_rules(raw: Mapping[str, Any]) -> bool:
    """Whether a schema has any ``x-kubernetes-validations`` (so validation can skip the walk)."""
    if raw.get("x-kubernetes-validations"):
        return True
    for key in ("properties",):
        for child in (raw.get(key) or {}).values():
            if isinstance(child, Mapping) and has_rules(child):
                return True
    for key in ("items", "additionalProperties"):
        child = raw.get(key)
        if isinstance(child, Mapping) and has_rules(child):
            return True
    return False
