"""The resource registry: upstream names, scopes, verbs, subresources and kubectl name resolution."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kubelite.api import types as t
from kubelite.api.resources import (
    BUILTIN,
    CREATE_ONLY,
    GET_PATCH_UPDATE,
    STANDARD_VERBS,
    Registry,
    ResourceInfo,
)

OPENAPI = Path(__file__).resolve().parents[2] / "kubelite/api/openapi.json"


@pytest.fixture
def registry() -> Registry:
    return Registry()


def _crontab(**overrides: object) -> ResourceInfo:
    fields: dict[str, object] = dict(
        group="stable.example.com", version="v1", kind="CronTab", plural="crontabs", singular="crontab",
        namespaced=True, short_names=("ct",), subresources=frozenset({"status", "scale"}), list_kind="CronTabList",
    )
    fields.update(overrides)
    return ResourceInfo(**fields)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("name", "group", "plural"),
    [
        ("po", "", "pods"),
        ("pods", "", "pods"),
        ("pod", "", "pods"),
        ("Pod", "", "pods"),
        ("deploy", "apps", "deployments"),
        ("deployments.apps", "apps", "deployments"),
        ("deployment.apps", "apps", "deployments"),
        ("deployments.v1.apps", "apps", "deployments"),
        ("Deployment", "apps", "deployments"),
        ("svc", "", "services"),
        ("rs", "apps", "replicasets"),
        ("sts", "apps", "statefulsets"),
        ("ds", "apps", "daemonsets"),
        ("ns", "", "namespaces"),
        ("no", "", "nodes"),
        ("cm", "", "configmaps"),
        ("sa", "", "serviceaccounts"),
        ("ev", "", "events"),
        ("pv", "", "persistentvolumes"),
        ("pvc", "", "persistentvolumeclaims"),
        ("pdb", "policy", "poddisruptionbudgets"),
        ("pc", "scheduling.k8s.io", "priorityclasses"),
        ("sc", "storage.k8s.io", "storageclasses"),
        ("crd", "apiextensions.k8s.io", "customresourcedefinitions"),
        ("crds", "apiextensions.k8s.io", "customresourcedefinitions"),
        ("hpa", "autoscaling", "horizontalpodautoscalers"),
        ("ep", "", "endpoints"),
        ("cj", "batch", "cronjobs"),
        ("leases", "coordination.k8s.io", "leases"),
        ("clusterrolebindings", "rbac.authorization.k8s.io", "clusterrolebindings"),
        ("endpointslice", "discovery.k8s.io", "endpointslices"),
    ],
    ids=lambda v: str(v) or "core",
)
def test_resolve_kubectl_names(registry: Registry, name: str, group: str, plural: str) -> None:
    info = registry.resolve(name)
    assert (info.group, info.plural) == (group, plural)


@pytest.mark.parametrize("name", ["foo", "pods.apps", "deployments.v2.apps", "lease.example.com"],
                         ids=["unknown", "wrong-group", "wrong-version", "unknown-group"])
def test_resolve_unknown_raises(registry: Registry, name: str) -> None:
    with pytest.raises(KeyError, match=f'resource type "{name}"'):
        registry.resolve(name)


@pytest.mark.parametrize(
    ("plural", "namespaced"),
    [
        ("nodes", False), ("namespaces", False), ("persistentvolumes", False), ("priorityclasses", False),
        ("storageclasses", False), ("clusterroles", False), ("clusterrolebindings", False),
        ("customresourcedefinitions", False), ("pods", True), ("roles", True), ("leases", True),
        ("persistentvolumeclaims", True), ("bindings", True), ("events", True),
    ],
    ids=lambda v: str(v),
)
def test_scopes(registry: Registry, plural: str, namespaced: bool) -> None:
    assert next(i for i in registry if i.plural == plural).namespaced is namespaced


def test_lookups_agree(registry: Registry) -> None:
    for info in BUILTIN:
        assert registry.by_resource(info.group, info.plural) is info
        assert registry.by_kind(info.api_version, info.kind) is info
        assert info.struct is not None
        assert registry.for_struct(info.struct) is info
        assert info.list_kind == f"{info.kind}List"
        assert info.singular == info.kind.lower()


def test_properties() -> None:
    registry = Registry()
    pods = registry.by_resource("", "pods")
    deployments = registry.by_kind("apps/v1", "Deployment")
    assert (pods.api_version, pods.group_resource) == ("v1", "pods")
    assert (deployments.api_version, deployments.group_resource) == ("apps/v1", "deployments.apps")
    assert pods.subresources == {"status", "binding", "eviction", "log"}
    assert deployments.subresources == {"status", "scale"}
    assert "all" in deployments.categories
    assert "all" not in registry.by_resource("", "secrets").categories


def test_verbs(registry: Registry) -> None:
    assert registry.by_resource("", "bindings").verbs == CREATE_ONLY
    assert registry.by_resource("", "pods").verbs == STANDARD_VERBS
    assert "deletecollection" not in registry.by_resource("", "namespaces").verbs
    assert registry.by_resource("", "services").verbs == STANDARD_VERBS


@pytest.mark.parametrize(
    ("group", "plural", "sub", "api_version", "kind", "verbs"),
    [
        ("", "pods", "status", "v1", "Pod", GET_PATCH_UPDATE),
        ("", "pods", "binding", "v1", "Binding", CREATE_ONLY),
        ("", "pods", "eviction", "policy/v1", "Eviction", CREATE_ONLY),
        ("", "pods", "log", "v1", "Pod", frozenset({"get"})),
        ("apps", "deployments", "scale", "autoscaling/v1", "Scale", GET_PATCH_UPDATE),
        ("apps", "statefulsets", "scale", "autoscaling/v1", "Scale", GET_PATCH_UPDATE),
    ],
    ids=["pod-status", "pod-binding", "pod-eviction", "pod-log", "deploy-scale", "sts-scale"],
)
def test_subresources(
    registry: Registry, group: str, plural: str, sub: str, api_version: str, kind: str, verbs: frozenset[str]
) -> None:
    parent = registry.by_resource(group, plural)
    info = registry.subresource(parent, sub)
    assert (info.api_version, info.kind, info.verbs, info.parent) == (api_version, kind, verbs, parent)
    assert info.struct is getattr(t, kind)


def test_unknown_subresource(registry: Registry) -> None:
    with pytest.raises(KeyError, match="configmaps/status"):
        registry.subresource(registry.by_resource("", "configmaps"), "status")


def test_subresource_kinds_are_not_top_level(registry: Registry) -> None:
    with pytest.raises(KeyError, match='kind "Eviction"'):
        registry.by_kind("policy/v1", "Eviction")
    with pytest.raises(KeyError, match="Scale"):
        registry.for_struct(t.Scale)


def test_for_struct_takes_only_the_generated_class_or_its_read_only_twin(registry: Registry) -> None:
    """The registry indexes kinds by their Struct's name (so it imports no kind's module): a lookup must
    still answer only for the generated class itself, not for another class of the same module and name."""
    import msgspec

    from kubelite.api.views import freeze

    pods = registry.by_resource("", "pods")
    twin = type(freeze(t.Pod()))
    assert twin is not t.Pod and registry.for_struct(twin) is pods
    impostor = type("Pod", (msgspec.Struct,), {"__module__": "kubelite.api.types.core_v1"})
    with pytest.raises(KeyError, match="Pod is not a registered resource kind"):
        registry.for_struct(impostor)
    with pytest.raises(KeyError, match="dict is not a registered resource kind"):
        registry.for_struct(dict)
    hpa_v1 = registry.at_version(registry.by_resource("autoscaling", "horizontalpodautoscalers"), "v1")
    assert registry.for_struct(t.autoscaling_v1.HorizontalPodAutoscaler) == hpa_v1


def test_schema_refs_exist_and_carry_the_gvk() -> None:
    defs = json.loads(OPENAPI.read_text())["definitions"]
    for info in BUILTIN:
        assert info.schema_ref is not None
        gvks = defs[info.schema_ref]["x-kubernetes-group-version-kind"]
        assert {"group": info.group, "version": info.version, "kind": info.kind} in gvks


def test_register_and_unregister_a_crd(registry: Registry) -> None:
    before = [i.plural for i in registry]
    crontab = _crontab()
    registry.register(crontab)
    assert registry.resolve("ct") is crontab
    assert registry.resolve("crontabs.stable.example.com") is crontab
    assert registry.by_kind("stable.example.com/v1", "CronTab") is crontab
    assert registry.subresource(crontab, "scale").kind == "Scale"
    assert [i.plural for i in registry] == [*before, "crontabs"]

    replaced = _crontab(short_names=("cron",))
    registry.register(replaced)
    assert registry.resolve("cron") is replaced
    with pytest.raises(KeyError):
        registry.resolve("ct")
    assert [i.plural for i in registry] == [*before, "crontabs"]

    registry.unregister("stable.example.com", "crontabs")
    assert [i.plural for i in registry] == before
    with pytest.raises(KeyError):
        registry.by_resource("stable.example.com", "crontabs")
    with pytest.raises(KeyError):
        registry.unregister("stable.example.com", "crontabs")


def test_builtins_win_ambiguous_names(registry: Registry) -> None:
    registry.register(_crontab(group="example.com", kind="Pod", plural="pods", singular="pod", short_names=("po",)))
    assert registry.resolve("po").group == ""
    assert registry.resolve("pods.example.com").group == "example.com"


def test_iteration_is_deterministic() -> None:
    assert [i.plural for i in Registry()] == [i.plural for i in BUILTIN]
    assert len(Registry()) == len(BUILTIN)
    assert ("apps", "deployments") in Registry()
