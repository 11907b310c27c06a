"""The admission chain asks a plugin only about the resources it declares (``resources``), as it asks
only about the operations it declares: every declaration is held to the plugin's own ``handles`` over
every resource the cluster serves, each operation and subresource (a declaration that left out a kind the
plugin handles would silently skip it), and an Event create meets only the plugins that handle it."""

from __future__ import annotations

from typing import Any

import pytest

from kubelite.apiserver.admission import AdmissionChain
from kubelite.apiserver.auth.user import UserInfo
from kubelite.apiserver.request import AdmissionRequest
from kubelite.cluster import Cluster


def _req(op: str, group: str, resource: str, subresource: str = "", ns: str = "default") -> AdmissionRequest:
    return AdmissionRequest(operation=op, group=group, version="v1", kind="K", resource=resource,
                            subresource=subresource, namespace=ns, name="x", object={"metadata": {}},
                            old_object=None, user=UserInfo(name="u"))


async def test_every_declaration_covers_what_its_plugin_handles() -> None:
    async with Cluster(seed=1, scheduler=False, controllers=False, network=False) as cluster:
        # a LimitRange and a policy binding, so the plugins that read them can say yes
        await cluster.client.create({"apiVersion": "v1", "kind": "LimitRange",
                                     "metadata": {"name": "l", "namespace": "default"},
                                     "spec": {"limits": [{"type": "Container", "default": {"cpu": "1"}}]}})
        chain = cluster.apiserver.admission
        plugins: list[Any] = [*chain.mutating_plugins, *chain.validating_plugins]
        declared = [p for p in plugins if hasattr(p, "resources")]
        assert len(declared) >= 9
        kinds = {(i.group, i.plural) for i in cluster.apiserver.registry}
        assert len(kinds) > 50 and ("", "events") in kinds
        handled: dict[str, set[tuple[str, str]]] = {}
        for p in declared:
            for group, plural in sorted(kinds):
                for op in ("CREATE", "UPDATE", "DELETE", "CONNECT"):
                    for sub in ("", "status", "approval", "binding"):
                        if p.handles(_req(op, group, plural, sub)):
                            handled.setdefault(p.name, set()).add((group, plural))
                            assert (group, plural) in p.resources, (p.name, group, plural, op, sub)
        # (and the table reached the plugins: each said yes to its kinds)
        assert handled["ServiceAccount"] == {("", "pods")}
        assert handled["TaintNodesByCondition"] == {("", "nodes")}
        assert handled["CertificateSubjectRestriction"] == {("certificates.k8s.io", "certificatesigningrequests")}


class _Plugin:
    def __init__(self, name: str, log: list[str], resources: frozenset[tuple[str, str]] | None) -> None:
        self.name = name
        self.log = log
        if resources is not None:
            self.resources = resources

    def handles(self, req: AdmissionRequest) -> bool:
        self.log.append(f"{self.name}?{req.resource}")
        return True

    def admit(self, req: AdmissionRequest) -> None:
        self.log.append(f"{self.name}!{req.resource}")

    validate = admit


@pytest.mark.parametrize(("group", "resource", "asked"), [
    ("", "pods", ["pods-only", "any"]),
    ("", "events", ["any"]),
    ("apps", "pods", ["any"]),  # (a group's own "pods" is not core's)
], ids=["pods", "events", "other-group"])
async def test_plugins_are_asked_only_about_their_resources(group: str, resource: str, asked: list[str]) -> None:
    log: list[str] = []
    plugins = [_Plugin("pods-only", log, frozenset({("", "pods")})), _Plugin("any", log, None)]
    chain = AdmissionChain(mutating=plugins, validating=plugins)
    for _ in range(2):  # (the per-resource lists are computed once and reused)
        log.clear()
        await chain.admit(_req("CREATE", group, resource))
        await chain.validate(_req("CREATE", group, resource))
        assert log == [f"{n}{s}{resource}" for n in asked for s in "?!"] * 2


async def test_an_event_create_meets_only_its_plugins() -> None:
    async with Cluster(seed=1, scheduler=False, controllers=False, network=False) as cluster:
        chain = cluster.apiserver.admission
        mutating = [p.name for p in chain._plugins(True, "CREATE", False, "", "events")]
        validating = [p.name for p in chain._plugins(False, "CREATE", False, "", "events")]
    assert mutating == ["NamespaceLifecycle"]
    assert validating == ["ValidatingAdmissionPolicy", "ResourceQuota"]
