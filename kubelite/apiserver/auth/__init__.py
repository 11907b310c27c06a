"""Authentication and authorization for the apiserver pipeline.

Request flow (upstream ``k8s.io/apiserver`` filters): :class:`TokenAuthenticator` turns the bearer
token into a :class:`UserInfo` (401 ``Unauthorized`` for an unknown token), then
:class:`RBACAuthorizer` decides on the request's :class:`Attributes`; a denial becomes the 403 built
by :func:`forbidden`. Writes of Roles/ClusterRoles/bindings additionally pass the escalation checks
(:meth:`RBACAuthorizer.check_role_write`, :meth:`RBACAuthorizer.check_binding_write`), and the
apiserver keeps the authorizer's view current with ``upsert``/``remove``. :func:`bootstrap_objects`
is the default policy the cluster creates at start.
"""

from kubelite.apiserver.auth.authn import TokenAuthenticator
from kubelite.apiserver.auth.bootstrap import bootstrap_objects
from kubelite.apiserver.auth.rbac import Attributes, RBACAuthorizer, forbidden
from kubelite.apiserver.auth.user import (
    ADMIN,
    ANONYMOUS,
    UserInfo,
    node_user,
    service_account_user,
)

__all__ = [
    "ADMIN",
    "ANONYMOUS",
    "Attributes",
    "RBACAuthorizer",
    "TokenAuthenticator",
    "UserInfo",
    "bootstrap_objects",
    "forbidden",
    "node_user",
    "service_account_user",
]
