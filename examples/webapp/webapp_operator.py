"""A small operator: each ``WebApp`` (example.com/v1) owns a Deployment and a Service of the same name.

The reconciler is level-based (see ``kubelite.controllers.reconcile``): whatever happened, it reads the
WebApp, server-side applies the Deployment and Service it wants (so a manual edit of a field it owns
is reverted, and fields others own are left alone), and reports the Deployment's ready replicas in the
WebApp's status. Owner references make the Deployment's and Service's changes enqueue their WebApp,
and let the garbage collector delete them with it.
"""

from __future__ import annotations

from typing import Any

from kubelite.controllers import Request, Result
from kubelite.errors import NotFound

WEBAPPS = "webapps.example.com"
FIELD_MANAGER = "webapp-operator"


def desired_objects(app: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The Deployment and Service a WebApp asks for (pure: easy to unit-test without a cluster)."""
    meta, spec = app["metadata"], app["spec"]
    name, ns = meta["name"], meta["namespace"]
    labels = {"app.kubernetes.io/name": name, "app.kubernetes.io/managed-by": FIELD_MANAGER}
    owner = {"apiVersion": "example.com/v1", "kind": "WebApp", "name": name, "uid": meta["uid"],
             "controller": True, "blockOwnerDeletion": True}
    port = spec.get("port", 80)
    deployment = {
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": name, "namespace": ns, "labels": labels, "ownerReferences": [owner]},
        "spec": {
            "replicas": spec.get("replicas", 1),
            "selector": {"matchLabels": {"app.kubernetes.io/name": name}},
            "template": {
                "metadata": {"labels": labels},
                "spec": {"containers": [{"name": "web", "image": spec["image"],
                                         "ports": [{"containerPort": port, "name": "http", "protocol": "TCP"}]}]},
            },
        },
    }
    service = {
        "apiVersion": "v1", "kind": "Service",
        "metadata": {"name": name, "namespace": ns, "labels": labels, "ownerReferences": [owner]},
        "spec": {"selector": {"app.kubernetes.io/name": name},
                 "ports": [{"name": "http", "port": 80, "targetPort": port, "protocol": "TCP"}]},
    }
    return deployment, service


class WebAppReconciler:
    """Reconciles one WebApp at a time; holds no state between calls."""

    def __init__(self, client: Any) -> None:
        self.client = client.with_field_manager(FIELD_MANAGER)

    async def reconcile(self, request: Request) -> Result | None:
        try:
            app = await self.client.get(WEBAPPS, request.name, namespace=request.namespace)
        except NotFound:
            return None  # deleted: the garbage collector removes what it owned
        if app["metadata"].get("deletionTimestamp"):
            return None
        deployment, service = desired_objects(app)
        await self.client.apply(deployment, force=True)
        await self.client.apply(service, force=True)
        current = await self.client.get("deployments", request.name, namespace=request.namespace)
        ready = (current.get("status") or {}).get("readyReplicas", 0)
        want = app["spec"].get("replicas", 1)
        condition = {"type": "Ready", "status": "True" if ready >= want else "False",
                     "reason": "ReplicasReady" if ready >= want else "ReplicasNotReady",
                     "message": f"{ready}/{want} replicas ready"}
        status = {"readyReplicas": ready, "endpoint": f"{request.name}.{request.namespace}.svc:80",
                  "conditions": [condition]}
        if app.get("status") != status:
            await self.client.patch_status(WEBAPPS, request.name, {"status": status}, patch_type="merge",
                                           namespace=request.namespace)
        return None
