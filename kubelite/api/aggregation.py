"""An aggregated API: a group/version another API server serves behind kube-apiserver (kube-aggregator's
``APIService`` with ``spec.service``), as metrics-server serves ``metrics.k8s.io``.

The contract between kube-apiserver and the backend, in-process: kube-apiserver authenticates and
authorizes every request (its handler chain runs ``WithAuthorization`` before the aggregator's proxy), then
hands the backend a read with the namespace, name and selectors already parsed from the URL. The backend
answers from its own memory; it never sees the store. A backend raises :class:`~kubelite.errors.ApiError`
(``NotFound``, ``BadRequest``) for requests it cannot answer, as an aggregated server answers with a
``Status``. Only reads (``get``, ``list``) are delegated: what metrics-server serves.
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from typing import Any, Protocol

from kubelite.api.resources import ResourceInfo

__all__ = ["APIBackend"]


class APIBackend(Protocol):
    """What an aggregated API server offers kube-apiserver."""

    group: str
    version: str

    def resources(self) -> Sequence[ResourceInfo]:
        """The resources it serves (their discovery records; ``verbs`` says which reads)."""
        ...

    def get(self, info: ResourceInfo, namespace: str, name: str) -> dict[str, Any]:
        """One object, or ``NotFound``."""
        ...

    def list(self, info: ResourceInfo, namespace: str, label_selector: str | None,
             field_selector: str | None) -> list[dict[str, Any]]:
        """Every object in ``namespace`` ("": all namespaces) matching the selectors (``BadRequest`` when a
        selector does not parse)."""
        ...

    def table(self, info: ResourceInfo, objects: builtins.list[dict[str, Any]]) -> dict[str, Any]:
        """The objects as a ``meta.k8s.io/v1`` Table (what ``kubectl get`` asks for)."""
        ...
