"""The default RBAC policy a cluster starts with: upstream's
``plugin/pkg/auth/authorizer/rbac/bootstrappolicy`` (``policy.go`` ClusterRoles/ClusterRoleBindings
and ``controller_policy.go`` ControllerRoles/ControllerRoleBindings).

Contract:
- :func:`bootstrap_objects` returns fresh, fully formed ``rbac.authorization.k8s.io/v1`` objects
  (ClusterRoles first, then ClusterRoleBindings, each in upstream's order) that the cluster creates
  at start. The output is deterministic: same list, same order, same dicts on every call.
- Every object carries the label ``kubernetes.io/bootstrapping: rbac-defaults`` and the annotation
  ``rbac.authorization.kubernetes.io/autoupdate: "true"``, as upstream's ``addDefaultMetadata``.
- ``admin``, ``edit`` and ``view`` keep their ``aggregationRule`` and also carry the rules the
  clusterrole-aggregation controller would write into them, resolved here statically.

Simplifications (kubelite has no Node authorizer, no kubelet API, no storage controllers): only the roles that matter to kubelite's components are included, and
``system:node`` stays bound to the ``system:nodes`` group (upstream left that binding without
subjects once the Node authorizer took over in 1.8).
"""

from __future__ import annotations

from typing import Any

from kubelite.apiserver.auth.rbac import RBAC_GROUP, RBACAuthorizer
from kubelite.apiserver.auth.user import (
    ALL_AUTHENTICATED,
    ALL_SERVICE_ACCOUNTS,
    ALL_UNAUTHENTICATED,
    KUBE_CONTROLLER_MANAGER,
    KUBE_PROXY,
    KUBE_SCHEDULER,
    NODES_GROUP,
    SYSTEM_PRIVILEGED_GROUP,
)

__all__ = ["AUTOUPDATE_ANNOTATION", "BOOTSTRAP_LABELS", "bootstrap_objects"]

BOOTSTRAP_LABELS = {"kubernetes.io/bootstrapping": "rbac-defaults"}
AUTOUPDATE_ANNOTATION = "rbac.authorization.kubernetes.io/autoupdate"
_API_VERSION = f"{RBAC_GROUP}/v1"
_SA_ROLE_PREFIX = "system:controller:"

READ = ("get", "list", "watch")
WRITE = ("create", "update", "patch", "delete", "deletecollection")
READ_WRITE = READ + WRITE
READ_UPDATE = ("get", "list", "watch", "update", "patch")

_LEGACY, _APPS, _AUTHN, _AUTHZ = "", "apps", "authentication.k8s.io", "authorization.k8s.io"
_AUTOSCALING, _BATCH, _COORD, _DISCOVERY = "autoscaling", "batch", "coordination.k8s.io", "discovery.k8s.io"
_EXT, _POLICY, _STORAGE, _NET, _EVENTS = "extensions", "policy", "storage.k8s.io", "networking.k8s.io", "events.k8s.io"
_CERTIFICATES = "certificates.k8s.io"

_RES_METRICS, _CUSTOM_METRICS, _EXTERNAL_METRICS = "metrics.k8s.io", "custom.metrics.k8s.io", "external.metrics.k8s.io"

_AGG_ADMIN = "rbac.authorization.k8s.io/aggregate-to-admin"
_AGG_EDIT = "rbac.authorization.k8s.io/aggregate-to-edit"
_AGG_VIEW = "rbac.authorization.k8s.io/aggregate-to-view"


def _rule(verbs: tuple[str, ...] | str, groups: tuple[str, ...] | str, *resources: str,
          names: tuple[str, ...] = ()) -> dict[str, Any]:
    """``rbacv1helpers.NewRule(verbs...).Groups(...).Resources(...).Names(...)``."""
    rule: dict[str, Any] = {
        "verbs": [verbs] if isinstance(verbs, str) else list(verbs),
        "apiGroups": [groups] if isinstance(groups, str) else list(groups),
        "resources": list(resources),
    }
    if names:
        rule["resourceNames"] = list(names)
    return rule


def _urls(verbs: str, *urls: str) -> dict[str, Any]:
    return {"verbs": [verbs], "nonResourceURLs": list(urls)}


def _events_rule() -> dict[str, Any]:
    return _rule(("create", "update", "patch"), (_LEGACY, _EVENTS), "events")


def _node_rules() -> list[dict[str, Any]]:
    """``NodeRules`` (feature-gated rules for features kubelite lacks left out)."""
    return [
        _rule("create", _AUTHN, "tokenreviews"),
        _rule("create", _AUTHZ, "subjectaccessreviews", "localsubjectaccessreviews"),
        _rule(READ, _LEGACY, "services"),
        _rule(("create", "get", "list", "watch"), _LEGACY, "nodes"),
        _rule(("update", "patch"), _LEGACY, "nodes/status"),
        _rule(("update", "patch"), _LEGACY, "nodes"),
        _rule(("create", "update", "patch"), _LEGACY, "events"),
        _rule(READ, _LEGACY, "pods"),
        _rule(("create", "delete"), _LEGACY, "pods"),
        _rule(("update", "patch"), _LEGACY, "pods/status"),
        _rule("create", _LEGACY, "pods/eviction"),
        _rule(READ, _LEGACY, "secrets", "configmaps"),
        _rule("get", _LEGACY, "persistentvolumeclaims", "persistentvolumes"),
        # The Node authorizer lets a kubelet read the claims of its own pods; kubelite's node pools share one
        # claims informer, so the RBAC approximation grants list and watch (still no writes).
        _rule(("list", "watch"), _LEGACY, "persistentvolumeclaims"),
        _rule("get", _LEGACY, "endpoints"),
        _rule(("get", "create", "update", "patch", "delete"), _COORD, "leases"),
        _rule("create", _LEGACY, "serviceaccounts/token"),
        _rule(("get", "watch", "list"), _STORAGE, "csidrivers"),
        _rule(("get", "create", "update", "patch", "delete"), _STORAGE, "csinodes"),
        _rule(READ, "node.k8s.io", "runtimeclasses"),
    ]


def _cluster_roles() -> list[tuple[str, dict[str, str], list[dict[str, Any]], str | None]]:
    """(name, extra labels, rules, aggregate-from label) in upstream's ``ClusterRoles()`` order."""
    return [
        ("cluster-admin", {}, [_rule("*", "*", "*"), _urls("*", "*")], None),
        ("system:discovery", {}, [_urls("get", "/livez", "/readyz", "/healthz", "/version", "/version/",
                                        "/openapi", "/openapi/*", "/api", "/api/*", "/apis", "/apis/*")], None),
        ("system:monitoring", {}, [_urls("get", "/metrics", "/livez", "/readyz", "/healthz",
                                         "/livez/*", "/readyz/*", "/healthz/*")], None),
        ("system:basic-user", {}, [
            _rule("create", _AUTHZ, "selfsubjectaccessreviews", "selfsubjectrulesreviews"),
            _rule("create", _AUTHN, "selfsubjectreviews"),
        ], None),
        ("system:public-info-viewer", {}, [_urls("get", "/livez", "/readyz", "/healthz", "/version",
                                                 "/version/")], None),
        ("admin", {}, [], _AGG_ADMIN),
        ("edit", {_AGG_ADMIN: "true"}, [], _AGG_EDIT),
        ("view", {_AGG_EDIT: "true"}, [], _AGG_VIEW),
        ("system:aggregate-to-admin", {_AGG_ADMIN: "true"}, [
            _rule("create", _AUTHZ, "localsubjectaccessreviews"),
            _rule(READ_WRITE, RBAC_GROUP, "roles", "rolebindings"),
        ], None),
        ("system:aggregate-to-edit", {_AGG_EDIT: "true"}, [
            _rule(READ, _LEGACY, "pods/attach", "pods/proxy", "pods/exec", "pods/portforward", "secrets",
                  "services/proxy"),
            _rule("impersonate", _LEGACY, "serviceaccounts"),
            _rule(WRITE, _LEGACY, "pods", "pods/attach", "pods/proxy", "pods/exec", "pods/portforward"),
            _rule("create", _LEGACY, "pods/eviction"),
            _rule(WRITE, _LEGACY, "replicationcontrollers", "replicationcontrollers/scale", "serviceaccounts",
                  "services", "services/proxy", "persistentvolumeclaims", "configmaps", "secrets"),
            _rule("create", _LEGACY, "serviceaccounts/token"),
            _rule(WRITE, _APPS, "statefulsets", "statefulsets/scale", "daemonsets", "deployments",
                  "deployments/scale", "deployments/rollback", "replicasets", "replicasets/scale"),
            _rule(WRITE, _AUTOSCALING, "horizontalpodautoscalers"),
            _rule(WRITE, _BATCH, "jobs", "cronjobs"),
            _rule(WRITE, _EXT, "daemonsets", "deployments", "deployments/scale", "deployments/rollback",
                  "ingresses", "replicasets", "replicasets/scale", "replicationcontrollers/scale",
                  "networkpolicies"),
            _rule(WRITE, _POLICY, "poddisruptionbudgets"),
            _rule(WRITE, _NET, "networkpolicies", "ingresses"),
        ], None),
        ("system:aggregate-to-view", {_AGG_VIEW: "true"}, [
            _rule(READ, _LEGACY, "pods", "replicationcontrollers", "replicationcontrollers/scale",
                  "serviceaccounts", "services", "services/status", "endpoints", "persistentvolumeclaims",
                  "persistentvolumeclaims/status", "configmaps"),
            _rule(READ, _LEGACY, "limitranges", "resourcequotas", "bindings", "events", "pods/status",
                  "resourcequotas/status", "namespaces/status", "replicationcontrollers/status", "pods/log"),
            _rule(READ, _LEGACY, "namespaces"),
            _rule(READ, _DISCOVERY, "endpointslices"),
            _rule(READ, _APPS, "controllerrevisions", "statefulsets", "statefulsets/status",
                  "statefulsets/scale", "daemonsets", "daemonsets/status", "deployments", "deployments/status",
                  "deployments/scale", "replicasets", "replicasets/status", "replicasets/scale"),
            _rule(READ, _AUTOSCALING, "horizontalpodautoscalers", "horizontalpodautoscalers/status"),
            _rule(READ, _BATCH, "jobs", "cronjobs", "cronjobs/status", "jobs/status"),
            _rule(READ, _EXT, "daemonsets", "daemonsets/status", "deployments", "deployments/scale",
                  "deployments/status", "ingresses", "ingresses/status", "replicasets", "replicasets/scale",
                  "replicasets/status", "replicationcontrollers/scale", "networkpolicies"),
            _rule(READ, _POLICY, "poddisruptionbudgets", "poddisruptionbudgets/status"),
            _rule(READ, _NET, "networkpolicies", "ingresses", "ingresses/status"),
        ], None),
        ("system:node", {}, _node_rules(), None),
        ("system:auth-delegator", {}, [
            _rule("create", _AUTHN, "tokenreviews"),
            _rule("create", _AUTHZ, "subjectaccessreviews"),
        ], None),
        ("system:kube-controller-manager", {}, [
            _events_rule(),
            _rule("create", _COORD, "leases"),
            _rule(("get", "update"), _COORD, "leases", names=("kube-controller-manager",)),
            _rule("create", _LEGACY, "secrets", "serviceaccounts"),
            _rule("delete", _LEGACY, "secrets"),
            _rule("get", _LEGACY, "namespaces", "secrets", "serviceaccounts", "configmaps"),
            _rule("update", _LEGACY, "secrets", "serviceaccounts"),
            _rule("create", _AUTHN, "tokenreviews"),
            _rule("create", _AUTHZ, "subjectaccessreviews"),
            _rule(("list", "watch"), "*", "*"),
            _rule("create", _LEGACY, "serviceaccounts/token"),
        ], None),
        ("system:kube-dns", {}, [_rule(("list", "watch"), _LEGACY, "endpoints", "services")], None),
        ("system:volume-scheduler", {}, [
            _rule(READ_UPDATE, _LEGACY, "persistentvolumes"),
            _rule(READ, _STORAGE, "storageclasses"),
            _rule(READ_UPDATE, _LEGACY, "persistentvolumeclaims"),
        ], None),
        ("system:service-account-issuer-discovery", {}, [
            _urls("get", "/.well-known/openid-configuration", "/.well-known/openid-configuration/",
                  "/openid/v1/jwks", "/openid/v1/jwks/"),
        ], None),
        ("system:node-proxier", {}, [
            _rule(("list", "watch"), _LEGACY, "services", "endpoints"),
            _rule(READ, _LEGACY, "nodes"),
            _events_rule(),
            _rule(("list", "watch"), _DISCOVERY, "endpointslices"),
        ], None),
        ("system:kube-scheduler", {}, [
            _events_rule(),
            _rule("create", _COORD, "leases"),
            _rule(("get", "update"), _COORD, "leases", names=("kube-scheduler",)),
            _rule(READ, _LEGACY, "nodes"),
            _rule(("get", "list", "watch", "delete"), _LEGACY, "pods"),
            _rule("create", _LEGACY, "pods/binding", "bindings"),
            _rule(("patch", "update"), _LEGACY, "pods/status"),
            _rule(READ, _LEGACY, "services", "replicationcontrollers"),
            _rule(READ, (_APPS, _EXT), "replicasets"),
            _rule(READ, _APPS, "statefulsets"),
            _rule(READ, _POLICY, "poddisruptionbudgets"),
            _rule(READ, _LEGACY, "persistentvolumeclaims", "persistentvolumes"),
            _rule("create", _AUTHN, "tokenreviews"),
            _rule("create", _AUTHZ, "subjectaccessreviews"),
            _rule(READ, _STORAGE, "csinodes"),
            _rule(READ, _LEGACY, "namespaces"),
            _rule(READ, _STORAGE, "csidrivers"),
            _rule(READ, _STORAGE, "csistoragecapacities"),
        ], None),
    ]


def _controller_roles() -> list[tuple[str, list[dict[str, Any]]]]:
    """``buildControllerRoles`` for the controllers kubelite runs (name without the prefix)."""
    pods_rw = ("list", "watch", "create", "delete", "patch")
    return [
        ("clusterrole-aggregation-controller", [
            _rule(("escalate", "get", "list", "watch", "update", "patch"), RBAC_GROUP, "clusterroles"),
        ]),
        ("cronjob-controller", [
            _rule(("get", "list", "watch", "update"), _BATCH, "cronjobs"),
            _rule(("get", "list", "watch", "create", "update", "delete", "patch"), _BATCH, "jobs"),
            _rule("update", _BATCH, "cronjobs/status"),
            _rule("update", _BATCH, "cronjobs/finalizers"),
            _rule(("list", "watch", "delete"), _LEGACY, "pods"),
            _events_rule(),
        ]),
        ("daemon-set-controller", [
            _rule(READ, (_EXT, _APPS), "daemonsets"),
            _rule("update", (_EXT, _APPS), "daemonsets/status"),
            _rule("update", (_EXT, _APPS), "daemonsets/finalizers"),
            _rule(("list", "watch"), _LEGACY, "nodes"),
            _rule(pods_rw, _LEGACY, "pods"),
            _rule("create", _LEGACY, "pods/binding"),
            _rule(("get", "list", "watch", "create", "delete", "update", "patch"), _APPS, "controllerrevisions"),
            _events_rule(),
        ]),
        ("deployment-controller", [
            _rule(("get", "list", "watch", "update"), (_EXT, _APPS), "deployments"),
            _rule("update", (_EXT, _APPS), "deployments/status"),
            _rule("update", (_EXT, _APPS), "deployments/finalizers"),
            _rule(("get", "list", "watch", "create", "update", "patch", "delete"), (_APPS, _EXT), "replicasets"),
            _rule(("get", "list", "watch", "update"), _LEGACY, "pods"),
            _events_rule(),
        ]),
        ("disruption-controller", [
            _rule(READ, (_EXT, _APPS), "deployments"),
            _rule(READ, (_APPS, _EXT), "replicasets"),
            _rule(READ, _LEGACY, "replicationcontrollers"),
            _rule(READ, _POLICY, "poddisruptionbudgets"),
            _rule(READ, _APPS, "statefulsets"),
            _rule("update", _POLICY, "poddisruptionbudgets/status"),
            _rule(("patch", "update"), _LEGACY, "pods/status"),
            _rule("get", "*", "*/scale"),
            _events_rule(),
        ]),
        ("endpoint-controller", [
            _rule(READ, _LEGACY, "services", "pods"),
            _rule(("get", "list", "watch", "create", "update", "delete"), _LEGACY, "endpoints"),
            _rule("create", _LEGACY, "endpoints/restricted"),
            _events_rule(),
        ]),
        ("endpointslice-controller", [
            _rule(READ, _LEGACY, "services", "pods", "nodes"),
            _rule("update", _LEGACY, "services/finalizers"),
            _rule(("get", "list", "watch", "create", "update", "delete"), _DISCOVERY, "endpointslices"),
            _events_rule(),
        ]),
        ("generic-garbage-collector", [
            _rule(("get", "list", "watch", "patch", "update", "delete"), "*", "*"),
            _events_rule(),
        ]),
        ("horizontal-pod-autoscaler", [
            _rule(READ, _AUTOSCALING, "horizontalpodautoscalers"),
            _rule("update", _AUTOSCALING, "horizontalpodautoscalers/status"),
            _rule(("get", "update"), "*", "*/scale"),
            _rule(("list", "watch"), _LEGACY, "pods"),
            # allow listing resource, custom, and external metrics
            _rule("list", _RES_METRICS, "pods"),
            _rule(("get", "list"), _CUSTOM_METRICS, "*"),
            _rule(("get", "list"), _EXTERNAL_METRICS, "*"),
            _events_rule(),
        ]),
        ("job-controller", [
            _rule(("get", "list", "watch", "update", "patch"), _BATCH, "jobs"),
            _rule("update", _BATCH, "jobs/status"),
            _rule("update", _BATCH, "jobs/finalizers"),
            _rule(pods_rw, _LEGACY, "pods"),
            _events_rule(),
        ]),
        ("namespace-controller", [
            _rule(("get", "list", "watch", "delete"), _LEGACY, "namespaces"),
            _rule("update", _LEGACY, "namespaces/finalize", "namespaces/status"),
            _rule(("get", "list", "watch", "delete", "deletecollection"), "*", "*"),
        ]),
        ("node-controller", [
            _rule(("get", "list", "watch", "update", "delete", "patch"), _LEGACY, "nodes"),
            _rule(("patch", "update"), _LEGACY, "nodes/status"),
            _rule(("patch", "update"), _LEGACY, "pods/status"),
            _rule(("list", "watch", "get", "delete"), _LEGACY, "pods"),
            _events_rule(),
        ]),
        ("persistent-volume-binder", [
            _rule(("get", "list", "watch", "update", "create", "delete"), _LEGACY, "persistentvolumes"),
            _rule("update", _LEGACY, "persistentvolumes/status"),
            _rule(("get", "list", "watch", "update"), _LEGACY, "persistentvolumeclaims"),
            _rule("update", _LEGACY, "persistentvolumeclaims/status"),
            _rule(("list", "watch", "get", "create", "delete"), _LEGACY, "pods"),
            _rule(READ, _STORAGE, "storageclasses"),
            _rule(("get", "create", "update", "delete"), _LEGACY, "endpoints"),
            _rule(("get", "create", "delete"), _LEGACY, "services"),
            _rule("get", _LEGACY, "secrets"),
            _rule(("get", "list"), _LEGACY, "nodes"),
            _rule("watch", _LEGACY, "events"),
            _events_rule(),
        ]),
        ("pod-garbage-collector", [
            _rule(("list", "watch", "delete"), _LEGACY, "pods"),
            _rule(READ, _LEGACY, "nodes"),
            _rule("patch", _LEGACY, "pods/status"),
        ]),
        ("replicaset-controller", [
            _rule(("get", "list", "watch", "update"), (_APPS, _EXT), "replicasets"),
            _rule("update", (_APPS, _EXT), "replicasets/status"),
            _rule("update", (_APPS, _EXT), "replicasets/finalizers"),
            _rule(("list", "watch", "patch", "create", "delete"), _LEGACY, "pods"),
            _events_rule(),
        ]),
        ("replication-controller", [
            _rule(("get", "list", "watch", "update"), _LEGACY, "replicationcontrollers"),
            _rule("update", _LEGACY, "replicationcontrollers/status"),
            _rule("update", _LEGACY, "replicationcontrollers/finalizers"),
            _rule(("list", "watch", "patch", "create", "delete"), _LEGACY, "pods"),
            _events_rule(),
        ]),
        ("resourcequota-controller", [
            _rule(("list", "watch"), "*", "*"),
            _rule("update", _LEGACY, "resourcequotas/status"),
            _events_rule(),
        ]),
        ("service-account-controller", [
            _rule("create", _LEGACY, "serviceaccounts"),
            _events_rule(),
        ]),
        ("statefulset-controller", [
            _rule(("list", "watch"), _LEGACY, "pods"),
            _rule(READ, _APPS, "statefulsets"),
            _rule("update", _APPS, "statefulsets/status"),
            _rule("update", _APPS, "statefulsets/finalizers"),
            _rule(("get", "create", "delete", "update", "patch"), _LEGACY, "pods"),
            _rule(("get", "create", "delete", "update", "patch", "list", "watch"), _APPS, "controllerrevisions"),
            _rule(("get", "create", "list", "watch"), _LEGACY, "persistentvolumeclaims"),
            _rule(("update", "delete"), _LEGACY, "persistentvolumeclaims"),
            _rule("update", _LEGACY, "pods/finalizers"),
            _events_rule(),
        ]),
        ("ttl-after-finished-controller", [
            _rule(("get", "list", "watch", "delete"), _BATCH, "jobs"),
            _events_rule(),
        ]),
        ("certificate-controller", [
            _rule(("get", "list", "watch", "delete"), _CERTIFICATES, "certificatesigningrequests"),
            _rule("update", _CERTIFICATES, "certificatesigningrequests/status",
                  "certificatesigningrequests/approval"),
            _rule("approve", _CERTIFICATES, "signers", names=("kubernetes.io/kube-apiserver-client-kubelet",)),
            _rule("sign", _CERTIFICATES, "signers", names=(
                "kubernetes.io/legacy-unknown", "kubernetes.io/kube-apiserver-client",
                "kubernetes.io/kube-apiserver-client-kubelet", "kubernetes.io/kubelet-serving")),
            _rule("create", _AUTHZ, "subjectaccessreviews"),
            _events_rule(),
        ]),
        ("root-ca-cert-publisher", [
            _rule(("create", "update"), _LEGACY, "configmaps"),
            _events_rule(),
        ]),
    ]


def _metadata(name: str, labels: dict[str, str] | None = None) -> dict[str, Any]:
    merged = {**(labels or {}), **BOOTSTRAP_LABELS}
    return {"name": name, "labels": dict(sorted(merged.items())), "annotations": {AUTOUPDATE_ANNOTATION: "true"}}


def _group(name: str) -> dict[str, str]:
    return {"kind": "Group", "apiGroup": RBAC_GROUP, "name": name}


def _user(name: str) -> dict[str, str]:
    return {"kind": "User", "apiGroup": RBAC_GROUP, "name": name}


def _sa(namespace: str, name: str) -> dict[str, str]:
    return {"kind": "ServiceAccount", "name": name, "namespace": namespace}


def _binding(role: str, subjects: list[dict[str, str]]) -> dict[str, Any]:
    """``NewClusterBinding(role)``: the binding is named after its ClusterRole."""
    return {
        "apiVersion": _API_VERSION,
        "kind": "ClusterRoleBinding",
        "metadata": _metadata(role),
        "subjects": subjects,
        "roleRef": {"apiGroup": RBAC_GROUP, "kind": "ClusterRole", "name": role},
    }


def bootstrap_objects() -> list[dict[str, Any]]:
    """The bootstrap ClusterRoles, then the ClusterRoleBindings, as fresh JSON dicts."""
    roles: list[dict[str, Any]] = []
    for name, labels, rules, aggregate_from in _cluster_roles():
        role: dict[str, Any] = {"apiVersion": _API_VERSION, "kind": "ClusterRole",
                                "metadata": _metadata(name, labels), "rules": rules}
        if aggregate_from is not None:
            role["aggregationRule"] = {"clusterRoleSelectors": [{"matchLabels": {aggregate_from: "true"}}]}
        roles.append(role)
    for short, rules in _controller_roles():
        roles.append({"apiVersion": _API_VERSION, "kind": "ClusterRole",
                      "metadata": _metadata(_SA_ROLE_PREFIX + short), "rules": rules})

    # Resolve aggregation the way the clusterrole-aggregation controller would.
    view = RBACAuthorizer()
    for role in roles:
        view.upsert("ClusterRole", role)
    for role in roles:
        if "aggregationRule" in role:
            role["rules"] = view.cluster_role_rules(role["metadata"]["name"]) or []

    bindings = [
        _binding("cluster-admin", [_group(SYSTEM_PRIVILEGED_GROUP)]),
        _binding("system:monitoring", [_group("system:monitoring")]),
        _binding("system:discovery", [_group(ALL_AUTHENTICATED)]),
        _binding("system:basic-user", [_group(ALL_AUTHENTICATED)]),
        _binding("system:public-info-viewer", [_group(ALL_AUTHENTICATED), _group(ALL_UNAUTHENTICATED)]),
        _binding("system:node-proxier", [_user(KUBE_PROXY)]),
        _binding("system:kube-controller-manager", [_user(KUBE_CONTROLLER_MANAGER)]),
        _binding("system:kube-dns", [_sa("kube-system", "kube-dns")]),
        _binding("system:kube-scheduler", [_user(KUBE_SCHEDULER)]),
        _binding("system:volume-scheduler", [_user(KUBE_SCHEDULER)]),
        _binding("system:node", [_group(NODES_GROUP)]),
        _binding("system:service-account-issuer-discovery", [_group(ALL_SERVICE_ACCOUNTS)]),
    ]
    bindings += [_binding(_SA_ROLE_PREFIX + short, [_sa("kube-system", short)]) for short, _ in _controller_roles()]
    return roles + bindings
