"""Registry strategies: everything the generic store does differently per kind.

The shape of upstream's ``rest.RESTCreateStrategy`` / ``RESTUpdateStrategy`` / ``RESTDeleteStrategy``
(``k8s.io/apiserver/pkg/registry/rest``) and each kind's ``pkg/registry/<group>/<resource>/strategy.go``.
:class:`Strategy` is the default for a built-in kind; a kind with its own behaviour subclasses it and is
registered in :mod:`kubelite.apiserver.registry.strategies`. Guarantees of the defaults:

- On create, resources with a status subresource start with a fresh status (``initial_status``), and
  resources that track generations start at generation 1.
- An update of the main resource keeps the stored status and system metadata (uid, creationTimestamp,
  deletionTimestamp, deletionGracePeriodSeconds, generation); ``metadata.generation`` is bumped when the
  spec changes. An update of ``/status`` (:class:`StatusStrategy`) keeps everything but the status.
- ``reset_fields`` is ``GetResetFields``: what a write through the endpoint can never own in managedFields.
- ``allocate`` reserves what a write needs from the apiserver's allocators (Service ClusterIPs and
  NodePorts) and returns an :class:`Allocation` the store rolls back if the write does not happen.
- ``after_write`` runs only after the store was written (caches of the apiserver itself: RBAC, CRDs).
Every hook mutates the private dict the store passes in and never keeps a reference to it; hooks that
reject raise an :class:`~kubelite.errors.ApiError`, before anything was written.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from kubelite.api.resources import ResourceInfo
from kubelite.api.schema import Schema, builtin_schemas
from kubelite.apiserver.defaults import apply_defaults
from kubelite.apiserver.registry.table import default_table
from kubelite.apiserver.validation import validate_create, validate_status_update, validate_update
from kubelite.errors import FieldError

if TYPE_CHECKING:
    from kubelite.apiserver.auth.user import UserInfo

__all__ = [
    "DELETE_NOW",
    "SYSTEM_META",
    "UNCHANGED",
    "WRITE",
    "Allocation",
    "ScaleStrategy",
    "Strategy",
    "StatusStrategy",
    "SubresourceStrategy",
    "UpdateStrategy",
    "keep_system_meta",
]

SYSTEM_META = ("uid", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "generation")
# what ``before_delete`` may return besides an object to write
DELETE_NOW = "delete"
UNCHANGED = "unchanged"
WRITE = "write"


class Allocation(Protocol):
    """What ``Strategy.allocate`` reserved; ``rollback`` gives it back (the write did not happen)."""

    def rollback(self) -> None: ...


class UpdateStrategy(Protocol):
    """What an update through one endpoint (the resource, ``/status``, ``/finalize``, ``/binding``) does.

    ``prepare_request`` runs before admission and may return a new object; ``prepare_for_update`` after
    mutating admission, in place; ``validate_update`` returns the field errors."""

    info: ResourceInfo
    subresource: str

    def prepare_request(self, obj: dict[str, Any], old: dict[str, Any], *, mutated: bool) -> dict[str, Any]: ...

    def prepare_for_update(self, obj: dict[str, Any], old: dict[str, Any], *, mutated: bool) -> None: ...

    def validate_update(self, obj: dict[str, Any], old: dict[str, Any]) -> list[FieldError]: ...

    def canonicalize(self, obj: dict[str, Any]) -> None: ...

    def reset_fields(self) -> dict[str, Any] | None: ...

    def ssa_schema(self) -> Schema | None: ...

    def authorize_write(self, user: UserInfo, obj: dict[str, Any], old: dict[str, Any] | None) -> None: ...

    def allocate(self, obj: dict[str, Any], old: dict[str, Any] | None) -> Allocation | None: ...

    def after_write(self, obj: dict[str, Any] | None, old: dict[str, Any] | None) -> None: ...

    def spec_finalizers(self, obj: dict[str, Any]) -> list[str]: ...


def keep_system_meta(new_meta: dict[str, Any], old_meta: dict[str, Any]) -> None:
    """``rest.BeforeUpdate``: system metadata cannot be changed by an update."""
    for k in SYSTEM_META:
        if k in old_meta:
            new_meta[k] = old_meta[k]
        else:
            new_meta.pop(k, None)
    new_meta.pop("selfLink", None)


class Strategy:
    """The default strategy of a built-in kind (see the module docstring)."""

    subresource = ""
    # upstream strategies that set metadata.generation (PrepareForCreate sets 1, PrepareForUpdate bumps it)
    tracks_generation = False
    # rest.RESTUpdateStrategy.AllowCreateOnUpdate: a PUT (and so a non-apply PATCH) may create the object
    allow_create_on_update = False
    #: the per-template create memo (registry/templates.py): the field objects of the kind are stamped out of
    #: a template with, when the kind's defaulting, initial status, validation and canonicalization of that
    #: field read nothing else (then ``validate_metadata`` is the rest of ``validate``); None: no memo
    template_field: str | None = None

    def __init__(self, info: ResourceInfo) -> None:
        self.info = info
        self.has_status = "status" in info.subresources
        self._schema: Schema | None = None

    # --- shape ---
    def schema(self) -> Schema | None:
        """The structural schema of the kind (pruning, strategic merge)."""
        if self._schema is None and self.info.schema_ref is not None:
            self._schema = builtin_schemas().get(self.info.schema_ref)
        return self._schema

    def ssa_schema(self) -> Schema | None:
        """The schema managedFields and server-side apply use."""
        return self.schema()

    def default(self, obj: dict[str, Any]) -> None:
        """The kind's defaulting (upstream runs it while decoding); idempotent."""
        apply_defaults(self.info.group, self.info.kind, obj)

    # --- create ---
    def initial_status(self, obj: dict[str, Any]) -> dict[str, Any] | None:
        """The status a new object starts with when the kind has a status subresource (None: keep the
        caller's)."""
        return {}

    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        if self.has_status:
            status = self.initial_status(obj)
            if status is not None:
                obj["status"] = status
        if self.tracks_generation:
            obj["metadata"]["generation"] = 1

    def prepare_for_create_as(self, obj: dict[str, Any], user: UserInfo) -> None:
        """The part of ``PrepareForCreate`` that reads the requesting user from the request context
        (a CertificateSigningRequest records its requester); the default ignores it."""

    def finish_create(self, obj: dict[str, Any]) -> None:
        """What the strategy sets once the name and uid exist (``PrepareForCreate`` runs after name
        generation upstream)."""

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        return validate_create(self.info.group, self.info.kind, obj)

    def validate_metadata(self, obj: dict[str, Any]) -> list[FieldError]:
        """What ``validate`` checks outside ``template_field`` (only kinds with a template field have it)."""
        raise NotImplementedError(f"{self.info.kind} has no template field")

    def canonicalize(self, obj: dict[str, Any]) -> None:
        """Canonicalize: normalise a validated object before it is stored (upstream's Endpoints repack
        their subsets here); the default keeps it as it is."""

    # --- update ---
    def prepare_request(self, obj: dict[str, Any], old: dict[str, Any], *, mutated: bool) -> dict[str, Any]:
        self.default(obj)
        return obj

    def prepare_for_update(self, obj: dict[str, Any], old: dict[str, Any], *, mutated: bool) -> None:
        if mutated:
            self.default(obj)
        keep_system_meta(obj["metadata"], old["metadata"])
        if self.has_status:
            if "status" in old:
                obj["status"] = old["status"]
            else:
                obj.pop("status", None)
        if self.tracks_generation:
            gen = old["metadata"].get("generation") or 0
            obj["metadata"]["generation"] = gen + 1 if self.spec_changed(obj, old) else gen

    def spec_changed(self, obj: dict[str, Any], old: dict[str, Any]) -> bool:
        """Whether an update bumps ``metadata.generation``."""
        return obj.get("spec") != old.get("spec")

    def validate_update(self, obj: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        return validate_update(self.info.group, self.info.kind, obj, old)

    def reset_fields(self) -> dict[str, Any] | None:
        """GetResetFields: a write to the main resource never owns the status."""
        return {"f:status": {}} if self.has_status else None

    # --- the status subresource (used by StatusStrategy) ---
    def prepare_status_update(self, obj: dict[str, Any], old: dict[str, Any]) -> dict[str, Any]:
        """Built-in kinds follow their status strategies (e.g. deploymentStatusStrategy, podStatusStrategy):
        the spec, labels, ownerReferences and system metadata come from the stored object; everything else
        in ``metadata`` (annotations, finalizers) and ``status`` from the request."""
        result = {k: v for k, v in old.items() if k not in ("status", "metadata")}
        meta = dict(obj["metadata"])
        old_meta = old["metadata"]
        for k in (*SYSTEM_META, "labels", "ownerReferences", "name", "namespace"):
            if k in old_meta:
                meta[k] = old_meta[k]
            else:
                meta.pop(k, None)
        result["metadata"] = meta
        if "status" in obj:
            result["status"] = obj["status"]
        return result

    def validate_status_update(self, obj: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        return validate_status_update(self.info.group, self.info.kind, obj, old)

    # --- hooks around the write ---
    def authorize_write(self, user: UserInfo, obj: dict[str, Any], old: dict[str, Any] | None) -> None:
        """Checks beyond RBAC's verb check that depend on the object (escalation prevention)."""

    def allocate(self, obj: dict[str, Any], old: dict[str, Any] | None) -> Allocation | None:
        return None

    def after_write(self, obj: dict[str, Any] | None, old: dict[str, Any] | None) -> None:
        """Called once the store holds ``obj`` (None: ``old`` was removed)."""

    # --- delete ---
    def grace_period(self, obj: dict[str, Any], requested: int | None) -> int:
        """CheckGracefulDelete: kinds without graceful deletion are deleted at once."""
        return 0

    def spec_finalizers(self, obj: dict[str, Any]) -> list[str]:
        """Finalizers beyond ``metadata.finalizers`` that keep the object (namespaces' spec.finalizers)."""
        return []

    # a kind with its own deletion (namespaces' REST Delete) sets this and implements before_delete
    own_delete = False

    def before_delete(self, obj: dict[str, Any], now: str) -> str:
        """With ``own_delete``: return DELETE_NOW, UNCHANGED, or WRITE after mutating ``obj``."""
        raise NotImplementedError

    # --- reads ---
    def convert_to_table(self, objs: list[dict[str, Any]], now: float) -> dict[str, Any]:
        """TableConvertor (``kubectl get``'s server-side printing); ``now`` is cluster time."""
        return default_table(objs)


class SubresourceStrategy:
    """The strategy of a write through a subresource of ``main``'s kind: by default the object passes
    unchanged and unvalidated, and everything about the kind itself (managedFields schema and reset
    fields, canonicalization, escalation checks, after-write hooks, finalizers) is the main strategy's.
    Subclasses say what their endpoint may change."""

    subresource = ""

    def __init__(self, main: Strategy) -> None:
        self.main = main
        self.info = main.info

    def prepare_request(self, obj: dict[str, Any], old: dict[str, Any], *, mutated: bool) -> dict[str, Any]:
        return obj

    def prepare_for_update(self, obj: dict[str, Any], old: dict[str, Any], *, mutated: bool) -> None:
        pass

    def validate_update(self, obj: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        return []

    def canonicalize(self, obj: dict[str, Any]) -> None:
        self.main.canonicalize(obj)

    def reset_fields(self) -> dict[str, Any] | None:
        return self.main.reset_fields()

    def ssa_schema(self) -> Schema | None:
        return self.main.ssa_schema()

    def authorize_write(self, user: UserInfo, obj: dict[str, Any], old: dict[str, Any] | None) -> None:
        self.main.authorize_write(user, obj, old)

    def allocate(self, obj: dict[str, Any], old: dict[str, Any] | None) -> Allocation | None:
        return None  # allocations follow the main resource's spec, which subresources do not change

    def after_write(self, obj: dict[str, Any] | None, old: dict[str, Any] | None) -> None:
        self.main.after_write(obj, old)

    def spec_finalizers(self, obj: dict[str, Any]) -> list[str]:
        return self.main.spec_finalizers(obj)


class ScaleStrategy(SubresourceStrategy):
    """The ``/scale`` endpoint's strategy: upstream's ScaleREST updates the parent through the kind's own store
    (its PrepareForUpdate bumps the generation, its ValidateUpdate runs), so everything is the main
    strategy's but the endpoint's name, which admission sees and managedFields record (an entry with
    ``subresource: scale``, so an apply conflicting on ``spec.replicas`` names ``"kubectl" with subresource
    "scale"``)."""

    subresource = "scale"

    def prepare_request(self, obj: dict[str, Any], old: dict[str, Any], *, mutated: bool) -> dict[str, Any]:
        return self.main.prepare_request(obj, old, mutated=mutated)

    def prepare_for_update(self, obj: dict[str, Any], old: dict[str, Any], *, mutated: bool) -> None:
        self.main.prepare_for_update(obj, old, mutated=mutated)

    def validate_update(self, obj: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        return self.main.validate_update(obj, old)


class StatusStrategy(SubresourceStrategy):
    """The ``/status`` endpoint's strategy (upstream's ``<kind>StatusStrategy``): only the status, plus
    metadata annotations and finalizers for built-in kinds, come from the request."""

    subresource = "status"

    def prepare_request(self, obj: dict[str, Any], old: dict[str, Any], *, mutated: bool) -> dict[str, Any]:
        return self.main.prepare_status_update(obj, old)

    def validate_update(self, obj: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        return self.main.validate_status_update(obj, old)

    def reset_fields(self) -> dict[str, Any] | None:
        return {"f:spec": {}, "f:metadata": {"f:labels": {}, "f:annotations": {}}}
