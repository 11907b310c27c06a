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

__all__ = ["REST", "RESOURCE_REVIEWS", "LazyREST", "method_name"]

_AUTHN, _AUTHZ = "authentication.k8s.io", "authorization.k8s.io"
#: (group, plural) of every review resource (served by :mod:`.reviews`)
RESOURCE_REVIEWS = (
    (_AUTHN, "tokenreviews"), (_AUTHN, "selfsubjectreviews"), (_AUTHZ, "subjectaccessreviews"),
    (_AUTHZ, "selfsubjectaccessreviews"), (_AUTHZ, "localsubjectaccessreviews"),
    (_AUTHZ, "selfsubjectrulesreviews"),
)


class REST(Protocol):
    def verbs(self, info: ResourceInfo) -> frozenset[str]: ...


_METHODS = {"deletecollection": "delete_collection", "list": "list_"}


def method_name(verb: str) -> str:
    return _METHODS.get(verb, verb)


Handler = Callable[[ResourceInfo, Request], Awaitable[Any]]


class LazyREST:
    """A REST object made (and its module imported) by ``make()`` when its endpoint is first asked anything:
    the subresources a cluster's start never requests (``pods/binding``, ``pods/eviction``, ``scale``, the
    reviews, ...) cost nothing until a client does (issue #17, cold start). Every attribute is the made
    object's, so it serves exactly as that object would."""

    __slots__ = ("_make", "_rest")

    def __init__(self, make: Callable[[], Any]) -> None:
        self._make: Callable[[], Any] | None = make
        self._rest: Any = None

    def __getattr__(self, name: str) -> Any:
        rest = self._rest
        if rest is None:
            make, self._make = self._make, None
            assert make is not None
            rest = self._rest = make()
        return getattr(rest, name)
