"""Which strategy serves which kind: the one place per-kind behaviour is registered.

``StrategySet.for_resource(info)`` returns the strategy of a built-in kind (its registered factory, or the
default :class:`Strategy`) or of a custom resource (:class:`CustomResourceStrategy`). Strategies that
hold apiserver state (allocators, the RBAC cache, the CRD set) receive it here, at construction.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from types import ModuleType

from kubelite.api.resources import ResourceInfo
from kubelite.api.schema import Schema
from kubelite.apiserver.auth.rbac import RBACAuthorizer
from kubelite.apiserver.crds import CustomResources
from kubelite.apiserver.ipallocator import ServiceIPAllocator
from kubelite.apiserver.registry.apiextensions import CustomResourceDefinitionStrategy, CustomResourceStrategy
from kubelite.apiserver.registry.core import (
    CreateOnUpdateStrategy,
    EndpointsStrategy,
    NamespaceStrategy,
    NodeStrategy,
    PendingStrategy,
    PodStrategy,
    ServiceStrategy,
)
from kubelite.apiserver.registry.rbac import RBAC_KINDS, RBACStrategy
from kubelite.apiserver.registry.strategy import StatusStrategy, Strategy
from kubelite.apiserver.registry.workloads import DeploymentStrategy, GenerationStrategy, JobStrategy

__all__ = ["StrategySet"]

_Factory = Callable[[ResourceInfo], Strategy]
_RBAC_GROUP = "rbac.authorization.k8s.io"
#: the resource.k8s.io kinds with their own strategy (``registry.resource.STRATEGIES``, checked by a test)
RESOURCE_PLURALS = ("deviceclasses", "resourceclaims", "resourceclaimtemplates", "resourceslices")


def _module(name: str) -> ModuleType:
    """``kubelite.apiserver.registry.<name>``, imported with the first request for one of its kinds: the
    ValidatingAdmissionPolicy strategy (and its CEL type checking) and the DRA strategies (and their
    validation) are not loaded with every apiserver (issue #17, cold start)."""
    return importlib.import_module(f"kubelite.apiserver.registry.{name}")


class StrategySet:
    def __init__(self, *, crs: CustomResources, rbac: RBACAuthorizer, service_ips: ServiceIPAllocator) -> None:
        self.crs = crs
        factories: dict[tuple[str, str], _Factory] = {
            ("", "pods"): PodStrategy,
            ("", "namespaces"): NamespaceStrategy,
            ("", "nodes"): NodeStrategy,
            ("", "persistentvolumes"): PendingStrategy,
            ("", "persistentvolumeclaims"): PendingStrategy,
            ("", "services"): lambda info: ServiceStrategy(info, service_ips),
            ("", "endpoints"): EndpointsStrategy,
            ("", "events"): CreateOnUpdateStrategy,
            ("coordination.k8s.io", "leases"): CreateOnUpdateStrategy,
            ("", "replicationcontrollers"): GenerationStrategy,
            ("networking.k8s.io", "ingresses"): GenerationStrategy,
            ("networking.k8s.io", "networkpolicies"): GenerationStrategy,
            ("networking.k8s.io", "ingressclasses"): GenerationStrategy,
            ("flowcontrol.apiserver.k8s.io", "flowschemas"): GenerationStrategy,
            ("flowcontrol.apiserver.k8s.io", "prioritylevelconfigurations"): GenerationStrategy,
            ("admissionregistration.k8s.io", "validatingadmissionpolicies"):
                lambda info: _module("admissionregistration").ValidatingAdmissionPolicyStrategy(
                    info, self._schema_for),
            ("admissionregistration.k8s.io", "validatingadmissionpolicybindings"): GenerationStrategy,
            ("apps", "deployments"): DeploymentStrategy,
            ("apps", "replicasets"): GenerationStrategy,
            ("apps", "statefulsets"): GenerationStrategy,
            ("apps", "daemonsets"): GenerationStrategy,
            ("batch", "jobs"): JobStrategy,
            ("batch", "cronjobs"): GenerationStrategy,
            ("policy", "poddisruptionbudgets"): GenerationStrategy,
            ("autoscaling", "horizontalpodautoscalers"): GenerationStrategy,
            ("apiextensions.k8s.io", "customresourcedefinitions"):
                lambda info: CustomResourceDefinitionStrategy(info, crs),
        }
        for plural in RBAC_KINDS:
            factories[(_RBAC_GROUP, plural)] = lambda info: RBACStrategy(info, rbac)
        for plural in RESOURCE_PLURALS:
            factories[("resource.k8s.io", plural)] = lambda info: _module("resource").STRATEGIES[info.plural](info)
        self._factories = factories
        self._cache: dict[tuple[str, str], tuple[ResourceInfo, Strategy, StatusStrategy]] = {}

    def _schema_for(self, group: str, version: str, plural: str) -> tuple[str, Schema] | None:
        """The kind and schema of a served resource version (policy type checking)."""
        try:
            info = self.crs.tables.registry.by_resource(group, plural)
        except KeyError:
            return None
        if info.version != version:
            return None
        schema = self.for_resource(info).schema()
        return (info.kind, schema) if schema is not None else None

    def register(self, group: str, plural: str, factory: _Factory) -> None:
        """Give a built-in kind its own strategy (kinds added by other modules register here)."""
        self._factories[(group, plural)] = factory
        self._cache.pop((group, plural), None)

    def _entry(self, info: ResourceInfo) -> tuple[ResourceInfo, Strategy, StatusStrategy]:
        key = (info.group, info.plural)
        hit = self._cache.get(key)
        if hit is not None and hit[0] is info:
            return hit
        if not info.builtin:
            strategy: Strategy = CustomResourceStrategy(info, self.crs)
        else:
            strategy = self._factories.get(key, Strategy)(info)
        entry = (info, strategy, StatusStrategy(strategy))
        self._cache[key] = entry
        return entry

    def for_resource(self, info: ResourceInfo) -> Strategy:
        return self._entry(info)[1]

    def for_status(self, info: ResourceInfo) -> StatusStrategy:
        return self._entry(info)[2]
