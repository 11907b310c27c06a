"""The authorizer's view of a resource request, as upstream's ``RequestInfoFactory`` builds it.

Contract (``k8s.io/apiserver/pkg/endpoints/request/requestinfo.go``):
- A create is a POST to the collection: its attributes carry no name, whatever the body says, so a
  rule restricted by ``resourceNames`` never allows a create, and the 403 names no object
  (``pods is forbidden: User "alice" cannot create resource "pods" ...``). A create of a subresource
  (``pods/eviction``, ``pods/binding``) is a POST to the named parent and keeps its name.
- A Namespace's own URL (``/api/v1/namespaces/{name}``, and its ``status``/``finalize``) sets the
  request's namespace to that name, so RoleBindings in the namespace apply: a namespace admin may
  ``get`` its own Namespace as upstream's ``admin``/``edit``/``view`` roles allow.
- Other cluster-scoped resources have no namespace.
"""

from __future__ import annotations

from kubelite.api.resources import ResourceInfo
from kubelite.apiserver.auth.rbac import Attributes
from kubelite.apiserver.auth.user import UserInfo

__all__ = ["request_attributes"]


def request_attributes(
    user: UserInfo, verb: str, info: ResourceInfo, subresource: str, namespace: str, name: str,
) -> Attributes:
    if verb == "create" and not subresource:
        name = ""
    if not info.namespaced:
        namespace = name if (info.group, info.plural) == ("", "namespaces") else ""
    return Attributes(
        user=user, verb=verb, namespace=namespace, api_group=info.group, resource=info.plural,
        subresource=subresource, name=name,
    )
