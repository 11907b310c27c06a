"""The resource registry: kind <-> resource, scope, subresources and verbs of every served type.

Contract:
- A :class:`ResourceInfo` is an immutable record of what upstream's discovery
  (``kubectl api-resources -o wide``) says about one resource: plural, singular, short names,
  scope, verbs, categories, subresources. Built-in kinds also carry their generated Struct and
  the name of their definition in ``kubelite/api/openapi.json``; custom resources carry neither.
- A :class:`Registry` is the one place that maps between the names a request can use: a URL's
  ``(group, plural)``, an object's ``(apiVersion, kind)``, a Struct class, and kubectl's
  free-form names (``po``, ``deploy``, ``deployments.apps``, ``Deployment``). Lookups raise
  ``KeyError`` for unknown names; they never guess.
- The registry is owned by whoever built it (the apiserver owns one per cluster and registers
  CRDs in it); :data:`BUILTIN` is immutable and shared. Iteration order is registration order:
  built-ins in :data:`BUILTIN` order, then custom resources as they were registered.
- Subresource kinds follow upstream: ``pods/binding`` takes a core/v1 Binding, ``pods/eviction``
  a policy/v1 Eviction, ``*/scale`` an autoscaling/v1 Scale, ``*/status`` the parent kind; see
  :meth:`Registry.subresource`. Eviction and Scale are not top-level resources.

Names, scopes and verbs follow the storage registrations under ``pkg/registry/*`` in
kubernetes/kubernetes (``ShortNames()``, ``Categories()``, ``NamespaceScoped()``, which REST
interfaces each storage implements), as ``kubectl api-resources -o wide`` reports them for 1.37.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Iterator
from typing import Any

import msgspec

__all__ = [
    "BUILTIN",
    "CREATE_ONLY",
    "GET_PATCH_UPDATE",
    "STANDARD_VERBS",
    "Registry",
    "ResourceInfo",
    "SubresourceInfo",
    "struct_name",
]

STANDARD_VERBS = frozenset({"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"})
# Namespaces cannot be deleted as a collection (their deletion is a finalizer-driven lifecycle).
_NO_COLLECTION = STANDARD_VERBS - {"deletecollection"}
CREATE_ONLY = frozenset({"create"})
GET_PATCH_UPDATE = frozenset({"get", "patch", "update"})


class ResourceInfo(msgspec.Struct, frozen=True, kw_only=True):
    """One served resource, as discovery describes it."""

    group: str  # "" for the core group
    version: str
    kind: str
    plural: str  # "pods"
    singular: str  # "pod"
    namespaced: bool
    short_names: tuple[str, ...] = ()
    categories: tuple[str, ...] = ()  # "all" makes `kubectl get all` include it
    subresources: frozenset[str] = frozenset()
    # the generated Struct class as "<module of kubelite.api.types>.<class>" ("core_v1.Pod"; "" for custom
    # resources): the class is imported when ``struct`` is first read, so the registry loads no kind's module
    struct_name: str = ""
    schema_ref: str | None = None  # definition name in openapi.json; None for custom resources
    list_kind: str = ""  # "PodList"
    verbs: frozenset[str] = STANDARD_VERBS
    # every version a client may send the kind in (a CRD's served versions; ``version`` is its storage
    # version): the REST mapper finds the resource under each
    served_versions: tuple[str, ...] = ()
    # built-in kinds served in more versions than their storage one: (version, Struct name) of each other
    # served version, converted to and from ``version`` by the apiserver's scheme
    version_structs: tuple[tuple[str, str], ...] = ()
    # for a view of a built-in kind at a served non-storage version (see Registry.at_version): the
    # storage version (what ``version`` is for every other record)
    storage_version: str = ""

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    @property
    def struct(self) -> type | None:
        """The generated Struct class; None for custom resources."""
        return _struct(self.struct_name) if self.struct_name else None

    @property
    def builtin(self) -> bool:
        """A built-in kind (it has a generated Struct), without importing the Struct's module."""
        return bool(self.struct_name)

    def at_version(self, version: str) -> ResourceInfo:
        """This built-in resource as served at ``version``: itself for its own version, else a view with that
        version's Struct and schema whose ``storage`` names the stored version. KeyError if it does not
        serve ``version`` with a Struct of its own (custom resources: see Registry.at_version)."""
        if version == self.version:
            return self
        for v, name in self.version_structs:
            if v == version:
                return msgspec.structs.replace(self, version=v, struct_name=name, schema_ref=_schema_ref(name),
                                               storage_version=self.storage)
        gv = f"{self.group}/{version}" if self.group else version
        raise KeyError(f'the server could not find the requested resource "{self.plural}" in "{gv}"')

    @property
    def storage(self) -> str:
        """The version objects of this resource are stored in (``version`` unless this is a version view)."""
        return self.storage_version or self.version

    @property
    def group_resource(self) -> str:
        """``pods`` or ``deployments.apps``: upstream's schema.GroupResource.String()."""
        return f"{self.plural}.{self.group}" if self.group else self.plural


class SubresourceInfo(msgspec.Struct, frozen=True, kw_only=True):
    """A subresource of a resource: the kind its requests carry and the verbs it serves."""

    name: str  # "status", "scale", ...
    parent: ResourceInfo
    group: str
    version: str
    kind: str
    verbs: frozenset[str]
    struct_name: str = ""  # as ResourceInfo's
    schema_ref: str | None = None

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    @property
    def struct(self) -> type | None:
        """The generated Struct class the subresource's requests carry; None for custom resources."""
        return _struct(self.struct_name) if self.struct_name else None


_TYPES = "kubelite.api.types."
#: struct name -> class, filled as kinds are first used (bounded: one entry per generated kind)
_STRUCTS: dict[str, type] = {}


def _struct(name: str) -> type:
    cls = _STRUCTS.get(name)
    if cls is None:
        module, _, attr = name.partition(".")
        cls = _STRUCTS[name] = getattr(importlib.import_module(_TYPES + module), attr)
    return cls


def struct_name(cls: type) -> str:
    """The ``struct_name`` of a generated Struct class (of its read-only twin's class too); "" for any other."""
    cls = getattr(cls, "__thawed__", cls)  # a shared view's read-only twin (kubelite.api.views)
    module = getattr(cls, "__module__", "")
    if not module.startswith(_TYPES):
        return ""
    return f"{module[len(_TYPES):]}.{cls.__name__}"


def _schema_ref(name: str) -> str:
    """The openapi.json definition of a generated Struct: module ``core_v1`` -> ``io.k8s.api.core.v1``."""
    module, _, cls_name = name.partition(".")
    if module == "meta_v1":
        prefix = "io.k8s.apimachinery.pkg.apis.meta.v1"
    elif module == "apiextensions_v1":
        prefix = "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1"
    elif module == "apiregistration_v1":
        prefix = "io.k8s.kube-aggregator.pkg.apis.apiregistration.v1"
    else:
        group, version = module.rsplit("_", 1)
        prefix = f"io.k8s.api.{group}.{version}"
    return f"{prefix}.{cls_name}"


def _builtin(
    group: str,
    version: str,
    name: str,
    plural: str,
    *,
    namespaced: bool = True,
    short: tuple[str, ...] = (),
    categories: tuple[str, ...] = (),
    sub: tuple[str, ...] = (),
    verbs: frozenset[str] = STANDARD_VERBS,
    also: tuple[tuple[str, str], ...] = (),
) -> ResourceInfo:
    kind = name.partition(".")[2]
    return ResourceInfo(
        group=group, version=version, kind=kind, plural=plural, singular=kind.lower(),
        namespaced=namespaced, short_names=short, categories=categories, subresources=frozenset(sub),
        struct_name=name, schema_ref=_schema_ref(name), list_kind=f"{kind}List", verbs=verbs,
        served_versions=tuple(v for v, _ in also), version_structs=also,
    )


_ALL = ("all",)
_STATUS = ("status",)
_STATUS_SCALE = ("status", "scale")

BUILTIN: tuple[ResourceInfo, ...] = (
    # core/v1
    _builtin("", "v1", "core_v1.Binding", "bindings", verbs=CREATE_ONLY),
    _builtin("", "v1", "core_v1.ComponentStatus", "componentstatuses", namespaced=False, short=("cs",),
             verbs=frozenset({"get", "list"})),
    _builtin("", "v1", "core_v1.ConfigMap", "configmaps", short=("cm",)),
    _builtin("", "v1", "core_v1.Endpoints", "endpoints", short=("ep",)),
    _builtin("", "v1", "core_v1.Event", "events", short=("ev",)),
    _builtin("", "v1", "core_v1.Namespace", "namespaces", namespaced=False, short=("ns",), sub=("status", "finalize"),
             verbs=_NO_COLLECTION),
    _builtin("", "v1", "core_v1.Node", "nodes", namespaced=False, short=("no",), sub=_STATUS),
    _builtin("", "v1", "core_v1.PersistentVolumeClaim", "persistentvolumeclaims", short=("pvc",), sub=_STATUS),
    _builtin("", "v1", "core_v1.PersistentVolume", "persistentvolumes", namespaced=False, short=("pv",), sub=_STATUS),
    _builtin("", "v1", "core_v1.Pod", "pods", short=("po",), categories=_ALL,
             sub=("status", "binding", "eviction", "log")),
    _builtin("", "v1", "core_v1.LimitRange", "limitranges", short=("limits",)),
    _builtin("", "v1", "core_v1.ReplicationController", "replicationcontrollers", short=("rc",), categories=_ALL,
             sub=_STATUS),
    _builtin("", "v1", "core_v1.ResourceQuota", "resourcequotas", short=("quota",), sub=_STATUS),
    _builtin("", "v1", "core_v1.Secret", "secrets"),
    _builtin("", "v1", "core_v1.ServiceAccount", "serviceaccounts", short=("sa",), sub=("token",)),
    _builtin("", "v1", "core_v1.Service", "services", short=("svc",), categories=_ALL, sub=_STATUS),
    # admissionregistration.k8s.io/v1
    _builtin("admissionregistration.k8s.io", "v1", "admissionregistration_v1.ValidatingAdmissionPolicy", "validatingadmissionpolicies",
             namespaced=False, categories=("api-extensions",), sub=_STATUS),
    _builtin("admissionregistration.k8s.io", "v1", "admissionregistration_v1.ValidatingAdmissionPolicyBinding",
             "validatingadmissionpolicybindings", namespaced=False, categories=("api-extensions",)),
    # apiextensions.k8s.io/v1
    _builtin("apiextensions.k8s.io", "v1", "apiextensions_v1.CustomResourceDefinition", "customresourcedefinitions",
             namespaced=False, short=("crd", "crds"), categories=("api-extensions",), sub=_STATUS),
    # apiregistration.k8s.io/v1 (kube-aggregator)
    _builtin("apiregistration.k8s.io", "v1", "apiregistration_v1.APIService", "apiservices", namespaced=False,
             categories=("api-extensions",), sub=_STATUS),
    # apps/v1
    _builtin("apps", "v1", "apps_v1.ControllerRevision", "controllerrevisions"),
    # authentication.k8s.io/v1, authorization.k8s.io/v1: reviews, create-only and never stored
    _builtin("authentication.k8s.io", "v1", "authentication_v1.SelfSubjectReview", "selfsubjectreviews", namespaced=False,
             verbs=CREATE_ONLY),
    _builtin("authentication.k8s.io", "v1", "authentication_v1.TokenReview", "tokenreviews", namespaced=False, verbs=CREATE_ONLY),
    _builtin("authorization.k8s.io", "v1", "authorization_v1.LocalSubjectAccessReview", "localsubjectaccessreviews",
             verbs=CREATE_ONLY),
    _builtin("authorization.k8s.io", "v1", "authorization_v1.SelfSubjectAccessReview", "selfsubjectaccessreviews",
             namespaced=False, verbs=CREATE_ONLY),
    _builtin("authorization.k8s.io", "v1", "authorization_v1.SelfSubjectRulesReview", "selfsubjectrulesreviews", namespaced=False,
             verbs=CREATE_ONLY),
    _builtin("authorization.k8s.io", "v1", "authorization_v1.SubjectAccessReview", "subjectaccessreviews", namespaced=False,
             verbs=CREATE_ONLY),
    _builtin("apps", "v1", "apps_v1.DaemonSet", "daemonsets", short=("ds",), categories=_ALL, sub=_STATUS),
    _builtin("apps", "v1", "apps_v1.Deployment", "deployments", short=("deploy",), categories=_ALL, sub=_STATUS_SCALE),
    _builtin("apps", "v1", "apps_v1.ReplicaSet", "replicasets", short=("rs",), categories=_ALL, sub=_STATUS_SCALE),
    _builtin("apps", "v1", "apps_v1.StatefulSet", "statefulsets", short=("sts",), categories=_ALL, sub=_STATUS_SCALE),
    # autoscaling/v2, also served as autoscaling/v1 (stored as v2: pkg/apis/autoscaling/v1/conversion.go)
    _builtin("autoscaling", "v2", "autoscaling_v2.HorizontalPodAutoscaler", "horizontalpodautoscalers", short=("hpa",),
             categories=_ALL, sub=_STATUS, also=(("v1", "autoscaling_v1.HorizontalPodAutoscaler"),)),
    # batch/v1
    _builtin("batch", "v1", "batch_v1.CronJob", "cronjobs", short=("cj",), categories=_ALL, sub=_STATUS),
    _builtin("batch", "v1", "batch_v1.Job", "jobs", categories=_ALL, sub=_STATUS),
    # certificates.k8s.io/v1
    _builtin("certificates.k8s.io", "v1", "certificates_v1.CertificateSigningRequest", "certificatesigningrequests",
             namespaced=False, short=("csr",), sub=("status", "approval")),
    # coordination.k8s.io/v1
    _builtin("coordination.k8s.io", "v1", "coordination_v1.Lease", "leases"),
    # discovery.k8s.io/v1
    _builtin("discovery.k8s.io", "v1", "discovery_v1.EndpointSlice", "endpointslices"),
    # flowcontrol.apiserver.k8s.io/v1
    _builtin("flowcontrol.apiserver.k8s.io", "v1", "flowcontrol_v1.FlowSchema", "flowschemas", namespaced=False, sub=_STATUS),
    _builtin("flowcontrol.apiserver.k8s.io", "v1", "flowcontrol_v1.PriorityLevelConfiguration", "prioritylevelconfigurations",
             namespaced=False, sub=_STATUS),
    # networking.k8s.io/v1
    _builtin("networking.k8s.io", "v1", "networking_v1.IngressClass", "ingressclasses", namespaced=False),
    _builtin("networking.k8s.io", "v1", "networking_v1.Ingress", "ingresses", short=("ing",), sub=_STATUS),
    _builtin("networking.k8s.io", "v1", "networking_v1.NetworkPolicy", "networkpolicies", short=("netpol",)),
    # policy/v1
    _builtin("policy", "v1", "policy_v1.PodDisruptionBudget", "poddisruptionbudgets", short=("pdb",), sub=_STATUS),
    # rbac.authorization.k8s.io/v1
    _builtin("rbac.authorization.k8s.io", "v1", "rbac_v1.ClusterRoleBinding", "clusterrolebindings", namespaced=False),
    _builtin("rbac.authorization.k8s.io", "v1", "rbac_v1.ClusterRole", "clusterroles", namespaced=False),
    _builtin("rbac.authorization.k8s.io", "v1", "rbac_v1.RoleBinding", "rolebindings"),
    _builtin("rbac.authorization.k8s.io", "v1", "rbac_v1.Role", "roles"),
    # resource.k8s.io/v1 (dynamic resource allocation)
    _builtin("resource.k8s.io", "v1", "resource_v1.DeviceClass", "deviceclasses", namespaced=False),
    _builtin("resource.k8s.io", "v1", "resource_v1.ResourceClaimTemplate", "resourceclaimtemplates"),
    _builtin("resource.k8s.io", "v1", "resource_v1.ResourceClaim", "resourceclaims", sub=_STATUS),
    _builtin("resource.k8s.io", "v1", "resource_v1.ResourceSlice", "resourceslices", namespaced=False),
    # scheduling.k8s.io/v1
    _builtin("scheduling.k8s.io", "v1", "scheduling_v1.PriorityClass", "priorityclasses", namespaced=False, short=("pc",)),
    # storage.k8s.io/v1
    _builtin("storage.k8s.io", "v1", "storage_v1.StorageClass", "storageclasses", namespaced=False, short=("sc",)),
)

# Subresources whose kind is not the parent's: name -> (group, version, Struct, verbs).
_SUBRESOURCE_KINDS: dict[str, tuple[str, str, str, frozenset[str]]] = {
    "scale": ("autoscaling", "v1", "autoscaling_v1.Scale", GET_PATCH_UPDATE),
    "binding": ("", "v1", "core_v1.Binding", CREATE_ONLY),
    "eviction": ("policy", "v1", "policy_v1.Eviction", CREATE_ONLY),
    "token": ("authentication.k8s.io", "v1", "authentication_v1.TokenRequest", CREATE_ONLY),
}
# Subresources served as the parent kind: name -> verbs.
_PARENT_KIND_VERBS: dict[str, frozenset[str]] = {
    "status": GET_PATCH_UPDATE,
    "finalize": frozenset({"update"}),
    "log": frozenset({"get"}),
}


class Registry:
    """Maps every name a request or manifest can use to its :class:`ResourceInfo`."""

    def __init__(self, infos: Iterable[ResourceInfo] = BUILTIN) -> None:
        # (group, plural) -> info; insertion order is the iteration order.
        self._by_resource: dict[tuple[str, str], ResourceInfo] = {}
        self._by_kind: dict[tuple[str, str], ResourceInfo] = {}
        self._by_struct: dict[str, ResourceInfo] = {}  # by struct_name: no kind's module is imported
        # kubectl names (lower case) -> infos, first registered first.
        self._by_name: dict[str, list[ResourceInfo]] = {}
        for info in infos:
            self.register(info)

    def register(self, info: ResourceInfo) -> None:
        """Add or replace a resource (a CRD being established). Replacing keeps its position."""
        key = (info.group, info.plural)
        old = self._by_resource.get(key)
        self._by_resource[key] = info
        if old is not None and old is not info:
            self._reindex()
        else:
            self._index(info)

    def unregister(self, group: str, plural: str) -> None:
        """Remove a resource (a CRD being deleted). KeyError if it is not registered."""
        del self._by_resource[(group, plural)]
        self._reindex()

    def _reindex(self) -> None:
        self._by_kind.clear()
        self._by_struct.clear()
        self._by_name.clear()
        for info in self._by_resource.values():
            self._index(info)

    def _index(self, info: ResourceInfo) -> None:
        self._by_kind.setdefault((info.api_version, info.kind), info)
        views = {v: self.at_version(info, v) for v, _ in info.version_structs}
        for version in info.served_versions:
            api_version = f"{info.group}/{version}" if info.group else version
            self._by_kind.setdefault((api_version, info.kind), views.get(version, info))
        if info.struct_name:
            self._by_struct.setdefault(info.struct_name, info)
        for view in views.values():
            self._by_struct.setdefault(view.struct_name, view)
        for name in (info.plural, info.singular, info.kind.lower(), *info.short_names):
            bucket = self._by_name.setdefault(name, [])
            if info not in bucket:
                bucket.append(info)

    def at_version(self, info: ResourceInfo, version: str) -> ResourceInfo:
        """``info`` as served at ``version`` (see ResourceInfo.at_version); a custom resource's served
        versions are the registered record itself. KeyError if the resource does not serve ``version``."""
        if info.storage_version:
            info = self._by_resource.get((info.group, info.plural), info)
        if version == info.version:
            return info
        if version not in info.served_versions:
            gv = f"{info.group}/{version}" if info.group else version
            raise KeyError(f'the server could not find the requested resource "{info.plural}" in "{gv}"')
        return info.at_version(version) if info.version_structs else info

    def by_resource(self, group: str, plural: str) -> ResourceInfo:
        try:
            return self._by_resource[(group, plural)]
        except KeyError:
            gr = f"{plural}.{group}" if group else plural
            raise KeyError(f'the server could not find the requested resource "{gr}"') from None

    def by_kind(self, api_version: str, kind: str) -> ResourceInfo:
        try:
            return self._by_kind[(api_version, kind)]
        except KeyError:
            raise KeyError(f'no matches for kind "{kind}" in version "{api_version}"') from None

    def for_struct(self, cls: type) -> ResourceInfo:
        """The resource a generated Struct class is served as (not Scale/Eviction: see subresource)."""
        info = self._by_struct.get(struct_name(cls))
        # the name is the generated class's only if that class is this one (or its read-only twin's base)
        if info is None or info.struct is not getattr(cls, "__thawed__", cls):
            raise KeyError(f"{cls.__name__} is not a registered resource kind")
        return info

    def lookup(self, ref: Any) -> ResourceInfo:
        """Any resource naming kubelite accepts, the client's forms and the older ``group/plural``:
        a generated Struct class, a kubectl name (``"pods"``, ``"deploy"``, ``"widgets.example.com"``),
        ``"apps/deployments"``, ``(apiVersion, kind)`` or a :class:`ResourceInfo`. ``KeyError`` (naming
        the reference) when it matches nothing."""
        if isinstance(ref, ResourceInfo):
            return ref
        if isinstance(ref, type):
            return self.for_struct(ref)
        if isinstance(ref, tuple):
            return self.by_kind(ref[0], ref[1])
        if not isinstance(ref, str) or not ref:
            raise KeyError(f"not a resource reference: {ref!r}")
        if "/" in ref:
            group, _, plural = ref.rpartition("/")
            return self.by_resource(group, plural)
        return self.resolve(ref)

    def resolve(self, name: str) -> ResourceInfo:
        """kubectl's resource argument: ``po``, ``pods``, ``pod``, ``Pod``, ``deployments.apps``,
        ``deploy.v1.apps``. Like kubectl's RESTMapper, ``resource.group`` and
        ``resource.version.group`` are tried before the bare name; an ambiguous bare name resolves
        to the first registered match (the core group before others, built-ins before CRDs)."""
        lowered = name.lower()
        resource, dot, rest = lowered.partition(".")
        if dot:
            # resource.version.group first, then resource.group (upstream ParseResourceArg).
            version, dot2, group = rest.partition(".")
            if dot2:
                for info in self._by_name.get(resource, ()):
                    if info.group == group and (info.version == version or version in info.served_versions):
                        return self.at_version(info, version) if info.struct_name else info
            for info in self._by_name.get(resource, ()):
                if info.group == rest:
                    return info
        else:
            matches = self._by_name.get(lowered)
            if matches:
                return matches[0]
        raise KeyError(f'the server doesn\'t have a resource type "{name}"')

    def subresource(self, info: ResourceInfo, name: str) -> SubresourceInfo:
        """What a request to ``<resource>/<name>`` carries. KeyError if the resource has no such
        subresource (custom resources may have ``status`` and ``scale``)."""
        if name not in info.subresources:
            raise KeyError(f'the server could not find the requested resource "{info.group_resource}/{name}"')
        if name in _SUBRESOURCE_KINDS:
            group, version, cls_name, verbs = _SUBRESOURCE_KINDS[name]
            return SubresourceInfo(
                name=name, parent=info, group=group, version=version, kind=cls_name.partition(".")[2], verbs=verbs,
                struct_name=cls_name, schema_ref=_schema_ref(cls_name),
            )
        return SubresourceInfo(
            name=name, parent=info, group=info.group, version=info.version, kind=info.kind,
            verbs=_PARENT_KIND_VERBS.get(name, GET_PATCH_UPDATE), struct_name=info.struct_name,
            schema_ref=info.schema_ref,
        )

    def __iter__(self) -> Iterator[ResourceInfo]:
        return iter(list(self._by_resource.values()))

    def __len__(self) -> int:
        return len(self._by_resource)

    def __contains__(self, key: object) -> bool:
        return key in self._by_resource
