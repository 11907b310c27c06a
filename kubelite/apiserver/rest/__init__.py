"""REST objects: what serves each endpoint (upstream's per-kind ``storage.go`` REST types).

Every REST object declares the verbs it serves and implements them as ``async def <verb>(info, request)``
(``deletecollection`` as ``delete_collection``, ``list`` as ``list_``). The main resource is served by
:class:`~kubelite.apiserver.rest.resource.ResourceREST` (the generic store with the kind's strategy);
subresources are their own objects that reuse the same store: ``status``, ``scale``, ``pods/binding``,
``pods/eviction``, ``namespaces/finalize``, and the legacy core/v1 ``bindings`` resource.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from kubelite.api.resources import ResourceInfo
from kubelite.apiserver.request import Request

__all__ = ["REST", "LazyREST", "method_name"]


class REST(Protocol):
    def verbs(self, info: ResourceInfo) -> frozenset[str]: ...


_METHODS = {"deletecollection": "delete_collection", "list": "list_"}


def method_name(verb: str) -> str:
    return _METHODS.get(verb, verb)


Handler = Callable[[ResourceInfo, Request], Awaitable[Any]]


class LazyREST:
    """A REST object built by ``factory`` on its first request, so its module loads with its first use (cold
    start: a cluster that never asks for a token imports no JWT code)."""

    def __init__(self, factory: Callable[[], REST]) -> None:
        self._factory = factory
        self._rest: REST | None = None

    def built(self) -> REST:
        if self._rest is None:
            self._rest = self._factory()
        return self._rest

    def verbs(self, info: ResourceInfo) -> frozenset[str]:
        return self.built().verbs(info)

    def __getattr__(self, name: str) -> Any:  # the verb methods (``get``, ``create``, ...) of the built object
        return getattr(self.built(), name)
