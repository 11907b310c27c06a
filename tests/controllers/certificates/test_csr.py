"""CertificateSigningRequests end to end: the requester recorded at create, approval through
``/approval`` with upstream's ``approve``-on-signer check, the signing controller issuing real X.509
certificates from the cluster CA (or failing the request as the signer's validation says), and the cleaner.
"""

from __future__ import annotations

import base64
import ipaddress
import re
from collections.abc import AsyncIterator
from typing import Any

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

import kubelite
from kubelite.controllers.certificates.authority import CertificateAuthority
from kubelite.controllers.certificates.signer import validate_for_signer
from kubelite.errors import Forbidden, NotFound

CLIENT = "kubernetes.io/kube-apiserver-client"
KUBELET = "kubernetes.io/kube-apiserver-client-kubelet"
SERVING = "kubernetes.io/kubelet-serving"
_KEY = ec.derive_private_key(99, ec.SECP256R1())


def make_request(cn: str, orgs: tuple[str, ...] = (), *, dns: tuple[str, ...] = (), ips: tuple[str, ...] = (),
                 emails: tuple[str, ...] = ()) -> x509.CertificateSigningRequest:
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, cn)]
                     + [x509.NameAttribute(NameOID.ORGANIZATION_NAME, o) for o in orgs])
    builder = x509.CertificateSigningRequestBuilder().subject_name(name)
    sans: list[x509.GeneralName] = [x509.DNSName(d) for d in dns] + [
        x509.IPAddress(ipaddress.ip_address(i)) for i in ips] + [x509.RFC822Name(e) for e in emails]
    if sans:
        builder = builder.add_extension(x509.SubjectAlternativeName(sans), critical=False)
    return builder.sign(_KEY, hashes.SHA256())


def csr_body(name: str, req: x509.CertificateSigningRequest, *, signer: str = CLIENT,
             usages: tuple[str, ...] = ("client auth",), **spec: Any) -> dict[str, Any]:
    pem = req.public_bytes(serialization.Encoding.PEM)
    return {"apiVersion": "certificates.k8s.io/v1", "kind": "CertificateSigningRequest", "metadata": {"name": name},
            "spec": {"request": base64.b64encode(pem).decode(), "signerName": signer, "usages": list(usages), **spec}}


def _condition(typ: str, reason: str) -> dict[str, Any]:
    return {"type": typ, "status": "True", "reason": reason, "message": f"This CSR was {typ.lower()} in a test."}


async def approve(client: kubelite.Client, name: str, typ: str = "Approved") -> dict[str, Any]:
    """What ``kubectl certificate approve`` does: read, append the condition, PUT ``/approval``."""
    csr = await client.get("certificatesigningrequests", name)
    csr.setdefault("status", {}).setdefault("conditions", []).append(_condition(typ, "KubectlApprove"))
    out: dict[str, Any] = await client.replace(csr, subresource="approval")
    return out


def certificate(csr: dict[str, Any]) -> x509.Certificate:
    return x509.load_pem_x509_certificate(base64.b64decode(csr["status"]["certificate"]))


@pytest.fixture
def authority() -> CertificateAuthority:
    import random

    return CertificateAuthority.generate(rng=random.Random(5), now=1735689600.0)


@pytest.fixture
async def cluster(authority: CertificateAuthority) -> AsyncIterator[kubelite.Cluster]:
    async with kubelite.Cluster(seed=8, nodes=0, controller_options={"csrsigning": {"authority": authority}}) as c:
        yield c


async def grant(cluster: kubelite.Cluster, user: str, rules: list[dict[str, Any]]) -> kubelite.Client:
    c = cluster.client
    await c.create({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": {"name": user},
                    "rules": rules})
    await c.create({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
                    "metadata": {"name": user},
                    "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": user},
                    "subjects": [{"kind": "User", "apiGroup": "rbac.authorization.k8s.io", "name": user}]})
    return cluster.client_as(user)


CSR_RW = {"apiGroups": ["certificates.k8s.io"], "resources": ["certificatesigningrequests"],
          "verbs": ["create", "get", "list", "watch"]}
APPROVAL = {"apiGroups": ["certificates.k8s.io"], "resources": ["certificatesigningrequests/approval"],
            "verbs": ["update"]}


def _approve_signers(*names: str) -> dict[str, Any]:
    return {"apiGroups": ["certificates.k8s.io"], "resources": ["signers"], "verbs": ["approve"],
            "resourceNames": list(names)}


# --- create and the strategies ---

async def test_create_records_the_requester_and_starts_pending(cluster: kubelite.Cluster) -> None:
    alice = await grant(cluster, "alice", [CSR_RW])
    body = csr_body("a", make_request("alice"))
    body["spec"]["username"] = "someone-else"
    body["status"] = {"conditions": [_condition("Approved", "Self")]}  # nobody creates a pre-approved request
    out = await alice.create(body)
    assert out["spec"]["username"] == "alice"
    assert out["spec"]["groups"] == ["system:authenticated"]
    assert out["status"] == {}  # (an empty Conditions slice: conditions,omitempty prints none)


async def test_main_resource_update_keeps_spec_and_status(cluster: kubelite.Cluster) -> None:
    c = cluster.client
    await c.create(csr_body("a", make_request("alice")))
    csr = await c.get("certificatesigningrequests", "a")
    csr["spec"]["usages"] = ["server auth"]
    csr["status"]["conditions"] = [_condition("Approved", "Sneaky")]
    csr["metadata"]["labels"] = {"team": "x"}
    out = await c.replace(csr)
    assert out["spec"]["usages"] == ["client auth"] and out["status"] == {}
    assert out["metadata"]["labels"] == {"team": "x"}


async def test_status_keeps_the_stored_approval(cluster: kubelite.Cluster) -> None:
    c = cluster.client
    await c.create(csr_body("a", make_request("alice"), signer="example.com/custom"))
    csr = await c.get("certificatesigningrequests", "a")
    csr["status"]["conditions"] = [_condition("Approved", "ViaStatus"), {"type": "Custom", "status": "Unknown"}]
    out = await c.replace_status(csr)
    assert [x["type"] for x in out["status"]["conditions"]] == ["Custom"]
    assert out["status"]["conditions"][0]["lastUpdateTime"] == out["status"]["conditions"][0]["lastTransitionTime"]


async def test_approval_sets_condition_timestamps(cluster: kubelite.Cluster) -> None:
    c = cluster.client
    await c.create(csr_body("a", make_request("alice"), signer="example.com/custom"))
    out = await approve(c, "a")
    (cond,) = out["status"]["conditions"]
    assert cond["type"] == "Approved" and cond["lastUpdateTime"] and cond["lastTransitionTime"]
    with pytest.raises(kubelite.errors.Invalid, match="Approved and Denied conditions are mutually exclusive"):
        await approve(c, "a", "Denied")


# --- who may approve: CertificateApproval ---

@pytest.mark.parametrize(("rules", "allowed"), [
    ([CSR_RW, APPROVAL], False),
    ([CSR_RW, APPROVAL, _approve_signers(CLIENT)], True),
    ([CSR_RW, APPROVAL, _approve_signers("kubernetes.io/*")], True),
    ([CSR_RW, APPROVAL, _approve_signers(KUBELET)], False),
    ([CSR_RW, _approve_signers(CLIENT)], False),
], ids=["no-approve-verb", "approve-this-signer", "approve-domain-wildcard", "approve-other-signer",
        "no-approval-subresource"])
async def test_approve_needs_the_signer(cluster: kubelite.Cluster, rules: list[dict[str, Any]], allowed: bool) -> None:
    await cluster.client.create(csr_body("a", make_request("alice")))
    bob = await grant(cluster, "bob", rules)
    if allowed:
        out = await approve(bob, "a")
        assert out["status"]["conditions"][0]["type"] == "Approved"
        return
    with pytest.raises(Forbidden) as e:
        await approve(bob, "a")
    if APPROVAL in rules:
        assert e.value.status.message == (
            'certificatesigningrequests.certificates.k8s.io "a" is forbidden: user not permitted to approve '
            f'requests with signerName "{CLIENT}"')
    else:
        assert "cannot update resource \"certificatesigningrequests/approval\"" in e.value.status.message
    assert (await cluster.client.get("certificatesigningrequests", "a"))["status"] == {}


async def test_setting_a_certificate_needs_sign(cluster: kubelite.Cluster, authority: CertificateAuthority) -> None:
    c = cluster.client
    await c.create(csr_body("a", make_request("alice"), signer="example.com/custom"))
    await approve(c, "a")
    carol = await grant(cluster, "carol", [CSR_RW, {"apiGroups": ["certificates.k8s.io"],
                                                    "resources": ["certificatesigningrequests/status"],
                                                    "verbs": ["update"]}])
    csr = await carol.get("certificatesigningrequests", "a")
    csr["status"]["certificate"] = base64.b64encode(authority.certificate_pem).decode()
    with pytest.raises(Forbidden, match=re.escape('user not permitted to sign requests with signerName "example.com/custom"')):
        await carol.replace_status(csr)


async def test_kube_apiserver_client_may_not_ask_for_system_masters(cluster: kubelite.Cluster) -> None:
    with pytest.raises(Forbidden, match=re.escape("use of kubernetes.io/kube-apiserver-client signer with system:masters group")):
        await cluster.client.create(csr_body("a", make_request("root", ("system:masters",))))


# --- the signer ---

async def test_approved_client_request_gets_a_certificate(cluster: kubelite.Cluster,
                                                          authority: CertificateAuthority) -> None:
    c = cluster.client
    req = make_request("alice", ("dev",))
    await c.create(csr_body("a", req, usages=("digital signature", "client auth"), expirationSeconds=3600))
    await cluster.settle()
    assert "certificate" not in (await c.get("certificatesigningrequests", "a"))["status"]  # not approved yet
    await approve(c, "a")
    await cluster.settle()
    cert = certificate(await c.get("certificatesigningrequests", "a"))
    cert.verify_directly_issued_by(authority.certificate)
    assert cert.subject == req.subject and cert.public_key() == req.public_key()
    now = cluster.clock.now()
    assert cert.not_valid_before_utc.timestamp() == now - 300  # backdated five minutes
    assert cert.not_valid_after_utc.timestamp() == now + 3600  # expirationSeconds, under the one-year default
    assert cert.extensions.get_extension_for_class(x509.ExtendedKeyUsage).value == x509.ExtendedKeyUsage(
        [ExtendedKeyUsageOID.CLIENT_AUTH])
    ku = cert.extensions.get_extension_for_class(x509.KeyUsage).value
    assert ku.digital_signature and not ku.key_encipherment
    assert not cert.extensions.get_extension_for_class(x509.BasicConstraints).value.ca


async def test_signer_validation_failure_fails_the_request(cluster: kubelite.Cluster) -> None:
    c = cluster.client
    await c.create(csr_body("a", make_request("alice"), usages=("digital signature", "key encipherment",
                                                                "server auth")))
    await approve(c, "a")
    await cluster.settle()
    csr = await c.get("certificatesigningrequests", "a")
    failed = [x for x in csr["status"]["conditions"] if x["type"] == "Failed"]
    assert failed and failed[0]["reason"] == "SignerValidationFailure"
    assert failed[0]["message"] == "invalid usage for client certificate: server auth"
    assert "certificate" not in csr["status"]


@pytest.mark.parametrize(("typ", "signer"), [("Denied", CLIENT), ("Approved", "example.com/custom")],
                         ids=["denied", "other-signer"])
async def test_not_signed(cluster: kubelite.Cluster, typ: str, signer: str) -> None:
    c = cluster.client
    await c.create(csr_body("a", make_request("alice"), signer=signer))
    await approve(c, "a", typ)
    await cluster.settle()
    csr = await c.get("certificatesigningrequests", "a")
    assert "certificate" not in csr["status"] and [x["type"] for x in csr["status"]["conditions"]] == [typ]


NODE = ("system:nodes",)


@pytest.mark.parametrize(("signer", "req", "usages", "error"), [
    (CLIENT, make_request("x"), ("client auth",), None),
    (CLIENT, make_request("x"), ("key encipherment", "digital signature", "client auth"), None),
    (CLIENT, make_request("x"), ("digital signature",), "missing required usage for client certificate: client auth"),
    (KUBELET, make_request("system:node:n1", NODE), ("digital signature", "key encipherment", "client auth"), None),
    (KUBELET, make_request("system:node:n1", NODE), ("digital signature", "client auth"), None),
    (KUBELET, make_request("system:node:n1", ("other",)), ("digital signature", "client auth"),
     "subject organization is not system:nodes"),
    (KUBELET, make_request("n1", NODE), ("digital signature", "client auth"),
     "subject common name does not begin with system:node:"),
    (KUBELET, make_request("system:node:n1", NODE, dns=("n1",)), ("digital signature", "client auth"),
     "DNS subjectAltNames are not allowed"),
    (KUBELET, make_request("system:node:n1", NODE), ("client auth",),
     "usages did not match [client auth digital signature key encipherment]"),
    (SERVING, make_request("system:node:n1", NODE, ips=("10.0.0.1",)), ("digital signature", "server auth"), None),
    (SERVING, make_request("system:node:n1", NODE), ("digital signature", "server auth"),
     "DNS or IP subjectAltName is required"),
    (SERVING, make_request("system:node:n1", NODE, dns=("n1",), emails=("a@b.c",)),
     ("digital signature", "server auth"), "Email subjectAltNames are not allowed"),
    (SERVING, make_request("system:node:n1", NODE, dns=("n1",)), ("server auth",),
     "usages did not match [digital signature key encipherment server auth]"),
], ids=["client-minimal", "client-all-optional", "client-no-client-auth", "kubelet-rsa-usages", "kubelet-ec-usages",
        "kubelet-wrong-org", "kubelet-wrong-cn", "kubelet-dns-san", "kubelet-usages", "serving-ip", "serving-no-san",
        "serving-email", "serving-usages"])
def test_signer_checks(signer: str, req: x509.CertificateSigningRequest, usages: tuple[str, ...],
                       error: str | None) -> None:
    assert validate_for_signer(signer, req, list(usages)) == error


async def test_same_seed_issues_the_same_certificate() -> None:
    """The cluster's own CA and every serial come from the seeded RNG: replays are byte-identical."""
    issued = []
    for _ in range(2):
        async with kubelite.Cluster(seed=21, nodes=0) as c:
            await c.client.create(csr_body("a", make_request("alice")))
            await approve(c.client, "a")
            await c.settle()
            issued.append((await c.client.get("certificatesigningrequests", "a"))["status"]["certificate"])
    assert issued[0] == issued[1]


# --- the cleaner ---

@pytest.fixture
async def cleaner_cluster(authority: CertificateAuthority) -> AsyncIterator[kubelite.Cluster]:
    """The two CSR controllers alone: the cleaner tests let 1-48 hours pass, and every other component's
    periodic work over those hours (an idle default cluster: 11.6 CPU s per 48 h, against 2.1 s here) is
    not what they check."""
    async with kubelite.Cluster(seed=8, nodes=0, controllers=["csrsigning", "csrcleaner"], scheduler=False,
                                network=False, controller_options={"csrsigning": {"authority": authority}}) as c:
        yield c


@pytest.mark.parametrize(("action", "lifetime"), [("Denied", 3600), ("Approved", 3600), (None, 24 * 3600)],
                         ids=["denied-1h", "issued-1h", "pending-24h"])
async def test_cleaner_deletes_finished_requests(cleaner_cluster: kubelite.Cluster, action: str | None, lifetime: int) -> None:
    c = cleaner_cluster.client
    await c.create(csr_body("a", make_request("alice")))
    if action is not None:
        await approve(c, "a", action)
    await cleaner_cluster.settle()
    if action == "Approved":
        assert (await c.get("certificatesigningrequests", "a"))["status"].get("certificate")
    await cleaner_cluster.advance(lifetime - 10)
    await c.get("certificatesigningrequests", "a")  # still there just before its deadline
    await cleaner_cluster.advance(20)
    with pytest.raises(NotFound):
        await c.get("certificatesigningrequests", "a")


async def test_cleaner_keeps_approved_but_unissued(cleaner_cluster: kubelite.Cluster) -> None:
    c = cleaner_cluster.client
    await c.create(csr_body("a", make_request("alice"), signer="example.com/custom"))
    await approve(c, "a")
    await cleaner_cluster.advance(48 * 3600)
    assert (await c.get("certificatesigningrequests", "a"))["status"]["conditions"][0]["type"] == "Approved"
