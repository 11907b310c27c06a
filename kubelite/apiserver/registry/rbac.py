"""Strategies of the four RBAC kinds (``pkg/registry/rbac/*``).

- Writes are checked for escalation (``policybased`` storage): a user may only create or update a role
  granting permissions it holds, or a binding to a role it could bind.
- The authorizer's rule cache follows every committed write.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kubelite.api.resources import ResourceInfo
from kubelite.apiserver.auth.rbac import RBACAuthorizer
from kubelite.apiserver.registry.strategy import Strategy

if TYPE_CHECKING:
    from kubelite.apiserver.auth.user import UserInfo

__all__ = ["RBAC_KINDS", "RBACStrategy"]

RBAC_KINDS = {"roles": "Role", "clusterroles": "ClusterRole", "rolebindings": "RoleBinding",
              "clusterrolebindings": "ClusterRoleBinding"}


class RBACStrategy(Strategy):
    allow_create_on_update = True

    def __init__(self, info: ResourceInfo, rbac: RBACAuthorizer) -> None:
        super().__init__(info)
        self.rbac = rbac
        self.rbac_kind = RBAC_KINDS[info.plural]

    def authorize_write(self, user: UserInfo, obj: dict[str, Any], old: dict[str, Any] | None) -> None:
        if self.rbac_kind in ("Role", "ClusterRole"):
            self.rbac.check_role_write(user, self.rbac_kind, obj, old)
        else:
            self.rbac.check_binding_write(user, self.rbac_kind, obj, old)

    def after_write(self, obj: dict[str, Any] | None, old: dict[str, Any] | None) -> None:
        if obj is not None:
            self.rbac.upsert(self.rbac_kind, obj)
        elif old is not None:
            self.rbac.remove(self.rbac_kind, old["metadata"].get("namespace") or "", old["metadata"]["name"])
